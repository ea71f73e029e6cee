"""The solver's fast tables equal the rules core (legal plays, trick winner, points)."""

from __future__ import annotations

import random

from tablepi.analysis.tables import fast_legal, fast_winner, tables
from tablepi.rules import DECK, Suit, legal_plays, trick_winner


def test_fast_legal_plays_equal_the_rules() -> None:
    rng = random.Random(11)
    for _ in range(3000):
        trump = rng.choice(list(Suit))
        t = tables(trump)
        cards = rng.sample(DECK, 7)
        hand, led = cards[:6][: rng.randint(1, 6)], cards[6] if rng.random() < 0.8 else None
        expected = t.mask(legal_plays(hand, led, trump))
        assert fast_legal(t, t.mask(hand), None if led is None else t.bit_of[led.index]) == expected


def test_fast_trick_winner_equals_the_rules() -> None:
    rng = random.Random(12)
    for _ in range(3000):
        trump = rng.choice(list(Suit))
        t = tables(trump)
        trick = rng.sample(DECK, rng.randint(1, 4))
        assert fast_winner(t, [t.bit_of[c.index] for c in trick]) == trick_winner(trick, trump)


def test_points_and_labelling() -> None:
    for trump in Suit:
        t = tables(trump)
        assert sorted(t.bit_of) == list(range(24))
        assert all(t.card_of[t.bit_of[c.index]] is c for c in DECK)
        assert all(t.points[t.bit_of[c.index]] == c.points for c in DECK)
        assert t.points_of((1 << 24) - 1) == 40
