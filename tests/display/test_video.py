"""The display stack: the SDL pygame loaded really has KMSDRM, the driver order, and what doctor says."""

from __future__ import annotations

import importlib.metadata
from dataclasses import replace
from pathlib import Path

import pytest

from tablepi.app.doctor import Status, check_display, service_environment
from tablepi.config import Config, DisplayConfig
from tablepi.display.video import drivers_to_try, sdl_library_path, touch_devices, video_drivers


def test_exactly_one_pygame_distribution_is_installed_and_it_is_pygame_ce() -> None:
    installed = set()
    for name in ("pygame", "pygame-ce"):
        try:
            importlib.metadata.version(name)
            installed.add(name)
        except importlib.metadata.PackageNotFoundError:
            pass
    assert installed == {"pygame-ce"}
    assert importlib.metadata.version("pygame-ce") == "2.5.8"


def test_the_loaded_sdl_offers_the_kmsdrm_video_driver() -> None:
    """Asked of the libSDL2 pygame loaded, before any init: "kmsdrm not available" would prove nothing."""
    path = sdl_library_path()
    assert path is not None and "SDL2" in path.name
    drivers = video_drivers()
    assert "kmsdrm" in drivers, drivers
    assert {"x11", "dummy", "offscreen"} <= set(drivers)


def test_sdl_library_is_found_in_a_maps_listing() -> None:
    maps = ("7f00-7f10 r-xp 00000000 08:01 1 /venv/lib/python3.11/site-packages/pygame_ce.libs/"
            "libSDL2-2-0-0a1b2c3d.so.0.3200.10\n")
    found = sdl_library_path(maps)
    assert found is not None and found.name.startswith("libSDL2-2")


def test_driver_order_environment_first_then_kmsdrm_then_desktops_that_are_there() -> None:
    assert drivers_to_try(env={"SDL_VIDEODRIVER": "x11"}) == ("x11",)
    assert drivers_to_try(env={}) == ("kmsdrm",)
    assert drivers_to_try(env={"DISPLAY": ":0", "WAYLAND_DISPLAY": "wayland-0"}) == ("kmsdrm", "wayland", "x11")
    assert drivers_to_try(("x11", "kmsdrm"), env={"DISPLAY": ":1"}) == ("x11", "kmsdrm")


DEVICES = '''I: Bus=0018 Vendor=0000 Product=0000 Version=0000
N: Name="10-005d Goodix Capacitive TouchScreen"
P: Phys=input/ts
H: Handlers=kbd event4
B: EV=b
B: ABS=2658000 3

I: Bus=0003 Vendor=046d Product=c077 Version=0111
N: Name="Logitech USB Optical Mouse"
H: Handlers=mouse0 event2
B: EV=17
B: REL=903
'''


def test_touch_screens_are_the_input_devices_with_multitouch_axes() -> None:
    found = touch_devices(DEVICES)
    assert [(t.name, t.path) for t in found] == [("10-005d Goodix Capacitive TouchScreen", "/dev/input/event4")]


def _config(**display: object) -> Config:
    return replace(Config(), display=replace(DisplayConfig(), **display))  # type: ignore[arg-type]


def test_service_environment_is_the_units_not_the_shell(tmp_path: Path) -> None:
    unit = tmp_path / "tablepi.service"
    unit.write_text("[Service]\nEnvironment=PYTHONUNBUFFERED=1\nEnvironment=\"SDL_VIDEODRIVER=x11\"\n")
    (tmp_path / "tablepi.service.d").mkdir()
    (tmp_path / "tablepi.service.d" / "override.conf").write_text("[Service]\nEnvironment=FOO=bar\n")
    env = service_environment(unit, base={"PATH": "/bin", "DISPLAY": ":0", "HOME": "/root"})
    assert env == {"PATH": "/bin", "HOME": "/root", "PYTHONUNBUFFERED": "1", "SDL_VIDEODRIVER": "x11", "FOO": "bar"}


@pytest.mark.skipif(Path("/dev/dri").exists(), reason="this machine has a KMS device")
def test_doctor_fails_when_the_configured_driver_cannot_be_opened() -> None:
    findings = [f for f in check_display(_config(video_drivers=("kmsdrm",))) if "video driver" in f.what]
    assert len(findings) == 1
    failed = findings[0]
    assert failed.status is Status.FAIL
    assert "kmsdrm" in failed.what and "dtoverlay=vc4-kms-v3d" in failed.fix


def test_doctor_names_a_driver_this_sdl_lacks() -> None:
    findings = [f for f in check_display(_config(video_drivers=("directfb",))) if "video driver" in f.what]
    assert [f.status for f in findings] == [Status.FAIL]
    assert "NOT compiled" in findings[0].what and "display.video_drivers" in findings[0].fix


def test_doctor_reports_the_driver_and_mode_it_opened() -> None:
    findings = list(check_display(_config(video_drivers=("offscreen",), fullscreen=False, size=(480, 320))))
    opened = [f for f in findings if "opened the screen" in f.what]
    assert len(opened) == 1 and "offscreen" in opened[0].what and "480x320" in opened[0].what
    assert opened[0].status is Status.WARN  # it draws nowhere
    assert any("touch" in f.what for f in findings)
