"""The journal: every table event, durable before its effect is shown; a power cut loses nothing players saw.

An append-only SQLite database in WAL mode with ``synchronous=FULL``: each :meth:`Journal.append` is one committed
transaction, fsynced before it returns. The header (house rules, first dealer, table settings) is stored once.
Each event is stored as its game-record line (docs/records.md), so ``tablepi export`` writes the journal as a
record without translation, and a journal can be read by a newer tablepi.

:class:`JournaledTable` is what the app runs: journal first, then the table, and on start the table replays the
journal and resumes exactly where it was, a card lying mid-trick included.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import time
import uuid
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from types import TracebackType
from typing import Protocol, TextIO

from tablepi.errors import RecordError, TablepiError
from tablepi.record import VERSION, RecordHeader, event_to_line, parse_event, parse_header, record_lines
from tablepi.table.events import TableEvent
from tablepi.table.machine import Table
from tablepi.table.state import TablePhase, TableState

#: Where the app keeps its journal unless configured otherwise.
DEFAULT_JOURNAL = Path("/var/lib/tablepi/journal.sqlite3")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS events (seq INTEGER PRIMARY KEY, line TEXT NOT NULL);
"""


class JournalError(TablepiError, OSError):
    """The journal file cannot be opened or written (disk full, read-only, not a journal)."""


class Journal:
    """An append-only event journal in one SQLite file.

    A new file needs a ``header``; an existing one keeps the header it was created with (``header`` is then
    ignored: the games in it were played under the stored rules).
    """

    def __init__(self, path: str | Path, header: RecordHeader | None = None) -> None:
        self.path = Path(path)
        try:
            self._db: sqlite3.Connection | None = sqlite3.connect(str(self.path), isolation_level=None)
            db = self._db
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=FULL")
            db.executescript(_SCHEMA)
            row = db.execute("SELECT value FROM meta WHERE key = 'header'").fetchone()
        except sqlite3.Error as err:
            self._db = None
            raise JournalError(f"{self.path}: cannot open the journal: {err}") from None
        if row is None:
            if header is None:
                self.close()
                raise JournalError(f"{self.path}: a new journal needs a header (house rules, first dealer)")
            text = json.dumps(header.to_json(), ensure_ascii=False)
            self._write("INSERT INTO meta (key, value) VALUES ('header', ?)", (text,))
            self.header = header
        else:
            try:
                # A journal begun by an older tablepi is read as the current version: the events this one appends
                # (version 2: the gestures by hand) are its own.
                self.header = replace(parse_header(json.loads(row[0]), 0), version=VERSION)
            except (RecordError, json.JSONDecodeError) as err:
                self.close()
                raise RecordError(f"{self.path}: the journal's header is damaged: {err}") from None
        self.id = self._journal_id()
        count = self._conn().execute("SELECT COUNT(*), MAX(seq) FROM events").fetchone()
        self._count = int(count[0])
        self._last_seq = int(count[1] or 0)

    def _journal_id(self) -> str:
        """This journal's identity (random, stored in the file): the feed names a journal's events by it."""
        row = self._conn().execute("SELECT value FROM meta WHERE key = 'id'").fetchone()
        if row is not None:
            return str(row[0])
        new = uuid.uuid4().hex
        self._write("INSERT INTO meta (key, value) VALUES ('id', ?)", (new,))
        return new

    def _conn(self) -> sqlite3.Connection:
        if self._db is None:
            raise JournalError(f"{self.path}: the journal is closed")
        return self._db

    def _write(self, sql: str, params: tuple[object, ...]) -> None:
        try:
            self._conn().execute(sql, params)  # autocommit: one fsynced transaction (synchronous=FULL)
        except sqlite3.Error as err:
            raise JournalError(f"{self.path}: cannot write to the journal: {err}") from None

    def append(self, event: TableEvent) -> int:
        """Store ``event`` durably; returns its sequence number (1-based). Returns after the fsync."""
        line = event_to_line(event)
        seq = self._last_seq + 1
        self._write("INSERT INTO events (seq, line) VALUES (?, ?)", (seq, line))
        self._last_seq = seq
        self._count += 1
        return seq

    def __len__(self) -> int:
        return self._count

    def lines(self) -> Iterator[tuple[int, str]]:
        yield from self._conn().execute("SELECT seq, line FROM events ORDER BY seq")

    def lines_after(self, seq: int) -> list[tuple[int, str]]:
        """The stored lines after sequence number ``seq``, in order (what an outbox still has to send)."""
        return list(self._conn().execute("SELECT seq, line FROM events WHERE seq > ? ORDER BY seq", (seq,)))

    def events(self) -> list[TableEvent]:
        """Every event in order. A damaged row raises RecordError naming its sequence number; nothing is
        changed in the file."""
        events: list[TableEvent] = []
        previous = 0.0
        for seq, line in self.lines():
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as err:
                raise RecordError(f"{self.path}: journal event {seq} is not JSON: {err.msg}") from None
            try:
                event = parse_event(obj, self.header, seq, previous)
            except RecordError as err:
                why = str(err).removeprefix(f"line {seq}: ")
                raise RecordError(f"{self.path}: journal event {seq}: {why}") from None
            previous = event.time
            events.append(event)
        return events

    @property
    def last_time(self) -> float:
        """Time of the last event: the app continues its clock from here after a restart."""
        row = self._conn().execute("SELECT line FROM events ORDER BY seq DESC LIMIT 1").fetchone()
        if row is None:
            return 0.0
        try:
            return float(json.loads(row[0]).get("t", 0.0))
        except (json.JSONDecodeError, AttributeError, TypeError, ValueError):
            return 0.0

    def export(self, out: TextIO) -> int:
        """Write the journal as a game record; returns the number of events."""
        header_line = next(record_lines(self.header, ()))
        out.write(header_line + "\n")
        count = 0
        for _, line in self.lines():
            out.write(line + "\n")
            count += 1
        return count

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None

    def __enter__(self) -> Journal:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


def _pending(path: Path) -> Path:
    return path.with_name(path.name + ".new")


def _fsync_dir(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _finish_rotation(path: Path) -> None:
    """Complete or undo a rotation a power cut interrupted.

    A pending new journal beside the old one means the old one was not archived yet: the rotation is undone (the
    new journal is dropped; it held only its header). A pending journal alone means the old one is archived: the new
    one takes its place.
    """
    pending = _pending(path)
    if not pending.exists():
        return
    if path.exists():
        pending.unlink()
    else:
        os.replace(pending, path)
    _fsync_dir(path.parent)


def _new_match_begins(state: TableState) -> bool:
    """A match is about to start: first deal, trumps not named, no trick, nothing on the zones, nothing to warn."""
    return (
        state.phase is TablePhase.TRUMPS
        and state.deal_number == 1
        and not state.tricks
        and not state.slate
        and not state.warnings
        and all(zone.is_clear for zone in state.zones)
    )


class JournalListener(Protocol):
    """Told, on the core's thread, of every event journaled and of every rotation (the MQTT feed is one).

    It must only take note (a queue put) and return: the table waits for it.
    """

    def journaled(self, journal: Journal, seq: int, line: str) -> None: ...

    def rotated(self, old_id: str, archived: Path, new: Journal) -> None: ...


class JournaledTable:
    """The table with its journal: :meth:`feed` journals an event, then applies it, then returns the state.

    On open, the journal is replayed into a fresh table, so the state after a restart equals the state before the
    power cut. A :class:`~tablepi.table.events.Tick` that changes nothing is not journaled.

    With an ``archive`` folder the journal holds one match at a time: when a new match begins (after a revanche or
    a new match, before its trumps are named, the zones clear) the finished matches' journal is moved into the
    archive and the table carries on in a fresh journal whose header names the new match's dealer. Start-up replay
    then costs one match, however long the table has been in service. The move is crash-safe: a power cut at any
    point leaves either the old journal or the new one in place (see :func:`_finish_rotation`). Undo reaches back
    to the start of the current journal: once a new match has begun, the finished one is history.
    """

    def __init__(self, path: str | Path, header: RecordHeader | None = None, archive: str | Path | None = None) -> None:
        self.path = Path(path)
        self.archive = None if archive is None else Path(archive)
        self._new_header = header  # what a new journal starts with (today's configuration)
        self.listeners: list[JournalListener] = []
        _finish_rotation(self.path)
        self.journal = Journal(self.path, header)
        try:
            h = self.journal.header
            self.table = Table.replay(self.journal.events(), h.house_rules, h.dealer, h.table)
        except BaseException:
            self.journal.close()
            raise

    @property
    def header(self) -> RecordHeader:
        return self.journal.header

    @property
    def state(self) -> TableState:
        return self.table.state

    def feed(self, event: TableEvent) -> TableState:
        """Journal ``event`` (fsync), then apply it. If the journal cannot be written the table is unchanged."""
        if self.table.would_change(event):
            seq = self.journal.append(event)
            for listener in self.listeners:
                listener.journaled(self.journal, seq, event_to_line(event))
            state = self.table.apply(event)
            if self.archive is not None and _new_match_begins(state) and len(self.table.matches) > 1:
                self._rotate(state)
                return self.table.state
            return state
        return self.table.state

    def _rotate(self, state: TableState) -> Path:
        """Archive the journal of the finished matches; continue the new match in a fresh journal."""
        assert self.archive is not None
        # The new match is played under today's configuration (house rules changed since the journal began apply
        # from the next match on, never in the middle of one).
        header = replace(self._new_header or self.header, dealer=state.dealer)
        fresh = _pending(self.path)
        with contextlib.suppress(FileNotFoundError):
            fresh.unlink()
        Journal(fresh, header).close()  # 1. the new journal, complete and fsynced, beside the old one
        self.journal.close()  # checkpoints the WAL into the file
        self.archive.mkdir(parents=True, exist_ok=True)
        stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
        target = self.archive / f"{self.path.stem}-{stamp}{self.path.suffix}"
        counter = 1
        while target.exists():
            counter += 1
            target = self.archive / f"{self.path.stem}-{stamp}-{counter}{self.path.suffix}"
        os.replace(self.path, target)  # 2. the old journal into the archive
        _fsync_dir(self.archive)
        _finish_rotation(self.path)  # 3. the new journal in its place
        old_id = self.journal.id
        self.journal = Journal(self.path)
        for listener in self.listeners:
            listener.rotated(old_id, target, self.journal)
        h = self.journal.header
        self.table = Table(h.house_rules, h.dealer, h.table)
        return target

    def close(self) -> None:
        self.journal.close()

    def __enter__(self) -> JournaledTable:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()
