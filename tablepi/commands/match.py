"""``tablepi match``: begin a new match on the running table (its *new match* button, for a table without a screen
or buttons), through the control socket."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

HELP = "begin a new match on the running table (the new match button, through its control socket)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", type=Path, default=Path("/etc/tablepi/tablepi.toml"),
                        help="configuration file: where the table's control socket is (default: %(default)s)")


def run(args: argparse.Namespace) -> int:
    from tablepi.config import load_config
    from tablepi.service_socket import ServiceUnreachable, ask

    config = load_config(args.config)
    try:
        reply = ask(config.control, "new_match")
    except ServiceUnreachable as err:
        print(f"tablepi match: no running table answers on {err.path} ({err.reason.value})", file=sys.stderr)
        return 2
    if not reply.get("ok"):
        print(f"tablepi match: {reply.get('error', 'the table refused')}", file=sys.stderr)
        return 2
    print(reply.get("say", "a new match begun"))
    return 0
