"""A dead reader tells its player what to do, where he can read it, and never asks for a card he cannot lay.

Issue 20: the warning said only "check its cable" and grew over the seat's name; the prompt then asked the player
to lay a card on a zone that senses nothing.
"""

from __future__ import annotations

import pytest

from tablepi.display.i18n import LANGUAGES
from tablepi.display.layout import PANELS, layout_for
from tablepi.display.render import Renderer
from tablepi.display.scene import Scene
from tablepi.display.view import DisplaySettings
from tablepi.display.viewmodel import build_view
from tablepi.rules import Seat, Suit
from tablepi.table import Button, ButtonName, ReaderState, ReaderStatus, Table

NAMES = {Seat.N: "Fernand", Seat.E: "Marie-Thérèse", Seat.S: "Guillaume", Seat.W: "Léon"}


def _dead(seat: Seat, trumps: bool) -> Table:
    table = Table(dealer=Seat.N)  # W is forehand
    table.apply(ReaderStatus(0.5, seat, ReaderState.OFFLINE))
    if not trumps:
        table.apply(Button(1.0, ButtonName.trump(Suit.HEARTS)))
    return table


@pytest.mark.parametrize("family", list(PANELS))
def test_the_warning_says_touch_your_card_place_and_leaves_every_name_in_view(family: str,
                                                                              renderer: Renderer) -> None:
    size = PANELS[family].size
    layout = layout_for(size)
    for language in LANGUAGES:
        for bottom in Seat:
            settings = DisplaySettings(language=language, bottom_seat=bottom, names=NAMES)
            view = build_view(Scene(_dead(Seat.W, trumps=False).state, settings))
            assert view.warning is not None and view.warning.code == "reader_offline"
            assert "Léon" in view.warning.text
            banner = renderer.warning_banner(view, layout)
            assert banner is not None and banner.text.fits and banner.headline.fits
            for slot in layout.slots(bottom).values():
                for box in banner.boxes:
                    apart = box.y >= slot.tag.bottom or box.bottom <= slot.tag.y or box.x >= slot.tag.right \
                        or box.right <= slot.tag.x
                    assert apart, (family, language, bottom, box, slot.tag)


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_prompt_asks_a_dead_readers_player_to_touch_his_card_place(language: str) -> None:
    settings = DisplaySettings(language=language, names=NAMES)
    en = DisplaySettings(names=NAMES)
    for trumps in (True, False):
        state = _dead(Seat.W, trumps=trumps).state
        assert Seat.W in state.possible.by_hand
        prompt = build_view(Scene(state, settings)).prompt
        assert prompt.startswith("Léon") and prompt != build_view(Scene(_dead(Seat.N, trumps).state, settings)).prompt
    assert build_view(Scene(_dead(Seat.W, True).state, en)).prompt == "Léon: touch your card place to name trumps"
    assert build_view(Scene(_dead(Seat.W, False).state, en)).prompt == "Léon: touch your card place to enter your card"
    assert build_view(Scene(_dead(Seat.N, False).state, en)).prompt == \
        "Léon: show your queens to announce, or lead a card"


@pytest.mark.parametrize("family", list(PANELS))
def test_between_deals_a_dead_forehand_names_trumps_by_a_touch_on_the_slates_bar(family: str) -> None:
    """Issue 20: on the slate there is no card place to touch; the next forehand whose reader is dead was stuck."""
    from tablepi.display.touch import control_at
    from tablepi.rules import Team
    from tablepi.rules.entry import DealEntry
    from tablepi.table.events import DealEntered

    table = Table(dealer=Seat.N)  # W names trumps in deal 1, S in deal 2 (anticlockwise)
    table.apply(DealEntered(1.0, DealEntry(Seat.W, Team.EW, 25)))
    state = table.state
    nxt = state.deal.next_forehand
    table.apply(ReaderStatus(2.0, nxt, ReaderState.OFFLINE))
    state = table.state
    assert nxt in state.possible.by_hand
    view = build_view(Scene(state, DisplaySettings(names=NAMES)))
    assert view.hand_seat is nxt and view.prompt == f"{NAMES[nxt]}: touch here to name trumps"
    size = PANELS[family].size
    hit = control_at(view, size, layout_for(size).bar.center)
    assert hit is not None and hit.name == f"zone:{nxt.value}"
