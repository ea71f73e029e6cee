"""Benchmark of the evening at start: a table restarted after ``--matches`` matches archived tonight.

Run: ``.venv/bin/python bench/bench_evening.py [--matches 10] [--runs 5]``. Fixed seeds (the simulator's matches,
one per seed). Prints min / median / max over ``--runs`` of:

- the start of the table (``JournaledTable``: the journal's match and every archived match of the evening read
  and replayed once);
- the evening alone (``EveningBook.before_current``: the archived matches read and replayed);
- the same start with the archive left out (the journal's match only), and the ratio of the two, measured in the
  same run, so the ratio holds on a busy machine.

What it leaves out: the screen and the readers (``tablepi run`` starts them after this), the review worker, and
the storage (the files are in the page cache after the first run).
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tablepi.journal.evening import EveningBook
from tablepi.journal.journal import JournaledTable
from tablepi.journal.record import RecordHeader
from tablepi.rules import HouseRules, Seat
from tablepi.table import Button, ButtonName
from tablepi.table.simulate import simulate_match
from tablepi.table.state import TableConfig


def evening(folder: Path, matches: int) -> int:
    """``matches`` finished matches, archived, and a new one begun; returns the events played."""
    rules, config = HouseRules(), TableConfig()
    table = JournaledTable(folder / "journal.sqlite3", RecordHeader(rules, Seat.N, config), archive=folder / "archive")
    events = 0
    for seed in range(1, matches + 1):
        start = table.journal.last_time + 5.0
        if table.table.matches[-1].slate.history:
            table.feed(Button(start, ButtonName.NEW_MATCH))
            start = table.journal.last_time + 1.0
        script = simulate_match(seed, rules, table.state.deal.dealer, config)
        events += len(script.events)
        for event in script.events:
            table.feed(dataclasses.replace(event, time=start + 1.0 + event.time))
    table.feed(Button(table.journal.last_time + 5.0, ButtonName.NEW_MATCH))
    table.close()
    return events


def timed(run: int, what: object) -> list[float]:
    out = []
    for _ in range(run):
        begin = time.perf_counter()
        what()  # type: ignore[operator]
        out.append(time.perf_counter() - begin)
    return out


def line(name: str, runs: list[float]) -> str:
    return f"{name}: min {min(runs):.3f} s, median {statistics.median(runs):.3f} s, max {max(runs):.3f} s"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--matches", type=int, default=10)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        events = evening(folder, args.matches)
        print(f"{args.matches} matches archived tonight, {events} events")
        journal, archive = folder / "journal.sqlite3", folder / "archive"
        with_evening = timed(args.runs, lambda: JournaledTable(journal, archive=archive).close())
        alone = timed(args.runs, lambda: EveningBook(archive).before_current())
        without = timed(args.runs, lambda: JournaledTable(journal).close())
        print(line("start with the evening", with_evening))
        print(line("the evening alone", alone))
        print(line("start without the archive", without))
        print(f"ratio (medians): {statistics.median(with_evening) / statistics.median(without):.1f}")


if __name__ == "__main__":
    main()
