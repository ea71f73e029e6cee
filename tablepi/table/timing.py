"""Gesture timing: when a tentative card becomes a play, and which gesture settles which card (docs/table.md).

Pure decisions on event times only (the machine never reads a clock), so a replay decides exactly as the table did.
"""

from __future__ import annotations

from typing import TypeVar

from tablepi.rules.cards import Card
from tablepi.rules.deal import Deal
from tablepi.rules.seats import Direction, Seat
from tablepi.table.game import Action, PlayCard, ShowCard

T = TypeVar("T")


def due(placed: float, tap_window: float, time: float, *, blind: bool) -> bool:
    """Whether a tentative card placed at ``placed`` has lain for the whole tap window at ``time``.

    Time does not decide a card on a zone whose reader is ``blind`` (offline: it may have been lifted unseen); its
    window starts again when the reader is back. Undo (``time`` infinite) lays every tentative card.
    """
    if time != float("inf") and blind:
        return False
    return placed + tap_window <= time


def next_due(due_cards: list[tuple[Seat, T]], to_play: Seat | None) -> tuple[Seat, T]:
    """Of the cards that are due (oldest first), the one to lay first: the seat to play's, else the oldest.

    When two players lay at once the readers may report the second card before the first; the seat to play is
    settled first, then the next, and only then the rest.
    """
    return next(((seat, card) for seat, card in due_cards if seat is to_play), due_cards[0])


def settles(seat: Seat, to_play: Seat, deal: Deal, direction: Direction, because_place: bool) -> bool:
    """Whether a gesture of ``seat`` settles the tentative card of the seat to play.

    ``because_place``: ``seat`` placed a card; it settles the card of the seat before it ("the next seat's card
    follows"). Otherwise a card of the current trick is being swept: only the trick's fourth card is settled (a
    played card lifted from a trick his card would not complete was lifted early, not swept).
    """
    if to_play is seat:
        return False
    if because_place:
        return direction.next(to_play) is seat
    trick = deal.current_trick
    return trick is not None and len(trick.plays) == 3


def swept_fourth(
    last_tap: tuple[Seat, Card, float] | None, last_action: Action, deal: Deal, time: float, tap_window: float
) -> PlayCard | None:
    """A sweep that began with the fourth card: the play it was, if the last show was that card.

    The fourth card was lifted within the tap window, so it counted as a show; a card of its trick lifted within
    the tap window after it shows it was a sweep. Not so for a matador shown by a seat that may still announce:
    that is an announcement (rule 10), whatever follows.
    """
    trick = deal.current_trick
    if last_tap is None or trick is None or len(trick.plays) != 3:
        return None
    seat, card, lifted = last_tap
    if seat is not deal.to_play or time > lifted + tap_window or last_action != ShowCard(seat, card):
        return None
    if card.is_matador and deal.can_announce(seat):
        return None
    return PlayCard(seat, card)
