"""The screen's hand entry, as the app runs it: which panel is open, what opens one, what a finished one does.

The panels themselves are pure values (:mod:`tablepi.display.panels`); the console holds the one that is open
(UI state, never journaled: only the gesture a finished panel makes is a table event, so a power cut loses at
most a half-typed name). It opens:

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
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from tablepi.display import texts as tx
from tablepi.display.i18n import Translator, translator
from tablepi.display.panels import (
    Answer,
    Answering,
    CardPicker,
    ChooseDealer,
    DealerChoice,
    DealForm,
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
from tablepi.display.scene import ConsoleScene
from tablepi.display.view import PhoneCode
from tablepi.rules.deal import WINNING_POINTS
from tablepi.rules.entry import TIE_POINTS
from tablepi.rules.seats import Seat
from tablepi.table.events import (
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
from tablepi.table.state import HistoryRow, TablePhase, TableState

if TYPE_CHECKING:
    from tablepi.display.viewmodel import ViewSettings

#: Touch names the screen sends for the console (beside the table's own button names).
MENU = "open:menu"
ZONE = "zone:"  # + a seat letter: a touch on that seat's zone
KEY = "key:"  # + a key id: a key of the open panel


class Console:
    """The open panel and what to do with a touch. A finished gesture waits for the app's loop (:meth:`take`), or
    goes to ``act`` when one is given. :meth:`scene` is the console's part of the scene the screen draws."""

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
        self.panel: Panel | None = None
        self._seating: list[Seat] = []  # seats still to be named, after the one on the keyboard
        #: The running service hosts enrolment: the menu then offers it.
        self.can_enrol = can_enrol
        #: The QR code of the table's pages when it serves them ([web] enabled): the menu then offers it, and the
        #: name keyboard the player's choice to be named on them, handed to ``opt_in`` (the players' book).
        self.phone = phone
        self.opt_in = opt_in
        #: The enrol mode on screen while it runs (and its last word once over), from the app's enrolment.
        self.enrolling: Enrolling | None = None
        self._offered: int | None = None  # the match whose start sheet was offered (once a match)
        #: Whether no deck is enrolled at all: the bar then says how to enrol one.
        self.no_deck = no_deck
        self._note = ""  # a line for the bar until the next touch: a refused correction, a player seated by tag
        self._names: tuple[tuple[Seat, str], ...] | None = None  # the seated names last shown
        self._roster: tuple[str, ...] = ()  # the tournament's players: names the keyboard offers, too

    def take(self) -> list[Gesture]:
        """The gestures finished since the last call, in order (the app's loop takes them after each touch)."""
        made = list(self._made)
        self._made.clear()
        return made

    def offer_roster(self, roster: Sequence[str]) -> None:
        """The tournament's players (this round's seating): the name keyboard offers them after the tags'."""
        self._roster = tuple(roster)

    def show_enrolment(self, sheet: Enrolling | None) -> None:
        """The enrol mode's sheet while it runs (its last word once over; None: gone)."""
        self.enrolling = sheet

    def touch(self, name: str, state: TableState) -> bool:
        """Whether ``name`` was the console's (a key, the menu, a zone); acts on it. Any touch ends a note."""
        self._note = ""
        if name.startswith(KEY) and self.enrolling is not None:
            if name.removeprefix(KEY) in self.enrolling.key_ids():
                over = self.enrolling.over
                self.enrolling = None
                if not over:
                    self.act(StopEnrol())
            return True
        if self.enrolling is not None and (name == MENU or name.startswith(ZONE)):
            return True  # the enrol mode's sheet is up: only its key acts
        if name.startswith(KEY):
            if self.panel is None and state.proposal is not None:
                self.panel = answering(state)
            if self.panel is not None:
                self._press(name.removeprefix(KEY), state)
            return True
        if name == MENU:
            self.panel = self.menu(state)
            return True
        if name.startswith(ZONE):
            seat = Seat.parse(name.removeprefix(ZONE))
            if self.can_enter_card(state, seat):
                trumps = state.phase is not TablePhase.PLAY  # forehand names trumps (or begins the next deal)
                self.panel = CardPicker(seat, state.possible.cards_for(seat), trumps=trumps).opened()
            return True
        return False

    def close(self) -> None:
        self.panel = None
        self._seating = []

    def scene(self, state: TableState, settings: ViewSettings) -> ConsoleScene:
        """The console's part of the next scene (the app's loop asks on every change): the open panel brought up
        to date with ``state``, and the line for a free bar. A correction waiting for the teams' answers is up
        whenever no other panel is; the start sheet is offered once as a match begins."""
        if self.enrolling is not None:  # the enrol mode: the reader's cards are the enrolment's, not the game's
            return ConsoleScene(self.enrolling)
        if isinstance(self.panel, Answering):
            self.panel = None  # rebuilt from the state: who has answered changes
        starting = state.possible.choose_dealer
        names = {**dict(settings.names), **dict(_names(state))}
        if isinstance(self.panel, MatchStart) and not starting:
            self.panel = None  # trumps are named: play goes on, the sheet is not needed
        if self.panel is None and state.proposal is not None:
            self.panel = answering(state)
        if starting and self._offered != state.match_number:
            self._offered = state.match_number  # offered once a match, and not after a panel the players opened
            if self.panel is None and len(names) < len(Seat):
                self.panel = MatchStart()
        self._notice_seated(state, translator(settings.language))
        if isinstance(self.panel, Keyboard) and self.panel.enrol is None:
            self.panel = _unseated(self.panel, state)  # a name seated meanwhile (a tag) is no longer offered
        if isinstance(self.panel, HistoryPanel):
            self.panel = replace(self.panel, rows=len(history_rows(state)), correct=correctable(state))
        return ConsoleScene(self.panel, self._note, self.no_deck())

    def _notice_seated(self, state: TableState, tr: Translator) -> None:
        """A player just seated by his tag (or by the tournament) is the console's line for the bar."""
        names = _names(state)
        if self._names is not None and names != self._names and not isinstance(self.panel, Keyboard):
            before = dict(self._names)
            new = [(seat, name) for seat, name in names if before.get(seat) != name]
            if new:
                self._note = " ".join(tx.seated_text(tr, name, seat) for seat, name in new)
        self._names = names

    # --- what may be opened now -----------------------------------------------------------------------------

    @staticmethod
    def can_enter_card(state: TableState, seat: Seat) -> bool:
        """A card by hand for the seat the table says may enter one (``Possible.by_hand``)."""
        return seat in state.possible.by_hand

    def menu(self, state: TableState) -> Menu:
        return Menu(can_enter=state.phase is not TablePhase.MATCH_OVER or bool(state.slate),
                    can_correct=bool(state.slate),
                    can_choose_dealer=state.possible.choose_dealer,
                    can_enrol=self.can_enrol, can_phone=self.phone is not None)

    # --- keys -----------------------------------------------------------------------------------------------

    def _press(self, key: str, state: TableState) -> None:
        assert self.panel is not None
        before = self.panel
        step = press(self.panel, key)
        self.panel = step.panel
        if isinstance(before, DealForm) and isinstance(step.panel, DealForm) and step.panel.correct is not None \
                and step.panel.correct != before.correct:
            self.panel = correction_form(state, step.panel.correct)  # another deal: as it was scored
        gesture = step.gesture
        if gesture is None:
            if self.panel is None and isinstance(before, Keyboard) and before.enrol is None and self._seating:
                self.panel = self._keyboard(self._seating.pop(0), state)  # ✕ leaves this seat as it is, only
                return
            if self.panel is None:
                self._seating = []
            return
        if isinstance(gesture, Open):
            self._open(gesture.what, state)
            return
        if not (isinstance(gesture, SeatPlayer) and dict(_names(state)).get(gesture.seat) == gesture.name):
            self.act(gesture)  # (a name confirmed as it was seated is no new seating)
        if isinstance(gesture, SeatPlayer):
            self._names = None  # seated on this keyboard: nothing to tell the table about it
        if isinstance(gesture, Answer) and not gesture.accept and isinstance(before, Answering):
            self._note = tx.correction_refused_text(translator(self.language), before.number)
        if isinstance(gesture, SeatPlayer | StartEnrol) and gesture.public and self.opt_in is not None:
            self.opt_in(gesture.name)
        if isinstance(gesture, SeatPlayer) and self._seating:
            self.panel = self._keyboard(self._seating.pop(0), state)

    def _open(self, what: str, state: TableState) -> None:
        if what == "history":
            self.panel = HistoryPanel(rows=len(history_rows(state)), correct=correctable(state))
        elif what.startswith("correct:") and state.slate:
            number = int(what.removeprefix("correct:"))
            if 1 <= number <= len(state.slate):
                self.panel = correction_form(state, number)
        elif what == "players":
            order = list(Seat)
            self._seating = order[1:]
            self.panel = self._keyboard(order[0], state)
        elif what == "dealer":
            self.panel = DealerChoice()
        elif what == "enrol" and self.can_enrol:
            self.panel = EnrolMenu()
        elif what in ("enrol_deck", "enrol_player") and self.can_enrol:
            kind = what.removeprefix("enrol_")
            names = earlier_names_first(self.earlier(), ()) if kind == "player" else ()
            self.panel = Keyboard(Seat.N, self.language, shift=kind == "player", names=names, enrol=kind,
                                  public=self._public_key())
        elif what == "phone" and self.phone is not None:
            self.panel = PhonePanel(self.phone)
        elif what == "deal":
            self.panel = DealForm(state.next_forehand)  # the table's: who names trumps in the deal told now
        elif what == "correct" and state.slate:
            self.panel = correction_form(state, state.slate[-1].number)

    def _public_key(self) -> bool | None:
        """The opt-in key's state on a new keyboard: off (private is the default), or no key without the pages."""
        return None if self.phone is None else False

    def _keyboard(self, seat: Seat, state: TableState) -> Keyboard:
        """The keyboard for ``seat``'s name: the name it has now typed in already (a player seated by his tag, or
        in an earlier match, touches OK), the names of earlier matches and of the player tags offered."""
        current = dict(_names(state)).get(seat, "")
        board = Keyboard(seat, self.language, text=current, shift=not current, public=self._public_key(),
                         names=earlier_names_first(self.earlier(), (*self.known(), *self._roster)))
        return _unseated(board, state)


def _unseated(board: Keyboard, state: TableState) -> Keyboard:
    """``board`` offering no name seated at another seat (the keyboard's own seat may keep its name)."""
    taken = {n.casefold() for seat, n in _names(state) if seat is not board.seat}
    names = tuple(n for n in board.names if n.casefold() not in taken)
    return board if names == board.names else replace(board, names=names)


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
    last = len(state.slate)
    row = next((r for r in state.history if r.match == state.match_number and r.entry.number == number), None)
    if row is None:
        return DealForm(state.next_forehand, correct=number, last=last)
    result = row.entry.result
    trumps = row.trumps if row.trumps is not None else state.next_forehand
    matt = next((seat for seat, said in result.announcements if "matt" in said.parts), None)
    konter = next((seat for seat, said in result.announcements if "konter" in said.parts), None)
    if result.winner is None:
        return DealForm(trumps, None, TIE_POINTS, matt=matt, konter=konter, correct=number, last=last)
    return DealForm(trumps, result.winner, max(WINNING_POINTS, result.points[result.winner]), kapo=result.kapo,
                    claimed=result.claimed_by is not None, matt=matt, konter=konter, correct=number, last=last)


def correctable(state: TableState) -> tuple[int | None, ...]:
    """Per row of the evening's history, the number of the deal a touch on it corrects: the deals of this match
    (as Menu → Correct a deal offers them), None for an earlier match's."""
    if not state.slate:
        return tuple(None for _ in history_rows(state))
    return tuple(row.entry.number if row.match == state.match_number and row.entry.number <= len(state.slate)
                 else None for row in history_rows(state))


def answering(state: TableState) -> Answering | None:
    proposal = state.proposal
    if proposal is None:
        return None
    return Answering(proposal.number, proposal.entry, proposal.waiting)


def _names(state: TableState) -> tuple[tuple[Seat, str], ...]:
    return state.names


def history_rows(state: TableState) -> tuple[HistoryRow, ...]:
    """The evening's deals, every match of this journal."""
    return state.history
