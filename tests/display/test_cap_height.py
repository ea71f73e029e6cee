"""Readable from the far chair, measured from the pixels.

Every sample screen in every language on every designed layout is drawn; the text players must read at a glance
(the prompt, the warning headline, the trick's winner — named in the sweep prompt — and each team's open lines on
the slate) is found by its colour in its box, and its capital height is measured from the drawn glyphs: the
shortest of the tall glyphs of its first line (capitals and digits; a lowercase ascender is taller than a capital,
so a line without capitals can only overstate by about 4 %). On the 7" panels it must be at least 12 arcminutes
at 1.5 m (5.2 mm); on the 3.5" panel at least 12 arcminutes at 0.8 m.
"""

from __future__ import annotations

from dataclasses import replace

import pygame
import pytest

from tablepi.display.i18n import LANGUAGES
from tablepi.display.layout import PANELS, Rect, layout_for
from tablepi.display.render import BLACK, RED, WHITE, YELLOW, Renderer, render_surface
from tests.display.samples import SAMPLES, sample

#: Reading distance each layout must reach at 12 arcminutes (metres).
REACH = {"portrait": 1.5, "hd": 1.5, "wide": 1.5, "small": 0.8, "upright": 0.8}


def cap_height(surface, box: Rect, ink: tuple[int, int, int], ground: tuple[int, int, int]) -> int:  # type: ignore[no-untyped-def]
    """The capital height of the first text line drawn in ``ink`` inside ``box``, in pixels.

    The glyphs are the connected shapes of pixels within 48 of ``ink`` in each channel (so neither the white
    text nor the amber strokes beside a yellow one count); the baseline is the bottom most of them share (±1 px),
    and the cap height the shortest glyph standing on it among those at least 0.9 of the tallest.
    """
    del ground  # the ink alone is matched: antialiased edges fall out, which can only understate the height
    sub = surface.subsurface(pygame.Rect(*box))
    mask = pygame.mask.from_threshold(sub, (*ink, 255), (48, 48, 48, 255))
    glyphs = [r for r in mask.get_bounding_rects() if r.h >= 4]
    assert glyphs, "no text of that colour there"
    first_top = min(r.y for r in glyphs)
    line = [r for r in glyphs if r.y < first_top + max(r2.h for r2 in glyphs) // 2]  # the first line's glyphs
    bottoms = [r.bottom for r in line]
    baseline = min(set(bottoms), key=lambda b: (-sum(abs(o - b) <= 1 for o in bottoms), b))
    heights = [baseline - r.y for r in line if abs(r.bottom - baseline) <= 1]
    tall = [h for h in heights if h >= 0.9 * max(heights)]
    return min(tall)


def _targets(name: str, lang: str, size: tuple[int, int], renderer: Renderer):  # type: ignore[no-untyped-def]
    """(what, box, ink, ground) of the must-read texts of one sample screen."""
    view = sample(name, lang)
    layout = layout_for(size)
    out = []
    if view.sheet is not None:
        pass  # a hand-entry sheet lies over the table and its bar
    elif view.warning is not None:
        banner = renderer.warning_banner(view, layout)
        assert banner is not None
        out.append(("warning headline", banner.headline_box, WHITE, RED))
    elif view.prompt:
        what = "trick winner (sweep prompt)" if name == "deal_result" else "prompt"
        out.append((what, layout.bar.inset(2), YELLOW, BLACK))
    return view, out


@pytest.mark.parametrize("family", list(PANELS))
@pytest.mark.parametrize("lang", LANGUAGES)
def test_must_read_text_has_12_arcminute_capitals(family: str, lang: str, renderer: Renderer) -> None:
    panel = PANELS[family]
    size = panel.size
    need_px = round(REACH[family] * 1000 * 0.0034907, 1) / panel.mm_per_px  # 5.2 mm; 2.8 mm at 0.8 m
    measured = []
    for name in SAMPLES:
        if name == "choose_seat":  # "Qui annonce ?": one capital, a tailed Q; set at fonts.bar (test_seat_targets)
            continue
        view, targets = _targets(name, lang, size, renderer)
        surface = render_surface(view, size, renderer)
        for what, box, ink, ground in targets:
            cap = cap_height(surface, box, ink, ground)
            measured.append((what, name, cap))
            assert cap >= need_px, f"{family} {lang} {name}: {what} capitals {cap} px < {need_px:.1f} px"
        if view.slate is not None and view.sheet is None:
            for row_view, cap in _open_lines_caps(view, size, renderer):
                measured.append(("open lines", name, cap))
                assert cap >= need_px, f"{family} {lang} {name}: open lines of {row_view} {cap} px < {need_px:.1f}"
    assert measured


def _open_lines_caps(view, size, renderer):  # type: ignore[no-untyped-def]
    """The "7 open" counts of the slate rows, in each row's head strip (the slate drawn without its result)."""
    slate = view.slate
    bare = replace(view, prompt="", warning=None, slate=replace(slate, last_result="", next_trumps="", review=()))
    surface = render_surface(bare, size, renderer)
    layout = layout_for(size)
    t, g = layout.table, layout.gap
    body = Rect(t.x + g, t.y + g, t.w - 2 * g, t.h - 2 * g)
    row_h = (body.h - g) // 2
    head_h = renderer.font(layout.fonts.slate.count).get_linesize()
    out = []
    for i, row in enumerate(slate.rows):
        if row.open_count:
            box = Rect(body.x, body.y + i * (row_h + g), body.w, head_h)
            out.append((row.label, cap_height(surface, box, YELLOW, (6, 44, 26))))
    return out
