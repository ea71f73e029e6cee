"""Shared fixtures of the display tests: headless SDL and one renderer per session (fonts load once)."""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import pytest

from tablepi.display.i18n import LANGUAGES, Translator, translator


@pytest.fixture(scope="session")
def renderer():  # type: ignore[no-untyped-def]
    from tablepi.display.render import Renderer

    return Renderer()


@pytest.fixture(params=LANGUAGES)
def tr(request: pytest.FixtureRequest) -> Translator:
    """A translator for each of the four languages in turn."""
    return translator(request.param)


@pytest.fixture
def en() -> Translator:
    return translator("en")
