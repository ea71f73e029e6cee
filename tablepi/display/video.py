"""Which SDL video driver draws the screen, and the facts ``tablepi doctor`` reports about it.

The service runs without a desktop, so it draws through KMS/DRM (SDL's ``kmsdrm`` driver). That works only if the
SDL library pygame loaded was built with that driver: pygame-ce's wheels are, pygame 2.6.1's are not, and the error
text SDL gives ("kmsdrm not available") is the same whether the driver is missing or only has no ``/dev/dri`` to
open. :func:`video_drivers` therefore asks the loaded libSDL2 itself (``SDL_GetVideoDriver``), before any init.

The window is opened by :func:`open_window` in a documented order (:data:`DRIVER_ORDER`, config
``display.video_drivers``): an ``SDL_VIDEODRIVER`` in the environment is the only one tried; otherwise ``kmsdrm``
(the console of a Pi), then ``wayland`` and ``x11`` where a desktop session says it is there. The driver that
answered is logged; if none does, the app runs without a screen (it still referees and journals) and says so.

On KMS the window is drawn through SDL's renderer chosen on purpose: ``opengles2`` (:data:`KMS_RENDER_DRIVER`,
``SDL_RENDER_DRIVER`` in the environment overrides it). SDL's KMSDRM driver draws through EGL and GBM; left to
itself SDL takes its desktop ``opengl`` renderer first, which on virtio-gpu (Mesa llvmpipe) scanned out all-black
frames while ``opengles2`` drew. OpenGL ES 2 is the API every Mesa KMS driver serves through EGL (the Pi's vc4 and
v3d among them, and it is what those drivers are written for), so it is also the best bet on a Pi. SDL's KMSDRM
path loads ``libEGL.so.1``, ``libGLESv2.so.2``, ``libgbm.so.1`` and ``libdrm.so.2`` at run time (and Mesa its DRI
driver): :func:`kms_libraries` says which are missing, so "EGL not initialized" is not mistaken for a display
held by another program.

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

#: SDL's renderer on KMS (see the module's docstring for why); ``SDL_RENDER_DRIVER`` in the environment wins.
KMS_RENDER_DRIVER = "opengles2"

#: What SDL's KMSDRM path dlopens, and the Debian package each comes in (systemd/install.sh installs them).
KMS_LIBRARIES: dict[str, str] = {
    "libEGL.so.1": "libegl1",
    "libGLESv2.so.2": "libgles2",
    "libgbm.so.1": "libgbm1",
    "libdrm.so.2": "libdrm2",
}


def kms_libraries(names: Iterable[str] = KMS_LIBRARIES) -> dict[str, bool]:
    """Which of the libraries SDL's KMSDRM driver loads at run time can be loaded here."""
    found: dict[str, bool] = {}
    for name in names:
        try:
            ctypes.CDLL(name)
        except OSError:
            found[name] = False
        else:
            found[name] = True
    return found


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
    """An input device the kernel reports as a touch screen (``/proc/bus/input/devices``)."""

    name: str
    path: str  # /dev/input/eventN
    readable: bool


_ABS_X, _ABS_Y, _ABS_MT_POSITION_X = 0x00, 0x01, 0x35
_BTN_LEFT, _BTN_TOUCH = 0x110, 0x14A


def _long_bits(block: str) -> int:
    """The kernel's word width for the ``B:`` bitmaps of one device (each word is one kernel long, highest first):
    the 64 ABS bits take two words only on a 32-bit kernel; a word longer than 8 hex digits is 64-bit; else the
    kernel's machine says."""
    bitmaps = dict(re.findall(r"^B: (\w+)=([0-9a-f ]+)$", block, re.M))
    if len(bitmaps.get("ABS", "").split()) > 1:
        return 32
    if any(len(word) > 8 for words in bitmaps.values() for word in words.split()):
        return 64
    return 64 if "64" in os.uname().machine else 32


def _bitmap(block: str, kind: str, width: int) -> int:
    """The ``B: KIND=`` capability bits of one device (words highest first, ``width`` bits each)."""
    found = re.search(rf"^B: {kind}=([0-9a-f ]+)$", block, re.M)
    if not found:
        return 0
    words = found.group(1).split()
    return sum(int(word, 16) << (width * i) for i, word in enumerate(reversed(words)))


def touch_devices(text: str | None = None) -> tuple[TouchDevice, ...]:
    """Touch screens among the input devices: multi-touch panels (ABS_MT_POSITION_X), and single-touch ones, which
    report an absolute position (ABS_X and ABS_Y) and a touch or left button (BTN_TOUCH: a resistive panel;
    BTN_LEFT: a USB tablet such as QEMU's). A mouse reports relative motion and a joystick no such button."""
    if text is None:
        try:
            text = Path("/proc/bus/input/devices").read_text(encoding="utf-8", errors="replace")
        except OSError:
            return ()
    found: list[TouchDevice] = []
    for block in text.split("\n\n"):
        name = re.search(r'^N: Name="(.*)"', block, re.M)
        handlers = re.search(r"^H: Handlers=(.*)$", block, re.M)
        if not (name and handlers):
            continue
        width = _long_bits(block)
        axes, keys = _bitmap(block, "ABS", width), _bitmap(block, "KEY", width)
        multi = axes >> _ABS_MT_POSITION_X & 1
        single = axes >> _ABS_X & 1 and axes >> _ABS_Y & 1 and (keys >> _BTN_TOUCH & 1 or keys >> _BTN_LEFT & 1)
        if not (multi or single):
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
        if driver == "kmsdrm":
            os.environ.setdefault("SDL_RENDER_DRIVER", KMS_RENDER_DRIVER)
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
        renderer = f", renderer {os.environ['SDL_RENDER_DRIVER']}" if os.environ.get("SDL_RENDER_DRIVER") else ""
        log.info("screen: video driver %s, %dx%d%s", got, *surface.get_size(), renderer)
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
