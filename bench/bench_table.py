"""How fast the table referees: events per second through table + journal, and the latency of one placed card.

Run: ``python bench/bench_table.py [--matches N] [--journal-dir DIR]``. It plays scripted matches (with
mistakes) through :class:`tablepi.journal.journal.JournaledTable` on a real SQLite journal (WAL, synchronous=FULL, so
every event is fsynced), and prints:

- events/s through table + journal, and through the table alone (no disk);
- p50 / p99 / max of one ``CardPlaced`` from the call to the new state, journal write included.

Put the journal on the disk the table will use (the Pi's SD card) to measure what players will feel.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from tablepi.journal.journal import JournaledTable
from tablepi.journal.record import RecordHeader
from tablepi.table import CardPlaced, Table
from tablepi.table.simulate import simulate_match


def _percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=3, help="scripted matches to play (default 3)")
    parser.add_argument("--journal-dir", default=None, help="where to put the journal (default: a temp dir)")
    args = parser.parse_args()

    scripts = [simulate_match(seed, mistakes=True) for seed in range(args.matches)]
    total = sum(len(s.events) for s in scripts)

    start = time.perf_counter()
    for script in scripts:
        Table.replay(script.events, script.rules, script.dealer, script.config)
    pure = time.perf_counter() - start

    latencies: list[float] = []
    journaled = 0
    with tempfile.TemporaryDirectory(dir=args.journal_dir) as tmp:
        start = time.perf_counter()
        for number, script in enumerate(scripts):
            header = RecordHeader(script.rules, script.dealer, script.config)
            with JournaledTable(Path(tmp) / f"journal-{number}.sqlite3", header) as session:
                for event in script.events:
                    began = time.perf_counter()
                    session.feed(event)
                    if isinstance(event, CardPlaced):
                        latencies.append(time.perf_counter() - began)
                journaled += len(session.journal)
        with_journal = time.perf_counter() - start
        # Resume: how long a restart takes to replay a whole match's journal.
        header = RecordHeader(scripts[0].rules, scripts[0].dealer, scripts[0].config)
        start = time.perf_counter()
        with JournaledTable(Path(tmp) / "journal-0.sqlite3", header) as session:
            assert session.state.match.winner is not None
        resume = time.perf_counter() - start

    ms = [x * 1000 for x in latencies]
    print(f"scripted matches:            {args.matches} ({total} events, {journaled} journaled)")
    print(f"table alone:                 {total / pure:,.0f} events/s")
    print(f"table + journal (fsync):     {total / with_journal:,.0f} events/s")
    print(f"placed card -> new state:    p50 {statistics.median(ms):.2f} ms, p99 {_percentile(ms, 0.99):.2f} ms, "
          f"max {max(ms):.2f} ms  (journal write included, n={len(ms)})")
    print(f"restart (replay one match):  {resume * 1000:.0f} ms for {len(scripts[0].events)} events")


if __name__ == "__main__":
    main()
