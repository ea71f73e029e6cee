"""One match per journal: finished matches move to the archive, so start-up replay stays one match long."""

from __future__ import annotations

from pathlib import Path

from tablepi.journal.journal import Journal, JournaledTable
from tablepi.journal.record import RecordHeader, load_record
from tablepi.rules import DECK, Direction, HouseRules, Seat
from tablepi.table import Button, ButtonName, CardLifted, CardPlaced
from tablepi.table.simulate import simulate_match
from tablepi.table.state import TablePhase

RULES = HouseRules(start_lines=2)


def play_one_match(table: JournaledTable) -> int:
    script = simulate_match(4, RULES)
    for event in script.events:
        table.feed(event)
    assert table.state.phase is TablePhase.MATCH_OVER
    return len(script.events)


def test_a_new_match_starts_a_fresh_journal_and_archives_the_old(tmp_path: Path) -> None:
    path, archive = tmp_path / "journal.sqlite3", tmp_path / "archive"
    with JournaledTable(path, RecordHeader(RULES), archive) as table:
        play_one_match(table)
        over = table.state
        assert not list(archive.glob("journal-*"))  # nothing moves while the match-won screen is up
        end = over.time + 5
        table.feed(Button(end, ButtonName.REVANCHE))
        state = table.state
        assert state.phase is TablePhase.TRUMPS and state.deal.number == 1 and state.match.slate == ()
        dealer = state.deal.dealer
        assert len(table.journal) == 0
        # the new match goes on in the new journal
        forehand = state.deal.forehand
        table.feed(CardPlaced(end + 1, forehand, DECK[0]))
        table.feed(CardLifted(end + 1.2, forehand, DECK[0]))
        assert table.state.deal.trump is not None
    archived = list(archive.glob("journal-*.jsonl.gz"))
    assert len(archived) == 1  # the finished match, compressed, readable as a game record
    events = list(load_record(archived[0]).events)
    assert isinstance(events[-1], Button) and events[-1].name is ButtonName.REVANCHE
    with JournaledTable(path, archive=archive) as again:  # a restart replays only the new match
        assert len(again.journal) == 2
        assert again.state.deal.dealer is dealer and again.state.deal.trump is not None
        assert again.header.dealer is dealer and again.header.house_rules == RULES


def test_without_an_archive_the_journal_keeps_everything(tmp_path: Path) -> None:
    with JournaledTable(tmp_path / "j.sqlite3", RecordHeader(RULES)) as table:
        count = play_one_match(table)
        table.feed(Button(table.state.time + 5, ButtonName.NEW_MATCH))
        assert len(table.journal) >= count // 2  # ticks that change nothing are not journaled
        assert table.state.phase is TablePhase.TRUMPS


def test_a_power_cut_before_the_old_journal_moved_keeps_the_old_journal(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite3"
    with JournaledTable(path, RecordHeader(RULES)) as table:
        table.feed(Button(1.0, ButtonName.TRUMP_HEARTS))
    Journal(tmp_path / "journal.sqlite3.new", RecordHeader(RULES, Seat.E)).close()
    with JournaledTable(path, archive=tmp_path / "archive") as table:
        assert table.header.dealer is Seat.N and len(table.journal) == 1
    assert not (tmp_path / "journal.sqlite3.new").exists()


def test_a_power_cut_after_the_old_journal_moved_completes_the_rotation(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite3"
    Journal(tmp_path / "journal.sqlite3.new", RecordHeader(RULES, Seat.E)).close()
    with JournaledTable(path, archive=tmp_path / "archive") as table:
        assert table.header.dealer is Seat.E and table.state.deal.dealer is Seat.E
    assert path.exists() and not (tmp_path / "journal.sqlite3.new").exists()


def test_house_rules_changed_meanwhile_apply_from_the_next_match(tmp_path: Path) -> None:
    path, archive = tmp_path / "journal.sqlite3", tmp_path / "archive"
    with JournaledTable(path, RecordHeader(RULES), archive) as table:
        play_one_match(table)
    clockwise = HouseRules(start_lines=2, direction=Direction.CLOCKWISE)
    with JournaledTable(path, RecordHeader(clockwise), archive) as table:
        assert table.header.house_rules == RULES  # the match in the journal keeps its rules
        table.feed(Button(table.state.time + 5, ButtonName.NEW_MATCH))
        assert table.header.house_rules == clockwise
        assert table.state.deal.forehand is Direction.CLOCKWISE.next(table.state.deal.dealer)
