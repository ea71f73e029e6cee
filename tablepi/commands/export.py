"""``tablepi export [--journal PATH] [OUT]``: write the table's journal as a game record (docs/records.md).

To file a bug, export and attach the record; ``tablepi replay`` plays it back exactly. Every stored line is
written as it is, a damaged one included (it is named on standard error): an export never drops an event.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

from tablepi.errors import OutputError, RecordError
from tablepi.journal import Journal

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
    if not path.exists():
        raise RecordError(f"{path}: no journal there (give --journal PATH)")
    with Journal(path) as journal:
        damaged = ""
        try:
            journal.events()
        except RecordError as err:
            damaged = str(err)
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
        print(f"tablepi export: warning: {damaged} (exported as stored)", file=sys.stderr)
        return 1
    return 0


def _write(journal: Journal, out: Path) -> int:
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
