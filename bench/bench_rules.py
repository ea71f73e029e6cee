"""Benchmark of the rules core: random legal full deals per second, and the median time of the hot functions.

Run: ``.venv/bin/python bench/bench_rules.py``. One core, no I/O. Target: 10,000 full random deals per second here,
which leaves the table instant on a Raspberry Pi Zero 2 (about ten times slower).
"""

from __future__ import annotations

import random
import statistics
import time

from tablepi.rules import DECK, Deal, Seat, Suit, legal_plays, parse_cards, trick_winner
from tablepi.rules.cards import Card


def random_deal(rng: random.Random, dealer: Seat = Seat.N) -> Deal:
    """Deal 24 shuffled cards, name random trumps and play random legal cards to the end (checked path)."""
    cards = list(DECK)
    rng.shuffle(cards)
    deal = Deal(dealer, hands={seat: cards[i * 6 : i * 6 + 6] for i, seat in enumerate(Seat)})
    deal.choose_trump(rng.choice(_SUITS))
    while not deal.is_over:
        deal.play(deal.to_play, rng.choice(deal.legal_plays()))  # type: ignore[arg-type]
    return deal


_SUITS = list(Suit)


def median_ns(fn, repeat: int = 20000) -> float:  # type: ignore[no-untyped-def]
    samples = []
    for _ in range(5):
        start = time.perf_counter_ns()
        for _ in range(repeat):
            fn()
        samples.append((time.perf_counter_ns() - start) / repeat)
    return statistics.median(samples)


def main() -> None:
    rng = random.Random(2026)
    for _ in range(200):  # warm up
        random_deal(rng)
    runs = []
    for _ in range(5):
        count = 2000
        start = time.perf_counter()
        for _ in range(count):
            random_deal(rng)
        runs.append(count / (time.perf_counter() - start))
    hand = parse_cards("AS KS QH TD 9C JC")
    led = Card.parse("KS")
    trick = parse_cards("TH KH 9C AH")
    print(f"random legal full deals per second (one core, median of 5): {statistics.median(runs):,.0f}")
    print(f"legal_plays median: {median_ns(lambda: legal_plays(hand, led, Suit.HEARTS)):,.0f} ns")
    print(f"trick_winner median: {median_ns(lambda: trick_winner(trick, Suit.CLUBS)):,.0f} ns")


if __name__ == "__main__":
    main()
