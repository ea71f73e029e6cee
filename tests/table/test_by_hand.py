"""The game goes on by hand: cards entered on the screen, deals told as on a chalk slate, corrections both teams
accept, players seated by name. Every gesture is a journaled event, replays exactly and can be undone."""

from __future__ import annotations

import dataclasses
import io

import pytest

from tablepi.errors import RulesCode
from tablepi.journal.record import read_record, write_record
from tablepi.rules import Announcement, Card, HouseRules, Seat, Slate, Suit, Team
from tablepi.rules.entry import DealEntry
from tablepi.rules.slate import Match
from tablepi.table import Button, ButtonName, CardLifted, CardPlaced, ReaderState, ReaderStatus, Table, TableEvent
from tablepi.table.events import (
    CardEntered,
    CorrectionAnswered,
    CorrectionProposed,
    DealEntered,
    DealerChosen,
    PlayersSeated,
    SeatingSource,
    TrumpsEntered,
)
from tablepi.table.simulate import simulate_match
from tablepi.table.state import TablePhase

MATT = Card.parse("QS")


def results(slate: Slate) -> list[tuple[object, ...]]:
    return [(e.result.winner, e.stake, dict(e.struck), dict(e.added)) for e in slate.history]


@pytest.mark.parametrize("seed", [3, 11])
def test_a_reader_dies_at_trick_2_of_deal_3_and_the_match_ends_by_hand(seed: int) -> None:
    script = simulate_match(seed, claims=False)
    assert script.match is not None and script.deals >= 3
    seat = Seat.E
    events = kill_reader(script.events, script, seat)
    table = Table(script.rules, script.dealer, script.config)
    for event in events:
        table.apply(event)
    assert results(table.matches[0].slate) == results(script.match.slate)
    state = table.state
    assert state.phase is TablePhase.MATCH_OVER and state.zone(seat).reader is ReaderState.OFFLINE
    assert not state.zone(seat).cards  # the zone stays the truth: nothing ever lay there again
    entered = sum(1 for e in events if isinstance(e, CardEntered))
    assert entered >= 5
    assert [row.by_hand for row in state.history][:2] == [False, False]
    assert all(row.by_hand for row in state.history[2:])
    assert Table.replay(events, script.rules, script.dealer, script.config).state == state


def kill_reader(events: list[TableEvent], script: object, seat: Seat, screen: bool = False) -> list[TableEvent]:
    """``events`` of a played match with ``seat``'s reader dying once trick 1 of deal 3 is swept: from then on
    his cards are entered by hand, his taps are the buttons (trumps, Matt) and Confirm begins a deal for him; with
    ``screen`` he names trumps on the screen instead (one :class:`TrumpsEntered`, beginning the deal too)."""
    out: list[TableEvent] = []
    table = Table(script.rules, script.dealer, script.config)  # type: ignore[attr-defined]
    dead = False
    for i, event in enumerate(events):
        state = table.state
        if not dead and state.deal.number == 3 and state.phase is TablePhase.PLAY and state.deal.trick_number == 2 \
                and all(zone.is_clear for zone in state.zones):  # trick 1 swept, trick 2 not begun
            dead = True
            out.append(ReaderStatus(event.time, seat, ReaderState.OFFLINE, "cable cut"))
            table.apply(out[-1])
        if dead and isinstance(event, CardPlaced | CardLifted) and event.seat is seat:
            if isinstance(event, CardPlaced):
                assert event.card is not None
                nxt = next((e for e in events[i + 1:] if isinstance(e, CardPlaced | CardLifted)), None)
                tap = isinstance(nxt, CardLifted) and nxt.seat is seat and nxt.card == event.card \
                    and nxt.time - event.time < 1.0
                made: TableEvent | None
                if tap and screen and state.phase in (TablePhase.TRUMPS, TablePhase.DEAL_OVER):
                    made = TrumpsEntered(event.time, seat, event.card.suit)
                else:
                    if tap and state.phase is TablePhase.DEAL_OVER:
                        # His card would have begun the deal: by touch, Confirm does (after acknowledging warnings).
                        while table.state.phase is TablePhase.DEAL_OVER:
                            out.append(Button(event.time, ButtonName.CONFIRM))
                            table.apply(out[-1])
                        state = table.state
                    if tap and state.phase is TablePhase.TRUMPS:
                        made = Button(event.time, ButtonName.trump(event.card.suit))
                    elif tap and event.card == MATT:
                        made = Button(event.time, ButtonName.ANNOUNCE_MATT, seat)
                    elif tap:
                        made = None
                    else:
                        made = CardEntered(event.time, seat, event.card)
                if made is not None:
                    out.append(made)
                    table.apply(made)
            continue
        out.append(event)
        table.apply(event)
    return out


@pytest.mark.parametrize("seed", [3, 11, 19])
def test_trumps_named_on_the_screen_are_one_event_that_does_what_confirm_and_the_trump_button_did(seed: int) -> None:
    """Forehand with a dead reader names trumps on the screen: one ``TrumpsEntered`` (no Confirm presses made up
    for him), which between deals begins the deal too; the match and every state after it are as with Confirm
    and the trump button, and the record and the journal read it back."""
    script = simulate_match(seed, claims=False)
    buttons = kill_reader(script.events, script, Seat.E)
    screen = kill_reader(script.events, script, Seat.E, screen=True)
    named = [e for e in screen if isinstance(e, TrumpsEntered)]
    assert named and all(e.seat is Seat.E for e in named)
    assert sum(1 for e in screen if isinstance(e, Button) and e.name is ButtonName.CONFIRM) < \
        sum(1 for e in buttons if isinstance(e, Button) and e.name is ButtonName.CONFIRM)
    by_buttons = Table.replay(buttons, script.rules, script.dealer, script.config)
    by_screen = Table.replay(screen, script.rules, script.dealer, script.config)
    assert results(by_screen.matches[0].slate) == results(by_buttons.matches[0].slate)
    assert by_screen.state.history == by_buttons.state.history
    assert by_screen.warning_log == by_buttons.warning_log
    assert dataclasses.replace(by_screen.state, events=0) == dataclasses.replace(by_buttons.state, events=0)
    from tablepi.journal.record import RecordHeader

    out = io.StringIO()
    write_record(out, RecordHeader(script.rules, script.dealer, script.config), screen)
    assert '"type": "hand_trumps"' in out.getvalue()
    assert list(read_record(out.getvalue().splitlines()).events) == screen


def test_trumps_by_hand_from_another_seat_or_after_trumps_change_nothing() -> None:
    table = Table(HouseRules(), Seat.N)
    forehand = table.state.deal.next_forehand
    other = next(seat for seat in Seat if seat is not forehand)
    before = table.state
    state = table.apply(TrumpsEntered(1.0, other, Suit.CLUBS))
    assert state.deal.trump is None and state.warning_codes() == ("hand_refused",)
    assert state.warnings[-1].refusal is RulesCode.NOT_FOREHAND
    state = table.apply(TrumpsEntered(2.0, forehand, Suit.CLUBS))
    assert state.deal.trump is Suit.CLUBS and state.phase is TablePhase.PLAY
    state = table.apply(TrumpsEntered(3.0, forehand, Suit.HEARTS))
    assert state.deal.trump is Suit.CLUBS
    table.apply(Button(4.0, ButtonName.UNDO))
    table.apply(Button(4.5, ButtonName.UNDO))
    assert table.state.deal.trump is None and table.state.phase is before.phase


def entries_of(match: Match) -> list[DealEntry]:
    """The deals of a played match as the players would tell them by hand."""
    out = []
    for deal, scored in zip(match.deals, match.slate.history, strict=True):
        result = scored.result
        winner = result.winner
        out.append(DealEntry(deal.forehand, winner, None if winner is None else result.points[winner],
                             result.kapo, result.claimed_by, result.announcements))
    return out


@pytest.mark.parametrize("seed", [1, 7])
def test_a_match_scored_entirely_by_hand_is_the_rules_cores_slate(seed: int) -> None:
    script = simulate_match(seed)
    assert script.match is not None
    events: list[TableEvent] = [DealEntered(10.0 * (i + 1), entry) for i, entry in enumerate(entries_of(script.match))]
    table = Table.replay(events, script.rules, script.dealer, script.config)
    assert results(table.matches[0].slate) == results(script.match.slate)
    state = table.state
    assert state.phase is TablePhase.MATCH_OVER and state.match.winner is script.match.winner
    assert [row.trumps for row in state.history] == [d.forehand for d in script.match.deals]
    assert all(row.by_hand for row in state.history)
    assert state.deal.dealer is script.match.dealer or state.phase is TablePhase.MATCH_OVER


def test_a_correction_takes_both_teams_and_a_refusal_drops_it() -> None:
    table = Table()
    first = DealEntry(Seat.W, Team.EW, 25)
    second = DealEntry(Seat.S, Team.NS, 30, announcements=((Seat.N, Announcement.MATT),))
    for i, entry in enumerate((first, second)):
        table.apply(DealEntered(1.0 + i, entry))
    before = table.state.match.open_lines
    wrong = DealEntry(Seat.W, Team.NS, 22)  # deal 1 was won by N+S, not E+W
    table.apply(CorrectionProposed(5.0, 1, wrong, Team.NS))
    assert table.state.match.proposal is not None and table.state.match.proposal.waiting == (Team.NS, Team.EW)
    table.apply(CorrectionAnswered(6.0, Team.NS, True))
    table.apply(CorrectionAnswered(6.5, Team.NS, True))  # one accept per team: the same team twice is one
    assert table.state.match.open_lines == before and table.state.match.proposal.waiting == (Team.EW,)  # type: ignore[union-attr]
    table.apply(CorrectionAnswered(7.0, Team.EW, True))
    expected = Slate()
    for entry in (wrong, second):
        expected.record(entry.result())
    assert dict(table.state.match.open_lines) == {t: expected.open_lines(t) for t in Team}
    assert table.state.match.proposal is None and [r.corrected for r in table.state.history] == [True, False]
    # Undo takes the last accept back: the old slate, the proposal waiting for E+W again.
    table.apply(Button(8.0, ButtonName.UNDO))
    assert table.state.match.open_lines == before and table.state.match.proposal is not None
    table.apply(CorrectionAnswered(9.0, Team.EW, False))  # E+W refuse: discarded
    assert table.state.match.open_lines == before and table.state.match.proposal is None
    table.apply(CorrectionAnswered(9.5, Team.EW, True))  # nothing to answer now: refused with a warning
    assert table.state.warnings[-1].code.value == "hand_refused"


def test_players_are_seated_and_the_first_dealer_chosen_before_the_first_trumps() -> None:
    table = Table()
    table.apply(PlayersSeated(1.0, ((Seat.N, "Jang"), (Seat.E, "Marie")), SeatingSource.TOUCH))
    table.apply(PlayersSeated(2.0, ((Seat.S, "Guillaume"),), SeatingSource.TAG, "04AB12CD34EF56"))
    table.apply(DealerChosen(3.0, Seat.E))
    state = table.state
    assert dict(state.names) == {Seat.N: "Jang", Seat.E: "Marie", Seat.S: "Guillaume"}
    assert state.deal.dealer is Seat.E
    assert state.deal.forehand is Seat.N  # anticlockwise: the dealer's right names trumps
    table.apply(Button(4.0, ButtonName.TRUMP_HEARTS))
    table.apply(DealerChosen(5.0, Seat.W))  # too late now
    assert table.state.deal.dealer is Seat.E and table.state.warnings[-1].code.value == "hand_refused"


def test_a_card_by_hand_is_refereed_like_a_laid_one() -> None:
    table = Table()
    table.apply(Button(0.0, ButtonName.TRUMP_HEARTS))  # dealer N: forehand W
    table.apply(CardEntered(1.0, Seat.N, Card.parse("AS")))  # not N's turn
    assert table.state.warnings[-1].code.value == "hand_refused" and not table.state.deal.tricks
    table.apply(CardEntered(2.0, Seat.W, Card.parse("AS")))
    assert table.state.deal.tricks[0].plays == ((Seat.W, Card.parse("AS")),)
    assert table.state.deal.tricks[0].by_hand == (Seat.W,) and not table.state.zone(Seat.W).cards
    table.apply(CardPlaced(3.0, Seat.S, Card.parse("AS")))  # the same card laid by another seat: already played
    assert table.state.warnings[-1].code.value == "card_already_played"
    table.apply(CardLifted(4.0, Seat.S, Card.parse("AS")))
    table.apply(Button(5.0, ButtonName.UNDO))
    assert not table.state.deal.tricks or not table.state.deal.tricks[0].plays


def test_records_of_version_2_round_trip_and_version_1_still_reads() -> None:
    from tablepi.journal.record import RecordHeader

    events: list[TableEvent] = [
        PlayersSeated(0.5, ((Seat.N, "Jang"), (Seat.W, "Anna")), SeatingSource.TOURNAMENT),
        DealerChosen(0.8, Seat.S),
        Button(1.0, ButtonName.TRUMP_CLUBS),
        CardEntered(2.0, Seat.E, Card.parse("9C")),
        TrumpsEntered(2.5, Seat.N, Suit.HEARTS),
        DealEntered(3.0, DealEntry(Seat.E, Team.EW, kapo=True, announcements=((Seat.W, Announcement.KONTER),))),
        CorrectionProposed(4.0, 1, DealEntry(Seat.E, None), Team.NS),
        CorrectionAnswered(5.0, Team.NS, True),
    ]
    out = io.StringIO()
    write_record(out, RecordHeader(), events)
    text = out.getvalue()
    assert '"version": 2' in text.splitlines()[0]
    again = read_record(text.splitlines())
    assert list(again.events) == events
    v1 = text.splitlines()[0].replace('"version": 2', '"version": 1')
    from tablepi.errors import RecordError

    with pytest.raises(RecordError, match="line 2: a seat event needs record version 2"):
        read_record([v1, text.splitlines()[1]])


def test_replay_export_and_screenshot_handle_a_record_played_by_hand(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    import json

    from tablepi.cli import main
    from tablepi.journal.record import RecordHeader

    script = simulate_match(3, claims=False)
    events = kill_reader(script.events, script, Seat.E)
    events.append(CorrectionProposed(events[-1].time + 1, 1, DealEntry(Seat.W, Team.NS, 30)))
    events.append(CorrectionAnswered(events[-1].time + 1, Team.NS, True))
    events.append(CorrectionAnswered(events[-1].time + 1, Team.EW, False))
    path = tmp_path / "by_hand.jsonl"
    with path.open("w", encoding="utf-8") as out:
        write_record(out, RecordHeader(script.rules, script.dealer, script.config), events)
    assert main(["replay", "--json", str(path)]) == 0
    report = json.loads(capsys.readouterr().out)
    assert len(report["deals"]) == len(script.match.slate.history)  # type: ignore[union-attr]
    assert main(["replay", str(path)]) == 0
    assert "deal 3" in capsys.readouterr().out
    assert main(["screenshot", str(path), "--out", str(tmp_path / "shots"), "--key-frames"]) == 0
    assert list((tmp_path / "shots").glob("*.png"))
    capsys.readouterr()
    told = [DealEntered(float(i), DealEntry(Seat.W, Team.EW, 25)) for i in range(1, 3)]
    with path.open("w", encoding="utf-8") as out:
        write_record(out, RecordHeader(), told)
    assert main(["replay", "--json", str(path)]) == 0
    deals = json.loads(capsys.readouterr().out)["deals"]
    assert [d["by_hand"] for d in deals] == [True, True] and deals[0]["forehand"] == "W" and deals[0]["tricks"] == []


@pytest.mark.parametrize("name", ["full_match.jsonl", "hand_scan_match.jsonl"])
def test_version_1_records_read_unchanged(name: str, capsys) -> None:  # type: ignore[no-untyped-def]
    """The shipped version-1 records read as before: their header says version 1, their events replay to the same
    table, and written back they are still version 1, event for event; nothing in them is by hand."""
    import json
    from pathlib import Path

    from tablepi.cli import main
    from tablepi.journal.record import load_record

    path = Path(__file__).parents[1] / "records" / name
    record = load_record(path)
    assert record.header.version == 1
    assert not any(isinstance(e, (CardEntered, DealEntered, CorrectionProposed, CorrectionAnswered, PlayersSeated,
                                  DealerChosen)) for e in record.events)
    out = io.StringIO()
    write_record(out, record.header, record.events)
    again = read_record(out.getvalue().splitlines())
    assert again.header.version == 1 and again.events == record.events  # written back as it was
    header = record.header
    state = Table.replay(record.events, header.house_rules, header.dealer, header.table).state
    assert Table.replay(again.events, header.house_rules, header.dealer, header.table).state == state
    assert main(["replay", "--json", str(path)]) == 0
    deals = json.loads(capsys.readouterr().out)["deals"]
    assert deals and not any(d["by_hand"] or d["corrected"] for d in deals)
    assert all(trick["by_hand"] == [] for d in deals for trick in d["tricks"])
