"""Shared helpers of the reader tests: a protocol device on a pseudo-terminal behind a stable path."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tablepi.readers.base import Reader
from tablepi.readers.events import ReaderEvent, ZoneEvent, ZoneStatus
from tests.readers.device import DeviceEmulator
from tests.waits import wait_until


class PtyDevice:
    """An emulated reader at ``path``, a symlink to the current pty, like the udev symlink on the Pi.

    :meth:`unplug` closes the device side and removes the link; :meth:`replug` makes a new pty pair and points
    the link at it, with the same zone truth on the device.
    """

    def __init__(self, directory: Path, heartbeat: float | None = 1.0) -> None:
        self.path = directory / "tablepi-reader"
        self.device = DeviceEmulator(heartbeat=heartbeat)
        self._slave: int | None = None
        self.replug()

    def replug(self) -> None:
        master, slave = os.openpty()
        self._close_slave()
        self._slave = slave  # held open so the master side never sees EIO between host connections
        self.device.attach(master)
        tmp = self.path.with_suffix(".new")
        tmp.unlink(missing_ok=True)
        tmp.symlink_to(os.ttyname(slave))
        tmp.replace(self.path)

    def unplug(self) -> None:
        self.path.unlink(missing_ok=True)
        self.device.detach()
        self._close_slave()

    def _close_slave(self) -> None:
        if self._slave is not None:
            os.close(self._slave)
            self._slave = None

    def close(self) -> None:
        self.unplug()


@pytest.fixture
def pty_device(tmp_path: Path) -> Iterator[PtyDevice]:
    dev = PtyDevice(tmp_path)
    yield dev
    dev.close()


def collect(reader: Reader, until: Callable[[list[ReaderEvent]], bool], timeout: float = 30.0) -> list[ReaderEvent]:
    """Read events until ``until(events)`` holds; fail with what was seen if it does not in ``timeout``."""
    events: list[ReaderEvent] = []

    def done() -> bool:
        if not until(events) and (event := reader.recv(0.05)) is not None:
            events.append(event)
        return until(events)

    wait_until(done, lambda: f"the reader's events to meet the condition; events: {[str(e) for e in events]}",
               timeout, every=0)
    return events


def settle(reader: Reader, quiet: float = 0.3) -> list[ReaderEvent]:
    """Read until nothing arrives for ``quiet`` seconds."""
    events: list[ReaderEvent] = []
    while (ev := reader.recv(quiet)) is not None:
        events.append(ev)
    return events


def card_events(events: list[ReaderEvent]) -> list[tuple[int, str, bool]]:
    return [(e.zone, e.uid, e.present) for e in events if isinstance(e, ZoneEvent)]


def status_events(events: list[ReaderEvent]) -> list[tuple[int, str]]:
    return [(e.zone, e.state.name) for e in events if isinstance(e, ZoneStatus)]


@pytest.fixture(scope="session")
def pcscd(tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    """A real pcscd with four vpcd reader slots for the whole session; stopped at the end."""
    from .pcscd import Pcscd, missing

    try:
        import smartcard  # noqa: F401
    except ImportError:
        missing("pyscard (pip install 'tablepi[pcsc]')")

    daemon = Pcscd(tmp_path_factory.mktemp("pcscd"))
    daemon.start()
    yield daemon
    daemon.stop()
