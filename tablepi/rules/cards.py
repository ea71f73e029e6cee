"""Cards, suits and ranks of the 24-card Konter a Matt pack (RULES.md 3).

Cards are small immutable values that round-trip as text, like ``chess.Move``:

>>> card = Card.parse("QS")
>>> str(card), repr(card), card.display
('QS', "Card.parse('QS')", '♠Q')
>>> Card.parse("10h") == Card.parse("♥T") == Card(Rank.TEN, Suit.HEARTS)
True
>>> card.points
2
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import ClassVar

from tablepi.rules.errors import ParseError


class Suit(enum.Enum):
    """The four suits. The value is the canonical letter."""

    # Members are singletons: identity hashing (in C) keeps dict look-ups in the rules hot path cheap.
    __hash__ = object.__hash__

    SPADES = "S"
    HEARTS = "H"
    DIAMONDS = "D"
    CLUBS = "C"

    @property
    def symbol(self) -> str:
        """The suit symbol as printed on the cards: ♠ ♥ ♦ ♣."""
        return _SUIT_SYMBOLS[self]

    @property
    def is_red(self) -> bool:
        return self in (Suit.HEARTS, Suit.DIAMONDS)

    @classmethod
    def parse(cls, text: str) -> Suit:
        """Parse ``S``/``s``/``♠`` (and the white-suit symbols ♤ ♡ ♢ ♧) into a suit."""
        key = text.strip()
        suit = _SUIT_BY_TEXT.get(key.upper())
        if suit is None:
            raise ParseError(f"not a suit: {text!r} (expected one of S H D C or ♠ ♥ ♦ ♣)")
        return suit

    def __str__(self) -> str:
        return self.value


_SUIT_SYMBOLS = {Suit.SPADES: "♠", Suit.HEARTS: "♥", Suit.DIAMONDS: "♦", Suit.CLUBS: "♣"}
_SUIT_BY_TEXT: dict[str, Suit] = {s.value: s for s in Suit}
_SUIT_BY_TEXT.update({sym: s for s, sym in _SUIT_SYMBOLS.items()})
_SUIT_BY_TEXT.update({"♤": Suit.SPADES, "♡": Suit.HEARTS, "♢": Suit.DIAMONDS, "♧": Suit.CLUBS})


class Rank(enum.Enum):
    """The six ranks. The value is the canonical letter (``T`` for ten)."""

    # Members are singletons: identity hashing (in C) keeps dict look-ups in the rules hot path cheap.
    __hash__ = object.__hash__

    ACE = "A"
    KING = "K"
    QUEEN = "Q"
    JACK = "J"
    TEN = "T"
    NINE = "9"

    @property
    def points(self) -> int:
        """Card points (RULES.md 3): A 4, K 3, Q 2, J 1, 10 0, 9 0 — whatever the trumps."""
        return _RANK_POINTS[self]

    @property
    def display(self) -> str:
        """The rank as printed on the card (``10`` for ten)."""
        return "10" if self is Rank.TEN else self.value

    @classmethod
    def parse(cls, text: str) -> Rank:
        key = text.strip().upper()
        rank = _RANK_BY_TEXT.get(key)
        if rank is None:
            raise ParseError(f"not a rank: {text!r} (expected one of A K Q J T 10 9)")
        return rank

    def __str__(self) -> str:
        return self.value


_SUIT_ORDER = tuple(Suit)
_RANK_ORDER = tuple(Rank)
_RANK_POINTS = {Rank.ACE: 4, Rank.KING: 3, Rank.QUEEN: 2, Rank.JACK: 1, Rank.TEN: 0, Rank.NINE: 0}
_RANK_BY_TEXT: dict[str, Rank] = {r.value: r for r in Rank}
_RANK_BY_TEXT["10"] = Rank.TEN


@dataclass(frozen=True, slots=True, eq=False)
class Card:
    """One card of the pack. Canonical text is rank + suit letter: ``AS KH QD JC TS 9H``.

    There is exactly one object per card: ``Card(Rank.QUEEN, Suit.SPADES) is Card.parse("QS")``. Equality is
    therefore identity (done in C, which matters: the rules engine compares cards in every list search of its hot
    path), and ``index`` (0..23, the position in :data:`DECK`) is the hash and the key of the engine's tables.
    """

    rank: Rank
    suit: Suit
    index: int = field(init=False, repr=False)

    _CACHE: ClassVar[dict[str, Card]] = {}
    _ALL: ClassVar[dict[tuple[Rank, Suit], Card]] = {}

    def __new__(cls, rank: Rank, suit: Suit) -> Card:
        existing = cls._ALL.get((rank, suit))
        if existing is not None:
            return existing  # __init__ then sets the same values again: harmless, and the object stays unique
        if not isinstance(rank, Rank) or not isinstance(suit, Suit):
            raise ParseError(f"not a card: rank {rank!r}, suit {suit!r}")
        card = object.__new__(cls)
        cls._ALL[(rank, suit)] = card
        return card

    def __post_init__(self) -> None:
        index = _SUIT_ORDER.index(self.suit) * 6 + _RANK_ORDER.index(self.rank)
        object.__setattr__(self, "index", index)

    def __hash__(self) -> int:
        return self.index

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (Card.parse, (str(self),))  # pickling and copying give back the one object

    @classmethod
    def parse(cls, text: str) -> Card:
        """Parse ``QS``, ``10H``, ``Q♠``, ``♠Q``, in any case; anything else raises :class:`ParseError`.

        >>> Card.parse("♠q")
        Card.parse('QS')
        >>> Card.parse("QX")
        Traceback (most recent call last):
        ...
        tablepi.rules.errors.ParseError: not a card: 'QX' (expected rank and suit such as QS, 10H, Q♠ or ♠Q)
        """
        if not isinstance(text, str):
            raise ParseError(f"not a card: {text!r} (expected text such as QS)")
        cached = cls._CACHE.get(text)
        if cached is not None:
            return cached
        card = cls._parse_uncached(text)
        if len(text) <= 4:  # cache the spellings people use, not arbitrary padded input
            cls._CACHE[text] = card
        return card

    @classmethod
    def _parse_uncached(cls, text: str) -> Card:
        body = text.strip()
        # Rank first ("QS", "10H", "Q♠"), or a suit symbol first ("♠Q") as cards are often written.
        for rank_part, suit_part in ((body[:-1], body[-1:]), (body[1:], body[:1])):
            if not rank_part or not suit_part or (suit_part is body[:1] and suit_part.isascii()):
                continue
            rank = _RANK_BY_TEXT.get(rank_part.upper())
            suit = _SUIT_BY_TEXT.get(suit_part.upper())
            if rank is not None and suit is not None:
                return DECK[_SUIT_ORDER.index(suit) * 6 + _RANK_ORDER.index(rank)]
        raise ParseError(f"not a card: {text!r} (expected rank and suit such as QS, 10H, Q♠ or ♠Q)")

    @property
    def points(self) -> int:
        """Card points (RULES.md 3); never depends on trumps."""
        return self.rank.points

    @property
    def display(self) -> str:
        """Suit symbol then rank as players say it: ``♠Q``, ``♥10``."""
        return f"{self.suit.symbol}{self.rank.display}"

    @property
    def is_matador(self) -> bool:
        """♠Q, ♥Q and ♦Q are always trumps (RULES.md 4)."""
        return self in MATADORS

    def __str__(self) -> str:
        return f"{self.rank.value}{self.suit.value}"

    def __repr__(self) -> str:
        return f"Card.parse({str(self)!r})"


#: The 24 cards in a fixed, documented order: suits S H D C, ranks A K Q J T 9; ``DECK[c.index] == c``.
DECK: tuple[Card, ...] = tuple(Card(rank, suit) for suit in Suit for rank in Rank)

MATT = Card(Rank.QUEEN, Suit.SPADES)
KONTER_HEARTS = Card(Rank.QUEEN, Suit.HEARTS)
KONTER_DIAMONDS = Card(Rank.QUEEN, Suit.DIAMONDS)
#: The three matadors, highest first (RULES.md 4-5).
MATADORS: tuple[Card, ...] = (MATT, KONTER_HEARTS, KONTER_DIAMONDS)


def parse_cards(text: str) -> tuple[Card, ...]:
    """Parse a space- or comma-separated list of cards: ``"AS KS QH"``."""
    return tuple(Card.parse(part) for part in text.replace(",", " ").split())
