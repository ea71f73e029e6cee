"""Where things go on the screen: pure geometry, shared by the renderer and the hit-testing.

Two layouts exist, one for the official 7" display (800x480) and one for small 3.5" panels (480x320); the
one whose proportions fit is chosen from the surface size and scaled to it, so 1024x600 or 320x240 still work.
Nothing here imports pygame: the renderer and :func:`action_at` both ask this module where a button is, so a
touch always lands on the button that was drawn there.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from tablepi.display.view import Action, Button, View
from tablepi.errors import ConfigError
from tablepi.rules.seats import Seat


class Rect(NamedTuple):
    """An axis-aligned rectangle in pixels (x, y, width, height), like pygame.Rect but immutable and pure."""

    x: int
    y: int
    w: int
    h: int

    @property
    def right(self) -> int:
        return self.x + self.w

    @property
    def bottom(self) -> int:
        return self.y + self.h

    @property
    def center(self) -> tuple[int, int]:
        return (self.x + self.w // 2, self.y + self.h // 2)

    def contains(self, px: float, py: float) -> bool:
        return self.x <= px < self.right and self.y <= py < self.bottom

    def inset(self, d: int) -> Rect:
        return Rect(self.x + d, self.y + d, max(0, self.w - 2 * d), max(0, self.h - 2 * d))


class Side(NamedTuple):
    """Where a seat sits on the screen: bottom, left, top or right."""

    name: str


BOTTOM, LEFT, TOP, RIGHT = Side("bottom"), Side("left"), Side("top"), Side("right")

# Clockwise round the table as seen from above with north up: N, E, S, W.
_CLOCKWISE = (Seat.N, Seat.E, Seat.S, Seat.W)


def screen_sides(bottom_seat: Seat) -> dict[Seat, Side]:
    """Which edge of the screen each seat is drawn at, given the seat on the screen's side of the table.

    Looking across the table from ``bottom_seat``, the partner is opposite (top), the seat clockwise after it
    is on the left and the one before it on the right: from S, W is left and E right, as on a map.

    >>> sides = screen_sides(Seat.S)
    >>> [sides[s].name for s in (Seat.S, Seat.W, Seat.N, Seat.E)]
    ['bottom', 'left', 'top', 'right']
    """
    i = _CLOCKWISE.index(bottom_seat)
    order = [_CLOCKWISE[(i + k) % 4] for k in range(4)]
    return dict(zip(order, (BOTTOM, LEFT, TOP, RIGHT), strict=True))


@dataclass(frozen=True, slots=True)
class Fonts:
    """Pixel sizes of the text styles (bold unless said)."""

    header: int
    reminder: int
    trick: int
    name: int
    chip: int
    card_rank: int
    card_suit: int
    bar: int  # prompt and warning bar
    center: int
    small: int  # learner extras, footer (regular weight)
    button: int
    button_suit: int
    title: int
    slate_label: int
    slate_count: int
    result: int


@dataclass(frozen=True, slots=True)
class SeatSlot:
    """Where one seat's name tag and card are drawn."""

    side: Side
    tag: Rect  # the name tag (its width is the maximum; the drawn tag hugs the text)
    card: Rect
    chip: Rect  # where an announcement chip goes


@dataclass(frozen=True, slots=True)
class Layout:
    """All rectangles and font sizes of one screen size."""

    size: tuple[int, int]
    compact: bool  # the small-screen layout (less small print)
    header: Rect
    table: Rect
    panel: Rect
    bar: Rect
    center: Rect  # between the seats: tricks per team, learner extras
    result: Rect  # the deal's points at the end (cards are gone by then)
    card: tuple[int, int]
    radius: int
    border: int
    button_h: int
    gap: int
    fonts: Fonts
    #: The smallest type a warning may shrink to (see docs/display.md, "Warnings"): the bar grows a line
    #: rather than go below it.
    warning_min: int = 18

    def slots(self, bottom_seat: Seat) -> dict[Seat, SeatSlot]:
        return {seat: self._slot(side) for seat, side in screen_sides(bottom_seat).items()}

    def _slot(self, side: Side) -> SeatSlot:
        t, (cw, ch), g = self.table, self.card, self.gap
        tag_h = self.fonts.name + 2 * max(3, g // 2)
        ah = self.fonts.name * 4 // 5 + g  # announcement chip height
        tag_w = (t.w - 2 * g) // 2
        cx = t.x + t.w // 2
        if side is TOP:
            tag = Rect(cx - tag_w // 2, t.y + g // 2, tag_w, tag_h)
            card = Rect(cx - cw // 2, tag.bottom + g // 2, cw, ch)
            chip = Rect(card.right + g, card.y, tag_w // 2, ah)
        elif side is BOTTOM:
            tag = Rect(cx - tag_w // 2, t.bottom - g // 2 - tag_h, tag_w, tag_h)
            card = Rect(cx - cw // 2, tag.y - g // 2 - ch, cw, ch)
            chip = Rect(card.right + g, card.bottom - ah, tag_w // 2, ah)
        else:
            # A side seat's tag may reach to the top seat's card (it sits beside it, lower down): room for a long
            # name and its Dealer/Forehand mark ("Guillaume [Forehand]" lost its mark at 2.5 card widths).
            side_tag_w = max(cw * 5 // 2, (cx - cw // 2 - g) - (t.x + g // 2))
            cy = t.y + t.h // 2 + g
            card_y = cy - ch // 2
            if side is LEFT:
                card = Rect(t.x + 2 * g, card_y, cw, ch)
                tag = Rect(t.x + g // 2, card_y - g // 2 - tag_h, side_tag_w, tag_h)
                chip = Rect(card.x - g, card.bottom + g // 2, side_tag_w, ah)
            else:
                card = Rect(t.right - 2 * g - cw, card_y, cw, ch)
                tag = Rect(t.right - g // 2 - side_tag_w, card_y - g // 2 - tag_h, side_tag_w, tag_h)
                chip = Rect(card.right + g - side_tag_w, card.bottom + g // 2, side_tag_w, ah)
        return SeatSlot(side, tag, card, chip)

    def button_rects(self, buttons: tuple[Button, ...]) -> tuple[tuple[Button, Rect], ...]:
        """Buttons top to bottom in the panel; suit buttons two to a row. Buttons that do not fit are dropped
        (the view model never asks for that many)."""
        p, g, h = self.panel, self.gap, self.button_h
        x0, w = p.x + g, p.w - 2 * g
        half = (w - g) // 2
        out: list[tuple[Button, Rect]] = []
        y, col = p.y + g, 0
        for button in buttons:
            if button.is_half_width:
                rect = Rect(x0 + col * (half + g), y, half, h)
                col += 1
                if col == 2:
                    col, y = 0, y + h + g
            else:
                if col:
                    col, y = 0, y + h + g
                rect = Rect(x0, y, w, h)
                y += h + g
            if rect.bottom > p.bottom:
                break
            out.append((button, rect))
        return tuple(out)


def _scaled(base: tuple[int, int], size: tuple[int, int], compact: bool) -> Layout:
    bw, bh = base
    w, h = size
    sx, sy = w / bw, h / bh
    s = min(sx, sy)

    def X(v: float) -> int:
        return round(v * sx)

    def Y(v: float) -> int:
        return round(v * sy)

    def S(v: float) -> int:
        return max(1, round(v * s))

    if compact:  # 480x320
        header_h, bar_h, panel_w = 38, 48, 120
        card, gap, button_h, radius = (50, 70), 6, 40, 6
        fonts = Fonts(header=22, reminder=17, trick=20, name=17, chip=12, card_rank=26, card_suit=28,
                      bar=18, center=18, small=12, button=16, button_suit=26, title=40, slate_label=20,
                      slate_count=15, result=18)
    else:  # 800x480
        header_h, bar_h, panel_w = 56, 66, 184
        card, gap, button_h, radius = (76, 106), 10, 52, 10
        fonts = Fonts(header=30, reminder=26, trick=30, name=25, chip=17, card_rank=40, card_suit=44,
                      bar=26, center=26, small=17, button=23, button_suit=36, title=64, slate_label=30,
                      slate_count=21, result=28)
    fonts = Fonts(*(S(v) for v in (
        fonts.header, fonts.reminder, fonts.trick, fonts.name, fonts.chip, fonts.card_rank, fonts.card_suit,
        fonts.bar, fonts.center, fonts.small, fonts.button, fonts.button_suit, fonts.title, fonts.slate_label,
        fonts.slate_count, fonts.result)))
    # The warning's floor: 18 px on the 3.5" panel (2.7 mm, as large as the prompt there), 22 px on the 7" one.
    warning_min = S(18 if compact else 22)
    header = Rect(0, 0, w, Y(header_h))
    bar = Rect(0, h - Y(bar_h), w, Y(bar_h))
    panel = Rect(w - X(panel_w), header.bottom, X(panel_w), bar.y - header.bottom)
    table = Rect(0, header.bottom, panel.x, bar.y - header.bottom)
    cw, ch = S(card[0]), S(card[1])
    g = S(gap)
    layout = Layout(
        size=(w, h), compact=compact, header=header, table=table, panel=panel, bar=bar,
        center=table, result=table, card=(cw, ch), radius=S(radius), border=max(2, S(4)),
        button_h=Y(button_h), gap=g, fonts=fonts,
    )
    slots = layout.slots(Seat.S)
    top, bottom = slots[Seat.N], slots[Seat.S]
    left, right = slots[Seat.W], slots[Seat.E]
    center = Rect(left.card.right + g, top.card.bottom + g // 2, right.card.x - left.card.right - 2 * g,
                  bottom.card.y - top.card.bottom - g)
    result = Rect(left.card.right + g, top.tag.bottom + g, center.w, bottom.tag.y - top.tag.bottom - 2 * g)
    return Layout(
        size=(w, h), compact=compact, header=header, table=table, panel=panel, bar=bar, center=center,
        result=result, card=(cw, ch), radius=S(radius), border=max(2, S(4)), button_h=Y(button_h), gap=g,
        fonts=fonts, warning_min=warning_min,
    )


_CACHE: dict[tuple[int, int], Layout] = {}


def layout_for(size: tuple[int, int]) -> Layout:
    """The layout for a surface of ``size`` pixels: the 800x480 design unless the screen is small."""
    w, h = size
    if w < 240 or h < 160:
        raise ConfigError(f"screen size {w}x{h} is too small for the table display (need at least 240x160)")
    cached = _CACHE.get((w, h))
    if cached is None:
        compact = w < 640 or h < 400
        cached = _scaled((480, 320) if compact else (800, 480), (w, h), compact)
        _CACHE[(w, h)] = cached
    return cached


def button_at(view: View, size: tuple[int, int], pos: tuple[float, float]) -> tuple[Button, Rect] | None:
    """The button drawn under pixel ``pos`` (enabled or not) and its rectangle, or None."""
    layout = layout_for(size)
    for button, rect in layout.button_rects(view.buttons):
        if rect.contains(*pos):
            return button, rect
    return None


def action_at(view: View, size: tuple[int, int], pos: tuple[float, float]) -> Action | None:
    """The action of the enabled button drawn under pixel ``pos``, or None (touching elsewhere does nothing)."""
    hit = button_at(view, size, pos)
    return hit[0].action if hit is not None and hit[0].enabled else None


ROTATIONS = (0, 90, 180, 270)


def to_logical(pos: tuple[float, float], panel: tuple[int, int], rotation: int) -> tuple[float, float]:
    """A point on the panel as mounted (``panel`` = its width, height) in the coordinates of the drawing, which
    is turned ``rotation`` degrees clockwise onto the panel: the inverse of how the picture is turned.

    >>> to_logical((700, 10), (720, 1280), 90)  # near the panel's top right: the drawing's top left
    (10, 20)
    >>> to_logical((10, 10), (800, 480), 180)
    (790, 470)
    """
    x, y = pos
    w, h = panel
    if rotation == 90:
        return (y, w - x)
    if rotation == 180:
        return (w - x, h - y)
    if rotation == 270:
        return (h - y, x)
    return (x, y)
