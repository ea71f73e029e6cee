"""Every warning is readable across the table and nothing the learner needs is cut off, on both screens.

The floor (``Layout.warning_min``: 18 px on 480x320, 22 px on 800x480) is argued in docs/display.md. The renderer
reports how it set a text (:meth:`Renderer.warning_banner`, :meth:`Renderer.learner_plan`), so these tests
check the very numbers it draws with, and draw each screen as well.
"""

from __future__ import annotations

from dataclasses import replace

import pygame
import pytest

from tablepi.display import texts as tx
from tablepi.display.i18n import LANGUAGES, translator
from tablepi.display.layout import Rect, layout_for
from tablepi.display.render import RED, Renderer, render_surface
from tablepi.display.view import Action, LearnerView, View, WarningBanner, trump_order
from tablepi.rules.cards import Card, Suit
from tablepi.rules.seats import Seat
from tests.display.samples import sample

SIZES = ((480, 320), (800, 480), (1280, 720), (720, 1280), (320, 480))
CODES = (*tx.WARNING_TEMPLATES, *tx.WARNING_VARIANTS)
#: Long but ordinary names: every seat, so whichever seat a warning names is long.
JEAN_CLAUDE = dict.fromkeys(Seat, "Jean-Claude")
MARIE_THERESE = dict.fromkeys(Seat, "Marie-Thérèse")
#: The widest realistic parameters: a two-character rank, trick and rule numbers of two digits.
PARAMS = {"seat": Seat.E, "card": Card.parse("TC"), "trick": 4, "rule": 13, "announcement": "Konter a Matt",
          "expected": Seat.N, "holder": Seat.W, "led": Card.parse("TH"), "held": "♥10 ♥K"}


def _warning_view(lang: str, code: str, names: dict[Seat, str]) -> View:
    tr = translator(lang)
    text = tx.warning_text(tr, code, PARAMS, "ENGLISH FALLBACK", names)
    assert text != "ENGLISH FALLBACK", f"{lang} {code}: the template did not fill"
    return replace(sample("warning", lang), warning=WarningBanner(code, text, Seat.E))


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_warning_keeps_its_headline_large_and_its_detail_at_the_floor(lang: str, size: tuple[int, int],
                                                                           renderer: Renderer) -> None:
    """With names like Jean-Claude and Marie-Thérèse: the headline at the readable size, the rest at or above the
    floor, nothing clipped, no word lost; a headline the bar has no room for goes over the table, never over a
    seat's name tag nor the buttons."""
    layout = layout_for(size)
    for names in (JEAN_CLAUDE, MARIE_THERESE):
        for code in CODES:
            view = _warning_view(lang, code, names)
            banner = renderer.warning_banner(view, layout)
            assert banner is not None and view.warning is not None
            assert banner.headline.size == layout.fonts.bar and banner.headline.fits, (code, banner.headline)
            assert len(banner.headline.lines) <= 4, (lang, code, size, banner.headline)
            assert banner.text.fits and banner.text.size >= layout.warning_min, (lang, code, size, banner.text)
            drawn = " ".join((*banner.headline.lines, *banner.text.lines)).split()
            assert drawn == view.warning.text.split()
            assert banner.bar == layout.bar and banner.boxes[-1] == layout.bar
            for box in banner.boxes[:-1]:
                assert box.right <= layout.table.right or layout.portrait, (code, box)
                for slot in layout.slots(view.bottom_seat).values():
                    assert not _overlap(box, slot.tag), (lang, code, size, box, slot)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_warning_over_any_sheet_is_whole_readable_and_covers_no_key(lang: str, size: tuple[int, int],
                                                                    renderer: Renderer) -> None:
    """Issue 20: at 480x320 a warning over a sheet showed only its headline (the dead reader's instructions were
    cut), and on the other layouts a bar that needed more lines grew up over the sheet's keys. Every template, in
    every language, over every sheet: every word drawn, none under ``warning_min``, over no control, and the
    sheet's controls where they are without it; drawn, the band is the warning's colour."""
    from tablepi.display.sheet import sheet_for
    from tablepi.display.touch import hit_map
    from tests.display.test_hitmap import NAMES, _starts

    layout = layout_for(size)
    tr = translator(lang)
    history = tuple(f"deal {i}" for i in range(13))
    sheets = [sheet_for(panel, tr, NAMES, history) for panel in _starts()]
    for names in (JEAN_CLAUDE, MARIE_THERESE):
        for code in CODES:
            view = _warning_view(lang, code, names)
            assert view.warning is not None
            banner = renderer.sheet_warning(view, layout)
            assert banner is not None
            assert banner.text.fits and banner.headline.fits, (code, banner)
            assert min(banner.text.size, banner.headline.size or banner.text.size) >= layout.warning_min
            drawn = " ".join((*banner.headline.lines, *banner.text.lines)).split()
            assert drawn == view.warning.text.split(), (code, drawn)
            inside = banner.bar.y <= banner.headline_box.y and banner.text_box.bottom <= banner.bar.bottom
            assert inside and banner.bar.right <= size[0] and banner.bar.bottom <= size[1], (code, banner)
            for sheet in sheets:
                controls = hit_map(replace(view, sheet=sheet), size)
                assert controls == hit_map(replace(view, sheet=sheet, warning=None), size)
                for control in controls:
                    c = control.rect
                    apart = (c.bottom <= banner.bar.y or c.y >= banner.bar.bottom or c.right <= banner.bar.x
                             or c.x >= banner.bar.right)
                    assert apart, (code, sheet.title, control.name, c, banner.bar)
    view = _warning_view(lang, "reader_offline", MARIE_THERESE)
    banner = renderer.sheet_warning(view, layout)
    assert banner is not None
    surface = render_surface(replace(view, sheet=sheets[3]), size, renderer)  # the keyboard
    assert surface.get_at((banner.bar.x + 1, banner.bar.y + banner.bar.h // 2))[:3] == RED


def _overlap(a: Rect, b: Rect) -> bool:
    return a.x < b.right and b.x < a.right and a.y < b.bottom and b.y < a.bottom


def test_a_headline_the_bar_has_no_room_for_is_drawn_red_over_the_table_and_leaves_names_and_buttons(
        renderer: Renderer) -> None:
    size = (480, 320)
    layout = layout_for(size)
    long = "Wolfgang-Amadeus hat mehr als sechs Karten angetippt. Prüft die Hand am Tisch, dann Bestätigen."
    view = replace(sample("warning", "de"), warning=WarningBanner("too_many_cards", long, Seat.E))
    banner = renderer.warning_banner(view, layout)
    assert banner is not None and len(banner.boxes) == 2
    above = banner.boxes[0]
    assert banner.text.size >= layout.warning_min and banner.text.fits
    surface = render_surface(view, size, renderer)
    row_above = above.y + above.h // 2
    assert surface.get_at((layout.table.w // 2 + 40, row_above))[:3] in (RED, (255, 255, 255))
    assert surface.get_at((layout.panel.x + 2, row_above))[:3] != RED  # the buttons stay whole
    tag = layout.slots(view.bottom_seat)[view.bottom_seat].tag  # the bottom seat's name, between the two
    assert surface.get_at((tag.x + 1, tag.y + tag.h // 2))[:3] != RED
    short = replace(sample("warning", "de"), warning=WarningBanner("not_now", "Dieser Knopf tut jetzt nichts.", None))
    normal = render_surface(short, size, renderer)
    assert normal.get_at((layout.table.w // 2 + 40, row_above))[:3] != RED


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_warning_renders_in_every_language(lang: str, size: tuple[int, int], renderer: Renderer) -> None:
    """Drawn for real: the bar is red and the surface keeps its size whatever the sentence."""
    for code in CODES:
        surface = render_surface(_warning_view(lang, code, MARIE_THERESE), size, renderer)
        assert surface.get_size() == size
        bar = layout_for(size).bar
        assert surface.get_at((bar.right - 3, bar.bottom - 5))[:3] == RED


def test_fit_text_says_when_a_text_cannot_fit(renderer: Renderer) -> None:
    fitted = renderer.fit_text("a sentence far too long for a tiny box " * 4, 18, Rect(0, 0, 60, 20), min_size=12)
    assert fitted.size == 12 and not fitted.fits
    ok = renderer.fit_text("Take it away.", 18, Rect(0, 0, 400, 30), min_size=12)
    assert ok.size == 18 and ok.fits and ok.lines == ("Take it away.",)


# ---- the learner pane --------------------------------------------------------------------------------------


def _learner_view(lang: str, buttons: tuple[Action, ...], trumps: int,
                  teams: tuple[str, str] = ("Jean-Claude+Marie", "Jos+Pit")) -> View:
    tr = translator(lang)
    out = trump_order(Suit.CLUBS)[:trumps]
    learner = LearnerView(
        points_label=tx.points_label(tr, {teams[0]: 28, teams[1]: 11}),
        trumps_out_label=tx.trumps_out_label(tr), trumps_out=out, in_play_label=tx.in_play_label(tr, 24),
    )
    return replace(sample("mid_trick", lang), learner=learner, buttons=tuple(tx.button(tr, a) for a in buttons))


BUTTON_SETS = ((Action.UNDO,), (Action.CLAIM, Action.UNDO))


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("lang", LANGUAGES)
def test_learner_pane_shows_every_trump_still_out(lang: str, size: tuple[int, int], renderer: Renderer) -> None:
    layout = layout_for(size)
    for buttons in BUTTON_SETS:
        for trumps in (9, 5, 1):
            view = _learner_view(lang, buttons, trumps)
            plan = renderer.learner_plan(view, layout)
            assert plan is not None and plan.all_trumps, (lang, size, buttons, trumps, plan)
            shown = [card for line in plan.lines for card in line.cards]
            assert shown == list(view.learner.trumps_out)  # type: ignore[union-attr]
            font = renderer.font(layout.fonts.small)
            inner = plan.box.inset(layout.gap // 2 + 2)
            assert len(plan.lines) * font.get_linesize() <= inner.h
            assert all(font.size(line.text)[0] <= inner.w for line in plan.lines if line.cards)
            assert layout.table.contains(plan.box.x, plan.box.y) and plan.box.bottom <= layout.table.bottom
            render_surface(view, size, renderer)


def test_learner_pane_keeps_points_and_count_when_there_is_room(renderer: Renderer) -> None:
    """On the 7" screen nothing is dropped (short team labels); on the small one the count of cards in play
    goes first."""
    view = _learner_view("en", BUTTON_SETS[1], 9, ("N+S", "E+W"))
    big = renderer.learner_plan(view, layout_for((720, 1280)))
    assert big is not None
    texts = " ".join(line.text for line in big.lines)
    assert "Trumps still out" in texts and big.all_trumps
    small = renderer.learner_plan(view, layout_for((480, 320)))
    assert small is not None and small.all_trumps
    assert "still in play" not in " ".join(line.text for line in small.lines)


def test_learner_pane_draws_the_last_trump(renderer: Renderer) -> None:
    """The last row of trumps (♣10 ♣9 at the bottom of the order) is on the small screen, in its colour."""
    size = (480, 320)
    layout = layout_for(size)
    view = _learner_view("de", BUTTON_SETS[1], 9)
    plan = renderer.learner_plan(view, layout)
    assert plan is not None
    surface = render_surface(view, size, renderer)
    inner = plan.box.inset(layout.gap // 2 + 2)
    line_h = renderer.font(layout.fonts.small).get_linesize()
    last = len(plan.lines) - 1
    assert plan.lines[last].cards[-1] == Card.parse("9C")
    strip = pygame.Rect(inner.x, inner.y + last * line_h, inner.w, line_h)
    colours = {surface.get_at((x, y))[:3] for x in range(strip.x, strip.right) for y in range(strip.y, strip.bottom)}
    assert (255, 255, 255) in colours  # the white clubs of the last row were drawn


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("lang", LANGUAGES)
def test_learner_pane_is_whole_or_absent_beside_the_announce_buttons(lang: str, size: tuple[int, int],
                                                                     renderer: Renderer) -> None:
    """Before his first card a player may announce: three more buttons. The pane then shows every trump or none,
    never the first few (which would read as "these are all the trumps still out")."""
    layout = layout_for(size)
    announce = (Action.ANNOUNCE_MATT, Action.ANNOUNCE_KONTER, Action.ANNOUNCE_KONTER_A_MATT)
    for buttons in ((*announce, Action.UNDO), (*announce, Action.CLAIM, Action.UNDO)):
        view = _learner_view(lang, buttons, 9)
        plan = renderer.learner_plan(view, layout)
        assert plan is not None
        shown = [card for line in plan.lines for card in line.cards]
        assert shown in ([], list(view.learner.trumps_out)), (lang, size, buttons, plan)  # type: ignore[union-attr]
        assert plan.all_trumps == (shown == list(view.learner.trumps_out))  # type: ignore[union-attr]
