"""Geometry and hit-testing: pure, no drawing."""

from __future__ import annotations

import pygame
import pytest

from tablepi.display import texts as tx
from tablepi.display.i18n import translator
from tablepi.display.layout import BOTTOM, LEFT, RIGHT, TOP, Rect, action_at, layout_for, screen_sides
from tablepi.display.touch import action_for_event, event_position
from tablepi.display.view import Action, Button, ScreenKind, View
from tablepi.errors import ConfigError
from tablepi.rules.cards import Suit
from tablepi.rules.seats import Seat
from tests.display.samples import sample

SIZES = [(800, 480), (480, 320), (1280, 720), (720, 1280)]


@pytest.mark.parametrize(
    ("bottom", "left", "top", "right"),
    [(Seat.S, Seat.W, Seat.N, Seat.E), (Seat.N, Seat.E, Seat.S, Seat.W),
     (Seat.E, Seat.S, Seat.W, Seat.N), (Seat.W, Seat.N, Seat.E, Seat.S)],
)
def test_seats_sit_round_the_screen_as_round_the_table(bottom: Seat, left: Seat, top: Seat, right: Seat) -> None:
    sides = screen_sides(bottom)
    assert (sides[bottom], sides[left], sides[top], sides[right]) == (BOTTOM, LEFT, TOP, RIGHT)
    assert sides[bottom] is not sides[bottom.partner] and sides[top] is TOP


@pytest.mark.parametrize("bottom", list(Seat))
def test_partners_face_each_other_on_screen(bottom: Seat) -> None:
    slots = layout_for((800, 480)).slots(bottom)
    for seat in Seat:
        a, b = slots[seat].card.center, slots[seat.partner].card.center
        assert a[0] == b[0] or a[1] == b[1]  # same column (top/bottom) or same row (left/right)


def test_the_layout_is_chosen_from_the_surface_size() -> None:
    assert not layout_for((800, 480)).compact
    assert layout_for((480, 320)).compact
    assert not layout_for((1024, 600)).compact
    assert layout_for((320, 240)).compact
    with pytest.raises(ConfigError, match="100x80"):
        layout_for((100, 80))


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("bottom", list(Seat))
def test_seat_rects_stay_on_the_table_and_apart(size: tuple[int, int], bottom: Seat) -> None:
    layout = layout_for(size)
    screen = Rect(0, 0, *size)
    cards = [slot.card for slot in layout.slots(bottom).values()]
    for card in cards:
        assert screen.contains(card.x, card.y) and card.right <= layout.table.right
        assert layout.table.y <= card.y and card.bottom <= layout.table.bottom
    for i, a in enumerate(cards):
        for b in cards[i + 1:]:
            assert a.right <= b.x or b.right <= a.x or a.bottom <= b.y or b.bottom <= a.y, (a, b)


@pytest.mark.parametrize("size", SIZES)
def test_buttons_fit_the_panel_without_overlap_and_are_big_enough(size: tuple[int, int]) -> None:
    layout = layout_for(size)
    view = sample("match_start")  # every deal button; the suits enabled
    placed = layout.button_rects(view.buttons)
    rects = [r for _, r in placed]
    for r in rects:
        assert layout.panel.x <= r.x and r.right <= layout.panel.right and r.bottom <= layout.panel.bottom
        # a fingertip is about 8-10 mm: at least 7 mm tall and 8 mm wide on the layout's own panel (5.5 mm tall on
        # the 3.5" panel, which has five rows in 58 mm of height)
        mm = layout.panel_spec.mm_per_px
        assert r.h * mm >= (5.5 if layout.compact else 7) and r.w * mm >= 8, (r, r.h * mm)
    for i, a in enumerate(rects):
        for b in rects[i + 1:]:
            assert a.right <= b.x or b.right <= a.x or a.bottom <= b.y or b.bottom <= a.y
    slot = dict((b.action, r) for b, r in placed)
    # suit buttons pair up: spades next to hearts, diamonds next to clubs (or all four in a row)
    assert slot[Action.TRUMP_SPADES].y == slot[Action.TRUMP_HEARTS].y
    assert slot[Action.TRUMP_DIAMONDS].y == slot[Action.TRUMP_CLUBS].y


@pytest.mark.parametrize("size", SIZES)
def test_every_action_keeps_its_slot_whatever_else_is_live(size: tuple[int, int]) -> None:
    """Confirm never gives its place to Undo (a touch meant for Confirm once undid a card): each action's
    rectangle is the same in every deal-screen sample, enabled or not."""
    layout = layout_for(size)
    seen: dict[Action, set[Rect]] = {}
    for name in ("match_start", "trump_chosen", "mid_trick", "warning", "deal_result"):
        view = sample(name)
        placed = layout.button_rects(view.buttons)
        assert {b.action for b, _ in placed} >= {Action.CLAIM, Action.CONFIRM, Action.UNDO}
        for button, rect in placed:
            seen.setdefault(button.action, set()).add(rect)
    assert all(len(rects) == 1 for rects in seen.values()), seen
    confirm, undo = (next(iter(seen[a])) for a in (Action.CONFIRM, Action.UNDO))
    assert confirm != undo


@pytest.mark.parametrize("size", SIZES)
def test_touching_each_button_gives_its_action(size: tuple[int, int]) -> None:
    view = sample("trump_chosen")
    for button, rect in layout_for(size).button_rects(view.buttons):
        if not button.enabled:
            assert action_at(view, size, rect.center) is None
            continue
        assert action_at(view, size, rect.center) is button.action
        assert action_at(view, size, (rect.x, rect.y)) is button.action
        assert action_at(view, size, (rect.right, rect.bottom)) is not button.action  # edges are exclusive


def test_touching_outside_any_button_does_nothing() -> None:
    view = sample("trump_chosen")
    assert action_at(view, (800, 480), (10, 10)) is None
    assert action_at(view, (800, 480), (300, 240)) is None
    assert action_at(View(ScreenKind.IDLE), (800, 480), (700, 100)) is None


def test_disabled_buttons_do_not_answer() -> None:
    view = View(ScreenKind.DEAL, buttons=(Button(Action.CLAIM, "Claim", enabled=False),))
    rect = layout_for((800, 480)).button_rects(view.buttons)[0][1]
    assert action_at(view, (800, 480), rect.center) is None


def test_finger_coordinates_are_normalised_and_mouse_in_pixels() -> None:
    view = View(ScreenKind.DEAL, buttons=tuple(tx.button(translator("en"), Action.trump(suit)) for suit in Suit))
    size = (800, 480)
    rect = layout_for(size).button_rects(view.buttons)[3][1]  # clubs
    cx, cy = rect.center
    finger = pygame.event.Event(pygame.FINGERDOWN, x=cx / size[0], y=cy / size[1], touch_id=0, finger_id=0)
    mouse = pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=(cx, cy), button=1, touch=False)
    assert event_position(finger, size) == pytest.approx((cx, cy))
    assert action_for_event(view, size, finger) is Action.TRUMP_CLUBS
    assert action_for_event(view, size, mouse) is Action.TRUMP_CLUBS


def test_mouse_events_synthesised_from_touch_and_other_buttons_are_ignored() -> None:
    view = View(ScreenKind.DEAL, buttons=tuple(tx.button(translator("en"), Action.trump(suit)) for suit in Suit))
    cx, cy = layout_for((800, 480)).button_rects(view.buttons)[0][1].center
    synthetic = pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=(cx, cy), button=1, touch=True)
    right_click = pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=(cx, cy), button=3, touch=False)
    key = pygame.event.Event(pygame.KEYDOWN, key=pygame.K_a)
    for event in (synthetic, right_click, key):
        assert action_for_event(view, (800, 480), event) is None
