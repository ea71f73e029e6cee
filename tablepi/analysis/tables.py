"""Fast tables for the solver, computed from the rules core (never re-derived).

The solver works on 24-bit masks. For each trump suit the cards are relabelled so that the bit order *is* the
playing strength: the trumps first, highest first (``trump_order``), then each plain suit highest first
(``plain_suit_cards``). With that labelling

- the cards of one suit in play are a contiguous run of bits, strongest at the lowest bit;
- the winner of a trick is the lowest bit among the cards that are trumps or of the led suit, because every trump
  has a lower bit than every plain card (RULES.md 17);
- two cards of one hand with no card still in play between them and the same points are interchangeable for the
  rest of the deal (the solver plays only one of them).

Tests check that :func:`fast_legal` and :func:`fast_winner` equal :func:`tablepi.rules.legal_plays` and
:func:`tablepi.rules.trick_winner` on random positions.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from tablepi.rules.cards import DECK, Card, Suit
from tablepi.rules.trumps import plain_suit_cards, trump_order

#: Suit numbers inside the solver: 0 is always the trump suit, then the plain suits in S H D C order.
TRUMP = 0
#: Bits in a mask: one per card of the deck (RULES.md 3: 24 cards). ``_kernel.c`` names the same number ``CARDS``.
CARDS = len(DECK)


@dataclass(frozen=True, slots=True)
class Tables:
    """The relabelling for one trump suit and the per-bit facts the search reads."""

    trump: Suit
    bit_of: tuple[int, ...]  # card.index -> bit
    card_of: tuple[Card, ...]  # bit -> card
    suit: tuple[int, ...]  # bit -> solver suit (0 = trumps)
    suit_mask: tuple[int, int, int, int]  # solver suit -> mask of its cards
    points: tuple[int, ...]  # bit -> card points (Card.points)
    point_masks: tuple[tuple[int, int], ...]  # (points, mask of cards worth them) for points > 0

    def mask(self, cards: object) -> int:
        """The mask of an iterable of cards."""
        out = 0
        for card in cards:  # type: ignore[attr-defined]
            out |= 1 << self.bit_of[card.index]
        return out

    def cards(self, mask: int) -> tuple[Card, ...]:
        """The cards of a mask, strongest first within each suit, trumps first."""
        out = []
        while mask:
            low = mask & -mask
            out.append(self.card_of[low.bit_length() - 1])
            mask ^= low
        return tuple(out)

    def points_of(self, mask: int) -> int:
        return sum(p * (mask & m).bit_count() for p, m in self.point_masks)


@cache
def tables(trump: Suit) -> Tables:
    """The tables for ``trump`` (built once per suit)."""
    order: list[Card] = list(trump_order(trump))
    suits: list[int] = [TRUMP] * len(order)
    plain = [s for s in Suit if s is not trump]
    for number, suit in enumerate(plain, start=1):
        cards = plain_suit_cards(suit, trump)
        order.extend(cards)
        suits.extend([number] * len(cards))
    assert sorted(c.index for c in order) == list(range(len(DECK)))
    bit_of = [0] * len(DECK)
    for bit, card in enumerate(order):
        bit_of[card.index] = bit
    masks = [0, 0, 0, 0]
    for bit, suit_number in enumerate(suits):
        masks[suit_number] |= 1 << bit
    points = tuple(card.points for card in order)
    point_masks = tuple(
        (value, sum(1 << b for b, p in enumerate(points) if p == value)) for value in sorted(set(points)) if value
    )
    return Tables(
        trump=trump,
        bit_of=tuple(bit_of),
        card_of=tuple(order),
        suit=tuple(suits),
        suit_mask=(masks[0], masks[1], masks[2], masks[3]),
        points=points,
        point_masks=point_masks,
    )


def fast_legal(t: Tables, hand: int, led_bit: int | None) -> int:
    """The legal cards of ``hand`` as a mask (RULES.md 13-15), for the search; equals ``legal_plays``."""
    if led_bit is None:
        return hand
    led_suit = t.suit[led_bit]
    trumps = hand & t.suit_mask[TRUMP]
    if led_suit == TRUMP:
        return trumps or hand
    follow = hand & t.suit_mask[led_suit]
    return (follow | trumps) if follow else hand


def fast_winner(t: Tables, bits: list[int]) -> int:
    """Index in playing order of the card winning ``bits`` (RULES.md 17); equals ``trick_winner``."""
    relevant = t.suit_mask[TRUMP] | t.suit_mask[t.suit[bits[0]]]
    best = min(b for b in bits if (relevant >> b) & 1)
    return bits.index(best)
