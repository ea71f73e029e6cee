"""Which SDL video driver draws the screen, and the facts ``tablepi doctor`` reports about it.

The service runs without a desktop, so it draws through KMS/DRM (SDL's ``kmsdrm`` driver). That works only if the
SDL library pygame loaded was built with that driver: pygame-ce's wheels are, pygame 2.6.1's are not, and the error
text SDL gives ("kmsdrm not available") is the same whether the driver is missing or only has no ``/dev/dri`` to
open. :func:`video_drivers` therefore asks the loaded libSDL2 itself (``SDL_GetVideoDriver``), before any init.

The window is opened by :func:`open_window` in a documented order (:data:`DRIVER_ORDER`, config
``display.video_drivers``): an ``SDL_VIDEODRIVER`` in the environment is the only one tried; otherwise ``kmsdrm``
(the console of a Pi), then ``wayland`` and ``x11`` where a desktop session says it is there. The driver that
answered is logged; if none does, the app runs without a screen (it still referees and journals) and says so.

Run ``python -m tablepi.display.video [DRIVER ...]`` to open the screen once and print what was found as JSON:
``tablepi doctor`` does that in a child process with the service's environment.
"""

from __future__ import annotations

import ctypes
import json
import logging
import os
import re
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from tablepi.errors import TablepiError

log = logging.getLogger(__name__)

#: The order drivers are tried in when the environment names none (docs/display.md, "Video drivers").
DRIVER_ORDER: tuple[str, ...] = ("kmsdrm", "wayland", "x11")

#: A desktop driver is tried only where its session is there: without it SDL would wait or fail slowly.
_NEEDS_ENV = {"x11": "DISPLAY", "wayland": "WAYLAND_DISPLAY"}


def sdl_library_path(maps: str | None = None) -> Path | None:
    """The libSDL2 file pygame loaded into this process (from ``/proc/self/maps``), or None."""
    import pygame  # noqa: F401  (loads its SDL)

    if maps is None:
        try:
            maps = Path("/proc/self/maps").read_text(encoding="utf-8", errors="replace")
        except OSError:
            return None
    for line in maps.splitlines():
        path = line.split(None, 5)[-1] if len(line.split(None, 5)) == 6 else ""
        if re.search(r"/libSDL2-2\.0[^/]*\.so", path) or re.search(r"/libSDL2[^/]*\.so", path):
            return Path(path.strip())
    return None


def video_drivers() -> tuple[str, ...]:
    """The video drivers compiled into the loaded SDL, lower case (``kmsdrm``, ``x11``, ``dummy`` ...).

    Asked of the library itself with ctypes, so the answer does not depend on whether a driver could open here.
    """
    path = sdl_library_path()
    lib = ctypes.CDLL(str(path)) if path is not None else ctypes.CDLL(None)
    lib.SDL_GetNumVideoDrivers.restype = ctypes.c_int
    lib.SDL_GetVideoDriver.restype = ctypes.c_char_p
    lib.SDL_GetVideoDriver.argtypes = [ctypes.c_int]
    names = (lib.SDL_GetVideoDriver(i) for i in range(lib.SDL_GetNumVideoDrivers()))
    return tuple(name.decode().lower() for name in names if name)


def drivers_to_try(configured: Sequence[str] = DRIVER_ORDER, env: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """The drivers :func:`open_window` tries, in order.

    >>> drivers_to_try(env={"SDL_VIDEODRIVER": "x11"})
    ('x11',)
    >>> drivers_to_try(env={})
    ('kmsdrm',)
    >>> drivers_to_try(env={"DISPLAY": ":0"})
    ('kmsdrm', 'x11')
    """
    env = os.environ if env is None else env
    forced = env.get("SDL_VIDEODRIVER", "").strip()
    if forced:
        return tuple(d.strip() for d in forced.split(",") if d.strip())
    return tuple(d for d in configured if d not in _NEEDS_ENV or env.get(_NEEDS_ENV[d]))


@dataclass(frozen=True, slots=True)
class TouchDevice:
    """An input device the kernel reports with absolute touch axes (``/proc/bus/input/devices``)."""

    name: str
    path: str  # /dev/input/eventN
    readable: bool


def touch_devices(text: str | None = None) -> tuple[TouchDevice, ...]:
    """Touch screens among the input devices: those with multi-touch position axes (ABS_MT_POSITION_X, 0x35)."""
    if text is None:
        try:
            text = Path("/proc/bus/input/devices").read_text(encoding="utf-8", errors="replace")
        except OSError:
            return ()
    found: list[TouchDevice] = []
    for block in text.split("\n\n"):
        name = re.search(r'^N: Name="(.*)"', block, re.M)
        handlers = re.search(r"^H: Handlers=(.*)$", block, re.M)
        abs_bits = re.search(r"^B: ABS=([0-9a-f ]+)$", block, re.M)
        if not (name and handlers and abs_bits):
            continue
        # Highest word first, one per kernel long: the 64 ABS bits are one word on a 64-bit kernel, two on 32.
        words = abs_bits.group(1).split()
        width = 64 if len(words) == 1 else 32
        bits = sum(int(word, 16) << (width * i) for i, word in enumerate(reversed(words)))
        if not bits >> 0x35 & 1:
            continue
        event = next((h for h in handlers.group(1).split() if h.startswith("event")), None)
        if event is None:
            continue
        path = f"/dev/input/{event}"
        found.append(TouchDevice(name.group(1), path, os.access(path, os.R_OK)))
    return tuple(found)


@dataclass(frozen=True, slots=True)
class ScreenReport:
    """What opening the screen found: the driver that answered, its mode, touch devices, and every refusal."""

    driver: str | None
    mode: tuple[int, int] | None
    compiled: tuple[str, ...]
    tried: tuple[str, ...]
    errors: dict[str, str] = field(default_factory=dict)
    touch: tuple[TouchDevice, ...] = ()

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_json(cls, text: str) -> ScreenReport:
        data = json.loads(text)
        return cls(data["driver"], tuple(data["mode"]) if data["mode"] else None, tuple(data["compiled"]),
                   tuple(data["tried"]), dict(data["errors"]), tuple(TouchDevice(**t) for t in data["touch"]))


class NoScreen(TablepiError, RuntimeError):
    """No video driver could open the screen; ``errors`` says what each one answered."""

    def __init__(self, errors: Mapping[str, str]) -> None:
        self.errors = dict(errors)
        said = "; ".join(f"{d}: {e}" for d, e in self.errors.items()) or "no video driver to try"
        super().__init__(f"no video driver opened the screen ({said})")


def open_window(drivers: Iterable[str], size: tuple[int, int], fullscreen: bool) -> tuple[Any, str, dict[str, str]]:
    """Open the screen with the first driver that answers: ``(surface, driver, errors of those that did not)``.

    Raises :class:`NoScreen`, naming each driver's refusal, when none does.
    """
    import pygame

    errors: dict[str, str] = {}
    for driver in drivers:
        os.environ["SDL_VIDEODRIVER"] = driver
        try:
            pygame.display.init()
            flags = pygame.FULLSCREEN if fullscreen else 0
            surface = pygame.display.set_mode((0, 0) if fullscreen else size, flags)
        except pygame.error as error:
            errors[driver] = str(error) or "refused"
            pygame.display.quit()
            continue
        got = pygame.display.get_driver()
        for name, why in errors.items():
            log.info("video driver %s: %s", name, why)
        log.info("screen: video driver %s, %dx%d", got, *surface.get_size())
        return surface, got, errors
    raise NoScreen(errors)


def probe(drivers: Sequence[str], size: tuple[int, int] = (800, 480), fullscreen: bool = True) -> ScreenReport:
    """Open the screen once, as the app would, and close it again."""
    os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    import pygame

    compiled = video_drivers()
    errors: dict[str, str] = {}
    try:
        surface, driver, errors = open_window(drivers, size, fullscreen)
        mode: tuple[int, int] | None = surface.get_size()
    except NoScreen as error:
        driver, mode = None, None
        errors = {name: f"{why} ({_why(name, compiled)})" for name, why in error.errors.items()}
    finally:
        pygame.display.quit()
    return ScreenReport(driver, mode, compiled, tuple(drivers), errors, touch_devices())


def _why(driver: str, compiled: Sequence[str]) -> str:
    return "compiled into this SDL" if driver.lower() in compiled else "NOT compiled into this SDL"


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m tablepi.display.video [--size WxH] [--windowed] [DRIVER ...]``: print a ScreenReport."""
    args = list(sys.argv[1:] if argv is None else argv)
    size, fullscreen = (800, 480), True
    if "--windowed" in args:
        args.remove("--windowed")
        fullscreen = False
    if "--size" in args:
        i = args.index("--size")
        w, h = args[i + 1].lower().split("x")
        size = (int(w), int(h))
        del args[i : i + 2]
    report = probe(args or drivers_to_try(), size, fullscreen)
    print(report.to_json())
    return 0 if report.driver is not None else 1


if __name__ == "__main__":
    sys.exit(main())
