"""The screen's hand entry, as the app runs it: which panel is open, what opens one, what a finished one does.

The console is a pure reducer (:func:`reduce`): its state (:class:`ConsoleState`: the open panel, the seats still
to be named, the console's line for the bar), a touch as a value (a key, the header, a card place) and the table's
published state in; the console's next state and the gestures to hand the table out. :func:`refresh` brings the
state up to date with the table's (a correction waiting, a match starting, a player seated by his tag). Every rule
question is the table's: who may enter a card and which (``Possible.by_hand``, ``Possible.cards_for``), whether the
first dealer may be chosen (``Possible.choose_dealer``), who names trumps next (``TableState.next_forehand``).

Nothing here is journaled: only the gesture a finished panel makes is a table event, so a power cut loses at most a
half-typed name. It opens:

- the card picker on a touch on a seat's zone, when that seat is to play (its reader offline, or a misread), or,
  before trumps are named, on forehand's zone: the trump suit by hand (a Confirm ends each);
- as a match begins (its first trumps not named, not all four seats named here or in the config), once, by
  itself: the start sheet — players' names, the first dealer, or Play; nothing waits for it (a card laid names
  trumps and closes it);
- the menu on a touch on the header: a deal by hand, a correction, the evening's deals, names, first dealer;
- a deal's correction form on a touch on its row of the evening's deals (filled in as it was scored);
- the keyboard for each seat in turn from the menu's "players' names", with earlier names offered first;
- the enrol menu (a deck, a player tag), whose keyboard names what to enrol; the enrol mode's sheet then stays up
  while the table enrols (:meth:`Console.show_enrolment`, from the enrol mode), its one key stopping it.

:class:`Console` is the app's holder of that state: it feeds touches through :func:`reduce`, hands the gestures on
to the app's loop, and gives the loop its part of the scene (:meth:`Console.scene`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from tablepi.display.keys import KeyTouch, MenuTouch, Opening, PlaceTouch, Touched
from tablepi.display.panels import (
    Answer,
    Answering,
    CardPicker,
    ChooseDealer,
    DealerChoice,
    DealForm,
    EnrolKind,
    Enrolling,
    EnrolMenu,
    EnterCard,
    EnterDeal,
    Gesture,
    HistoryPanel,
    Keyboard,
    MatchStart,
    Menu,
    NameTrumps,
    Open,
    Panel,
    PhonePanel,
    SeatPlayer,
    StartEnrol,
    StopEnrol,
    earlier_names_first,
    press,
)
from tablepi.display.scene import ConsoleScene, Note
from tablepi.display.view import PhoneCode
from tablepi.rules.deal import WINNING_POINTS
from tablepi.rules.entry import TIE_POINTS
from tablepi.rules.seats import Seat
from tablepi.table.events import (
    ButtonName,
    CardEntered,
    CorrectionAnswered,
    CorrectionProposed,
    DealEntered,
    DealerChosen,
    PlayersSeated,
    SeatingSource,
    TableEvent,
    TrumpsEntered,
)
from tablepi.table.state import CorrectionView, HistoryRow, TablePhase, TableState

if TYPE_CHECKING:
    from tablepi.display.viewmodel import ViewSettings

# --- the reducer ------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Setup:
    """What the console offers beside the table's state: the keyboard's language and the names it offers (earlier
    matches' players, most recent first; then the player tags'), whether the running service hosts enrolment, and
    the QR code of the table's pages when it serves them (the menu then offers it, and the name keyboard the
    player's choice to be named on them)."""

    language: str = "en"
    earlier: tuple[str, ...] = ()
    known: tuple[str, ...] = ()
    can_enrol: bool = False
    phone: PhoneCode | None = None


@dataclass(frozen=True, slots=True)
class PublicName:
    """A player chose, on the name keyboard, to be named on the table's pages (the players' book's opt-in)."""

    name: str


#: What a touch makes the console hand on: the table's gestures, and a player's choice to be named on the pages.
Made = Gesture | PublicName


@dataclass(frozen=True, slots=True)
class ConsoleState:
    """The console's state: the open panel (None: the header's Menu opens one), the seats still to be named after
    the one on the keyboard, the enrol mode's sheet while it runs, the match whose start sheet was offered (once a
    match), the line for the bar, the names seated when last refreshed (None: not yet seen), and the correction
    waiting whose answer sheet the players closed (it is not put up again by itself)."""

    panel: Panel | None = None
    seating: tuple[Seat, ...] = ()
    enrolling: Enrolling | None = None
    offered: int | None = None
    note: Note | None = None
    names: tuple[tuple[Seat, str], ...] | None = field(default=None)
    aside: CorrectionView | None = None


def reduce(console: ConsoleState, touched: Touched, table: TableState,
           setup: Setup = Setup()) -> tuple[ConsoleState, tuple[Made, ...]]:
    """The console after ``touched``, and what it hands on. Any touch ends the bar's note (a button's too: the
    button itself is the table's)."""
    console = replace(console, note=None)
    if isinstance(touched, ButtonName):
        return console, ()
    enrolling = console.enrolling
    if enrolling is not None:  # the enrol mode's sheet is up: only its key acts
        if isinstance(touched, KeyTouch) and touched.key in enrolling.live_keys():
            return replace(console, enrolling=None), (() if enrolling.over else (StopEnrol(),))
        return console, ()
    if isinstance(touched, MenuTouch):
        return replace(console, panel=menu(table, setup)), ()
    if isinstance(touched, PlaceTouch):
        seat = touched.seat
        if seat not in table.possible.by_hand:
            return console, ()
        trumps = table.phase is not TablePhase.PLAY  # forehand names trumps (or begins the next deal)
        picker = CardPicker(seat, table.possible.cards_for(seat), trumps=trumps).opened()
        return replace(console, panel=picker), ()
    panel = console.panel
    if panel is None:
        panel = answering(table, console.aside)  # a correction waiting: its answers are up whenever no other is
        if panel is None:
            return console, ()
    return _press(replace(console, panel=panel), panel, touched, table, setup)


def _press(console: ConsoleState, before: Panel, touched: KeyTouch, table: TableState,
           setup: Setup) -> tuple[ConsoleState, tuple[Made, ...]]:
    step = press(before, touched.key)
    panel = step.panel
    if isinstance(before, DealForm) and isinstance(panel, DealForm) and panel.correct is not None \
            and panel.correct != before.correct:
        panel = correction_form(table, panel.correct)  # another deal: as it was scored
    console = replace(console, panel=panel)
    gesture = step.gesture
    if gesture is None:
        if panel is None and isinstance(before, Answering):  # closed unanswered: set aside, and said so
            return replace(console, aside=table.match.proposal, note=Note(aside=before.number)), ()
        if panel is None and isinstance(before, Keyboard) and before.enrol is None and console.seating:
            return _next_keyboard(console, table, setup), ()  # ✕ leaves this seat as it is, only
        return (replace(console, seating=()) if panel is None else console), ()
    if isinstance(gesture, Open):
        return _open(console, gesture, table, setup), ()
    made: list[Made] = []
    if not (isinstance(gesture, SeatPlayer) and dict(table.names).get(gesture.seat) == gesture.name):
        made.append(gesture)  # (a name confirmed as it was seated is no new seating)
    if isinstance(gesture, SeatPlayer):
        console = replace(console, names=None)  # seated on this keyboard: nothing to tell the table about it
    if isinstance(gesture, Answer) and not gesture.accept and isinstance(before, Answering):
        console = replace(console, note=Note(refused=before.number))
    if isinstance(gesture, SeatPlayer | StartEnrol) and gesture.public and setup.phone is not None:
        made.append(PublicName(gesture.name))
    if isinstance(gesture, SeatPlayer) and console.seating:
        console = _next_keyboard(console, table, setup)
    return console, tuple(made)


def _next_keyboard(console: ConsoleState, table: TableState, setup: Setup) -> ConsoleState:
    seat, *rest = console.seating
    return replace(console, panel=keyboard(seat, table, setup), seating=tuple(rest))


def _open(console: ConsoleState, gesture: Open, table: TableState, setup: Setup) -> ConsoleState:
    what = gesture.what
    panel: Panel | None = console.panel
    if what is Opening.HISTORY:
        panel = HistoryPanel(rows=len(history_rows(table)), correct=correctable(table))
    elif what is Opening.CORRECT and table.match.proposal is not None and gesture.deal is None:
        return replace(console, panel=answering(table), aside=None)  # the correction set aside, to answer now
    elif what is Opening.CORRECT and table.match.slate:
        if gesture.deal is None:  # Menu → Correct a deal: the last one
            panel = correction_form(table, table.match.slate[-1].number)
        elif 1 <= gesture.deal <= len(table.match.slate):  # a touch on its row of the evening's deals
            panel = correction_form(table, gesture.deal)
    elif what is Opening.PLAYERS:
        first, *rest = Seat
        return replace(console, panel=keyboard(first, table, setup), seating=tuple(rest))
    elif what is Opening.DEALER:
        panel = DealerChoice()
    elif what is Opening.ENROL and setup.can_enrol:
        panel = EnrolMenu()
    elif what in (Opening.ENROL_DECK, Opening.ENROL_PLAYER) and setup.can_enrol:
        player = what is Opening.ENROL_PLAYER
        names = earlier_names_first(setup.earlier, ()) if player else ()
        kind = EnrolKind.PLAYER if player else EnrolKind.DECK
        panel = Keyboard(Seat.N, setup.language, shift=player, names=names, enrol=kind, public=_public_key(setup))
    elif what is Opening.PHONE and setup.phone is not None:
        panel = PhonePanel(setup.phone)
    elif what is Opening.DEAL:
        panel = DealForm(table.deal.next_forehand)  # the table's: who names trumps in the deal told now
    return replace(console, panel=panel)


def refresh(console: ConsoleState, table: TableState, configured: Mapping[Seat, str]) -> ConsoleState:
    """The console brought up to date with the table's state (on every change the screen shows): a correction
    waiting is up whenever no other panel is, the start sheet offered once as a match begins (while not all four
    seats have names, here or in the config, ``configured``), the start sheet closed once trumps are named, a
    player seated by his tag told on the bar, names seated meanwhile no longer offered, the history's rows."""
    if console.enrolling is not None:  # the enrol mode: the reader's cards are the enrolment's, not the game's
        return console
    panel = console.panel
    if isinstance(panel, Answering):
        panel = None  # rebuilt from the state: who has answered changes
    aside = console.aside if console.aside == table.match.proposal else None  # answered, undone, lapsed: forgotten
    starting = table.possible.choose_dealer
    if isinstance(panel, MatchStart) and not starting:
        panel = None  # trumps are named: play goes on, the sheet is not needed
    if panel is None:
        panel = answering(table, aside)
    offered = console.offered
    if starting and offered != table.match.number:
        offered = table.match.number  # offered once a match, and not after a panel the players opened
        if panel is None and len({**dict(configured), **dict(table.names)}) < len(Seat):
            panel = MatchStart()
    note = console.note
    names = table.names
    if console.names is not None and names != console.names and not isinstance(panel, Keyboard):
        before = dict(console.names)
        new = tuple((seat, name) for seat, name in names if before.get(seat) != name)
        if new:
            note = Note(seated=new)
    if isinstance(panel, Keyboard) and panel.enrol is None:
        panel = _unseated(panel, table)  # a name seated meanwhile (a tag) is no longer offered
    if isinstance(panel, HistoryPanel):
        panel = replace(panel, rows=len(history_rows(table)), correct=correctable(table))
    return ConsoleState(panel, console.seating, None, offered, note, names, aside)


def menu(table: TableState, setup: Setup) -> Menu:
    return Menu(can_enter=table.phase is not TablePhase.MATCH_OVER or bool(table.match.slate),
                can_correct=bool(table.match.slate),
                can_choose_dealer=table.possible.choose_dealer,
                can_enrol=setup.can_enrol, can_phone=setup.phone is not None,
                can_answer=table.match.proposal is not None)


def keyboard(seat: Seat, table: TableState, setup: Setup) -> Keyboard:
    """The keyboard for ``seat``'s name: the name it has now typed in already (a player seated by his tag, or in an
    earlier match, touches OK), the names of earlier matches and of the player tags offered."""
    current = dict(table.names).get(seat, "")
    board = Keyboard(seat, setup.language, text=current, shift=not current, public=_public_key(setup),
                     names=earlier_names_first(setup.earlier, setup.known))
    return _unseated(board, table)


def _public_key(setup: Setup) -> bool | None:
    """The opt-in key's state on a new keyboard: off (private is the default), or no key without the pages."""
    return None if setup.phone is None else False


def _unseated(board: Keyboard, table: TableState) -> Keyboard:
    """``board`` offering no name seated at another seat (the keyboard's own seat may keep its name)."""
    taken = {n.casefold() for seat, n in table.names if seat is not board.seat}
    names = tuple(n for n in board.names if n.casefold() not in taken)
    return board if names == board.names else replace(board, names=names)


# --- the app's holder --------------------------------------------------------------------------------------------


class Console:
    """The console's state as the app holds it: a touch goes through :func:`reduce`; the gestures it makes wait for
    the app's loop (:meth:`take`), or go to ``act`` when one is given (a player's choice to be named on the pages
    to ``opt_in``); :meth:`scene` is the console's part of the scene the screen draws."""

    def __init__(self, act: Callable[[Gesture], None] | None = None, language: str = "en",
                 earlier: Callable[[], Sequence[str]] = tuple, known: Callable[[], Sequence[str]] = tuple, *,
                 can_enrol: bool = False, phone: PhoneCode | None = None,
                 opt_in: Callable[[str], None] | None = None, no_deck: Callable[[], bool] = lambda: False) -> None:
        self._made: list[Gesture] = []
        #: Where a finished gesture goes; by default it waits for the app's loop to :meth:`take` it.
        self.act = act if act is not None else self._made.append
        self.language = language
        self.earlier = earlier
        self.known = known
        self.state = ConsoleState()
        #: The running service hosts enrolment: the menu then offers it.
        self.can_enrol = can_enrol
        #: The QR code of the table's pages when it serves them ([web] enabled): the menu then offers it, and the
        #: name keyboard the player's choice to be named on them, handed to ``opt_in`` (the players' book).
        self.phone = phone
        self.opt_in = opt_in
        #: Whether no deck is enrolled at all: the bar then says how to enrol one.
        self.no_deck = no_deck
        self._roster: tuple[str, ...] = ()  # the tournament's players: names the keyboard offers, too

    @property
    def panel(self) -> Panel | None:
        return self.state.panel

    @property
    def enrolling(self) -> Enrolling | None:
        """The enrol mode on screen while it runs (and its last word once over), from the app's enrol mode."""
        return self.state.enrolling

    def show_enrolment(self, sheet: Enrolling | None) -> None:
        """The enrol mode's sheet while it runs (its last word once over; None: gone)."""
        self.state = replace(self.state, enrolling=sheet)

    def offer_roster(self, roster: Sequence[str]) -> None:
        """The tournament's players (this round's seating): the name keyboard offers them after the tags'."""
        self._roster = tuple(roster)

    def setup(self) -> Setup:
        return Setup(self.language, tuple(self.earlier()), (*self.known(), *self._roster), self.can_enrol,
                     self.phone)

    def touch(self, touched: Touched, state: TableState) -> bool:
        """Whether ``touched`` was the console's (a key, the header, a card place); acts on it. Any touch ends a
        note."""
        self.state, made = reduce(self.state, touched, state, self.setup())
        for gesture in made:
            if isinstance(gesture, PublicName):
                if self.opt_in is not None:
                    self.opt_in(gesture.name)
            else:
                self.act(gesture)
        return not isinstance(touched, ButtonName)

    def take(self) -> list[Gesture]:
        """The gestures finished since the last call, in order (the app's loop takes them after each touch)."""
        made = list(self._made)
        self._made.clear()
        return made

    def scene(self, state: TableState, settings: ViewSettings) -> ConsoleScene:
        """The console's part of the next scene (the app's loop asks on every change): the open panel brought up
        to date with ``state`` (:func:`refresh`), or the enrol mode's sheet, and the line for a free bar."""
        if self.state.enrolling is not None:  # the enrol mode: the reader's cards are the enrolment's
            return ConsoleScene(self.state.enrolling)
        self.state = refresh(self.state, state, settings.names)
        return ConsoleScene(self.state.panel, self.state.note, self.no_deck())


def gesture_event(gesture: object, time: float) -> TableEvent | None:
    """The table event a finished panel's gesture makes (None: not a gesture of the table's)."""
    if isinstance(gesture, EnterCard):
        return CardEntered(time, gesture.seat, gesture.card)
    if isinstance(gesture, NameTrumps):
        return TrumpsEntered(time, gesture.seat, gesture.suit)
    if isinstance(gesture, SeatPlayer):
        return PlayersSeated(time, ((gesture.seat, gesture.name),), SeatingSource.TOUCH)
    if isinstance(gesture, ChooseDealer):
        return DealerChosen(time, gesture.seat)
    if isinstance(gesture, EnterDeal):
        if gesture.correct is not None:
            return CorrectionProposed(time, gesture.correct, gesture.entry)
        return DealEntered(time, gesture.entry)
    if isinstance(gesture, Answer):
        return CorrectionAnswered(time, gesture.team, gesture.accept)
    return None


def correction_form(state: TableState, number: int) -> DealForm:
    """The deal form for correcting deal ``number`` of this match, filled in with what it was scored as."""
    last = len(state.match.slate)
    row = next((r for r in state.history if r.match == state.match.number and r.entry.number == number), None)
    if row is None:
        return DealForm(state.deal.next_forehand, correct=number, last=last)
    result = row.entry.result
    trumps = row.trumps if row.trumps is not None else state.deal.next_forehand
    matt = next((seat for seat, said in result.announcements if "matt" in said.parts), None)
    konter = next((seat for seat, said in result.announcements if "konter" in said.parts), None)
    if result.winner is None:
        return DealForm(trumps, None, TIE_POINTS, matt=matt, konter=konter, correct=number, last=last)
    return DealForm(trumps, result.winner, max(WINNING_POINTS, result.points[result.winner]), kapo=result.kapo,
                    claimed=result.claimed_by is not None, matt=matt, konter=konter, correct=number, last=last)


def correctable(state: TableState) -> tuple[int | None, ...]:
    """Per row of the evening's history, the number of the deal a touch on it corrects: the deals of this match
    (as Menu → Correct a deal offers them), None for an earlier match's."""
    if not state.match.slate:
        return tuple(None for _ in history_rows(state))
    return tuple(row.entry.number if row.match == state.match.number and row.entry.number <= len(state.match.slate)
                 else None for row in history_rows(state))


def answering(state: TableState, aside: CorrectionView | None = None) -> Answering | None:
    """The answer sheet of the correction waiting, unless it is the one the players set aside."""
    proposal = state.match.proposal
    if proposal is None or proposal == aside:
        return None
    return Answering(proposal.number, proposal.entry, proposal.waiting)


def history_rows(state: TableState) -> tuple[HistoryRow, ...]:
    """The evening's deals, every match of this journal."""
    return state.history
