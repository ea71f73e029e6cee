"""The pygame renderer: draws every screen, says what it means in colour, redraws only on change."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pygame
import pytest

from tablepi.display import fonts
from tablepi.display.fonts import FontNotFound, find_font
from tablepi.display.layout import layout_for
from tablepi.display.render import RED, YELLOW, Display, Renderer, render_surface, render_to_png
from tablepi.display.view import ScreenKind, View
from tablepi.errors import TablepiError
from tablepi.rules.seats import Seat
from tests.display.samples import SAMPLES, sample

SIZES = [(800, 480), (480, 320), (1024, 600), (320, 240)]


def share_of(surface: pygame.Surface, rect: tuple[int, int, int, int], color: tuple[int, int, int]) -> float:
    """The share of pixels of ``rect`` that are exactly ``color``."""
    x0, y0, w, h = rect
    hits = sum(1 for x in range(x0, x0 + w, 2) for y in range(y0, y0 + h, 2)
               if tuple(surface.get_at((x, y)))[:3] == color)
    return hits / (((w + 1) // 2) * ((h + 1) // 2))


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("lang", ["lb", "de", "fr", "en"])
def test_every_sample_draws_in_every_language_and_size(size: tuple[int, int], lang: str,
                                                       renderer: Renderer) -> None:
    for name in SAMPLES:
        surface = render_surface(sample(name, lang), size, renderer)
        assert surface.get_size() == size


def test_a_warning_turns_the_bottom_bar_red_and_the_prompt_bar_is_black_otherwise(renderer: Renderer) -> None:
    bar = layout_for((800, 480)).bar
    warned = render_surface(sample("warning"), (800, 480), renderer)
    calm = render_surface(sample("mid_trick"), (800, 480), renderer)
    assert share_of(warned, tuple(bar.inset(3)), RED) > 0.6
    assert share_of(calm, tuple(bar.inset(3)), RED) == 0


@pytest.mark.parametrize("bottom", list(Seat))
def test_the_seat_to_play_is_marked_yellow_where_it_sits(bottom: Seat, renderer: Renderer) -> None:
    base = sample("mid_trick")  # W is to play
    view = replace(base, bottom_seat=bottom)
    surface = render_surface(view, (800, 480), renderer)
    slots = layout_for((800, 480)).slots(bottom)
    assert share_of(surface, tuple(slots[Seat.W].tag), YELLOW) > 0.2
    for seat in (Seat.N, Seat.E, Seat.S):
        assert share_of(surface, tuple(slots[seat].tag), YELLOW) < 0.05


def test_the_warned_seat_is_marked_red(renderer: Renderer) -> None:
    surface = render_surface(sample("warning"), (800, 480), renderer)
    slots = layout_for((800, 480)).slots(Seat.S)
    tag = slots[Seat.E].tag
    right_part = (tag.right - tag.w // 3, tag.y, tag.w // 3, tag.h)  # E's tag hugs the right edge
    assert share_of(surface, right_part, RED) > 0.3


def test_render_to_png_writes_a_png_of_the_asked_size(tmp_path: Path, renderer: Renderer) -> None:
    path = render_to_png(sample("slate", "lb"), tmp_path / "sub" / "slate.png", (480, 320), renderer)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert pygame.image.load(str(path)).get_size() == (480, 320)


def test_display_redraws_only_when_the_view_changes(renderer: Renderer) -> None:
    flips: list[int] = []
    display = Display(pygame.Surface((800, 480)), renderer, flip=lambda: flips.append(1))
    assert display.show(sample("mid_trick"))
    assert not display.show(sample("mid_trick"))  # an equal, freshly built view
    assert display.show(sample("warning"))
    assert display.show(sample("warning"), force=True)
    display.invalidate()
    assert display.show(sample("warning"))
    assert display.redraws == len(flips) == 4
    assert display.last == sample("warning")


def test_display_pixels_change_with_the_view(renderer: Renderer) -> None:
    surface = pygame.Surface((480, 320))
    display = Display(surface, renderer)
    display.show(sample("idle"))
    before = pygame.image.tobytes(surface, "RGB")
    display.show(View(ScreenKind.IDLE, title="Konter a Matt", prompt="Lay any card on a zone to start a match"))
    assert pygame.image.tobytes(surface, "RGB") != before


def test_the_font_has_the_suit_symbols() -> None:
    pygame.font.init()
    font = pygame.font.Font(str(find_font()), 40)
    missing = font.metrics("\ue000")[0]  # a private-use code point: the "no glyph" box
    for symbol in "♠♥♦♣⚠":
        assert font.metrics(symbol)[0] != missing, symbol
    assert "Condensed" not in find_font(bold=True).name and "Bold" in find_font(bold=True).name


def test_font_can_be_found_in_a_given_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    copy = tmp_path / "DejaVuSans.ttf"
    copy.write_bytes(find_font().read_bytes())
    monkeypatch.setenv(fonts.FONT_ENV, str(tmp_path))
    assert find_font() == copy


def test_missing_font_names_the_package_to_install(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(fonts, "_DIRS", (str(tmp_path),))
    monkeypatch.setattr(fonts, "_fc_match", lambda bold: None)
    monkeypatch.setattr(fonts, "_pygame_match", lambda bold: None)
    monkeypatch.delenv(fonts.FONT_ENV, raising=False)
    with pytest.raises(FontNotFound, match="fonts-dejavu-core") as info:
        find_font()
    assert isinstance(info.value, TablepiError) and isinstance(info.value, FileNotFoundError)


def test_condensed_and_wrong_weight_fonts_are_refused(tmp_path: Path) -> None:
    for name in ("DejaVuSansCondensed.ttf", "DejaVuSans-Bold.ttf"):
        (tmp_path / name).write_bytes(b"x")
    assert fonts._usable(tmp_path / "DejaVuSansCondensed.ttf", bold=False) is None
    assert fonts._usable(tmp_path / "DejaVuSans-Bold.ttf", bold=False) is None
    assert fonts._usable(tmp_path / "DejaVuSans-Bold.ttf", bold=True) == tmp_path / "DejaVuSans-Bold.ttf"


@pytest.mark.parametrize("lang", ["lb", "de", "fr", "en"])
def test_upright_the_trump_order_reminder_has_a_line_of_its_own_at_its_full_size(lang: str,
                                                                                 renderer: Renderer) -> None:
    """Before: on the Touch Display 2 upright (720x1280) the reminder shared the header's one line with the trick
    count and the Menu button and shrank towards 3/5 of its size (capitals of about 16 px)."""
    layout = layout_for((720, 1280))
    band = layout.reminder
    assert band is not None and band.y >= layout.header.bottom
    for name in ("trump_chosen", "mid_trick"):
        view = sample(name, lang)
        assert view.trump is not None and view.trump.suit is not None
        assert renderer.reminder_size(view, layout) == layout.fonts.reminder
        assert renderer.font(layout.fonts.reminder).size(view.trump.reminder)[0] <= band.w
        for slot in layout.slots(view.bottom_seat).values():  # nothing of the table under it
            assert min(slot.tag.y, slot.card.y, slot.chip.y) >= band.bottom
        assert layout.center.y >= band.bottom


@pytest.mark.parametrize("lang", ["lb", "de", "fr", "en"])
def test_the_slate_never_draws_the_line_between_the_teams_through_a_name(lang: str, renderer: Renderer) -> None:
    """Before: at 480x320 the review's lines left each team's row less than its head line's height, and the line
    between the teams ran through the first team's name (and the second name sat on it)."""
    for size in ((480, 320), (800, 480), (1280, 720), (720, 1280)):
        layout = layout_for(size)
        for name in ("slate", "review", "match_won"):
            slate = sample(name, lang).slate
            assert slate is not None
            plan = renderer.slate_plan(slate, layout)
            row_h = (plan.body.h - layout.gap) // 2
            assert row_h >= plan.head_h, f"{name} {lang} {size}: rows of {row_h} px under names of {plan.head_h}"
            below = [r for r in (plan.result, plan.review) if r is not None]
            assert all(r.y >= plan.body.bottom and r.bottom <= layout.table.bottom for r in below), name


@pytest.mark.parametrize("lang", ["lb", "de", "fr", "en"])
def test_a_sheets_lines_never_run_over_each_other(lang: str, renderer: Renderer) -> None:
    """Before: at 480x320 the answer sheet's deal in words (Luxembourgish, German, French) wrapped in its one line's
    place and ran over "Both teams must accept." under it."""
    from tests.display.samples import SHEET_SAMPLES

    for size in ((480, 320), (800, 480), (1280, 720), (720, 1280)):
        layout = layout_for(size)
        for name in SHEET_SAMPLES:
            sheet = sample(name, lang).sheet
            if sheet is None or not sheet.lines or sheet.phone is not None:
                continue
            for rect, fitted in renderer.sheet_text(sheet, layout, size):
                assert fitted.fits, f"{name} {lang} {size}: {fitted.lines} does not fit {rect}"
