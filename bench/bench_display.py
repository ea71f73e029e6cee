"""How long the display takes to draw a frame, on each designed layout.

Each sample screen (tests/display/samples.py: records replayed through the table, then the app's screen) is drawn
repeatedly on an off-screen surface, in two languages;
the script prints p50 and p99 per size and says whether p99 stays under the 10 ms budget. The first frame of
each screen fills the text cache, which is what happens on a real table too (the same words come back), so the
figures are for steady state; ``--cold`` clears the text cache before every frame to show the worst case.

Also measured: ``build_view`` on a real table state mid-deal (the view model's share of each update).

    python bench/bench_display.py [--frames 300] [--cold]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import pygame

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tablepi.display.render import Renderer
from tablepi.display.scene import Scene
from tests.display.samples import SAMPLES, sample

BUDGET_MS = 10.0


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def bench_render(size: tuple[int, int], frames: int, cold: bool) -> list[float]:
    renderer = Renderer()
    surface = pygame.Surface(size)
    views = [sample(name, lang) for name in SAMPLES for lang in ("en", "lb")]
    for view in views:  # warm the font objects (and, unless --cold, the text cache)
        renderer.draw(view, surface)
    times = []
    for i in range(frames):
        view = views[i % len(views)]
        if cold:
            renderer._texts.clear()
        start = time.perf_counter()
        renderer.draw(view, surface)
        times.append((time.perf_counter() - start) * 1000)
    return times


def bench_build_view(rounds: int) -> list[float]:
    from tablepi.display.view import DisplaySettings
    from tablepi.display.viewmodel import build_view
    from tablepi.rules.cards import Card
    from tablepi.rules.seats import Seat
    from tablepi.table.events import CardLifted, CardPlaced, Tick
    from tablepi.table.machine import Table

    table = Table(dealer=Seat.N)
    table.apply(CardPlaced(1.0, Seat.W, Card.parse("AH")))
    table.apply(CardLifted(1.2, Seat.W, Card.parse("AH")))
    for t, (seat, card) in enumerate(((Seat.W, "AS"), (Seat.S, "KS"), (Seat.E, "JS")), start=2):
        table.apply(CardPlaced(2.0 * t, seat, Card.parse(card)))
        table.apply(Tick(2.0 * t + 1.5))
    state = table.state
    settings = DisplaySettings(language="lb", learner=True)
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        build_view(Scene(state, settings))
        times.append((time.perf_counter() - start) * 1000)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--frames", type=int, default=300)
    parser.add_argument("--cold", action="store_true", help="clear the text cache before every frame")
    args = parser.parse_args()
    pygame.font.init()
    worst = 0.0
    for size in ((720, 1280), (1280, 720), (800, 480), (480, 320)):
        times = bench_render(size, args.frames, args.cold)
        p50, p99 = statistics.median(times), percentile(times, 0.99)
        worst = max(worst, p99)
        print(f"render {size[0]}x{size[1]}{' (cold text cache)' if args.cold else ''}: "
              f"p50 {p50:.2f} ms  p99 {p99:.2f} ms  max {max(times):.2f} ms  ({len(times)} frames)")
    # display.rotation = 90 on a Touch Display 2: the 1280x720 drawing is turned onto the 720x1280 panel per frame.
    drawing = pygame.Surface((1280, 720))
    turns = []
    for _ in range(args.frames):
        start = time.perf_counter()
        pygame.transform.rotate(drawing, -90)
        turns.append((time.perf_counter() - start) * 1000)
    print(f"turn a 1280x720 frame by 90 degrees: p50 {statistics.median(turns):.2f} ms  "
          f"p99 {percentile(turns, 0.99):.2f} ms")
    bv = bench_build_view(1000)
    print(f"build_view mid-deal (lb, learner): p50 {statistics.median(bv):.3f} ms  p99 {percentile(bv, 0.99):.3f} ms")
    verdict = "OK" if worst < BUDGET_MS else "OVER BUDGET"
    print(f"p99 budget {BUDGET_MS:.0f} ms per frame: {verdict}")


if __name__ == "__main__":
    main()
