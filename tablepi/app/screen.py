"""The table's screen as the app drives it: a scene in, pixels out, touches back.

A thin shell around the display package: the app's loop hands it one frozen
:class:`~tablepi.display.scene.Scene`, :func:`~tablepi.display.viewmodel.build_view` decides what to show, the
:class:`~tablepi.display.render.Display` draws only when that changes, and presses on the touch screen (or clicks)
go onto the loop's queue as :class:`~tablepi.app.inputs.Touch` inputs, routed there like a button's press. The
screen keeps no state of the table's or the app's.
Headless (``SDL_VIDEODRIVER=dummy``) it draws onto an off-screen surface, and a
:class:`FrameSaver` can keep the frames that matter as PNG files: the demo's output and a bug report's pictures.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tablepi.app.inputs import Input, Touch
from tablepi.config import DisplayConfig
from tablepi.display.keys import KeyTouch, MenuTouch, PlaceTouch, Touched
from tablepi.errors import OutputError
from tablepi.rules.seats import Seat
from tablepi.table import TableState
from tablepi.table.state import PromptCode, TablePhase

if TYPE_CHECKING:
    from tablepi.display.scene import Scene


class WindowClosed(Exception):
    """The window was closed (desktop use of the demo): the app should stop."""


@dataclass
class FrameSaver:
    """Keeps the frames worth looking at: each new phase, each completed trick, each new warning.

    Files are numbered in order, named by what they show: ``0007-deal02-trick3-complete.png``.
    """

    directory: Path
    saved: list[Path] = field(default_factory=list)
    _last_key: tuple[Any, ...] | None = None
    _last_name: str = ""
    _warnings_seen: set[str] = field(default_factory=set)

    def __post_init__(self) -> None:
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            raise OutputError(f"{self.directory}: cannot keep frames there: {err.strerror or err}",
                              path=self.directory) from None
        if not self.directory.is_dir():
            raise OutputError(f"{self.directory}: not a folder, cannot keep frames there", path=self.directory)

    def wants(self, state: TableState) -> str | None:
        """A file label if ``state`` is a key frame, else None."""
        trick = state.deal.tricks[-1] if state.deal.tricks else None
        complete = trick is not None and len(trick.plays) == 4
        key = (state.match.number, state.deal.number, state.phase, state.prompt.code, state.deal.trump is None,
               complete, trick.number if complete and trick else 0)
        new_warnings = [w for w in state.warnings if f"{w.deal}:{w.code.value}:{w.message}" not in self._warnings_seen]
        for w in new_warnings:
            self._warnings_seen.add(f"{w.deal}:{w.code.value}:{w.message}")
        label = None
        if new_warnings:
            label = f"warning-{new_warnings[0].code.value}"
        elif key != self._last_key:
            if state.phase is TablePhase.PLAY and complete and trick is not None:
                label = f"trick{trick.number}-complete"
            elif state.phase is TablePhase.PLAY and state.deal.trump is not None and not state.deal.tricks:
                label = "trump-chosen"
            elif state.phase is TablePhase.DEAL_OVER and state.prompt.code is PromptCode.NEXT_DEAL:
                label = "slate"  # the last trick swept: the slate between deals
            elif state.phase is not TablePhase.PLAY:
                label = state.phase.value  # a sweep between tricks is not worth a frame; a new phase is
        self._last_key = key
        if label is None:
            return None
        name = f"match{state.match.number}-deal{state.deal.number:02d}-{label}"
        if name == self._last_name:  # the same moment once more (a prompt that changed within it)
            return None
        self._last_name = name
        return name

    def save(self, surface: Any, label: str) -> Path:
        import pygame

        safe = re.sub(r"[^A-Za-z0-9_.-]+", "-", label)
        path = self.directory / f"{len(self.saved) + 1:04d}-{safe}.png"
        try:
            pygame.image.save(surface, str(path))
        except (pygame.error, OSError) as err:
            raise OutputError(f"{path}: cannot write the frame: {err}", path=path) from None
        self.saved.append(path)
        return path


class PygameScreen:
    """The screen: a window (fullscreen on the Pi) or, headless, an off-screen surface.

    The View is drawn on a surface the size of the *drawing* (the panel's size turned by ``display.rotation``)
    and turned onto the panel when it is shown; touches are turned back the same way (:mod:`tablepi.display.touch`).
    The video driver is chosen by :func:`tablepi.display.video.open_window` in the documented order and logged.
    """

    def __init__(
        self,
        settings: DisplayConfig,
        *,
        headless: bool = False,
        frames: FrameSaver | None = None,
    ) -> None:
        os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")  # keep the service's log for the table
        if headless:
            os.environ["SDL_VIDEODRIVER"] = "dummy"
            os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
        import pygame

        from tablepi.display.render import Display
        from tablepi.display.touch import PressTracker

        self._pygame = pygame
        self.settings = settings
        self.frames = frames
        self.headless = headless
        self.rotation = settings.rotation
        self.driver = "none"
        if headless:
            pygame.display.init()
            panel = settings.size
            self._panel: Any = None
        else:
            from tablepi.display.video import drivers_to_try, open_window

            drivers = drivers_to_try(settings.video_drivers)
            self._panel, self.driver, _ = open_window(drivers, settings.size, settings.fullscreen)
            pygame.display.set_caption("tablepi")
            pygame.mouse.set_visible(not settings.fullscreen)
            panel = self._panel.get_size()
        pygame.font.init()
        self.size: tuple[int, int] = panel  # the panel as mounted
        drawing = (panel[1], panel[0]) if self.rotation in (90, 270) else panel
        surface = pygame.Surface(drawing) if self._panel is None or self.rotation else self._panel
        self.display = Display(surface, flip=self._present)
        self.touch = PressTracker(panel, self.rotation)
        self._closed = False
        self._console = False  # whether the scene drawn last had a hand-entry console (its controls then act)
        #: Where to write each drawn frame's hit-map (TABLEPI_HITMAP): what a robot player reads to touch only what
        #: the screen drew, where it drew it (tests/robot). None: not written.
        hitmap = os.environ.get("TABLEPI_HITMAP")
        self.hitmap: Path | None = Path(hitmap) if hitmap else None

    def _present(self) -> None:
        """Turn the drawing onto the panel and show it."""
        if self._panel is None:
            return
        if self.rotation:
            self._panel.blit(self._pygame.transform.rotate(self.display.surface, -self.rotation), (0, 0))
        self._pygame.display.flip()

    def panel_image(self) -> Any:
        """What the panel shows now, turned as mounted (headless: the drawing turned by the rotation)."""
        if self._panel is not None:
            return self._panel
        surface = self.display.surface
        return self._pygame.transform.rotate(surface, -self.rotation) if self.rotation else surface

    def show(self, scene: Scene) -> None:
        """Draw ``scene`` (only if its View differs from the one on screen); keep a key frame if asked to."""
        from tablepi.display.viewmodel import build_view

        view = build_view(scene)
        self._console = scene.console is not None
        drew = self.display.show(view)
        if drew and self.hitmap is not None:
            self._write_hitmap(view)
        if self.frames is not None and scene.state is not None:
            label = self.frames.wants(scene.state)
            if label is not None:
                if not drew:
                    self.display.show(view, force=True)
                self.frames.save(self.panel_image(), label)

    def _write_hitmap(self, view: Any) -> None:
        """The controls of the frame just drawn, as JSON (written whole, then renamed: a reader never sees half)."""
        import json

        from tablepi.display.touch import hit_map

        assert self.hitmap is not None
        drawing = self.display.surface.get_size()
        chosen = {KeyTouch(k.id) for row in view.sheet.rows for k in row if k.selected and k.id is not None} \
            if view.sheet else set()
        frame = {
            "seq": self.display.redraws, "panel": list(self.size), "rotation": self.rotation,
            "sheet": view.sheet.title if view.sheet is not None else None, "prompt": view.prompt,
            "lines": list(view.sheet.lines) if view.sheet is not None else [],
            "warning": view.warning.text if view.warning is not None else None,
            "controls": [{"name": c.name, "seat": c.seat.value if c.seat else None, "rect": list(c.rect),
                          "live": c.live, "selected": c.target in chosen} for c in hit_map(view, drawing)],
        }
        partial = self.hitmap.with_suffix(".part")
        try:
            partial.write_text(json.dumps(frame), encoding="utf-8")
            partial.replace(self.hitmap)
        except OSError as err:
            raise OutputError(f"{self.hitmap}: cannot write the hit-map: {err.strerror or err}",
                              path=self.hitmap) from None

    def events(self) -> list[Any]:
        """The window's events since the last call (none headless); raises WindowClosed on a window close."""
        if self.headless or self._closed:
            return []
        pygame = self._pygame
        out = []
        for event in pygame.event.get():
            if event.type == pygame.QUIT:
                raise WindowClosed
            if event.type in (pygame.VIDEOEXPOSE, pygame.WINDOWEXPOSED):
                self.display.invalidate()
            out.append(event)
        return out

    def actions(self, events: list[Any]) -> list[tuple[Touched, Seat | None]]:
        """(what was touched, seat) of the controls touched in ``events`` (each acting on what was drawn at its
        press); the seat is the one a per-seat target acts for. While a panel is up only its keys act; the header
        and the card places act only for the hand-entry console."""
        touched: list[tuple[Touched, Seat | None]] = []
        for event in events:
            control = self.touch.touch(event, self.display.last)
            if control is None:
                continue
            if not self._console and isinstance(control.target, MenuTouch | PlaceTouch):
                continue
            touched.append((control.target, control.seat))
        return touched

    def pump(self, put: Callable[[Input], None]) -> None:
        """Put the controls touched since the last call on the loop's queue (``put``), in order, as
        :class:`~tablepi.app.inputs.Touch` inputs; raises WindowClosed on a window close."""
        for target, seat in self.actions(self.events()):
            put(Touch(target, seat))

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self._pygame.display.quit()
