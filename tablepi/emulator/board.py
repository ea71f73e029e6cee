"""An emulated reader board: four MFRC522 on one SPI bus, LEDs, buzzer, watchdog and a clock.

The firmware's App gets exactly what main.py would build on the Pico, only emulated. Two clocks:
``ManualClock`` moves only when told (tests and the benchmark: the chip's air time and a stated cost per SPI
transaction advance it, so timings are those of the modelled hardware, not of this computer), and
``WallClock`` follows real time (the pty runner, where the chips sleep their air time).
"""

from __future__ import annotations

import time

from tablepi.emulator.bus import EmulatedPin, EmulatedSpiBus
from tablepi.emulator.mfrc522 import EmulatedMFRC522
from tablepi.emulator.tags import Iso14443aTag

TICKS_PERIOD = 1 << 30  # MicroPython's ticks_ms wraps at 2**30 on the Pico
_HALF = TICKS_PERIOD // 2


class _Ticks:
    """ticks_add / ticks_diff with MicroPython's wrap-around arithmetic."""

    @staticmethod
    def ticks_add(ticks: int, delta: int) -> int:
        return (ticks + delta) % TICKS_PERIOD

    @staticmethod
    def ticks_diff(a: int, b: int) -> int:
        return ((a - b + _HALF) % TICKS_PERIOD) - _HALF


class ManualClock(_Ticks):
    """A clock in microseconds that only moves by ``advance_us``; ticks_ms like MicroPython's."""

    def __init__(self, start_ms: int = 0) -> None:
        self.us = start_ms * 1000.0

    def advance_us(self, us: float) -> None:
        self.us += us

    def advance_ms(self, ms: float) -> None:
        self.us += ms * 1000.0

    def ticks_ms(self) -> int:
        return int(self.us // 1000) % TICKS_PERIOD

    def now_us(self) -> float:
        return self.us

    def sleep_ms(self, ms: int) -> None:
        self.advance_ms(ms)


class WallClock(_Ticks):
    """Real time, as ticks_ms. ``slept_ms`` counts what the firmware asked to sleep (reset waits)."""

    def __init__(self) -> None:
        self._t0 = time.monotonic()
        self.slept_ms = 0

    def ticks_ms(self) -> int:
        return int((time.monotonic() - self._t0) * 1000) % TICKS_PERIOD

    def now_us(self) -> float:
        return (time.monotonic() - self._t0) * 1e6

    def sleep_ms(self, ms: int) -> None:
        self.slept_ms += ms
        time.sleep(ms / 1000)


class EmulatedWDT:
    """machine.WDT: counts feeds; ``starved(now_ms)`` tells whether the board would have been reset."""

    def __init__(self, clock: ManualClock | WallClock, timeout: int = 3000) -> None:
        self._clock = clock
        self.timeout = timeout
        self.feeds = 0
        self.last_feed = clock.ticks_ms()
        self.longest_gap_ms = 0

    def feed(self) -> None:
        now = self._clock.ticks_ms()
        self.longest_gap_ms = max(self.longest_gap_ms, self._clock.ticks_diff(now, self.last_feed))
        self.last_feed = now
        self.feeds += 1


class EmulatedBoard:
    """Four emulated readers wired like hw/pinmap.json: ``chips[z]`` is the reader of zone z.

    ``spi_cost_us`` (per transaction) and ``spi_byte_us`` (per byte clocked) are charged to a ManualClock
    so the firmware sees time pass as on the Pico; ``realtime`` makes the chips sleep their air time (for
    the pty runner) instead. ``seed`` seeds the chips' random failure models (crosstalk, sliding cards).
    ``lay(zone, tag, spacing_mm=)`` lays a card and couples it faintly to the neighbouring antennas.
    """

    def __init__(
        self,
        clock: ManualClock | WallClock,
        zones: int = 4,
        versions: tuple[int, ...] = (0x92,),
        spi_cost_us: float = 0.0,
        spi_byte_us: float = 0.0,
        realtime: bool = False,
        seed: int = 0,
    ) -> None:
        self.clock = clock
        self.bus = EmulatedSpiBus()
        self.chips = [EmulatedMFRC522(versions[z % len(versions)], name=f"zone{z}") for z in range(zones)]
        self.cs_pins = [EmulatedPin(100 + z, 1) for z in range(zones)]
        self.led_pins = [EmulatedPin(200 + z, 0, clock.ticks_ms) for z in range(zones)]
        self.buzzer = EmulatedPin(300, 0, clock.ticks_ms)
        self.wdt = EmulatedWDT(clock)
        # NRSTPD of every module on one pin (hw/pinmap.json: PIN_RST), as main.py drives it; high = running.
        self.rst_pin = EmulatedPin(26, 1, clock.ticks_ms)
        for z, (chip, cs) in enumerate(zip(self.chips, self.cs_pins, strict=True)):
            self.bus.attach(chip, cs)
            self.rst_pin.on_change(chip.nrstpd)
            chip.air.rng.seed(f"{seed}/{z}")
            chip.now_us = clock.now_us  # SoftReset takes time on this clock
            if realtime:
                chip.on_air = _sleep_us
            elif isinstance(clock, ManualClock):
                chip.on_air = clock.advance_us
        if isinstance(clock, ManualClock) and (spi_cost_us or spi_byte_us):
            self.bus.on_transaction = lambda nbytes: clock.advance_us(spi_cost_us + nbytes * spi_byte_us)

    def lay(
        self, zone: int, tag: Iso14443aTag, *, slide_us: float = 0.0, spacing_mm: float | None = None,
        answer: float = 0.6, garble: float = 0.5,
    ) -> None:
        """Lay ``tag`` on ``zone``; with ``spacing_mm`` (antenna centre to centre) it is also coupled to the
        two neighbouring zones at that distance and to the opposite one at 1.41 times it (zones round a
        table), heard there whenever their gain reaches that far (EmulatedMFRC522.couple)."""
        n = len(self.chips)
        self.chips[zone].place(tag, slide_us=slide_us)
        if spacing_mm is None:
            return
        for other in range(n):
            if other == zone:
                continue
            opposite = n == 4 and (other - zone) % n == 2
            self.chips[other].couple(tag, spacing_mm * (1.41 if opposite else 1.0), answer, garble)

    def take(self, zone: int, tag: Iso14443aTag) -> None:
        """Lift ``tag`` off ``zone`` (and out of every neighbour's faint reach)."""
        self.chips[zone].lift(tag)
        for chip in self.chips:
            chip.decouple(tag)

    def reset_counters(self) -> None:
        for chip in self.chips:
            chip.stats.reset()
        self.bus.transactions = 0
        self.bus.bytes_clocked = 0

    @property
    def air_time_us(self) -> float:
        return sum(chip.stats.air_time_us for chip in self.chips)


def _sleep_us(us: float) -> None:
    time.sleep(us / 1e6)
