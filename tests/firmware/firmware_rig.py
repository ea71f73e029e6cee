"""Helpers for the firmware tests: a fake serial port, protocol framing, the App on an emulated board."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from types import SimpleNamespace

from tablepi.emulator.board import EmulatedBoard, ManualClock

# Cost model of the Pico (see bench/bench_firmware.py): charged to the manual clock in app tests so that
# quiet times and rates are seen as on the board.
SPI_COST_US = 40.0
SPI_BYTE_US = 2.0


class FakePort:
    """The app's serial port: bytes queued by the test are read, lines written are kept."""

    def __init__(self) -> None:
        self.incoming = bytearray()
        self.written = bytearray()

    def readinto(self, buf: bytearray) -> int:
        n = min(len(buf), len(self.incoming))
        buf[:n] = self.incoming[:n]
        del self.incoming[:n]
        return n

    def write(self, data: bytes) -> None:
        self.written += data

    def lines(self) -> list[str]:
        """Every complete line written so far, consumed."""
        text = self.written.decode("ascii")
        *complete, rest = text.split("\n")
        self.written = bytearray(rest.encode())
        return complete


def crc16(data: bytes) -> int:
    """An independent CRC-16/CCITT-FALSE, bit by bit, to check the firmware's table version against."""
    crc = 0xFFFF
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) & 0xFFFF if crc & 0x8000 else (crc << 1) & 0xFFFF
    return crc


def frame(body: str) -> bytes:
    """A host line with its CRC."""
    return f"{body} *{crc16(body.encode()):04X}\n".encode()


def parse(line: str) -> tuple[int, list[str]]:
    """Check a device line's CRC and split it: (seq, [TYPE, fields...])."""
    body, star, crc = line.rpartition(" *")
    assert star, f"no CRC in {line!r}"
    assert int(crc, 16) == crc16(body.encode()), f"bad CRC in {line!r}"
    seq, *fields = body.split(" ")
    return int(seq), fields


class Rig:
    """The firmware App on an emulated board with a manual clock."""

    def __init__(
        self,
        fw: SimpleNamespace,
        port: Callable[[ManualClock], FakePort] | None = None,
        start_ms: int = 1000,
        seed: int = 0,
        **config: object,
    ) -> None:
        self.fw = fw
        self.clock = ManualClock(start_ms=start_ms)
        self.board = EmulatedBoard(self.clock, spi_cost_us=SPI_COST_US, spi_byte_us=SPI_BYTE_US, seed=seed)
        self.port = port(self.clock) if port is not None else FakePort()
        cfg = SimpleNamespace(**{k: getattr(fw.config, k) for k in dir(fw.config) if k.isupper()})
        for key, value in config.items():
            setattr(cfg, key, value)
        self.cfg = cfg
        wiring = [self.board.wdt]
        if "rst_pin" in inspect.signature(fw.app.App).parameters:  # firmware before 1.1 had no hard reset
            wiring.append(self.board.rst_pin)
        self.app = fw.app.App(
            cfg,
            self.board.bus,
            self.board.cs_pins,
            self.board.led_pins,
            self.board.buzzer,
            self.port,
            self.clock,
            *wiring,
        )
        self.log: list[tuple[int, list[str]]] = []
        self.stamps: list[tuple[str, int, int]] = []  # (PLACE/LIFT, zone, device uptime ms) of every event

    @property
    def chips(self) -> list:
        return self.board.chips

    def start(self) -> list[list[str]]:
        self.app.start()
        return self.events()

    def run_ms(self, ms: float) -> list[list[str]]:
        """Run the loop for ms of emulated time; the messages sent meanwhile, without HB."""
        end = self.clock.us + ms * 1000
        while self.clock.us < end:
            self.app.step()
            self.clock.advance_us(20)  # the loop's own Python work between scans
        return self.events()

    def events(self, keep_hb: bool = False) -> list[list[str]]:
        """Messages sent since the last call; PLACE / LIFT without their v2 time field (kept in ``stamps``)."""
        out = []
        for line in self.port.lines():
            seq, fields = parse(line)
            self.log.append((seq, fields))
            if fields[0] in ("PLACE", "LIFT") and len(fields) == 4:
                self.stamps.append((fields[0], int(fields[1]), int(fields[3])))
                fields = fields[:3]
            if keep_hb or fields[0] != "HB":
                out.append(fields)
        return out

    def uptime_ms(self) -> int:
        """The device's uptime now, as its v2 event times count it."""
        return self.app.uptime_at(self.clock.ticks_ms())

    def send(self, body: str) -> list[list[str]]:
        self.port.incoming += frame(body)
        self.app.step()
        return self.events()
