"""The sample moments of the reference screenshots, from real states: game records replayed through the table,
then drawn by the app's own screen.

Each moment is a short game record — the gestures of a real table: players seated (on the screen or by the
tournament), a card shown to name trumps, a matador shown to announce, cards laid and swept, buttons, a hand
scan, a reader going offline, cards and deals entered by hand, a correction — replayed through a fresh
:class:`~tablepi.table.Table`. Its state goes into the scene the app's loop hands its screen
(:class:`~tablepi.display.scene.Scene`) with what else the app holds at that moment (the tournament's seating or
the director's announcement, the review of the last deal, the console and the touches that opened its panel), and
the View the screen draws of it (``build_view(scene)``) is the sample. Nothing here builds a View by hand, so a
change in what the table publishes shows in the pictures.

The evening: Anna (N), Jos (E), Marie (S) and Pit (W) sit down; W deals, S is forehand (anticlockwise play).

- Deal 1, hearts trumps: S shows ♥A, E shows ♠Q (Matt); six tricks, 20 to 20: 2 lines added to N+S.
- Deal 2: E names diamonds, W announces Matt, N+S take every trick (Kapo): 3 lines added to E+W.
- A hand-scan table (its own record): spades trumps, every hand scanned, E discards ♣9 on ♥K holding ♥10.
- A whole match of scripted players (:func:`tablepi.table.simulate.simulate_match`), the same four seated.
- The hand-entry sheets on the same deals, with long names seated (Jang, Marie-Thérèse, Guillaume, Anna).
- The enrol mode's sheet of a real enrolment: the running service's app, a deck named on its screen, its first
  cards laid on the sim reader's zones.

Used by the reference screenshots (tests/display/reference), the display tests and bench/bench_display.py.
"""

from __future__ import annotations

import functools
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from tablepi.analysis.review import DealReview
from tablepi.app.console import Console
from tablepi.config import DisplayConfig
from tablepi.display.keys import touch_named
from tablepi.display.panels import Enrolling
from tablepi.display.scene import Announcement, Scene, SeatingLine
from tablepi.display.view import View
from tablepi.display.viewmodel import build_view
from tablepi.journal.record import Record, RecordHeader, read_record, record_lines
from tablepi.rules.cards import DECK, Card
from tablepi.rules.deal import Deal
from tablepi.rules.entry import DealEntry
from tablepi.rules.house import HouseRules
from tablepi.rules.seats import Seat, Team
from tablepi.table import Table
from tablepi.table.events import (
    Button,
    ButtonName,
    CardEntered,
    CardLifted,
    CardPlaced,
    CorrectionAnswered,
    CorrectionProposed,
    DealEntered,
    PlayersSeated,
    ReaderState,
    ReaderStatus,
    SeatingSource,
    TableEvent,
    Tick,
)
from tablepi.table.simulate import simulate_match
from tablepi.table.state import TableConfig, TableState

NAMES: dict[Seat, str] = {Seat.N: "Anna", Seat.E: "Jos", Seat.S: "Marie", Seat.W: "Pit"}
TAP = 0.3  # a tap: on the zone for less than the tap window (1 s)
LAY = 0.6  # between two players' cards


def _c(text: str) -> Card:
    return Card.parse(text)


@dataclass
class Script:
    """A game record being written: the header's rules, first dealer and table settings, and the events."""

    rules: HouseRules = field(default_factory=HouseRules)
    dealer: Seat = Seat.W
    config: TableConfig = field(default_factory=TableConfig)
    events: list[TableEvent] = field(default_factory=list)
    now: float = 0.0

    def step(self, seconds: float) -> float:
        self.now = round(self.now + seconds, 3)
        return self.now

    def copy(self) -> Script:
        return replace(self, events=list(self.events))

    def seat(self, names: dict[Seat, str], source: SeatingSource = SeatingSource.TOUCH) -> Script:
        """Players sit down (typed on the screen's keyboard, or sent by the tournament)."""
        self.events.append(PlayersSeated(self.step(0.5), tuple(names.items()), source))
        return self

    def show(self, seat: Seat, card: str) -> Script:
        """A tap: the card shown (trumps named, an announcement proved, a hand scanned)."""
        self.events.append(CardPlaced(self.step(1.0), seat, _c(card)))
        self.events.append(CardLifted(self.step(TAP), seat, _c(card)))
        return self

    def lay(self, seat: Seat, card: str) -> Script:
        """A card laid on the zone (it counts as played once the tap window ran out or the next card came)."""
        self.events.append(CardPlaced(self.step(LAY), seat, _c(card)))
        return self

    def enter(self, seat: Seat, card: str) -> Script:
        """A card entered by hand on the screen (nothing lies on the zone)."""
        self.events.append(CardEntered(self.step(LAY), seat, _c(card)))
        return self

    def reader(self, seat: Seat, state: ReaderState) -> Script:
        self.events.append(ReaderStatus(self.step(0.2), seat, state))
        return self

    def press(self, name: ButtonName, seat: Seat | None = None) -> Script:
        self.events.append(Button(self.step(0.5), name, seat))
        return self

    def settle(self) -> Script:
        """Time passes: the last card laid counts as played."""
        self.events.append(Tick(self.step(self.config.tap_window + 0.5)))
        return self

    def sweep(self, *plays: tuple[Seat, str]) -> Script:
        """The trick's cards lifted off the zones."""
        for seat, card in plays:
            self.events.append(CardLifted(self.step(0.1), seat, _c(card)))
        return self

    def trick(self, *plays: tuple[Seat, str], sweep: bool = True) -> Script:
        """A whole trick laid, settled and (unless told otherwise) swept."""
        for seat, card in plays:
            self.lay(seat, card)
        self.settle()
        return self.sweep(*plays) if sweep else self

    def record(self) -> Record:
        """The record as a table journals it: written as lines, then read back by the record reader."""
        return read_record(record_lines(RecordHeader(self.rules, self.dealer, self.config), self.events))

    def table(self) -> Table:
        """A fresh table that has replayed the record read back."""
        record = self.record()
        h = record.header
        return Table.replay(record.events, h.house_rules, h.dealer, h.table)


def _plays(text: str) -> tuple[tuple[Seat, str], ...]:
    """``"S:KS E:AS"`` as ((S, "KS"), (E, "AS"))."""
    return tuple((Seat.parse(who), card) for who, card in (item.split(":") for item in text.split()))


# ---- the evening's first match -------------------------------------------------------------------------------

# Deal 1: W deals, S forehand (anticlockwise: S E N W). The hands, for the reader of this file:
#   S: ♥A ♠K ♠9 ♦J ♣10 ♣9   E: ♠Q ♠A ♠J ♥9 ♦K ♦9   N: ♥Q ♦Q ♠10 ♥K ♣A ♣J   W: ♥10 ♥J ♦A ♦10 ♣K ♣Q
DEAL1 = (
    "S:KS E:AS N:TS W:TD",  # E wins
    "E:9D N:JC W:AD S:JD",  # W wins
    "W:KC S:9C E:9H N:AC",  # E trumps
    "E:QS N:KH W:JH S:AH",  # S's ♥A over the Matt
    "S:9S E:JS N:QD W:TH",  # N trumps
    "N:QH W:QC S:TC E:KD",
)
# Deal 2: S deals, E forehand (E N W S). E names diamonds with ♦9; W holds the Matt and announces it.
#   E: ♦9 ♣Q ♥9 ♣J ♣10 ♣9   N: ♦A ♦K ♦Q ♠A ♣A ♥K   W: ♠Q ♠J ♠10 ♠9 ♥J ♥10   S: ♥Q ♦J ♦10 ♥A ♠K ♣K
DEAL2 = (
    "E:QC N:AC W:9S S:KC",
    "N:AD W:QS S:JD E:9D",  # the Matt falls under ♦A
    "N:KD W:JS S:TD E:9H",
    "N:AS W:TS S:KS E:JC",
    "N:KH W:JH S:AH E:TC",
    "S:QH E:9C N:QD W:TH",
)


def _first_match(until: str, names: dict[Seat, str] | None = NAMES) -> Script:
    """The first match's record up to the moment ``until`` (``names`` seated first; None: nobody seated)."""
    s = Script()
    if names is not None:
        s.seat(names)
    if until == "match_start":
        return s
    s.show(Seat.S, "AH")  # hearts
    s.show(Seat.E, "QS")  # Matt, proved by the queen
    if until == "trump_chosen":
        return s
    s.trick(*_plays(DEAL1[0]))
    if until == "trick2":
        return s
    s.trick(*_plays(DEAL1[1]))
    if until == "trick3":
        return s
    for trick in DEAL1[2:]:
        s.trick(*_plays(trick))
    if until == "deal1_over":
        return s
    s.show(Seat.E, "9D")  # diamonds
    s.show(Seat.W, "QS")  # Matt
    for trick in DEAL2[:-1]:
        s.trick(*_plays(trick))
    s.trick(*_plays(DEAL2[-1]), sweep=False)
    if until == "deal2_last_trick":
        return s
    s.sweep(*_plays(DEAL2[-1]))
    if until == "deal2_over":
        return s
    raise KeyError(until)


def _scanned_revoke() -> Script:
    """A hand-scan table, E deals, N forehand (N W S E): N shows ♠A (spades), every hand is scanned, then N leads
    ♥K, W takes it with ♥A, S follows with ♥9 and E discards ♣9 while his scanned hand holds ♥10: a revoke the
    table sees at once. The trick still lies on the zones."""
    s = Script(dealer=Seat.E, config=TableConfig(hand_scan=True)).seat(NAMES)
    s.show(Seat.N, "AS")
    hands = {Seat.N: "AS KH KS JD TD 9D", Seat.W: "AH QS JH AD KD QD", Seat.S: "9H JS TS 9S AC KC",
             Seat.E: "9C TH QH QC JC TC"}
    for seat, hand in hands.items():
        for card in hand.split():
            s.show(seat, card)
    return s.trick(*_plays("N:KH W:AH S:9H E:9C"), sweep=False)


#: The seed of the simulated match played to its end.
MATCH_SEED = 3


def _whole_match() -> Script:
    """A whole match of scripted players (tablepi.table.simulate), the evening's four seated first."""
    played = simulate_match(MATCH_SEED, dealer=Seat.W)
    s = Script(played.rules, played.dealer, played.config).seat(NAMES)
    s.events.extend(played.events)
    return s


def _mid_trick() -> Script:
    """Trick 2: E led ♦9, N (no plain diamond: his ♦Q is a trump) discarded ♣J, W is laying ♦A (not yet final)."""
    return _first_match("trick2").lay(Seat.E, "9D").lay(Seat.N, "JC").lay(Seat.W, "AD")


def _card_by_hand() -> Script:
    """Trick 3 with E's reader gone offline: W and S laid their cards, E's ♥9 entered by hand."""
    s = _first_match("trick3").reader(Seat.E, ReaderState.OFFLINE)
    return s.lay(Seat.W, "KC").lay(Seat.S, "9C").settle().enter(Seat.E, "9H")


def _n_by_hand() -> Script:
    """Trick 3 with N's reader offline (long names seated): W, S and E have played; N is to play, by hand."""
    s = _first_match("trick3", SHEET_NAMES).reader(Seat.N, ReaderState.OFFLINE)
    return s.lay(Seat.W, "KC").lay(Seat.S, "9C").lay(Seat.E, "9H").settle()


def _s_names_trumps_by_hand() -> Script:
    """The match starts with S's reader offline: S names trumps by hand."""
    return _first_match("match_start", SHEET_NAMES).reader(Seat.S, ReaderState.OFFLINE)


def _correction_asked() -> Script:
    """After deal 2, deal 1 is corrected on the screen to N+S winning 25 to 15 (it was a tie); N+S accept, the
    correction waits for E+W's answer."""
    s = _first_match("deal2_over", SHEET_NAMES)
    s.events.append(CorrectionProposed(s.step(2.0), 1, DealEntry(Seat.S, Team.NS, 25)))
    s.events.append(CorrectionAnswered(s.step(1.0), Team.NS, True))
    return s


def _evening_by_hand() -> Script:
    """Deals 1 and 2 played, deal 1 corrected (both teams accept), then four deals told by hand from a chalk slate:
    six rows in the evening's history, one corrected and four by hand."""
    s = _correction_asked()
    s.events.append(CorrectionAnswered(s.step(1.0), Team.EW, True))
    for trumps, winner, points in ((Seat.N, Team.EW, 22), (Seat.W, None, 20), (Seat.S, Team.NS, 31),
                                   (Seat.E, Team.EW, 27)):
        s.events.append(DealEntered(s.step(5.0), DealEntry(trumps, winner, points)))
    return s


# ---- the moments --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Moment:
    """A sample moment: a record to replay, then what else the app's screen holds at that moment."""

    record: Callable[[], Script] | None  # None: the table has no state yet (the readers are starting)
    touches: tuple[str, ...] = ()  # touches on the screen's console after the record, in order
    learner: bool = False
    seating: bool = False  # the tournament's seating for this round arrived (tablepi.feed)
    announcement: str = ""  # the director's announcement arrived
    review: bool = False  # the last deal's best-play review is ready, and the Review touch opened it
    enrolling: Callable[[], Enrolling] | None = None  # the enrol mode's sheet, as the service's enrol mode shows it
    earlier: tuple[str, ...] = ()  # the names of earlier matches (names.txt beside the journal)


def _until(name: str, names: dict[Seat, str] | None = NAMES) -> Callable[[], Script]:
    return lambda: _first_match(name, names)


def _keys(*ids: str) -> tuple[str, ...]:
    return tuple(f"key:{key}" for key in ids)


MENU = "open:menu"
SHEET_NAMES: dict[Seat, str] = {Seat.N: "Jang", Seat.E: "Marie-Thérèse", Seat.S: "Guillaume", Seat.W: "Anna"}

#: The screens of a match, in its order.
SCREENS: dict[str, Moment] = {
    "idle": Moment(None),
    "match_start": Moment(_until("match_start")),
    "trump_chosen": Moment(_until("trump_chosen")),
    "choose_seat": Moment(lambda: _first_match("trump_chosen").press(ButtonName.ANNOUNCE_KONTER)),
    "mid_trick": Moment(_mid_trick, learner=True),
    "warning": Moment(_scanned_revoke),
    "deal_result": Moment(_until("deal2_last_trick")),
    "slate": Moment(_until("deal2_over")),
    "match_won": Moment(_whole_match),
    "review": Moment(_until("deal2_over"), review=True),
    "seating": Moment(lambda: Script().seat(NAMES, SeatingSource.TOURNAMENT), seating=True),
    "announcement": Moment(_mid_trick, learner=True, announcement="Round 4 starts at 21:30"),
}

#: The hand-entry sheets, each opened by the touches players make.
SHEET_SAMPLES: dict[str, Moment] = {
    "answering": Moment(_correction_asked),
    "card_by_hand": Moment(_card_by_hand),
    "picker_suit": Moment(_n_by_hand, ("zone:N",)),
    "picker_rank": Moment(_n_by_hand, ("zone:N", *_keys("suit:C"))),
    "picker_confirm": Moment(_n_by_hand, ("zone:N", *_keys("suit:C", "card:AC"))),
    "trumps_by_hand": Moment(_s_names_trumps_by_hand, ("zone:S", *_keys("suit:H"))),
    "enrol_menu": Moment(_until("match_start", SHEET_NAMES), (MENU, *_keys("open:enrol"))),
    "enrol_name": Moment(_until("match_start", SHEET_NAMES),
                         (MENU, *_keys("open:enrol", "open:enrol_deck", "char:r", "char:e"))),
    "enrolling": Moment(_until("match_start", SHEET_NAMES), enrolling=lambda: enrolled_sheet(ENROLLED)),
    "keyboard": Moment(_until("match_start", None), _keys("open:players", "char:G", "char:u"),
                       earlier=("Guillaume", "Gusty", "Jang")),
    "keyboard_digits": Moment(_until("match_start", SHEET_NAMES),
                              (MENU, *_keys("open:enrol", "open:enrol_deck", "char:d", "char:e", "char:c", "char:k",
                                            "digits"))),
    "dealer": Moment(_until("match_start", SHEET_NAMES), (MENU, *_keys("open:dealer"))),
    "deal_form": Moment(_until("deal2_over", SHEET_NAMES),
                        (MENU, *_keys("open:deal", "winner:EW", "digit:2", "digit:5", "matt:E"))),
    "points_pad": Moment(_until("deal2_over", SHEET_NAMES), (MENU, *_keys("open:deal", "winner:EW", "digit:3"))),
    "correction": Moment(_until("deal2_over", SHEET_NAMES), (MENU, *_keys("open:correct"))),
    "history": Moment(_evening_by_hand, (MENU, *_keys("open:history"))),
    "menu": Moment(_until("deal2_over", SHEET_NAMES), (MENU,)),
    "start_sheet": Moment(_until("match_start", None)),
}

SAMPLES: dict[str, Moment] = {**SCREENS, **SHEET_SAMPLES}


# ---- a real enrolment ----------------------------------------------------------------------------------------

#: How many cards of the deck the enrolling sample has laid: ♠A to ♥K, the enrol mode asking for ♥Q next.
ENROLLED = 8
ENROL_ZONES: dict[int, Seat] = {0: Seat.N, 1: Seat.E, 2: Seat.S, 3: Seat.W}


@functools.cache
def enrolled_sheet(cards: int) -> Enrolling:
    """The enrol mode's sheet, from a real enrolment: the running service's app (as `tablepi run` builds it) on a
    fresh journal and no deck yet; on its screen the players touch Play, Menu, "Enrol cards or tags", "A deck", type
    "red" and OK; then they lay the deck's first ``cards`` cards, in the order asked, one on each zone in turn and
    lifted again, on the sim reader, whose events the app's loop hands to its enrol mode. The sheet is the one the
    enrol mode put on the screen then (it is a value: the screen says it in its own language)."""
    from tablepi.app.build import service_app  # the whole service's app: only this sample needs it
    from tablepi.app.inputs import Touch
    from tablepi.app.reloads import TableFiles
    from tablepi.journal.journal import JournaledTable
    from tablepi.readers.sim import SimReader

    with tempfile.TemporaryDirectory(prefix="tablepi-enrolling-") as scratch:
        folder = Path(scratch)
        files = TableFiles([folder / "decks.toml"], folder / "players.toml")
        journal = folder / "journal.sqlite3"
        table = JournaledTable(journal, RecordHeader(zones=tuple(ENROL_ZONES.items())))
        app = service_app(table, files, ENROL_ZONES, journal, "en")
        reader = SimReader(zones=len(ENROL_ZONES))
        try:
            for touch in ("key:cancel", MENU, *_keys("open:enrol", "open:enrol_deck", "char:r", "char:e", "char:d",
                                                     "ok")):
                app.handle(Touch(touch_named(touch)))
            for n, card in enumerate(DECK[:cards]):
                zone = n % len(ENROL_ZONES)
                reader.place(zone, f"04E1{card.index:02X}A1B2C3D4")
                reader.lift(zone)
                while (item := reader.recv(timeout=0.05)) is not None:
                    app.handle(item)
            console = app.ports.console
            assert isinstance(console, Console) and console.enrolling is not None, "the enrol mode did not start"
            return console.enrolling
        finally:
            reader.close()
            app.close()


# ---- through the app's screen --------------------------------------------------------------------------------


def review_of(table: Table) -> DealReview:
    """The last deal's best-play review, as the app's reviewer makes it (double-dummy: the same on every machine,
    with or without the compiled single-dummy kernel)."""
    from tablepi.analysis.review import review_deal

    state = table.state
    match = table.matches[-1]
    deal = match.scored_as_told()[-1][1]
    assert isinstance(deal, Deal)
    number = state.match.slate[-1].number
    return review_deal(deal, number, single=False, carried=match.slate.carried_into(number))


@functools.cache
def table_of(name: str) -> Table | None:
    """The table that has replayed the record of the moment ``name`` (None: no state yet)."""
    record = SAMPLES[name].record
    return record().table() if record is not None else None


def service_console(settings: DisplayConfig, earlier: Callable[[], Sequence[str]] = tuple) -> Console:
    """The running service's console (it hosts enrolment), as `tablepi run` builds it."""
    return Console(None, settings.language, earlier=earlier, can_enrol=True)


def app_view(state: TableState, settings: DisplayConfig) -> View:
    """The View the running service's screen draws for ``state`` with nothing else open (the appliance test
    compares the guest's screen with it)."""
    return build_view(Scene(state, settings, console=service_console(settings).scene(state, settings)))


@functools.cache
def sample(name: str, language: str = "en") -> View:
    """The View the app's screen draws at the moment ``name`` in ``language``."""
    try:
        moment = SAMPLES[name]
    except KeyError:
        raise KeyError(f"no sample moment {name!r} (choose one of {', '.join(SAMPLES)})") from None
    table = table_of(name)
    settings = DisplayConfig(language=language, learner=moment.learner)
    if table is None:
        return build_view(Scene(None, settings))
    state = table.state
    # the console of the running service (it hosts enrolment), as the loop keeps it: it sees the state once, as
    # after the record's last event, then each touch of the moment
    console = service_console(settings, earlier=lambda: moment.earlier)
    console.show_enrolment(None if moment.enrolling is None else moment.enrolling())
    part = console.scene(state, settings)
    for touch in moment.touches:
        console.touch(touch_named(touch), state)  # the control the hit-map names so
        part = console.scene(state, settings)
    return build_view(Scene(
        state, settings, review_of(table) if moment.review else None, review_open=moment.review,
        announcement=Announcement(moment.announcement, until=float("inf")) if moment.announcement else None,
        seating=SeatingLine(3, "7", tuple(NAMES.items())) if moment.seating else None, console=part,
    ))
