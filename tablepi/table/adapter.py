"""From reader events to table events: the one function the app calls per reader event.

The table does not import the readers (ARCHITECTURE.md: one direction of dependencies); these functions accept
anything shaped like a ``ZoneEvent`` / ``ZoneStatus`` and a deck registry with ``lookup(uid)``.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Protocol

from tablepi.errors import ConfigError
from tablepi.rules.cards import Card
from tablepi.rules.seats import Seat
from tablepi.table.events import CardLifted, CardPlaced, ReaderCrosstalk, ReaderState, ReaderStatus
from tablepi.table.state import TableState


class DeckLookup(Protocol):
    """The deck registry as the table needs it: a tag UID to (deck name, card), None when unknown."""

    def lookup(self, uid: str) -> tuple[str, Card] | None: ...


class ZoneEventLike(Protocol):
    @property
    def zone(self) -> int: ...
    @property
    def uid(self) -> str: ...
    @property
    def present(self) -> bool: ...
    @property
    def time(self) -> float: ...


class _StateLike(Protocol):
    @property
    def value(self) -> str: ...


class ZoneStatusLike(Protocol):
    @property
    def zone(self) -> int: ...
    @property
    def state(self) -> _StateLike: ...
    @property
    def detail(self) -> str: ...
    @property
    def time(self) -> float: ...


def _seat(zone: int, seat_of_zone: Mapping[int, Seat]) -> Seat:
    try:
        return seat_of_zone[zone]
    except KeyError:
        zones = ", ".join(f"{z}={s}" for z, s in sorted(seat_of_zone.items()))
        raise ConfigError(f"zone {zone} is not mapped to a seat (zones: {zones or 'none'})") from None


def from_zone_event(
    event: ZoneEventLike, seat_of_zone: Mapping[int, Seat], deck: DeckLookup, time_offset: float = 0.0
) -> CardPlaced | CardLifted:
    """A reader's ZoneEvent as a table event: the zone's seat, the card the tag stands for (None if unknown).

    ``time_offset`` is added to the reader's time to make it seconds since the record's start (after a restart the
    app continues the journal's clock).
    """
    seat = _seat(event.zone, seat_of_zone)
    found = deck.lookup(event.uid)
    card = found[1] if found is not None else None
    deck_name = found[0] if found is not None else ""
    if event.present:
        return CardPlaced(event.time + time_offset, seat, card, event.uid, deck_name)
    misread = bool(getattr(event, "misread", False))  # a reader's lift of a card it gave to another zone
    return CardLifted(event.time + time_offset, seat, card, event.uid, deck_name, misread)


class ZoneCrosstalkLike(Protocol):
    @property
    def zone(self) -> int: ...
    @property
    def uid(self) -> str: ...
    @property
    def holder(self) -> int | None: ...
    @property
    def time(self) -> float: ...


def from_zone_crosstalk(
    notice: ZoneCrosstalkLike, seat_of_zone: Mapping[int, Seat], deck: DeckLookup, time_offset: float = 0.0
) -> ReaderCrosstalk:
    """A reader's crosstalk notice as a table event: the seat that heard it, the card, the seat that holds it."""
    seat = _seat(notice.zone, seat_of_zone)
    holder = _seat(notice.holder, seat_of_zone) if notice.holder is not None else None
    found = deck.lookup(notice.uid)
    return ReaderCrosstalk(notice.time + time_offset, seat, found[1] if found is not None else None, notice.uid,
                           holder)


def from_zone_status(
    status: ZoneStatusLike, seat_of_zone: Mapping[int, Seat], time_offset: float = 0.0
) -> ReaderStatus:
    """A reader's ZoneStatus as a table event."""
    seat = _seat(status.zone, seat_of_zone)
    return ReaderStatus(status.time + time_offset, seat, ReaderState(status.state.value), status.detail)


def lifts_for_snapshot(state: TableState, present: Mapping[Seat, Collection[str]], time: float) -> list[CardLifted]:
    """After a restart: lifts for the cards the table believes lie on a zone but the reader no longer sees.

    ``present`` is the reader's first full picture: per seat, the tag UIDs (or card texts such as ``"QS"``) lying
    on that zone now. A card lifted while the app was down would otherwise stay on the zone for ever; feeding
    these lifts (journaled like any event) makes the table's zones the truth again. Cards the reader reports
    again are taken for what the table already knows (a repeated place is ignored).
    """
    lifts: list[CardLifted] = []
    for zone in state.zones:
        seen = present.get(zone.seat, ())
        for lying in zone.cards:
            if lying.uid in seen or (lying.card is not None and str(lying.card) in seen):
                continue
            lifts.append(CardLifted(time, zone.seat, lying.card, lying.uid))
    return lifts
