"""What a touch on the screen names, as values: a key of the open sheet, the header, a seat's card place.

The screen's hit-map (:func:`tablepi.display.touch.hit_map`) carries these values from the drawing to the app,
and the panels (:mod:`tablepi.display.panels`) take them as they are: nothing is turned into text and read back
on the way. Each value has a stable text form (``str(SuitKey(Suit.HEARTS)) == "suit:H"``), written only where
text is wanted — the hit-map file a robot player reads, the log — and :func:`key_named` / :func:`touch_named` read
it back for those who write keys as text (tests, a robot).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from tablepi.errors import ParseError
from tablepi.rules.cards import Card, Suit
from tablepi.rules.seats import Seat, Team
from tablepi.table.events import ButtonName


class Word(enum.Enum):
    """The keys that are a word of their own (the value is the key's text)."""

    OK = "ok"
    CANCEL = "cancel"
    BACK = "back"
    CONFIRM = "confirm"
    SHIFT = "shift"
    DIGITS = "digits"
    SPACE = "space"
    PUBLIC = "public"  # the keyboard's "my name on the phones"
    UP = "up"
    DOWN = "down"
    POINTS = "points"  # the deal form's winners' points: opens the number pad
    KAPO = "kapo"
    CLAIM = "claim"
    PAD_BACK = "pad:back"
    PAD_CANCEL = "pad:cancel"
    STOP = "stop"  # the enrol mode's one key

    def __str__(self) -> str:
        return self.value


class Opening(enum.Enum):
    """What a key of the menu (the start sheet, the enrol menu) opens."""

    DEAL = "deal"  # a deal by hand
    CORRECT = "correct"  # the correction of the last deal
    HISTORY = "history"  # the evening's deals
    PLAYERS = "players"  # the players' names, seat by seat
    DEALER = "dealer"  # the first dealer
    ENROL = "enrol"  # the enrol menu
    ENROL_DECK = "enrol_deck"  # the keyboard for the deck's name
    ENROL_PLAYER = "enrol_player"  # the keyboard for the player's name
    PHONE = "phone"  # the pages' QR code


class SeatRole(enum.Enum):
    """What a seat key of a panel chooses: the first dealer, or in the deal form who named trumps, who said Matt,
    who said Konter."""

    DEALER = "seat"
    TRUMPS = "trumps"
    MATT = "matt"
    KONTER = "konter"


@dataclass(frozen=True, slots=True)
class OpenKey:
    what: Opening

    def __str__(self) -> str:
        return f"open:{self.what.value}"


@dataclass(frozen=True, slots=True)
class SuitKey:
    suit: Suit

    def __str__(self) -> str:
        return f"suit:{self.suit.value}"


@dataclass(frozen=True, slots=True)
class CardKey:
    card: Card

    def __str__(self) -> str:
        return f"card:{self.card}"


@dataclass(frozen=True, slots=True)
class CharKey:
    """A letter (or digit, or sign) of the on-screen keyboard."""

    char: str

    def __str__(self) -> str:
        return f"char:{self.char}"


@dataclass(frozen=True, slots=True)
class NameKey:
    """A name the keyboard offers (an earlier player, a player tag)."""

    name: str

    def __str__(self) -> str:
        return f"name:{self.name}"


@dataclass(frozen=True, slots=True)
class DigitKey:
    """A digit of the deal form's number pad."""

    digit: int

    def __str__(self) -> str:
        return f"digit:{self.digit}"


@dataclass(frozen=True, slots=True)
class SeatKey:
    role: SeatRole
    seat: Seat

    def __str__(self) -> str:
        return f"{self.role.value}:{self.seat.value}"


@dataclass(frozen=True, slots=True)
class WinnerKey:
    """The deal form's winners: a team, or None for a tie."""

    team: Team | None

    def __str__(self) -> str:
        return f"winner:{'tie' if self.team is None else self.team.value}"


@dataclass(frozen=True, slots=True)
class DealKey:
    """The correction form's ◀ (-1) and ▶ (+1): the deal before or after."""

    step: int

    def __str__(self) -> str:
        return f"deal:{'+' if self.step > 0 else '-'}"


@dataclass(frozen=True, slots=True)
class RowKey:
    """A row of the evening's deals: the correction of deal ``deal`` of this match."""

    deal: int

    def __str__(self) -> str:
        return f"row:{self.deal}"


@dataclass(frozen=True, slots=True)
class AnswerKey:
    """A team's answer to the correction waiting."""

    team: Team
    accept: bool

    def __str__(self) -> str:
        return f"answer:{self.team.value}:{'yes' if self.accept else 'no'}"


#: A key of a sheet.
Key = (Word | OpenKey | SuitKey | CardKey | CharKey | NameKey | DigitKey | SeatKey | WinnerKey | DealKey | RowKey
       | AnswerKey)


@dataclass(frozen=True, slots=True)
class MenuTouch:
    """The header: it opens the menu."""

    def __str__(self) -> str:
        return "open:menu"


@dataclass(frozen=True, slots=True)
class PlaceTouch:
    """A seat's card place (or, on the slate, the bar that stands for it): a card or trumps by hand."""

    seat: Seat

    def __str__(self) -> str:
        return f"zone:{self.seat.value}"


@dataclass(frozen=True, slots=True)
class KeyTouch:
    """A key of the sheet on screen."""

    key: Key

    def __str__(self) -> str:
        return f"key:{self.key}"


#: What a touch on the screen names: a button (the table's own name for it), a key of the sheet, the header, a
#: seat's card place. Its text (``str``) is the control's name in the hit-map.
Touched = ButtonName | KeyTouch | MenuTouch | PlaceTouch
#: What the hand-entry console takes (the buttons are the table's).
ConsoleTouch = KeyTouch | MenuTouch | PlaceTouch


def touch_name(touched: Touched) -> str:
    """The text a hit-map names a control by: a button's name, ``key:…``, ``open:menu``, ``zone:S``."""
    return touched.value if isinstance(touched, ButtonName) else str(touched)


def key_named(text: str) -> Key:
    """The key a text names (:func:`str` of a key read back).

    >>> key_named("suit:H"), key_named("answer:EW:no"), key_named("ok")
    (SuitKey(suit=<Suit.HEARTS: 'H'>), AnswerKey(team=<Team.EW: 'EW'>, accept=False), <Word.OK: 'ok'>)
    """
    try:
        return Word(text)
    except ValueError:
        pass
    kind, _, value = text.partition(":")
    try:
        if kind == "open":
            return OpenKey(Opening(value))
        if kind == "suit":
            return SuitKey(Suit.parse(value))
        if kind == "card":
            return CardKey(Card.parse(value))
        if kind == "char" and len(value) == 1:
            return CharKey(value)
        if kind == "name" and value:
            return NameKey(value)
        if kind == "digit" and value.isdigit() and len(value) == 1:
            return DigitKey(int(value))
        if kind in _ROLES:
            return SeatKey(_ROLES[kind], Seat.parse(value))
        if kind == "winner":
            return WinnerKey(None if value == "tie" else Team.parse(value))
        if kind == "deal" and value in ("+", "-"):
            return DealKey(1 if value == "+" else -1)
        if kind == "row" and value.isdigit():
            return RowKey(int(value))
        if kind == "answer":
            team, _, word = value.partition(":")
            if word in ("yes", "no"):
                return AnswerKey(Team.parse(team), word == "yes")
    except (ValueError, ParseError):
        pass
    raise ParseError(f"not a key of the screen: {text!r}")


_ROLES = {role.value: role for role in SeatRole}


def touch_named(text: str) -> Touched:
    """What a control's name in the hit-map names (:func:`touch_name` read back)."""
    if text == "open:menu":
        return MenuTouch()
    if text.startswith("zone:"):
        return PlaceTouch(Seat.parse(text.removeprefix("zone:")))
    if text.startswith("key:"):
        return KeyTouch(key_named(text.removeprefix("key:")))
    try:
        return ButtonName(text)
    except ValueError:
        raise ParseError(f"not a control of the screen: {text!r}") from None
