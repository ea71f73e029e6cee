"""An emulated SPI bus and GPIO pins with the call shapes of MicroPython's machine.SPI and machine.Pin.

The firmware driver gets these instead of the real ones and cannot tell: chip select going low starts a
transaction on the chip wired to that pin, each byte is clocked through the chip, and chip select going high
ends it. Two chips selected at once is a wiring or firmware bug and raises; a module whose MISO does not
tri-state (a known defect of some cheap MFRC522 boards) drives the shared line even when not selected, which
the bus models as a wired AND — exactly the corruption the build guide warns about.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Protocol

from tablepi.errors import ReaderError


class EmulatorError(ReaderError):
    """The emulated hardware was used in a way the real hardware would not survive (e.g. bus contention)."""


class SpiDevice(Protocol):
    """What the bus needs from a chip: transaction start/end and one byte in, one byte out."""

    tristate_miso: bool

    def begin(self) -> None: ...

    def end(self) -> None: ...

    def clock(self, mosi: int) -> int | None: ...

    def idle_miso(self) -> int: ...


class EmulatedPin:
    """A GPIO pin like machine.Pin: ``pin(v)``, ``pin.value(v)``, ``pin()``, ``on()``, ``off()``.

    Listeners hear every change (chip select uses this); ``history`` keeps (ticks, value) for LED and buzzer
    tests when a clock is given.
    """

    OUT = 1
    IN = 0

    def __init__(self, pin_id: int, value: int = 0, clock: Callable[[], int] | None = None) -> None:
        self.id = pin_id
        self._value = value
        self._clock = clock
        self._listeners: list[Callable[[int], None]] = []
        self.history: list[tuple[int, int]] = []

    def __repr__(self) -> str:
        return f"EmulatedPin({self.id}, value={self._value})"

    def on_change(self, listener: Callable[[int], None]) -> None:
        self._listeners.append(listener)

    def init(self, mode: int = OUT, value: int | None = None) -> None:
        if value is not None:
            self.value(value)

    def value(self, v: int | None = None) -> int:
        if v is None:
            return self._value
        v = 1 if v else 0
        if v != self._value:
            self._value = v
            if self._clock is not None:
                self.history.append((self._clock(), v))
            for listener in self._listeners:
                listener(v)
        return v

    def __call__(self, v: int | None = None) -> int:
        return self.value(v)

    def on(self) -> None:
        self.value(1)

    def off(self) -> None:
        self.value(0)


class EmulatedSpiBus:
    """One SPI bus (like machine.SPI) with chips attached by their chip-select pins.

    ``transactions`` and ``bytes_clocked`` count traffic for the benchmark; ``on_transaction`` is called
    with the byte count at the end of every transaction (a test clock charges SPI time through it).
    """

    def __init__(self, miso_idle: int = 0x00) -> None:
        # RP2040 pads have a pull-down by default: a MISO nobody drives reads 0x00.
        self.miso_idle = miso_idle
        self._devices: list[tuple[SpiDevice, EmulatedPin]] = []
        self._selected: SpiDevice | None = None
        self._bytes_in_transaction = 0
        self.transactions = 0
        self.bytes_clocked = 0
        self.on_transaction: Callable[[int], None] | None = None

    def attach(self, device: SpiDevice, cs: EmulatedPin) -> None:
        """Wire a chip to the bus; its chip-select pin is active low and starts high."""
        cs.value(1)
        self._devices.append((device, cs))
        cs.on_change(functools.partial(self._cs_changed, device))

    def _cs_changed(self, device: SpiDevice, value: int) -> None:
        if value == 0:
            if self._selected is not None and self._selected is not device:
                raise EmulatorError("two chips selected at once on the shared SPI bus", backend="emulator")
            self._selected = device
            self._bytes_in_transaction = 0
            device.begin()
        elif self._selected is device:
            device.end()
            self._selected = None
            self.transactions += 1
            if self.on_transaction is not None:
                self.on_transaction(self._bytes_in_transaction)

    def _xfer(self, mosi: int) -> int:
        self.bytes_clocked += 1
        self._bytes_in_transaction += 1
        miso = self.miso_idle
        selected = self._selected
        if selected is not None:
            out = selected.clock(mosi & 0xFF)
            if out is not None:
                miso = out
        for device, _cs in self._devices:
            if not device.tristate_miso and device is not selected:
                miso &= device.idle_miso()
        return miso

    # --- machine.SPI interface ------------------------------------------------------------------------
    def write(self, buf: bytes | bytearray | memoryview) -> None:
        for b in bytes(buf):
            self._xfer(b)

    def readinto(self, buf: bytearray | memoryview, write: int = 0x00) -> None:
        for i in range(len(buf)):
            buf[i] = self._xfer(write)

    def read(self, n: int, write: int = 0x00) -> bytes:
        buf = bytearray(n)
        self.readinto(buf, write)
        return bytes(buf)

    def write_readinto(self, wbuf: bytes | bytearray | memoryview, rbuf: bytearray | memoryview) -> None:
        if len(wbuf) != len(rbuf):
            raise ValueError("write_readinto needs buffers of the same length")
        data = bytes(wbuf)
        for i, b in enumerate(data):
            rbuf[i] = self._xfer(b)

    def init(self, *args: object, **kwargs: object) -> None:
        """machine.SPI.init: nothing to configure on an emulated bus."""
