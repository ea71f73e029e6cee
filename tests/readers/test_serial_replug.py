"""Unplug and replug through socat: a stable path that disappears and comes back, as with udev on the Pi."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tablepi.readers import open_reader
from tablepi.readers.serial import SerialReader
from tests.readers.device import DeviceEmulator
from tests.waits import wait_until

from .conftest import card_events, collect, settle, status_events

pytestmark = pytest.mark.slow

A = "04A1B2C3D4E5F6"
B = "04B0B0B0B0B0B0"
D = "DEADBEEF"


class SocatCable:
    """socat joins two ptys: ``host`` (what the reader opens) and ``device`` (where the emulator sits)."""

    def __init__(self, directory: Path) -> None:
        exe = shutil.which("socat")
        if exe is None:
            if os.environ.get("CI") == "true":
                pytest.fail("socat is not installed (apt install socat); the replug test needs it in CI")
            pytest.skip("socat is not installed")
        self.exe = exe
        self.host = directory / "tablepi-reader"
        self.device_path = directory / "device"
        self.proc: subprocess.Popen[bytes] | None = None

    def plug(self, emulator: DeviceEmulator) -> None:
        self.proc = subprocess.Popen(
            [self.exe, f"PTY,link={self.host},raw,echo=0", f"PTY,link={self.device_path},raw,echo=0"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        proc = self.proc

        def linked() -> bool:
            assert proc.poll() is None, "socat stopped"
            return self.host.exists() and self.device_path.exists()

        wait_until(linked, "socat to create its pty links", every=0.01)
        emulator.attach(os.open(self.device_path, os.O_RDWR | os.O_NOCTTY))

    def unplug(self, emulator: DeviceEmulator) -> None:
        if self.proc is not None:
            self.proc.terminate()
            self.proc.wait(5)
            self.proc = None
        emulator.detach()
        assert not self.host.exists()


@pytest.fixture
def cable(tmp_path: Path) -> Iterator[tuple[SocatCable, DeviceEmulator]]:
    socat = SocatCable(tmp_path)
    emulator = DeviceEmulator()
    socat.plug(emulator)
    yield socat, emulator
    socat.unplug(emulator)


def test_replug_through_socat_loses_and_doubles_nothing(cable: tuple[SocatCable, DeviceEmulator]) -> None:
    socat, dev = cable
    with open_reader("serial", port=str(socat.host), backoff_initial=0.05, backoff_max=0.4) as reader:
        assert isinstance(reader, SerialReader)
        dev.place(0, A)
        events = collect(reader, lambda ev: bool(card_events(ev)))
        dev.place(1, B)
        events += collect(reader, lambda ev: bool(card_events(ev)))
        for round_ in range(3):
            dev.send_raw(b"77 LIFT 1 04B0")  # half a line, then the cable goes
            socat.unplug(dev)
            events += collect(reader, lambda ev: len(status_events(ev)) == 4)
            # What happens on the table while the cable is out:
            if round_ == 0:
                dev.zones[1] = "-"  # B taken
                dev.zones[2] = D  # D laid
            elif round_ == 1:
                dev.zones[1] = B  # B back
            assert reader.recv(0.3) is None
            socat.plug(dev)
            events += collect(reader, lambda ev: sum(s == "ONLINE" for _, s in status_events(ev)) >= 4)
        events += settle(reader)
        assert card_events(events) == [
            (0, A, True),
            (1, B, True),
            (1, B, False),  # seen at the first replug
            (2, D, True),
            (1, B, True),  # seen at the second replug; the third changes nothing
        ]
        assert reader.present == (A, B, D, None)
        counters = reader.health().counters
        assert counters["connects"] == 4
        assert counters["disconnects"] == 3
