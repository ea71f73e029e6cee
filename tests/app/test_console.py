"""The screen's hand entry: touches open the panels, their keys act, a finished one hands the app its gesture."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pygame
import pytest

from tablepi.app.console import Console
from tablepi.app.core import TableApp, Touch
from tablepi.app.screen import PygameScreen
from tablepi.config import DisplayConfig
from tablepi.deck import DeckRegistry, virtual_deck
from tablepi.display.keys import KeyTouch, Opening, OpenKey, touch_named
from tablepi.display.panels import CardPicker, EnterCard, HistoryPanel, Keyboard, Menu, SeatPlayer
from tablepi.display.scene import Scene
from tablepi.display.sheet import key_rects
from tablepi.display.touch import control_at
from tablepi.journal.journal import JournaledTable
from tablepi.journal.record import RecordHeader
from tablepi.rules import DECK, Card, Seat, Team
from tablepi.table import CardPlaced, Tick

ZONES = {0: Seat.N, 1: Seat.E, 2: Seat.S, 3: Seat.W}


def touch(text: str, seat: Seat | None = None) -> Touch:
    """A touch on the control the hit-map names ``text`` (``key:suit:H``, ``open:menu``, ``zone:W``, ``confirm``)."""
    return Touch(touch_named(text), seat)


@pytest.fixture
def app(tmp_path: Path) -> Iterator[tuple[TableApp, PygameScreen, list[object]]]:
    screen = PygameScreen(DisplayConfig(language="en", size=(800, 480)), headless=True)
    table = JournaledTable(tmp_path / "j.sqlite3", RecordHeader(zones=tuple(ZONES.items())))
    made: list[object] = []
    console = Console(made.append, "en", earlier=lambda: ("Marie", "Jang"), known=lambda: ("Anna",))
    app = TableApp(table, DeckRegistry([virtual_deck()]), ZONES, screen=screen, clock=lambda: 0.0, console=console)
    yield app, screen, made
    app.close()


def test_the_header_opens_the_menu_and_its_keys_open_the_history(
    app: tuple[TableApp, PygameScreen, list[object]],
) -> None:
    table, screen, _ = app
    table.handle(touch("open:menu"))
    assert isinstance(table.console.panel, Menu)  # type: ignore[union-attr]
    assert screen.display.last is not None and screen.display.last.sheet is not None
    table.handle(touch("key:open:history"))
    assert isinstance(table.console.panel, HistoryPanel)  # type: ignore[union-attr]
    assert screen.display.last.sheet.title == "The evening's deals"
    table.handle(touch("key:cancel"))
    assert table.console.panel is None and screen.display.last.sheet is None  # type: ignore[union-attr]


def test_names_are_typed_seat_after_seat_with_earlier_names_first(
    app: tuple[TableApp, PygameScreen, list[object]],
) -> None:
    table, _, made = app
    table.handle(touch("open:menu"))
    table.handle(touch("key:open:players"))
    board = table.console.panel  # type: ignore[union-attr]
    assert isinstance(board, Keyboard) and board.seat is Seat.N and board.suggestions() == ("Marie", "Jang", "Anna")
    table.handle(touch("key:name:Jang"))
    for key in ("char:B", "char:o", "ok"):
        table.handle(touch(f"key:{key}"))
    assert made == [SeatPlayer(Seat.N, "Jang"), SeatPlayer(Seat.E, "Bo")]
    assert isinstance(table.console.panel, Keyboard) and table.console.panel.seat is Seat.S  # type: ignore[union-attr]


def test_a_touch_on_the_zone_of_the_seat_to_play_opens_the_card_picker(
    app: tuple[TableApp, PygameScreen, list[object]],
) -> None:
    table, _, made = app
    uid = virtual_deck().uid_of(Card.parse("AH"))
    table.handle(CardPlaced(1.0, Seat.W, Card.parse("AH"), uid or "", "demo"))  # W names hearts
    table.handle(Tick(3.0))
    state = table.table.state
    assert state.deal.to_play is Seat.W
    table.handle(touch("zone:S"))  # not S's turn: nothing opens
    assert table.console.panel is None  # type: ignore[union-attr]
    table.handle(touch("zone:W"))  # the AH still lies on W's zone (shown for trumps): lift it first
    assert table.console.panel is None  # type: ignore[union-attr]
    from tablepi.table import CardLifted

    table.handle(CardLifted(4.0, Seat.W, Card.parse("AH"), uid or "", "demo"))
    table.handle(touch("zone:W"))
    picker = table.console.panel  # type: ignore[union-attr]
    assert isinstance(picker, CardPicker) and picker.seat is Seat.W
    assert set(picker.possible) == set(DECK)  # the shown AH is W's own: still possible for him
    table.handle(touch("key:suit:H"))
    table.handle(touch("key:card:KH"))
    assert made == []  # nothing yet: a stray touch plays nothing
    table.handle(touch("key:confirm"))
    assert made == [EnterCard(Seat.W, Card.parse("KH"))]
    assert state.possible.cards_for(Seat.N) == ()  # N is not to play: no card by hand for him


def test_the_screen_sends_the_key_under_a_finger(app: tuple[TableApp, PygameScreen, list[object]]) -> None:
    table, screen, _ = app
    table.handle(touch("key:cancel"))  # Play: the start sheet a new match offers is put away
    header = control_at(screen.display.last, (800, 480), (400, 10))  # type: ignore[arg-type]
    assert header is not None and header.name == "open:menu"
    table.handle(touch("open:menu"))
    sheet = screen.display.last.sheet  # type: ignore[union-attr]
    history = OpenKey(Opening.HISTORY)
    _, rect = next((k, r) for k, r in key_rects(sheet, (800, 480)) if k.id == history)
    events = [pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=rect.center, button=1),
              pygame.event.Event(pygame.MOUSEBUTTONUP, pos=rect.center, button=1)]
    assert screen.actions(events) == [(KeyTouch(history), None)]  # the key itself, as a value


# --- the gestures reach the table as journaled events -------------------------------------------------------


@pytest.fixture
def live(tmp_path: Path) -> Iterator[TableApp]:
    from tablepi.app.names import RecentNames
    from tablepi.players import PlayerRegistry

    screen = PygameScreen(DisplayConfig(language="en", size=(800, 480)), headless=True)
    table = JournaledTable(tmp_path / "j.sqlite3", RecordHeader(zones=tuple(ZONES.items())))
    names = RecentNames(tmp_path / "names.txt")
    console = Console(None, "en", earlier=lambda: names.names)
    app = TableApp(table, DeckRegistry([virtual_deck()]), ZONES, screen=screen, clock=lambda: 0.0, console=console,
                   names=names, players=PlayerRegistry({"04AB12CD34EF56": "Jang"}))
    yield app
    app.close()


def test_players_seated_by_their_tags_and_by_touch_are_journaled(live: TableApp, tmp_path: Path) -> None:
    from tablepi.readers.events import ZoneEvent
    from tablepi.table.events import PlayersSeated, SeatingSource

    live.handle(ZoneEvent(2, "04AB12CD34EF56", True, 0.0))  # Jang taps his keyring tag on S's zone
    live.handle(ZoneEvent(2, "04AB12CD34EF56", False, 0.0))
    assert dict(live.table.state.names) == {Seat.S: "Jang"} and not live.table.state.zone(Seat.S).cards
    live.handle(touch("open:menu"))
    live.handle(touch("key:open:players"))
    for key in ("char:M", "char:a", "char:x", "ok", "cancel"):
        live.handle(touch(f"key:{key}"))
    assert dict(live.table.state.names) == {Seat.S: "Jang", Seat.N: "Max"}
    seated = [e for e in live.table.journal.events() if isinstance(e, PlayersSeated)]
    assert [(e.source, e.names) for e in seated] == [
        (SeatingSource.TAG, ((Seat.S, "Jang"),)), (SeatingSource.TOUCH, ((Seat.N, "Max"),))]
    assert (tmp_path / "names.txt").read_text(encoding="utf-8") == "Max\nJang\n"  # offered first next time
    view = live.screen.display.last  # type: ignore[union-attr]
    assert view is not None and view.seat(Seat.N).name == "Max"  # type: ignore[union-attr]


def test_a_card_and_a_deal_entered_by_hand_reach_the_table(live: TableApp) -> None:
    from tablepi.table.events import CardEntered, DealEntered

    live.handle(touch("trump_spades"))
    live.handle(touch("zone:W"))
    for key in ("suit:H", "card:AH", "confirm"):
        live.handle(touch(f"key:{key}"))
    state = live.table.state
    assert state.deal.tricks[0].plays == ((Seat.W, Card.parse("AH")),) and state.deal.tricks[0].by_hand == (Seat.W,)
    view = live.screen.display.last  # type: ignore[union-attr]
    assert view is not None and view.seat(Seat.W).card.by_hand  # type: ignore[union-attr]
    live.handle(touch("open:menu"))
    live.handle(touch("key:open:deal"))
    for key in ("winner:EW", "digit:2", "digit:2", "ok"):
        live.handle(touch(f"key:{key}"))
    kinds = [type(e) for e in live.table.journal.events()]
    assert CardEntered in kinds and DealEntered in kinds
    assert len(live.table.state.match.slate) == 1 and live.table.state.history[0].by_hand
    # A correction: proposed from the menu, answered by both teams on the sheet it raises.
    live.handle(touch("open:menu"))
    live.handle(touch("key:open:correct"))
    for key in ("winner:NS", "pad:cancel", "ok"):
        live.handle(touch(f"key:{key}"))
    assert live.table.state.match.proposal is not None
    assert live.screen.display.last.sheet.title == "Correct deal 1"  # type: ignore[union-attr]
    live.handle(touch("key:answer:NS:yes"))
    live.handle(touch("key:answer:EW:yes"))
    assert live.table.state.match.proposal is None and live.table.state.history[0].corrected
    assert live.table.state.match.slate[0].result.winner is Team.NS


def test_with_no_deck_enrolled_the_bar_says_how_to_enrol_one_and_the_menu_has_a_labelled_button() -> None:
    from tablepi.app.console import Console
    from tablepi.display.view import DisplaySettings
    from tablepi.display.viewmodel import build_view
    from tablepi.table import Table

    console = Console(lambda gesture: None, "en")
    console.no_deck = lambda: True
    settings = DisplaySettings(names={Seat.N: "A", Seat.E: "B", Seat.S: "C", Seat.W: "D"})
    state = Table().state
    view = build_view(Scene(state, settings, console=console.scene(state, settings)))
    assert view.warning is not None and view.warning.code == "no_deck" and view.warning.informational
    assert view.warning.text == "No deck is enrolled yet: Menu, Enrol cards or tags, Enrol a deck."
    assert view.header.menu == "Menu" and view.sheet is None
    console.no_deck = lambda: False
    assert build_view(Scene(state, settings, console=console.scene(state, settings))).warning is None
