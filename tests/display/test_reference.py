"""Reference screenshots: every key screen, every size, English and Luxembourgish; the review in all four languages.

The PNGs under tests/display/reference/ were looked at by a person and judged readable across a bar table.
A test renders the same View again and compares it with a tolerance: the mean absolute difference per colour
channel (0-255) must stay below ``MAX_MEAN_DIFF``, which absorbs anti-aliasing changes between FreeType
versions but not a moved card, a missing word or a changed colour.

To regenerate after an intended change (then LOOK at the new images before committing them):

    TABLEPI_UPDATE_REFERENCES=1 .venv/bin/python -m pytest tests/display/test_reference.py

On a failure the rendered image and an amplified difference image are written next to each other in
``$TABLEPI_DIFF_DIR`` (default: the test's temporary directory) and the message names them.
"""

from __future__ import annotations

import os
from pathlib import Path

import pygame
import pytest

from tablepi.display.render import Renderer, render_surface
from tests.display.samples import sample

REFERENCE_DIR = Path(__file__).resolve().parent / "reference"
SCREENS = ("idle", "match_start", "trump_chosen", "choose_seat", "mid_trick", "warning", "deal_result", "slate",
           "match_won")
LANGUAGES = ("en", "lb")
SIZES = ((800, 480), (480, 320), (1280, 720), (720, 1280), (320, 480))
MAX_MEAN_DIFF = 1.5
UPDATE = os.environ.get("TABLEPI_UPDATE_REFERENCES") == "1"


def reference_path(screen: str, lang: str, size: tuple[int, int]) -> Path:
    return REFERENCE_DIR / f"{screen}-{lang}-{size[0]}x{size[1]}.png"


def difference(a: pygame.Surface, b: pygame.Surface) -> tuple[float, pygame.Surface]:
    """Mean absolute difference per channel, and the |a-b| image."""
    over = a.copy()
    over.blit(b, (0, 0), special_flags=pygame.BLEND_RGB_SUB)  # max(a-b, 0)
    under = b.copy()
    under.blit(a, (0, 0), special_flags=pygame.BLEND_RGB_SUB)  # max(b-a, 0)
    over.blit(under, (0, 0), special_flags=pygame.BLEND_RGB_ADD)
    r, g, bl = pygame.transform.average_color(over)[:3]
    return (r + g + bl) / 3, over


def test_difference_sees_a_changed_prompt(renderer: Renderer) -> None:
    view = sample("mid_trick")
    same, _ = difference(render_surface(view, (800, 480), renderer), render_surface(view, (800, 480), renderer))
    assert same == 0
    other = render_surface(sample("warning"), (800, 480), renderer)
    changed, _ = difference(render_surface(view, (800, 480), renderer), other)
    assert changed > MAX_MEAN_DIFF


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("screen", SCREENS)
def test_screen_matches_reference(screen: str, lang: str, size: tuple[int, int], renderer: Renderer,
                                  tmp_path: Path) -> None:
    check_reference(screen, lang, size, renderer, tmp_path)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("lang", ("lb", "de", "fr", "en"))
def test_review_matches_reference(lang: str, size: tuple[int, int], renderer: Renderer, tmp_path: Path) -> None:
    """The best-play review on the slate, in every language and on every layout."""
    check_reference("review", lang, size, renderer, tmp_path)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("lang", ("lb", "de", "fr", "en"))
@pytest.mark.parametrize("screen", ("seating", "announcement"))
def test_tournament_lines_match_reference(screen: str, lang: str, size: tuple[int, int], renderer: Renderer,
                                          tmp_path: Path) -> None:
    """The tournament's seating and the director's announcement in the warning bar, every language and layout."""
    check_reference(screen, lang, size, renderer, tmp_path)


def check_reference(screen: str, lang: str, size: tuple[int, int], renderer: Renderer, tmp_path: Path) -> None:
    path = reference_path(screen, lang, size)
    actual = render_surface(sample(screen, lang), size, renderer)
    if UPDATE:
        REFERENCE_DIR.mkdir(parents=True, exist_ok=True)
        pygame.image.save(actual, str(path))
        return
    assert path.exists(), f"no reference image {path}; regenerate with TABLEPI_UPDATE_REFERENCES=1"
    expected = pygame.image.load(str(path))
    assert expected.get_size() == size, f"{path.name} is {expected.get_size()}, expected {size}"
    mean, diff = difference(actual, expected.convert(actual) if pygame.display.get_init() else expected)
    if mean >= MAX_MEAN_DIFF:
        out = Path(os.environ.get("TABLEPI_DIFF_DIR", tmp_path))
        out.mkdir(parents=True, exist_ok=True)
        for _ in range(3):  # x8, so small differences show
            diff.blit(diff, (0, 0), special_flags=pygame.BLEND_RGB_ADD)
        actual_png, diff_png = out / f"{path.stem}.actual.png", out / f"{path.stem}.diff.png"
        pygame.image.save(actual, str(actual_png))
        pygame.image.save(diff, str(diff_png))
        pytest.fail(
            f"{path.name}: mean pixel difference {mean:.2f} >= {MAX_MEAN_DIFF}. Rendered: {actual_png}, "
            f"difference: {diff_png}. If the change is intended, regenerate the references "
            "(TABLEPI_UPDATE_REFERENCES=1) and look at them before committing."
        )
