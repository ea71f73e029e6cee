"""Warnings: everything that can go wrong at a real table, each with a stable code the display translates.

A warning names the rule it enforces (RULES.md number, or None for a point of the physical protocol in
docs/table.md), the seat, the trick, parameters for the translated text, and a plain English sentence for logs
and records. Warnings stay on screen until their cause is gone (the stray card lifted, the reader back) or they
are acknowledged with the confirm button.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from tablepi.rules.seats import Seat


class WarningCode(enum.Enum):
    """Stable warning codes (docs/table.md lists each with its gesture and how it clears)."""

    OUT_OF_TURN = "out_of_turn"  # rules 9, 12: a card laid by a seat that is not to play
    UNKNOWN_TAG = "unknown_tag"  # rule 3: a tag not in the enrolled deck (phone, bank card, second deck)
    CARD_ALREADY_PLAYED = "card_already_played"  # rule 3: each card once per deal
    TWO_CARDS_ON_ZONE = "two_cards_on_zone"  # protocol: one card per zone
    LIFTED_EARLY = "lifted_early"  # protocol: a played card stays until its trick is complete
    ANNOUNCEMENT_WITHOUT_CARDS = "announcement_without_cards"  # rules 10-11
    ANNOUNCEMENT_TOO_LATE = "announcement_too_late"  # rule 10: only before one's first card
    QUEEN_SHOWN_BY_OTHER_SEAT = "queen_shown_by_other_seat"  # rule 11
    CARD_IN_TWO_HANDS = "card_in_two_hands"  # rule 8: a card shown or scanned by two seats
    TOO_MANY_CARDS = "too_many_cards"  # rule 8: more than six cards scanned for one hand
    REVOKE = "revoke"  # rules 13, 15, 18
    ILLEGAL_PLAY = "illegal_play"  # a card the rules forbid now (not in the scanned hand, trumps not named)
    CLAIM_REFUSED = "claim_refused"  # rule 21
    NOT_NOW = "not_now"  # a button that means nothing at this moment
    READER_OFFLINE = "reader_offline"  # protocol: a zone's reader is offline or faulty


@dataclass(frozen=True, slots=True)
class TableWarning:
    """One warning as the display and the records see it.

    ``params`` are name/value pairs (text) for the translated sentence: ``card``, ``expected``, ``holder``...
    ``tentative`` warnings belong to a card just placed: they disappear if the card turns out to be a show.
    """

    code: WarningCode
    rule: int | None
    seat: Seat | None
    trick: int | None
    message: str
    params: tuple[tuple[str, str], ...] = ()
    deal: int = 0
    tentative: bool = False

    def param(self, name: str) -> str | None:
        for key, value in self.params:
            if key == name:
                return value
        return None

    def to_json(self) -> dict[str, object]:
        """The warning as a plain mapping (replay --json)."""
        return {
            "code": self.code.value,
            "rule": self.rule,
            "seat": None if self.seat is None else self.seat.value,
            "trick": self.trick,
            "deal": self.deal,
            "message": self.message,
            "params": dict(self.params),
        }
