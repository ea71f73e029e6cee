"""What the table journals it always replays (issues 20 and 21): every event is read back by the record reader
before it is written, a gesture that cannot apply is refused with a warning, and a journal an earlier tablepi wrote
with a name this one refuses, or with a correction that ended the match under a deal, starts the table.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tablepi.errors import RecordError
from tablepi.journal.journal import Journal, JournaledTable
from tablepi.journal.record import RecordHeader, event_to_line, load_record, read_record, record_lines
from tablepi.notices import NoticeCode
from tablepi.players import CUT_MARK, MAX_NAME
from tablepi.rules import HouseRules, Seat, Team
from tablepi.rules.entry import DealEntry
from tablepi.table import Button, ButtonName, Table, TableEvent
from tablepi.table.events import (
    CardEntered,
    CorrectionAnswered,
    CorrectionProposed,
    DealEntered,
    PlayersSeated,
    SeatingSource,
    Tick,
)
from tablepi.table.state import TablePhase

RULES = HouseRules.from_mapping({"start_lines": 3})
HEADER = RecordHeader(RULES, Seat.N)


def journaled(path: Path) -> JournaledTable:
    return JournaledTable(path / "journal.sqlite3", HEADER)


def reopened(table: JournaledTable) -> JournaledTable:
    """The table after a restart: a fresh process replays the journal."""
    path = table.path
    table.close()
    return JournaledTable(path, HEADER)


def ew_win(trumps: Seat, **kw: object) -> DealEntry:
    return DealEntry(trumps, Team.EW, 21, **kw)  # type: ignore[arg-type]


def two_deals_then_a_third_under_way(table: JournaledTable, t: float = 0.0) -> float:
    """EW win two deals told by hand (3 lines -> 1 open); deal 3 is dealt, trumps named, two cards played."""
    for _ in range(2):
        t += 1
        table.feed(DealEntered(t, ew_win(table.state.deal.next_forehand)))
    t += 1
    table.feed(Button(t, ButtonName.CONFIRM))  # the next deal is dealt
    t += 1
    table.feed(Button(t, ButtonName.TRUMP_HEARTS))
    for card in ("AH", "KH"):
        t += 1
        seat = table.state.deal.to_play
        assert seat is not None
        table.feed(CardEntered(t, seat, __import__("tablepi.rules", fromlist=["Card"]).Card.parse(card)))
    assert table.state.phase is TablePhase.PLAY and table.state.deal.number == 3
    return t


@pytest.mark.parametrize("then", ["card", "claim"])
def test_a_correction_accepted_during_a_deal_that_ends_the_match(tmp_path: Path, then: str) -> None:
    """Before: play went on inside a finished match, Slate.record raised (or, with a claim, the error escaped
    Table.apply) and every restart failed the same way on the journal."""
    table = journaled(tmp_path)
    t = two_deals_then_a_third_under_way(table)
    kapo = DealEntry(table.state.history[1].trumps or Seat.W, Team.EW, None, kapo=True)  # 2 lines: EW struck out
    table.feed(CorrectionProposed(t + 1, 2, kapo))
    table.feed(CorrectionAnswered(t + 2, Team.NS, True))
    state = table.feed(CorrectionAnswered(t + 3, Team.EW, True))
    assert state.phase is TablePhase.MATCH_OVER and state.match.winner is Team.EW
    assert not state.deal.tricks  # the deal under way is not played on
    if then == "card":
        seat = Seat.S
        from tablepi.rules import Card

        state = table.feed(CardEntered(t + 4, seat, Card.parse("QS")))
    else:
        state = table.feed(Button(t + 4, ButtonName.CLAIM, Seat.E))
    assert state.phase is TablePhase.MATCH_OVER
    assert state.warnings  # refused, and said
    again = reopened(table)
    assert again.state.match.open_lines == state.match.open_lines and again.state.phase is TablePhase.MATCH_OVER
    assert again.state.history == state.history
    again.close()


def test_a_correction_waiting_when_the_match_ends_lapses(tmp_path: Path) -> None:
    """Before: match 2's deal 1 was rescored as match 1's correction."""
    table = journaled(tmp_path)
    t = 0.0
    for _ in range(2):
        t += 1
        table.feed(DealEntered(t, ew_win(table.state.deal.next_forehand)))
    table.feed(CorrectionProposed(t + 1, 1, DealEntry(Seat.N, Team.NS, 30)))
    table.feed(CorrectionAnswered(t + 2, Team.NS, True))  # EW have not answered
    table.feed(DealEntered(t + 3, ew_win(table.state.deal.next_forehand)))  # EW strike their last line
    assert table.state.phase is TablePhase.MATCH_OVER
    table.feed(Button(t + 4, ButtonName.REVANCHE))
    table.feed(DealEntered(t + 5, ew_win(table.state.deal.next_forehand)))
    assert table.state.match.proposal is None
    state = table.feed(CorrectionAnswered(t + 6, Team.EW, True))  # too late: refused, nothing changes
    assert state.match.slate[0].result.winner is Team.EW and not state.history[-1].corrected
    assert state.warnings[-1].code.value == "hand_refused"
    table.close()


def test_a_corrected_deal_is_corrected_throughout(tmp_path: Path) -> None:
    """Before: the corrected deal kept its old trump-namer and announcements beside the corrected result, and
    the next dealer was the old one's."""
    table = journaled(tmp_path)
    table.feed(DealEntered(1.0, DealEntry(Seat.W, Team.EW, 25)))
    assert table.state.deal.next_forehand is Seat.S  # anticlockwise: W dealt... forehand W -> W deals, S names trumps
    from tablepi.rules import Announcement

    fixed = DealEntry(Seat.S, Team.NS, 30, announcements=((Seat.N, Announcement.KONTER),))
    table.feed(CorrectionProposed(2.0, 1, fixed))
    table.feed(CorrectionAnswered(3.0, Team.EW, True))
    state = table.feed(CorrectionAnswered(4.0, Team.NS, True))
    row = state.history[0]
    assert row.corrected and row.trumps is Seat.S and row.entry.result.announcements == fixed.announcements
    assert state.deal.next_forehand is Seat.E  # S named trumps in deal 1, so S deals deal 2 and E names trumps
    assert state.deal.dealer is Seat.S
    table.close()


def test_a_long_name_is_cut_and_marked_and_reads_back(tmp_path: Path) -> None:
    table = journaled(tmp_path)
    ordinary = "Marie-Christine Weber"  # 21 characters: kept whole
    table.feed(PlayersSeated(1.0, ((Seat.N, ordinary),), SeatingSource.TOURNAMENT))
    assert dict(table.state.names)[Seat.N] == ordinary
    long = "Marie-Christine Weber-Schmitt von und zu Luxemburg-Ettelbruck"
    state = table.feed(PlayersSeated(2.0, ((Seat.E, long),), SeatingSource.TOURNAMENT))
    kept = dict(state.names)[Seat.E]
    assert len(kept) == MAX_NAME and kept.endswith(CUT_MARK) and long.startswith(kept[:-1])
    assert [n.code for n in table.notices] == [NoticeCode.NAME_CUT]
    again = reopened(table)
    assert again.state.names == state.names
    again.close()


@pytest.mark.parametrize("name", ["Marie\nWeber", "Jang\t", "Anna\x07", "\u2028Guy", "   "])
def test_a_name_that_is_not_one_line_is_refused_not_joined(tmp_path: Path, name: str) -> None:
    table = journaled(tmp_path)
    before = len(table.journal)
    state = table.feed(PlayersSeated(1.0, ((Seat.S, name),)))
    assert state.names == () and len(table.journal) == before  # nothing journaled, nothing seated
    assert [n.code for n in table.notices] == [NoticeCode.NAME_REFUSED]
    table.feed(Tick(2.0))
    assert table.notices  # the warning stays until the players do something
    table.feed(PlayersSeated(3.0, ((Seat.S, "Marie Weber"),)))
    assert not table.notices
    table.close()


def test_an_event_that_would_not_read_back_is_refused_not_journaled(tmp_path: Path) -> None:
    table = journaled(tmp_path)
    before = table.state
    state = table.feed(Button(float("nan"), ButtonName.UNDO))
    assert state == before and len(table.journal) == 0
    assert [n.code for n in table.notices] == [NoticeCode.GESTURE_REFUSED]
    with pytest.raises(RecordError):
        table.journal.append(PlayersSeated(1.0, ((Seat.N, "x" * (MAX_NAME + 1)),)))
    table.close()


def old_journal(path: Path, events: list[TableEvent]) -> Path:
    """A journal as an earlier tablepi wrote it: each line as it came, read back by nobody."""
    file = path / "journal.sqlite3"
    journal = Journal(file, HEADER)
    for event in events:
        journal._lines.append(event_to_line(event))
        journal._flush()
    journal.close()
    return file


def test_a_journal_with_a_name_the_reader_refuses_starts(tmp_path: Path) -> None:
    """Before: `tablepi run` refused to start (a crash loop under systemd) and export called the journal damaged."""
    long = "Marie-Christine Weber-Schmitt von und zu Luxemburg-Ettelbruck"
    file = old_journal(tmp_path, [
        PlayersSeated(1.0, ((Seat.N, long), (Seat.E, "Jang")), SeatingSource.TOURNAMENT),
        PlayersSeated(2.0, ((Seat.S, "Marie\nWeber"),)),
        PlayersSeated(3.0, ((Seat.W, "\x07"),)),
        DealEntered(4.0, ew_win(Seat.W)),
    ])
    table = JournaledTable(file, HEADER)
    names = dict(table.state.names)
    assert names[Seat.N].endswith(CUT_MARK) and names[Seat.E] == "Jang" and names[Seat.S] == "Marie Weber"
    assert Seat.W not in names
    assert len(table.state.match.slate) == 1  # nothing else lost
    table.close()
    from tablepi.commands import export

    assert export.run(_args(journal=str(file), out=str(tmp_path / "out.jsonl"))) == 0
    record = load_record(tmp_path / "out.jsonl")  # written as the table reads it: a strict reader takes it
    assert len(record.events) == 4
    again = Table.replay(record.events, RULES, Seat.N)
    assert again.state.names == table.state.names


# The journal the table wrote before the fix (its lines as it wrote them): EW one line from the match, deal 3 dealt,
# two cards, a correction of deal 2 to a Kapo that strikes EW's last line accepted, then the deal played on.
_BEFORE_THE_CORRECTION = [(Seat.E, "9S"), (Seat.N, "AC")]
_AFTER_THE_CORRECTION = [(Seat.W, "AH"), (Seat.S, "10H"),                                  # trick 1: W
                         (Seat.W, "QS"), (Seat.S, "9H"), (Seat.E, "AD"), (Seat.N, "KC"),   # trick 2: W
                         (Seat.W, "QH"), (Seat.S, "AS"), (Seat.E, "KD"), (Seat.N, "QC")]   # trick 3: W
_TO_THE_END = [(Seat.W, "QD"), (Seat.S, "KS"), (Seat.E, "JD"), (Seat.N, "JC"),
               (Seat.W, "KH"), (Seat.S, "JS"), (Seat.E, "10D"), (Seat.N, "10C"),
               (Seat.W, "JH"), (Seat.S, "10S"), (Seat.E, "9D"), (Seat.N, "9C")]


@pytest.mark.parametrize("then", ["six tricks", "claim"])
def test_a_journal_where_a_correction_ended_the_match_under_a_deal_starts(tmp_path: Path, then: str) -> None:
    """Before the fix the table journaled each gesture, then applied it: after the correction play went on inside
    the finished match, and the deal's end (its sixth trick: `Slate.record` raised, then `snapshot.prompt`'s
    assertion; a claim with EW's 28 points: the RulesError escaped `Table.apply`) broke the table on every restart
    from this journal. It starts, the match won by EW at the correction, nothing of the deal played on."""
    from tablepi.rules import Card

    events: list[TableEvent] = [DealEntered(1.0, ew_win(Seat.W)), DealEntered(2.0, ew_win(Seat.S)),
                                Button(3.0, ButtonName.CONFIRM), Button(4.0, ButtonName.TRUMP_HEARTS)]
    events += [CardEntered(5.0 + i, seat, Card.parse(card)) for i, (seat, card) in enumerate(_BEFORE_THE_CORRECTION)]
    events += [CorrectionProposed(7.0, 2, DealEntry(Seat.S, Team.EW, None, kapo=True)),
               CorrectionAnswered(8.0, Team.NS, True), CorrectionAnswered(9.0, Team.EW, True)]
    played_on = _AFTER_THE_CORRECTION + (_TO_THE_END if then == "six tricks" else [])
    events += [CardEntered(10.0 + i, seat, Card.parse(card)) for i, (seat, card) in enumerate(played_on)]
    if then == "claim":
        events.append(Button(40.0, ButtonName.CLAIM, Seat.W))
    file = old_journal(tmp_path, events)
    table = JournaledTable(file, HEADER)
    state = table.state
    assert state.phase is TablePhase.MATCH_OVER and state.match.winner is Team.EW
    assert len(state.match.slate) == 2 and state.match.slate[1].result.kapo  # deal 2 as corrected; deal 3 never scored
    assert not state.deal.tricks
    table.close()
    again = JournaledTable(file, HEADER)  # a second start is the same
    assert again.state.phase is TablePhase.MATCH_OVER and again.state.match.slate == state.match.slate
    again.close()


def _args(**kw: object) -> object:
    import argparse

    from tablepi.commands import export

    parser = argparse.ArgumentParser()
    export.add_arguments(parser)
    args = parser.parse_args([])
    for key, value in kw.items():
        setattr(args, key, value)
    return args


def test_a_player_sits_at_one_seat(tmp_path: Path) -> None:
    """Names stay from match to match, so a player who moves leaves his old seat; one name for two seats in one
    seating is refused, not half applied."""
    table = journaled(tmp_path)
    table.feed(PlayersSeated(1.0, ((Seat.N, "Jang"), (Seat.E, "Anna"))))
    state = table.feed(PlayersSeated(2.0, ((Seat.S, "jang"),)))  # Jang moves to S
    assert dict(state.names) == {Seat.E: "Anna", Seat.S: "jang"}
    state = table.feed(PlayersSeated(3.0, ((Seat.N, "Lis"), (Seat.W, "Lis"))))
    assert dict(state.names) == {Seat.E: "Anna", Seat.S: "jang"}
    assert state.warnings[-1].refusal is not None and state.warnings[-1].refusal.value == "name_twice"
    again = reopened(table)
    assert again.state.names == state.names
    again.close()


def test_a_seating_in_any_order_is_journaled_and_replays(tmp_path: Path) -> None:
    """A seating built W S E N (a tournament's order, a tag's lower-case hex) is the event its line reads back as:
    the event itself keeps one spelling, so the journal's read-back check never refuses an honest seating."""
    table = journaled(tmp_path)
    names = ((Seat.W, "Pit"), (Seat.S, "Marie"), (Seat.E, "Jos"), (Seat.N, "Anna"))
    state = table.feed(PlayersSeated(1.0, names, SeatingSource.TOURNAMENT))
    assert dict(state.names) == dict(names) and not table.notices
    tagged = table.feed(PlayersSeated(2.0, ((Seat.E, "Guy"),), SeatingSource.TAG, "04a1b2c3d4e5f6"))
    assert dict(tagged.names)[Seat.E] == "Guy"
    assert PlayersSeated(1.0, names).names == tuple(sorted(names, key=lambda item: list(Seat).index(item[0])))
    again = reopened(table)
    assert again.state.names == tagged.names
    again.close()


def test_the_tournament_round_is_journaled_with_its_seating(tmp_path: Path) -> None:
    """A tournament's seating keeps its round in the journal; a player who names himself sits in the same round;
    a restarted table reads the round in force back from its journal (the feed tags its events with it)."""
    table = journaled(tmp_path)
    names = ((Seat.N, "Anna"), (Seat.E, "Jos"), (Seat.S, "Marie"), (Seat.W, "Pit"))
    table.feed(PlayersSeated(1.0, names, SeatingSource.TOURNAMENT, round=2))
    table.feed(PlayersSeated(2.0, ((Seat.E, "Guy"),), SeatingSource.TOUCH))
    assert table.round == 2
    line = event_to_line(PlayersSeated(1.0, names, SeatingSource.TOURNAMENT, round=2))
    assert '"round": 2' in line
    again = reopened(table)
    assert again.round == 2
    assert [e.round for e in again.journal.events() if isinstance(e, PlayersSeated)] == [2, None]
    again.close()
    header = next(record_lines(HEADER, ()))
    with pytest.raises(RecordError, match="tournament round"):
        read_record([header, line.replace('"round": 2', '"round": true')])
