"""Reference screenshots of the hand-entry sheets: every sheet, every language, every layout.

Same comparison as tests/display/test_reference.py (regenerate the same way, then LOOK at the images).
"""

from __future__ import annotations

import pytest

from tablepi.display.i18n import LANGUAGES
from tablepi.display.render import Renderer
from tests.display.samples import SHEET_SAMPLES

from . import test_reference
from .test_reference import SIZES


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("screen", sorted(SHEET_SAMPLES))
def test_sheet_matches_reference(screen: str, lang: str, size: tuple[int, int], renderer: Renderer,
                                 tmp_path: object) -> None:
    test_reference.test_screen_matches_reference(screen, lang, size, renderer, tmp_path)  # type: ignore[arg-type]
