"""Benchmark of the best-play analysis: solve from the start, full review, the single-dummy review, the speed-ups
over plain ways, and whether a review running in the background slows the table.

Run: ``.venv/bin/python bench/bench_analysis.py [--deals 200] [--baseline-deals 6] [--sd-baseline-deals 3]
[--exact-deals 20] [--thread-deals 10] [--python]``. Fixed seed. Prints, over ``--deals`` random deals (random legal
play, random trumps; a part given 0 deals is left out):

- solve from the start (points with best play, forehand leading): p50 / p90 / max and nodes;
- full double-dummy review (par table in all four suits, value and best cards of every one of the 24 cards,
  Kapo): p50 / p90 / max;
- the whole review with single-dummy judgement of all 24 cards (what the table's worker runs): p50 / p90 / max,
  layouts judged and (layout, card) values found per second;
- the single-dummy review with a position's layouts shared among threads (one a core, at most four: what the
  worker runs) against one thread, on the ``--thread-deals`` slowest deals, both here in this process: a ratio;
- the single-dummy judgement against a plain enumeration with the double-dummy solver (every layout and card
  solved from an empty table, as ``Solver.value`` does) on the first ``--sd-baseline-deals`` deals, the same
  layouts, both here in this process: a ratio;
- the positions of tricks 1-2 judged on all their layouts (at most 20,000) in that review: how many, their layouts,
  processor time per position p50 / max and layouts per processor second;
- the single-dummy review (exact wherever a position has at most 20,000 layouts, at any trick) against the rule
  before it (tricks 1-2 sampled: 12 / 48 layouts, unless at most 24 / 96), on the first ``--exact-deals`` deals,
  both here in this process: p50 / max of each and a ratio;
- the speed-up against the plain alpha-beta baseline (``reference.PlainSearch``) on the first
  ``--baseline-deals`` deals, both run here in this process: a ratio, so it holds on a busy machine;
- a placed card from the event to the frame drawn (table, view model, an 800x480 frame) while reviews run one
  after another in the worker process, against the same without them (p50 / p99).

The machine's load (``uptime``) is printed at the start and the end: on a shared machine wall times follow it, so
the processor time of this process is printed beside them.

Targets here (the Pi Zero 2 is about ten times slower): full review p50 <= 0.1 s and worst <= 1 s.
``--python`` runs the pure-Python search instead of the compiled kernel.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import tablepi.analysis.review as review_module
from tablepi.analysis import Solver, compiled_available, dealt_hands, review_deal, single
from tablepi.analysis.kernel import new_search, search_threads
from tablepi.analysis.single import Judge
from tablepi.analysis.solver import mtdf
from tablepi.analysis.tables import fast_winner, tables
from tablepi.analysis.worker import ReviewWorker
from tablepi.display.scene import Scene
from tablepi.rules import DECK, Deal, Direction, Seat, Suit
from tablepi.table import CardPlaced, Table
from tablepi.table.simulate import simulate_match
from tests.analysis.reference import PlainSearch


def random_deal(rng: random.Random) -> Deal:
    cards = list(DECK)
    rng.shuffle(cards)
    deal = Deal(Seat.N, hands={seat: cards[i * 6 : i * 6 + 6] for i, seat in enumerate(Seat)})
    deal.choose_trump(rng.choice(list(Suit)))
    while not deal.is_over:
        deal.play(deal.to_play, rng.choice(deal.legal_plays()))  # type: ignore[arg-type]
    return deal


def pct(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


_REVIEWS = [0]


def card_latencies(reviewing: bool) -> list[float]:
    """Every placed card of three scripted matches from the event to the frame drawn (table, view model, render of
    an 800x480 frame), optionally with a review always running in the worker process meanwhile."""
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    import pygame

    from tablepi.display.render import Display
    from tablepi.display.view import DisplaySettings
    from tablepi.display.viewmodel import build_view

    pygame.display.init()
    pygame.font.init()
    display = Display(pygame.Surface((800, 480)))
    settings = DisplaySettings()
    scripts = [simulate_match(seed, mistakes=True) for seed in range(3)]
    rng = random.Random(1)
    deals = [random_deal(rng) for _ in range(8)]
    out: list[float] = []
    with ReviewWorker() as worker:
        worker.start().result()  # the worker process is up before timing starts
        pending = None
        n = 0
        for script in scripts:
            table = Table(script.rules, script.dealer, script.config)
            for event in script.events:
                if reviewing and (pending is None or pending.done()):
                    pending = worker.submit(deals[n % len(deals)], 1)  # always a review running
                    n += 1
                    _REVIEWS[0] = n
                began = time.perf_counter()
                state = table.apply(event)
                display.show(build_view(Scene(state, settings)))
                if isinstance(event, CardPlaced):
                    out.append(time.perf_counter() - began)
        if pending is not None:
            pending.result()
    return out


class PlainJudge(Judge):
    """The single-dummy judgement done plainly: each layout and card solved by the double-dummy solver from an empty
    table (what ``Solver.value`` does for one deal), nothing shared between layouts."""

    def values(self, layouts: list[list[int]], lead: int, trick: list[int], cards: list[int]) -> list[int]:
        t = self.tables
        out = []
        for layout in layouts:
            for card in cards:
                search = new_search(t, self._compiled, small=True)
                hands = list(layout)
                pos = (lead + len(trick)) % 4
                hands[pos] ^= 1 << card
                after = [*trick, card]
                if len(after) < 4:
                    total = t.points_of(hands[0] | hands[1] | hands[2] | hands[3]) + sum(t.points[b] for b in after)
                    out.append(mtdf(search, total, hands, lead, after))
                else:
                    won = (lead + fast_winner(t, after)) % 4
                    gained = sum(t.points[b] for b in after) if won % 2 == 0 else 0
                    rest = t.points_of(hands[0] | hands[1] | hands[2] | hands[3])
                    out.append(gained + mtdf(search, rest, hands, won, ()))
        return out


class SampledEarlyJudge(Judge):
    """The rule before: tricks 1-2 judged on a sample unless they have at most twice its layouts."""

    def exact(self, total: int, trick_number: int) -> bool:
        return total <= single.EXACT_LAYOUTS and (trick_number >= 3 or total <= 2 * single.SAMPLES[trick_number])


_SOLVES = [0, 0]  # layouts, (layout, card) values
_EARLY: list[tuple[int, float]] = []  # positions of tricks 1-2 judged on all layouts: (layouts, processor seconds)


def _timing(judge: object) -> object:
    def wrapped(self: Judge, view: single.View, *args: object, **kwargs: object) -> single.SingleDummy:
        cpu = time.process_time()
        out: single.SingleDummy = judge(self, view, *args, **kwargs)  # type: ignore[operator]
        if out.exact and single._trick_number(view) <= 2:
            _EARLY.append((out.layouts, time.process_time() - cpu))
        return out
    return wrapped


def _counting(values: object) -> object:
    def wrapped(self: Judge, layouts: list[list[int]], lead: int, trick: list[int], cards: list[int]) -> list[int]:
        _SOLVES[0] += len(layouts)
        _SOLVES[1] += len(layouts) * len(cards)
        return values(self, layouts, lead, trick, cards)  # type: ignore[operator, no-any-return]
    return wrapped


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=200)
    parser.add_argument("--baseline-deals", type=int, default=6)
    parser.add_argument("--sd-baseline-deals", type=int, default=3)
    parser.add_argument("--exact-deals", type=int, default=20)
    parser.add_argument("--thread-deals", type=int, default=10)
    parser.add_argument("--python", action="store_true", help="the pure-Python search, not the compiled kernel")
    parser.add_argument("--latency-only", action="store_true", help="only the placed-card latency part")
    args = parser.parse_args()
    print(f"load: {load()}")
    if args.latency_only:
        print_latency()
        print(f"load: {load()}")
        return
    compiled = compiled_available() and not args.python
    if args.python:
        os.environ["TABLEPI_ANALYSIS_KERNEL"] = "python"
    rng = random.Random(2026)
    deals = [random_deal(rng) for _ in range(args.deals)]
    order = Direction.ANTICLOCKWISE.order_from(Seat.N)

    solve_times: list[float] = []
    nodes: list[int] = []
    review_times: list[float] = []
    for deal in deals:
        hands = dealt_hands(deal)
        assert hands is not None and deal.trump is not None
        began = time.perf_counter()
        solver = Solver(hands, deal.trump, compiled=compiled)
        solver.value(deal.forehand)
        solve_times.append(time.perf_counter() - began)
        nodes.append(solver.nodes)
        began = time.perf_counter()
        review_deal(deal, compiled=compiled, single=False)
        review_times.append(time.perf_counter() - began)

    sd_times: list[float] = []
    sd_cpu: list[float] = []  # processor time of this process: less touched by the other sessions' load
    Judge.values = _counting(Judge.values)  # type: ignore[method-assign, assignment]
    Judge.judge = _timing(Judge.judge)  # type: ignore[method-assign, assignment]
    for deal in deals:
        began, cpu = time.perf_counter(), time.process_time()
        review_deal(deal, compiled=compiled)
        sd_times.append(time.perf_counter() - began)
        sd_cpu.append(time.process_time() - cpu)
    layouts, solves = _SOLVES
    early = list(_EARLY)

    # the layouts of a position shared among threads, against one thread, on the slowest deals, both here
    slowest = sorted(range(len(deals)), key=lambda i: -sd_times[i])[: args.thread_deals]
    one_thread, threaded = [], []
    threads = search_threads()
    for i in slowest:
        for setting, out in (("1", one_thread), (str(threads), threaded)):
            os.environ["TABLEPI_ANALYSIS_THREADS"] = setting
            began = time.perf_counter()
            review_deal(deals[i], compiled=compiled)
            out.append(time.perf_counter() - began)
    os.environ.pop("TABLEPI_ANALYSIS_THREADS", None)

    # the single-dummy judgement, shared search against plain enumeration, on the same deals and layouts
    sd_base = deals[: args.sd_baseline_deals]
    shared, plain = [], []
    for deal in sd_base:
        for judge_class, out in ((Judge, shared), (PlainJudge, plain)):
            review_module.Judge = judge_class  # type: ignore[misc]
            began = time.perf_counter()
            review_deal(deal, compiled=compiled)
            out.append(time.perf_counter() - began)
        review_module.Judge = Judge  # type: ignore[misc]

    # exact wherever a position has at most EXACT_LAYOUTS layouts, against tricks 1-2 sampled as before, same deals
    ruled, exact_all = [], []
    for deal in deals[: args.exact_deals]:
        for judge_class, out in ((SampledEarlyJudge, ruled), (Judge, exact_all)):
            review_module.Judge = judge_class  # type: ignore[misc]
            began = time.perf_counter()
            review_deal(deal, compiled=compiled)
            out.append(time.perf_counter() - began)
    review_module.Judge = Judge  # type: ignore[misc]

    base_times: list[float] = []
    for deal in deals[: args.baseline_deals]:
        hands = dealt_hands(deal)
        assert hands is not None and deal.trump is not None
        t = tables(deal.trump)
        began = time.perf_counter()
        PlainSearch(deal.trump).value([t.mask(hands[s]) for s in order], order.index(deal.forehand))
        base_times.append(time.perf_counter() - began)

    kernel = "compiled kernel" if compiled else "pure Python"
    ms = 1000.0
    print(f"search: {kernel}; {len(deals)} random deals, seed 2026")
    print(f"solve from the start:  p50 {statistics.median(solve_times) * ms:.1f} ms, "
          f"p90 {pct(solve_times, 0.9) * ms:.1f} ms, max {max(solve_times) * ms:.1f} ms; "
          f"nodes p50 {statistics.median(nodes):,.0f}, max {max(nodes):,}")
    print(f"double-dummy review:   p50 {statistics.median(review_times) * ms:.1f} ms, "
          f"p90 {pct(review_times, 0.9) * ms:.1f} ms, max {max(review_times) * ms:.1f} ms "
          f"(target p50 <= 100 ms, max <= 1000 ms)")
    total = sum(sd_times)
    print(f"single-dummy review:   p50 {statistics.median(sd_times):.2f} s, p90 {pct(sd_times, 0.9):.2f} s, "
          f"max {max(sd_times):.2f} s (target p50 <= 1 s, max <= 5 s); {layouts / total:,.0f} layouts/s, "
          f"{solves / total:,.0f} (layout, card) values/s")
    print(f"single-dummy review, processor time: p50 {statistics.median(sd_cpu):.2f} s, p90 {pct(sd_cpu, 0.9):.2f} s, "
          f"max {max(sd_cpu):.2f} s")
    if slowest:
        print(f"single-dummy, the {len(slowest)} slowest deals, {threads} threads against 1: max "
              f"{max(threaded):.2f} s against {max(one_thread):.2f} s, in all {sum(threaded):.1f} s against "
              f"{sum(one_thread):.1f} s: x{sum(one_thread) / sum(threaded):.2f}")
    if sd_base:
        print(f"single-dummy, plain enumeration with the double-dummy solver on {len(sd_base)} of them: "
              f"{sum(plain):.1f} s against {sum(shared):.1f} s shared: x{sum(plain) / sum(shared):.1f}")
    if early:
        cpu_each = [c for _, c in early]
        print(f"single-dummy, positions of tricks 1-2 judged on all layouts (at most {single.EXACT_LAYOUTS:,}): "
              f"{len(early)}, {sum(n for n, _ in early):,} layouts; "
              f"processor time per position p50 {statistics.median(cpu_each):.2f} s, max {max(cpu_each):.2f} s; "
              f"{sum(n for n, _ in early) / sum(cpu_each):,.0f} layouts per processor second")
    if ruled:
        print(f"single-dummy, exact wherever <= {single.EXACT_LAYOUTS:,} layouts, on {len(ruled)} of them: "
              f"p50 {statistics.median(exact_all):.2f} s, max {max(exact_all):.2f} s, against tricks 1-2 sampled "
              f"(the rule before): p50 {statistics.median(ruled):.2f} s, max {max(ruled):.2f} s: "
              f"x{sum(exact_all) / sum(ruled):.1f} the time")
    if base_times:
        ratio = sum(base_times) / sum(solve_times[: len(base_times)])
        print(f"plain alpha-beta baseline on {len(base_times)} of them: p50 {statistics.median(base_times):.2f} s; "
              f"speed-up of solve from the start: x{ratio:,.0f}")
    print_latency()
    print(f"load: {load()}")


def load() -> str:
    """The load averages (1, 5, 15 minutes) as ``uptime`` prints them."""
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f}, {five:.2f}, {fifteen:.2f} on {os.cpu_count()} processors"


def print_latency() -> None:
    idle = card_latencies(False)
    busy = card_latencies(True)
    ms = 1000.0
    print(f"placed card -> frame drawn, no review:      p50 {statistics.median(idle) * ms:.3f} ms, "
          f"p99 {pct(idle, 0.99) * ms:.3f} ms (n={len(idle)})")
    print(f"placed card -> frame drawn, review running: p50 {statistics.median(busy) * ms:.3f} ms, "
          f"p99 {pct(busy, 0.99) * ms:.3f} ms (n={len(busy)}, {_REVIEWS[0]} reviews meanwhile)")


if __name__ == "__main__":
    main()
