"""Finished matches, kept compressed: ``archive/journal-<time>-<journal id>.jsonl.gz``, the newest ``keep``.

Each file is a game record (docs/records.md) compressed with gzip, so ``tablepi replay`` and ``tablepi export``
read it as it is. A match takes a few kilobytes this way (its live journal about 70 KB); with the default limit of
1000 matches the archive stays under about 10 MB. Older matches beyond the limit are deleted, oldest first.
Archives written by older versions (``journal-*.sqlite3``) count towards the limit and stay readable.
"""

from __future__ import annotations

import contextlib
import gzip
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

from tablepi.journal.eventlog import fsync_dir
from tablepi.journal.record import RecordHeader, record_lines

#: How many finished matches are kept unless ``[table] keep_matches`` says otherwise.
DEFAULT_KEEP = 1000

_PATTERNS = ("*.jsonl.gz", "*.sqlite3")


def write_match(folder: Path, stem: str, journal_id: str, header: RecordHeader, lines: list[str]) -> Path:
    """Write one finished journal as a compressed record, atomically; the same journal always lands in the same
    file (a rotation repeated after a power cut overwrites it instead of archiving the match twice)."""
    folder.mkdir(parents=True, exist_ok=True)
    tag = journal_id  # the feed finds an archived journal by its id (tablepi.feed.outbox)
    existing = sorted(folder.glob(f"{stem}-*-{tag}.jsonl.gz"))
    if existing:
        target = existing[0]
    else:
        now = time.time_ns()
        stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime(now // 10**9)) + f".{now % 10**9:09d}"  # names sort in time
        target = folder / f"{stem}-{stamp}-{tag}.jsonl.gz"
    text = "\n".join([next(record_lines(header, ())), *lines]) + "\n"

    def packed(raw: BinaryIO) -> None:
        with gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as out:
            out.write(text.encode("utf-8", "surrogatepass"))

    write_atomically(target, packed)
    return target


def write_atomically(target: Path, write: Callable[[BinaryIO], object]) -> None:
    """Write ``target`` through ``write`` into a temporary file beside it, synced, then renamed over it and the
    folder synced: a power cut leaves the old file or the new one, never a part."""
    tmp = target.with_name(target.name + ".tmp")
    try:
        with open(tmp, "wb") as raw:
            write(raw)
            raw.flush()
            os.fsync(raw.fileno())
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    fsync_dir(target.parent)


def matches(folder: Path) -> list[Path]:
    """The archived matches, oldest first."""
    if not folder.is_dir():
        return []
    found = {p for pattern in _PATTERNS for p in folder.glob(pattern) if p.is_file()}
    return sorted(found, key=lambda p: (p.stat().st_mtime, p.name))


def prune(folder: Path, keep: int) -> list[Path]:
    """Delete the oldest archived matches beyond ``keep``; returns what was deleted."""
    old = matches(folder)
    doomed = old[: max(0, len(old) - keep)]
    for path in doomed:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
    return doomed


def journal_id_of(path: Path) -> str:
    """The journal id an archived match's file name carries ("" for an older ``.sqlite3`` archive)."""
    name = path.name
    if not name.endswith(".jsonl.gz"):
        return ""
    return name.removesuffix(".jsonl.gz").rsplit("-", 1)[-1]


def read_lines(path: Path) -> tuple[str, list[str]]:
    """(header line, event lines) of an archived match."""
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        lines = handle.read().splitlines()
    if not lines:
        raise ValueError(f"{path}: empty")
    return lines[0], lines[1:]
