"""The journal damage campaign at any size: how often the table starts, and with how much of the match.

    .venv/bin/python bench/bench_journal_damage.py [--per-kind 2000] [--seed 1] [--bases 6]

Makes mid-match journals, damages copies of them each way of tests/journal/damage.py (cut, bad page, flipped
bytes, stale / foreign / missing -wal), starts the table on every one in-process as the app does, and prints per
kind: tried, started, events recovered / events owed (every event when one file was damaged; the copy's intact
prefix when two were), cases short of that, cases not an exact prefix, and tracebacks (must be 0).
The CI test (tests/journal/test_damage.py) runs 300 per kind.
"""

from __future__ import annotations

import argparse
import logging
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.journal.damage import KINDS, campaign


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-kind", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--bases", type=int, default=6)
    args = parser.parse_args(argv)
    logging.disable(logging.CRITICAL)  # the recoveries log a line each
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="tablepi-damage-") as tmp:
        outcomes = campaign(Path(tmp), args.per_kind, args.seed, args.bases)
    seconds = time.perf_counter() - start
    rows: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for o in outcomes:
        for key in (o.kind, "all"):
            row = rows[key]
            row["tried"] += 1
            row["started"] += o.started
            row["recovered"] += o.recovered
            row["owed"] += o.expected
            row["short"] += o.recovered < o.expected
            row["inexact"] += o.started and not o.exact
            row["tracebacks"] += not o.started
    print(f"{'kind':<12} {'tried':>6} {'started':>8} {'events recovered / owed':>24} {'short':>6} "
          f"{'inexact':>8} {'tracebacks':>10}")
    for kind in (*KINDS, "all"):
        r = rows[kind]
        print(f"{kind:<12} {r['tried']:>6} {r['started']:>8} {r['recovered']:>12} / {r['owed']:<10} {r['short']:>6} "
              f"{r['inexact']:>8} {r['tracebacks']:>10}")
    print(f"{len(outcomes)} journals in {seconds:.1f} s (seed {args.seed})")
    bad = [o for o in outcomes if not o.started or not o.exact or o.recovered < o.expected]
    for o in bad[:10]:
        print("  ", o)
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
