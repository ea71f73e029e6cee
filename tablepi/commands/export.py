"""``tablepi export [--journal PATH] [OUT]``: write the table's journal as a game record (docs/records.md).

To file a bug, export and attach the record; ``tablepi replay`` plays it back exactly. The journal is only read,
never changed, and no lock is taken, so an export works while the table runs and on a damaged journal: every
intact event is written, in order (docs/journal.md), and what was damaged is said on standard error (exit status
1). A file of the archive (``archive/*.jsonl.gz``) or of the quarantine is exported the same way.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path
from typing import Protocol, TextIO

from tablepi.errors import OutputError, RecordError
from tablepi.journal import read_journal
from tablepi.record import RecordHeader, load_record, write_record
from tablepi.table.events import TableEvent


class _Exportable(Protocol):
    def export(self, out: TextIO) -> int: ...

HELP = "write the journal as a game record (JSON Lines) to a file or standard output"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--journal", default=None,
                        help="the journal file (default: the config's table.journal, /var/lib/tablepi/journal.sqlite3)")
    parser.add_argument("--config", type=Path, default=Path("/etc/tablepi/tablepi.toml"),
                        help="configuration file naming the journal, used when it exists (default: %(default)s)")
    parser.add_argument("out", nargs="?", default="-", help="the record to write (default: standard output)")


def run(args: argparse.Namespace) -> int:
    from tablepi.journal import DEFAULT_JOURNAL

    if args.journal:
        path = Path(args.journal)
    elif args.config.exists():
        from tablepi.config import load_config

        path = load_config(args.config).journal
    else:
        path = DEFAULT_JOURNAL
    if not path.exists() and not Path(str(path) + ".events").exists():
        raise RecordError(f"{path}: no journal there (give --journal PATH)")
    journal: _Exportable
    damaged = ""
    if path.name.endswith((".jsonl.gz", ".jsonl")):  # an archived match: already a record
        record = load_record(path)
        journal = _Record(record.header, record.events)
    else:
        view = read_journal(path)
        journal = view
        rec = view.recovery
        if rec.damaged or rec.notes:
            damaged = "; ".join([rec.summary(), *rec.notes])
        try:
            view.events()
        except RecordError as err:
            damaged = "; ".join(filter(None, [damaged, str(err)]))
    if args.out == "-":
        count = journal.export(sys.stdout)
    else:
        out = Path(args.out)
        try:
            count = _write(journal, out)
        except OSError as err:
            raise OutputError(f"{out}: cannot write the record: {err.strerror or err}") from None
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
