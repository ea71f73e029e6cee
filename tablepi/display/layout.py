"""Where things go on the screen: pure geometry, shared by the renderer and the hit-testing.

Five layouts are designed, each for a panel players really put on a table (:data:`PANELS`):

- ``portrait`` 720x1280, the Raspberry Pi Touch Display 2 upright;
- ``hd`` 1280x720, the Touch Display 2 turned (``display.rotation = 90``) or an HDMI screen;
- ``wide`` 800x480, the 7" DSI display;
- ``small`` 480x320, 3.5" SPI panels;
- ``upright`` 320x480, a 3.5" panel turned upright (``display.rotation = 90`` or ``270``): the buttons along the
  bottom edge as upright, the seats and type of ``small``, every control a finger's size on that panel.

The one for the surface is chosen by its size (:func:`family_for`) and scaled to it, so 1024x600 or 320x240
still work. The text players must read from the far chair (the prompt, the warning headline, the trick's winner,
each team's open lines) is set at ``fonts.bar``, whose capital height is 12 arcminutes at 1.5 m on the panel the
layout is designed for (5.2 mm; 0.8 m on the 3.5" panel, which cannot do more): measured on the drawn frames by
tests/display/test_cap_height.py.

Buttons have **fixed slots** (:attr:`Layout.buttons`): every action has its own place on each layout, and a
button that does nothing now is drawn disabled there, never removed or replaced by another, so a finger never
lands on a button that moved. (The 480x320 panel has no room for both: its trump and announcement buttons share
two rows, trumps while they are named, announcements afterwards.)

Nothing here imports pygame: the renderer and :func:`action_at` both ask this module where a button is, so a
touch always lands on the button that was drawn there.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
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
class CardFonts:
    """A drawn card's type: its rank and its suit's symbol."""

    rank: int
    suit: int


@dataclass(frozen=True, slots=True)
class SlateFonts:
    """The slate's type: a team's name and its count of open lines."""

    label: int
    count: int


@dataclass(frozen=True, slots=True)
class Fonts:
    """Pixel sizes of the text styles (bold unless said)."""

    header: int
    reminder: int
    trick: int
    name: int
    chip: int
    card: CardFonts
    bar: int  # prompt and warning bar
    center: int
    small: int  # learner extras (regular weight)
    button: int
    button_suit: int
    title: int
    slate: SlateFonts
    result: int
    #: The smallest type the detail of a warning may shrink to (see docs/display.md, "Warnings"): the headline goes
    #: over the table (above the bottom seat's name tag) rather than the detail below it. The headline is always at
    #: ``bar``.
    warning_min: int

    @property
    def min_text(self) -> int:
        """The smallest a name or a label is ever drawn (docs/display.md, "Reading distance"): the smallest type the
        layout sets for words, the Dealer/Forehand marks' (``chip``): 12 px on the 3.5" panel, 16 on the 7" DSI
        display, 26 on the Touch Display 2. A name or label that does not fit its box at that size wraps (after a
        hyphen or a plus too) and is then shortened with "…" (:meth:`tablepi.display.render.Renderer.fit_text`)."""
        return self.chip

    def scaled(self, size: Callable[[float], int]) -> Fonts:
        """Every size turned by ``size`` (a layout's design size to its surface's)."""
        return Fonts(
            size(self.header), size(self.reminder), size(self.trick), size(self.name), size(self.chip),
            CardFonts(size(self.card.rank), size(self.card.suit)), size(self.bar), size(self.center),
            size(self.small), size(self.button), size(self.button_suit), size(self.title),
            SlateFonts(size(self.slate.label), size(self.slate.count)), size(self.result), size(self.warning_min),
        )


@dataclass(frozen=True, slots=True)
class SeatSlot:
    """Where one seat's name tag and card are drawn."""

    side: Side
    tag: Rect  # the name tag (its width is the maximum; the drawn tag hugs the text)
    card: Rect
    chip: Rect  # where an announcement chip goes


@dataclass(frozen=True, slots=True)
class Panel:
    """The physical panel a layout is designed for: its pixels and its size (how many millimetres a pixel is)."""

    name: str
    size: tuple[int, int]
    mm: tuple[float, float]  # active area, width x height

    @property
    def mm_per_px(self) -> float:
        return self.mm[0] / self.size[0]


#: The smallest side a control a finger must hit may have, in millimetres on the panel its layout is designed for
#: (docs/display.md, "Touch targets"): a phone's letter key, which names are typed on every day. The 3.5" panel's
#: keyboard row of twelve letters across 73 mm leaves no more.
MIN_TARGET_MM = 5.5

#: The panels the five layouts are designed for (active areas from the makers' data sheets).
PANELS: dict[str, Panel] = {
    "portrait": Panel('Touch Display 2 (7", portrait)', (720, 1280), (87.0, 154.5)),
    "hd": Panel('Touch Display 2 turned, or a 7" HDMI panel', (1280, 720), (154.5, 87.0)),
    "wide": Panel('7" DSI display', (800, 480), (154.1, 85.9)),
    "small": Panel('3.5" SPI panel', (480, 320), (73.4, 49.0)),
    "upright": Panel('3.5" SPI panel turned upright', (320, 480), (49.0, 73.4)),
}


@dataclass(frozen=True, slots=True)
class ButtonGrid:
    """Every action's fixed place, by screen: the deal screen's, and the slate / match-won screen's; the height of
    a row of buttons (a sheet's keys are no taller); and the narrowest a sheet's key may be."""

    deal: Mapping[Action, Rect] = field(default_factory=dict)
    end: Mapping[Action, Rect] = field(default_factory=dict)
    row_h: int = 0
    #: The narrowest a sheet's key may be, in pixels (``MIN_TARGET_MM`` on the layout's own panel): a key whose
    #: share of its row is narrower takes width from the row's wider keys, a row without room for that is laid as
    #: two or more rows (tablepi.display.sheet). 0 on a surface of another size, whose millimetres are not known.
    min_key: int = 0


@dataclass(frozen=True, slots=True)
class Layout:
    """All rectangles and font sizes of one screen size."""

    size: tuple[int, int]
    header: Rect
    table: Rect
    panel: Rect
    bar: Rect
    center: Rect  # between the seats: tricks per team, learner extras
    result: Rect  # the deal's points at the end (cards are gone by then)
    card: tuple[int, int]
    radius: int
    border: int
    gap: int
    fonts: Fonts
    family: str = "wide"
    buttons: ButtonGrid = field(default_factory=ButtonGrid)

    @property
    def warning_min(self) -> int:
        """The smallest type the detail of a warning may shrink to (``fonts.warning_min``)."""
        return self.fonts.warning_min

    @property
    def compact(self) -> bool:
        """A 3.5" panel's layout, either way up (less small print; a sheet's keys reach its bottom edge)."""
        return self.family in ("small", "upright")

    @property
    def shared_choice(self) -> bool:
        """The 480x320 layout: trumps and announcements share their rows (see the module's docstring)."""
        return self.family == "small"
    #: Upright, the trump order reminder has a line of its own under the header, over the deal screen's table (the
    #: header's one line, shared with the trick count and the Menu button, left it about 16 px); None: it stays in
    #: the header.
    reminder: Rect | None = None

    @property
    def seat_area(self) -> Rect:
        """Where the deal screen's seats are: the table, under the reminder's line when it has one."""
        t, band = self.table, self.reminder
        return t if band is None else Rect(t.x, band.bottom, t.w, t.bottom - band.bottom)

    @property
    def portrait(self) -> bool:
        return self.size[1] > self.size[0]

    @property
    def panel_spec(self) -> Panel:
        return PANELS[self.family]

    def slots(self, bottom_seat: Seat) -> dict[Seat, SeatSlot]:
        return {seat: self._slot(side) for seat, side in screen_sides(bottom_seat).items()}

    def _slot(self, side: Side) -> SeatSlot:
        t, (cw, ch), g = self.seat_area, self.card, self.gap
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
            chip_w = side_tag_w
            cy = t.y + t.h // 2 + g
            card_y = cy - ch // 2
            if self.family == "portrait":
                # Upright there is room below the top seat's card: the side tags go under it and may reach to the
                # middle ("Fernand [Forehand]" was cut beside the top card).
                top_card_bottom = t.y + g // 2 + tag_h + g // 2 + ch
                card_y = max(card_y, top_card_bottom + g // 2 + tag_h + g // 2 + g // 2)
                side_tag_w = cx - g - (t.x + g // 2)
            if side is LEFT:
                card = Rect(t.x + 2 * g, card_y, cw, ch)
                tag = Rect(t.x + g // 2, card_y - g // 2 - tag_h, side_tag_w, tag_h)
                chip = Rect(card.x - g, card.bottom + g // 2, chip_w, ah)
            else:
                card = Rect(t.right - 2 * g - cw, card_y, cw, ch)
                tag = Rect(t.right - g // 2 - side_tag_w, card_y - g // 2 - tag_h, side_tag_w, tag_h)
                chip = Rect(card.right + g - chip_w, card.bottom + g // 2, chip_w, ah)
        return SeatSlot(side, tag, card, chip)

    def button_rects(self, buttons: tuple[Button, ...]) -> tuple[tuple[Button, Rect], ...]:
        """Each button at its action's fixed slot. On the deal screen the slots of ``buttons.deal``, on the
        slate and match-won screens those of ``buttons.end`` (a view with New match / Revanche or without any
        trump, announcement or claim button is one of those). A button without a slot of its own (a newer
        screen's) goes to the first slot no button of this view uses; one that finds none is not drawn."""
        actions = {b.action for b in buttons}
        grid = self.buttons
        slots = grid.end if actions and actions <= set(grid.end) else grid.deal
        if self.shared_choice and slots is grid.deal:
            trumps_live = any(b.enabled and b.action in _TRUMPS for b in buttons) or not any(
                b.action in _ANNOUNCE for b in buttons)
            hidden = _ANNOUNCE if trumps_live else _TRUMPS
            buttons = tuple(b for b in buttons if b.action not in hidden)
        used = {b.action for b in buttons if b.action in slots}
        free = [rect for action, rect in slots.items() if action not in used]
        out: list[tuple[Button, Rect]] = []
        for button in buttons:
            rect = slots.get(button.action)
            if rect is None:
                if not free:
                    continue
                rect = free.pop(0)
            out.append((button, rect))
        return tuple(out)

    def target_rects(self, view: View) -> tuple[tuple[Button, Rect], ...]:
        """Each seat's touch target (the announcement the table asks "who?" for) and where it is: the seat's own
        name tag (its whole area) and, while nothing lies there, its card place. A touch on a player's name or on
        his card place acts for him and nobody else; the target carries his name because it *is* his name
        (tests/display/test_hitmap.py checks every layout, orientation and language)."""
        slots = self.slots(view.bottom_seat)
        out: list[tuple[Button, Rect]] = []
        for seat_view in view.seats:
            for button in seat_view.targets[:1]:  # the table asks for one announcement at a time
                slot = slots[seat_view.seat]
                out.append((button, self.name_rect(slot)))
                if seat_view.card is None:
                    out.append((button, slot.card))
        return tuple(out)

    def name_rect(self, slot: SeatSlot) -> Rect:
        """The seat's name drawn as a touch target: half its tag area, at the side its name is aligned to (a side
        seat's tag area reaches towards the top seat's card; its far half is left out)."""
        tag = slot.tag
        w = max(tag.w // 2, min(tag.w, tag.h * 4))
        if slot.side is LEFT:
            return Rect(tag.x, tag.y, w, tag.h)
        if slot.side is RIGHT:
            return Rect(tag.right - w, tag.y, w, tag.h)
        return Rect(tag.x + (tag.w - w) // 2, tag.y, w, tag.h)


_TRUMPS = (Action.TRUMP_SPADES, Action.TRUMP_HEARTS, Action.TRUMP_DIAMONDS, Action.TRUMP_CLUBS)
_ANNOUNCE = (Action.ANNOUNCE_MATT, Action.ANNOUNCE_KONTER, Action.ANNOUNCE_KONTER_A_MATT)


@dataclass(frozen=True, slots=True)
class _Spec:
    """One layout's design numbers at its own size (pixels of its panel)."""

    size: tuple[int, int]
    header_h: int
    bar_h: int
    side: int  # panel width (landscape) or height (portrait)
    card: tuple[int, int]
    gap: int
    radius: int
    fonts: Fonts


# The readable size (``bar``) is the 12-arcminute capital of each panel: 5.2 mm at 1.5 m is 27 px of cap height on
# the 7" DSI display (39 px type), 43 px on the Touch Display 2 (62 px type); the 3.5" panel gets 0.8 m (18 px cap,
# 26 px type): DejaVu Sans Bold draws capitals of about 0.71 of the type size. Everything else keeps the sizes
# it had on the 7" display, in millimetres.
_SMALL_FONTS = Fonts(
    header=22, reminder=16, trick=20, name=16, chip=12, card=CardFonts(22, 24), bar=27, center=20, small=12,
    button=15, button_suit=24, title=40, slate=SlateFonts(20, 27), result=17, warning_min=16)
# The 3.5" panel upright keeps its type and its cards' width (54 px high, not 58: 4 px of the centre's room each);
# its header and its three rows of buttons are 36 px (5.5 mm), its bar holds four lines of the prompt's type (in
# fr and lb a prompt takes four at 320 px) and the table the rest, 188 px: the side seats sit beside the top and
# bottom cards (under the top card, as on the 7" upright, they would leave the centre no room at this width).
_SPECS: dict[str, _Spec] = {
    "wide": _Spec((800, 480), 52, 96, 200, (64, 90), 8, 9, Fonts(
        header=30, reminder=24, trick=30, name=24, chip=16, card=CardFonts(34, 38), bar=39, center=30, small=17,
        button=21, button_suit=32, title=64, slate=SlateFonts(30, 39), result=26, warning_min=22)),
    # the bar: two lines of the prompt, or a warning's one-line headline and two lines of its rest (74 px)
    "small": _Spec((480, 320), 36, 74, 140, (42, 58), 5, 6, _SMALL_FONTS),
    "upright": _Spec((320, 480), 36, 132, 124, (42, 54), 4, 6, _SMALL_FONTS),
    "hd": _Spec((1280, 720), 80, 150, 300, (100, 140), 12, 14, Fonts(
        header=46, reminder=38, trick=46, name=38, chip=26, card=CardFonts(54, 60), bar=62, center=46, small=27,
        button=34, button_suit=52, title=100, slate=SlateFonts(48, 62), result=40, warning_min=35)),
    "portrait": _Spec((720, 1280), 84, 300, 300, (104, 146), 12, 14, Fonts(
        header=46, reminder=36, trick=46, name=38, chip=26, card=CardFonts(56, 62), bar=62, center=46, small=27,
        button=34, button_suit=56, title=96, slate=SlateFonts(48, 62), result=40, warning_min=35)),
}


def family_for(size: tuple[int, int]) -> str:
    """Which designed layout a surface of ``size`` gets.

    >>> [family_for(s) for s in ((720, 1280), (480, 800), (320, 480), (1280, 720), (800, 480), (480, 320))]
    ['portrait', 'portrait', 'upright', 'hd', 'wide', 'small']
    """
    w, h = size
    if h > w:
        return "portrait" if w >= 400 else "upright"
    if w >= 1100 and h >= 660:
        return "hd"
    if w >= 640 and h >= 400:
        return "wide"
    return "small"


def _build(family: str, size: tuple[int, int]) -> Layout:
    spec = _SPECS[family]
    bw, bh = spec.size
    w, h = size
    sx, sy = w / bw, h / bh
    s = min(sx, sy)

    def S(v: float) -> int:
        return max(1, round(v * s))

    fonts = spec.fonts.scaled(S)
    g = S(spec.gap)
    header = Rect(0, 0, w, round(spec.header_h * sy))
    bar_h = round(spec.bar_h * sy)
    portrait = family == "portrait"
    if h > w:  # header, table, prompt bar, buttons along the bottom edge
        panel_h = round(spec.side * sy)
        panel = Rect(0, h - panel_h, w, panel_h)
        bar = Rect(0, panel.y - bar_h, w, bar_h)
        table = Rect(0, header.bottom, w, bar.y - header.bottom)
    else:  # header, table with the buttons to its right, prompt bar along the bottom
        bar = Rect(0, h - bar_h, w, bar_h)
        panel_w = round(spec.side * sx)
        panel = Rect(w - panel_w, header.bottom, panel_w, bar.y - header.bottom)
        table = Rect(0, header.bottom, panel.x, bar.y - header.bottom)
    cw, ch = S(spec.card[0]), S(spec.card[1])
    # The reminder's line: its type and a gap over and under it.
    reminder = Rect(0, header.bottom, w, fonts.reminder * 5 // 4 + g) if portrait else None
    deal, end, row_h = _button_grid(family, panel, g)
    own = PANELS[family]
    base = Layout(
        size=(w, h), header=header, table=table, panel=panel, bar=bar, center=table, result=table, card=(cw, ch),
        radius=S(spec.radius), border=max(2, S(4 * spec.gap / 10)), gap=g, fonts=fonts,
        family=family,
        buttons=ButtonGrid(deal, end, row_h, math.ceil(MIN_TARGET_MM / own.mm_per_px) if (w, h) == own.size else 0),
        reminder=reminder,
    )
    slots = base.slots(Seat.S)
    top, bottom = slots[Seat.N], slots[Seat.S]
    left, right = slots[Seat.W], slots[Seat.E]
    # Upright the side seats' tags sit under the top card, beside the centre: the centre starts under them.
    above = max(top.card.bottom, left.tag.bottom) if portrait else top.card.bottom
    center = Rect(left.card.right + g, above + g // 2, right.card.x - left.card.right - 2 * g,
                  bottom.card.y - above - g)
    result = Rect(left.card.right + g, top.tag.bottom + g, center.w, bottom.tag.y - top.tag.bottom - 2 * g)
    return replace(base, center=center, result=result)


def _rows(area: Rect, g: int, rows: list[list[tuple[Action | None, int]]]) -> dict[Action, Rect]:
    """Lay ``rows`` of (action, relative width) into ``area``, top to bottom, equal heights."""
    n = len(rows)
    row_h = (area.h - (n + 1) * g) // n
    out: dict[Action, Rect] = {}
    for i, row in enumerate(rows):
        y = area.y + g + i * (row_h + g)
        total = sum(weight for _, weight in row)
        unit = (area.w - (len(row) + 1) * g) / total
        x = float(area.x + g)
        for action, weight in row:
            width = round(unit * weight)
            if action is not None:
                out[action] = Rect(round(x), y, width, row_h)
            x += unit * weight + g
    return out


def _button_grid(family: str, panel: Rect, g: int) -> tuple[dict[Action, Rect], dict[Action, Rect], int]:
    """The fixed slots of every action: on the deal screen, and on the slate / match-won screens."""
    A = Action
    trumps1: list[tuple[Action | None, int]] = [(A.TRUMP_SPADES, 1), (A.TRUMP_HEARTS, 1)]
    trumps2: list[tuple[Action | None, int]] = [(A.TRUMP_DIAMONDS, 1), (A.TRUMP_CLUBS, 1)]
    if family in ("portrait", "upright"):
        deal_rows: list[list[tuple[Action | None, int]]] = [
            [*trumps1, *trumps2],
            [(A.ANNOUNCE_MATT, 1), (A.ANNOUNCE_KONTER, 1), (A.ANNOUNCE_KONTER_A_MATT, 2)],
            [(A.CLAIM, 1), (A.CONFIRM, 1), (A.UNDO, 1)],
        ]
        end_rows: list[list[tuple[Action | None, int]]] = [
            [(A.NEW_MATCH, 1), (A.REVANCHE, 1)], [(A.REVIEW, 1)], [(None, 1), (A.CONFIRM, 1), (A.UNDO, 1)]]
    elif family == "small":
        # Confirm and Undo a row each: "Bestätigen" and "Rückgängig" do not fit half of this narrow panel.
        deal_rows = [trumps1, trumps2, [(A.CLAIM, 1)], [(A.CONFIRM, 1)], [(A.UNDO, 1)]]
        announce = _rows(panel, g, [[(A.ANNOUNCE_MATT, 1), (A.ANNOUNCE_KONTER, 1)],
                                    [(A.ANNOUNCE_KONTER_A_MATT, 1)], [(None, 1)], [(None, 1)], [(None, 1)]])
        end_rows = [[(A.NEW_MATCH, 1)], [(A.REVANCHE, 1)], [(A.REVIEW, 1)], [(A.CONFIRM, 1)], [(A.UNDO, 1)]]
        deal = _rows(panel, g, deal_rows)
        deal.update(announce)
        return deal, _rows(panel, g, end_rows), deal[A.UNDO].h
    else:
        # Confirm and Undo a row each: side by side "Bestätigen" and "Rückgängig" fit only under Fonts.min_text.
        # The seventh row takes a third of each gap (the buttons stay 7 mm high on the Touch Display 2).
        deal_rows = [trumps1, trumps2, [(A.ANNOUNCE_MATT, 1), (A.ANNOUNCE_KONTER, 1)],
                     [(A.ANNOUNCE_KONTER_A_MATT, 1)], [(A.CLAIM, 1)], [(A.CONFIRM, 1)], [(A.UNDO, 1)]]
        end_rows = [[(A.NEW_MATCH, 1)], [(A.REVANCHE, 1)], [(None, 1)], [(None, 1)], [(A.REVIEW, 1)],
                    [(A.CONFIRM, 1)], [(A.UNDO, 1)]]
        g = g * 2 // 3
    deal = _rows(panel, g, deal_rows)
    return deal, _rows(panel, g, end_rows), deal[A.UNDO].h


_CACHE: dict[tuple[int, int], Layout] = {}


def layout_for(size: tuple[int, int]) -> Layout:
    """The layout for a surface of ``size`` pixels (:func:`family_for`), scaled to it."""
    w, h = size
    if min(w, h) < 160 or max(w, h) < 240:
        raise ConfigError(f"screen size {w}x{h} is too small for the table display (need at least 240x160)")
    cached = _CACHE.get((w, h))
    if cached is None:
        cached = _build(family_for((w, h)), (w, h))
        _CACHE[(w, h)] = cached
    return cached


def button_at(view: View, size: tuple[int, int], pos: tuple[float, float]) -> tuple[Button, Rect] | None:
    """The button or per-seat target drawn under pixel ``pos`` (enabled or not) and its rectangle, or None. A
    per-seat target's ``seat`` says whose the touch is."""
    layout = layout_for(size)
    for button, rect in (*layout.button_rects(view.buttons), *layout.target_rects(view)):
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
