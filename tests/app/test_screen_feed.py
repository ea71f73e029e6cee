"""The tournament on the table's own screen: the round's seating and the director's announcements in the warning
bar, in the screen's language; the roster's names offered when players name themselves."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tablepi.app.build import make_console
from tablepi.app.core import TableApp, Touch
from tablepi.app.screen import PygameScreen
from tablepi.config import DisplayConfig
from tablepi.deck import DeckRegistry, virtual_deck
from tablepi.display.keys import touch_named
from tablepi.display.panels import Keyboard
from tablepi.feed.messages import Seating
from tablepi.journal.journal import JournaledTable
from tablepi.journal.record import RecordHeader
from tablepi.notices import Notice, NoticeCode
from tablepi.rules import Card, Seat
from tablepi.table import CardPlaced

ZONES = {0: Seat.N, 1: Seat.E, 2: Seat.S, 3: Seat.W}
SEATS = ((Seat.N, "Anna"), (Seat.E, "Jos"), (Seat.S, "Marie"), (Seat.W, "Pit"))


def touch(text: str, seat: Seat | None = None) -> Touch:
    """A touch on the control the hit-map names ``text`` (``key:suit:H``, ``open:menu``, ``zone:W``, ``confirm``)."""
    return Touch(touch_named(text), seat)


@pytest.fixture
def app(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[tuple[TableApp, PygameScreen]]:
    screen = PygameScreen(DisplayConfig(language=getattr(request, "param", "en"), size=(800, 480)), headless=True)
    table = JournaledTable(tmp_path / "j.sqlite3", RecordHeader(zones=tuple(ZONES.items())))
    console, names = make_console(screen.settings.language, tmp_path / "j.sqlite3")  # as the app does
    app = TableApp(table, DeckRegistry([virtual_deck()]), ZONES, screen=screen, clock=lambda: 0.0, console=console,
                   names=names)
    yield app, screen
    app.close()


def test_the_seating_is_shown_until_trumps_are_named(app: tuple[TableApp, PygameScreen]) -> None:
    table, screen = app
    table.handle(Seating(3, "7", SEATS, ("Anna", "Ben", "Jos", "Marie", "Pit")))
    assert table.seating is not None and table.seating.roster[1] == "Ben"
    last = screen.display.last
    assert last is not None and last.warning is not None and last.warning.code == "seating"
    assert last.warning.text == "Round 3 — table 7: N Anna, E Jos, S Marie, W Pit"
    deck = virtual_deck()
    uid = next(u for u, c in deck.cards.items() if c == Card.parse("AH"))
    table.handle(CardPlaced(1.0, Seat.W, Card.parse("AH"), uid))  # forehand names trumps: play begins
    table.handle(CardPlaced(2.0, Seat.W, Card.parse("AH"), uid))
    last = screen.display.last
    assert last is not None and (last.warning is None or last.warning.code != "seating")


@pytest.mark.parametrize("app", ["lb"], indirect=True)
def test_an_announcement_in_the_screens_language(app: tuple[TableApp, PygameScreen]) -> None:
    table, screen = app
    table.handle(Seating(3, "7", SEATS))
    last = screen.display.last
    assert last is not None and last.warning is not None
    assert last.warning.text == "Tour 3 — Dësch 7: N Anna, O Jos, S Marie, W Pit"
    table.handle(Notice(NoticeCode.ANNOUNCEMENT, (("text", "Round 4 starts at nine"),)))
    last = screen.display.last
    assert last is not None and last.warning is not None and last.warning.code == "announcement"
    assert last.warning.text == "Matdeelung: Round 4 starts at nine"


def test_players_pick_their_names_from_the_roster(app: tuple[TableApp, PygameScreen], tmp_path: Path) -> None:
    table, _screen = app
    table.handle(Seating(1, "2", (), ("Anna", "Ben", "Jos")))
    table.handle(touch("open:menu"))
    table.handle(touch("key:open:players"))
    board = table.console.panel  # type: ignore[union-attr]
    assert isinstance(board, Keyboard) and board.suggestions()[:3] == ("Anna", "Ben", "Jos")
