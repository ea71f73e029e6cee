"""``tablepi doctor``: check readers, deck, display, GPIO, permissions and journal; say how to fix each problem."""

from __future__ import annotations

import argparse
from pathlib import Path

HELP = "check readers, deck, display, GPIO, permissions and journal, and say how to fix each problem"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", type=Path, default=Path("/etc/tablepi/tablepi.toml"),
                        help="configuration file (default: %(default)s)")


def run(args: argparse.Namespace) -> int:
    from tablepi.app.doctor import Status, diagnose
    from tablepi.config import load_config

    findings = diagnose(load_config(args.config))
    for finding in findings:
        print("\n".join(finding.lines()))
    failed = sum(f.status is Status.FAIL for f in findings)
    warned = sum(f.status is Status.WARN for f in findings)
    print(f"doctor: {failed} problem(s), {warned} warning(s)")
    return 1 if failed else 0
