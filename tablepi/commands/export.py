"""``tablepi export [--journal PATH] [--evening | --match N] [OUT]``: write the evening as a game record.

The evening (:mod:`tablepi.journal.evening`) is every match played since the table was switched on, or since
midnight: the matches of it in ``archive/`` beside the journal and the journal's own, as one record whose match
numbers are the screen's (``--evening``, the default). ``--match N`` writes match N of the evening alone: the
journal that holds it, as it was kept. To file a bug, export and attach the record; ``tablepi replay`` plays it
back exactly. The journal is only read, never changed, and no lock is taken, so an export works while the table
runs and on a damaged journal: every
intact event is written, in order (docs/journal.md), and what was damaged is said on standard error (exit status
1). A file of the archive (``archive/*.jsonl.gz``) or of the quarantine is exported the same way.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Protocol, TextIO

from tablepi.errors import OutputError, RecordError
from tablepi.journal.evening import tonight
from tablepi.journal.journal import read_journal
from tablepi.journal.record import RecordHeader, load_record, write_record
from tablepi.table.events import TableEvent
from tablepi.table.machine import Table


class _Exportable(Protocol):
    def export(self, out: TextIO) -> int: ...

HELP = "write the journal as a game record (JSON Lines) to a file or standard output"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--journal", default=None,
                        help="the journal file (default: the config's table.journal, /var/lib/tablepi/journal.sqlite3)")
    parser.add_argument("--config", type=Path, default=Path("/etc/tablepi/tablepi.toml"),
                        help="configuration file naming the journal, used when it exists (default: %(default)s)")
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--evening", action="store_true",
                       help="every match of the evening, the archived ones included (the default)")
    which.add_argument("--match", type=int, default=None, metavar="N",
                       help="match N of the evening alone, numbered as on the screen")
    parser.add_argument("out", nargs="?", default="-", help="the record to write (default: standard output)")


def run(args: argparse.Namespace) -> int:
    from tablepi.config import DEFAULT_JOURNAL, load_config

    if args.journal:
        path = Path(args.journal)
    elif args.config.exists():
        path = load_config(args.config).journal
    else:
        path = DEFAULT_JOURNAL
    if not path.exists() and not Path(str(path) + ".events").exists():
        raise RecordError(f"{path}: no journal there (give --journal PATH)")
    match = getattr(args, "match", None)
    if not path.name.endswith((".jsonl.gz", ".jsonl")):
        parts = tonight(path.parent / "archive")
        if match is not None or parts:
            return _evening(args, path, parts, match)
    journal: _Exportable
    damaged = ""
    salvaged: list[str] = []
    if path.name.endswith((".jsonl.gz", ".jsonl")):  # an archived match: already a record
        record = load_record(path, salvaged)
        journal = _Record(record.header, record.events)
    else:
        view = read_journal(path)
        journal = view
        rec = view.recovery
        if rec.damaged or rec.notes:
            damaged = "; ".join([rec.summary(), *rec.notes])
        try:
            events = view.events(salvaged)
        except RecordError as err:
            damaged = "; ".join(filter(None, [damaged, str(err)]))
        else:
            if salvaged:  # a name an earlier tablepi journaled: written as the table reads it, so the record reads
                journal = _Record(view.header, tuple(events))
    for note in salvaged:
        print(f"tablepi export: warning: {note}", file=sys.stderr)
    return _finish(args, journal, damaged)


def _evening(args: argparse.Namespace, path: Path, parts: list[Path], match: int | None) -> int:
    """The evening's matches (or match ``match`` alone): the archived ones, then the journal's."""
    notes: list[str] = []
    pieces: list[tuple[Path, RecordHeader, tuple[TableEvent, ...]]] = []
    for part in parts:
        record = load_record(part, notes)
        pieces.append((part, record.header, record.events))
    view = read_journal(path)
    damaged = "; ".join([view.recovery.summary(), *view.recovery.notes]) if view.recovery.damaged else ""
    try:
        pieces.append((path, view.header, tuple(view.events(notes))))
    except RecordError as err:
        damaged = "; ".join(filter(None, [damaged, str(err)]))
        pieces.append((path, view.header, ()))
    for note in notes:
        print(f"tablepi export: warning: {note}", file=sys.stderr)
    if match is not None:
        held = _holding(pieces, match)
        pieces = [held]
        if held[0] == path and not notes and not damaged:
            view_export: _Exportable = view  # the journal itself, line for line
            return _finish(args, view_export, damaged)
    header, events = _joined(pieces)
    return _finish(args, _Record(header, events), damaged)


def _holding(pieces: list[tuple[Path, RecordHeader, tuple[TableEvent, ...]]],
             match: int) -> tuple[Path, RecordHeader, tuple[TableEvent, ...]]:
    """The journal holding match ``match`` of the evening (an archived journal holds its matches over; the
    last, begun by the event that closed it, goes on in the next)."""
    first = 1
    for i, (part, header, events) in enumerate(pieces):
        played = len(Table.replay(events, header.house_rules, header.dealer, header.table).matches)
        held = played if i == len(pieces) - 1 else played - 1
        if first <= match < first + held:
            if held > 1:
                print(f"tablepi export: {part} holds matches {first}-{first + held - 1}: written whole",
                      file=sys.stderr)
            return pieces[i]
        first += held
    raise RecordError(f"there is no match {match} this evening (matches 1-{first - 1})")


def _joined(pieces: list[tuple[Path, RecordHeader, tuple[TableEvent, ...]]]
            ) -> tuple[RecordHeader, tuple[TableEvent, ...]]:
    """The journals of the evening as one record: one table plays them all on (the event that closed each one
    began the next match), each journal's clock continued from the last."""
    header = pieces[0][1]
    events: list[TableEvent] = []
    for part, h, more in pieces:
        if (h.house_rules, h.table) != (header.house_rules, header.table):
            raise RecordError(f"{part}: the house rules or table settings changed from this match on; one record "
                              "cannot hold both: export each with --match N")
        shift = max(0.0, (events[-1].time if events else 0.0) - (more[0].time if more else 0.0))
        events.extend(replace(event, time=event.time + shift) for event in more)
    return header, tuple(events)


def _finish(args: argparse.Namespace, journal: _Exportable, damaged: str) -> int:
    if args.out == "-":
        journal.export(sys.stdout)
    else:
        out = Path(args.out)
        try:
            count = _write(journal, out)
        except OSError as err:
            raise OutputError(f"{out}: cannot write the record: {err.strerror or err}", path=out) from None
        print(f"tablepi export: {count} events written to {out}", file=sys.stderr)
    if damaged:
        print(f"tablepi export: warning: the journal is damaged: {damaged} (every intact event was exported)",
              file=sys.stderr)
        return 1
    return 0


class _Record:
    def __init__(self, header: RecordHeader, events: tuple[TableEvent, ...]) -> None:
        self.header, self.events = header, events

    def export(self, out: TextIO) -> int:
        return write_record(out, self.header, self.events)


def _write(journal: _Exportable, out: Path) -> int:
    """A regular file (or a new one) is replaced atomically; anything else (a pipe, /dev/stdout) is written into,
    never replaced: a device node must stay a device node."""
    if out.exists() and not out.is_file():
        with out.open("w", encoding="utf-8") as handle:
            return journal.export(handle)
    fd, tmp = tempfile.mkstemp(prefix=out.name + ".", dir=str(out.parent))
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            count = journal.export(handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, out)
    except BaseException:
        os.unlink(tmp)
        raise
    return count
