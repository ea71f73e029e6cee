"""Reading a journal however damaged it is, and keeping what was damaged.

:func:`inspect_journal` reads the SQLite file (with and without its ``-wal``) and the second copy
(:mod:`tablepi.journal.eventlog`) **without changing any of them**: SQLite opens scratch copies in a private folder in
RAM, so neither a foreign ``-wal`` nor a damaged page is ever written back. It returns a :class:`Recovery`: the
intact events in order, the run ``1, 2, ... n`` that at least one of the two copies holds intact, never an event
invented, reordered or taken from after a gap, and what state each copy is in.

:func:`quarantine` keeps damaged files together, with a note, in ``quarantine/`` beside the journal. The journal
(tablepi.journal.journal) rebuilds what is damaged from the recovered events. docs/journal.md tells the whole design.
"""

from __future__ import annotations

import contextlib
import enum
import json
import os
import shutil
import sqlite3
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tablepi.journal.eventlog import CopyScan, checksum, copy_path, fsync_dir, read_copy


class Store(enum.Enum):
    """How one of the two copies stands after a start."""

    OK = "ok"  # holds every recovered event, nothing else
    BEHIND = "behind"  # holds the first k of them, intact (a lost -wal, a write the storage refused)
    DAMAGED = "damaged"  # unreadable, wrong checksums, a gap or events that disagree
    FOREIGN_WAL = "foreign_wal"  # its -wal belongs to another database (or an older state of this one)
    MISSING = "missing"


def wal_path(path: Path) -> Path:
    return path.with_name(path.name + "-wal")


def shm_path(path: Path) -> Path:
    return path.with_name(path.name + "-shm")


@dataclass
class DbScan:
    exists: bool = False
    ok: bool = False  # opened, quick_check ok, every row read and checked
    journal_id: str | None = None
    header: dict[str, Any] | None = None
    rows: dict[int, str] = field(default_factory=dict)  # rows whose checksum (or, for old rows, JSON) is right
    bad: int = 0
    error: str = ""
    page_size: int = 0
    healthy: bool = False  # opened, quick_check ok, every row read (checksums aside)
    raw: list[tuple[object, object, object]] = field(default_factory=list)

    def verify(self, journal_id: str) -> None:
        """Check every row's checksum against ``journal_id`` (the id is chosen on evidence, see below)."""
        self.rows, self.bad = {}, 0
        for seq, line, crc in self.raw:
            if _row_ok(journal_id, seq, line, crc):
                assert isinstance(seq, int) and isinstance(line, str)
                self.rows[seq] = line
            else:
                self.bad += 1
        self.ok = self.healthy and self.bad == 0

    def score(self, journal_id: str) -> int:
        return sum(1 for seq, line, crc in self.raw if crc is not None and _row_ok(journal_id, seq, line, crc))


@dataclass
class Recovery:
    """What a start (or ``export``/``doctor``) found in a journal."""

    path: Path
    journal_id: str | None
    header: dict[str, Any] | None
    lines: list[str]
    db: Store
    copy: Store
    db_count: int = 0  # events the database held intact (after dropping a foreign -wal)
    copy_count: int = 0
    beyond: int = 0  # intact events after a gap in both copies: kept in quarantine, not replayed
    notes: list[str] = field(default_factory=list)
    copy_torn: bool = False
    copy_size: int = 0

    @property
    def damaged(self) -> bool:
        """Something was damaged (not merely behind): the screen says so and the files go to quarantine."""
        return self.db in (Store.DAMAGED, Store.FOREIGN_WAL) or self.copy is Store.DAMAGED or self.beyond > 0

    @property
    def complete(self) -> bool:
        """One copy held every event: nothing acknowledged is missing (the database lags the copy by at most the
        one event being written when the power went)."""
        return self.copy is Store.OK or self.db is Store.OK

    def summary(self) -> str:
        """One line for logs, ``doctor`` and ``export``."""
        parts = [f"{len(self.lines)} events recovered", f"database {self.db.value} ({self.db_count} events)",
                 f"copy {self.copy.value} ({self.copy_count} events)"]
        if self.beyond:
            parts.append(f"{self.beyond} events after a gap kept only in quarantine")
        return "; ".join(parts)


# --- reading the SQLite file without touching it ------------------------------------------------------------------


def _scratch_dir() -> str | None:
    """A private folder in RAM if there is one (a full SD card must not stop the check), else the temp folder."""
    shm = Path("/dev/shm")
    if shm.is_dir() and os.access(shm, os.W_OK):
        return str(shm)
    return None


def _page_size(header: bytes) -> int:
    if len(header) < 18:
        return 0
    size = int.from_bytes(header[16:18], "big")
    return 65536 if size == 1 else size


def wal_page_size(path: Path) -> int:
    try:
        with open(path, "rb") as handle:
            head = handle.read(32)
    except OSError:
        return 0
    if len(head) < 32 or int.from_bytes(head[:4], "big") not in (0x377F0682, 0x377F0683):
        return -1
    return int.from_bytes(head[8:12], "big")


def scan_db(path: Path, with_wal: bool, journal_id: str | None = None) -> DbScan:
    """Read the journal database at ``path`` (and its -wal when ``with_wal``) through scratch copies."""
    scan = DbScan()
    if not path.exists():
        return scan
    scan.exists = True
    try:
        with open(path, "rb") as handle:
            scan.page_size = _page_size(handle.read(100))
        with tempfile.TemporaryDirectory(prefix="tablepi-check-", dir=_scratch_dir()) as tmp:
            copy = Path(tmp) / "j.sqlite3"
            shutil.copyfile(path, copy)
            if with_wal and wal_path(path).exists():
                shutil.copyfile(wal_path(path), wal_path(copy))
            _read_db(copy, scan, journal_id)
    except OSError as err:
        scan.error = f"cannot read: {err.strerror or err}"
    return scan


def _read_db(copy: Path, scan: DbScan, journal_id: str | None) -> None:
    try:
        db = sqlite3.connect(str(copy), isolation_level=None)
    except sqlite3.Error as err:
        scan.error = str(err)
        return
    try:
        db.text_factory = bytes
        _read_open_db(db, scan, journal_id)
    finally:
        db.close()


def _text(value: object) -> str | None:
    if isinstance(value, bytes):
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError:
            return None
    return value if isinstance(value, str) else None


def _read_open_db(db: sqlite3.Connection, scan: DbScan, journal_id: str | None) -> None:
    healthy = True
    try:
        result = db.execute("PRAGMA quick_check").fetchall()
        if [_text(r[0]) for r in result] != ["ok"]:
            healthy = False
            scan.error = f"quick_check: {_text(result[0][0]) if result else '?'}"
    except sqlite3.Error as err:
        healthy = False
        scan.error = str(err)
    meta: dict[str, str] = {}
    try:
        for key, value in db.execute("SELECT key, value FROM meta"):
            k, v = _text(key), _text(value)
            if k is not None and v is not None:
                meta[k] = v
    except sqlite3.Error as err:
        healthy = False
        scan.error = scan.error or str(err)
    scan.journal_id = meta.get("id")
    with contextlib.suppress(ValueError, RecursionError):
        header = json.loads(meta.get("header", ""))
        scan.header = header if isinstance(header, dict) else None
    key = journal_id or scan.journal_id or ""
    try:
        columns = {_text(row[1]) for row in db.execute("PRAGMA table_info(events)")}
        select = "SELECT seq, line, crc FROM events" if "crc" in columns else "SELECT seq, line, NULL FROM events"
        rows = list(_rows(db, select))
    except sqlite3.Error as err:
        healthy = False
        scan.error = scan.error or str(err)
        rows = []
    scan.raw = rows
    scan.healthy = healthy
    scan.verify(key)


def _rows(db: sqlite3.Connection, select: str) -> Iterator[tuple[object, object, object]]:
    """Every row; where a damaged page stops the scan, row by row from there on."""
    seen: set[object] = set()
    try:
        for seq, line, crc in db.execute(select + " ORDER BY seq"):
            seen.add(seq)
            yield seq, _text(line), crc
        return
    except sqlite3.Error:
        pass
    misses, seq = 0, 1
    while misses < 200:
        if seq not in seen:
            try:
                row = db.execute(select + " WHERE seq = ?", (seq,)).fetchone()
            except sqlite3.Error:
                row = None
            if row is None:
                misses += 1
            else:
                misses = 0
                yield row[0], _text(row[1]), row[2]
        else:
            misses = 0
        seq += 1
    raise sqlite3.DatabaseError("rows unreadable")


def _row_ok(journal_id: str, seq: object, line: object, crc: object) -> bool:
    if isinstance(seq, bool) or not isinstance(seq, int) or seq < 1 or not isinstance(line, str):
        return False
    if crc is None:  # written before rows had checksums: accept a JSON object
        try:
            return isinstance(json.loads(line), dict)
        except (ValueError, RecursionError):
            return False
    return isinstance(crc, int) and crc == checksum(journal_id, seq, line)


# --- putting it together ------------------------------------------------------------------------------------------


def _wal_fits(full: DbScan, alone: DbScan, copy: CopyScan, path: Path) -> str:
    """Why the -wal does not belong to the database ("" if it does)."""
    wal_size = wal_page_size(wal_path(path))
    if wal_size == -1:
        return "the -wal is not a SQLite write-ahead log"
    if alone.page_size and wal_size and wal_size != alone.page_size:
        return f"the -wal has pages of {wal_size} bytes, the database {alone.page_size}"
    if alone.journal_id and full.journal_id != alone.journal_id:
        return "the -wal holds another journal's identity"
    if not full.ok and alone.ok:
        return f"with the -wal the database is damaged ({full.error or f'{full.bad} bad rows'})"
    for seq, line in alone.rows.items():
        if full.rows.get(seq) != line:
            return f"the -wal changes or removes event {seq} (a journal only grows)"
    for seq, line in full.rows.items():
        if seq in copy.lines and copy.lines[seq] != line:
            return f"the -wal's event {seq} differs from the copy's"
    return ""


def inspect_journal(path: str | Path) -> Recovery:
    """Read the journal at ``path`` and its copy; change nothing. Never raises for damage."""
    path = Path(path)
    has_wal = wal_path(path).exists() and wal_path(path).stat().st_size > 0
    alone = scan_db(path, with_wal=False)
    full = scan_db(path, with_wal=True) if has_wal else alone
    own = read_copy(copy_path(path))
    # Which journal is this? The copy's line 0 is checksummed, the database's meta row is not (a flipped bit there
    # must not make every checksum fail): the id under which most rows and lines check out, the copy's on a tie.
    candidates = list(dict.fromkeys(i for i in (own.journal_id, alone.journal_id, full.journal_id) if i))

    def score(jid: str) -> int:
        return alone.score(jid) + (full.score(jid) if full is not alone else 0) + len(read_copy(
            copy_path(path), jid).lines)

    journal_id = max(candidates, key=score) if len(candidates) > 1 else (candidates[0] if candidates else None)
    if journal_id is not None:
        alone.verify(journal_id)
        if full is not alone:
            full.verify(journal_id)
    copy = read_copy(copy_path(path), journal_id) if journal_id else own
    notes: list[str] = []
    db, foreign = full, ""
    if has_wal:
        foreign = _wal_fits(full, alone, copy, path)
        if foreign:
            db = alone
            notes.append(f"{wal_path(path).name} does not belong to {path.name}: {foreign}; it was not applied")
    # The copy's header line is checksummed, the database's meta row is not: the copy's wins when it is this
    # journal's, and a database whose header differs from it is damaged.
    copy_header = copy.header if own.journal_id == journal_id else None
    header = copy_header or db.header or full.header
    lines, conflicts = _merge(copy.lines, db.rows)
    if conflicts:
        notes.append(f"{conflicts} events differ between the two copies: the checksummed copy's were kept")
    beyond = len({s for s in set(copy.lines) | set(db.rows) if s > len(lines) + 1})
    rec = Recovery(path, journal_id, header, lines, _db_state(db, lines, journal_id),
                   _copy_state(copy, lines, journal_id),
                   db_count=_run(db.rows, lines), copy_count=_run(copy.lines, lines), beyond=beyond, notes=notes,
                   copy_torn=copy.torn, copy_size=copy.size)
    if not path.exists() and (wal_path(path).exists() or shm_path(path).exists()):
        foreign = f"{wal_path(path).name} lies there without its database"
        notes.append(f"{foreign}; it was not applied")
    if foreign:
        rec.db = Store.FOREIGN_WAL
    elif copy_header is not None and db.header is not None and db.header != copy_header:
        rec.db = Store.DAMAGED
        notes.append(f"{path.name}: its header differs from the copy's (damaged)")
    if db.exists and not db.ok:
        notes.append(f"{path.name}: {db.error or f'{db.bad} damaged rows'}")
    if copy.exists and rec.copy is Store.DAMAGED:
        notes.append(f"{copy_path(path).name}: {copy.error or f'{copy.bad} damaged lines'}")
    return rec


def _merge(copy: dict[int, str], db: dict[int, str]) -> tuple[list[str], int]:
    lines: list[str] = []
    conflicts = 0
    seq = 1
    while True:
        a, b = copy.get(seq), db.get(seq)
        if a is None and b is None:
            return lines, conflicts
        if a is not None and b is not None and a != b:
            conflicts += 1
        lines.append(a if a is not None else b)  # type: ignore[arg-type]
        seq += 1


def _run(rows: dict[int, str], lines: list[str]) -> int:
    """How many of ``lines`` (from the first) ``rows`` holds, equal."""
    count = 0
    while count < len(lines) and rows.get(count + 1) == lines[count]:
        count += 1
    return count


def _db_state(db: DbScan, lines: list[str], journal_id: str | None) -> Store:
    if not db.exists:
        return Store.MISSING
    if db.journal_id is not None and journal_id is not None and db.journal_id != journal_id:
        return Store.DAMAGED  # its identity is not the journal's: damaged meta, or another journal's file
    if not db.ok or (db.journal_id is None and db.rows and db.header is None):
        return Store.DAMAGED
    run = _run(db.rows, lines)
    if len(db.rows) != run:
        return Store.DAMAGED
    return Store.OK if run == len(lines) else Store.BEHIND


def _copy_state(copy: CopyScan, lines: list[str], journal_id: str | None) -> Store:
    if not copy.exists:
        return Store.MISSING
    if copy.bad or copy.error or copy.header is None:
        return Store.DAMAGED
    run = _run(copy.lines, lines)
    if len(copy.lines) != run:
        return Store.DAMAGED
    return Store.OK if run == len(lines) else Store.DAMAGED  # the copy is written first: behind means cut


# --- keeping the damaged files ------------------------------------------------------------------------------------


def quarantine_dir(path: Path) -> Path:
    """A new folder ``quarantine/<journal>-<time>/`` beside the journal."""
    base = path.parent / "quarantine"
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
    target = base / f"{path.name}-{stamp}"
    counter = 1
    while target.exists():
        counter += 1
        target = base / f"{path.name}-{stamp}-{counter}"
    target.mkdir(parents=True)
    return target


def keep(folder: Path, files: list[Path], *, move: bool) -> list[str]:
    """Put ``files`` into ``folder``: moved (a rename: no space needed) or, for a file still in use, hard-linked
    (else copied). Returns the names kept."""
    kept = []
    for file in files:
        if not file.exists():
            continue
        target = folder / file.name
        if move:
            os.replace(file, target)
        else:
            try:
                os.link(file, target)
            except OSError:
                shutil.copyfile(file, target)
        kept.append(file.name)
    fsync_dir(folder)
    with contextlib.suppress(OSError):
        fsync_dir(files[0].parent)
    return kept


def write_note(folder: Path, rec: Recovery, kept: list[str]) -> None:
    """NOTE.txt: what was found, what was recovered and from where, in words; errors are ignored (a full card
    must not stop the table for want of a note)."""
    text = "\n".join([
        f"tablepi quarantined these files of {rec.path} on {time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime())}.",
        "They are kept as they were found, for a bug report or a manual rescue; the table no longer uses them.",
        "",
        f"files: {', '.join(sorted(set(kept))) or 'none'}",
        f"found: {rec.summary()}",
        *[f"- {note}" for note in rec.notes],
        "",
        "The match went on from the recovered events. `tablepi export --journal FILE` reads any of these files;",
        "docs/journal.md explains the journal's two copies and what happens on damage.",
        "",
    ])
    with contextlib.suppress(OSError):
        (folder / "NOTE.txt").write_text(text, encoding="utf-8")
