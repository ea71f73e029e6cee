"""The rules of Konter a Matt (RULES.md), pure and standard-library only.

Everything else in tablepi builds on this package; it imports nothing outside the standard library (its errors,
the root of the project's error tree, live in ``tablepi.rules.errors``; a test checks it).
"""

from tablepi.rules.cards import DECK, MATADORS, MATT, Card, Rank, Suit, parse_cards
from tablepi.rules.deal import (
    TRICKS_PER_DEAL,
    Announcement,
    Deal,
    DealResult,
    Fault,
    FaultCode,
    Phase,
    Play,
    Trick,
    announcement_for,
    announcement_of_parts,
    settle,
)
from tablepi.rules.house import HouseRules, RevokePenalty, TieRule
from tablepi.rules.play import follows, legal_plays, trick_winner
from tablepi.rules.seats import Direction, Seat, Team
from tablepi.rules.slate import Line, Match, Slate, SlateEntry
from tablepi.rules.trumps import effective_suit, is_trump, strength, trump_order

__all__ = [
    "DECK",
    "MATADORS",
    "MATT",
    "TRICKS_PER_DEAL",
    "Announcement",
    "Card",
    "Deal",
    "DealResult",
    "Direction",
    "Fault",
    "FaultCode",
    "HouseRules",
    "Line",
    "Match",
    "Phase",
    "Play",
    "Rank",
    "RevokePenalty",
    "Seat",
    "Slate",
    "SlateEntry",
    "Suit",
    "Team",
    "TieRule",
    "Trick",
    "announcement_for",
    "announcement_of_parts",
    "effective_suit",
    "follows",
    "is_trump",
    "legal_plays",
    "parse_cards",
    "settle",
    "strength",
    "trick_winner",
    "trump_order",
]
