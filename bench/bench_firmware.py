"""Reader firmware speed: SPI register accesses per scan, converted to time on a Pico by a stated cost model.

The real firmware sources run against four emulated MFRC522 (tablepi.emulator). The emulator counts every
SPI transaction and byte and the time each command spends on air (frame times, the tag's frame delay, or the
chip's timer period when nobody answers). A manual clock advances by

    per SPI transaction : PER_ACCESS_US  (MicroPython call + two chip-select toggles + write/readinto call;
                                          35 and 50 us, the range reported for MicroPython on the RP2040)
    per SPI byte        : 8 / SPI_HZ     (the bus itself)
    per loop step       : STEP_US        (scanner/app Python between zone scans, input poll, WDT feed)
    air time            : as counted by the emulator

so the figures below are what the firmware would do on the board under that model, not how fast this
computer runs Python. Targets: every zone scanned at least 50 times a second; a card reported (PLACE sent)
within 30 ms of landing on its zone (at 50 us per access too). Also measured: lift -> LIFT (the line leaves
after the 200 ms quiet time and a re-check of the reader) and how far the LIFT's own time (protocol v2: the
card's last answer) is from the moment the card left.

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
PER_ACCESS_US = (35.0, 50.0)  # assumed MicroPython overhead per register access on an RP2040 at 125 MHz
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


def make(fw: SimpleNamespace, access_us: float, missing: int | None = None) -> SimpleNamespace:
    """The firmware on a board whose register accesses cost ``access_us``; zone ``missing`` unplugged."""
    clock = ManualClock(start_ms=5000)
    board = EmulatedBoard(clock, spi_cost_us=access_us, spi_byte_us=8e6 / SPI_HZ)
    if missing is not None:
        board.chips[missing].fail("absent")
    port = NullPort()
    app = fw.app.App(
        fw.config, board.bus, board.cs_pins, board.led_pins, board.buzzer, port, clock, board.wdt, board.rst_pin
    )
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


def _until(rig: SimpleNamespace, kind: str, since: float, limit_us: float = 2e6) -> str:
    while not any(f" {kind} " in line for line in rig.port.lines):
        step(rig)
        assert rig.clock.us - since < limit_us, f"no {kind}"
    return next(line for line in rig.port.lines if f" {kind} " in line)


def detection(fw: SimpleNamespace, access_us: float, trials: int = 60) -> dict[str, list[float]]:
    """Land a card at many phases of the scan cycle, let it rest, lift it: landing -> PLACE, lift -> LIFT
    (the line), and the LIFT's own time (last answer) minus the moment the card left."""
    to_place, to_lift, lift_dating = [], [], []
    rnd = random.Random(1)
    for trial in range(trials):
        rig = make(fw, access_us)
        for _ in range(8 + rnd.randrange(8)):
            step(rig)
        rig.clock.advance_us(rnd.uniform(0, 1500))  # land somewhere inside a scan
        zone = rnd.randrange(4)
        tag = Ntag213.numbered(trial)
        landed = rig.clock.us
        rig.board.chips[zone].place(tag)
        rig.port.lines.clear()
        _until(rig, "PLACE", landed)
        to_place.append((rig.clock.us - landed) / 1000)
        for _ in range(rnd.randrange(200, 400)):
            step(rig)
        rig.clock.advance_us(rnd.uniform(0, 1500))
        lifted = rig.clock.us
        lifted_uptime = rig.app.uptime_at(rig.clock.ticks_ms())
        rig.board.chips[zone].lift(tag)
        rig.port.lines.clear()
        line = _until(rig, "LIFT", lifted)
        to_lift.append((rig.clock.us - lifted) / 1000)
        lift_dating.append(int(line.split()[4]) - lifted_uptime)
    return {"place": to_place, "lift": to_lift, "dating": lift_dating}


def spread(values: list[float]) -> str:
    return f"min {min(values):.1f} / median {statistics.median(values):.1f} / max {max(values):.1f} ms"


def main() -> None:
    fw = load_firmware()
    print("tablepi reader firmware benchmark (real firmware sources on emulated MFRC522)")
    print(
        f"cost model: SPI {SPI_HZ / 1e6:.0f} MHz ({8e6 / SPI_HZ:.1f} us/byte), "
        f"{' and '.join(f'{a:.0f}' for a in PER_ACCESS_US)} us MicroPython overhead per register access "
        f"(the range reported for the RP2040), {STEP_US:.0f} us Python per loop step; "
        f"chip timeout {fw.config.TIMEOUT_TICKS * 25} us"
    )
    ok = True
    for access_us in PER_ACCESS_US:
        print(f"--- {access_us:.0f} us per register access")
        idle = round_cost(make(fw, access_us))
        print(
            f"idle, 4 empty zones : {idle['accesses'] / 4:5.1f} accesses/zone scan, {idle['accesses']:5.1f}/round,"
            f" air {idle['air_us'] / 1000:.2f} ms/round, round {idle['round_us'] / 1000:.2f} ms"
            f" -> {idle['rate']:.0f} scans/s per zone (target >= {TARGET_RATE}; includes the re-initialisation"
            f" of each empty zone every {fw.config.REINIT_MS} ms)"
        )
        rig = make(fw, access_us)
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
        missing = round_cost(make(fw, access_us, missing=3), rounds=1000)
        print(
            f"zone 3 unplugged    : {missing['round_us'] / 1000:5.2f} ms/round -> {missing['rate']:.0f} scans/s per"
            f" working zone (re-initialised every {fw.config.FAULT_RETRY_MS} ms, {fw.config.RESET_MS} ms reset wait)"
        )
        det = detection(fw, access_us)
        print(f"landing -> PLACE    : {spread(det['place'])} (target max <= {TARGET_LATENCY_MS} ms; 60 landings)")
        print(f"lift -> LIFT line   : {spread(det['lift'])} (quiet time {fw.config.REMOVE_QUIET_MS} ms + re-check)")
        print(f"LIFT time - lift    : {spread(det['dating'])} (v2: the card's last answer, device uptime ms)")
        ok = ok and idle["rate"] >= TARGET_RATE and resting["rate"] >= TARGET_RATE
        ok = ok and max(det["place"]) <= TARGET_LATENCY_MS
    print("targets met" if ok else "TARGETS MISSED")


if __name__ == "__main__":
    main()
