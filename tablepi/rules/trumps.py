"""Trumps: which cards are trumps, in what order, and the suit a card belongs to in play (RULES.md 4-7).

Everything here is precomputed into small tables indexed by ``card.index`` so the hot path of the rules engine is a
list lookup, not a chain of comparisons.

>>> from tablepi.rules.cards import Card, Suit
>>> " ".join(c.display for c in trump_order(Suit.CLUBS))
'♣A ♠Q ♥Q ♦Q ♣K ♣Q ♣J ♣10 ♣9'
>>> effective_suit(Card.parse("QS"), Suit.HEARTS)   # Matt is a trump, not a spade (rule 6)
<Suit.HEARTS: 'H'>
"""

from __future__ import annotations

from tablepi.rules.cards import DECK, MATADORS, Card, Rank, Suit

#: Plain-suit order, highest first (RULES.md 7). Queens of ♠♥♦ are matadors and never plain.
PLAIN_ORDER: tuple[Rank, ...] = (Rank.ACE, Rank.KING, Rank.QUEEN, Rank.JACK, Rank.TEN, Rank.NINE)


def _build_trump_order(trump: Suit) -> tuple[Card, ...]:
    """Rule 5: the trump ace, the three matadors, then the rest of the trump suit from the king down."""
    rest = [Card(rank, trump) for rank in PLAIN_ORDER[1:]]
    rest = [card for card in rest if card not in MATADORS]
    return (Card(Rank.ACE, trump), *MATADORS, *rest)


_TRUMP_ORDER: dict[Suit, tuple[Card, ...]] = {suit: _build_trump_order(suit) for suit in Suit}

# Strength of every card for every trump suit: trumps 100 + rank in the trump order (higher wins); plain cards
# 10 - their place in the plain order. Only cards of the led suit can win without trumps, which play.py ensures.
_STRENGTH: dict[Suit, tuple[int, ...]] = {}
_EFFECTIVE: dict[Suit, tuple[Suit, ...]] = {}
for _trump in Suit:
    _order = _TRUMP_ORDER[_trump]
    _STRENGTH[_trump] = tuple(
        100 + len(_order) - _order.index(card) if card in _order else 10 - PLAIN_ORDER.index(card.rank)
        for card in DECK
    )
    _EFFECTIVE[_trump] = tuple(_trump if card in _order else card.suit for card in DECK)


def trump_order(trump: Suit) -> tuple[Card, ...]:
    """All trumps for ``trump``, highest first (RULES.md 5): 8 cards, or 9 when clubs are trumps."""
    return _TRUMP_ORDER[trump]


def is_trump(card: Card, trump: Suit) -> bool:
    """A matador or a card of the trump suit (RULES.md 4-6)."""
    return _EFFECTIVE[trump][card.index] is trump


def effective_suit(card: Card, trump: Suit) -> Suit:
    """The suit a card counts as in play: the trump suit for every trump, matadors included (RULES.md 6)."""
    return _EFFECTIVE[trump][card.index]


def strength(card: Card, trump: Suit) -> int:
    """A number that orders cards within a trick: every trump beats every plain card (RULES.md 5, 7, 17)."""
    return _STRENGTH[trump][card.index]


def plain_suit_cards(suit: Suit, trump: Suit) -> tuple[Card, ...]:
    """The cards of ``suit`` that are not trumps, highest first (RULES.md 7): five, or six for clubs."""
    return tuple(card for card in DECK if card.suit is suit and not is_trump(card, trump))


def effective_tables(trump: Suit) -> tuple[tuple[Suit, ...], tuple[int, ...]]:
    """The raw lookup tables (effective suit, strength) by ``card.index``, for hot loops elsewhere."""
    return _EFFECTIVE[trump], _STRENGTH[trump]
