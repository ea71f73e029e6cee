"""The journal's second copy: a checksummed, append-only text file of the same events, beside the SQLite file.

``journal.sqlite3.events`` holds one line per event, each with its own checksum::

    0 5f0c2a11 {"id": "3b9d...", "header": {"format": "tablepi-record", "version": 1, ...}}
    1 9a6e04bd {"type": "place", "t": 0.0, "seat": "W", "card": "AH"}
    2 1c7730f2 {"type": "lift", "t": 0.4, "seat": "W", "card": "AH"}

The checksum of line ``seq`` is the CRC-32 of ``"{journal id}:{seq}:{text}"`` (line 0: of ``":0:{text}"``), so a
damaged line, a line cut short by a power cut, or a line of another journal's copy is recognised as such and never
taken for an event. SQLite's pages and this file fail independently (a torn page, a lost ``-wal`` or a cut file hit
one of them), and each one can rebuild the other: see docs/journal.md.

Lines are appended with ``write`` + ``fsync`` before the SQLite row is written, so this copy is never behind the
database by more than what the storage refused.
"""

from __future__ import annotations

import contextlib
import json
import os
import zlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


def copy_path(journal: Path) -> Path:
    """Where the second copy of ``journal`` lives."""
    return journal.with_name(journal.name + ".events")


def checksum(journal_id: str, seq: int, text: str) -> int:
    return zlib.crc32(f"{journal_id if seq else ''}:{seq}:{text}".encode("utf-8", "surrogatepass"))


def format_line(journal_id: str, seq: int, text: str) -> bytes:
    return f"{seq} {checksum(journal_id, seq, text):08x} {text}\n".encode("utf-8", "surrogatepass")


def head_text(journal_id: str, header: dict[str, Any]) -> str:
    return json.dumps({"id": journal_id, "header": header}, ensure_ascii=False, separators=(", ", ": "))


@dataclass
class CopyScan:
    """What a read of the copy found. ``lines`` holds only lines whose checksum is right."""

    exists: bool = False
    journal_id: str | None = None
    header: dict[str, Any] | None = None
    lines: dict[int, str] = field(default_factory=dict)
    bad: int = 0  # lines whose checksum, number or text is wrong (damage, or another journal's lines)
    torn: bool = False  # the last line has no newline: a write cut short (normal after a power cut)
    size: int = 0
    error: str = ""

    @property
    def last(self) -> int:
        """The highest seq of the unbroken run 1, 2, ... of intact lines."""
        seq = 0
        while seq + 1 in self.lines:
            seq += 1
        return seq


def _split(raw: bytes) -> tuple[int, str, str] | None:
    try:
        text = raw.decode("utf-8")
        seq_text, crc_text, body = text.split(" ", 2)
        if not (seq_text.isascii() and seq_text.isdigit() and len(seq_text) <= 12 and len(crc_text) == 8):
            return None
        return int(seq_text), crc_text, body
    except (UnicodeDecodeError, ValueError):
        return None


def read_copy(path: Path, known_id: str | None = None) -> CopyScan:
    """Read the copy at ``path`` without changing it. ``known_id`` (from the database) checks lines when the
    copy's own line 0 is lost, and unmasks another journal's copy."""
    scan = CopyScan()
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return scan
    except OSError as err:
        scan.exists, scan.error = True, f"cannot read {path.name}: {err.strerror or err}"
        return scan
    scan.exists, scan.size = True, len(data)
    raw_lines = data.split(b"\n")
    if raw_lines and raw_lines[-1] == b"":
        raw_lines.pop()
    elif raw_lines:
        scan.torn = True
    parsed = [_split(raw) for raw in raw_lines]
    # Line 0 first: it names the journal whose id every other checksum includes.
    own_id: str | None = None
    for item in parsed:
        if item is not None and item[0] == 0 and f"{checksum('', 0, item[2]):08x}" == item[1]:
            try:
                head = json.loads(item[2])
                own_id, header = str(head["id"]), head["header"]
            except (ValueError, KeyError, TypeError, RecursionError):
                continue
            if isinstance(header, dict):
                scan.header = header
            break
    scan.journal_id = known_id or own_id
    journal_id = scan.journal_id or ""
    for number, item in enumerate(parsed):
        torn_tail = scan.torn and number == len(parsed) - 1
        if item is None:
            scan.bad += 0 if torn_tail else 1
            continue
        seq, crc, text = item
        if seq == 0:
            continue
        if f"{checksum(journal_id, seq, text):08x}" != crc or (seq in scan.lines and scan.lines[seq] != text):
            scan.bad += 0 if torn_tail else 1
            continue
        scan.lines[seq] = text
    if known_id and own_id and known_id != own_id:
        scan.bad += 1  # another journal's copy: its lines failed the checks above
    return scan


class CopyWriter:
    """Appends lines to the copy, fsynced; after a failed write the file is cut back to its last whole line."""

    def __init__(self, path: Path, journal_id: str, good_size: int) -> None:
        self.path = path
        self.journal_id = journal_id
        self._fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC, 0o640)
        self._good = good_size
        self._dirty = os.fstat(self._fd).st_size != good_size

    def append(self, seq: int, text: str) -> None:
        """Raises OSError when the storage refuses; the file then still ends at its last whole line (or is cut
        back to it before the next append)."""
        if self._dirty:
            os.ftruncate(self._fd, self._good)
            self._dirty = False
        data = format_line(self.journal_id, seq, text)
        try:
            written = 0
            while written < len(data):
                written += os.write(self._fd, data[written:])
            os.fsync(self._fd)
        except OSError:
            self._dirty = True
            with contextlib.suppress(OSError):
                os.ftruncate(self._fd, self._good)
                self._dirty = False
            raise
        self._good += len(data)

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1


def write_copy(path: Path, journal_id: str, header: dict[str, Any], lines: Iterable[tuple[int, str]]) -> int:
    """Write a whole copy atomically (temporary file, fsync, rename, fsync of the folder); returns its size."""
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o640)
    size = 0
    try:
        chunks = [format_line(journal_id, 0, head_text(journal_id, header))]
        chunks.extend(format_line(journal_id, seq, text) for seq, text in lines)
        data = b"".join(chunks)
        written = 0
        while written < len(data):
            written += os.write(fd, data[written:])
        os.fsync(fd)
        size = len(data)
    except BaseException:
        os.close(fd)
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    os.close(fd)
    os.replace(tmp, path)
    fsync_dir(path.parent)
    return size


def fsync_dir(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
