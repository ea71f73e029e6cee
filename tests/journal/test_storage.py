"""Storage faults, two writers, retention: the journal never crash-loops the table and never loses an event.

The full-disk test mounts a small tmpfs (the tests run as root in CI); elsewhere it is skipped when mounting is
impossible.
"""

from __future__ import annotations

import contextlib
import errno
import os
import subprocess
import sys
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tablepi.app.core import TableApp
from tablepi.app.inputs import Input
from tablepi.deck import DeckRegistry
from tablepi.display.scene import Scene
from tablepi.display.view import DisplaySettings
from tablepi.journal import archive
from tablepi.journal.journal import JournalBusy, JournaledTable
from tablepi.journal.record import RecordHeader, event_to_line, load_record
from tablepi.notices import NoticeCode
from tablepi.rules import HouseRules, Seat
from tablepi.table import Button, ButtonName, Table
from tablepi.table.simulate import simulate_match
from tablepi.table.state import TablePhase
from tests.journal.damage import script

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def small_card(tmp_path: Path) -> Iterator[Path]:
    """A 1 MiB tmpfs: a card that fills up."""
    mount = tmp_path / "card"
    mount.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m,mode=0755", "tmpfs", str(mount)],
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        if os.environ.get("CI"):
            pytest.fail(f"cannot mount a tmpfs in CI: {done.stderr.strip()}")
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def _fill(folder: Path) -> Path:
    """Write a file until the card is full."""
    filler = folder / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        for size in (65536, 4096, 512, 1):
            with contextlib.suppress(OSError):
                while True:
                    os.write(fd, b"\0" * size)
    finally:
        os.close(fd)
    return filler


class Recorder:
    settings = DisplaySettings()

    def __init__(self) -> None:
        self.shown: list[tuple[object, tuple[object, ...]]] = []

    def show(self, scene: Scene) -> None:
        self.shown.append((scene.state, scene.notices))

    def pump(self, put: Callable[[Input], None]) -> None:
        pass  # no window: nothing is ever touched

    def close(self) -> None:
        pass


def test_a_full_card_never_stops_the_table_and_nothing_it_saved_is_lost(small_card: Path) -> None:
    header, events = script(11)
    path = small_card / "journal.sqlite3"
    table = JournaledTable(path, header)
    screen = Recorder()
    now = [0.0]
    app = TableApp(table, DeckRegistry(), {0: Seat.N, 1: Seat.E, 2: Seat.S, 3: Seat.W}, screen=screen,
                   clock=lambda: now[0])
    for event in events[:20]:
        app.handle(event)
    assert table.journal.fault is None
    filler = _fill(small_card)
    faulted = False
    for event in events[20:80]:  # the table goes on: every event applied, none raises
        app.handle(event)
        faulted = faulted or table.journal.fault is not None
    assert faulted and table.journal.fault is not None
    expected = Table.replay(events[:80], header.house_rules, header.dealer, header.table).state
    assert table.state == expected
    notice = [n for n in table.notices if n.code is NoticeCode.STORAGE_FAULT]
    assert notice, "the players see a standing warning"
    assert screen.shown[-1][1] == table.notices
    saved_during_fault = len(events[:80]) - table.journal.unsaved
    now[0] += 2
    app.step(timeout=0)  # still full: a retry that fails changes nothing
    assert table.journal.fault is not None
    filler.unlink()  # space returns
    now[0] += 2
    app.step(timeout=0)  # the retry of the next second writes what waited, in order
    assert table.journal.fault is None and table.journal.unsaved == 0
    assert all(n.code is not NoticeCode.STORAGE_FAULT for n in screen.shown[-1][1])
    for event in events[80:100]:
        app.handle(event)
    app.close()
    assert saved_during_fault >= 20
    with JournaledTable(path) as again:  # everything the table saw is in both copies
        assert [line for _, line in again.journal.lines()] == [event_to_line(e) for e in events[:100]]
        assert not again.journal.recovery.damaged


def test_a_full_card_at_start_still_starts_with_every_event(small_card: Path) -> None:
    header, events = script(12)
    path = small_card / "journal.sqlite3"
    with JournaledTable(path, header) as table:
        for event in events[:40]:
            table.feed(event)
    filler = _fill(small_card)
    with JournaledTable(path, header) as table:  # replays; whatever it cannot write waits
        assert len(table.journal) == 40
        for event in events[40:50]:
            table.feed(event)
        assert table.state == Table.replay(events[:50], header.house_rules, header.dealer, header.table).state
        filler.unlink()
        assert table.retry()
    with JournaledTable(path) as table:
        assert len(table.journal) == 50


def test_a_write_error_in_either_copy_is_caught_up_in_order(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A failing card (EIO on the copy's fsync) while the database still works: the event is saved in one copy,
    the screen says so, and the copy catches up when the card answers again."""
    header, events = script(13)
    path = tmp_path / "journal.sqlite3"
    real_fsync = os.fsync
    failing = [False]

    def fsync(fd: int) -> None:
        if failing[0] and os.readlink(f"/proc/self/fd/{fd}").endswith(".events"):
            raise OSError(errno.EIO, "Input/output error")
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    with JournaledTable(path, header) as table:
        for event in events[:10]:
            table.feed(event)
        failing[0] = True
        for event in events[10:15]:
            table.feed(event)
        assert table.journal.fault is not None and table.journal.unsaved == 0  # the database has them
        assert [n.param("unsaved") for n in table.notices if n.code is NoticeCode.STORAGE_FAULT] == [0]
        failing[0] = False
        assert table.retry()
    with JournaledTable(path) as table:
        assert not table.journal.recovery.damaged and len(table.journal) == 15


def test_a_second_writer_is_refused_with_the_pid_of_the_first(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite3"
    holder = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(f"""
            import sys
            from tablepi.journal.journal import JournaledTable
            from tablepi.journal.record import RecordHeader
            with JournaledTable({str(path)!r}, RecordHeader()):
                print("open", flush=True)
                sys.stdin.readline()
        """)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "open"
        with pytest.raises(JournalBusy) as caught:
            JournaledTable(path, RecordHeader())
        assert caught.value.pid == holder.pid
        assert f"in use by pid {holder.pid}" in str(caught.value) and "python" in str(caught.value)
        assert "\n" not in str(caught.value)
    finally:
        assert holder.stdin is not None
        holder.stdin.close()
        holder.wait(timeout=30)
    with JournaledTable(path) as table:  # the lock went with the process
        assert len(table.journal) == 0


def test_a_killed_writer_leaves_no_stale_lock(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite3"
    code = f"from tablepi.journal.journal import JournaledTable\nfrom tablepi.journal.record import RecordHeader\n" \
           f"t = JournaledTable({str(path)!r}, RecordHeader())\nimport os, signal\nos.kill(os.getpid(), 9)\n"
    subprocess.run([sys.executable, "-c", code], env=dict(os.environ, PYTHONPATH=str(ROOT)), check=False)
    with JournaledTable(path) as table:
        assert len(table.journal) == 0


RULES = HouseRules(start_lines=2)


def test_finished_matches_are_kept_compressed_up_to_the_limit_and_stay_readable(tmp_path: Path) -> None:
    path, folder = tmp_path / "journal.sqlite3", tmp_path / "archive"
    with JournaledTable(path, RecordHeader(RULES), folder, keep=3) as table:
        for match in range(5):
            sim = simulate_match(20 + match, RULES, dealer=table.state.deal.dealer)
            offset = table.state.time + 1
            for event in sim.events:
                table.feed(type(event)(**{**{f: getattr(event, f) for f in event.__dataclass_fields__},
                                           "time": event.time + offset}))
            assert table.state.phase is TablePhase.MATCH_OVER
            table.feed(Button(table.state.time + 5, ButtonName.REVANCHE))
            assert len(table.journal) == 0  # the finished match went to the archive
    kept = archive.matches(folder)
    assert len(kept) == 3 and all(p.name.endswith(".jsonl.gz") for p in kept)
    for file in kept:
        record = load_record(file)  # replay and export read the compressed file as it is
        replayed = Table.replay(record.events, record.header.house_rules, record.header.dealer, record.header.table)
        assert replayed.matches[0].winner is not None
        assert file.stat().st_size < 20_000
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    shown = subprocess.run([sys.executable, "-m", "tablepi", "replay", str(kept[-1])], capture_output=True,
                           text=True, env=env, check=False)
    assert shown.returncode == 0 and "winner:" in shown.stdout, shown.stderr
    exported = subprocess.run([sys.executable, "-m", "tablepi", "export", "--journal", str(kept[-1])],
                              capture_output=True, text=True, env=env, check=False)
    assert exported.returncode == 0 and exported.stdout.startswith('{"format": "tablepi-record"')


def test_an_event_dated_before_the_last_one_is_journaled_as_standing_still(tmp_path: Path) -> None:
    """A protocol-v2 reader dates a place by the card's first answer, which may be older than a status the host
    stamped on arrival. The table treats a clock that steps back as standing still; so must the journal, or the
    record it keeps would go backwards and not read again after a restart."""
    from tablepi.journal.journal import read_journal
    from tablepi.rules import Card
    from tablepi.table import CardPlaced, ReaderState, ReaderStatus

    path = tmp_path / "journal.sqlite3"
    with JournaledTable(path, RecordHeader()) as table:
        table.feed(ReaderStatus(5.0, Seat.E, ReaderState.ONLINE))
        table.feed(CardPlaced(4.9, Seat.W, Card.parse("AH"), "04D306A1B2C3D4"))  # first answer before the status
    events = read_journal(path).events()
    assert [e.time for e in events] == [5.0, 5.0]
    with JournaledTable(path, RecordHeader()) as table:
        assert table.state.deal.trump is not None and table.state.deal.trump.value == "H"
