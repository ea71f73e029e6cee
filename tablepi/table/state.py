"""The table's state: immutable snapshots made of plain values, for the display and the tests to read.

A :class:`TableState` is rebuilt after each event. It holds enums, cards, seats and tuples only; equal states
mean the table is in the same situation, which the crash test relies on.
"""

from __future__ import annotations

import enum
from collections.abc import Iterator
from dataclasses import dataclass, field

from tablepi.errors import ConfigError
from tablepi.rules.cards import Card, Suit
from tablepi.rules.deal import Announcement, DealResult
from tablepi.rules.seats import Seat, Team
from tablepi.rules.slate import Line, SlateEntry
from tablepi.table.events import ReaderState
from tablepi.table.warnings import TableWarning


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
        window = self.tap_window
        if isinstance(window, bool) or not isinstance(window, int | float) or not 0.05 <= window <= 10:
            raise ConfigError(f"table.tap_window: expected seconds between 0.05 and 10, got {window!r}")
        if not isinstance(self.hand_scan, bool):
            raise ConfigError(f"table.hand_scan: expected true or false, got {self.hand_scan!r}")
        if self.deck is not None and (not isinstance(self.deck, str) or not self.deck):
            raise ConfigError(f"table.deck: expected a deck name, got {self.deck!r}")

    @classmethod
    def from_mapping(cls, mapping: object, where: str = "table") -> TableConfig:
        if not isinstance(mapping, dict):
            raise ConfigError(f"{where}: expected a table of settings, got {type(mapping).__name__}")
        known = {"tap_window", "hand_scan", "deck"}
        unknown = sorted(set(mapping) - known)
        if unknown:
            raise ConfigError(f"{where}: unknown setting {unknown[0]!r} (known: {', '.join(sorted(known))})")
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


@dataclass(frozen=True, slots=True)
class Prompt:
    """The gesture the table expects now: a stable ``code`` (translated by the display), a seat and parameters.

    Codes: name_trumps, scan_hand, play, sweep, lift_card, put_back, next_deal, match_over (docs/table.md).
    """

    code: str
    seat: Seat | None = None
    params: tuple[tuple[str, str], ...] = ()

    def param(self, name: str) -> str | None:
        for key, value in self.params:
            if key == name:
                return value
        return None

    def __iter__(self) -> Iterator[str | Seat | None]:
        """``code, seat = state.prompt`` reads like the ("name_trumps", W) of the design notes."""
        return iter((self.code, self.seat))


@dataclass(frozen=True, slots=True)
class TrickView:
    number: int
    leader: Seat
    plays: tuple[tuple[Seat, Card], ...]
    winner: Seat | None
    points: int

    def card_of(self, seat: Seat) -> Card | None:
        for who, card in self.plays:
            if who is seat:
                return card
        return None


@dataclass(frozen=True, slots=True)
class TableState:
    """One snapshot of the table. Read it; never build one yourself (the state machine does)."""

    time: float
    events: int  # events consumed so far
    phase: TablePhase
    prompt: Prompt
    match_number: int
    deal_number: int  # 1-based within the match
    dealer: Seat
    forehand: Seat
    trump: Suit | None
    to_play: Seat | None
    trick_number: int
    tricks: tuple[TrickView, ...]  # the current deal's tricks, the one in play included
    announcements: tuple[tuple[Seat, Announcement], ...]
    shown: tuple[tuple[Seat, tuple[Card, ...]], ...]  # cards known to be in a hand (shown, announced, scanned)
    scanned: tuple[tuple[Seat, int], ...]  # hand-scan mode: cards scanned per seat
    points: tuple[tuple[Team, int], ...]  # card points in completed tricks
    tricks_won: tuple[tuple[Team, int], ...]
    zones: tuple[Zone, ...]  # N E S W
    warnings: tuple[TableWarning, ...]
    open_lines: tuple[tuple[Team, int], ...]
    lines: tuple[tuple[Team, tuple[Line, ...]], ...]
    slate: tuple[SlateEntry, ...]  # this match's scored deals
    last_result: DealResult | None
    match_winner: Team | None
    can_undo: bool
    config: TableConfig = field(default_factory=TableConfig)

    def zone(self, seat: Seat) -> Zone:
        return self.zones[_SEAT_INDEX[seat]]

    def points_of(self, team: Team) -> int:
        return dict(self.points)[team]

    def open_lines_of(self, team: Team) -> int:
        return dict(self.open_lines)[team]

    @property
    def current_trick(self) -> TrickView | None:
        if self.tricks and self.tricks[-1].winner is None:
            return self.tricks[-1]
        return None

    def warning_codes(self) -> tuple[str, ...]:
        return tuple(w.code.value for w in self.warnings)


_SEAT_INDEX = {seat: i for i, seat in enumerate(Seat)}
