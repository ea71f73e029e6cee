"""Touches and clicks to action names.

A finger on the touch screen arrives as ``FINGERDOWN`` with coordinates normalised to 0..1; a mouse (or a
touch screen that the kernel presents as a mouse) as ``MOUSEBUTTONDOWN`` in pixels. SDL also synthesises a
mouse event for every finger; those carry ``touch=True`` and are ignored, or one tap would act twice.
"""

from __future__ import annotations

from typing import Any

import pygame

from tablepi.display.layout import action_at, button_at
from tablepi.display.view import Action, Button, View


def event_position(event: Any, size: tuple[int, int]) -> tuple[float, float] | None:
    """The pixel position a press event points at, or None for any other event."""
    if event.type == pygame.FINGERDOWN:
        return (event.x * size[0], event.y * size[1])
    if event.type == pygame.MOUSEBUTTONDOWN:
        if getattr(event, "touch", False) or getattr(event, "button", 1) != 1:
            return None
        x, y = event.pos
        return (float(x), float(y))
    return None


def action_for_event(view: View, size: tuple[int, int], event: Any) -> Action | None:
    """The action of the button a press event lands on, or None."""
    pos = event_position(event, size)
    return None if pos is None else action_at(view, size, pos)


def button_for_event(view: View, size: tuple[int, int], event: Any) -> Button | None:
    """The button or per-seat target a press event lands on (with the seat it acts for), or None."""
    pos = event_position(event, size)
    return None if pos is None else button_at(view, size, pos)
