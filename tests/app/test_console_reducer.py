"""The console as a pure reducer: (its state, a touch as a value, the table's published state) in, (its next state,
what it hands on) out. No app, no screen: the table's own states, typed keys."""

from __future__ import annotations

from tablepi.app.console import ConsoleState, Note, PublicName, Setup, gesture_event, reduce, refresh
from tablepi.display.keys import (
    AnswerKey,
    CardKey,
    CharKey,
    KeyTouch,
    MenuTouch,
    NameKey,
    Opening,
    OpenKey,
    PlaceTouch,
    SuitKey,
    Word,
)
from tablepi.display.panels import (
    Answer,
    Answering,
    CardPicker,
    EnrolKind,
    Enrolling,
    EnterCard,
    Keyboard,
    MatchStart,
    Menu,
    NameTrumps,
    SeatPlayer,
    StopEnrol,
)
from tablepi.display.view import PhoneCode
from tablepi.rules import Card, Seat, Suit, Team
from tablepi.rules.entry import DealEntry
from tablepi.rules.house import HouseRules
from tablepi.table import Button, ButtonName, CardLifted, CardPlaced, Table, TableState
from tablepi.table.events import (
    CorrectionAnswered,
    CorrectionProposed,
    DealEntered,
    PlayersSeated,
    SeatingSource,
    TrumpsEntered,
)
from tablepi.table.state import TablePhase


def key(k: object) -> KeyTouch:
    return KeyTouch(k)  # type: ignore[arg-type]


PLAIN = Setup()
PAGES = Setup(can_enrol=True, phone=PhoneCode("x", ()))


def run(console: ConsoleState, table: TableState, *touches: object,
        setup: Setup = PLAIN) -> tuple[ConsoleState, list[object]]:
    made: list[object] = []
    for touched in touches:
        console, out = reduce(console, touched, table, setup)  # type: ignore[arg-type]
        made += out
    return console, made


def playing() -> Table:
    """A table whose forehand (W: N deals, anticlockwise) named hearts with the AH and lifted it: W to play."""
    table = Table()
    table.apply(CardPlaced(1.0, Seat.W, Card.parse("AH")))
    table.apply(CardLifted(1.2, Seat.W, Card.parse("AH")))
    assert table.state.phase is TablePhase.PLAY and table.state.deal.to_play is Seat.W
    return table


def test_the_header_opens_the_menu_the_table_and_the_setup_allow() -> None:
    start = Table().state
    console, made = run(ConsoleState(), start, MenuTouch())
    assert made == [] and console.panel == Menu(can_enter=True, can_correct=False, can_choose_dealer=True)
    console, _ = run(ConsoleState(), playing().state, MenuTouch(), setup=PAGES)
    assert console.panel == Menu(can_choose_dealer=False, can_enrol=True, can_phone=True)


def test_a_card_by_hand_offers_what_the_table_publishes_and_ends_in_one_gesture() -> None:
    state = playing().state
    console, made = run(ConsoleState(), state, PlaceTouch(Seat.S))  # not S's turn
    assert console == ConsoleState() and made == []
    console, made = run(ConsoleState(), state, PlaceTouch(Seat.W))
    assert isinstance(console.panel, CardPicker) and console.panel.possible == state.possible.cards_for(Seat.W)
    picking, made = run(console, state, key(SuitKey(Suit.CLUBS)), key(CardKey(Card.parse("QC"))))
    assert made == [] and isinstance(picking.panel, CardPicker) and picking.panel.card == Card.parse("QC")
    done, made = run(picking, state, key(Word.CONFIRM))
    assert done.panel is None and made == [EnterCard(Seat.W, Card.parse("QC"))]
    stale, made = run(console, state, key(CardKey(Card.parse("QC"))))  # a rank before its suit: not shown, nothing
    assert stale == console and made == []


def test_trumps_by_hand_are_one_gesture_the_table_names_them_by() -> None:
    table = Table()
    forehand = table.state.deal.next_forehand
    console, made = run(ConsoleState(), table.state, PlaceTouch(forehand), key(SuitKey(Suit.SPADES)),
                        key(Word.CONFIRM))
    assert console.panel is None and made == [NameTrumps(forehand, Suit.SPADES)]
    event = gesture_event(made[0], 5.0)
    assert event == TrumpsEntered(5.0, forehand, Suit.SPADES)  # one event: no Confirm made up for him
    assert table.apply(event).deal.trump is Suit.SPADES


def test_names_go_seat_after_seat_a_name_already_seated_is_no_new_seating() -> None:
    table = Table()
    table.apply(PlayersSeated(0.5, ((Seat.N, "Jang"),), SeatingSource.TAG, "04AB12CD34EF56"))
    state = table.state
    setup = Setup(earlier=("Marie", "Jang"), known=("Anna",), phone=PhoneCode("x", ()))
    console, made = run(ConsoleState(), state, MenuTouch(), key(OpenKey(Opening.PLAYERS)), setup=setup)
    board = console.panel
    assert isinstance(board, Keyboard) and board.seat is Seat.N and board.text == "Jang" and made == []
    assert console.seating == (Seat.E, Seat.S, Seat.W) and board.public is False
    console, made = run(console, state, key(Word.OK), setup=setup)  # N keeps his name: nothing to journal
    assert made == [] and isinstance(console.panel, Keyboard) and console.panel.seat is Seat.E
    assert console.panel.suggestions() == ("Marie", "Anna")  # Jang sits at N
    console, made = run(console, state, key(CharKey("B")), key(CharKey("o")), key(Word.PUBLIC), key(Word.OK),
                        setup=setup)
    assert made == [SeatPlayer(Seat.E, "Bo", public=True), PublicName("Bo")]
    console, made = run(console, state, key(NameKey("Marie")), setup=setup)
    assert made == [SeatPlayer(Seat.S, "Marie")] and console.seating == ()
    console, made = run(console, state, key(Word.CANCEL), setup=setup)  # ✕: W stays as he is
    assert console.panel is None and made == []


def test_the_start_sheet_is_offered_once_a_match_and_closes_when_trumps_are_named() -> None:
    table = Table()
    console = refresh(ConsoleState(), table.state, {})
    assert console.panel == MatchStart() and console.offered == table.state.match.number
    closed, _ = run(console, table.state, key(Word.CANCEL))
    assert refresh(closed, table.state, {}).panel is None  # offered once, not again
    assert refresh(ConsoleState(), table.state, dict.fromkeys(Seat, "x")).panel is None  # all four named
    table.apply(Button(2.0, ButtonName.TRUMP_CLUBS))
    assert refresh(console, table.state, {}).panel is None  # trumps named: play goes on


def test_a_correction_waiting_is_answered_and_a_refusal_is_told_on_the_bar() -> None:
    table = Table()
    table.apply(DealEntered(1.0, DealEntry(Seat.W, Team.NS, 30)))
    table.apply(CorrectionProposed(2.0, 1, DealEntry(Seat.W, Team.EW, 30)))
    console = refresh(ConsoleState(), table.state, dict.fromkeys(Seat, "x"))
    assert isinstance(console.panel, Answering) and console.panel.waiting == (Team.NS, Team.EW)
    console, made = run(console, table.state, key(AnswerKey(Team.EW, False)))
    assert made == [Answer(Team.EW, False)] and console.note == Note(refused=1)
    assert console.panel is None
    cleared, made = run(console, table.state, ButtonName.UNDO)  # any touch ends the note; a button is the table's
    assert cleared.note is None and made == []
    # No panel open and a correction waiting: its keys act without a refresh in between.
    _, made = run(ConsoleState(), table.state, key(AnswerKey(Team.NS, True)))
    assert made == [Answer(Team.NS, True)]


def test_a_player_seated_by_his_tag_is_told_on_the_bar() -> None:
    table = Table()
    table.apply(Button(0.5, ButtonName.TRUMP_CLUBS))
    console = refresh(ConsoleState(), table.state, {})
    assert console.note is None
    table.apply(PlayersSeated(1.0, ((Seat.S, "Anna"),), SeatingSource.TAG, "04AB12CD34EF56"))
    console = refresh(console, table.state, {})
    assert console.note == Note(seated=((Seat.S, "Anna"),))


def test_while_the_table_enrols_only_the_sheets_key_acts() -> None:
    state = Table().state
    enrolling = ConsoleState(enrolling=Enrolling(EnrolKind.DECK, "blue"))
    for touched in (MenuTouch(), PlaceTouch(Seat.N), key(Word.OK)):
        assert run(enrolling, state, touched) == (enrolling, [])
    assert run(enrolling, state, key(Word.STOP)) == (ConsoleState(), [StopEnrol()])
    over = ConsoleState(enrolling=Enrolling(EnrolKind.DECK, "blue", over=True))
    assert run(over, state, key(Word.STOP)) == (ConsoleState(), [])  # its last word closed: nothing to stop


def test_the_reducer_is_pure() -> None:
    state = playing().state
    console = ConsoleState()
    first = reduce(console, PlaceTouch(Seat.W), state, Setup())
    assert reduce(console, PlaceTouch(Seat.W), state, Setup()) == first and console == ConsoleState()


def test_a_correction_waiting_at_the_match_end_is_closed_and_the_revanche_reached() -> None:
    """Before: the answer sheet had no way out: with one team's answer missing at the match's end it stood over the
    slate, hiding New match and Revanche, and only a refusal took it down."""
    table = Table(HouseRules(start_lines=1))
    table.apply(DealEntered(1.0, DealEntry(Seat.W, Team.NS, 30)))
    assert table.state.phase is TablePhase.MATCH_OVER
    table.apply(CorrectionProposed(2.0, 1, DealEntry(Seat.W, Team.NS, 35)))
    table.apply(CorrectionAnswered(3.0, Team.NS, True))
    console = refresh(ConsoleState(), table.state, dict.fromkeys(Seat, "x"))
    assert isinstance(console.panel, Answering) and Word.CANCEL in console.panel.live_keys()
    console, made = run(console, table.state, key(Word.CANCEL))
    assert made == [] and console.panel is None and console.note == Note(aside=1)
    console = refresh(console, table.state, dict.fromkeys(Seat, "x"))
    assert console.panel is None  # not put up again by itself: the match's end is the table's
    assert run(console, table.state, key(AnswerKey(Team.EW, True)))[1] == []  # its keys are gone with it
    menu_open, _ = run(console, table.state, MenuTouch())
    assert isinstance(menu_open.panel, Menu) and menu_open.panel.can_answer
    back, _ = run(menu_open, table.state, key(OpenKey(Opening.CORRECT)))
    assert isinstance(back.panel, Answering) and back.panel.waiting == (Team.EW,)
    table.apply(Button(4.0, ButtonName.REVANCHE))  # a new match: the correction lapses, nothing is left aside
    assert table.state.match.proposal is None
    assert refresh(console, table.state, dict.fromkeys(Seat, "x")).aside is None
