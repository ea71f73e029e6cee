"""The table's state: immutable snapshots made of plain values, for the display and the tests to read.

A :class:`TableState` is rebuilt after each event. It holds enums, cards, seats and tuples only; equal states
mean the table is in the same situation, which the crash test relies on.
"""

from __future__ import annotations

import enum
from collections.abc import Iterator
from dataclasses import dataclass, field, replace

from tablepi.errors import ConfigError
from tablepi.rules.cards import Card, Suit
from tablepi.rules.deal import Announcement, DealResult
from tablepi.rules.entry import DealEntry
from tablepi.rules.seats import Seat, Team
from tablepi.rules.slate import Line, SlateEntry
from tablepi.safeinput import shown
from tablepi.table.events import ButtonName, ReaderState
from tablepi.table.warnings import TableWarning

#: The bounds of the tap window, in seconds: the one check of it, for the configuration file's
#: ``table.tap_seconds`` and a record's ``table.tap_window`` alike.
TAP_WINDOW_BOUNDS = (0.2, 5.0)


def check_tap_window(value: object, key: str = "table.tap_window") -> float:
    """``value`` as a tap window in seconds, within :data:`TAP_WINDOW_BOUNDS`; else a ConfigError naming ``key``."""
    low, high = TAP_WINDOW_BOUNDS
    if isinstance(value, bool) or not isinstance(value, int | float) or not low <= value <= high:
        raise ConfigError.setting(key, f"expected seconds between {low:g} and {high:g}, got {shown(value)}")
    return float(value)


@dataclass(frozen=True, slots=True)
class TableConfig:
    """How this table reads gestures (docs/table.md).

    ``tap_window``: a card on a zone for less than this many seconds is a tap (a show), longer a lay (a play).
    ``hand_scan``: after trumps each player taps his six cards, so the table knows every hand.
    ``deck``: the enrolled deck's name; a tag of another deck is refused. None: the first deck seen is used.
    """

    tap_window: float = 1.0
    hand_scan: bool = False
    deck: str | None = None

    def __post_init__(self) -> None:
        check_tap_window(self.tap_window)
        if not isinstance(self.hand_scan, bool):
            raise ConfigError.setting("table.hand_scan", f"expected true or false, got {self.hand_scan!r}")
        if self.deck is not None and (not isinstance(self.deck, str) or not self.deck):
            raise ConfigError.setting("table.deck", f"expected a deck name, got {self.deck!r}")

    @classmethod
    def from_mapping(cls, mapping: object, where: str = "table") -> TableConfig:
        if not isinstance(mapping, dict):
            raise ConfigError.setting(where, f"expected a table of settings, got {type(mapping).__name__}")
        known = {"tap_window", "hand_scan", "deck"}
        unknown = sorted(set(mapping) - known)
        if unknown:
            raise ConfigError.setting(where, f"unknown setting {unknown[0]!r} (known: {', '.join(sorted(known))})")
        return cls(
            tap_window=mapping.get("tap_window", 1.0),
            hand_scan=mapping.get("hand_scan", False),
            deck=mapping.get("deck"),
        )

    def to_mapping(self) -> dict[str, object]:
        return {"tap_window": self.tap_window, "hand_scan": self.hand_scan, "deck": self.deck}


class TablePhase(enum.Enum):
    """Where the table stands (the state diagram in docs/table.md)."""

    TRUMPS = "trumps"  # forehand names trumps (rule 9)
    HAND_SCAN = "hand_scan"  # hand-scan mode: each player taps his six cards
    PLAY = "play"  # announcements and tricks (rules 10-18)
    DEAL_OVER = "deal_over"  # the deal is scored; sweep, then the next dealer deals (rule 22)
    MATCH_OVER = "match_over"  # a team has struck all its lines (rule 28); revanche or new match (rule 29)


class ZoneCardStatus(enum.Enum):
    """What a card lying on a zone means to the table."""

    TENTATIVE = "tentative"  # just placed: a play if it stays, a show if lifted within the tap window
    PLAYED = "played"  # part of a trick
    SHOWN = "shown"  # used to name trumps or scanned: to be lifted, means nothing more
    STRAY = "stray"  # lies there but is not in play (out of turn, unknown, already played, undone): lift it


@dataclass(frozen=True, slots=True)
class ZoneCard:
    card: Card | None  # None: an unknown tag
    uid: str
    status: ZoneCardStatus
    placed: float


@dataclass(frozen=True, slots=True)
class Zone:
    """One seat's zone: what lies on it and whether its reader works."""

    seat: Seat
    cards: tuple[ZoneCard, ...] = ()
    reader: ReaderState = ReaderState.ONLINE

    @property
    def is_clear(self) -> bool:
        return not self.cards


class PromptCode(enum.Enum):
    """The gesture the table waits for (docs/table.md, "Prompts"); the display turns it into a sentence."""

    NAME_TRUMPS = "name_trumps"  # forehand names trumps (rule 9)
    SCAN_HAND = "scan_hand"  # hand-scan mode: the seat taps his cards
    PLAY = "play"  # the seat lays (or leads) a card
    SWEEP = "sweep"  # the trick's winner sweeps it off (seat None: the deal's last trick)
    LIFT_CARD = "lift_card"  # a card that is not in play lies on the seat's zone
    PUT_BACK = "put_back"  # a played card was lifted before its trick was complete
    NEXT_DEAL = "next_deal"  # the seat deals the next deal (rule 22)
    MATCH_OVER = "match_over"  # revanche or a new match (rule 29)
    CHOOSE_SEAT = "choose_seat"  # a touch that did not say whose it is: which seat? (``button`` says which)


@dataclass(frozen=True, slots=True)
class Prompt:
    """The gesture the table expects now: a code, the seat that acts, and what the sentence needs, as values.

    ``card``/``uid``: the card to lift or put back (``uid`` for an unknown tag); ``trick``: the trick being played
    or swept; ``lead``: the seat leads the trick; ``count``: cards scanned so far; ``forehand``: who names trumps
    next; ``winner``: the match's winners; ``button``: the touch waiting for its seat.
    """

    code: PromptCode
    seat: Seat | None = None
    card: Card | None = None
    uid: str = ""
    trick: int | None = None
    lead: bool = False
    count: int | None = None
    forehand: Seat | None = None
    winner: Team | None = None
    button: ButtonName | None = None

    def __iter__(self) -> Iterator[PromptCode | Seat | None]:
        """``code, seat = state.prompt`` reads like the (NAME_TRUMPS, W) of the design notes."""
        return iter((self.code, self.seat))


@dataclass(frozen=True, slots=True)
class Target:
    """One button the table would act on now: its name and the seat it acts for (None: it needs no seat)."""

    name: ButtonName
    seat: Seat | None = None


@dataclass(frozen=True, slots=True)
class Possible:
    """What may happen now, computed once from the game and the house rules (:mod:`tablepi.table.possible`).

    ``announce``: per seat that may still announce, the announcements it may make (rule 10); ``claim``: the team
    that may claim (rule 21, house rule ``claims``), None when none may; ``buttons``: every button the table acts
    on now, per seat where the touch acts for a seat; ``by_hand``: who may enter a card by hand, and ``hand_cards``
    which cards; ``choose_dealer``: whether the match is starting, its first dealer still to be chosen. A consumer
    draws this and derives no rule of its own.
    """

    announce: tuple[tuple[Seat, tuple[Announcement, ...]], ...] = ()
    claim: Team | None = None
    buttons: tuple[Target, ...] = ()
    #: The seats that may enter a card by hand now (the seat to play; or the next one, while the card of the seat
    #: to play lies tentatively on his zone: entering settles it as laid, as the next card laid would).
    by_hand: tuple[Seat, ...] = ()
    #: Per seat that may enter a card by hand while tricks are played, the cards that may still be in his hand:
    #: none played, none seen in another hand or lying on another zone (:meth:`~tablepi.rules.deal.Deal.may_hold`).
    hand_cards: tuple[tuple[Seat, tuple[Card, ...]], ...] = ()
    #: A match is about to begin (no deal of it scored, its first trumps not named): its first dealer may be chosen.
    choose_dealer: bool = False

    def live(self, name: ButtonName, seat: Seat | None = None) -> bool:
        """Whether pressing ``name`` (for ``seat``) would be acted on now."""
        return Target(name, seat) in self.buttons

    def announcements_of(self, seat: Seat) -> tuple[Announcement, ...]:
        return next((what for who, what in self.announce if who is seat), ())

    def cards_for(self, seat: Seat) -> tuple[Card, ...]:
        """The cards ``seat`` may enter by hand now (none: he may not, or he names trumps instead)."""
        return next((cards for who, cards in self.hand_cards if who is seat), ())

    def seats_for(self, name: ButtonName) -> tuple[Seat, ...]:
        """The seats a per-seat button is live for, in N E S W order."""
        return tuple(t.seat for t in self.buttons if t.name is name and t.seat is not None)


@dataclass(frozen=True, slots=True)
class TrickView:
    number: int
    leader: Seat
    plays: tuple[tuple[Seat, Card], ...]
    winner: Seat | None
    points: int
    by_hand: tuple[Seat, ...] = ()  # seats whose card in this trick was entered by hand (nothing lay on the zone)

    def card_of(self, seat: Seat) -> Card | None:
        for who, card in self.plays:
            if who is seat:
                return card
        return None


@dataclass(frozen=True, slots=True)
class HistoryRow:
    """One scored deal of the evening: which match, its slate entry, who named trumps, how it was scored."""

    match: int
    entry: SlateEntry
    trumps: Seat | None
    by_hand: bool = False  # told by hand, or some of its cards entered by hand
    corrected: bool = False  # corrected afterwards, both teams agreeing


@dataclass(frozen=True, slots=True)
class Evening:
    """What the evening holds before the first match of this table (the matches already archived tonight,
    docs/journal.md "The evening"): how many, and their scored deals, numbered in the evening."""

    matches: int = 0
    history: tuple[HistoryRow, ...] = ()

    def then(self, matches: int, history: tuple[HistoryRow, ...]) -> Evening:
        """The evening once ``matches`` more are over: their ``history``, numbered from 1 among themselves."""
        numbered = tuple(replace(row, match=row.match + self.matches) for row in history)
        return Evening(self.matches + matches, self.history + numbered)


@dataclass(frozen=True, slots=True)
class CorrectionView:
    """A correction waiting for both teams: deal ``number`` should be scored from ``entry``."""

    number: int
    entry: DealEntry
    accepted: tuple[Team, ...] = ()

    @property
    def waiting(self) -> tuple[Team, ...]:
        return tuple(team for team in Team if team not in self.accepted)


@dataclass(frozen=True, slots=True)
class DealView:
    """The deal in progress (between deals: the one just scored, or the next one's seats before any card)."""

    number: int  # 1-based within the match
    dealer: Seat
    forehand: Seat
    #: Who names trumps in the deal told by hand now, or begun next: the deal in progress's forehand, between deals
    #: the next deal's (rule 22; after a deal told by hand or corrected too). The screen presets it; never derive it.
    next_forehand: Seat
    trump: Suit | None
    to_play: Seat | None
    trick_number: int
    tricks: tuple[TrickView, ...]  # the deal's tricks, the one in play included
    announcements: tuple[tuple[Seat, Announcement], ...]  # the standing ones (a false one is void: ``voided``)
    voided: tuple[tuple[Seat, Announcement], ...]  # announcements this deal that evidence proved false
    shown: tuple[tuple[Seat, tuple[Card, ...]], ...]  # evidence: cards seen in a hand (shown, scanned), unplayed
    scanned: tuple[tuple[Seat, int], ...]  # hand-scan mode: cards scanned per seat
    points: tuple[tuple[Team, int], ...]  # card points in completed tricks
    tricks_won: tuple[tuple[Team, int], ...]

    def points_of(self, team: Team) -> int:
        return dict(self.points)[team]

    @property
    def current_trick(self) -> TrickView | None:
        if self.tricks and self.tricks[-1].winner is None:
            return self.tricks[-1]
        return None


@dataclass(frozen=True, slots=True)
class MatchView:
    """The match being played: its number in the evening, its slate and its end."""

    number: int  # 1-based within the evening (the archived matches of tonight first)
    open_lines: tuple[tuple[Team, int], ...]
    lines: tuple[tuple[Team, tuple[Line, ...]], ...]
    slate: tuple[SlateEntry, ...]  # this match's scored deals
    last_result: DealResult | None
    winner: Team | None
    proposal: CorrectionView | None = None  # a correction waiting for both teams' answer

    def open_lines_of(self, team: Team) -> int:
        return dict(self.open_lines)[team]


@dataclass(frozen=True, slots=True)
class TableState:
    """One snapshot of the table. Read it; never build one yourself (the state machine does).

    ``deal`` is the deal in progress (:class:`DealView`), ``match`` the match and its slate (:class:`MatchView`);
    ``possible`` what each seat may do now; ``names`` who sits where; ``history`` the evening's scored deals.
    """

    time: float
    events: int  # events consumed so far
    phase: TablePhase
    prompt: Prompt
    deal: DealView
    match: MatchView
    zones: tuple[Zone, ...]  # N E S W
    warnings: tuple[TableWarning, ...]
    can_undo: bool
    config: TableConfig = field(default_factory=TableConfig)
    possible: Possible = field(default_factory=Possible)
    names: tuple[tuple[Seat, str], ...] = ()  # who sits where (seated by touch, tag or the tournament)
    history: tuple[HistoryRow, ...] = ()  # every scored deal of the evening (archived matches included)

    def zone(self, seat: Seat) -> Zone:
        return self.zones[_SEAT_INDEX[seat]]

    def warning_codes(self) -> tuple[str, ...]:
        return tuple(w.code.value for w in self.warnings)

    def live(self, name: ButtonName, seat: Seat | None = None) -> bool:
        """Whether the table acts on ``name`` (for ``seat``) now: see :class:`Possible`."""
        return self.possible.live(name, seat)


_SEAT_INDEX = {seat: i for i, seat in enumerate(Seat)}
