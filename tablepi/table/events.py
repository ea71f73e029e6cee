"""What happens at the table, as the table state machine sees it.

These are the table's own events: the app turns reader and button events into them (see
:mod:`tablepi.table.adapter`), the journal stores them, a game record is a list of them. Every event carries
``time``: monotonic seconds from the start of the record. The state machine never reads a clock, so a replay of
the same events gives the same state, "tap" and "lay" included (docs/table.md).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from tablepi.rules.cards import Card, Suit
from tablepi.rules.deal import Announcement
from tablepi.rules.entry import DealEntry
from tablepi.rules.seats import Seat, Team


@dataclass(frozen=True, slots=True)
class CardPlaced:
    """A card (or an unknown tag) arrived on ``seat``'s zone.

    ``card`` is None when the deck registry does not know the tag (a phone, a bank card, a stranger's card);
    ``uid`` is the tag UID when the event came from a reader, ``deck`` the registry's name of its deck.
    """

    time: float
    seat: Seat
    card: Card | None
    uid: str = ""
    deck: str = ""

    def __str__(self) -> str:
        what = str(self.card) if self.card is not None else f"tag {self.uid}"
        return f"@{self.time:.3f} {self.seat} +{what}"


@dataclass(frozen=True, slots=True)
class CardLifted:
    """A card (or an unknown tag) left ``seat``'s zone. Same fields as :class:`CardPlaced`, and ``misread``:
    the card never lay there — the zone's antenna heard it on the neighbouring zone, and the reader gave it to
    that zone (a card landing between two antennas): not a show, nothing happened at this seat.
    """

    time: float
    seat: Seat
    card: Card | None
    uid: str = ""
    deck: str = ""
    misread: bool = False

    def __str__(self) -> str:
        what = str(self.card) if self.card is not None else f"tag {self.uid}"
        return f"@{self.time:.3f} {self.seat} -{what}"


class ButtonName(enum.Enum):
    """Every button or touch the table understands. Values are the names used in records and by the display."""

    UNDO = "undo"
    CONFIRM = "confirm"
    TRUMP_SPADES = "trump_spades"
    TRUMP_HEARTS = "trump_hearts"
    TRUMP_DIAMONDS = "trump_diamonds"
    TRUMP_CLUBS = "trump_clubs"
    ANNOUNCE_MATT = "announce_matt"
    ANNOUNCE_KONTER = "announce_konter"
    ANNOUNCE_KONTER_A_MATT = "announce_konter_a_matt"
    CLAIM = "claim"
    NEW_MATCH = "new_match"
    REVANCHE = "revanche"
    #: The screen's Review touch: shows or hides the last deal's best-play review. The app handles it itself (it
    #: changes nothing at the table and is not journaled); a table given one ignores it.
    REVIEW = "review"

    @classmethod
    def trump(cls, suit: Suit) -> ButtonName:
        """The trump button of ``suit``."""
        return next(button for button, named in _BUTTON_SUITS.items() if named is suit)

    @property
    def suit(self) -> Suit | None:
        """The suit a trump button names."""
        return _BUTTON_SUITS.get(self)

    @property
    def announcement(self) -> Announcement | None:
        """The announcement an announce button makes."""
        return _BUTTON_ANNOUNCEMENTS.get(self)


_BUTTON_SUITS = {
    ButtonName.TRUMP_SPADES: Suit.SPADES,
    ButtonName.TRUMP_HEARTS: Suit.HEARTS,
    ButtonName.TRUMP_DIAMONDS: Suit.DIAMONDS,
    ButtonName.TRUMP_CLUBS: Suit.CLUBS,
}
_BUTTON_ANNOUNCEMENTS = {
    ButtonName.ANNOUNCE_MATT: Announcement.MATT,
    ButtonName.ANNOUNCE_KONTER: Announcement.KONTER,
    ButtonName.ANNOUNCE_KONTER_A_MATT: Announcement.KONTER_A_MATT,
}


@dataclass(frozen=True, slots=True)
class Button:
    """A button press or a touch on the screen.

    ``seat`` says who, when the control knows it (a per-seat button, a touch on a seat's corner): the announcer,
    the claiming side, or the first dealer of a new match. Without it the table infers the seat where the rules
    leave one choice (docs/table.md) and otherwise refuses with a warning.
    """

    time: float
    name: ButtonName
    seat: Seat | None = None

    def __str__(self) -> str:
        who = f" {self.seat}" if self.seat is not None else ""
        return f"@{self.time:.3f} button {self.name.value}{who}"


class ReaderState(enum.Enum):
    """Health of one seat's zone reader (the values match the readers' ZoneState)."""

    ONLINE = "online"
    OFFLINE = "offline"
    FAULT = "fault"
    MULTI = "multi"


@dataclass(frozen=True, slots=True)
class ReaderStatus:
    """The reader under ``seat``'s zone changed health."""

    time: float
    seat: Seat
    state: ReaderState
    detail: str = ""

    def __str__(self) -> str:
        return f"@{self.time:.3f} reader {self.seat} {self.state.value}"


@dataclass(frozen=True, slots=True)
class ReaderCrosstalk:
    """The reader under ``seat``'s zone heard a tag that is no card laid there: crosstalk between antennas.

    ``holder`` is the seat whose zone holds that card (the card stays there: one card, one place), or None when
    the zone read an unknown tag where a known card lies (a garbled read); ``card`` is the card the tag stands
    for (None for an unknown tag). Never a play: the table only tells the owner to space the antennas or lower
    the readers' gain.
    """

    time: float
    seat: Seat
    card: Card | None
    uid: str = ""
    holder: Seat | None = None

    def __str__(self) -> str:
        what = str(self.card) if self.card is not None else f"tag {self.uid}"
        where = f" of {self.holder}" if self.holder is not None else " (garbled)"
        return f"@{self.time:.3f} crosstalk {self.seat} hears {what}{where}"


@dataclass(frozen=True, slots=True)
class Tick:
    """Time passed. The app feeds one now and then so that a card lying longer than the tap window becomes a
    play without waiting for the next gesture."""

    time: float

    def __str__(self) -> str:
        return f"@{self.time:.3f} tick"


# --- gestures by hand (docs/table.md, "By hand"): record version 2 ---------------------------------------------


@dataclass(frozen=True, slots=True)
class CardEntered:
    """A card entered by hand on the screen for ``seat`` (his reader is offline, or it misread): played as if laid.
    Nothing lies on the zone for it; the trick, the screen and the record mark it as entered by hand."""

    time: float
    seat: Seat
    card: Card

    def __str__(self) -> str:
        return f"@{self.time:.3f} {self.seat} by hand {self.card}"


@dataclass(frozen=True, slots=True)
class TrumpsEntered:
    """Forehand names trumps by hand on the screen (his reader is off), as the suit of his card shown would (rule
    9). Between deals, once the last deal's cards are gathered, it begins the next deal first, as his card laid
    would, the warnings on screen acknowledged as Confirm acknowledges them."""

    time: float
    seat: Seat
    suit: Suit

    def __str__(self) -> str:
        return f"@{self.time:.3f} {self.seat} names trumps by hand {self.suit.value}"


@dataclass(frozen=True, slots=True)
class DealEntered:
    """A whole deal told by hand (a chalk slate): scored by the rules core into the slate. A deal in progress is
    given up for it (its cards are gathered)."""

    time: float
    entry: DealEntry

    def __str__(self) -> str:
        return f"@{self.time:.3f} deal by hand {self.entry.result().describe()}"


@dataclass(frozen=True, slots=True)
class CorrectionProposed:
    """Deal ``deal`` of this match was scored wrong: ``entry`` is what it should have been. It takes effect once
    both teams accept it (:class:`CorrectionAnswered`); ``team``: who proposed, when the screen knows."""

    time: float
    deal: int
    entry: DealEntry
    team: Team | None = None

    def __str__(self) -> str:
        return f"@{self.time:.3f} correction of deal {self.deal}: {self.entry.result().describe()}"


@dataclass(frozen=True, slots=True)
class CorrectionAnswered:
    """``team`` accepts (or refuses) the correction proposed: one accept per team applies it, a refusal drops it."""

    time: float
    team: Team
    accept: bool

    def __str__(self) -> str:
        return f"@{self.time:.3f} {self.team} {'accept' if self.accept else 'refuse'} the correction"


class SeatingSource(enum.Enum):
    """Where a seating came from."""

    TOUCH = "touch"  # typed on the screen's keyboard (or an earlier name chosen)
    TAG = "tag"  # the player's own tag tapped on his zone
    TOURNAMENT = "tournament"  # the tournament's seating for this round (tablepi.feed)
    CONFIG = "config"  # the configuration file's names
    KEPT = "kept"  # the names of the evening's last match, written at the start of the next match's journal


@dataclass(frozen=True, slots=True)
class PlayersSeated:
    """Players sit down: ``names`` by seat (one seat or all four). Later seatings replace a seat's name.

    ``round``: the tournament round whose seating this is (source TOURNAMENT), or the round in force that the
    names are kept in (source KEPT, at the start of a new journal); ``round_deals``: that round is the first this
    many deals of a match (None: the whole match). The journal keeps them, so which round each event was journaled
    under, and whether the table's match of it was played to its end, are read from the journal itself (the feed
    tags its events with the round, docs/feed.md); other sources leave the round in force as it is."""

    time: float
    names: tuple[tuple[Seat, str], ...]
    source: SeatingSource = SeatingSource.TOUCH
    uid: str = ""  # the player tag that seated him (source TAG)
    round: int | None = None
    round_deals: int | None = None

    def __post_init__(self) -> None:
        # One spelling of one seating: names in seat order (N E S W) and the tag's hex in capitals, as the record
        # reader gives them back — so a seating built in any order is the very event its journal line replays.
        order = tuple(Seat)
        object.__setattr__(self, "names", tuple(sorted(self.names, key=lambda item: order.index(item[0]))))
        object.__setattr__(self, "uid", self.uid.upper())

    def __str__(self) -> str:
        who = ", ".join(f"{seat} {name}" for seat, name in self.names)
        where = "" if self.round is None else f", round {self.round}"
        return f"@{self.time:.3f} seated {who} ({self.source.value}{where})"


@dataclass(frozen=True, slots=True)
class DealerChosen:
    """The players choose the first dealer of the match (before its first trumps are named)."""

    time: float
    seat: Seat

    def __str__(self) -> str:
        return f"@{self.time:.3f} first dealer {self.seat}"


#: The gestures by hand: events of record version 2.
HandEvent = (CardEntered | TrumpsEntered | DealEntered | CorrectionProposed | CorrectionAnswered | PlayersSeated
             | DealerChosen)


#: Everything the table state machine consumes.
TableEvent = CardPlaced | CardLifted | Button | ReaderStatus | ReaderCrosstalk | Tick | HandEvent
