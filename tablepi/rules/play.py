"""Which cards may be played, and who wins a trick (RULES.md 13-18).

>>> from tablepi.rules.cards import Suit, parse_cards, Card
>>> hand = parse_cards("AS KS QH TD 9C JC")
>>> " ".join(map(str, legal_plays(hand, Card.parse("KS"), Suit.HEARTS)))
'AS KS QH'
>>> trick_winner(parse_cards("TH KH 9C AH"), Suit.CLUBS)
2
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from tablepi.rules.cards import Card, Suit
from tablepi.rules.trumps import effective_tables


def legal_plays(hand: Iterable[Card], led: Card | None, trump: Suit) -> tuple[Card, ...]:
    """The cards of ``hand`` that may be played, in hand order. Never empty for a non-empty hand.

    ``led`` is the first card of the current trick, or None when the player leads (any card may be led).
    """
    cards = tuple(hand)
    if led is None:
        return cards
    effective, _ = effective_tables(trump)
    led_suit = effective[led.index]
    if led_suit is trump:
        # Rule 15: trump led (a matador lead is a trump lead, rule 6) — a player holding any trump must play one.
        trumps = tuple(card for card in cards if effective[card.index] is trump)
        return trumps or cards
    # Rule 13: plain suit led — follow suit or play any trump; trumping is always allowed, discarding is not.
    if any(effective[card.index] is led_suit for card in cards):
        return tuple(card for card in cards if effective[card.index] in (led_suit, trump))
    # Rule 14: void in the led suit — any card.
    return cards


def follows(card: Card, led: Card, trump: Suit) -> bool:
    """Whether ``card`` answers the lead as rules 13 and 15 ask (right suit, or a trump on a plain lead)."""
    effective, _ = effective_tables(trump)
    suit = effective[card.index]
    led_suit = effective[led.index]
    return suit is led_suit or suit is trump


def trick_winner(cards: Sequence[Card], trump: Suit) -> int:
    """Index, in playing order, of the card that wins the trick (RULES.md 17).

    The highest trump wins; with no trump, the highest card of the led suit. Works on partial tricks too (the card
    currently winning).
    """
    if not cards:
        raise ValueError("a trick needs at least one card")
    effective, strength = effective_tables(trump)
    led_suit = effective[cards[0].index]
    best = 0
    best_trump = led_suit is trump
    best_strength = strength[cards[0].index]
    for position in range(1, len(cards)):
        index = cards[position].index
        suit = effective[index]
        if suit is trump:
            if not best_trump or strength[index] > best_strength:
                best, best_trump, best_strength = position, True, strength[index]
        elif suit is led_suit and not best_trump and strength[index] > best_strength:
            best, best_strength = position, strength[index]
    return best
