"""Reader firmware speed: SPI register accesses per scan, converted to time on a Pico by a stated cost model.

The real firmware sources run against four emulated MFRC522 (tablepi.emulator). The emulator counts every
SPI transaction and byte and the time each command spends on air (frame times, the tag's frame delay, or the
chip's timer period when nobody answers). A manual clock advances by

    per SPI transaction : PER_ACCESS_US  (MicroPython call + two chip-select toggles + write/readinto call)
    per SPI byte        : 8 / SPI_HZ     (the bus itself)
    per loop step       : STEP_US        (scanner/app Python between zone scans, input poll, WDT feed)
    air time            : as counted by the emulator

so the figures below are what the firmware would do on the board under that model, not how fast this
computer runs Python. Targets: every zone scanned at least 50 times a second; a card reported (PLACE sent)
within 30 ms of landing on its zone.

Run: python bench/bench_firmware.py
"""

from __future__ import annotations

import random
import statistics
from types import SimpleNamespace

from tablepi.emulator.board import EmulatedBoard, ManualClock
from tablepi.emulator.firmware import load_firmware
from tablepi.emulator.tags import Ntag213

SPI_HZ = 4_000_000  # firmware/config.py SPI_BAUDRATE
PER_ACCESS_US = 35.0  # assumed MicroPython overhead per register access on an RP2040 at 125 MHz
STEP_US = 150.0  # assumed Python work per loop step besides SPI (scanner logic, ipoll, timers, WDT)
TARGET_RATE = 50
TARGET_LATENCY_MS = 30


class NullPort:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def readinto(self, buf: bytearray) -> int:
        return 0

    def write(self, data: bytes) -> None:
        self.lines.extend(data.decode().splitlines())


def make(fw: SimpleNamespace) -> SimpleNamespace:
    clock = ManualClock(start_ms=5000)
    board = EmulatedBoard(clock, spi_cost_us=PER_ACCESS_US, spi_byte_us=8e6 / SPI_HZ)
    port = NullPort()
    app = fw.app.App(fw.config, board.bus, board.cs_pins, board.led_pins, board.buzzer, port, clock, board.wdt)
    app.start()
    return SimpleNamespace(clock=clock, board=board, port=port, app=app)


def make_with_missing(fw: SimpleNamespace) -> SimpleNamespace:
    """Like make(), but the module of zone 3 is not there at boot (FAULT, retried every FAULT_RETRY_MS)."""
    clock = ManualClock(start_ms=5000)
    board = EmulatedBoard(clock, spi_cost_us=PER_ACCESS_US, spi_byte_us=8e6 / SPI_HZ)
    board.chips[3].fail("absent")
    port = NullPort()
    app = fw.app.App(fw.config, board.bus, board.cs_pins, board.led_pins, board.buzzer, port, clock, board.wdt)
    app.start()
    return SimpleNamespace(clock=clock, board=board, port=port, app=app)


def step(rig: SimpleNamespace) -> None:
    rig.app.step()
    rig.clock.advance_us(STEP_US)


def round_cost(rig: SimpleNamespace, rounds: int = 200) -> dict[str, float]:
    """Average per round of four zone scans: accesses, bytes, air time, modelled time."""
    for _ in range(8):
        step(rig)  # settle
    rig.board.reset_counters()
    t0 = rig.clock.us
    for _ in range(rounds * 4):
        step(rig)
    elapsed = rig.clock.us - t0
    return {
        "accesses": rig.board.bus.transactions / rounds,
        "bytes": rig.board.bus.bytes_clocked / rounds,
        "air_us": rig.board.air_time_us / rounds,
        "round_us": elapsed / rounds,
        "rate": 1e6 / (elapsed / rounds),
    }


def detection(fw: SimpleNamespace, trials: int = 60) -> dict[str, float]:
    """Land a card at many phases of the scan cycle; time until PLACE, and the accesses of the read."""
    latencies = []
    accesses = []
    rnd = random.Random(1)
    for trial in range(trials):
        rig = make(fw)
        for _ in range(8 + rnd.randrange(8)):
            step(rig)
        rig.clock.advance_us(rnd.uniform(0, 1500))  # land somewhere inside a scan
        zone = rnd.randrange(4)
        landed = rig.clock.us
        rig.board.chips[zone].place(Ntag213.numbered(trial))
        rig.port.lines.clear()
        before = rig.board.chips[zone].accesses
        idle_accesses = None
        while not any(" PLACE " in line for line in rig.port.lines):
            scanning = rig.app._next == zone  # the benchmark looks inside on purpose
            count_before = rig.board.chips[zone].accesses
            step(rig)
            if scanning:
                idle_accesses = rig.board.chips[zone].accesses - count_before
            assert rig.clock.us - landed < 1e6, "card never reported"
        latencies.append((rig.clock.us - landed) / 1000)
        accesses.append(idle_accesses if idle_accesses is not None else rig.board.chips[zone].accesses - before)
    return {
        "mean_ms": statistics.mean(latencies),
        "max_ms": max(latencies),
        "accesses": statistics.mean(accesses),
    }


def main() -> None:
    fw = load_firmware()
    print("tablepi reader firmware benchmark (real firmware sources on emulated MFRC522)")
    print(
        f"cost model: SPI {SPI_HZ / 1e6:.0f} MHz ({8e6 / SPI_HZ:.1f} us/byte), "
        f"{PER_ACCESS_US:.0f} us MicroPython overhead per register access, "
        f"{STEP_US:.0f} us Python per loop step; chip timeout {fw.config.TIMEOUT_TICKS * 25} us"
    )

    idle = round_cost(make(fw))
    print(
        f"idle, 4 empty zones : {idle['accesses'] / 4:5.1f} accesses/zone scan, {idle['accesses']:5.1f}/round,"
        f" air {idle['air_us'] / 1000:.2f} ms/round, round {idle['round_us'] / 1000:.2f} ms"
        f" -> {idle['rate']:.0f} scans/s per zone (target >= {TARGET_RATE})"
    )

    rig = make(fw)
    for z, chip in enumerate(rig.board.chips):
        chip.place(Ntag213.numbered(100 + z))
    for _ in range(40):
        step(rig)
    resting = round_cost(rig)
    print(
        f"4 cards resting     : {resting['accesses'] / 4:5.1f} accesses/zone scan, "
        f"{resting['accesses']:5.1f}/round, air {resting['air_us'] / 1000:.2f} ms/round, "
        f"round {resting['round_us'] / 1000:.2f} ms -> {resting['rate']:.0f} scans/s per zone"
        f" (incl. one full UID verify per zone per second)"
    )

    rig = make_with_missing(fw)
    missing = round_cost(rig, rounds=1000)
    print(
        f"zone 3 unplugged    : {missing['round_us'] / 1000:5.2f} ms/round -> {missing['rate']:.0f} scans/s per"
        f" working zone (re-initialised every {fw.config.FAULT_RETRY_MS} ms, {fw.config.RESET_MS} ms reset wait)"
    )

    det = detection(fw)
    print(
        f"card detection      : {det['accesses']:5.1f} accesses for the scan that reads and reports it;"
        f" landing -> PLACE mean {det['mean_ms']:.1f} ms, worst {det['max_ms']:.1f} ms"
        f" (target <= {TARGET_LATENCY_MS} ms)"
    )
    ok = idle["rate"] >= TARGET_RATE and resting["rate"] >= TARGET_RATE and det["max_ms"] <= TARGET_LATENCY_MS
    print("targets met" if ok else "TARGETS MISSED")


if __name__ == "__main__":
    main()
