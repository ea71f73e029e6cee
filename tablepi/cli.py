"""The ``tablepi`` command: one subcommand per module in :mod:`tablepi.commands`.

Each module there defines ``HELP`` (one line), ``add_arguments(parser)`` and ``run(args) -> int``, and imports
anything heavy (pygame, pyserial, pyscard) inside ``run`` so that ``tablepi --help`` and every other subcommand
work when an optional part is missing.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
from collections.abc import Sequence

from tablepi import __version__, commands
from tablepi.errors import TablepiError


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tablepi",
        description="A bar table that referees and scores Konter a Matt with RFID-tagged cards.",
    )
    parser.add_argument("--version", action="version", version=f"tablepi {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"tablepi.commands.{info.name}")
        command = sub.add_parser(info.name, help=module.HELP, description=module.HELP)
        module.add_arguments(command)
        command.set_defaults(_run=module.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args._run(args))
    except TablepiError as error:
        print(f"tablepi {args.command}: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
