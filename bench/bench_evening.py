"""Benchmark of the evening at start: a table restarted with ``--matches`` matches of the evening archived.

Run: ``.venv/bin/python bench/bench_evening.py [--matches 0 10 50] [--runs 5]``. Fixed seeds (the simulator's
matches, one per seed; the archive files are written as the table writes them, without playing each event through
the journal's fsync, which would take minutes). For each count, min / median / max over ``--runs`` of:

- the start of the table (``JournaledTable``) with the evening's summary cache in place (``archive/
  evening-cache.json``: each archived match read from it, nothing replayed);
- the same start without the cache (deleted before each run: every archived match of the evening read and
  replayed, as before the cache; the run writes it again);
- the start with the archive left out (the journal's match only);

and the ratios, measured in the same run, so they hold on a busy machine (the load is printed: the machine is
shared and noisy). What it leaves out: the screen and the readers (``tablepi run`` starts them after this), the
review worker, and the storage (the files are in the page cache after the first run).
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tablepi.journal import archive as match_archive
from tablepi.journal.evening import CACHE_NAME, Mark, write_mark
from tablepi.journal.journal import JournaledTable
from tablepi.journal.record import RecordHeader, event_to_line
from tablepi.rules import HouseRules, Seat
from tablepi.table import Button, ButtonName, Table
from tablepi.table.simulate import simulate_match
from tablepi.table.state import TableConfig


def evening(folder: Path, matches: int) -> int:
    """``matches`` finished matches archived as the evening's, and a new one begun in the journal; returns the
    events archived."""
    rules, config = HouseRules(), TableConfig()
    header = RecordHeader(rules, Seat.N, config)
    archive = folder / "archive"
    events, ids, dealer = 0, [], Seat.N
    for seed in range(1, matches + 1):
        script = simulate_match(seed, rules, dealer, config)
        played = [*script.events, Button(script.events[-1].time + 5.0, ButtonName.NEW_MATCH)]
        table = Table.replay(played, rules, dealer, config)
        journal_id = uuid.uuid4().hex
        match_archive.write_match(archive, "journal", journal_id, RecordHeader(rules, dealer, config),
                                  [event_to_line(e) for e in played])
        ids.append(journal_id)
        events += len(played)
        dealer = table.state.deal.dealer
        time.sleep(0.01)  # archived one after the other: their modification times keep their order
    with JournaledTable(folder / "journal.sqlite3", dataclasses.replace(header, dealer=dealer),
                        archive=archive) as table:
        current = table.journal.journal_id
    if ids:
        write_mark(archive, Mark(ids[0], time.time(), current))
        (archive / CACHE_NAME).unlink(missing_ok=True)
    return events


def timed(runs: int, what: object, before: object = None) -> list[float]:
    out = []
    for _ in range(runs):
        if before is not None:
            before()  # type: ignore[operator]
        begin = time.perf_counter()
        what()  # type: ignore[operator]
        out.append(time.perf_counter() - begin)
    return out


def line(name: str, runs: list[float]) -> str:
    return f"  {name}: min {min(runs):.3f} s, median {statistics.median(runs):.3f} s, max {max(runs):.3f} s"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--matches", type=int, nargs="+", default=[0, 10, 50])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    for count in args.matches:
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp)
            events = evening(folder, count)
            journal, archive = folder / "journal.sqlite3", folder / "archive"
            print(f"{count} matches of the evening archived, {events} events; load average "
                  f"{' '.join(f'{x:.1f}' for x in os.getloadavg())}")

            def start(journal: Path = journal, archive: Path = archive, count: int = count) -> None:
                with JournaledTable(journal, archive=archive) as table:
                    assert table.state.match.number == count + 1

            def drop(archive: Path = archive) -> None:
                (archive / CACHE_NAME).unlink(missing_ok=True)

            cold = timed(args.runs, start, drop)
            warm = timed(args.runs, start)
            alone = timed(args.runs, lambda journal=journal: JournaledTable(journal).close())
            print(line("start, cache in place", warm))
            print(line("start, no cache (every match replayed)", cold))
            print(line("start without the archive", alone))
            print(f"  ratios (medians): no cache / cache {statistics.median(cold) / statistics.median(warm):.1f}, "
                  f"cache / without the archive {statistics.median(warm) / statistics.median(alone):.1f}")


if __name__ == "__main__":
    main()
