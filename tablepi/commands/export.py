"""``tablepi export [--journal PATH] [OUT]``: write the table's journal as a game record (docs/records.md).

To file a bug, export and attach the record; ``tablepi replay`` plays it back exactly.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

from tablepi.errors import RecordError

HELP = "write the journal as a game record (JSON Lines) to a file or standard output"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from tablepi.journal import DEFAULT_JOURNAL

    parser.add_argument("--journal", default=None, help=f"the journal file (default: {DEFAULT_JOURNAL})")
    parser.add_argument("out", nargs="?", default="-", help="the record to write (default: standard output)")


def run(args: argparse.Namespace) -> int:
    from tablepi.journal import DEFAULT_JOURNAL, Journal

    path = Path(args.journal) if args.journal else DEFAULT_JOURNAL
    if not path.exists():
        raise RecordError(f"{path}: no journal there (give --journal PATH)")
    with Journal(path) as journal:
        journal.events()  # check every row first: a damaged journal is reported, not half exported
        if args.out == "-":
            count = journal.export(sys.stdout)
        else:
            out = Path(args.out)
            fd, tmp = tempfile.mkstemp(prefix=out.name + ".", dir=out.parent or ".")
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as handle:
                    count = journal.export(handle)
                os.replace(tmp, out)
            except BaseException:
                os.unlink(tmp)
                raise
            print(f"{count} events written to {out}", file=sys.stderr)
    return 0
