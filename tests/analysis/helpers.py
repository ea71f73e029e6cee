"""Random deals for the analysis tests."""

from __future__ import annotations

import random

from tablepi.rules import DECK, Deal, Seat, Suit


def random_deal(rng: random.Random, dealer: Seat = Seat.N) -> Deal:
    """Shuffle, name random trumps, play random legal cards to the end (a revoke-free deal with known hands)."""
    cards = list(DECK)
    rng.shuffle(cards)
    deal = Deal(dealer, hands={seat: cards[i * 6 : i * 6 + 6] for i, seat in enumerate(Seat)})
    deal.choose_trump(rng.choice(list(Suit)))
    while not deal.is_over:
        seat = deal.to_play
        assert seat is not None
        deal.play(seat, rng.choice(deal.legal_plays()))
    return deal
