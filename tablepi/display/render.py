"""Drawing a :class:`~tablepi.display.view.View` with pygame.

The renderer draws onto a surface it is given and keeps nothing but fonts and a cache of rendered text: the
View says what to show, :mod:`tablepi.display.layout` says where. It is built for a dim bar and a glance from
two metres: white cards on dark felt, large bold type, one colour per meaning (yellow = your move, red =
something is wrong, green = takes the trick, gold = announcement, cyan = lines added on the slate).

Headless use (tests, ``tablepi screenshot``): set ``SDL_VIDEODRIVER=dummy`` and ``SDL_AUDIODRIVER=dummy``;
:func:`render_to_png` does that itself when no display is open.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from enum import Enum
from pathlib import Path
from typing import NamedTuple

import pygame

from tablepi.display.fonts import find_font
from tablepi.display.layout import BOTTOM, LEFT, RIGHT, Layout, Rect, SeatSlot, layout_for
from tablepi.display.view import (
    Button,
    CardView,
    Line,
    PhoneCode,
    ScreenKind,
    SeatView,
    SheetView,
    SlateRow,
    SlateView,
    View,
    line_is_open,
)
from tablepi.errors import TablepiError
from tablepi.rules.cards import Card, Suit

Color = tuple[int, int, int]


class RenderError(TablepiError, OSError):
    """A screen image could not be written (``tablepi screenshot --out`` somewhere unwritable)."""


class TextFit(NamedTuple):
    """How a text was set in its box: the size used, its lines, and whether it fitted (nothing clipped)."""

    size: int
    lines: tuple[str, ...]
    fits: bool


class TextKind(Enum):
    """What a drawn text is, for the rule it keeps: a player's name (or a team's) and a label (a button's, a key's,
    a row's, a title) are never drawn under ``Fonts.min_text``; other text keeps rules of its own (the warning's
    floor, the review's small print)."""

    NAME = "name"
    LABEL = "label"
    TEXT = "text"


class DrawnText(NamedTuple):
    """One line of text as the renderer drew it on the last frame (:attr:`Renderer.drawn`): the tests' record of
    what was drawn, at which size and where."""

    text: str
    size: int
    box: Rect
    kind: TextKind


class BannerFit(NamedTuple):
    """Where and how a warning is drawn: its headline large (``Layout.fonts.bar``, readable from the far chair),
    the rest of the sentence (``text``) below it, never under ``Layout.warning_min``.

    ``boxes`` are what the warning covers: the bar (``bar``) and, when the headline needs more lines than the bar
    has, a box over the table just above the bottom seat's name tag, which holds the headline's first ``first``
    lines (in ``headline_box``); the rest of the headline (in ``rest_box``) and the detail (in ``text_box``) are
    set in the bar. So the warning never covers a seat's name tag nor a button."""

    bar: Rect
    text_box: Rect
    text: TextFit
    headline: TextFit
    headline_box: Rect
    first: int
    rest_box: Rect
    boxes: tuple[Rect, ...]


class LearnerLine(NamedTuple):
    """One line of the learner pane: plain small print, or trump cards (``cards`` set) drawn in suit colours."""

    text: str
    cards: tuple[Card, ...] = ()


class SlatePlan(NamedTuple):
    """Where the slate's parts are drawn (:meth:`Renderer.slate_plan`): the two teams' rows, their head lines'
    height, the last deal in words and the review (None: not shown), and the review's type size."""

    body: Rect
    head_h: int
    result: Rect | None
    review: Rect | None
    review_size: int


class LearnerPlan(NamedTuple):
    """What the learner pane shows: its box, its lines top to bottom, and whether every trump still out is
    among them (the small screen once cut off the last row of trumps)."""

    box: Rect
    lines: tuple[LearnerLine, ...]
    all_trumps: bool

FELT: Color = (6, 44, 26)
BLACK: Color = (0, 0, 0)
WHITE: Color = (255, 255, 255)
LIGHT: Color = (215, 222, 218)
DIM: Color = (120, 135, 128)
YELLOW: Color = (255, 212, 0)
RED: Color = (205, 0, 0)
RED_ON_CARD: Color = (200, 0, 0)
RED_ON_DARK: Color = (255, 92, 92)
BLUE: Color = (20, 70, 160)  # an information banner (white text on it: contrast 9:1)
GREEN: Color = (40, 225, 95)
GOLD: Color = (255, 190, 40)
AMBER: Color = (255, 150, 0)
CYAN: Color = (70, 205, 255)
SLOT: Color = (40, 90, 62)
TAG: Color = (22, 30, 26)
BUTTON: Color = (236, 236, 236)
BUTTON_OFF: Color = (70, 80, 75)


def _suit_color(suit: Suit, on_dark: bool) -> Color:
    if suit.is_red:
        return RED_ON_DARK if on_dark else RED_ON_CARD
    return WHITE if on_dark else BLACK


def _token_color(token: str) -> Color:
    """Colour of a trump-order token such as ``♥Q`` on the dark header."""
    return RED_ON_DARK if token[:1] in ("♥", "♦") else WHITE


class Renderer:
    """Draws Views. One renderer per process is enough; it only caches fonts and text images."""

    _TEXT_CACHE_LIMIT = 600

    def __init__(self, regular_font: Path | None = None, bold_font: Path | None = None) -> None:
        if not pygame.font.get_init():
            pygame.font.init()
        self._paths = {False: regular_font or find_font(bold=False), True: bold_font or find_font(bold=True)}
        self._fonts: dict[tuple[int, bool], pygame.font.Font] = {}
        self._texts: dict[tuple[str, int, bool, Color], pygame.Surface] = {}
        #: Every line of text the last :meth:`draw` drew, in order (tests check sizes and places on it).
        self.drawn: list[DrawnText] = []

    # ---- text -----------------------------------------------------------------------------------------

    def font(self, size: int, bold: bool = True) -> pygame.font.Font:
        key = (size, bold)
        font = self._fonts.get(key)
        if font is None:
            font = pygame.font.Font(str(self._paths[bold]), size)
            self._fonts[key] = font
        return font

    def text(self, text: str, size: int, color: Color, bold: bool = True) -> pygame.Surface:
        key = (text, size, bold, color)
        image = self._texts.get(key)
        if image is None:
            if len(self._texts) >= self._TEXT_CACHE_LIMIT:
                self._texts.clear()
            image = self.font(size, bold).render(text, True, color)
            self._texts[key] = image
        return image

    def wrap(self, text: str, size: int, width: int, bold: bool = True, glue: bool = True) -> list[str]:
        """Break ``text`` into lines no wider than ``width`` (a word longer than a line stands alone).

        A number stays with the words either side of it (:func:`_glue_numbers`): "24 to 16", "trick 3:",
        "1 line" are never split across lines, which read as nonsense ("... 24 to" / "16"). The learner's small
        print, in a narrow box, passes ``glue=False`` to keep every line it can. A word wider than the line breaks
        after its hyphens and plus signs, if it has any ("Marie-" / "Thérèse", "Jang+" / "Guillaume").
        """
        font = self.font(size, bold)
        lines: list[str] = []
        for paragraph in text.split("\n"):
            line = ""
            words = [w for w in paragraph.split(" ") if w]  # plain spaces only: a no-break space holds
            for word in _glue_numbers(words) if glue else words:
                pieces = [word] if font.size(word)[0] <= width else _HYPHENS.split(word)
                for i, piece in enumerate(pieces):
                    candidate = (f"{line}{piece}" if i else f"{line} {piece}") if line else piece
                    if line and font.size(candidate)[0] > width:
                        lines.append(line)
                        line = piece
                    else:
                        line = candidate
            lines.append(line)
        return lines

    def balanced_wrap(self, text: str, size: int, width: int, bold: bool = True) -> list[str]:
        """Like :meth:`wrap`, but with lines of even length: no lone word on the last line of a prompt."""
        lines = self.wrap(text, size, width, bold)
        if len(lines) < 2:
            return lines
        # narrowest width that still gives the same number of lines, and still holds whole every word that the
        # full width held whole (only a word wider than ``width`` breaks at its hyphen)
        font = self.font(size, bold)
        words = (font.size(w)[0] for p in text.split("\n") for w in _glue_numbers([w for w in p.split(" ") if w]))
        lo, hi = max(width // 3, max((w for w in words if w <= width), default=0)), width
        while lo < hi:
            mid = (lo + hi) // 2
            if len(self.wrap(text, size, mid, bold)) > len(lines):
                lo = mid + 1
            else:
                hi = mid
        return self.wrap(text, size, lo, bold)

    def fit(self, text: str, size: int, rect: Rect, bold: bool = True, min_size: int = 10) -> tuple[int, list[str]]:
        """The largest size up to ``size`` at which ``text`` wraps into ``rect``, and its lines."""
        fitted = self.fit_text(text, size, rect, bold, min_size)
        return fitted.size, list(fitted.lines)

    def fit_text(self, text: str, size: int, rect: Rect, bold: bool = True, min_size: int = 10) -> TextFit:
        """Like :meth:`fit`, and says whether the text fitted whole (the hook tests use to prove no warning is
        clipped or too small to read). The one way a text is fitted to its box, names and labels included: the
        largest size down to ``min_size`` at which it wraps into ``rect``; a text that does not fit even at
        ``min_size`` keeps that size and is shortened with "…" (the lines the box has room for, the last one cut),
        never drawn smaller nor out of its box."""
        while True:
            lines = self.balanced_wrap(text, size, rect.w, bold)
            height = len(lines) * self.font(size, bold).get_linesize()
            widest = max(self.font(size, bold).size(line)[0] for line in lines)
            fits = height <= rect.h and widest <= rect.w
            if fits:
                return TextFit(size, tuple(lines), fits)
            if size <= min_size:
                return TextFit(size, self._elide(lines, size, rect, bold), False)
            size -= 1

    def _elide(self, lines: Sequence[str], size: int, rect: Rect, bold: bool) -> tuple[str, ...]:
        """``lines`` cut to ``rect`` at ``size``: as many as its height holds (one at least), the rest of the text
        joined to the last of them, and each line wider than the box shortened with "…"."""
        font = self.font(size, bold)
        keep = max(1, rect.h // font.get_linesize())
        out = list(lines[:keep])
        for line in lines[keep:]:  # the rest joins the last line, as the wrap split it
            out[-1] += line if out[-1].endswith(("-", "+")) else f" {line}"
        cut = []
        for line in out:
            if font.size(line)[0] > rect.w:
                while len(line) > 1 and font.size(line.rstrip() + "…")[0] > rect.w:
                    line = line[:-1]
                line = line.rstrip() + "…"
            cut.append(line)
        return tuple(cut)

    def blit_text(self, surface: pygame.Surface, text: str, size: int, color: Color, rect: Rect,
                  align: str = "center", bold: bool = True, min_size: int = 10, kind: TextKind = TextKind.TEXT) -> Rect:
        """Draw ``text`` (wrapped and shrunk to fit, :meth:`fit_text`) into ``rect``, vertically centred. Returns
        the ink box."""
        size, lines = self.fit(text, size, rect, bold, min_size)
        return self._draw_lines(surface, lines, size, color, rect, align, bold, kind)

    def _draw_lines(self, surface: pygame.Surface, lines: Iterable[str], size: int, color: Color, rect: Rect,
                    align: str = "center", bold: bool = True, kind: TextKind = TextKind.TEXT) -> Rect:
        """Draw ready-made ``lines`` at ``size``, vertically centred in ``rect`` (each noted in :attr:`drawn`).
        Returns the ink box."""
        lines = list(lines)
        line_h = self.font(size, bold).get_linesize()
        y = rect.y + (rect.h - line_h * len(lines)) // 2
        left, right = rect.right, rect.x
        for line in lines:
            image = self.text(line, size, color, bold)
            if align == "left":
                x = rect.x
            elif align == "right":
                x = rect.right - image.get_width()
            else:
                x = rect.x + (rect.w - image.get_width()) // 2
            surface.blit(image, (x, y))
            self.drawn.append(DrawnText(line, size, Rect(x, y, image.get_width(), line_h), kind))
            left, right = min(left, x), max(right, x + image.get_width())
            y += line_h
        top = rect.y + (rect.h - line_h * len(lines)) // 2
        return Rect(left, top, max(0, right - left), line_h * len(lines))

    # ---- the frame ------------------------------------------------------------------------------------

    def draw(self, view: View, surface: pygame.Surface) -> None:
        """Draw ``view`` over the whole of ``surface``."""
        layout = layout_for(surface.get_size())
        surface.fill(FELT)
        self.drawn = []
        if view.sheet is not None:  # a warning stays in view, whole; the game's prompt is not for the sheet's user
            self._sheet(view.sheet, surface, layout)
            if view.warning is not None:
                self._sheet_warning(view, view.sheet, surface, layout)
            elif not layout.compact:
                self._bar(replace(view, prompt=""), surface, layout)
            return
        if view.kind is ScreenKind.DEAL:
            self._deal(view, surface, layout)
        elif view.kind in (ScreenKind.SLATE, ScreenKind.MATCH_WON):
            self._slate_screen(view, surface, layout)
        else:
            self._idle(view, surface, layout)
        self._targets(view, surface, layout)
        self._bar(view, surface, layout)
        self._buttons(view.buttons, surface, layout)
        self._menu(view, surface, layout)

    def menu_box(self, view: View, layout: Layout) -> Rect | None:
        """Where the menu's labelled button is drawn: the header's right end (the whole header opens the menu)."""
        if not view.header.menu or view.sheet is not None:
            return None
        h, g = layout.header, layout.gap
        size = layout.fonts.trick * 4 // 5
        w = self.font(size).size(f"☰ {view.header.menu}")[0] + 2 * g
        return Rect(h.right - w - g // 2, h.y + g // 2, w, h.h - g)

    def _menu(self, view: View, surface: pygame.Surface, layout: Layout) -> None:
        box = self.menu_box(view, layout)
        if box is None:
            return
        pygame.draw.rect(surface, BUTTON, box, border_radius=layout.radius)
        self.blit_text(surface, f"☰ {view.header.menu}", layout.fonts.trick * 4 // 5, BLACK, box.inset(2),
                       min_size=layout.fonts.min_text, kind=TextKind.LABEL)

    def _header_right(self, view: View, layout: Layout) -> int:
        """The header's right end for its own text: left of the menu's button."""
        box = self.menu_box(view, layout)
        return layout.header.right if box is None else box.x - layout.gap // 2

    # ---- header ---------------------------------------------------------------------------------------

    def _header(self, view: View, surface: pygame.Surface, layout: Layout) -> None:
        h = layout.header
        f = layout.fonts
        g = layout.gap
        pygame.draw.rect(surface, BLACK, h)
        x = h.x + g
        if view.trump is not None:
            label = view.trump.label
            if label and not self._header_fits(view, layout):
                label = ""  # small screens: the badge alone says which suit is trumps
            if label:
                image = self.text(label, f.header, WHITE)
                surface.blit(image, (x, h.y + (h.h - image.get_height()) // 2))
                x += image.get_width() + g
            badge = Rect(x, h.y + g // 2, h.h - g, h.h - g)
            pygame.draw.rect(surface, WHITE, badge, border_radius=layout.radius)
            suit = view.trump.suit
            symbol, color = ("?", BLACK) if suit is None else (suit.symbol, _suit_color(suit, on_dark=False))
            self.blit_text(surface, symbol, f.header + g // 2, color, badge)
            x = badge.right + 2 * g
            band = layout.reminder
            if suit is not None and band is not None:  # upright: its own line, centred, under the header
                pygame.draw.rect(surface, BLACK, band)
                self._reminder(view, surface, self.reminder_size(view, layout), band, centred=True)
            elif suit is not None:
                size = self.reminder_size(view, layout, x)
                x = self._reminder(view, surface, size, Rect(x, h.y, h.right - x, h.h))
        if view.header.trick_label:  # right-aligned beside the menu's button, at its own size in the room left
            right = Rect(x, h.y, self._header_right(view, layout) - x - g, h.h)
            self.blit_text(surface, view.header.trick_label, f.trick, YELLOW, right, align="right",
                           min_size=f.min_text, kind=TextKind.LABEL)

    def _reminder(self, view: View, surface: pygame.Surface, size: int, box: Rect, centred: bool = False) -> int:
        """The order reminder's tokens in their colours at ``size``, from ``box``'s left (or centred in it);
        returns where it ends."""
        assert view.trump is not None
        space = self.font(size).size(" ")[0]
        x = box.x
        if centred:
            x += (box.w - self.font(size).size(view.trump.reminder)[0]) // 2
        for token in view.trump.reminder_tokens:
            image = self.text(token, size, _token_color(token))
            surface.blit(image, (x, box.y + (box.h - image.get_height()) // 2))
            x += image.get_width() + space
        return x

    def reminder_size(self, view: View, layout: Layout, x: int | None = None) -> int:
        """The order reminder's font size: the layout's on its own line (upright), else the layout's or smaller
        (down to 3/5 of it) where the reminder and the trick count would not both fit between ``x`` (after the
        trump badge) and the menu's button: the count keeps its size."""
        f, g = layout.fonts, layout.gap
        assert view.trump is not None
        if layout.reminder is not None:
            return f.reminder
        if x is None:
            x = self._reminder_x(view, layout)
        room = self._header_right(view, layout) - x - g
        if view.header.trick_label:
            room -= self.font(f.trick).size(view.header.trick_label)[0] + g
        size, smallest = f.reminder, max(8, f.reminder * 3 // 5)
        while size > smallest and self.font(size).size(view.trump.reminder)[0] > room:
            size -= 1
        return size

    def _reminder_x(self, view: View, layout: Layout) -> int:
        """Where the header's reminder begins: after the word "Trumps" (when it fits) and the badge."""
        assert view.trump is not None
        h, g = layout.header, layout.gap
        x = h.x + g
        if view.trump.label and self._header_fits(view, layout):
            x += self.text(view.trump.label, layout.fonts.header, WHITE).get_width() + g
        return x + (h.h - g) + 2 * g

    def _header_fits(self, view: View, layout: Layout) -> bool:
        """Whether the word "Trumps", the badge, the order reminder (unless on its own line) and the trick count
        fit side by side."""
        f, g = layout.fonts, layout.gap
        assert view.trump is not None
        need = self.font(f.header).size(view.trump.label)[0] + layout.header.h + 4 * g
        if layout.reminder is None:
            need += self.font(f.reminder).size(view.trump.reminder)[0]
        need += self.font(f.trick).size(view.header.trick_label)[0] + 2 * g
        return need <= self._header_right(view, layout) - layout.header.x

    # ---- deal screen ----------------------------------------------------------------------------------

    def _deal(self, view: View, surface: pygame.Surface, layout: Layout) -> None:
        if view.result:  # the deal is over: its result in the header, the last trick still on the table
            self._result(view, surface, layout)
        else:
            self._header(view, surface, layout)
        slots = layout.slots(view.bottom_seat)
        asked = {button.seat for button, _ in layout.target_rects(view)} if not view.result else set()
        size = self.name_size(view, layout)
        for seat_view in view.seats:
            self._seat(seat_view, slots[seat_view.seat], surface, layout, size, tag=seat_view.seat not in asked)
        self._center(view, surface, layout)
        if view.learner is not None:
            self._learner(view, surface, layout)

    def _seat(self, seat: SeatView, slot: SeatSlot, surface: pygame.Surface, layout: Layout, size: int,
              tag: bool = True) -> None:
        """The seat's name tag at ``size`` (unless its name is a target now: :meth:`_targets` draws it), its card
        place and its announcement."""
        if tag:
            self._tag(seat, slot, surface, layout, size)
        self._zone(seat, slot, surface, layout)

    def _name_room(self, seat: SeatView, slot: SeatSlot, layout: Layout) -> int:
        """The width a seat's name has in its tag, beside its Dealer/Forehand marks."""
        pad = self._tag_pad(layout)
        marks = sum(self.font(layout.fonts.chip).size(m)[0] + 2 * pad for m in seat.marks)
        return slot.tag.w - marks - 2 * pad

    @staticmethod
    def _tag_pad(layout: Layout) -> int:
        """The space round a name and each mark in a seat's tag: half a gap on the 3.5" panels, whose side seats'
        tags upright have room for "Fernand" beside "Forehand" at ``Fonts.min_text`` only so."""
        return layout.gap // 2 if layout.compact else layout.gap

    def name_size(self, view: View, layout: Layout) -> int:
        """One size for the four names: the largest, down to ``Fonts.min_text``, at which every name fits its
        tag beside its marks (a name that does not fit even then is shortened with "…", :meth:`name_fit`)."""
        full = layout.fonts.name
        slots = layout.slots(view.bottom_seat)
        smallest = min(full, layout.fonts.min_text)
        size = full
        for seat in view.seats:
            room = self._name_room(seat, slots[seat.seat], layout)
            while size > smallest and self.font(size).size(seat.name)[0] > room:
                size -= 1
        return size

    def _tag(self, seat: SeatView, slot: SeatSlot, surface: pygame.Surface, layout: Layout, size: int) -> None:
        f = layout.fonts
        # The name tag: yellow when this seat must act, red when a warning is about it.
        if seat.highlighted:
            bg, fg = RED, WHITE
        elif seat.to_play:
            bg, fg = YELLOW, BLACK
        else:
            bg, fg = TAG, WHITE
        marks = seat.marks
        chip_imgs = [self.text(m, f.chip, fg if bg != TAG else GOLD) for m in marks]
        pad = self._tag_pad(layout)
        chips_w = sum(c.get_width() + 2 * pad for c in chip_imgs)
        name = self.name_fit(seat.name, size, slot.tag.w - chips_w - 2 * pad, smallest=size)
        name_w = self.font(name.size).size(name.lines[0])[0]
        width = name_w + 2 * pad + chips_w
        width = min(width, slot.tag.w)
        if slot.side is LEFT:
            x = slot.tag.x
        elif slot.side is RIGHT:
            x = slot.tag.right - width
        else:
            x = slot.tag.x + (slot.tag.w - width) // 2
        tag = Rect(x, slot.tag.y, width, slot.tag.h)
        pygame.draw.rect(surface, bg, tag, border_radius=layout.radius)
        if bg == TAG:
            pygame.draw.rect(surface, DIM, tag, width=1, border_radius=layout.radius)
        clip = surface.get_clip()
        surface.set_clip(tag)
        cx = tag.x + pad
        self._draw_lines(surface, name.lines, name.size, fg, Rect(cx, tag.y, name_w, tag.h), "left",
                         kind=TextKind.NAME)
        cx += name_w + pad
        for chip in chip_imgs:
            box = Rect(cx, tag.y + 3, chip.get_width() + pad, tag.h - 6)
            pygame.draw.rect(surface, fg if bg != TAG else GOLD, box, width=2, border_radius=layout.radius // 2)
            surface.blit(chip, (box.x + pad // 2, box.y + (box.h - chip.get_height()) // 2))
            cx = box.right + pad
        surface.set_clip(clip)

    def _zone(self, seat: SeatView, slot: SeatSlot, surface: pygame.Surface, layout: Layout) -> None:
        f, g = layout.fonts, layout.gap
        # The card on the seat's zone, or the empty zone.
        if seat.card is not None:
            self._card(seat.card, slot.card, surface, layout)
        elif seat.reader_off:
            # The zone senses nothing: say so where the card would go, whatever warning the bar shows now.
            _dashed_rect(surface, RED_ON_DARK, slot.card, layout.border, max(6, slot.card.w // 6))
            self.blit_text(surface, seat.reader_off, f.chip, RED_ON_DARK, slot.card.inset(layout.border + 2),
                           min_size=f.min_text, kind=TextKind.LABEL)
        else:
            color = YELLOW if seat.to_play else SLOT
            pygame.draw.rect(surface, color, slot.card, width=layout.border if seat.to_play else 2,
                             border_radius=layout.radius)
        if seat.announcement:
            image = self.text(seat.announcement, f.name * 4 // 5, BLACK)
            w = min(image.get_width() + 2 * g, slot.chip.w)
            if slot.side is RIGHT:
                box = Rect(slot.chip.right - w, slot.chip.y, w, slot.chip.h)
            elif slot.side is LEFT:
                box = Rect(slot.chip.x + g, slot.chip.y, w, slot.chip.h)
            else:
                box = Rect(slot.chip.x, slot.chip.y, w, slot.chip.h)
            pygame.draw.rect(surface, GOLD, box, border_radius=layout.radius // 2)
            self.blit_text(surface, seat.announcement, f.name * 4 // 5, BLACK, box.inset(2), min_size=f.min_text,
                           kind=TextKind.LABEL)

    def name_fit(self, name: str, size: int, width: int, smallest: int) -> TextFit:
        """A name on one line (a seat's tag, its target): the largest size down to ``smallest`` at which it fits
        ``width``, else shortened with "…" at ``smallest`` (:meth:`fit_text`, the one way a text is fitted).

        The Dealer/Forehand marks beside it must stay whole: they say who deals and who names trumps.
        """
        return self.fit_text(name, size, Rect(0, 0, max(1, width), self.font(size).get_linesize()), min_size=smallest)

    def _card(self, card_view: CardView, rect: Rect, surface: pygame.Surface, layout: Layout) -> None:
        f, b = layout.fonts, layout.border
        card = card_view.card
        if card_view.illegal:
            pygame.draw.rect(surface, RED, Rect(rect.x - b - 2, rect.y - b - 2, rect.w + 2 * b + 4,
                                                rect.h + 2 * b + 4), border_radius=layout.radius + b)
        elif card_view.winning:
            pygame.draw.rect(surface, GREEN, Rect(rect.x - b - 2, rect.y - b - 2, rect.w + 2 * b + 4,
                                                  rect.h + 2 * b + 4), border_radius=layout.radius + b)
        face = WHITE if not card_view.tentative else (255, 244, 214)
        pygame.draw.rect(surface, face, rect, border_radius=layout.radius)
        if card is None:  # a tag that is no card of the deck: a red "?" where it lies
            self.blit_text(surface, "?", f.card.suit + f.card.rank // 2, RED_ON_CARD, rect)
        else:
            color = _suit_color(card.suit, on_dark=False)
            suit_img = self.text(card.suit.symbol, f.card.suit, color)
            rank_img = self.text(card.rank.display, f.card.rank, color)
            total = suit_img.get_height() + rank_img.get_height() - f.card.rank // 4
            y = rect.y + (rect.h - total) // 2
            surface.blit(suit_img, (rect.x + (rect.w - suit_img.get_width()) // 2, y))
            y += suit_img.get_height() - f.card.rank // 4
            surface.blit(rank_img, (rect.x + (rect.w - rank_img.get_width()) // 2, y))
        if card_view.illegal:
            badge = self.text("!", f.chip + b, WHITE)
            r = max(badge.get_width(), badge.get_height()) // 2 + 2
            center = (rect.right, rect.bottom)
            pygame.draw.circle(surface, RED, center, r)
            surface.blit(badge, (center[0] - badge.get_width() // 2, center[1] - badge.get_height() // 2))
        elif card_view.tentative:
            _dashed_rect(surface, AMBER, rect, b, max(6, rect.w // 6))
        if card_view.by_hand:  # entered on the screen: a cyan frame and a pen in the corner
            _dashed_rect(surface, CYAN, rect, b, max(4, rect.w // 8))
            pen = self.text("✎", f.name, CYAN)  # at the names' size: read across the table
            disc = max(pen.get_width(), pen.get_height()) // 2 + 2
            centre = (rect.x + disc // 2, rect.bottom - disc // 2)
            pygame.draw.circle(surface, BLACK, centre, disc)
            surface.blit(pen, (centre[0] - pen.get_width() // 2, centre[1] - pen.get_height() // 2))

    def _center(self, view: View, surface: pygame.Surface, layout: Layout) -> None:
        c, f, g = layout.center, layout.fonts, layout.gap
        if view.teams:
            # Keep clear of the red/green frames drawn round the side seats' cards (border + 2 outside them).
            pad = layout.border + 2
            line = Rect(c.x + pad, c.y + (c.h - f.center - g) // 2, c.w - 2 * pad, f.center + g)
            self._team_line(view, surface, line, f.center, show_points=bool(view.result), smallest=f.min_text)

    def learner_plan(self, view: View, layout: Layout) -> LearnerPlan | None:
        """The learner pane's lines for the room left below the buttons, the most useful kept first.

        Trumps still out are what a learner cannot count yet, so they stay whole; the live points come next and
        the number of cards in play (the trick count says nearly as much) is the first to go when the pane is
        short, as on the 3.5" panel. Then the trumps lose their label before a single card is dropped.
        """
        learner = view.learner
        if learner is None:
            return None
        f, g = layout.fonts, layout.gap
        box = self.learner_box(view, layout)
        if box.h < 3 * f.small:
            return LearnerPlan(box, (), not learner.trumps_out)
        inner = box.inset(g // 2 + 2)

        def text(words: str) -> list[LearnerLine]:
            return [LearnerLine(line) for line in self.wrap(words, f.small, inner.w, glue=False)]

        font = self.font(f.small)
        space = font.size(" ")[0]
        rows: list[LearnerLine] = []
        row: list[Card] = []
        width = 0
        for card in learner.trumps_out:
            w = font.size(card.display)[0]
            if row and width + space + w > inner.w:
                rows.append(LearnerLine(" ".join(c.display for c in row), tuple(row)))
                row, width = [], 0
            width += (space if row else 0) + w
            row.append(card)
        if row:
            rows.append(LearnerLine(" ".join(c.display for c in row), tuple(row)))
        points, trumps, in_play = text(learner.points_label), text(learner.trumps_out_label) + rows, \
            text(learner.in_play_label)
        capacity = inner.h // font.get_linesize()
        for choice in ([*points, *trumps, *in_play], [*points, *trumps], trumps, rows):
            if len(choice) <= capacity:
                return LearnerPlan(box, tuple(choice), True)
        return LearnerPlan(box, (), False)  # no room for every trump: show none rather than a misleading few

    def learner_box(self, view: View, layout: Layout) -> Rect:
        """The learner pane's place: the table's top-left corner, beside the top seat and above the left one
        (the buttons have fixed slots and keep the whole panel)."""
        t, g = layout.seat_area, layout.gap
        slots = layout.slots(view.bottom_seat)
        top = next(s for s in slots.values() if s.side.name == "top")
        left = next(s for s in slots.values() if s.side is LEFT)
        return Rect(t.x + g, t.y + g, top.card.x - 2 * g - t.x, left.tag.y - g - (t.y + g))

    def _learner(self, view: View, surface: pygame.Surface, layout: Layout) -> None:
        """Learner extras fill the panel below the buttons: live points, trumps still out, cards in play."""
        plan = self.learner_plan(view, layout)
        f, g = layout.fonts, layout.gap
        if plan is None or not plan.lines:
            return
        pygame.draw.rect(surface, BLACK, plan.box, border_radius=layout.radius)
        inner = plan.box.inset(g // 2 + 2)
        line_h = self.font(f.small).get_linesize()
        space = self.font(f.small).size(" ")[0]
        y = inner.y
        for line in plan.lines:
            if not line.cards:
                surface.blit(self.text(line.text, f.small, LIGHT), (inner.x, y))
            x = inner.x
            for card in line.cards:
                image = self.text(card.display, f.small, _suit_color(card.suit, on_dark=True))
                surface.blit(image, (x, y))
                x += image.get_width() + space
            y += line_h

    def _team_line(self, view: View, surface: pygame.Surface, rect: Rect, size: int, show_points: bool,
                   smallest: int) -> None:
        """``N+S 2 : 1 E+W`` (tricks), or the card points at the end of a deal. Too wide for ``rect``, it shrinks
        down to ``smallest`` and then the longer team's names are shortened with "…" (the numbers stay whole)."""
        if len(view.teams) != 2:
            return
        a, b = view.teams
        va = a.points if show_points and a.points is not None else a.tricks
        vb = b.points if show_points and b.points is not None else b.tricks
        mark = f"{view.trump.suit.symbol} " if view.trump is not None and view.trump.suit is not None else ""
        labels = [a.label, b.label]
        cut = [len(a.label), len(b.label)]

        def sides() -> tuple[str, str]:
            la, lb = (label if n == len(label) else label[:n].rstrip() + "…"
                      for label, n in zip(labels, cut, strict=True))
            trump_b = " " + mark.strip() if b.trump_team and mark else ""
            return f"{mark if a.trump_team else ''}{la}  {va}", f"{vb}  {lb}{trump_b}"

        sep = 6  # pixels either side of the colon
        left, right = sides()
        font = self.font(size)
        while size > smallest and sum(font.size(t)[0] for t in (left, ":", right)) + 2 * sep > rect.w:
            size -= 1
            font = self.font(size)
        while sum(font.size(t)[0] for t in (left, ":", right)) + 2 * sep > rect.w and max(cut) > 1:
            cut[cut.index(max(cut))] -= 1
            left, right = sides()
        colon = self.text(":", size, WHITE)
        li, ri = self.text(left, size, WHITE), self.text(right, size, WHITE)
        # The colon sits in the middle when both sides fit there; when one team's names are much longer the
        # line slides towards the shorter side instead of running out of its box (the deal-over panel once
        # lost the first letters of a long team at its left edge).
        total = li.get_width() + colon.get_width() + ri.get_width() + 2 * sep
        cx = rect.x + rect.w // 2
        colon_x = cx - colon.get_width() // 2
        start = colon_x - sep - li.get_width()
        start = max(rect.x, min(start, rect.right - total))
        colon_x = start + li.get_width() + sep
        y = rect.y + (rect.h - li.get_height()) // 2
        surface.blit(li, (start, y))
        surface.blit(colon, (colon_x, y))
        surface.blit(ri, (colon_x + colon.get_width() + sep, y))
        for text, x, image in ((left, start, li), (right, colon_x + colon.get_width() + sep, ri)):
            self.drawn.append(DrawnText(text, size, Rect(x, y, image.get_width(), image.get_height()), TextKind.NAME))

    def _result(self, view: View, surface: pygame.Surface, layout: Layout) -> None:
        """The deal's result in words, in the header (trumps matter no more): the table below keeps the last
        trick in view while the bar asks for the sweep, and the centre shows the card points."""
        h, f, g = layout.header, layout.fonts, layout.gap
        if layout.reminder is not None:  # upright: the reminder's line too (trumps matter no more)
            h = Rect(h.x, h.y, h.w, layout.reminder.bottom - h.y)
        pygame.draw.rect(surface, BLACK, h)
        text = " · ".join(view.result.split("\n"))
        self.blit_text(surface, text, f.result, GOLD, Rect(h.x + g, h.y + 1, self._header_right(view, layout) - h.x
                                                               - 2 * g, h.h - 2),
                       min_size=max(10, f.small * 3 // 4))

    # ---- slate ----------------------------------------------------------------------------------------

    def _slate_screen(self, view: View, surface: pygame.Surface, layout: Layout) -> None:
        h, f, g = layout.header, layout.fonts, layout.gap
        pygame.draw.rect(surface, BLACK, h)
        slate = view.slate
        headline = view.title or (slate.title if slate else "")
        color = GOLD if view.kind is ScreenKind.MATCH_WON else WHITE
        self.blit_text(surface, headline, f.header, color,
                       Rect(h.x + g, h.y, self._header_right(view, layout) - h.x - 2 * g, h.h), align="left")
        if slate is not None:
            self._slate(slate, surface, layout)

    def _slate(self, slate: SlateView, surface: pygame.Surface, layout: Layout) -> None:
        """d'Lee: per team a line with its name and its open lines (large), and under it the tally lines, the
        starting ones in groups of three and the added ones as their own groups; then the last deal in words and
        who names trumps next."""
        f, g = layout.fonts, layout.gap
        plan = self.slate_plan(slate, layout)
        body = plan.body
        if slate.phone is not None:  # the pages' QR code at the right of the tally, as tall as the two rows
            side = min(body.h, body.w // 3)
            self._phone_code(slate.phone, surface, Rect(body.right - side, body.y, side, side))
            body = Rect(body.x, body.y, body.w - side - g, body.h)
        row_h = (body.h - g) // 2
        count = max((len(r.lines) + 2 * len(r.groups) for r in slate.rows), default=0)
        for i, row in enumerate(slate.rows):
            rect = Rect(body.x, body.y + i * (row_h + g), body.w, row_h)
            self._slate_row(row, rect, plan.head_h, count, surface, layout, winner=slate.winner is row.team)
        mid = body.y + row_h + g // 2
        pygame.draw.line(surface, LIGHT, (body.x, mid), (body.right, mid), 3)
        if plan.result is not None:
            extra = [text for text in (slate.last_result, slate.next_trumps) if text]
            self.blit_text(surface, "\n".join(extra), f.result, YELLOW, plan.result)
        if plan.review is not None:
            self.blit_text(surface, "\n".join(slate.review), plan.review_size, WHITE, plan.review, bold=False,
                           min_size=max(10, f.small * 3 // 4))

    def slate_plan(self, slate: SlateView, layout: Layout) -> SlatePlan:
        """Where the slate's parts go: the two teams' rows (``body``: each a head line with the name and the open
        lines, the tally under it when there is room), the last deal in words, the review. The two head lines
        always fit, one under the other: the words below give up room (and shrink) first, never the names (the
        480x320 review once drew the line between the teams through the first team's name)."""
        t, f, g = layout.table, layout.fonts, layout.gap
        extra = [text for text in (slate.last_result, slate.next_trumps) if text]
        result_lines = sum(text.count("\n") + 1 for text in extra)
        result_h = min(5, result_lines) * self.font(f.result).get_linesize() + g if extra else 0
        # The review: its own lines in plain type under the result, each allowed to wrap once.
        review_size = max(f.small, f.result * 3 // 4)
        review_h = 2 * len(slate.review) * self.font(review_size, False).get_linesize() + g if slate.review else 0
        head_h = self.font(f.slate.count).get_linesize()
        heads = 2 * head_h + 2 * g  # two head lines and the line between them
        room = t.h - 2 * g - heads
        if result_h + review_h > room:  # the words below share what is left, in proportion
            total = result_h + review_h
            result_h, review_h = result_h * room // total, review_h * room // total
        body = Rect(t.x + g, t.y + g, t.w - 2 * g, t.h - 2 * g - result_h - review_h)
        result = Rect(body.x, body.bottom + g, body.w, max(1, result_h)) if extra else None
        review = Rect(body.x, body.bottom + g + result_h, body.w, max(1, review_h - g)) if slate.review else None
        return SlatePlan(body, head_h, result, review, review_size)

    def _phone_code(self, code: PhoneCode, surface: pygame.Surface, rect: Rect) -> None:
        """A QR code on white with its quiet zone of four modules, each module a whole number of pixels."""
        count = len(code.modules) + 8
        unit = max(1, rect.w // count)
        side = unit * count
        box = Rect(rect.x + (rect.w - side) // 2, rect.y + (rect.h - side) // 2, side, side)
        pygame.draw.rect(surface, (255, 255, 255), box)
        for y, row in enumerate(code.modules):
            for x, cell in enumerate(row):
                if cell == "1":
                    surface.fill((0, 0, 0), Rect(box.x + (x + 4) * unit, box.y + (y + 4) * unit, unit, unit))

    def _slate_row(self, row: SlateRow, rect: Rect, head_h: int, count: int, surface: pygame.Surface,
                   layout: Layout, winner: bool) -> None:
        f, g = layout.fonts, layout.gap
        head = Rect(rect.x, rect.y, rect.w, head_h)
        open_img = self.text(row.open_label, f.slate.count, YELLOW if row.open_count else LIGHT) \
            if row.open_label else None
        label_w = head.w - (open_img.get_width() + 2 * g if open_img else 0)
        self.blit_text(surface, row.label, f.slate.label, GOLD if winner else WHITE,
                       Rect(head.x, head.y, label_w, head.h), align="left", min_size=f.min_text, kind=TextKind.NAME)
        if open_img is not None:
            surface.blit(open_img, (head.right - open_img.get_width(), head.y + (head.h - open_img.get_height()) // 2))
        # The tally: a line per unit of ``count`` (lines, plus two units of gap per group) across the width.
        spacing = max(6, min(rect.w // max(count, 11), layout.card[0] // 2))
        width = max(3, spacing * 2 // 5)
        top, bottom = head.bottom + g, rect.bottom - g // 2
        if bottom - top < max(12, head_h // 2):
            return  # no room under the name (the review's lines take it): the count says it, nothing drawn over it
        x = rect.x + spacing // 2
        for group in row.groups:
            for line in group:
                _tally_line(surface, line, x, top, bottom, width, spacing)
                x += spacing
            x += spacing * 2 // 2 + spacing // 2

    # ---- idle -----------------------------------------------------------------------------------------

    def _idle(self, view: View, surface: pygame.Surface, layout: Layout) -> None:
        t, f, g = layout.table, layout.fonts, layout.gap
        if not view.buttons:  # nothing in the panel: centre on the whole screen
            t = Rect(0, t.y, layout.size[0], t.h)
        pygame.draw.rect(surface, BLACK, layout.header)
        title_rect = Rect(t.x + g, t.y + t.h // 8, t.w - 2 * g, f.title + 2 * g)
        self.blit_text(surface, view.title, f.title, WHITE, title_rect)
        suits = Rect(t.x, title_rect.bottom + g, t.w, f.title + 2 * g)
        images = [self.text(s.symbol, f.title, _suit_color(s, on_dark=True)) for s in Suit]
        total = sum(i.get_width() for i in images) + 3 * 2 * g
        x = suits.x + (suits.w - total) // 2
        for image in images:
            surface.blit(image, (x, suits.y))
            x += image.get_width() + 2 * g

    # ---- a hand-entry sheet ---------------------------------------------------------------------------

    def _sheet(self, sheet: SheetView, surface: pygame.Surface, layout: Layout) -> None:
        """A panel over the table: its title in the header, its lines, then its keys (display/sheet.py)."""
        from tablepi.display.sheet import key_rects, line_rects, text_rect

        f, g, h = layout.fonts, layout.gap, layout.header
        size = surface.get_size()
        pygame.draw.rect(surface, BLACK, h)
        self.blit_text(surface, sheet.title, f.header, YELLOW, Rect(h.x + g, h.y, h.w - 2 * g, h.h),
                       min_size=max(f.min_text, f.header * 2 // 3), kind=TextKind.LABEL)
        text = text_rect(sheet, size)
        if sheet.phone is not None:  # the QR code fills the text area; the address under it
            line_h = self.font(f.small).get_linesize() + g
            side = max(1, min(text.w, text.h - line_h))
            self._phone_code(sheet.phone, surface, Rect(text.x + (text.w - side) // 2, text.y, side, side))
            self.blit_text(surface, "\n".join(sheet.lines), f.small, WHITE,
                           Rect(text.x, text.bottom - line_h, text.w, line_h), min_size=max(8, f.small // 2))
        elif sheet.lines:
            align = "left" if len(sheet.lines) > 2 else "center"
            touched = tuple(key is not None for key in sheet.line_keys) + (False,) * len(sheet.lines)
            places = line_rects(sheet, size)
            for i, (rect, fitted) in enumerate(self.sheet_text(sheet, layout, size)):
                if touched[i]:  # a row a touch acts on (a deal to correct): framed as a key
                    pygame.draw.rect(surface, BUTTON_OFF, places[i].inset(1), width=2, border_radius=layout.radius)
                self._draw_lines(surface, fitted.lines, fitted.size, WHITE, rect, align)
        for key, rect in key_rects(sheet, size):
            if not key.label:
                continue
            if key.id is None:  # a row's label (no key drawn round it: the whole place is its room)
                self.blit_text(surface, key.label, f.button, LIGHT, rect, align="left", min_size=f.min_text,
                               kind=TextKind.LABEL)
                continue
            fill = YELLOW if key.selected else (BUTTON if key.live else BUTTON_OFF)
            pygame.draw.rect(surface, fill, rect, border_radius=layout.radius)
            if key.suit is not None and key.live:
                color = _suit_color(key.suit, on_dark=False)
            else:
                color = BLACK if key.live or key.selected else DIM
            self.blit_text(surface, key.label, f.button_suit if len(key.label) <= 3 else f.button, color,
                           rect.inset(3), min_size=f.min_text, kind=TextKind.LABEL)

    def sheet_text(self, sheet: SheetView, layout: Layout, size: tuple[int, int]) -> tuple[tuple[Rect, TextFit], ...]:
        """How the sheet's lines are set: each in its own place (display/sheet.py), or, when one of them does not
        fit there (the answer sheet's deal in words, in Luxembourgish at 480x320, ran over the line under it; the
        start sheet's one sentence ran out of its half of the text area), all of them as one block over the text
        area, each wrapping as it needs. A line a touch acts on keeps its place."""
        from tablepi.display.sheet import line_rects, text_rect

        f = layout.fonts
        rects = line_rects(sheet, size)
        line_h = max(1, text_rect(sheet, size).h // max(2, len(sheet.lines)))
        size_ = min(f.center, max(f.small, line_h * 3 // 4))
        touched = [key is not None for key in sheet.line_keys]
        own = tuple((rect.inset(2) if i < len(touched) and touched[i] else rect,
                     self.fit_text(line, size_, rect.inset(2) if i < len(touched) and touched[i] else rect,
                                   min_size=f.small))
                    for i, (line, rect) in enumerate(zip(sheet.lines, rects, strict=True)))
        if all(fitted.fits for _, fitted in own) or any(touched):
            return own
        block = text_rect(sheet, size)
        fitted = self.fit_text("\n".join(sheet.lines), size_, block, min_size=max(10, f.small * 3 // 4))
        return ((block, fitted),)

    def sheet_warning(self, view: View, layout: Layout) -> BannerFit | None:
        """How the warning of ``view`` is set while a sheet is up: whole, where the sheet has no key
        (:func:`tablepi.display.sheet.warning_band`: the bar, or on the small layout the header and the text area).

        The headline at the band's size (``fonts.bar`` in the bar, ``fonts.header`` over the sheet) and the rest
        under it at ``layout.warning_min`` or larger; when they do not fit so, the whole sentence as one text, the
        headline first, at ``warning_min`` at least. Over the sheet the band is only as tall as the warning needs
        (the header at least): the sheet's lines stay in view under it where they still fit. Tests call this to
        check every template in every language over every sheet.
        """
        from tablepi.display.sheet import warning_band

        if view.warning is None:
            return None
        band = warning_band(layout.size)
        f, g = layout.fonts, layout.gap
        head_size = f.header if layout.compact else f.bar
        left = band.x + 2 * g + self.text("⚠", head_size, WHITE).get_width()
        width, room = band.right - left - g, band.h - 4
        headline, detail = view.warning.headline, view.warning.detail
        lines = self.balanced_wrap(headline, head_size, width)
        head = TextFit(head_size, tuple(lines), all(self.font(head_size).size(line)[0] <= width for line in lines))
        head_h = len(lines) * self.font(head_size).get_linesize()
        text = self.fit_text(detail, max(layout.warning_min, head_size * 3 // 4),
                             Rect(left, 0, width, max(0, room - head_h)),
                             min_size=layout.warning_min) if detail else TextFit(head_size, (), True)
        if not (head.fits and text.fits and head_h <= room):  # one text, the headline first
            head, head_h = TextFit(head_size, (), True), 0
            text = self.fit_text(view.warning.text, head_size, Rect(left, 0, width, room),
                                 min_size=layout.warning_min)
        text_h = len(text.lines) * self.font(text.size).get_linesize()
        if layout.compact:
            band = Rect(band.x, band.y, band.w, min(band.h, max(layout.header.h, head_h + text_h + 4)))
        top = band.y + max(2, (band.h - head_h - text_h) // 2)
        headline_box = Rect(left, top, width, head_h)
        return BannerFit(band, Rect(left, top + head_h, width, text_h), text, head, headline_box, len(head.lines),
                         Rect(left, top + head_h, width, 0), (band,))

    def _sheet_warning(self, view: View, sheet: SheetView, surface: pygame.Surface, layout: Layout) -> None:
        """The warning over a sheet (:meth:`sheet_warning`); on the small layout the sheet's lines, when the band
        reached down over them, again under it where they still fit."""
        from tablepi.display.sheet import text_rect

        banner = self.sheet_warning(view, layout)
        assert banner is not None and view.warning is not None
        colour, mark = (BLUE, "ℹ") if view.warning.informational else (RED, "⚠")
        pygame.draw.rect(surface, colour, banner.bar)
        edge = banner.bar.bottom - 2 if layout.compact else banner.bar.y  # the line between it and the sheet
        pygame.draw.rect(surface, WHITE, Rect(banner.bar.x, edge, banner.bar.w, 2))
        first = banner.headline if banner.headline.lines else banner.text
        surface.blit(self.text(mark, first.size, WHITE), (banner.bar.x + layout.gap, banner.headline_box.y))
        self._draw_lines(surface, banner.headline.lines, banner.headline.size, WHITE, banner.headline_box, "left")
        self._draw_lines(surface, banner.text.lines, banner.text.size, WHITE, banner.text_box, "left")
        text = text_rect(sheet, surface.get_size())
        if not layout.compact or banner.bar.bottom <= text.y or not sheet.lines or sheet.phone is not None:
            return
        rest = Rect(text.x, banner.bar.bottom, text.w, text.bottom - banner.bar.bottom)
        if rest.h <= 0:
            return
        pygame.draw.rect(surface, FELT, rest)
        fitted = self.fit_text("  ".join(sheet.lines), layout.fonts.center, rest, min_size=layout.fonts.small)
        if fitted.fits:
            self._draw_lines(surface, fitted.lines, fitted.size, WHITE, rest)

    # ---- buttons and the bottom bar -------------------------------------------------------------------

    def _buttons(self, buttons: tuple[Button, ...], surface: pygame.Surface, layout: Layout) -> None:
        f = layout.fonts
        for button, rect in layout.button_rects(buttons):
            fill = BUTTON if button.enabled else BUTTON_OFF
            pygame.draw.rect(surface, fill, rect, border_radius=layout.radius)
            if button.suit is not None:
                color = _suit_color(button.suit, on_dark=False) if button.enabled else DIM
                self.blit_text(surface, button.label, f.button_suit, color, rect.inset(2), min_size=f.min_text,
                               kind=TextKind.LABEL)
            else:
                self.blit_text(surface, button.label, f.button, BLACK if button.enabled else DIM, rect.inset(4),
                               min_size=f.min_text, kind=TextKind.LABEL)

    def _targets(self, view: View, surface: pygame.Surface, layout: Layout) -> None:
        """While the table asks who announces: each seat that may answer has its name drawn as a button (and its
        empty card place, with the announcement's name), framed yellow (a move to make), never gold (gold is an
        announcement made)."""
        if view.kind is not ScreenKind.DEAL or view.result:
            return
        f, b = layout.fonts, layout.border
        slots = layout.slots(view.bottom_seat)
        for button, rect in layout.target_rects(view):
            assert button.seat is not None
            seat_view = view.seat(button.seat)
            name = seat_view.name if seat_view is not None else button.seat.value
            pygame.draw.rect(surface, BUTTON, rect, border_radius=layout.radius)
            pygame.draw.rect(surface, YELLOW, rect, width=b, border_radius=layout.radius)
            if rect == slots[button.seat].card:
                # the announcement's name, whole or not at all (the name beside it is the same target, and the
                # bar asks for it): a card place of the 3.5" panel has no room for "Konter" at a readable size
                label = self.fit_text(button.label, max(f.min_text, f.name * 3 // 4), rect.inset(b + 1),
                                      min_size=f.min_text)
                if label.fits:
                    self._draw_lines(surface, label.lines, label.size, BLACK, rect.inset(b + 1), kind=TextKind.LABEL)
            else:
                fitted = self.name_fit(name, f.name, rect.w - 2 * (b + 2), f.min_text)
                self._draw_lines(surface, fitted.lines, fitted.size, BLACK, rect.inset(b + 2), kind=TextKind.NAME)

    def warning_banner(self, view: View, layout: Layout) -> BannerFit | None:
        """How the warning of ``view`` is set: the headline at the readable size, the detail under it.

        The headline (what went wrong) takes one or two lines at ``fonts.bar``; the detail (what to do) shrinks
        from ``fonts.bar`` towards ``layout.warning_min``. When they do not fit the bar so, the headline's first
        lines go over the table into a box of their own just above the bottom seat's name tag (and under the side
        seats' tags), its other lines and the detail stay in the bar: the warning covers the bottom seat's card
        place and the middle of the table, never a seat's name tag (a seat's name hidden by the warning about it
        was issue 20's fault) nor a button. Tests call this to check every template in every language.
        """
        if view.warning is None:
            return None
        bar, f, g = layout.bar, layout.fonts, layout.gap
        icon_w = self.text("⚠", f.bar, WHITE).get_width()
        left = bar.x + 2 * g + icon_w
        headline, detail = view.warning.headline, view.warning.detail
        line_h = self.font(f.bar).get_linesize()

        def body(head_h: int) -> TextFit:
            room = Rect(left, 0, bar.right - left - g, max(0, bar.h - 4 - head_h))
            return self.fit_text(detail, max(layout.warning_min, f.bar * 3 // 4), room,
                                 min_size=layout.warning_min) if detail else TextFit(f.bar, (), True)

        width = bar.right - left - g
        head = self.balanced_wrap(headline, f.bar, width)
        fitted, first, above = body(len(head) * line_h), 0, None
        if not fitted.fits or len(head) * line_h > bar.h - 4:
            # The headline over the table only (in landscape the buttons to its right stay whole), between the
            # side seats' tags and the bottom seat's; as many of its lines there as the room holds.
            width = (layout.table.right if not layout.portrait else bar.right) - left - g
            head = self.balanced_wrap(headline, f.bar, width)
            room = self.warning_room(view, layout)
            first = max(1, min(len(head), (room.h - 4) // line_h))
            above = Rect(room.x, room.bottom - first * line_h - 4, room.w, first * line_h + 4)
            fitted = body((len(head) - first) * line_h)
        head_fit = TextFit(f.bar, tuple(head), all(self.font(f.bar).size(line)[0] <= width for line in head))
        rest_h = (len(head) - first) * line_h
        body_h = len(fitted.lines) * self.font(fitted.size).get_linesize() if detail else 0
        top = bar.y + max(2, (bar.h - rest_h - body_h) // 2)
        text_box = Rect(left, top + rest_h, bar.right - left - g, bar.bottom - top - rest_h - 2)
        rest_box = Rect(left, top, width, rest_h)
        if above is None:
            return BannerFit(bar, text_box, fitted, head_fit, rest_box, len(head), Rect(left, text_box.y, width, 0),
                             (bar,))
        headline_box = Rect(left, above.y + 2, width, first * line_h)
        return BannerFit(bar, text_box, fitted, head_fit, headline_box, first, rest_box, (above, bar))

    def warning_room(self, view: View, layout: Layout) -> Rect:
        """Where a warning's headline may go over the table (:meth:`warning_banner`): the table's width (the
        screen's, upright), from under the lowest tag of the top and side seats to over the bottom seat's tag."""
        g = layout.gap
        slots = layout.slots(view.bottom_seat).values()
        top = max(slot.tag.bottom for slot in slots if slot.side is not BOTTOM) + g // 2
        bottom = min(slot.tag.y for slot in slots if slot.side is BOTTOM) - g // 2
        right = layout.table.right if not layout.portrait else layout.bar.right
        return Rect(layout.bar.x, top, right - layout.bar.x, max(0, bottom - top))

    def _bar(self, view: View, surface: pygame.Surface, layout: Layout) -> None:
        bar, f, g = layout.bar, layout.fonts, layout.gap
        banner = self.warning_banner(view, layout)
        if banner is not None:
            assert view.warning is not None
            colour, mark = (BLUE, "ℹ") if view.warning.informational else (RED, "⚠")
            for box in banner.boxes:
                pygame.draw.rect(surface, colour, box)
                pygame.draw.rect(surface, WHITE, Rect(box.x, box.y, box.w, 2))
            icon = self.text(mark, f.bar, WHITE)
            surface.blit(icon, (bar.x + g, banner.headline_box.y))
            head = banner.headline.lines
            self._draw_lines(surface, head[:banner.first], f.bar, WHITE, banner.headline_box, align="left")
            self._draw_lines(surface, head[banner.first:], f.bar, WHITE, banner.rest_box, align="left")
            if banner.text.lines:
                line_h = self.font(banner.text.size).get_linesize()
                box = Rect(banner.text_box.x, banner.text_box.y, banner.text_box.w, line_h * len(banner.text.lines))
                self._draw_lines(surface, banner.text.lines, banner.text.size, WHITE, box, align="left")
        elif view.prompt:
            pygame.draw.rect(surface, BLACK, bar)
            self.blit_text(surface, view.prompt, f.bar, YELLOW, self.prompt_box(layout), min_size=f.bar * 3 // 4)
        else:
            pygame.draw.rect(surface, BLACK, bar)
        if view.hand_seat is not None and view.sheet is None:  # the bar is a key: framed as one
            pygame.draw.rect(surface, YELLOW, bar.inset(2), width=layout.border, border_radius=layout.radius)

    def prompt_box(self, layout: Layout) -> Rect:
        """Where the prompt is set (tests ask whether it fits there at the readable size)."""
        bar, g = layout.bar, layout.gap
        return Rect(bar.x + g, bar.y + 2, bar.w - 2 * g, bar.h - 4)


#: Where a word too wide for its line may break: after each hyphen or plus sign ("Marie-" / "Thérèse").
_HYPHENS = re.compile(r"(?<=[-+])(?=.)")


def _glue_numbers(words: list[str]) -> list[str]:
    """Join each word that starts with a digit to its neighbours, so a line break never separates them.

    A separator after a number (``·``) is not glued: a line may well break there.

    >>> _glue_numbers("N+S win the deal, 24 to 16 · N+S 11".split())
    ['N+S', 'win', 'the', 'deal, 24 to 16', '·', 'N+S 11']
    """
    units: list[str] = []
    previous = ""
    for word in words:
        if units and (word[:1].isdigit() or (previous[:1].isdigit() and word[:1].isalnum())):
            units[-1] = f"{units[-1]} {word}"
        else:
            units.append(word)
        previous = word
    return units


def _tally_line(surface: pygame.Surface, line: Line, x: int, top: int, bottom: int, width: int, spacing: int) -> None:
    """One line of the slate: open lines bright (added ones cyan); a struck line stays drawn, crossed out by a bold
    bar that reads from across the table, as players strike d'Lee with the chalk."""
    added = line in (Line.ADDED, Line.ADDED_STRUCK)
    if line_is_open(line):
        pygame.draw.line(surface, CYAN if added else WHITE, (x, top), (x, bottom), width)
        return
    faded = (40, 110, 135) if added else (95, 120, 108)
    pygame.draw.line(surface, faded, (x, top), (x, bottom), width)
    reach = spacing * 3 // 5
    mid = (top + bottom) // 2
    rise = (bottom - top) // 4
    pygame.draw.line(surface, CYAN if added else AMBER, (x - reach, mid + rise), (x + reach, mid - rise),
                     max(4, width * 3 // 2))


def _dashed_rect(surface: pygame.Surface, color: Color, rect: Rect, width: int, dash: int) -> None:
    """A dashed outline: a card that may still turn out to be a show, not a play."""
    x0, y0, x1, y1 = rect.x, rect.y, rect.right - 1, rect.bottom - 1
    for x in range(x0, x1, 2 * dash):
        pygame.draw.line(surface, color, (x, y0), (min(x + dash, x1), y0), width)
        pygame.draw.line(surface, color, (x, y1), (min(x + dash, x1), y1), width)
    for y in range(y0, y1, 2 * dash):
        pygame.draw.line(surface, color, (x0, y), (x0, min(y + dash, y1)), width)
        pygame.draw.line(surface, color, (x1, y), (x1, min(y + dash, y1)), width)


class Display:
    """A renderer bound to a surface that redraws only when the View changes.

    ``flip`` is called after each redraw (``pygame.display.flip`` on a real screen); on a plain surface
    pass nothing.
    """

    def __init__(self, surface: pygame.Surface, renderer: Renderer | None = None,
                 flip: Callable[[], None] | None = None) -> None:
        self.surface = surface
        self.renderer = renderer or Renderer()
        self._flip = flip
        self._last: View | None = None
        self.redraws = 0

    @property
    def last(self) -> View | None:
        return self._last

    def show(self, view: View, force: bool = False) -> bool:
        """Draw ``view`` unless it equals the one on screen. Returns whether it drew."""
        if not force and view == self._last:
            return False
        self.renderer.draw(view, self.surface)
        self._last = view
        self.redraws += 1
        if self._flip is not None:
            self._flip()
        return True

    def invalidate(self) -> None:
        """Forget what is on screen (after the window was exposed or resized), so the next show draws."""
        self._last = None


def _ensure_headless() -> None:
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    os.environ.setdefault("SDL_AUDIODRIVER", "dummy")


def render_surface(view: View, size: tuple[int, int], renderer: Renderer | None = None) -> pygame.Surface:
    """A new surface of ``size`` with ``view`` drawn on it (no window needed)."""
    _ensure_headless()
    surface = pygame.Surface(size)
    (renderer or Renderer()).draw(view, surface)
    return surface


def render_to_png(view: View, path: str | os.PathLike[str], size: tuple[int, int] = (800, 480),
                  renderer: Renderer | None = None) -> Path:
    """Draw ``view`` at ``size`` and save it as a PNG (for ``tablepi screenshot`` and the reference images)."""
    target = Path(path)
    surface = render_surface(view, size, renderer)
    if target.parent.exists() and not target.parent.is_dir():
        raise RenderError(f"{target.parent}: not a folder, cannot write {target.name} there")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        pygame.image.save(surface, str(target))
    except (OSError, pygame.error) as err:
        # A folder that is a file, a read-only place, a full disk: one line naming the path, not a traceback.
        why = err.strerror if isinstance(err, OSError) and err.strerror else str(err)
        raise RenderError(f"{target}: cannot write the PNG: {why}") from err
    return target
