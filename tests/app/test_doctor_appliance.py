"""What ``tablepi doctor`` says about the screen, the touch screen and the reader on an installed table: it asks the
running table (which holds the screen and the reader) instead of opening them itself, tells missing EGL libraries
from a display held by another program, counts single-touch panels, and names the fix for a refused reader port."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest

from tablepi.app import doctor
from tablepi.app.doctor import Status, check_display, check_readers
from tablepi.config import Config, DisplayConfig
from tablepi.display import video
from tablepi.display.video import touch_devices
from tablepi.service_socket import Unreachable


def _config() -> Config:
    return replace(Config(), display=replace(DisplayConfig(), video_drivers=("kmsdrm",)))


@pytest.fixture
def running(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, Any]]:
    """A running table's status (what the control socket answers); opening the screen here is an error."""
    status: dict[str, Any] = {"pid": 4242, "zones": {"N": "online", "E": "online", "S": "online", "W": "online"},
                              "reader": "serial"}
    monkeypatch.setattr(doctor, "_running", lambda config: status)

    def no_probe(*args: object, **kwargs: object) -> None:
        raise AssertionError("doctor opened the screen the running table holds")

    monkeypatch.setattr(doctor, "probe_screen", no_probe)
    yield status


def _display(findings: Iterator[doctor.Finding]) -> list[doctor.Finding]:
    return [f for f in findings if "font" not in f.what and "touch" not in f.what]


def test_the_running_tables_screen_is_asked_not_opened(running: dict[str, Any]) -> None:
    running["screen"] = {"driver": "KMSDRM", "size": [800, 480], "renderer": "opengles2"}
    (found,) = _display(check_display(_config()))
    assert found.status is Status.OK
    assert found.what == "the running table draws with video driver KMSDRM: 800x480, renderer opengles2, rotation 0"


def test_missing_egl_is_named_not_taken_for_a_display_held_by_a_desktop(
    running: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    error = "kmsdrm: EGL not initialized"
    running["screen"] = {"driver": None, "error": f"no video driver opened the screen ({error})",
                         "errors": {"kmsdrm": "EGL not initialized"}}
    monkeypatch.setattr(video, "kms_libraries", lambda: {"libEGL.so.1": False, "libGLESv2.so.2": False,
                                                          "libgbm.so.1": True, "libdrm.so.2": True})
    (found,) = _display(check_display(_config()))
    assert found.status is Status.FAIL
    assert "EGL not initialized" in found.what
    assert "sudo apt install libegl1 libgles2 libgl1-mesa-dri" in found.fix
    assert "held by a desktop" not in found.fix
    # The libraries there, EGL still without a driver: Mesa's DRI drivers are what is missing.
    monkeypatch.setattr(video, "kms_libraries", lambda: dict.fromkeys(video.KMS_LIBRARIES, True))
    (found,) = _display(check_display(_config()))
    assert "libgl1-mesa-dri" in found.fix and "held by a desktop" not in found.fix


def test_a_headless_running_table_is_a_warning(running: dict[str, Any]) -> None:
    running["screen"] = {"driver": None, "size": [800, 480], "renderer": None}
    (found,) = _display(check_display(_config()))
    assert found.status is Status.WARN and "without a screen" in found.what


def test_no_table_running_probes_the_screen_as_before(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(doctor, "_running", lambda config: Unreachable.NOT_RUNNING)
    calls = []
    monkeypatch.setattr(doctor, "probe_screen", lambda config, env: calls.append(env) or (None, "boom"))
    (found,) = _display(check_display(_config()))
    assert calls and found.status is Status.FAIL and "boom" in found.what


def test_kms_libraries_are_looked_up_by_the_names_sdl_loads() -> None:
    found = video.kms_libraries(["libc.so.6", "libdoes-not-exist.so.9"])
    assert found == {"libc.so.6": True, "libdoes-not-exist.so.9": False}


def test_a_refused_reader_port_names_the_fix_not_the_cable(running: dict[str, Any]) -> None:
    running["zones"] = dict.fromkeys(("N", "E", "S", "W"), "offline")
    running["reader_refused"] = {"why": "cannot open /dev/tablepi-reader: [Errno 1] could not open port",
                                 "fix": "sudo systemctl restart tablepi"}
    (found,) = check_readers(_config())
    assert found.status is Status.FAIL
    assert "[Errno 1]" in found.what and "zones N, E, S, W offline" in found.what
    assert found.fix == "sudo systemctl restart tablepi"
    running["reader_refused"] = None
    findings = list(check_readers(_config()))
    assert len(findings) == 4 and all("cable" in f.fix for f in findings)


# /proc/bus/input/devices as a 64-bit kernel writes it (each B: word one 64-bit long, highest first).
QEMU_TABLET = '''I: Bus=0003 Vendor=0627 Product=0001 Version=0001
N: Name="QEMU QEMU USB Tablet"
P: Phys=usb-0000:00:04.0-1/input0
H: Handlers=mouse0 event2
B: PROP=0
B: EV=1f
B: KEY=70000 0 0 0 0
B: REL=900
B: ABS=3
B: MSC=10
'''
RESISTIVE = '''I: Bus=0000 Vendor=0000 Product=1ea6 Version=0000
N: Name="ADS7846 Touchscreen"
H: Handlers=mouse1 event0
B: PROP=0
B: EV=b
B: KEY=400 0 0 0 0 0
B: ABS=1000003
'''
MOUSE = '''I: Bus=0003 Vendor=046d Product=c077 Version=0111
N: Name="Logitech USB Optical Mouse"
H: Handlers=mouse0 event3
B: EV=17
B: KEY=70000 0 0 0 0
B: REL=903
'''
JOYSTICK = '''I: Bus=0003 Vendor=045e Product=028e Version=0110
N: Name="Xbox 360 pad"
H: Handlers=event5 js0
B: EV=20000b
B: KEY=7cdb000000000000 0 0 0 0
B: ABS=3003f
'''


def test_single_touch_panels_and_tablets_are_touch_screens_mice_and_pads_are_not() -> None:
    found = touch_devices("\n".join((QEMU_TABLET, RESISTIVE, MOUSE, JOYSTICK)))
    assert [(t.name, t.path) for t in found] == [("QEMU QEMU USB Tablet", "/dev/input/event2"),
                                                 ("ADS7846 Touchscreen", "/dev/input/event0")]
