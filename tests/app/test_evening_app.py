"""Issue 20's "wrong score, stuck table, lost data" at the running table, pressed on the screen as drawn: the deal
told by hand presets the next forehand, a forehand whose reader is dead begins the next deal from the slate, and
the evening (every match of it, archived or not) is what the history, the names and the export cover."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tablepi.app.core import Touch
from tablepi.cli import main
from tablepi.display import texts as tx
from tablepi.display.i18n import translator
from tablepi.display.keys import touch_named
from tablepi.display.panels import CardPicker, DealForm, HistoryPanel
from tablepi.display.viewmodel import notice_banner
from tablepi.journal.journal import JournaledTable
from tablepi.journal.record import load_record
from tablepi.notices import NoticeCode
from tablepi.rules import Seat, Team
from tablepi.rules.entry import DealEntry
from tablepi.rules.house import HouseRules
from tablepi.table import ButtonName, CardPlaced, Table
from tablepi.table.events import PlayersSeated, SeatingSource
from tablepi.table.simulate import simulate_match
from tablepi.table.state import TablePhase
from tests.app.test_by_hand_app import Rig

pytestmark = pytest.mark.slow


def touch(text: str, seat: Seat | None = None) -> Touch:
    """A touch on the control the hit-map names ``text`` (``key:suit:H``, ``open:menu``, ``zone:W``, ``confirm``)."""
    return Touch(touch_named(text), seat)


def play_first_deal(rig: Rig, keep_last_trick: bool = False) -> None:
    """Deal 1 played with cards (the simulator's script) until it is scored; its last trick swept unless kept."""
    script = simulate_match(3, claims=False)
    for event in script.events:
        if rig.state.phase is TablePhase.DEAL_OVER and (keep_last_trick or not any(
                zone.cards for zone in rig.state.zones)):
            return
        if isinstance(event, CardPlaced) and rig.state.phase is TablePhase.DEAL_OVER:
            return
        rig.act(event)
    raise AssertionError("deal 1 never ended")


def test_a_deal_told_by_hand_after_a_played_deal_presets_the_next_forehand(tmp_path: Path) -> None:
    """Before: the form preset the forehand of the deal just scored; left as it was, the lines went to the wrong
    team and the dealer order repeated."""
    rig = Rig(tmp_path)
    try:
        play_first_deal(rig)
        played = rig.state.history[0].trumps
        assert played is Seat.W  # dealer N, anticlockwise: W named trumps in deal 1
        assert rig.state.deal.next_forehand is Seat.S  # W deals deal 2, S names trumps
        rig.open_menu()
        rig.key("open:deal")
        form = rig.app.console.panel  # type: ignore[union-attr]
        assert isinstance(form, DealForm) and form.trumps is Seat.S
        rig.key("winner:NS")  # the preset left as it is, as a hurried table does
        rig.key("pad:cancel")  # the points not counted
        rig.key("ok")
        state = rig.state
        assert state.history[1].trumps is Seat.S and state.match.slate[1].result.trump_team is Team.NS
        assert state.deal.next_forehand is Seat.E  # S deals deal 3
        # The slate says who names trumps next: the table's seat, not one derived again from the last deal.
        slate = rig.screen.display.last.slate  # type: ignore[union-attr]
        tr = translator("en")
        assert slate is not None and slate.next_trumps == tx.next_trumps_text(tr, tx.seat_name(tr, Seat.E, {}))
    finally:
        rig.close()


def test_a_forehand_whose_reader_is_dead_begins_the_next_deal_from_the_slate(tmp_path: Path) -> None:
    """Before: S's reader died with his card of the last trick on his zone; the table waited for that zone to
    clear, so on the slate there was no card place, no trump choice, Confirm was off: the table was stuck."""
    rig = Rig(tmp_path)
    try:
        play_first_deal(rig, keep_last_trick=True)
        assert rig.state.deal.next_forehand is Seat.S and rig.state.zone(Seat.S).cards
        rig.unplug(Seat.S)
        for seat in Seat:  # the others sweep the last trick; S's card is gathered too, but no reader sees it
            if seat is not Seat.S and rig.state.zone(seat).cards:
                rig.lift(seat)
        rig.app.handle(touch("confirm"))  # the dead reader's warning acknowledged
        assert rig.state.phase is TablePhase.DEAL_OVER
        assert rig.state.possible.by_hand == (Seat.S,) and rig.state.live(ButtonName.CONFIRM)
        rig.touch_zone(Seat.S)
        picker = rig.app.console.panel  # type: ignore[union-attr]
        assert isinstance(picker, CardPicker) and picker.trumps, "S's card place opened no trumps picker"
        rig.key("suit:C")
        rig.key("confirm")
        state = rig.state
        assert state.phase is TablePhase.PLAY and state.deal.number == 2 and state.deal.trump is not None
        assert state.deal.trump.value == "C" and state.deal.forehand is Seat.S
    finally:
        rig.close()


def test_the_evening_goes_on_after_a_revanche(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Before: after a revanche "The evening's deals" said none, the names were wiped, and `tablepi export` wrote
    the new, empty match; `replay` of the archived match said "0 deals ... winner: nobody yet"."""
    rules = HouseRules(start_lines=2)
    rig = Rig(tmp_path, rules=rules)
    names = ((Seat.N, "Marie-Christine Weber"), (Seat.E, "Jang"), (Seat.S, "Anna"), (Seat.W, "Guillaume"))
    try:
        rig.app.handle(PlayersSeated(rig.app.now, names, SeatingSource.TOURNAMENT))
        for i in range(2):  # EW win two deals told by hand: the match is over
            rig.advance(5.0 * (i + 1))
            rig.enter_deal(DealEntry(rig.state.deal.next_forehand, Team.EW, 25))
        assert rig.state.phase is TablePhase.MATCH_OVER
        rig.app.handle(touch("revanche"))
        state = rig.state
        assert (tmp_path / "archive").is_dir()  # the finished match archived; the names begin the new journal
        assert [type(e).__name__ for e in rig.table.journal.events()] == ["PlayersSeated"]
        assert state.match.number == 2 and state.names == names  # names stay from match to match
        assert [(row.match, row.entry.number) for row in state.history] == [(1, 1), (1, 2)]
        rig.advance(20.0)
        rig.enter_deal(DealEntry(rig.state.deal.next_forehand, Team.NS, 30))
        rig.open_menu()
        rig.key("open:history")
        assert isinstance(rig.app.console.panel, HistoryPanel) and rig.app.console.panel.rows == 3
        lines = rig.screen.display.last.sheet.lines  # type: ignore[union-attr]
        assert [line.split(" ")[0] for line in lines[:3]] == ["1.1.", "1.2.", "2.1."]
        rig.key("cancel")
        after = rig.state
    finally:
        rig.close()
    # A restart: the evening is read back from the archive and the journal.
    with JournaledTable(rig.path, archive=tmp_path / "archive") as again:
        assert again.state.history == after.history and again.state.names == names
        assert again.state.match.number == 2 and again.state.match.slate == after.match.slate
    # The export: the evening by default, one match with --match.
    out = tmp_path / "evening.jsonl"
    assert main(["export", "--journal", str(rig.path), str(out)]) == 0
    capsys.readouterr()
    assert main(["replay", "--json", str(out)]) == 0
    report = json.loads(capsys.readouterr().out)
    assert [(d["match"], d["number"]) for d in report["deals"]] == [(1, 1), (1, 2), (2, 1)]
    assert main(["export", "--journal", str(rig.path), "--match", "1", str(tmp_path / "m1.jsonl")]) == 0
    assert main(["export", "--journal", str(rig.path), "--match", "2", str(tmp_path / "m2.jsonl")]) == 0
    m2 = load_record(tmp_path / "m2.jsonl")
    assert len(Table.replay(m2.events, m2.header.house_rules, m2.header.dealer).matches[-1].slate.history) == 1
    capsys.readouterr()
    assert main(["replay", str(tmp_path / "m1.jsonl")]) == 0
    text = capsys.readouterr().out
    assert "Match 1: 2 deals, NS 3 open, EW 0 open; winner: EW" in text and "nobody yet" not in text
    assert main(["export", "--journal", str(rig.path), "--match", "3", str(tmp_path / "m3.jsonl")]) == 2


def test_a_tournament_name_on_two_lines_is_refused_and_a_long_one_cut(tmp_path: Path) -> None:
    """Before: "Anna\\nWeber" was joined and seated although records.md says it is refused; a name over 20
    characters was journaled as a seat event the table's own reader refused (`tablepi run` then crash-looped)."""
    from tablepi.feed.messages import Seating

    rig = Rig(tmp_path)
    try:
        journaled = len(rig.table.journal)
        rig.app.handle(Seating(1, "7", ((Seat.N, "Anna\nWeber"), (Seat.E, "Jos"), (Seat.S, "Guy"), (Seat.W, "Lis"))))
        assert rig.state.names == () and len(rig.table.journal) == journaled
        assert [n.code for n in rig.table.notices] == [NoticeCode.NAME_REFUSED]  # the warning bar's notice
        long = "Marie-Christine Weber-Schmitt von und zu Luxemburg-Ettelbruck"
        rig.app.handle(Seating(1, "7", ((Seat.N, long), (Seat.E, "Jos"), (Seat.S, "Guy"), (Seat.W, "Lis"))))
        kept = dict(rig.state.names)[Seat.N]
        assert kept == "Marie-Christine Weber-Schmitt von und z…"
        assert [(n.code, n.param("name")) for n in rig.table.notices] == [(NoticeCode.NAME_CUT, kept)]
        tr = translator("en")
        assert notice_banner(tr, rig.table.notices).text == f"Name too long: kept as {kept}."
        # The seating kept by the feed is sent again after a restart: cut the same way, nothing new journaled.
        rig.app.handle(Seating(1, "7", ((Seat.N, long), (Seat.E, "Jos"), (Seat.S, "Guy"), (Seat.W, "Lis"))))
        assert len(rig.table.journal) == journaled + 1
    finally:
        rig.close()
    with JournaledTable(rig.path) as again:  # the table starts on its journal
        assert dict(again.state.names)[Seat.N] == kept


def test_analyse_numbers_the_deals_after_one_told_by_hand(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                                          ) -> None:
    """Before: the review of deal 2 (played) was numbered 1, the deal told by hand before it being skipped."""
    from tests.table.conftest import DEAL, Rec

    rec = Rec(dealer="N")
    rec.header["version"] = 2
    rec._add(1.0, {"type": "deal_entry", "trumps": "N", "winner": "EW", "points": 25, "kapo": False,
                   "claimed_by": None, "announcements": []})  # N named trumps: N deals next, W names trumps
    rec.button("confirm").button("trump_hearts")
    for trick in DEAL:
        for seat, card in trick:
            rec._add(0.5, {"type": "hand_card", "seat": seat, "card": card})
    path = tmp_path / "record.jsonl"
    path.write_text(rec.text(), encoding="utf-8")
    assert main(["analyse", "--json", str(path)]) == 0
    deals = json.loads(capsys.readouterr().out)["deals"]
    assert [(d["match"], d["number"]) for d in deals] == [(1, 2)]


def test_replay_shows_a_corrected_deal_corrected_throughout(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                                            ) -> None:
    """Before: the JSON listed the old forehand and announcements beside the corrected result."""
    from tests.table.conftest import DEAL, Rec

    rec = Rec(dealer="N")
    rec.header["version"] = 2
    rec.button("trump_hearts").button("announce_matt", "E")
    for trick in DEAL:
        for seat, card in trick:
            rec._add(0.5, {"type": "hand_card", "seat": seat, "card": card})
    rec._add(1.0, {"type": "correction", "deal": 1, "trumps": "S", "winner": "NS", "points": 25, "kapo": False,
                   "claimed_by": None, "announcements": [{"seat": "N", "announcement": "konter"}]})
    rec._add(1.0, {"type": "answer", "team": "NS", "accept": True})
    rec._add(1.0, {"type": "answer", "team": "EW", "accept": True})
    path = tmp_path / "record.jsonl"
    path.write_text(rec.text(), encoding="utf-8")
    assert main(["replay", "--json", str(path)]) == 0
    deal = json.loads(capsys.readouterr().out)["deals"][0]
    assert deal["corrected"] and deal["forehand"] == "S" and deal["dealer"] == "W"
    assert deal["announcements"] == [{"seat": "N", "announcement": "konter"}]
    assert deal["winner"] == "NS" and "Konter" in deal["result"] and len(deal["tricks"]) == 6  # as played


def test_a_correction_accepted_on_the_screen_during_a_deal_that_ends_the_match(tmp_path: Path) -> None:
    """Before: play went on inside the finished match, `Slate.record` raised, and the table failed the same way
    on every restart (the gesture was journaled first)."""
    from tablepi.rules import Card

    rig = Rig(tmp_path, rules=HouseRules(start_lines=2))
    try:
        rig.advance(2.0)
        rig.enter_deal(DealEntry(rig.state.deal.next_forehand, Team.EW, 25))  # EW: 1 line open
        rig.advance(4.0)
        rig.app.handle(touch("confirm"))  # deal 2 is dealt
        rig.app.handle(touch("trump_hearts"))
        seat = rig.state.deal.to_play
        assert seat is not None
        rig.enter_card(seat, Card.parse("AH"))  # a card of deal 2 is played
        rig.enter_deal(DealEntry(Seat.W, Team.EW, None, kapo=True), correct=1)  # deal 1 was Kapo: 2 lines
        rig.key("answer:NS:yes")
        rig.key("answer:EW:yes")
        state = rig.state
        assert state.phase is TablePhase.MATCH_OVER and state.match.winner is Team.EW and not state.deal.tricks
        rig.app.handle(touch("claim", Seat.E))  # refused with a warning, the table goes on
        assert rig.state.phase is TablePhase.MATCH_OVER
        before = rig.state
    finally:
        rig.close()
    with JournaledTable(rig.path, archive=tmp_path / "archive") as again:  # the table starts on its journal
        assert again.state.phase is TablePhase.MATCH_OVER and again.state.history == before.history


def test_a_correction_waiting_at_the_match_end_is_closed_and_the_revanche_pressed(tmp_path: Path) -> None:
    """Before: a correction still waiting for one team at the match's end kept its answer sheet over the slate, with
    no key to close it: New match and Revanche were not drawn, and only a refusal took the sheet down."""
    from tablepi.display.touch import hit_map

    rig = Rig(tmp_path, rules=HouseRules(start_lines=2))
    try:
        for i in range(2):  # EW win two deals told by hand: the match is over
            rig.advance(5.0 * (i + 1))
            rig.enter_deal(DealEntry(rig.state.deal.next_forehand, Team.EW, 25))
        assert rig.state.phase is TablePhase.MATCH_OVER
        rig.enter_deal(DealEntry(Seat.S, Team.EW, 30), correct=1)  # proposed at the match's end
        rig.key("answer:NS:yes")  # EW have not answered: the sheet stays up over the slate
        assert rig.state.match.proposal is not None
        rig.key("cancel")  # Close: the question set aside, the bar says where to answer it
        view = rig.screen.display.last
        assert view is not None and view.sheet is None
        assert view.warning is not None and "Answer the correction" in view.warning.text
        drawn = {c.name: c for c in hit_map(view, rig.screen.size)}
        assert drawn["revanche"].live and drawn["new_match"].live
        rig.press(drawn["revanche"].rect.center)
        state = rig.state
        assert state.phase is not TablePhase.MATCH_OVER and state.match.number == 2 and state.match.proposal is None
        sheet = rig.screen.display.last.sheet  # type: ignore[union-attr]
        assert sheet is not None and sheet.title == "New match"  # the start sheet; the lapsed question is gone
    finally:
        rig.close()
