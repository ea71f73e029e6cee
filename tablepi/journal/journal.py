"""The journal: every table event, durable before its effect is shown; a power cut loses nothing players saw.

Two copies of every event, written one after the other and failing independently (docs/journal.md):

1. the checksummed append-only text copy ``journal.sqlite3.events`` (:mod:`tablepi.journal.eventlog`), written and
   fsynced first;
2. the SQLite database in WAL mode with ``synchronous=FULL``: one committed transaction per event, each row with
   the same checksum, keyed by the journal's random identity (so a row of another journal's ``-wal`` is known).

On start :func:`tablepi.journal.salvage.inspect_journal` reads both without changing them; whatever is damaged is kept
in ``quarantine/`` with a note and rebuilt from the intact events, a ``-wal`` that does not belong to its database is
never applied, and the match resumes. Each event is stored as its game-record line (docs/records.md), so
``tablepi export`` writes the journal as a record without translation.

When the storage refuses a write (full disk, failing card) the event is kept in memory, the table goes on and
:attr:`Journal.fault` says so (the screen shows a standing warning); every later append and :meth:`Journal.retry`
writes what is pending, in order, as soon as the storage takes it again.

:class:`JournaledTable` is what the app runs: journal first, then the table, and on start the table replays the
journal and resumes exactly where it was, a card lying mid-trick included.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import sqlite3
import time
import uuid
from collections.abc import Iterable, Iterator
from dataclasses import replace
from pathlib import Path
from types import TracebackType
from typing import Protocol, TextIO

from tablepi.errors import ConfigError, RecordError, TablepiError
from tablepi.journal import archive as match_archive
from tablepi.journal.evening import Clock, EveningBook, last_written
from tablepi.journal.eventlog import CopyWriter, checksum, copy_path, fsync_dir, write_copy
from tablepi.journal.lock import JournalBusy, JournalLock
from tablepi.journal.record import VERSION, RecordHeader, checked_line, parse_event, parse_header, record_lines
from tablepi.journal.salvage import (
    Recovery,
    Store,
    inspect_journal,
    keep,
    quarantine_dir,
    shm_path,
    wal_path,
    write_note,
)
from tablepi.notices import Notice, NoticeCode
from tablepi.players import fit_name
from tablepi.safeinput import clean_text, load_json
from tablepi.table.events import PlayersSeated, SeatingSource, TableEvent, Tick
from tablepi.table.machine import Table
from tablepi.table.state import TablePhase, TableState

__all__ = ["Journal", "JournalBusy", "JournalError", "JournalListener", "JournaledTable", "read_journal"]

log = logging.getLogger(__name__)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS events (seq INTEGER PRIMARY KEY, line TEXT NOT NULL, crc INTEGER);
"""

_STORAGE_ERRORS = (OSError, sqlite3.Error)


class JournalError(TablepiError, OSError):
    """The journal cannot be used at all (closed, no header for a new one, not a journal)."""


def _header_of(rec: Recovery, fallback: RecordHeader | None, path: Path) -> RecordHeader | None:
    if rec.header is None:
        return fallback
    try:
        # A journal begun by an older tablepi is read as the current version: the events this one appends
        # (version 2: the gestures by hand) are its own.
        return replace(parse_header(rec.header, 0), version=VERSION)
    except RecordError as err:
        if fallback is None:
            raise RecordError(clean_text(f"{path}: the journal's header is damaged: {err}"), problem=err.problem,
                              line=0, path=path) from None
        rec.notes.append(f"the stored header does not read ({err}); today's configuration was used")
        return fallback


def _build_db(path: Path, journal_id: str, header: RecordHeader, lines: list[str]) -> None:
    """A complete journal database at ``path`` (beside it, then renamed over it): meta and every row."""
    tmp = path.with_name(path.name + ".rebuild")
    for leftover in (tmp, wal_path(tmp), shm_path(tmp)):
        with contextlib.suppress(FileNotFoundError):
            leftover.unlink()
    db = sqlite3.connect(str(tmp), isolation_level=None)
    try:
        db.execute("PRAGMA synchronous=FULL")
        db.executescript(_SCHEMA)
        db.execute("BEGIN")
        db.execute("INSERT INTO meta (key, value) VALUES ('id', ?)", (journal_id,))
        db.execute("INSERT INTO meta (key, value) VALUES ('header', ?)",
                   (json.dumps(header.to_json(), ensure_ascii=False),))
        db.executemany("INSERT INTO events (seq, line, crc) VALUES (?, ?, ?)",
                       ((seq, line, checksum(journal_id, seq, line)) for seq, line in enumerate(lines, start=1)))
        db.execute("COMMIT")
    finally:
        db.close()
    os.replace(tmp, path)
    fsync_dir(path.parent)


class Journal:
    """An append-only event journal: a SQLite file and its checksummed copy, kept equal.

    A new journal needs a ``header``; an existing one keeps the header it was created with (``header`` is then
    ignored: the games in it were played under the stored rules). :attr:`recovery` says what the start found.
    """

    def __init__(self, path: str | Path, header: RecordHeader | None = None, *, lock: bool = True) -> None:
        self.path = Path(path)
        self._lock = JournalLock(self.path) if lock else None
        try:
            self._open(header)
        except BaseException:
            self._release()
            raise

    def _open(self, header: RecordHeader | None) -> None:
        rec = inspect_journal(self.path)
        self.recovery = rec
        stored = _header_of(rec, header, self.path)
        if stored is None:
            raise JournalError(f"{self.path}: a new journal needs a header (house rules, first dealer)")
        self.header = stored
        self.journal_id = rec.journal_id or uuid.uuid4().hex
        self._lines: list[str] = list(rec.lines)
        self._db: sqlite3.Connection | None = None
        self._copy: CopyWriter | None = None
        self._closed = False
        self.fault: str | None = None
        self._quarantine: Path | None = None
        # What each store holds of _lines (None: it must be rebuilt whole before it takes appends).
        self._copy_count: int | None = None if rec.copy is not Store.OK or rec.copy_torn else len(self._lines)
        self._db_count: int | None = None if rec.db in (Store.DAMAGED, Store.MISSING, Store.FOREIGN_WAL) \
            else rec.db_count
        self._copy_size = rec.copy_size
        if rec.damaged:
            self._keep_damaged()
            log.warning("%s: recovered after damage: %s", self.path, rec.summary())
        elif rec.db is Store.BEHIND or rec.copy is not Store.OK:
            log.info("%s: catching up: %s", self.path, rec.summary())
        self._flush()

    # --- writing both copies -----------------------------------------------------------------------------------

    def _keep_damaged(self) -> None:
        """Hard-link the damaged copy into quarantine (it is replaced whole, atomically, in _flush); the database's
        files are moved there when it is rebuilt."""
        try:
            self._quarantine = quarantine_dir(self.path)
            kept: list[str] = []
            if self.recovery.copy is Store.DAMAGED:
                kept += keep(self._quarantine, [copy_path(self.path)], move=False)
            if self.recovery.db is Store.FOREIGN_WAL or self.recovery.db is Store.DAMAGED:
                kept += [p.name for p in (self.path, wal_path(self.path), shm_path(self.path)) if p.exists()]
            write_note(self._quarantine, self.recovery, kept)
        except OSError as err:
            log.error("%s: cannot keep the damaged files in quarantine: %s", self.path, err)

    def _flush(self) -> None:
        """Write what each store lacks: the copy first, then the database. Storage errors become :attr:`fault`."""
        problems: list[str] = []
        try:
            self._flush_copy()
        except _STORAGE_ERRORS as err:
            problems.append(f"{copy_path(self.path).name}: {_why(err)}")
        try:
            self._flush_db()
        except _STORAGE_ERRORS as err:
            problems.append(f"{self.path.name}: {_why(err)}")
            self._drop_db()
        if problems and self.fault is None:
            log.error("%s: storage fault, %d events not yet saved: %s", self.path, self.unsaved, "; ".join(problems))
        elif not problems and self.fault is not None:
            log.warning("%s: storage works again: every event is saved", self.path)
        self.fault = "; ".join(problems) or None

    def _flush_copy(self) -> None:
        n = len(self._lines)
        if self._copy_count is None:
            if self._copy is not None:
                self._copy.close()
                self._copy = None
            self._copy_size = write_copy(copy_path(self.path), self.journal_id, self.header.to_json(),
                                         enumerate(self._lines, start=1))
            self._copy_count = n
        if self._copy is None:
            self._copy = CopyWriter(copy_path(self.path), self.journal_id, self._copy_size)
        while self._copy_count < n:
            seq = self._copy_count + 1
            self._copy.append(seq, self._lines[seq - 1])
            self._copy_count = seq

    def _flush_db(self) -> None:
        n = len(self._lines)
        if self._db_count is None:
            if self._copy_count != n and self.recovery.db is not Store.MISSING:
                raise OSError("waiting for the copy before rebuilding the database")
            self._rebuild_db()
            self._db_count = n
        if self._db is None:
            self._db = self._connect()
        if self._db_count < n:
            db = self._db
            db.execute("BEGIN IMMEDIATE")
            try:
                db.executemany("INSERT INTO events (seq, line, crc) VALUES (?, ?, ?)",
                               ((seq, self._lines[seq - 1], checksum(self.journal_id, seq, self._lines[seq - 1]))
                                for seq in range(self._db_count + 1, n + 1)))
                db.execute("COMMIT")  # one fsynced transaction (synchronous=FULL)
            except BaseException:
                with contextlib.suppress(sqlite3.Error):
                    db.execute("ROLLBACK")
                raise
            self._db_count = n

    def _rebuild_db(self) -> None:
        damaged = [p for p in (self.path, wal_path(self.path), shm_path(self.path)) if p.exists()]
        if damaged:
            if self._quarantine is None:
                self._quarantine = quarantine_dir(self.path)
                write_note(self._quarantine, self.recovery, [p.name for p in damaged])
            keep(self._quarantine, damaged, move=True)
        _build_db(self.path, self.journal_id, self.header, self._lines)

    def _connect(self) -> sqlite3.Connection:
        db = sqlite3.connect(str(self.path), isolation_level=None)
        try:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=FULL")
            db.executescript(_SCHEMA)
            columns = {row[1] for row in db.execute("PRAGMA table_info(events)")}
            if "crc" not in columns:  # a journal from before rows had checksums
                db.execute("ALTER TABLE events ADD COLUMN crc INTEGER")
            meta = dict(db.execute("SELECT key, value FROM meta").fetchall())
            if meta.get("id") != self.journal_id:
                db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('id', ?)", (self.journal_id,))
            if "header" not in meta:
                db.execute("INSERT INTO meta (key, value) VALUES ('header', ?)",
                           (json.dumps(self.header.to_json(), ensure_ascii=False),))
            if meta.get("id") != self.journal_id or "header" not in meta:
                # The identity and header in the main file itself: a -wal is then checked against them.
                db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        except BaseException:
            db.close()
            raise
        return db

    def _drop_db(self) -> None:
        if self._db is not None:
            with contextlib.suppress(sqlite3.Error):
                self._db.close()
            self._db = None
        if self._db_count is not None and self._db_count > len(self._lines):
            self._db_count = None

    # --- the API -----------------------------------------------------------------------------------------------

    @property
    def id(self) -> str:
        """This journal's identity (random, stored in both copies): the feed names a journal's events by it."""
        return self.journal_id

    def lines_after(self, seq: int) -> list[tuple[int, str]]:
        """The stored lines after sequence number ``seq``, in order (what an outbox still has to send)."""
        return list(self.lines(after=seq))

    def _conn(self) -> sqlite3.Connection:
        """The open database connection (JournalError if closed, or unavailable during a storage fault)."""
        self._check_open()
        if self._db is None:
            raise JournalError(f"{self.path}: the journal database is not available ({self.fault or 'closed'})")
        return self._db

    def _check_open(self) -> None:
        if self._closed:
            raise JournalError(f"{self.path}: the journal is closed")

    def append(self, event: TableEvent) -> int:
        """Store ``event``; returns its sequence number (1-based). Returns after the fsyncs; when the storage
        refuses, the event waits in memory (:attr:`fault`, :attr:`unsaved`) and is written by the next append or
        :meth:`retry`.

        The line is first read back by the record reader that replays it (:func:`tablepi.journal.record.checked_line`):
        an event that would not read back as itself raises RecordError and nothing is stored, so a journal always
        replays."""
        self._check_open()
        line = checked_line(event, self.header)
        self._lines.append(line)
        self._flush()
        return len(self._lines)

    def retry(self) -> bool:
        """Write what the storage refused before; True when everything is saved."""
        self._check_open()
        if self.fault is not None:
            self._flush()
        return self.fault is None

    @property
    def unsaved(self) -> int:
        """Events held only in memory: in neither copy yet."""
        held = max(self._copy_count or 0, self._db_count or 0)
        return max(0, len(self._lines) - held)

    def __len__(self) -> int:
        return len(self._lines)

    def lines(self, after: int = 0) -> Iterator[tuple[int, str]]:
        """``(seq, line)`` of every event after ``after``, in order (a feed resumes from its last acknowledged
        seq)."""
        for index in range(max(0, after), len(self._lines)):
            yield index + 1, self._lines[index]

    def meta(self, key: str) -> str | None:
        """A value stored beside the events (e.g. how far a feed got); None if unset or unreadable."""
        if self._db is None:
            return None
        try:
            row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        except sqlite3.Error:
            return None
        return None if row is None else str(row[0])

    def events(self, salvage: list[str] | None = None) -> list[TableEvent]:
        """Every event in order. A line that does not read raises RecordError naming its sequence number
        (``salvage``: a seating an earlier tablepi wrote is made to read, see
        :func:`tablepi.journal.record.parse_event`)."""
        return _parse_lines(self.path, self.header, self.lines(), salvage)

    @property
    def last_time(self) -> float:
        """Time of the last event: the app continues its clock from here after a restart."""
        if not self._lines:
            return 0.0
        try:
            value = load_json(self._lines[-1]).get("t", 0.0)
            return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0.0
        except (ValueError, AttributeError):
            return 0.0

    def export(self, out: TextIO) -> int:
        """Write the journal as a game record; returns the number of events."""
        return _export(self.header, self._lines, out)

    def _release(self) -> None:
        if self._lock is not None:
            self._lock.close()
            self._lock = None

    def close(self) -> None:
        """Close both copies (a last attempt to save what is pending is made first). Idempotent."""
        if getattr(self, "_closed", True):
            self._release()
            return
        if self.fault is not None:
            self._flush()
            if self.unsaved:
                log.error("%s: closing with %d events not saved (storage fault: %s)", self.path, self.unsaved,
                          self.fault)
        self._closed = True
        if self._copy is not None:
            self._copy.close()
            self._copy = None
        if self._db is not None:
            with contextlib.suppress(sqlite3.Error):
                self._db.close()
            self._db = None
        self._release()

    def __enter__(self) -> Journal:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


def _why(err: BaseException) -> str:
    if isinstance(err, OSError) and err.strerror:
        return err.strerror
    return clean_text(str(err)) or type(err).__name__


def _parse_lines(path: Path, header: RecordHeader, lines: Iterator[tuple[int, str]],
                 salvage: list[str] | None = None) -> list[TableEvent]:
    events: list[TableEvent] = []
    previous = 0.0
    for seq, line in lines:
        try:
            obj = load_json(line)
        except ValueError as err:
            raise RecordError(f"{path}: journal event {seq}: {err}", problem=str(err), line=seq, path=path) from None
        notes: list[str] | None = None if salvage is None else []
        try:
            event = parse_event(obj, header, seq, previous, notes)
        except RecordError as err:
            raise RecordError(clean_text(f"{path}: journal event {seq}: {err.problem}"), problem=err.problem,
                              line=seq, path=path) from None
        if salvage is not None and notes:
            salvage.extend(clean_text(f"{path}: journal event {seq}: {n}") for n in notes)
        previous = event.time
        events.append(event)
    return events


def _export(header: RecordHeader, lines: list[str], out: TextIO) -> int:
    out.write(next(record_lines(header, ())) + "\n")
    for line in lines:
        out.write(line + "\n")
    return len(lines)


class JournalView:
    """A journal read without a lock and without changing a file (``export``, ``doctor``, the archive)."""

    def __init__(self, path: Path, recovery: Recovery, header: RecordHeader) -> None:
        self.path = path
        self.recovery = recovery
        self.header = header
        self._lines = recovery.lines

    def __len__(self) -> int:
        return len(self._lines)

    def lines(self, after: int = 0) -> Iterator[tuple[int, str]]:
        for index in range(max(0, after), len(self._lines)):
            yield index + 1, self._lines[index]

    def events(self, salvage: list[str] | None = None) -> list[TableEvent]:
        return _parse_lines(self.path, self.header, self.lines(), salvage)

    def export(self, out: TextIO) -> int:
        return _export(self.header, self._lines, out)


def read_journal(path: str | Path) -> JournalView:
    """Read a journal however damaged, changing nothing: the intact events and what was found
    (``view.recovery``). Raises RecordError only when neither copy holds anything of a journal."""
    path = Path(path)
    rec = inspect_journal(path)
    if rec.header is None and not rec.lines and rec.db is Store.MISSING and rec.copy is Store.MISSING:
        raise RecordError(f"{path}: no journal there", path=path)
    header = _header_of(rec, RecordHeader(), path)
    if rec.header is None:
        rec.notes.append("the header is lost in both copies: default house rules assumed")
    assert header is not None
    return JournalView(path, rec, header)


def _pending(path: Path) -> Path:
    return path.with_name(path.name + ".new")


def _remove_journal_files(path: Path) -> None:
    for file in (path, wal_path(path), shm_path(path), copy_path(path)):
        with contextlib.suppress(FileNotFoundError):
            file.unlink()


def _finish_rotation(path: Path) -> None:
    """Complete or undo a rotation a power cut interrupted.

    A pending new journal beside the old one means the old one was not archived yet: the rotation is undone (the
    new journal is dropped; it held only its header). A pending journal alone means the old one is archived: the new
    one (database and copy) takes its place.
    """
    pending = _pending(path)
    if not pending.exists():
        with contextlib.suppress(FileNotFoundError):
            copy_path(pending).unlink()  # the new copy was written, its database not yet: nothing to finish
        return
    if path.exists():
        _remove_journal_files(pending)
    else:
        for leftover in (wal_path(path), shm_path(path)):
            with contextlib.suppress(FileNotFoundError):
                leftover.unlink()
        if copy_path(pending).exists():
            os.replace(copy_path(pending), copy_path(path))
        else:
            with contextlib.suppress(FileNotFoundError):
                copy_path(path).unlink()
        os.replace(pending, path)
    fsync_dir(path.parent)


def round_in_force(events: Iterable[TableEvent], before: PlayersSeated | None) -> PlayersSeated | None:
    """The seating that says which tournament round is in force after ``events`` (its ``round`` and
    ``round_deals``; ``before``: the one before them): a seating by the tournament sets it, the names kept at the
    start of a journal carry it on, other seatings leave it (a player who names himself sits in the same round)."""
    for event in events:
        if isinstance(event, PlayersSeated) and event.source in (SeatingSource.TOURNAMENT, SeatingSource.KEPT):
            before = event
    return before


def _new_match_begins(state: TableState) -> bool:
    """A match is about to start (the table says so), with nothing on the zones and nothing to warn."""
    return state.possible.choose_dealer and not state.warnings and all(zone.is_clear for zone in state.zones)


class JournalListener(Protocol):
    """Told, on the core's thread, of every event journaled and of every rotation (the MQTT feed is one).

    It must only take note (a queue put) and return: the table waits for it.
    """

    def journaled(self, journal: Journal, seq: int, line: str) -> None: ...

    def rotated(self, old_id: str, archived: Path, new: Journal) -> None: ...


class JournaledTable:
    """The table with its journal: :meth:`feed` journals an event, then applies it, then returns the state.

    On open, the journal is replayed into a fresh table, so the state after a restart equals the state before the
    power cut. A :class:`~tablepi.table.events.Tick` that changes nothing is not journaled. One process at a time
    writes a journal (:class:`~tablepi.journal.lock.JournalBusy` names the other one).

    With an ``archive`` folder the journal holds one match at a time: when a new match begins (after a revanche or
    a new match, before its trumps are named, the zones clear) the finished matches are written to the archive as a
    compressed game record (:mod:`tablepi.journal.archive`, at most ``keep`` of them are kept) and the table carries on
    in a fresh journal whose header names the new match's dealer. Start-up replay then costs one match, however long the
    table has been in service. The move is crash-safe: a power cut at any point leaves either the old journal or
    the new one in place (see :func:`_finish_rotation`). Undo reaches back to the start of the current journal:
    once a new match has begun, the finished one is history.
    """

    def __init__(
        self,
        path: str | Path,
        header: RecordHeader | None = None,
        archive: str | Path | None = None,
        keep: int = match_archive.DEFAULT_KEEP,
        clock: Clock = time.time,
    ) -> None:
        self.path = Path(path)
        self.archive = None if archive is None else Path(archive)
        self.keep = keep
        self._new_header = header  # what a new journal starts with (today's configuration)
        self.evening = EveningBook(self.archive, clock)  # the evening's matches archived, before the journal's
        self.listeners: list[JournalListener] = []
        # The seating that says the tournament round in force in the journal (round_in_force): the feed reads it
        # from the journal too.
        self.in_round: PlayersSeated | None = None
        self._lock = JournalLock(self.path)
        try:
            _finish_rotation(self.path)
            self._written = last_written(self.path)  # (before this start writes anything)
            self.journal = Journal(self.path, header, lock=False)
            try:
                self.table = self._replay()
            except BaseException:
                self.journal.close()
                raise
        except BaseException:
            self._lock.close()
            raise
        rec = self.journal.recovery
        self._said: Notice | None = None  # the last gesture refused, or a name cut, until the next gesture
        self._recovered: Notice | None = None
        if rec.damaged:
            self._recovered = Notice(NoticeCode.JOURNAL_RECOVERED,
                                     (("events", len(self.journal)), ("complete", rec.complete)))
        if self.archive is not None:
            with contextlib.suppress(OSError):
                match_archive.prune(self.archive, self.keep)

    def _replay(self) -> Table:
        h = self.journal.header
        salvaged: list[str] = []
        try:
            events = self.journal.events(salvaged)
            for note in salvaged:  # an earlier tablepi journaled a name this one refuses: read as it fits
                log.warning("%s", note)
        except RecordError:
            if not self.journal.recovery.damaged:
                raise  # an intact journal that does not read (a newer tablepi wrote it): never cut it silently
            events = []
            for seq, line in self.journal.lines():  # after damage: the events up to the first that does not read
                try:
                    events.extend(_parse_lines(self.path, h, iter([(seq, line)])))
                except RecordError as err:
                    self.journal.recovery.notes.append(f"replay stops before event {seq}: {err}")
                    break
        self.in_round = round_in_force(events, None)
        if self.evening.resume(self.journal.journal_id, self._written):
            return Table.replay(events, h.house_rules, h.dealer, h.table, self.evening.before_current())
        table = Table.replay(events, h.house_rules, h.dealer, h.table)  # switched on: no match archived this evening
        self.evening.switch_on(self.journal.journal_id, table.state.phase is TablePhase.MATCH_OVER)
        return table

    @property
    def header(self) -> RecordHeader:
        return self.journal.header

    @property
    def round(self) -> int | None:
        """The tournament round in force in the journal (None: no tournament seating)."""
        return None if self.in_round is None else self.in_round.round

    @property
    def state(self) -> TableState:
        return self.table.state

    @property
    def notices(self) -> tuple[Notice, ...]:
        """What the players should know about the journal itself: a recovery after damage, a storage fault."""
        out: list[Notice] = []
        if self._said is not None:
            out.append(self._said)
        if self._recovered is not None:
            out.append(self._recovered)
        if self.journal.fault is not None:
            out.append(Notice(NoticeCode.STORAGE_FAULT, (("unsaved", self.journal.unsaved),)))
        return tuple(out)

    def dismiss_recovery(self) -> None:
        """The players have seen the recovery notice (the deal in progress at the restart is over)."""
        self._recovered = None

    def feed(self, event: TableEvent) -> TableState:
        """Journal ``event`` (fsync), then apply it. During a storage fault the event is applied and waits in
        memory to be saved (see :class:`Journal`); a closed journal raises JournalError and the table is unchanged.

        An event dated before the last one journaled is journaled (and applied) at that last time: a reader that
        dates its own events reports a lift after its quiet time, behind a later card on another zone, and a
        record's clock never goes backwards (the journal would not read back)."""
        last = self.journal.last_time
        if event.time < last:
            event = replace(event, time=last)
        said = None
        if isinstance(event, PlayersSeated):
            fitted = self._fit_names(event)
            if isinstance(fitted, Notice):
                self._said = fitted
                return self.table.state
            event, said = fitted
        if self.table.would_change(event):
            try:
                seq = self.journal.append(event)  # read back first by the record reader: refused if it would not
            except RecordError as err:
                log.warning("refused, not journaled and not applied: %s: %s", event, err)
                self._said = Notice(NoticeCode.GESTURE_REFUSED, (("why", str(err)),))
                return self.table.state
            if not isinstance(event, Tick):
                self._said = said  # what the players were told goes once they move on
            line = self.journal._lines[seq - 1]
            self.in_round = round_in_force((event,), self.in_round)
            for listener in self.listeners:
                listener.journaled(self.journal, seq, line)
            state = self.table.apply(event)
            if self.archive is not None and _new_match_begins(state) and len(self.table.matches) > 1:
                if self.journal.fault is None:
                    self._rotate(state)
                    return self.table.state
                log.warning("storage fault: the new match goes on in the same journal; it is archived later")
            return state
        return self.table.state

    def _fit_names(self, event: PlayersSeated) -> tuple[PlayersSeated, Notice | None] | Notice:
        """A seating as the table can keep it, whoever typed, tapped or sent it: a name over
        :data:`tablepi.players.MAX_NAME` is cut and marked, and the players are told; a name that is no name (on
        two lines, a control character in it, empty) refuses the seating (the notice alone is returned)."""
        names = []
        cut: list[str] = []
        for seat, name in event.names:
            try:
                fitted, was_cut = fit_name(name)
            except ConfigError as err:
                log.warning("seating refused, not journaled: %s", err)
                return Notice(NoticeCode.NAME_REFUSED, (("seat", seat),))
            if was_cut:
                log.warning("player name %r is longer than the table keeps: seated as %r", name, fitted)
                cut.append(fitted)
            names.append((seat, fitted))
        said = Notice(NoticeCode.NAME_CUT, (("name", cut[0]),)) if cut else None
        return replace(event, names=tuple(names)), said

    def retry(self) -> bool:
        """Try again to save what the storage refused (the app calls this about once a second)."""
        return self.journal.retry()

    def _rotate(self, state: TableState) -> Path | None:
        """Archive the finished matches (compressed); continue the new match in a fresh journal."""
        assert self.archive is not None
        # The new match is played under today's configuration (house rules changed since the journal began apply
        # from the next match on, never in the middle of one).
        header = replace(self._new_header or self.header, dealer=state.deal.dealer)
        try:
            target = match_archive.write_match(self.archive, self.path.stem, self.journal.journal_id,
                                               self.header, [line for _, line in self.journal.lines()])
        except OSError as err:  # a full card: keep everything in this journal, try at the next match
            log.error("cannot archive the finished match (%s): it stays in the journal", _why(err))
            return None
        fresh = _pending(self.path)
        _remove_journal_files(fresh)
        try:
            Journal(fresh, header, lock=False).close()  # 1. the new journal, complete and fsynced, beside the old
        except (OSError, TablepiError) as err:
            _remove_journal_files(fresh)
            log.error("cannot start a fresh journal (%s): the new match goes on in this one", err)
            return None
        self.journal.close()
        _remove_journal_files(self.path)  # 2. the old journal, archived already
        fsync_dir(self.path.parent)
        _finish_rotation(self.path)  # 3. the new journal in its place
        old_id = self.journal.id
        self.journal = Journal(self.path, lock=False)
        for listener in self.listeners:
            listener.rotated(old_id, target, self.journal)
        h = self.journal.header
        self.evening.archived(target, self.table)
        self.evening.new_match(self.journal.journal_id)
        names = self.table.state.names
        # The evening goes on: its matches keep their numbers and history, and the players their names, written
        # first in the new journal (so it reads alone, to the book and the tournament too).
        self.table = Table(h.house_rules, h.dealer, h.table, self.evening.before_current())
        if names:  # with the tournament round in force (a table seated by the tournament has names)
            seated = self.in_round
            self.feed(PlayersSeated(state.time, names, SeatingSource.KEPT, round=self.round,
                                    round_deals=None if seated is None else seated.round_deals))
        with contextlib.suppress(OSError):
            match_archive.prune(self.archive, self.keep)
        return target

    def close(self) -> None:
        if hasattr(self, "journal"):
            self.journal.close()
        self._lock.close()

    def __enter__(self) -> JournaledTable:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()
