"""display.rotation turns drawing and touches together; a touch acts on what was drawn when the finger went down."""

from __future__ import annotations

from dataclasses import replace

import pygame
import pytest

from tablepi.display.layout import ROTATIONS, layout_for, to_logical
from tablepi.display.touch import PressTracker
from tablepi.display.view import Action, Button
from tests.display.samples import sample

PANELS = [(800, 480), (720, 1280), (480, 320)]


@pytest.mark.parametrize("panel", PANELS, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("rotation", ROTATIONS)
def test_a_touch_lands_where_the_turned_picture_drew_the_pixel(panel: tuple[int, int], rotation: int) -> None:
    """Mark one pixel of the drawing, turn it onto the panel as the screen does, find the mark there, and turn
    that panel position back: it must be the drawing's pixel."""
    drawing = (panel[1], panel[0]) if rotation in (90, 270) else panel
    for mark in ((3, 5), (drawing[0] - 7, 11), (drawing[0] // 3, drawing[1] - 2)):
        surface = pygame.Surface(drawing)
        surface.fill((0, 0, 0))
        surface.set_at(mark, (255, 0, 0))
        shown = pygame.transform.rotate(surface, -rotation)
        assert shown.get_size() == panel
        found = next((x, y) for y in range(panel[1]) for x in range(panel[0])
                     if shown.get_at((x, y))[:3] == (255, 0, 0))
        x, y = to_logical((found[0] + 0.5, found[1] + 0.5), panel, rotation)
        assert (int(x), int(y)) == mark


def _down(pos: tuple[int, int]) -> pygame.event.Event:
    return pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=pos, button=1)


def _up(pos: tuple[int, int]) -> pygame.event.Event:
    return pygame.event.Event(pygame.MOUSEBUTTONUP, pos=pos, button=1)


def test_a_touch_acts_on_the_button_drawn_when_the_finger_went_down() -> None:
    size = (800, 480)
    warned = sample("warning")  # Confirm live
    cleared = replace(warned, warning=None, buttons=tuple(
        Button(b.action, b.label, b.action is Action.UNDO, b.suit) for b in warned.buttons))
    confirm = dict((b.action, r) for b, r in layout_for(size).button_rects(warned.buttons))[Action.CONFIRM]
    tracker = PressTracker(size)
    assert tracker.feed(_down(confirm.center), warned) is None
    # the warning clears while the finger is down: Confirm is drawn disabled, Undo stays where it was
    assert tracker.feed(_up(confirm.center), cleared) is Action.CONFIRM
    # a press on a disabled button does nothing, and neither does one that slides off before lifting
    assert tracker.feed(_down(confirm.center), cleared) is None
    assert tracker.feed(_up(confirm.center), warned) is None
    assert tracker.feed(_down(confirm.center), warned) is None
    assert tracker.feed(_up((confirm.x - 30, confirm.y)), warned) is None


@pytest.mark.parametrize("rotation", ROTATIONS)
def test_touches_are_turned_with_the_picture(rotation: int) -> None:
    panel = (720, 1280)
    drawing = (panel[1], panel[0]) if rotation in (90, 270) else panel
    view = sample("trump_chosen")
    undo = dict((b.action, r) for b, r in layout_for(drawing).button_rects(view.buttons))[Action.UNDO]
    # where the panel shows the drawing's point (cx, cy)
    cx, cy = undo.center
    w, h = panel
    px, py = {0: (cx, cy), 90: (w - cy, cx), 180: (w - cx, h - cy), 270: (cy, h - cx)}[rotation]
    tracker = PressTracker(panel, rotation)
    tracker.feed(_down((px, py)), view)
    assert tracker.feed(_up((px, py)), view) is Action.UNDO
    finger = pygame.event.Event(pygame.FINGERDOWN, x=px / w, y=py / h, touch_id=1, finger_id=0)
    lift = pygame.event.Event(pygame.FINGERUP, x=px / w, y=py / h, touch_id=1, finger_id=0)
    tracker.feed(finger, view)
    assert tracker.feed(lift, view) is Action.UNDO
