"""A day at the table in emulated time: the real firmware, the serial backend, the table's adapter, failures.

The firmware App runs on four emulated MFRC522 (ManualClock: the modelled Pico's time); its port is a wire
to the host's real :class:`~tablepi.readers.serial.SerialReader` (a fake pyserial on the same clock), whose
events go through :func:`tablepi.table.adapter.from_zone_event` with a deck and a zone -> seat map. Cards are
laid in tricks (four zones, any order), some only shown (lifted before the tap window), some sliding in, some
heard by the neighbouring antennas (80 mm apart at 48 dB gain); readers go deaf, hang in a soft reset, lose
setup registers, brown out. Between tricks the clock jumps (the table idles), so a day passes in a few
thousand tricks' worth of scanning.

Run by tests/firmware/test_soak.py; ``python -m tests.firmware.soak HOURS TRICKS SEED`` prints the same.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from types import SimpleNamespace

from tablepi.emulator.board import ManualClock
from tablepi.emulator.firmware import load_firmware
from tablepi.emulator.mfrc522 import RF_CFG, T_PRESCALER, TX_ASK, TX_CONTROL
from tablepi.emulator.tags import Ntag213
from tablepi.readers.events import ZoneCrosstalk, ZoneEvent
from tablepi.readers.serial import SerialReader
from tablepi.rules.cards import Card
from tablepi.rules.seats import Seat
from tablepi.table.adapter import from_zone_event
from tests.firmware.firmware_rig import Rig

TAP_WINDOW = 1.0  # seconds: the table's default (tablepi/table/state.py)
SEAT_OF_ZONE = {0: Seat.N, 1: Seat.E, 2: Seat.S, 3: Seat.W}


class Wire:
    """The USB cable: bytes each way."""

    def __init__(self) -> None:
        self.to_host = bytearray()
        self.to_device = bytearray()


class DevicePort:
    """The firmware's side (App's ``readinto`` / ``write``)."""

    def __init__(self, wire: Wire) -> None:
        self.wire = wire

    def readinto(self, buf: bytearray) -> int:
        data = self.wire.to_device
        n = min(len(buf), len(data))
        buf[:n] = data[:n]
        del data[:n]
        return n

    def write(self, data: bytes) -> None:
        self.wire.to_host += data


class HostSerial:
    """What pyserial's Serial is to the SerialReader: read / in_waiting / write / close."""

    def __init__(self, wire: Wire) -> None:
        self.wire = wire

    def read(self, n: int = 1) -> bytes:
        data = self.wire.to_host
        out = bytes(data[:n])
        del data[:n]
        return out

    @property
    def in_waiting(self) -> int:
        return len(self.wire.to_host)

    def write(self, data: bytes) -> int:
        self.wire.to_device += data
        return len(data)

    def close(self) -> None:
        pass


@dataclass
class Deck:
    """The enrolled deck: 24 numbered NTAG213, each standing for a card."""

    tags: list[Ntag213] = field(default_factory=lambda: [Ntag213.numbered(500 + i) for i in range(24)])

    def lookup(self, uid: str) -> tuple[str, Card] | None:
        for i, tag in enumerate(self.tags):
            if tag.uid_hex == uid:
                return "soak", Card.parse(["9", "10", "J", "Q", "K", "A"][i % 6] + "SHDC"[i // 6])
        return None


@dataclass
class Lay:
    """One card on one zone, as it happened (host-clock seconds)."""

    uid: str
    zone: int
    landed: float
    lifted: float = float("inf")
    show: bool = False


@dataclass
class Result:
    hours: float = 0.0
    laid: int = 0
    reported: int = 0
    wrong_seat: int = 0
    missed: int = 0
    lost: int = 0  # a card reported lifted while it still lay there (the LIFT came out before the card left)
    doubled: int = 0  # placed twice on its zone within one lay
    moved: int = 0  # landed between two antennas, first given to the neighbour, moved within the tap window
    # (wrong_seat: on another zone than its own for a whole tap window or more, i.e. played from the wrong seat)
    shows: int = 0
    shows_kept: int = 0  # reported shorter than the tap window, so the table takes them for shows
    crosstalk: int = 0  # crosstalk notices from the reader
    failures: dict[str, int] = field(default_factory=dict)

    def line(self) -> str:
        injected = ", ".join(f"{k} {v}" for k, v in sorted(self.failures.items()))
        return (
            f"soak: {self.hours:.1f} emulated hours; cards laid {self.laid} / reported {self.reported} / "
            f"wrong seat {self.wrong_seat} / missed {self.missed}; lost {self.lost}, doubled {self.doubled}, "
            f"moved within the tap window {self.moved}; shows {self.shows_kept}/{self.shows} kept; "
            f"crosstalk notices {self.crosstalk}; failures injected: {injected}"
        )


class Soak:
    def __init__(self, seed: int, fw: SimpleNamespace | None = None) -> None:
        self.rnd = random.Random(seed)
        self.fw = fw or load_firmware()
        self.wire = Wire()
        rig = Rig(self.fw, port=lambda clock: DevicePort(self.wire), seed=seed)  # type: ignore[arg-type,return-value]
        self.rig = rig
        self.clock: ManualClock = rig.clock
        self.deck = Deck()
        self.known = {t.uid_hex for t in self.deck.tags}
        self.reader = SerialReader(
            port="/dev/null",
            clock=self.host_now,
            serial_factory=lambda **_: HostSerial(self.wire),
            link_timeout=1e9,
        )
        self.reader.known = self.known.__contains__
        self.events: list[ZoneEvent] = []
        self.arrived: dict[int, float] = {}  # id(event) -> host time it came out of the reader
        self.lays: list[Lay] = []
        self.result = Result()
        self.steps = 0

    def host_now(self) -> float:
        return self.clock.us / 1e6

    # --- running ----------------------------------------------------------------------------------
    def run(self, seconds: float) -> None:
        end = self.clock.us + seconds * 1e6
        while self.clock.us < end:
            self.rig.app.step()
            self.clock.advance_us(20)
            self.steps += 1
            if self.steps % 4 == 0:
                self.drain()

    def drain(self) -> None:
        while (ev := self.reader.recv(0)) is not None:
            if isinstance(ev, ZoneEvent):
                table_event = from_zone_event(ev, SEAT_OF_ZONE, self.deck)
                assert table_event.seat is SEAT_OF_ZONE[ev.zone]
                assert (table_event.card is None) == (ev.uid not in self.known)
                self.events.append(ev)
                self.arrived[id(ev)] = self.host_now()
            elif isinstance(ev, ZoneCrosstalk):
                self.result.crosstalk += 1

    def inject(self) -> None:
        """At most one failure per trick, at random."""
        rnd = self.rnd
        chip = rnd.choice(self.rig.chips)
        kind = rnd.choice(["none", "none", "none", "deaf", "hang", "drift", "glitch"])
        if kind == "deaf":
            # deaf during this trick, cards or not, and again hours after it was cured
            chip.stop_detecting_after(rnd.uniform(0.2, 2.5) * 1e6, rnd.uniform(2, 8) * 3600e6)
        elif kind == "hang":
            chip.hang_next_soft_reset()
        elif kind == "drift":
            reg, value = rnd.choice([(RF_CFG, 0x00), (TX_ASK, 0x00), (T_PRESCALER, 0x10), (TX_CONTROL, 0x80)])
            chip.drift(reg, value)
        elif kind == "glitch":
            chip.power_glitch()
        if kind != "none":
            self.result.failures[kind] = self.result.failures.get(kind, 0) + 1

    def trick(self) -> None:
        rnd = self.rnd
        board = self.rig.board
        self.inject()
        zones = [0, 1, 2, 3]
        rnd.shuffle(zones)
        tags = rnd.sample(self.deck.tags, 4)
        lying: list[tuple[int, Ntag213, Lay]] = []
        for zone, tag in zip(zones, tags, strict=True):
            cross = rnd.random() < 0.3
            board.lay(
                zone,
                tag,
                slide_us=rnd.choice([0.0, rnd.uniform(5e3, 40e3)]),
                spacing_mm=80 if cross else None,
                answer=rnd.uniform(0.3, 0.9),
                garble=rnd.uniform(0.0, 1.0),
            )
            lay = Lay(tag.uid_hex, zone, self.host_now())
            self.lays.append(lay)
            if rnd.random() < 0.25:  # a show: tapped and taken back before the tap window
                self.run(rnd.uniform(0.3, 0.9))
                board.take(zone, tag)
                lay.lifted = self.host_now()
                lay.show = True
                self.run(rnd.uniform(0.3, 0.6))
                continue
            lying.append((zone, tag, lay))
            self.run(rnd.uniform(0.3, 1.2))  # the next player thinks
        self.run(rnd.uniform(0.5, 1.5))  # the trick lies complete
        for zone, tag, lay in lying:  # swept, one card after the other
            board.take(zone, tag)
            lay.lifted = self.host_now()
            self.run(rnd.uniform(0.02, 0.15))
        self.run(0.6)

    def play(self, hours: float, tricks: int, progress: Callable[[int], None] | None = None) -> Result:
        self.rig.app.start()
        self.run(1.5)  # the host connects, HELLO, STATE, the first heartbeats map the device clock
        start = self.clock.us
        for i in range(tricks):
            self.trick()
            idle = (start + hours * 3600e6 * (i + 1) / tricks) - self.clock.us
            if idle > 0:
                self.clock.advance_us(idle)  # the table idles (nothing on it): the firmware is not stepped
            self.run(0.3)
            if progress is not None:
                progress(i)
        self.run(1.0)
        self.result.hours = (self.clock.us - start) / 3600e6
        self.judge()
        return self.result

    # --- judging -----------------------------------------------------------------------------------
    def judge(self) -> None:
        r = self.result
        slack = 0.05  # seconds: a card is read at most a scan round after it lands, and last heard before it left
        for lay in self.lays:
            r.laid += 1
            r.shows += lay.show
            during = [
                e for e in self.events if e.uid == lay.uid and lay.landed - slack <= e.time <= lay.lifted + 1.0
            ]
            own = [e for e in during if e.zone == lay.zone]
            places = [e for e in own if e.present]
            if places:
                r.reported += 1
            else:
                r.missed += 1
            r.doubled += max(0, len(places) - 1)
            r.lost += sum(1 for e in own if not e.present and self.arrived[id(e)] < lay.lifted)
            if lay.show and places:
                lifts = [e for e in own if not e.present]
                if lifts and lifts[0].time - places[0].time < TAP_WINDOW:
                    r.shows_kept += 1
            other = [e for e in during if e.zone != lay.zone]
            if other:
                first_lift = next((e.time for e in other if not e.present), float("inf"))
                first_place = next(e.time for e in other if e.present)
                if first_lift - first_place < TAP_WINDOW:
                    r.moved += 1  # at worst a show on the neighbour's seat, taken back within the tap window
                else:
                    r.wrong_seat += 1  # it lay on the wrong zone for the tap window: a play from the wrong seat


def main(argv: list[str]) -> int:
    hours, tricks, seed = float(argv[0]), int(argv[1]), int(argv[2])
    result = Soak(seed).play(hours, tricks)
    print(result.line())
    return 0 if result.wrong_seat == 0 and result.missed == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
