"""Warnings: everything that can go wrong at a real table, each with a stable code the display translates.

A warning names the rule it enforces (RULES.md number, or None for a point of the physical protocol in
docs/table.md), the seat, the trick, its parameters as values (cards, seats, the announcement...) and a plain
English sentence for logs and records. Text for players is made only where text is made: the screen's texts
(:mod:`tablepi.display.texts`) and the record writer (:meth:`TableWarning.to_json`). Warnings stay on screen until
their cause is gone (the stray card lifted, the reader back) or they are acknowledged with the confirm button.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field, fields
from typing import Any

from tablepi.errors import RulesCode
from tablepi.rules.cards import Card
from tablepi.rules.deal import Announcement
from tablepi.rules.house import RevokePenalty
from tablepi.rules.seats import Seat, Team
from tablepi.table.events import ButtonName, ReaderState


class WarningCode(enum.Enum):
    """Stable warning codes (docs/table.md lists each with its gesture and how it clears)."""

    OUT_OF_TURN = "out_of_turn"  # rules 9, 12: a card laid by a seat that is not to play
    UNKNOWN_TAG = "unknown_tag"  # rule 3: a tag not in the enrolled deck (phone, bank card, second deck)
    CARD_ALREADY_PLAYED = "card_already_played"  # rule 3: each card once per deal
    TWO_CARDS_ON_ZONE = "two_cards_on_zone"  # protocol: one card per zone
    LIFTED_EARLY = "lifted_early"  # protocol: a played card stays until its trick is complete
    ANNOUNCEMENT_WITHOUT_CARDS = "announcement_without_cards"  # rules 10-11: refused, the queen is known elsewhere
    ANNOUNCEMENT_TOO_LATE = "announcement_too_late"  # rule 10: only before one's first card
    FALSE_ANNOUNCEMENT = "false_announcement"  # rules 10-11: a claimed queen turned up at another seat: void
    QUEEN_SHOWN_BY_OTHER_SEAT = "queen_shown_by_other_seat"  # rule 11
    CARD_IN_TWO_HANDS = "card_in_two_hands"  # rule 8: a card shown or scanned by two seats
    TOO_MANY_CARDS = "too_many_cards"  # rule 8: more than six cards scanned for one hand
    REVOKE = "revoke"  # rules 13, 15, 18
    ILLEGAL_PLAY = "illegal_play"  # a card the rules forbid now (not in the scanned hand, trumps not named)
    CLAIM_REFUSED = "claim_refused"  # rule 21
    NOT_NOW = "not_now"  # a button that means nothing at this moment
    READER_OFFLINE = "reader_offline"  # protocol: a zone's reader is offline or faulty
    CROSSTALK = "crosstalk"  # protocol: a zone's antenna hears another zone's card: space them, lower the gain
    HAND_REFUSED = "hand_refused"  # a gesture by hand the rules refuse now (``refusal`` says why)


class TagProblem(enum.Enum):
    """Why a tag on a zone is no card of the game (``unknown_tag``)."""

    UNKNOWN = "unknown"  # not in any enrolled deck
    OTHER_DECK = "other_deck"  # a card of another deck than the one in play


@dataclass(frozen=True, slots=True)
class FaultFacts:
    """What a fault of play or a refused gesture is about, beyond its card, as values set where they apply.

    ``led`` and ``held`` a revoke's evidence (the card led, the cards that prove he could answer it); ``proof`` the
    later card that proved a revoke; ``expected`` the seat to play (out of turn); ``holder`` the seat a card was
    seen at; ``announcement`` the announcement refused, late or void; ``penalty`` the revoke penalty applied;
    ``played_by``/``played_in`` where a card was played before.
    """

    led: Card | None = None
    held: tuple[Card, ...] = ()
    proof: Card | None = None
    expected: Seat | None = None
    holder: Seat | None = None
    announcement: Announcement | None = None
    penalty: RevokePenalty | None = None
    played_by: Seat | None = None
    played_in: int | None = None


@dataclass(frozen=True, slots=True)
class DeviceFacts:
    """What a tag or a reader is about: ``uid``/``deck``/``tag`` an unknown tag; ``reader``/``detail`` a reader's
    state (``detail`` also what the reader said of two tags on a zone)."""

    uid: str = ""
    deck: str = ""
    tag: TagProblem | None = None
    reader: ReaderState | None = None
    detail: str = ""


@dataclass(frozen=True, slots=True)
class TableWarning:
    """One warning as the display and the records see it. Parameters are values, set where they apply:

    ``card`` the card it is about; ``fault`` what a fault of play is about (:class:`FaultFacts`); ``team`` and
    ``points`` a refused claim; ``device`` the tag or reader (:class:`DeviceFacts`); ``button`` the button pressed
    at the wrong moment; ``refusal`` the rules' reason for a refused action. :meth:`params` names them all as one.
    ``tentative`` warnings belong to a card just placed: they disappear if the card turns out to be a show.
    """

    code: WarningCode
    rule: int | None
    seat: Seat | None
    trick: int | None
    message: str  # plain English, for logs and records
    deal: int = 0
    tentative: bool = False
    card: Card | None = None
    fault: FaultFacts = field(default_factory=FaultFacts)
    team: Team | None = None
    points: tuple[tuple[Team, int], ...] = ()
    device: DeviceFacts = field(default_factory=DeviceFacts)
    button: ButtonName | None = None
    refusal: RulesCode | None = None

    def params(self) -> dict[str, object]:
        """The parameters that are set, by name, as values (for the screen's texts), in this order: the card, the
        fault's facts, the claim's team and points, the device's facts, the button, the refusal."""
        named = [
            ("card", self.card), *_named(self.fault), ("team", self.team), ("points", self.points),
            *_named(self.device), ("button", self.button), ("refusal", self.refusal),
        ]
        return {name: value for name, value in named if value is not None and value != "" and value != ()}

    def to_json(self) -> dict[str, object]:
        """The warning as a plain mapping (replay --json, records): values become their record text."""
        return {
            "code": self.code.value,
            "rule": self.rule,
            "seat": None if self.seat is None else self.seat.value,
            "trick": self.trick,
            "deal": self.deal,
            "message": self.message,
            "params": {name: _text(value) for name, value in self.params().items()},
        }


def _named(facts: FaultFacts | DeviceFacts) -> list[tuple[str, object]]:
    return [(f.name, getattr(facts, f.name)) for f in fields(facts)]


def _text(value: object) -> Any:
    """A parameter as record text: a card "QS", a seat "N", an enum its value, pairs as a mapping."""
    if isinstance(value, Card | Seat | Team):
        return str(value)
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, tuple):
        if value and all(isinstance(v, tuple) for v in value):
            return {_text(k): v for k, v in value}
        return [_text(v) for v in value]
    return value
