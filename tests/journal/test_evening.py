"""The evening's bounds (tablepi.journal.evening, docs/journal.md "The evening"), on an injected wall clock: it
begins when the table is switched on (its match on the table, or the next one if that one is over), a power cut or
restart keeps it, and a table running past midnight begins a new one with the first match begun after midnight —
the match in play at midnight stays in the evening it began in. The screen's history and numbers, the names, and
`tablepi export` follow the same bounds."""

from __future__ import annotations

import contextlib
import dataclasses
import io
import json
import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tablepi.cli import main
from tablepi.journal.evening import (
    CACHE_NAME,
    MARK_NAME,
    OFF_GAP,
    EveningBook,
    code_digest,
    evening_from_json,
    evening_to_json,
    read_mark,
    tonight,
    write_mark,
)
from tablepi.journal.journal import JournaledTable
from tablepi.journal.record import RecordHeader
from tablepi.rules import HouseRules, Seat, Team
from tablepi.rules.deal import Announcement
from tablepi.rules.entry import DealEntry
from tablepi.table import Button, ButtonName, Table
from tablepi.table.events import (
    CorrectionAnswered,
    CorrectionProposed,
    DealEntered,
    PlayersSeated,
    SeatingSource,
    TableEvent,
)
from tablepi.table.simulate import simulate_match
from tablepi.table.state import Evening, TableConfig, TablePhase

RULES = HouseRules(start_lines=2)
NAMES = ((Seat.N, "Fernand"), (Seat.E, "Marie"), (Seat.S, "Jos"), (Seat.W, "Léon"))


@pytest.fixture(autouse=True)
def local_time(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A bar in Luxembourg: midnight is local midnight."""
    monkeypatch.setenv("TZ", "Europe/Luxembourg")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def at(day: int, hour: int, minute: int = 0) -> float:
    """Wall time of ``hour``:``minute`` on 2026-06-``day``, local time."""
    return time.mktime((2026, 6, day, hour, minute, 0, 0, 0, -1))


class Clock:
    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


class Bar:
    """One table with its archive, switched on and off on the clock; a match played is the simulator's."""

    def __init__(self, folder: Path, clock: Clock) -> None:
        self.folder, self.clock = folder, clock
        self.path, self.archive = folder / "journal.sqlite3", folder / "archive"
        self.table: JournaledTable | None = None
        self.scripts: dict[int, list[TableEvent]] = {}

    def switch_on(self, off_for: float | None = None) -> JournaledTable:
        """Start the table; ``off_for``: seconds since its journal was last written (the table was off)."""
        if off_for is not None:
            for file in (self.path, self.path.with_name(self.path.name + "-wal"),
                         self.path.with_name(self.path.name + ".events")):
                if file.exists():
                    os.utime(file, (self.clock.now - off_for, self.clock.now - off_for))
        self.table = JournaledTable(self.path, RecordHeader(RULES, Seat.N, TableConfig()), archive=self.archive,
                                    clock=self.clock)
        return self.table

    def switch_off(self) -> None:
        assert self.table is not None
        self.table.close()
        self.table = None

    def play(self, seed: int, first: int = 0, upto: int | None = None, mistakes: bool = False) -> None:
        """The simulator's match ``seed``, events ``first`` to ``upto`` (a new match begun first if one is over)."""
        table = self.table
        assert table is not None
        if first == 0:
            if table.state.phase is TablePhase.MATCH_OVER:
                table.feed(Button(table.journal.last_time + 5.0, ButtonName.NEW_MATCH))
            self.scripts[seed] = simulate_match(seed, RULES, table.state.deal.dealer, TableConfig(), mistakes).events
        events = self.scripts[seed]
        start = table.journal.last_time + 1.0 - events[first].time
        for event in events[first:upto]:
            table.feed(dataclasses.replace(event, time=start + event.time))

    def new_match(self) -> None:
        table = self.table
        assert table is not None and table.state.phase is TablePhase.MATCH_OVER
        table.feed(Button(table.journal.last_time + 5.0, ButtonName.NEW_MATCH))

    def matches(self) -> list[int]:
        """The evening's matches as the screen numbers them: each scored deal's match."""
        assert self.table is not None
        return sorted({row.match for row in self.table.state.history} | {self.table.state.match.number})

    def exported(self) -> list[int]:
        """The matches `tablepi export` writes for the evening (replay's report of them)."""
        out = self.folder / "evening.jsonl"
        assert main(["export", "--journal", str(self.path), str(out)]) == 0
        text = io.StringIO()
        with contextlib.redirect_stdout(text):
            assert main(["replay", "--json", str(out)]) == 0
        return sorted({deal["match"] for deal in json.loads(text.getvalue())["deals"]})


def test_a_table_switched_on_begins_the_evening_and_a_power_cut_keeps_it(tmp_path: Path) -> None:
    clock = Clock(at(1, 19))
    bar = Bar(tmp_path, clock)
    table = bar.switch_on()
    table.feed(PlayersSeated(1.0, NAMES, SeatingSource.TOUCH))
    bar.play(1)
    clock.now = at(1, 20)
    bar.play(2)  # match 1 archived as match 2 begins
    assert bar.matches() == [1, 2]
    # A power cut at 21:00 (the journal written a minute before): the evening goes on, names and all.
    clock.now = at(1, 21)
    bar.switch_off()
    table = bar.switch_on(off_for=60.0)
    assert bar.matches() == [1, 2] and table.state.names == NAMES
    assert len(tonight(bar.archive)) == 1 and bar.exported() == [1, 2]
    # A dinner break with the table off for an hour: still the same evening.
    clock.now = at(1, 22)
    bar.switch_off()
    table = bar.switch_on(off_for=3600.0)
    assert bar.matches() == [1, 2]
    # Switched off at 23:00 with match 2 over on the slate; switched on the next evening at 19:00.
    bar.switch_off()
    clock.now = at(2, 19)
    table = bar.switch_on(off_for=20 * 3600.0)
    assert table.state.phase is TablePhase.MATCH_OVER  # last evening's match is still on the table ...
    assert tonight(bar.archive) == []  # ... but no archived match is this evening's
    bar.new_match()  # the first match of the evening: numbered 1, nothing of last evening in the history
    state = bar.table.state  # type: ignore[union-attr]
    assert state.match.number == 1 and state.history == () and state.names == NAMES
    bar.play(3)
    assert bar.matches() == [1] and bar.exported() == [1]
    bar.switch_off()


def test_a_match_begun_before_switching_off_goes_on_in_the_new_evening(tmp_path: Path) -> None:
    """A match left unfinished is played on when the table is switched on again: it is the new evening's first."""
    clock = Clock(at(1, 19))
    bar = Bar(tmp_path, clock)
    bar.switch_on()
    bar.play(1)
    clock.now = at(1, 20)
    bar.play(2, upto=40)  # match 2 begun (match 1 archived), unfinished
    bar.switch_off()
    clock.now = at(2, 19)
    table = bar.switch_on(off_for=20 * 3600.0)
    assert table.state.match.number == 1 and tonight(bar.archive) == []
    assert all(row.match == 1 for row in table.state.history)
    bar.switch_off()


def test_midnight_begins_a_new_evening_with_the_first_match_begun_after_it(tmp_path: Path) -> None:
    clock = Clock(at(1, 21))
    bar = Bar(tmp_path, clock)
    bar.switch_on()
    bar.play(1)
    clock.now = at(1, 23, 30)
    bar.play(2, upto=60)  # match 2 begins at 23:30 and is in play at midnight
    assert bar.table is not None and bar.table.state.phase is not TablePhase.MATCH_OVER
    clock.now = at(2, 0, 20)
    assert bar.matches() == [1, 2]
    # A power cut in it after midnight: still the evening match 2 began in.
    bar.switch_off()
    table = bar.switch_on(off_for=30.0)
    assert bar.matches() == [1, 2] and table.state.match.number == 2
    assert bar.exported() == [1, 2]
    # Match 2 ends at 00:40 (its deals after midnight included); the next match begun is the new evening's first.
    bar.switch_off()
    table = bar.switch_on(off_for=30.0)
    clock.now = at(2, 0, 40)
    bar.play(2, first=60)
    assert table.state.phase is TablePhase.MATCH_OVER and table.state.match.number == 2
    clock.now = at(2, 0, 45)
    bar.new_match()
    state = table.state
    assert state.match.number == 1 and state.history == ()
    assert tonight(bar.archive) == []
    bar.play(3)
    clock.now = at(2, 1, 30)
    bar.play(4)  # a second match after midnight: the same evening
    assert bar.matches() == [1, 2] and len(tonight(bar.archive)) == 1 and bar.exported() == [1, 2]
    bar.switch_off()


def test_a_new_match_the_mark_missed_is_seen_at_the_next_start(tmp_path: Path) -> None:
    """A power cut after the rotation, before the mark is written: the restart after midnight still begins the
    new evening with the new match."""
    clock = Clock(at(1, 22))
    bar = Bar(tmp_path, clock)
    bar.switch_on()
    bar.play(1)
    before = read_mark(bar.archive)
    assert before is not None
    clock.now = at(2, 0, 30)
    bar.new_match()
    bar.switch_off()
    write_mark(bar.archive, before)  # as if the cut came before the mark was written
    table = bar.switch_on(off_for=60.0)
    mark = read_mark(bar.archive)
    assert mark is not None and mark.first == table.journal.journal_id
    assert table.state.match.number == 1 and table.state.history == ()
    bar.switch_off()


def test_an_unreadable_mark_begins_the_evening_again(tmp_path: Path) -> None:
    clock = Clock(at(1, 19))
    bar = Bar(tmp_path, clock)
    bar.switch_on()
    bar.play(1)
    clock.now = at(1, 20)
    bar.play(2, upto=10)
    bar.switch_off()
    (bar.archive / MARK_NAME).write_text("{not json", encoding="utf-8")
    table = bar.switch_on(off_for=60.0)  # a restart, but the mark is gone: as at a switch-on
    assert table.state.match.number == 1 and read_mark(bar.archive) is not None
    bar.switch_off()
    assert OFF_GAP >= 3600.0  # a dinner break with the table off is no new evening


def evening_of(table: JournaledTable) -> Evening:
    return table.evening.before_current()


def test_the_cached_evening_equals_the_replayed_one_and_is_rebuilt_when_stale(tmp_path: Path) -> None:
    """The summary cache (archive/evening-cache.json) gives exactly the evening a replay of every archived match
    gives — matches played with cards (revokes among them), deals told by hand, a correction accepted — and is
    never believed for a file it was not made from, by code that did not make it, or when it does not read."""
    clock = Clock(at(1, 19))
    bar = Bar(tmp_path, clock)
    table = bar.switch_on()
    for seed in (1, 2):
        bar.play(seed, mistakes=True)
    # A match told by hand, with a correction of its first deal accepted by both teams.
    bar.new_match()
    t = table.journal.last_time
    table.feed(DealEntered(t + 1, DealEntry(table.state.deal.next_forehand, Team.NS, 25)))
    table.feed(CorrectionProposed(t + 2, 1, DealEntry(table.state.history[-1].trumps or Seat.N, Team.EW, 30)))
    table.feed(CorrectionAnswered(t + 3, Team.NS, True))
    table.feed(CorrectionAnswered(t + 4, Team.EW, True))
    assert table.state.history[-1].corrected
    while table.state.phase is not TablePhase.MATCH_OVER:
        table.feed(DealEntered(table.journal.last_time + 1, DealEntry(table.state.deal.next_forehand, Team.EW, 33,
                                                                     announcements=((Seat.E, Announcement.MATT),))))
    bar.play(3, upto=80)
    bar.switch_off()
    cache = bar.archive / CACHE_NAME
    assert cache.exists()
    replayed = EveningBook(bar.archive, cached=False).before_current()
    assert replayed.matches == 3 and any(row.corrected for row in replayed.history)

    def started() -> Evening:
        table = bar.switch_on(off_for=60.0)
        try:
            return evening_of(table)
        finally:
            bar.switch_off()

    assert started() == replayed and repr(started()) == repr(replayed)  # read from the cache
    # An entry is used for its own file only: a forged entry under the right key is believed (so the cache is
    # read) ...
    data = json.loads(cache.read_text(encoding="utf-8"))
    first = sorted(data["matches"])[0]
    data["matches"][first]["alone"]["history"][0]["stake"] = 99
    cache.write_text(json.dumps(data), encoding="utf-8")
    assert started().history[0].entry.stake == 99
    # ... and dropped once the file is not the one it was made from (rewritten: another modification time).
    path = bar.archive / first
    os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns + 1))
    assert repr(started()) == repr(replayed)
    # Other code made it (tablepi updated), it does not read, it is gone: the evening is replayed, the cache made
    # again.
    data = json.loads(cache.read_text(encoding="utf-8"))
    data["matches"][first]["alone"]["history"][0]["stake"] = 99
    data["code"] = "an older tablepi"
    cache.write_text(json.dumps(data), encoding="utf-8")
    assert repr(started()) == repr(replayed)
    assert json.loads(cache.read_text(encoding="utf-8"))["code"] == code_digest()
    for broken in ("{not json", '{"format": 1, "code": "x"}', "[]"):
        cache.write_text(broken, encoding="utf-8")
        assert repr(started()) == repr(replayed)
    cache.unlink()
    assert repr(started()) == repr(replayed) and cache.exists()


def test_a_cached_summary_reads_back_exactly() -> None:
    """evening_to_json / evening_from_json on every kind of deal the table scores: a round trip is the identity."""
    table = Table(RULES, Seat.N, TableConfig())
    for seed in range(5, 9):
        if table.state.phase is TablePhase.MATCH_OVER:
            table.apply(Button(table.state.time + 5.0, ButtonName.NEW_MATCH))
        start = table.state.time + 1.0
        for event in simulate_match(seed, RULES, table.state.deal.dealer, TableConfig(), mistakes=True).events:
            table.apply(dataclasses.replace(event, time=start + event.time))
    evening = Evening(len(table.matches), table.state.history)
    assert evening.matches == 4 and len(evening.history) >= 7
    back = evening_from_json(json.loads(json.dumps(evening_to_json(evening))))
    assert back == evening and repr(back) == repr(evening)
