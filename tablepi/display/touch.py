"""Touches and clicks to action names.

A finger on the touch screen arrives as ``FINGERDOWN`` with coordinates normalised to 0..1; a mouse (or a
touch screen that the kernel presents as a mouse) as ``MOUSEBUTTONDOWN`` in pixels. SDL also synthesises a
mouse event for every finger; those carry ``touch=True`` and are ignored, or one tap would act twice.

Positions are on the panel as it is mounted; with ``display.rotation`` the picture is turned, and
:func:`tablepi.display.layout.to_logical` turns the touch back the same way before a button is looked up.

A touch acts on **what was drawn when the finger went down** (:class:`PressTracker`): the button under the finger
at the press is remembered with the View on screen then, and it acts when the finger lifts inside that button,
whatever the screen shows by then. A press on a disabled button, or a finger that slides off before lifting,
does nothing.
"""

from __future__ import annotations

from typing import Any

import pygame

from tablepi.display.layout import Rect, action_at, button_at, to_logical
from tablepi.display.view import Action, Button, View


def _finger_or_mouse(event: Any, size: tuple[int, int], kinds: tuple[int, int]) -> tuple[float, float] | None:
    finger, mouse = kinds
    if event.type == finger:
        return (event.x * size[0], event.y * size[1])
    if event.type == mouse:
        if getattr(event, "touch", False) or getattr(event, "button", 1) != 1:
            return None
        x, y = event.pos
        return (float(x), float(y))
    return None


def event_position(event: Any, size: tuple[int, int], rotation: int = 0) -> tuple[float, float] | None:
    """The pixel position (in the drawing's own coordinates) a press event points at, or None for any other
    event. ``size`` is the panel's size as mounted."""
    pos = _finger_or_mouse(event, size, (pygame.FINGERDOWN, pygame.MOUSEBUTTONDOWN))
    return None if pos is None else to_logical(pos, size, rotation)


def release_position(event: Any, size: tuple[int, int], rotation: int = 0) -> tuple[float, float] | None:
    """Like :func:`event_position`, for the finger lifting (``FINGERUP`` / ``MOUSEBUTTONUP``)."""
    pos = _finger_or_mouse(event, size, (pygame.FINGERUP, pygame.MOUSEBUTTONUP))
    return None if pos is None else to_logical(pos, size, rotation)


def _logical_size(size: tuple[int, int], rotation: int) -> tuple[int, int]:
    return (size[1], size[0]) if rotation in (90, 270) else size


def action_for_event(view: View, size: tuple[int, int], event: Any, rotation: int = 0) -> Action | None:
    """The action of the enabled button a press event lands on, or None (acting at once, on the press)."""
    pos = event_position(event, size, rotation)
    return None if pos is None else action_at(view, _logical_size(size, rotation), pos)


class PressTracker:
    """Remembers the button under a finger from the press, and acts on the release inside it."""

    def __init__(self, size: tuple[int, int], rotation: int = 0) -> None:
        self.size = size
        self.rotation = rotation
        self._pressed: tuple[Button, Rect] | None = None

    def feed(self, event: Any, drawn: View | None) -> Action | None:
        """Take one event with the View on screen now; the action to send, if this event completes a touch."""
        button = self.feed_button(event, drawn)
        return None if button is None else button.action

    def feed_button(self, event: Any, drawn: View | None) -> Button | None:
        """Like :meth:`feed`, giving the whole button touched: a per-seat target's ``seat`` says whose it is."""
        logical = _logical_size(self.size, self.rotation)
        down = event_position(event, self.size, self.rotation)
        if down is not None:
            hit = None if drawn is None else button_at(drawn, logical, down)
            self._pressed = hit if hit is not None and hit[0].enabled else None
            return None
        up = release_position(event, self.size, self.rotation)
        if up is None or self._pressed is None:
            return None
        button, rect = self._pressed
        self._pressed = None
        return button if rect.contains(*up) else None


class SheetTracker:
    """The same press-then-release discipline for the hand-entry sheet's keys and for the two touch areas that open
    panels: the header (the menu) and each seat's card place (a card by hand). Names it sends: ``key:ID``,
    ``open:menu``, ``zone:S``."""

    def __init__(self, size: tuple[int, int], rotation: int = 0) -> None:
        self.size = size
        self.rotation = rotation
        self._pressed: tuple[str, Rect] | None = None

    def target(self, view: View, pos: tuple[float, float]) -> tuple[str, Rect] | None:
        from tablepi.display.layout import layout_for
        from tablepi.display.sheet import key_rects

        logical = _logical_size(self.size, self.rotation)
        if view.sheet is not None:
            for key, rect in key_rects(view.sheet, logical):
                if key.live and key.id and rect.contains(*pos):
                    return f"key:{key.id}", rect
            return None
        layout = layout_for(logical)
        if layout.header.contains(*pos):
            return "open:menu", layout.header
        if view.seats:
            for seat, slot in layout.slots(view.bottom_seat).items():
                if slot.card.contains(*pos):
                    return f"zone:{seat.value}", slot.card
        return None

    def feed(self, event: Any, drawn: View | None) -> str | None:
        down = event_position(event, self.size, self.rotation)
        if down is not None:
            self._pressed = None if drawn is None else self.target(drawn, down)
            return None
        up = release_position(event, self.size, self.rotation)
        if up is None or self._pressed is None:
            return None
        name, rect = self._pressed
        self._pressed = None
        return name if rect.contains(*up) else None
