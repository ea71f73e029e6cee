"""The physical layer of the table: what lies on each seat's zone, and whether its reader sees.

Zones change with every place and lift and are never undone (a lifted card cannot be un-lifted). What a lying card
means (tentative, played, shown, stray) is kept here as its status; the machine sets it from the game.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tablepi.rules.cards import Card
from tablepi.rules.deal import Deal
from tablepi.rules.seats import Seat
from tablepi.table.events import ReaderState
from tablepi.table.state import Zone, ZoneCard, ZoneCardStatus
from tablepi.table.warnings import TableWarning

BLIND = (ReaderState.OFFLINE, ReaderState.FAULT)  # a zone whose reader sees nothing


@dataclass(slots=True)
class LyingCard:
    """A card lying on a zone (mutable inside the machine; exported as a frozen :class:`ZoneCard`).

    ``second``: it came while another card lay there (``two_cards_on_zone``); ``warnings``: ids of the warnings it
    raised, resolved when it is lifted; ``tentative``: what would be wrong if it stays, shown while it may still be
    a show.
    """

    card: Card | None
    uid: str
    placed: float
    order: int
    status: ZoneCardStatus = ZoneCardStatus.STRAY
    second: bool = False
    warnings: list[int] = field(default_factory=list)
    tentative: tuple[TableWarning, ...] = ()

    def matches(self, card: Card | None, uid: str) -> bool:
        """Whether a reported tag is this one: by UID when both are known (the same card of a second deck is
        another tag), else by card (records written with cards only)."""
        if uid and self.uid:
            return self.uid == uid
        if card is not None and self.card is not None:
            return self.card == card
        return False


class Zones:
    """The four zones, their readers, and a played card lifted before its trick was complete."""

    def __init__(self) -> None:
        self.cards: dict[Seat, list[LyingCard]] = {seat: [] for seat in Seat}
        self.readers: dict[Seat, ReaderState] = dict.fromkeys(Seat, ReaderState.ONLINE)
        self.reader_warnings: dict[Seat, list[int]] = {seat: [] for seat in Seat}
        self.lifted: dict[Seat, tuple[Card, int]] = {}  # seat -> (card lifted early, its warning id)
        self.last_tap: tuple[Seat, Card, float] | None = None  # the last show: who, what, when it was lifted
        self._order = 0

    def next_order(self) -> int:
        self._order += 1
        return self._order

    def pending(self) -> list[tuple[Seat, LyingCard]]:
        """Tentative cards, oldest first."""
        found = [(seat, c) for seat in Seat for c in self.cards[seat] if c.status is ZoneCardStatus.TENTATIVE]
        found.sort(key=lambda item: item[1].order)
        return found

    def only(self, lying: LyingCard) -> bool:
        """Whether ``lying`` is the one card on the table."""
        return all(other is lying for seat in Seat for other in self.cards[seat])

    def settled(self) -> bool:
        """Whether any card lies that is not tentative (a card being gathered, a stray, a played card)."""
        return any(c.status is not ZoneCardStatus.TENTATIVE for seat in Seat for c in self.cards[seat])

    def blind(self, seat: Seat) -> bool:
        return self.readers[seat] in BLIND

    def snapshot(self) -> tuple[Zone, ...]:
        return tuple(
            Zone(seat, tuple(ZoneCard(c.card, c.uid, c.status, c.placed) for c in self.cards[seat]),
                 self.readers[seat])
            for seat in Seat
        )


def trick_card(deal: Deal, seat: Seat, card: Card) -> bool:
    """Whether ``card`` lying on ``seat``'s zone is a card of a trick still on the table: the seat's card in the
    trick being played, or in the last complete trick before it has played to the next."""
    trick = deal.current_trick
    return (trick is not None and trick.card_of(seat) == card) or swept_and_put_back(deal, seat, card)


def swept_and_put_back(deal: Deal, seat: Seat, card: Card) -> bool:
    """``seat`` puts back its own card of the last complete trick before playing to the next one: a card knocked off
    (or a sweep begun and thought better of), not a card played again."""
    complete = deal.completed_tricks
    if not complete or complete[-1].card_of(seat) != card:
        return False
    trick = deal.current_trick
    return trick is None or trick.card_of(seat) is None


def where_played(deal: Deal, card: Card) -> tuple[int, Seat] | None:
    """(trick number, seat) of ``card``'s play in this deal."""
    return next(
        ((number, play.seat) for number, trick in enumerate(deal.tricks, 1) for play in trick.plays
         if play.card == card),
        None,
    )
