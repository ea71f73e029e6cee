"""Touches and clicks to the controls they touch.

A finger on the touch screen arrives as ``FINGERDOWN`` with coordinates normalised to 0..1; a mouse (or a
touch screen that the kernel presents as a mouse) as ``MOUSEBUTTONDOWN`` in pixels. SDL also synthesises a
mouse event for every finger; those carry ``touch=True`` and are ignored, or one tap would act twice.

Positions are on the panel as it is mounted; with ``display.rotation`` the picture is turned, and
:func:`tablepi.display.layout.to_logical` turns the touch back the same way before a button is looked up.

Every screen's controls are one hit-map (:func:`hit_map`): the buttons, the seats' targets, the header and the
card places, or the keys of a sheet, each with the value a touch on it sends (:data:`~tablepi.display.keys.Touched`:
a button's name, a key, the header, a card place) as it is, never as text. A touch acts on **what was drawn when
the finger went down** (:class:`PressTracker`): the control under the finger at the press is remembered, and it
acts when the finger lifts inside it, whatever the screen shows by then. A press on a disabled button, or a finger
that slides off before lifting, does nothing; nor does a press, within half a second, on a control that came up
under the finger that touched the one before (:data:`SETTLE`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, NamedTuple

import pygame

from tablepi.display.keys import KeyTouch, MenuTouch, PlaceTouch, Touched, touch_name
from tablepi.display.layout import Rect, action_at, to_logical
from tablepi.display.view import Action, View
from tablepi.rules.seats import Seat


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


class Control(NamedTuple):
    """One thing a finger can touch on a screen: what a touch on it sends (a button's action, a key of a sheet, the
    header, a seat's card place), the seat a per-seat target acts for, where it is, and whether it acts now (a
    disabled button is drawn, and keeps its place)."""

    target: Touched
    seat: Seat | None
    rect: Rect
    live: bool = True

    @property
    def name(self) -> str:
        """The control's text (``trump_hearts``, ``key:suit:H``, ``open:menu``, ``zone:S``): the hit-map file's."""
        return touch_name(self.target)

    @property
    def ident(self) -> str:
        """The control as a person sees it: a letter key is the same key in capitals or not."""
        return f"{self.name.casefold()}@{self.seat.value if self.seat else ''}"


def hit_map(view: View, size: tuple[int, int]) -> tuple[Control, ...]:
    """Every control of ``view`` on a drawing of ``size``, the first one under a point being the one it touches:
    while a sheet is up only its keys (and its touchable lines); else the buttons, the seats' targets, the header
    (the menu) and each seat's card place. The renderer and the touches ask the same geometry (layout, sheet)."""
    from tablepi.display.layout import layout_for
    from tablepi.display.sheet import key_rects

    if view.sheet is not None:
        return tuple(Control(KeyTouch(key.id), None, rect, key.live) for key, rect in key_rects(view.sheet, size)
                     if key.id is not None)
    layout = layout_for(size)
    out = [Control(b.action, None, rect, b.enabled) for b, rect in layout.button_rects(view.buttons)]
    out += [Control(b.action, b.seat, rect, b.enabled) for b, rect in layout.target_rects(view)]
    if view.hand_seat is not None:  # the slate: the bar names trumps for the dead reader's forehand
        out.append(Control(PlaceTouch(view.hand_seat), None, layout.bar))
    out.append(Control(MenuTouch(), None, layout.header))
    if view.seats:
        out += [Control(PlaceTouch(seat), None, slot.card) for seat, slot in layout.slots(view.bottom_seat).items()]
    return tuple(out)


def control_at(view: View, size: tuple[int, int], pos: tuple[float, float]) -> Control | None:
    """The control drawn under ``pos`` (live or not), or None."""
    return next((c for c in hit_map(view, size) if c.rect.contains(*pos)), None)


#: A control that was not under the finger when it last touched stays inert there this long (seconds): a double
#: tap never reaches the key that the first tap brought up under it (a rank's Confirm, a suit's first rank).
SETTLE = 0.5


class PressTracker:
    """Remembers the control under a finger from the press, and acts on the release inside it.

    A press within :data:`SETTLE` seconds of the last touch, inside the control that touch acted on, is ignored
    when the control there now is another one: it came up under the finger, which was not aimed at it.
    """

    def __init__(self, size: tuple[int, int], rotation: int = 0, clock: Callable[[], float] = time.monotonic) -> None:
        self.size = size
        self.rotation = rotation
        self.clock = clock
        self._pressed: Control | None = None
        self._last: tuple[Control, float] | None = None  # the control the last touch acted on, and when

    def touch(self, event: Any, drawn: View | None) -> Control | None:
        """Take one event with the View on screen now; the control touched, if this event completes a touch."""
        logical = _logical_size(self.size, self.rotation)
        down = event_position(event, self.size, self.rotation)
        if down is not None:
            hit = None if drawn is None else control_at(drawn, logical, down)
            if hit is not None and self._last is not None:
                last, when = self._last
                if self.clock() - when < SETTLE and last.rect.contains(*down) and hit.ident != last.ident:
                    hit = None  # it appeared under the finger that touched the last control
            self._pressed = hit if hit is not None and hit.live else None
            return None
        up = release_position(event, self.size, self.rotation)
        if up is None or self._pressed is None:
            return None
        control = self._pressed
        self._pressed = None
        if not control.rect.contains(*up):
            return None
        self._last = (control, self.clock())
        return control

    def feed(self, event: Any, drawn: View | None) -> Action | None:
        """Like :meth:`touch`, giving the action of a button touched (None for a key, the header or a zone)."""
        control = self.touch(event, drawn)
        if control is None or not isinstance(control.target, Action):
            return None
        return control.target
