"""The windowed demo is watch-only: touches pause and resume it, never change the scripted match; Esc / q end it."""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

from collections.abc import Callable
from typing import Any

import pygame

from tablepi.app.demo import run_demo
from tablepi.app.screen import FrameSaver, PygameScreen
from tablepi.config import DisplayConfig
from tablepi.display.layout import layout_for
from tablepi.display.view import Action


class ScriptedWindow(PygameScreen):
    """A headless screen whose window events come from a script: call number -> events."""

    def __init__(self, settings: DisplayConfig, script: Callable[[int, ScriptedWindow], list[Any]]) -> None:
        super().__init__(settings, headless=True)
        self.calls = 0
        self.script = script

    def events(self) -> list[Any]:
        self.calls += 1
        return self.script(self.calls, self)


def _demo(script: Callable[[int, ScriptedWindow], list[Any]]) -> tuple[Any, list[ScriptedWindow]]:
    made: list[ScriptedWindow] = []

    def factory(display: DisplayConfig, frames: FrameSaver | None) -> PygameScreen:
        made.append(ScriptedWindow(display, script))
        return made[-1]

    summary = run_demo(headless=False, speed=1e6, deals=1, screen_factory=factory)
    return summary, made


def _click(pos: tuple[int, int]) -> list[Any]:
    return [pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=pos, button=1),
            pygame.event.Event(pygame.MOUSEBUTTONUP, pos=pos, button=1)]


def test_touching_undo_on_the_scripted_match_changes_nothing() -> None:
    undo = layout_for((800, 480)).buttons.deal[Action.UNDO].center
    plain, _ = _demo(lambda n, w: [])
    # two clicks on Undo every 40 looks at the window (pause, resume): none reaches the table
    touched, windows = _demo(lambda n, w: _click(undo) if n % 40 in (10, 11) else [])
    assert windows[0].calls > 80
    assert touched.events == plain.events and touched.deals == plain.deals == 1
    assert touched.warnings == plain.warnings
    assert touched.state is not None and plain.state is not None
    assert touched.state.match.lines == plain.state.match.lines


def test_a_touch_pauses_until_the_next_touch() -> None:
    seen: list[float] = []

    def script(n: int, window: ScriptedWindow) -> list[Any]:
        seen.append(window.display.redraws)
        return _click((10, 10)) if n in (5, 25) else []  # paused from the 5th look to the 25th

    _demo(script)
    assert len(set(seen[5:24])) == 1  # nothing was drawn while paused
    assert len(set(seen[25:])) > 1


def test_escape_and_q_end_the_demo() -> None:
    for key in (pygame.K_ESCAPE, pygame.K_q):
        def script(n: int, window: ScriptedWindow, key: int = key) -> list[Any]:
            return [pygame.event.Event(pygame.KEYDOWN, key=key)] if n == 10 else []

        summary, windows = _demo(script)
        assert windows[0].calls == 10
        assert summary.deals <= 1 and summary.events < 40
