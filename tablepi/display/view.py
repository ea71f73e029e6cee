"""The view model: frozen values that say exactly what the screen shows.

A :class:`View` is the complete description of one frame. It holds final, already translated text and
small rules values (cards, seats, teams), never game state and never pixels. The renderer draws a View and
nothing else, so two equal Views always give the same pixels and the display can skip a redraw when the View
has not changed (ARCHITECTURE.md: "the display shows state and holds none").

Everything here is pure and importable without pygame, so the view model is unit-tested on its own.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field

from tablepi.display.i18n import LANGUAGES
from tablepi.display.keys import Key
from tablepi.errors import ConfigError
from tablepi.rules.cards import Card, Suit
from tablepi.rules.seats import Seat, Team
from tablepi.rules.slate import Line as Line  # re-exported: the view model speaks the rules' slate lines
from tablepi.rules.trumps import trump_order as trump_order  # re-exported: the reminder is the rules' own order
from tablepi.table.events import ButtonName


class ScreenKind(enum.Enum):
    """Which screen is up. Each kind has its own layout in the renderer."""

    IDLE = "idle"  # no deal running: title, how to start
    DEAL = "deal"  # a deal in progress (trump choice, announcements, tricks, the deal's points at the end)
    SLATE = "slate"  # the slate between deals, with the last deal's result in words
    MATCH_WON = "match_won"  # a team has struck all its lines


#: Slate lines as the rules core keeps them (OPEN, STRUCK, ADDED, ADDED_STRUCK; RULES.md 23-26).
OPEN_LINES = frozenset({Line.OPEN, Line.ADDED})


def line_is_open(line: Line) -> bool:
    """A line still to be struck: a starting line or an added one."""
    return line in OPEN_LINES


#: What a touch button asks the table to do: the table's own button names (one enum serves both, so a touch is
#: a :class:`~tablepi.table.events.Button` without translation).
Action = ButtonName


@dataclass(frozen=True, slots=True)
class TrumpView:
    """The trump suit and the order reminder players glance at while playing."""

    suit: Suit | None  # None while forehand has not named trumps yet (the header shows "?")
    label: str  # "Trumps" in the chosen language (Trumpf, atout, Trëmp)

    @property
    def order(self) -> tuple[Card, ...]:
        return () if self.suit is None else trump_order(self.suit)

    @property
    def reminder_tokens(self) -> tuple[str, ...]:
        """The order as players say it: the trump suit's own cards by rank, the matadors with their suit."""
        return tuple(c.display if c.is_matador else c.rank.display for c in self.order)

    @property
    def reminder(self) -> str:
        """``"A ♠Q ♥Q ♦Q K J 10 9"`` for spades; clubs has its own queen after K."""
        return " ".join(self.reminder_tokens)


@dataclass(frozen=True, slots=True)
class CardView:
    """A card lying on a seat's zone in the current trick.

    ``card`` is None for a tag that is no card of the deck (a phone, a bank card, a card of another deck): the
    zone shows a red ``?`` so the table sees where the stray thing lies.
    """

    card: Card | None
    tentative: bool = False  # just placed: may still become a show if lifted within the tap window
    winning: bool = False  # the card that takes the trick (shown once the fourth card is down)
    illegal: bool = False  # the table flagged this card
    by_hand: bool = False  # entered by hand on the screen: nothing lies on the zone (its reader is off, or misread)


@dataclass(frozen=True, slots=True)
class SeatView:
    """One seat as it appears around the screen."""

    seat: Seat
    name: str  # player's name, or the seat's compass letter in the chosen language
    dealer: bool = False
    forehand: bool = False
    to_play: bool = False  # the seat whose gesture the table expects now
    highlighted: bool = False  # the seat a warning is about
    card: CardView | None = None
    marks: tuple[str, ...] = ()  # the words for the dealer/forehand marks, in the chosen language
    announcement: str = ""  # "Matt" / "Konter" / "Konter a Matt" once announced, else empty
    reader_off: str = ""  # "no reader" (translated) while the zone's reader is offline or faulty, else empty
    #: Touch targets that act for this seat (announce, claim), drawn at the seat's name so a touch always says
    #: whose it is; each Button's ``seat`` is this seat.
    targets: tuple[Button, ...] = ()


@dataclass(frozen=True, slots=True)
class TeamScore:
    """A team's line in the header or the deal result: tricks taken and, at the end, card points."""

    team: Team
    label: str  # "N+S", or the players' names
    tricks: int = 0
    points: int | None = None  # shown at the end of a deal (or live in learner mode)
    trump_team: bool = False


@dataclass(frozen=True, slots=True)
class LearnerView:
    """Extras for learners: what a seasoned player counts in his head."""

    points_label: str  # "Points: N+S 18 · E+W 7"
    trumps_out_label: str  # "Trumps still out:"
    trumps_out: tuple[Card, ...]  # trumps not yet played, highest first
    in_play_label: str  # "Cards still in play: 12"


#: Banner codes that inform rather than warn (the tournament's lines on the table's screen).
INFORMATION_CODES = frozenset({"seating", "announcement", "note", "no_deck"})


@dataclass(frozen=True, slots=True)
class WarningBanner:
    """A banner about something that went wrong, in a plain sentence of the chosen language."""

    code: str  # the table's warning code (out_of_turn, revoke, ...), kept for tests and logs
    text: str
    seat: Seat | None = None  # the seat to highlight, if the warning is about one

    @property
    def informational(self) -> bool:
        """A line for the table that is no fault (the tournament's seating, the director's announcement): drawn in
        blue with an ℹ, not red with a ⚠, so that the players do not look for what they did wrong.

        >>> WarningBanner("seating", "Round 3 — table 7: N Anna, E Jos, S Marie, W Pit").informational
        True
        """
        return self.code in INFORMATION_CODES

    @property
    def headline(self) -> str:
        """What went wrong, drawn large: the first sentence (cut after its colon when long).

        >>> WarningBanner("revoke", "Revoke by Anna in trick 3: ♠K (rule 13). Press Confirm to play on.").headline
        'Revoke by Anna in trick 3:'
        >>> WarningBanner("out_of_turn", "Pit: not your turn. Take ♥9 back.").headline
        'Pit: not your turn.'
        """
        return self._split()[0]

    @property
    def detail(self) -> str:
        """The rest of the sentence (what to do), drawn smaller under the headline."""
        return self._split()[1]

    def _split(self) -> tuple[str, str]:
        text = self.text.strip()
        cut = min((i + 1 for i in (text.find(". "), text.find("! "), text.find("? ")) if i >= 0), default=len(text))
        if cut > 32:  # a long first sentence: its first clause is the headline
            clause = min((i for i in (text.find(": ", 12), text.find(", ", 12)) if 0 <= i < cut), default=-1)
            if clause >= 0:
                cut = clause + 1
        return text[:cut].strip(), text[cut:].strip()


@dataclass(frozen=True, slots=True)
class Button:
    """A touch button. ``action`` is what a touch on it sends to the app, for ``seat`` when it acts for one."""

    action: Action
    label: str
    enabled: bool = True
    suit: Suit | None = None  # trump buttons draw their suit symbol in its colour
    seat: Seat | None = None  # a per-seat target (announce, claim): the seat it acts for


@dataclass(frozen=True, slots=True)
class SlateRow:
    """One team's row of tally lines."""

    team: Team
    label: str
    lines: tuple[Line, ...]
    open_label: str = ""  # "7 open" in the chosen language

    @property
    def open_count(self) -> int:
        return sum(1 for line in self.lines if line_is_open(line))

    @property
    def groups(self) -> tuple[tuple[Line, ...], ...]:
        """The lines as players draw d'Lee: the starting lines in groups of three, then the added lines as groups
        of their own (so "9 + 3 added" reads at a glance), struck or not.

        >>> o, a = Line.OPEN, Line.ADDED
        >>> [len(g) for g in SlateRow(Team.NS, "N+S", (o,) * 9 + (a,) * 4).groups]
        [3, 3, 3, 3, 1]
        """
        start = tuple(line for line in self.lines if line not in (Line.ADDED, Line.ADDED_STRUCK))
        added = tuple(line for line in self.lines if line in (Line.ADDED, Line.ADDED_STRUCK))
        return (*(start[i : i + 3] for i in range(0, len(start), 3)),
                *(added[i : i + 3] for i in range(0, len(added), 3)))


@dataclass(frozen=True, slots=True)
class PhoneCode:
    """The QR code of the table's pages (docs/players.md): ``modules`` are its rows, "1" a dark module."""

    address: str
    modules: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class SlateView:
    """The slate (d'Lee): two rows, the scorer's team at the bottom by default (RULES.md 23)."""

    title: str
    top: SlateRow
    bottom: SlateRow
    last_result: str = ""  # "Konter a Matt, Kapo: 4 lines", empty before the first deal
    winner: Team | None = None
    next_trumps: str = ""  # "Pit names trumps next", between deals
    review: tuple[str, ...] = ()  # the last deal's best-play review, one or two lines (learner mode, or Review)
    phone: PhoneCode | None = None  # the pages' QR code, between deals when the pages are on ([web] enabled)

    @property
    def rows(self) -> tuple[SlateRow, SlateRow]:
        return (self.top, self.bottom)


@dataclass(frozen=True, slots=True)
class KeyView:
    """One key: ``id`` is what a touch sends back (``SuitKey(Suit.HEARTS)``, ``Word.OK``...; None: a row's label,
    an empty place)."""

    id: Key | None
    label: str
    live: bool = True
    selected: bool = False  # the value chosen in a row of choices (the trump seat, the winner...)
    suit: Suit | None = None  # drawn in its suit's colour
    weight: int = 1


@dataclass(frozen=True, slots=True)
class SheetView:
    title: str
    lines: tuple[str, ...] = ()
    rows: tuple[tuple[KeyView, ...], ...] = ()
    #: Per line, the key a touch on it sends (None: none), as the history's rows of the match's deals.
    line_keys: tuple[Key | None, ...] = ()
    phone: PhoneCode | None = None  # a QR code drawn above the lines (menu → On your phone)

    def key(self, key_id: Key) -> KeyView | None:
        return next((k for row in self.rows for k in row if k.id == key_id), None)


@dataclass(frozen=True, slots=True)
class HeaderEnd:
    """The header's right end: the trick count and, right of it, the menu's labelled button."""

    trick_label: str = ""  # "Trick 3/6"
    menu: str = ""  # the label of the menu's button ("Menu"); empty: no menu here


@dataclass(frozen=True, slots=True)
class View:
    """One whole frame. Equal Views draw identical pixels."""

    kind: ScreenKind
    bottom_seat: Seat = Seat.S  # the seat on the screen's side of the table, drawn at the bottom
    title: str = ""  # idle/match-won headline
    seats: tuple[SeatView, ...] = ()
    trump: TrumpView | None = None
    teams: tuple[TeamScore, ...] = ()
    result: str = ""  # the deal's outcome in words, on the deal screen at the end of a deal
    learner: LearnerView | None = None
    warning: WarningBanner | None = None
    prompt: str = ""  # the gesture the table expects now
    buttons: tuple[Button, ...] = ()
    slate: SlateView | None = None
    sheet: SheetView | None = None  # a hand-entry panel over the screen (display/sheet.py): drawn instead of it
    header: HeaderEnd = field(default_factory=lambda: HeaderEnd())  # the trick count and the menu's button
    #: On the slate: the next forehand, whose reader is dead, names trumps by a touch on the bar (no card place is
    #: drawn there to touch).
    hand_seat: Seat | None = None

    def seat(self, seat: Seat) -> SeatView | None:
        for view in self.seats:
            if view.seat is seat:
                return view
        return None

    def button(self, action: Action) -> Button | None:
        for button in self.buttons:
            if button.action is action:
                return button
        return None

    def targets(self) -> tuple[Button, ...]:
        """Every per-seat touch target, seat by seat."""
        return tuple(target for seat in self.seats for target in seat.targets)


@dataclass(frozen=True, slots=True)
class DisplaySettings:
    """How the screen is set up at this table (from the configuration file)."""

    language: str = "en"
    bottom_seat: Seat = Seat.S  # which side of the table the screen faces
    scorer_team: Team = Team.NS  # drawn as the bottom row of the slate (RULES.md 23)
    learner: bool = False
    names: Mapping[Seat, str] = field(default_factory=dict)  # players' names; the compass letter otherwise

    def __post_init__(self) -> None:
        if self.language not in LANGUAGES:
            raise ConfigError(
                f"display language {self.language!r} is not available (choose one of {', '.join(LANGUAGES)})"
            )
