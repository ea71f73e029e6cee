"""The journal: durable before shown, replayed on start, exported as a record."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from tablepi.errors import RecordError
from tablepi.journal.journal import Journal, JournaledTable, JournalError
from tablepi.journal.record import RecordHeader
from tablepi.rules import Card, HouseRules, Seat
from tablepi.table import Button, ButtonName, CardLifted, CardPlaced, Table, TableConfig, Tick, ZoneCardStatus

HEADER = RecordHeader(HouseRules.from_mapping({"start_lines": 7}), Seat.E, TableConfig(tap_window=1.5))


def _opening() -> list[CardPlaced | CardLifted | Tick]:
    # Dealer E, anticlockwise: forehand N names trumps, leads, W follows; S's card is still tentative.
    return [
        CardPlaced(0.0, Seat.N, Card.parse("AH")),
        CardLifted(0.4, Seat.N, Card.parse("AH")),
        CardPlaced(2.0, Seat.N, Card.parse("KH")),
        CardPlaced(2.5, Seat.W, Card.parse("9H")),
        Tick(4.5),
        CardPlaced(5.0, Seat.S, Card.parse("TH")),
    ]


def test_journal_settings_are_wal_and_full_sync(tmp_path: Path) -> None:
    with Journal(tmp_path / "j.sqlite3", HEADER) as journal:
        db = journal._conn()
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL


def test_resume_mid_trick_with_a_tentative_card(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite3"
    with JournaledTable(path, HEADER) as session:
        for event in _opening():
            session.feed(event)
        before = session.state
    assert before.zone(Seat.S).cards[0].status is ZoneCardStatus.TENTATIVE
    with JournaledTable(path) as session:  # the header comes from the journal
        assert session.state == before
        assert session.header == HEADER
        after = session.feed(Tick(6.5))  # S's window runs out after the restart, as it would have
        assert after.deal.tricks[0].plays[-1] == (Seat.S, Card.parse("TH"))


def test_events_round_trip_through_the_journal(tmp_path: Path) -> None:
    events = [*_opening(), Button(7.0, ButtonName.ANNOUNCE_MATT, Seat.E), CardPlaced(8.0, Seat.E, None, "04A1B2C3")]
    with Journal(tmp_path / "j.sqlite3", HEADER) as journal:
        for event in events:
            journal.append(event)
        assert journal.events() == events
        assert len(journal) == len(events) and journal.last_time == 8.0


def test_a_tick_that_changes_nothing_is_not_journaled(tmp_path: Path) -> None:
    with JournaledTable(tmp_path / "j.sqlite3", HEADER) as session:
        session.feed(Tick(1.0))
        assert len(session.journal) == 0
        session.feed(CardPlaced(2.0, Seat.N, Card.parse("AH")))
        session.feed(CardLifted(2.1, Seat.N, Card.parse("AH")))
        session.feed(CardPlaced(3.0, Seat.N, Card.parse("KH")))
        session.feed(Tick(3.5))
        assert len(session.journal) == 3
        session.feed(Tick(4.5))  # lays N's card: journaled
        assert len(session.journal) == 4


def test_a_lift_reported_after_a_later_card_is_journaled_at_the_last_time_and_reads_back(tmp_path: Path) -> None:
    """A reader with a quiet time reports W's lift (dated 0.96) after N's card (0.98): the journal keeps one clock,
    so the lift is journaled at 0.98, and the journal reads back after a restart to the same table."""
    ah, nc = Card.parse("AH"), Card.parse("9C")
    path = tmp_path / "j.sqlite3"
    with JournaledTable(path, RecordHeader()) as session:
        session.feed(CardPlaced(0.50, Seat.W, ah))  # W names hearts by showing AH
        session.feed(CardPlaced(0.98, Seat.N, nc))
        session.feed(CardLifted(0.96, Seat.W, ah))
        live = session.state
    with JournaledTable(path, RecordHeader()) as again:
        times = [e.time for e in again.journal.events()]
        assert again.state == live
    assert times == [0.50, 0.98, 0.98]
    assert not live.zone(Seat.W).cards and live.deal.trump is not None


def test_a_new_journal_needs_a_header(tmp_path: Path) -> None:
    with pytest.raises(JournalError, match="needs a header"):
        Journal(tmp_path / "j.sqlite3")


def test_a_row_changed_behind_the_journals_back_is_caught_and_restored_from_the_copy(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite3"
    with Journal(path, HEADER) as journal:
        for event in _opening():
            journal.append(event)
    db = sqlite3.connect(path)
    db.execute("UPDATE events SET line = '{\"type\": \"place\", \"t\": 9}' WHERE seq = 3")
    db.commit()
    db.close()
    with JournaledTable(path) as session:  # the row's checksum is wrong: the copy's event 3 is used
        assert session.journal.events() == _opening()
        assert session.journal.recovery.damaged and session.journal.recovery.complete
        assert [n.code.value for n in session.notices] == ["journal_recovered"]
    quarantined = list((tmp_path / "quarantine").glob("*/j.sqlite3"))
    assert len(quarantined) == 1  # the damaged file is kept, with a note
    assert "1 damaged rows" in (quarantined[0].parent / "NOTE.txt").read_text()
    with JournaledTable(path) as session:  # rebuilt: the next start finds nothing wrong
        assert not session.journal.recovery.damaged and session.notices == ()


def test_an_event_that_does_not_read_in_an_intact_journal_is_named(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite3"
    with Journal(path, HEADER) as journal:
        for event in _opening():
            journal.append(event)
        journal._lines[2] = '{"type": "place", "t": 9}'  # as if a newer tablepi had written it
        journal._copy_count = journal._db_count = None
        journal._flush()
    with pytest.raises(RecordError, match="event 3"):
        JournaledTable(path)


def test_journal_fsyncs_before_the_state_changes(tmp_path: Path) -> None:
    """If the journal cannot be written, the table does not move: nothing is shown that was not stored."""
    with JournaledTable(tmp_path / "j.sqlite3", HEADER) as session:
        session.journal.close()
        with pytest.raises(JournalError):
            session.feed(CardPlaced(0.0, Seat.N, Card.parse("AH")))
        assert session.table.state.deal.trump is None


def test_replay_equals_live(tmp_path: Path) -> None:
    with JournaledTable(tmp_path / "j.sqlite3", HEADER) as session:
        for event in _opening():
            session.feed(event)
        events = session.journal.events()
        live = session.state
    assert Table.replay(events, HEADER.house_rules, HEADER.dealer, HEADER.table).state == live


def test_a_card_reported_again_after_a_restart_is_the_same_card(tmp_path: Path) -> None:
    """The reader's snapshot after a restart repeats the cards lying on the zones: nothing doubles."""
    path = tmp_path / "j.sqlite3"
    with JournaledTable(path, HEADER) as session:
        for event in _opening():
            session.feed(event)
        before = session.state
    with JournaledTable(path) as session:
        session.feed(CardPlaced(20.0, Seat.N, Card.parse("KH")))  # re-reported
        session.feed(CardPlaced(20.0, Seat.W, Card.parse("9H")))
        state = session.feed(CardPlaced(20.0, Seat.S, Card.parse("TH")))
        assert state.warnings == ()
        assert [[c.card for c in z.cards] for z in state.zones] == [[c.card for c in z.cards] for z in before.zones]
        # S's card, tentative before the restart, has lain long enough since: played, once.
        assert [seat for seat, _ in state.deal.tricks[0].plays] == [Seat.N, Seat.W, Seat.S]


def test_lifts_for_a_snapshot_after_a_restart(tmp_path: Path) -> None:
    from tablepi.table import lifts_for_snapshot

    with JournaledTable(tmp_path / "j.sqlite3", HEADER) as session:
        for event in _opening():
            session.feed(event)
        lifts = lifts_for_snapshot(session.state, {Seat.N: {"KH"}, Seat.W: set()}, 30.0)
        assert lifts == [CardLifted(30.0, Seat.S, Card.parse("TH")), CardLifted(30.0, Seat.W, Card.parse("9H"))]
        for lift in lifts:
            session.feed(lift)
        state = session.state
        assert [w.code.value for w in state.warnings] == ["lifted_early", "lifted_early"]  # put them back
