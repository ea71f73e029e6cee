"""The app's loop, card to frame: a reader's zone event put on the app's queue until the frame it changed is drawn.

Run: ``.venv/bin/python bench/bench_loop.py [--runs 5] [--against DIR]``. Three scripted matches
(``tablepi.table.simulate``) are played through a real :class:`~tablepi.app.core.TableApp`: every card is a
``ZoneEvent`` of the demo's deck, put on the app's queue as the reader pump puts it; each is timed from the
``put`` until ``step`` returns, by then the event is journaled (SQLite, fsync) and applied, the scene built and
the 800x480 frame drawn headless (``SDL_VIDEODRIVER=dummy``, pygame's software surface). Buttons and the other
events of the script go through the same loop untimed. Each run prints min / median / max over its placed cards;
the last line is over every run. With ``--against DIR`` (a checkout of another revision, e.g. ``git archive main |
tar -x -C DIR``) each run is a fresh process of each tree in turn, interleaved, so both see the same load; the
medians' ratio is printed.

Left out: the reader's own latency (``bench/bench_readers.py``), the panel's scan-out (KMS), the reviews (the
worker is not started: ``bench/bench_analysis.py --latency-only`` measures a card with a review running), and
the touch screen. The journal's fsync is on this machine's disk, so the figures follow its load.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

from tablepi.app.core import TableApp
from tablepi.app.screen import PygameScreen
from tablepi.config import DisplayConfig
from tablepi.deck import DeckRegistry, virtual_deck
from tablepi.journal.journal import JournaledTable
from tablepi.journal.record import RecordHeader
from tablepi.readers.events import ZoneEvent
from tablepi.rules.seats import Seat
from tablepi.table import CardLifted, CardPlaced
from tablepi.table.simulate import simulate_match

ZONES = {0: Seat.N, 1: Seat.E, 2: Seat.S, 3: Seat.W}


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def one_run(directory: Path) -> list[float]:
    """Card -> frame of every placed card of three scripted matches, in seconds."""
    deck = virtual_deck()
    uid_of = {card: uid for uid, card in deck.cards.items()}
    zone_of = {seat: zone for zone, seat in ZONES.items()}
    out: list[float] = []
    screen = PygameScreen(DisplayConfig(size=(800, 480)), headless=True)
    for seed in range(3):
        script = simulate_match(seed)
        header = RecordHeader(script.rules, script.dealer, script.config, tuple(ZONES.items()))
        table = JournaledTable(directory / f"journal-{seed}.sqlite3", header)
        clock = Clock()
        app = TableApp(table, DeckRegistry([deck]), ZONES, screen=screen if seed == 0 else
                       PygameScreen(DisplayConfig(size=(800, 480)), headless=True), clock=clock)
        try:
            for event in script.events:
                clock.now = event.time - app.offset  # the reader's clock, which the app maps onto table time
                item: object = event
                if isinstance(event, CardPlaced | CardLifted) and event.card is not None:
                    item = ZoneEvent(zone_of[event.seat], uid_of[event.card], isinstance(event, CardPlaced),
                                     clock.now)
                began = time.perf_counter()
                app.put(item)  # type: ignore[arg-type]
                app.step(timeout=0)
                if isinstance(event, CardPlaced):
                    out.append(time.perf_counter() - began)
        finally:
            app.close()
    return out


def _child(tree: Path, python: str) -> list[float]:
    """One run in a fresh process of the tree at ``tree``: its card -> frame times."""
    import json
    import subprocess

    env = dict(os.environ, PYTHONPATH=str(tree))
    done = subprocess.run([python, str(Path(__file__).resolve()), "--child"], env=env, cwd=tree,
                          capture_output=True, text=True, check=True)
    times: list[float] = json.loads(done.stdout.strip().splitlines()[-1])
    return times


def _line(label: str, times: list[float]) -> str:
    ms = 1000.0
    p99 = sorted(times)[int(len(times) * 0.99)]
    return (f"{label}: card -> frame min {min(times) * ms:.2f} ms, median {statistics.median(times) * ms:.2f} ms, "
            f"p99 {p99 * ms:.2f} ms, max {max(times) * ms:.2f} ms (n={len(times)})")


def main() -> None:
    import json
    import sys

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--against", type=Path, help="a checkout of another revision, run interleaved")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        with tempfile.TemporaryDirectory() as scratch:
            print(json.dumps(one_run(Path(scratch))))
        return
    here = Path(__file__).resolve().parents[1]
    trees = [("this tree", here)] + ([("against", args.against.resolve())] if args.against else [])
    every: dict[str, list[float]] = {label: [] for label, _ in trees}
    medians: dict[str, list[float]] = {label: [] for label, _ in trees}
    for run in range(args.runs):
        for label, tree in trees:
            times = _child(tree, sys.executable)
            every[label].extend(times)
            medians[label].append(statistics.median(times))
            print(f"run {run + 1}, " + _line(label, times))
    for label, _ in trees:
        print(f"all {args.runs} runs, " + _line(label, every[label]))
    if args.against:
        ratios = [a / b for a, b in zip(medians["this tree"], medians["against"], strict=True)]
        print(f"median ratio this tree / against per run: min {min(ratios):.2f}, median "
              f"{statistics.median(ratios):.2f}, max {max(ratios):.2f}")
    print(f"load {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
