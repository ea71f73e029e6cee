"""The view model alone: pure values, no pygame."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tablepi.display.view import (
    Action,
    Button,
    DisplaySettings,
    Line,
    ScreenKind,
    SeatView,
    SlateRow,
    TrumpView,
    View,
    line_is_open,
    trump_order,
)
from tablepi.errors import ConfigError, TablepiError
from tablepi.rules.cards import Suit, parse_cards
from tablepi.rules.seats import Seat, Team


@pytest.mark.parametrize(
    ("suit", "order"),
    [
        (Suit.SPADES, "AS QS QH QD KS JS TS 9S"),
        (Suit.HEARTS, "AH QS QH QD KH JH TH 9H"),
        (Suit.DIAMONDS, "AD QS QH QD KD JD TD 9D"),
        (Suit.CLUBS, "AC QS QH QD KC QC JC TC 9C"),
    ],
)
def test_trump_order_follows_rule_5(suit: Suit, order: str) -> None:
    assert trump_order(suit) == parse_cards(order)


def test_reminder_names_matadors_with_their_suit_and_the_rest_by_rank() -> None:
    assert TrumpView(Suit.SPADES, "Trumps").reminder == "A ♠Q ♥Q ♦Q K J 10 9"
    assert TrumpView(Suit.HEARTS, "Trumps").reminder == "A ♠Q ♥Q ♦Q K J 10 9"
    # clubs keeps its own queen after the king (rule 5)
    assert TrumpView(Suit.CLUBS, "Trumps").reminder == "A ♠Q ♥Q ♦Q K Q J 10 9"


def test_open_lines_are_open_and_added_lines_count_until_struck() -> None:
    assert [line_is_open(line) for line in Line] == [True, False, True, False]
    row = SlateRow(Team.NS, "N+S", (Line.STRUCK,) * 3 + (Line.OPEN,) * 6 + (Line.ADDED, Line.ADDED_STRUCK))
    assert row.open_count == 7


def test_slate_row_groups_starting_lines_by_three_and_added_lines_apart() -> None:
    """As players draw d'Lee: 9 starting lines as 3+3+3, the added ones as their own groups after them."""
    row = SlateRow(Team.EW, "E+W", (Line.OPEN,) * 9)
    assert [len(g) for g in row.groups] == [3, 3, 3]
    o, s, a, x = Line.OPEN, Line.STRUCK, Line.ADDED, Line.ADDED_STRUCK
    mixed = SlateRow(Team.EW, "E+W", (s, s, s, s, o, o, o, o, o, x, a, a, a))
    assert mixed.groups == ((s, s, s), (s, o, o), (o, o, o), (x, a, a), (a,))
    assert SlateRow(Team.EW, "E+W", ()).groups == ()


def test_trump_actions_round_trip_their_suit() -> None:
    for suit in Suit:
        assert Action.trump(suit).suit is suit
    assert Action.UNDO.suit is None
    assert {a.value for a in Action} >= {"trump_spades", "announce_konter_a_matt", "undo", "confirm", "claim",
                                          "new_match"}


def test_view_lookups_find_seats_and_buttons() -> None:
    view = View(ScreenKind.DEAL, seats=(SeatView(Seat.N, "Anna"),), buttons=(Button(Action.UNDO, "Undo"),))
    seat = view.seat(Seat.N)
    assert seat is not None and seat.name == "Anna"
    assert view.seat(Seat.E) is None
    assert view.button(Action.UNDO) is not None
    assert view.button(Action.CLAIM) is None


def test_equal_views_compare_equal_so_redraws_can_be_skipped() -> None:
    def make() -> View:
        return View(ScreenKind.DEAL, seats=(SeatView(Seat.N, "Anna", to_play=True),), prompt="N: lay a card")

    assert make() == make()
    assert make() != View(ScreenKind.DEAL, prompt="N: lay a card")


def test_settings_refuse_an_unknown_language() -> None:
    with pytest.raises(ConfigError, match=r"'xx'.*lb, de, fr, en") as info:
        DisplaySettings(language="xx")
    assert isinstance(info.value, TablepiError) and isinstance(info.value, ValueError)
    assert DisplaySettings(language="lb").language == "lb"


def test_view_model_modules_do_not_import_pygame() -> None:
    code = (
        "import sys\n"
        "import tablepi.display, tablepi.display.view, tablepi.display.texts, tablepi.display.layout\n"
        "import tablepi.display.i18n, tablepi.display.viewmodel, tablepi.display.scene, tablepi.table, tablepi.config\n"
        "state = tablepi.table.Table().state\n"
        "scene = tablepi.display.scene.Scene(state, tablepi.config.DisplayConfig(language='lb'))\n"
        "tablepi.display.viewmodel.build_view(scene)\n"
        "assert 'pygame' not in sys.modules, 'the view model imported pygame'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
