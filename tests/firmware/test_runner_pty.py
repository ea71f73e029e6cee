"""End to end: the real firmware on four emulated readers writes the protocol to a pseudo-terminal.

First read with this test's own protocol parsing (independent of the host code), then through the host's
serial reader backend, which must see the cards the firmware reports.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator

import pytest
import serial

from tablepi.emulator.runner import FirmwareRunner, _command
from tablepi.emulator.tags import Ntag213
from tablepi.errors import ParseError
from tablepi.readers import ZoneEvent, ZoneState, open_reader
from tablepi.readers.events import ReaderEvent, ZoneStatus
from tests.firmware.firmware_rig import frame, parse
from tests.readers.conftest import collect
from tests.waits import wait_until

A = "04A1B2C3D4E5F6"
B = "04B0B0B0B0B0B0"

pytestmark = pytest.mark.slow


@pytest.fixture
def runner() -> Iterator[FirmwareRunner]:
    with FirmwareRunner.on_pty() as r:
        yield r
    assert r.resets == 0


def read_until(port: serial.Serial, want: Callable[[list[str]], bool], timeout: float = 3.0) -> list[list[str]]:
    """Read and check lines until one satisfies want; every line must carry a good CRC."""
    seen: list[list[str]] = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        raw = port.readline()
        if not raw.endswith(b"\n"):
            continue
        _seq, fields = parse(raw.decode("ascii").rstrip("\n"))
        seen.append(fields)
        if want(fields):
            return seen
    pytest.fail(f"not seen in {timeout} s; lines: {seen}")


def test_firmware_speaks_the_protocol_on_a_pty(runner: FirmwareRunner) -> None:
    assert runner.path
    with serial.Serial(runner.path, 115200, timeout=0.1) as port:
        port.write(frame("0 HELLO?"))
        read_until(port, lambda f: f[0] == "HELLO" and f[1:] == ["2", "tablepi-fw/1.1.0", "4"])
        read_until(port, lambda f: f == ["STATE", "-", "-", "-", "-"])
        runner.place(1, A)
        t0 = time.monotonic()
        read_until(port, lambda f: f[:3] == ["PLACE", "1", A])
        assert time.monotonic() - t0 < 1.0
        runner.lift(1)
        read_until(port, lambda f: f[:3] == ["LIFT", "1", A])
        port.write(frame("1 LED 3 ON"))
        read_until(port, lambda f: f == ["ACK", "1"])
        assert runner.board.led_pins[3]() == 1
        read_until(port, lambda f: f[0] == "HB" and all(int(r) > 0 for r in f[4:8]))  # every zone scanned


def test_scan_rate_on_the_firmwares_own_time(runner: FirmwareRunner) -> None:
    """At least 50 scans a second per zone, as the firmware runs here (CPython, chips sleeping their air time).

    Measured over the firmware thread's own time (its CPU time, the air time slept, the waits it asked for),
    not over wall time: a loaded machine only adds time waiting for a CPU, which would make a wall-clock rate
    fail; a slower scan (more Python per scan, more commands on air) still lowers this rate. The rate on the
    modelled Pico is test_scanner's (emulated time) and bench/bench_firmware.py's.
    """
    scanner = runner.app.scanner  # type: ignore[attr-defined]
    wait_until(lambda: scanner.scans >= 50, "the firmware to scan", every=0.05)
    scans0, own0 = scanner.scans, runner.own_time()
    wait_until(lambda: scanner.scans - scans0 >= 4000, "the firmware to scan 4000 more times", 60, every=0.05)
    scans1, own1 = runner.app.scanner.scans, runner.own_time()  # type: ignore[attr-defined]
    rate = (scans1 - scans0) / 4 / (own1 - own0)
    print(f"scan rate per zone on the firmware's own time: {rate:.0f}/s")
    assert rate >= 250  # 800-2400 measured here; the board needs 50 (a slowdown of 3x fails, not a busy machine)


def test_serial_backend_sees_the_cards_the_firmware_reads(runner: FirmwareRunner) -> None:
    def card(zone: int, uid: str, present: bool) -> Callable[[list[ReaderEvent]], bool]:
        return lambda evs: any(
            isinstance(e, ZoneEvent) and (e.zone, e.uid, e.present) == (zone, uid, present) for e in evs
        )

    runner.place(2, A)  # lying there before the host connects: the snapshot must report it
    scanner = runner.app.scanner  # type: ignore[attr-defined]
    wait_until(lambda: scanner.zones[2].state == runner.fw.scanner.PRESENT, "the firmware to read the card")
    reader = open_reader("serial", port=runner.path, backoff_initial=0.05, backoff_max=0.2)
    try:
        collect(reader, card(2, A, True))
        runner.place(0, B)
        collect(reader, card(0, B, True))
        runner.lift(2)
        collect(reader, card(2, A, False))
        runner.fail(3, "hung")
        collect(
            reader,
            lambda evs: any(isinstance(e, ZoneStatus) and e.zone == 3 and e.state is ZoneState.FAULT for e in evs),
        )
        runner.repair(3)
        runner.place(3, Ntag213("04C0C0C0C0C0C0"))
        collect(reader, card(3, "04C0C0C0C0C0C0", True))
        assert reader.present == (B, None, None, "04C0C0C0C0C0C0")
    finally:
        reader.close()


def test_program_commands(runner: FirmwareRunner) -> None:
    assert _command(runner, f"place 1 {A}")
    assert [t.uid_hex for t in runner.board.chips[1].tags] == [A]
    assert _command(runner, f"lift 1 {A}")
    assert runner.board.chips[1].tags == []
    assert _command(runner, "fail 2 hung") and runner.board.chips[2].failures.fault == "hung"
    assert _command(runner, "repair 2") and runner.board.chips[2].failures.fault is None
    assert not _command(runner, "quit")
    with pytest.raises(ParseError):
        runner.place(7, A)
