"""No name and no label is ever drawn smaller than its layout's ``Fonts.min_text``, and no warning covers a seat's
name tag, on any screen.

Issue 20: on the 3.5" panels long names ("Marie-Thérèse", "Marie-Christine W") shrank to 8 px on the deal form's
keys and the correction sheet, and the French "Gagnants" row label to 9 px at 320x480; names on the seats' tags
shrank to 3/5 of their size. Now a name or a label that does not fit its box wraps (after a hyphen or a plus too)
and is then shortened with "…", at ``min_text`` at the least (docs/display.md, "Reading distance").

At 480x320 a revoke warning grew over the bottom seat's name tag (and on every layout a long one did): a warning's
headline that the bar has no room for now goes over the table just above that tag, never over it.

Checked on the renderer's own record of the lines it drew (:attr:`Renderer.drawn`) and of the boxes a warning
covers (:meth:`Renderer.warning_banner`), for every screen of whole
simulated matches, every hand-entry sheet walked key by key, every warning and every sample moment, with long
names seated, in every layout and language.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Iterator

import pygame
import pytest

from tablepi.display.i18n import LANGUAGES, translator
from tablepi.display.layout import PANELS, Rect, layout_for
from tablepi.display.render import Renderer, TextKind
from tablepi.display.scene import Scene
from tablepi.display.sheet import key_rects, sheet_for
from tablepi.display.view import DisplaySettings, ScreenKind, View
from tablepi.display.viewmodel import build_view
from tablepi.rules import HouseRules
from tablepi.rules.seats import Seat
from tablepi.table import Button, Table
from tablepi.table.simulate import simulate_match
from tests.display.samples import SAMPLES, sample
from tests.display.test_hitmap import _starts, _walks
from tests.display.test_legibility import CODES, _warning_view

SIZES = [panel.size for panel in PANELS.values()]
#: Long names as players type them: two of them alike but for their last letter.
LONG = {Seat.N: "Marie-Christine W", Seat.E: "Marie-Thérèse", Seat.S: "Guillaume", Seat.W: "Marie-Christine X"}


def _match_views(language: str) -> Iterator[View]:
    """The deal, slate and match-won screens of a whole simulated match with mistakes, long names seated, as the
    table passes through them (and each "who announces?" the panel's buttons would ask)."""
    settings = DisplaySettings(language=language, bottom_seat=Seat.E, names=LONG)
    script = simulate_match(2, HouseRules(start_lines=3), mistakes=True)
    table = Table(script.rules, script.dealer, script.config)
    previous = None
    for event in script.events:
        if isinstance(event, Button) and event.name.announcement is not None and event.seat is not None:
            trial = copy.deepcopy(table)
            yield build_view(Scene(trial.apply(Button(event.time, event.name)), settings))
        view = build_view(Scene(table.apply(event), settings))
        if view != previous:
            yield view
        previous = view


def _sheet_views(language: str) -> Iterator[View]:
    tr = translator(language)
    history = tuple(f"deal {i}" for i in range(13))
    for panel in _starts():
        yield View(ScreenKind.DEAL, sheet=sheet_for(panel, tr, LONG, history))
    for _, _, after in _walks(random.Random(20), steps=12):
        yield View(ScreenKind.DEAL, sheet=sheet_for(after, tr, LONG, history))


def _check(view: View, size: tuple[int, int], renderer: Renderer, surface: pygame.Surface, why: str) -> int:
    """Draw ``view``; every name and label it drew is at least ``min_text`` and inside the screen (and a key's
    label inside its key), and its warning's boxes cover no seat's name tag. Returns the smallest size of a name
    or label drawn (0: none drawn)."""
    layout = layout_for(size)
    renderer.draw(view, surface)
    banner = renderer.warning_banner(view, layout) if view.sheet is None and view.seats else None
    for box in banner.boxes if banner is not None else ():
        for slot in layout.slots(view.bottom_seat).values():
            tag = slot.tag
            apart = box.y >= tag.bottom or box.bottom <= tag.y or box.x >= tag.right or box.right <= tag.x
            assert apart, f"{why}: the warning's box {box} covers {slot.side.name}'s name tag {tag}"
    screen = Rect(0, 0, *size)
    keys = [rect for _, rect in key_rects(view.sheet, size)] if view.sheet is not None else []
    smallest = 0
    for drawn in renderer.drawn:
        if drawn.kind is TextKind.TEXT:
            continue
        assert drawn.size >= layout.fonts.min_text, f"{why}: {drawn}"
        box = drawn.box
        assert screen.x <= box.x and box.right <= screen.right, f"{why}: {drawn} out of the screen"
        inside = [k for k in keys if k.contains(box.x + box.w // 2, box.y + box.h // 2)]
        for key in inside:
            assert key.x <= box.x and box.right <= key.right, f"{why}: {drawn} runs out of its key {key}"
        smallest = min(smallest or drawn.size, drawn.size)
    return smallest


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("language", LANGUAGES)
def test_no_name_or_label_is_drawn_under_the_layouts_minimum_and_no_warning_covers_a_name(
        size: tuple[int, int], language: str, renderer: Renderer) -> None:
    surface = pygame.Surface(size)
    checked = 0
    for view in _match_views(language):
        _check(view, size, renderer, surface, f"{language} match {view.kind} {view.prompt!r}")
        checked += 1
    for view in _sheet_views(language):
        assert view.sheet is not None
        _check(view, size, renderer, surface, f"{language} sheet {view.sheet.title!r}")
        checked += 1
    for code in CODES:
        _check(_warning_view(language, code, LONG), size, renderer, surface, f"{language} warning {code}")
    for name in SAMPLES:
        _check(sample(name, language), size, renderer, surface, f"{language} sample {name}")
    assert checked > 100


@pytest.mark.parametrize("family", ["small", "upright"])
def test_long_names_on_the_deal_form_are_wrapped_or_shortened_at_a_readable_size(family: str,
                                                                                 renderer: Renderer) -> None:
    """The 3.5" panels' deal form with "Marie-Thérèse" and "Marie-Christine W" seated: every seat's key shows its
    name from its first letters on, at ``min_text`` or larger, and the French "Gagnants" label is whole."""
    from tablepi.display import panels as pn

    size = PANELS[family].size
    layout = layout_for(size)
    view = View(ScreenKind.DEAL, sheet=sheet_for(pn.DealForm(Seat.N), translator("fr"), LONG))
    renderer.draw(view, pygame.Surface(size))
    drawn = renderer.drawn
    assert min(d.size for d in drawn if d.kind is not TextKind.TEXT) >= layout.fonts.min_text
    assert any(d.text == "Gagnants" for d in drawn)
    for name in LONG.values():
        starts = [d for d in drawn if name.startswith(d.text.rstrip("…")) and d.text[:5] == name[:5]]
        assert starts, (name, [d.text for d in drawn])


def test_the_one_fitting_wraps_a_name_after_its_hyphen_and_shortens_what_cannot_fit(renderer: Renderer) -> None:
    two = renderer.fit_text("Marie-Thérèse", 15, Rect(0, 0, 60, 40), min_size=12)
    assert two.fits and two.lines == ("Marie-", "Thérèse") and two.size >= 12
    one = renderer.fit_text("Marie-Christine W", 16, Rect(0, 0, 90, 19), min_size=12)
    assert not one.fits and one.size == 12 and len(one.lines) == 1 and one.lines[0].startswith("Marie-")
    assert one.lines[0].endswith("…") and renderer.font(12).size(one.lines[0])[0] <= 90
    assert renderer.fit_text("Jos", 16, Rect(0, 0, 90, 19), min_size=12).lines == ("Jos",)


def test_a_warning_sentence_never_breaks_inside_a_word_that_fits(renderer: Renderer) -> None:
    """Only a word wider than the whole line breaks at its hyphen: "Marie-Thérèse" stays whole in a sentence."""
    lines = renderer.wrap("Marie-Thérèse revoked in trick 3", 16, 150)
    assert any("Marie-Thérèse" in line for line in lines), lines
