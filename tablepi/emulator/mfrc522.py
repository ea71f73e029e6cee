"""An NXP MFRC522 emulated at register level, behind the SPI byte protocol of the real chip.

What is emulated, because the firmware relies on it:

* SPI framing: an address byte (bit 7 = read, bits 6..1 = register, bit 0 = 0). A read answers each
  following byte with the register named by the byte before, the next byte naming the next register (0x00
  ends); a write stores every following byte in the same register (how the FIFO is filled in one burst).
* FIFODataReg / FIFOLevelReg (64 bytes, FlushBuffer, BufferOvfl), CommandReg (Idle, Mem, GenerateRandomID,
  CalcCRC, Transmit, NoCmdChange, Receive, Transceive, SoftReset), ComIrqReg / DivIrqReg with the Set1/Set2
  write semantics, ErrorReg (CollErr, CRCErr, BufferOvfl, ProtocolErr), CollReg (CollPos, ValuesAfterColl),
  BitFramingReg (StartSend, RxAlign, TxLastBits), ControlReg (RxLastBits), TxControlReg (the antenna
  drivers: the field is on while either is), TxModeReg / RxModeReg CRC enables, the timer
  (TModeReg TAuto + prescaler, TPrescalerReg, TReloadReg -> TimerIRq when no tag answers in time; with TAuto
  off nothing ends a Transceive, as on the real chip), the CRC coprocessor (CRC_A with the ModeReg preset)
  and VersionReg.
* The air: every tag in the field gets the transmitted bits; all answers are merged bit by bit, and where
  they differ that is a collision (CollErr, CollPos), as two cards on one antenna produce.

Where the datasheet leaves a behaviour open, the emulator takes the reading that is harder on the firmware,
so that code which only works on a kind chip fails here first:

* ``StartSend`` (BitFramingReg bit 7) stays set until it is written 0 — the datasheet does not say it clears
  itself, and every public driver clears it. Writing CommandReg = Transceive while it is still set starts a
  transmission at once, with whatever ``TxLastBits`` the register holds then.
* Transmit starts sending when CommandReg is written, with the ``TxLastBits`` of that moment: framing written
  after the command comes too late.
* SoftReset takes ``RESET_US`` (the datasheet gives no figure; public drivers wait 50 ms): until then the
  chip ignores writes and its reads return 0x00 (PowerDown does not announce the reset either). A driver
  must wait before it sets the chip up. Needs ``now_us`` (set by EmulatedBoard); without it the reset is
  instant.
* With TAuto set, the timer also starts at the end of a Transmit (HLTA), as the datasheet says for every
  transmission; ``timer_running`` shows it until the timer ends or ControlReg TStopNow stops it.

Time is not simulated by stalling: each command finishes at once and the time it would have taken on air
(frame times, frame delay, or the timer period when nobody answers) is added to ``stats.air_time_us`` and passed
to ``on_air`` — a test clock advances by it, the pty runner sleeps it.

Failures for tests: ``fail("absent")`` (nothing drives MISO), ``fail("version", 0x12)`` (a clone or a dead
chip), ``fail("hung")`` (commands never end), ``power_glitch()`` (all registers back to reset values).

The failure modes builders of multi-reader RC522 tables report (docs/firmware.md, "Failures modelled"):

* ``stop_detecting_after(us)``: the module goes deaf after that much emulated time — registers read and write
  as ever, no tag answer is heard — until a soft or hard reset; then it happens again after the same time.
* ``hang_next_soft_reset()``: the next SoftReset never completes (PowerDown stays set, writes are lost) until
  a hard reset through NRSTPD (``nrstpd(0)`` / ``nrstpd(1)``, wired by EmulatedBoard to its ``rst_pin``).
* ``drift(reg, value)``: a setup register changes by itself. The setup has physical effects: without
  Force100ASK (TxASKReg) tags do not understand the reader, and RFCfgReg RxGain sets how far a tag is heard
  (``OWN_RANGE_MM`` for a tag on the antenna, ``FAINT_RANGE_MM`` for a neighbour's; ``tag.distance_mm``).
* ``couple(tag, distance_mm, answer=, garble=)``: a tag lying on a neighbour's antenna, heard faintly when
  the gain reaches that far: per read (from REQA/WUPA to the next) it is silent, heard cleanly, or heard
  garbled — a complete, valid-looking read (BCC right, SAK CRC right) of a UID with 2-4 wrong bits, the same
  wrong bits for the whole read (the hardest case: only two reads that disagree give it away). A tag on the
  antenna itself captures the receiver: while it answers, faint answers are not heard; two faint answers at
  once drown each other into a damaged frame.
* ``place(tag, slide_us=)``: a card still sliding in: until then each read is silent, partial (the answer cut
  short), garbled or clean at random. Every tag also needs ``tag.power_up_us`` (ISO/IEC 14443-3: up to 5 ms)
  after entering the field or the field coming on before it answers anything.
* Stacks: when ``air.freeze_at`` (3) tags or more answer at once the reception never ends (no RxIRq, no
  TimerIRq) until the command is stopped: the receiver "freezes", as builders report for stacked cards.

Randomness comes from ``air.rng`` (seeded per chip by EmulatedBoard), so a failing run can be replayed.
"""

from __future__ import annotations

import random
import threading
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from tablepi.emulator.tags import CASCADE_TAG, Iso14443aTag, from_bits, to_bits

# Registers (datasheet section 9.2).
COMMAND = 0x01
COM_IEN = 0x02
DIV_IEN = 0x03
COM_IRQ = 0x04
DIV_IRQ = 0x05
ERROR = 0x06
STATUS1 = 0x07
STATUS2 = 0x08
FIFO_DATA = 0x09
FIFO_LEVEL = 0x0A
WATER_LEVEL = 0x0B
CONTROL = 0x0C
BIT_FRAMING = 0x0D
COLL = 0x0E
MODE = 0x11
TX_MODE = 0x12
RX_MODE = 0x13
TX_CONTROL = 0x14
TX_ASK = 0x15
CRC_RESULT_H = 0x21
CRC_RESULT_L = 0x22
RF_CFG = 0x26
T_MODE = 0x2A
T_PRESCALER = 0x2B
T_RELOAD_H = 0x2C
T_RELOAD_L = 0x2D
VERSION = 0x37

# Commands.
CMD_IDLE = 0x0
CMD_MEM = 0x1
CMD_RANDOM_ID = 0x2
CMD_CALC_CRC = 0x3
CMD_TRANSMIT = 0x4
CMD_NO_CHANGE = 0x7
CMD_RECEIVE = 0x8
CMD_TRANSCEIVE = 0xC
CMD_MF_AUTHENT = 0xE
CMD_SOFT_RESET = 0xF

# ComIrqReg / DivIrqReg / ErrorReg bits.
IRQ_TX = 0x40
IRQ_RX = 0x20
IRQ_IDLE = 0x10
IRQ_ERR = 0x02
IRQ_TIMER = 0x01
DIV_CRC = 0x04
ERR_BUFFER_OVFL = 0x10
ERR_COLL = 0x08
ERR_CRC = 0x04
ERR_PROTOCOL = 0x01

FIFO_SIZE = 64
CARRIER_HZ = 13_560_000
BIT_US = 128 / CARRIER_HZ * 1e6  # one bit at 106 kbit/s: 9.44 us
FDT_US = 1172 / CARRIER_HZ * 1e6  # frame delay time of a tag's answer: 86 us
RESET_US = 1000.0  # modelled duration of SoftReset (the datasheet gives none; see the module docstring)
HARD_RESET_US = 2000.0  # modelled oscillator start-up after NRSTPD goes high (the firmware waits 50 ms)

# RFCfgReg RxGain (bits 6..4) in dB, and how far away (mm, antenna to tag) the model hears a tag at that gain:
# a tag lying on this antenna (reliable reads) and a neighbour's tag (faint, error-prone answers). A model,
# not a measurement: chosen so that at the maximum gain (48 dB) readers 80 mm apart hear each other's tags, as
# builders report (miguelbalboa/rfid #589), and a card 20 mm above the antenna (an 18 mm table top) reads
# from 33 dB up. hw/README.md turns it into spacing and gain advice.
RX_GAIN_DB = (18, 23, 18, 23, 33, 38, 43, 48)
OWN_RANGE_MM = {18: 10, 23: 14, 33: 24, 38: 30, 43: 36, 48: 42}
FAINT_RANGE_MM = {18: 0, 23: 0, 33: 50, 38: 65, 43: 85, 48: 110}
STACK_FREEZE = 3  # this many tags answering at once freeze the receiver

# What one read of a tag through its link is (see ``couple`` and ``place(slide_us=)``).
_CLEAN = "clean"
_SILENT = "silent"
_PARTIAL = "partial"
_SLIDE_MODES = ((_SILENT, 0.40), (_PARTIAL, 0.25), ("garbled", 0.15), (_CLEAN, 0.20))

RESET_VALUES = {
    COMMAND: 0x20,
    COM_IEN: 0x80,
    COM_IRQ: 0x14,
    STATUS1: 0x21,
    WATER_LEVEL: 0x08,
    CONTROL: 0x10,
    COLL: 0xA0,
    MODE: 0x3F,
    TX_CONTROL: 0x80,
    0x16: 0x10,  # TxSelReg
    0x17: 0x84,  # RxSelReg
    0x18: 0x84,  # RxThresholdReg
    0x19: 0x4D,  # DemodReg
    0x1C: 0x62,  # MfTxReg
    0x1F: 0xEB,  # SerialSpeedReg
    CRC_RESULT_H: 0xFF,
    CRC_RESULT_L: 0xFF,
    0x24: 0x26,  # ModWidthReg
    RF_CFG: 0x48,
    0x27: 0x88,  # GsNReg
    0x28: 0x20,  # CWGsPReg
    0x29: 0x20,  # ModGsPReg
}

CRC_PRESETS = (0x0000, 0x6363, 0xA671, 0xFFFF)
FAULT_MODES = ("absent", "version", "hung")


def crc_coprocessor(data: bytes, preset: int) -> int:
    """The chip's CRC: ISO 14443A polynomial (reflected 0x8408) from the ModeReg preset."""
    crc = preset
    for byte in data:
        b = byte ^ (crc & 0xFF)
        b = (b ^ (b << 4)) & 0xFF
        crc = ((crc >> 8) ^ (b << 8) ^ (b << 3) ^ (b >> 4)) & 0xFFFF
    return crc


def frame_us(nbits: int) -> float:
    """Air time of a frame: start bit, data, one parity bit per full byte, end of frame."""
    return (nbits + nbits // 8 + 2) * BIT_US


@dataclass
class ChipStats:
    """What the chip counted, for tests and the benchmark."""

    accesses: int = 0  # SPI transactions (chip select low .. high)
    busy_accesses: int = 0  # bytes clocked while a SoftReset was still running (lost)
    reads: Counter[int] = field(default_factory=Counter)  # per register
    writes: Counter[int] = field(default_factory=Counter)
    commands: Counter[int] = field(default_factory=Counter)
    frames: list[bytes] = field(default_factory=list)  # every transmitted frame (bounded)
    frame_bits: list[int] = field(default_factory=list)  # the length in bits of each frame in ``frames``
    air_time_us: float = 0.0
    frozen: int = 0  # receptions frozen by a stack

    def reset(self) -> None:
        """Start counting accesses, frames and air time again (a lost access or a frozen reception still counts)."""
        self.accesses = 0
        self.reads.clear()
        self.writes.clear()
        self.commands.clear()
        self.frames.clear()
        self.frame_bits.clear()
        self.air_time_us = 0.0


@dataclass
class CardField:
    """The air around the antenna, beyond the tags lying on it: neighbours' tags heard faintly, cards still sliding
    in, how each tag's link goes in this read, and the randomness that picks it (seeded per chip by EmulatedBoard,
    so a failing run can be replayed)."""

    rng: random.Random
    faint: dict[Iso14443aTag, tuple[float, float, float]] = field(default_factory=dict)  # (distance, answer, garble)
    slide_until: dict[Iso14443aTag, float] = field(default_factory=dict)  # a card sliding in, until then
    modes: dict[Iso14443aTag, object] = field(default_factory=dict)  # this read's link mode per tag (or its phantom)
    freeze_at: int = STACK_FREEZE  # this many answers at once freeze the receiver


@dataclass
class ChipFailures:
    """The failure modes set on the chip (the module docstring): a fault of ``fail()``, deafness, a hanging reset."""

    fault: str | None = None  # one of FAULT_MODES, until repaired
    fault_version: int = 0x00  # what VersionReg reads under the "version" fault
    deaf_after_us: float | None = None  # deaf again this long after every reset that cured it
    deaf_at: float | None = None  # deaf from this time on (``now_us``)
    hang_reset: bool = False  # the next SoftReset never completes


@dataclass
class ChipPower:
    """Power-down and reset: the NRSTPD pin, a SoftReset that never completed, a reset still running."""

    held_in_reset: bool = False  # NRSTPD low: hard power-down
    stuck: bool = False  # a SoftReset that never completed: PowerDown set, writes lost
    resetting_until: float = -1.0  # a SoftReset or a restart runs until then (``now_us``)


@dataclass
class _Transaction:
    """The SPI transaction in progress: what the next byte is, and the register it names."""

    mode: str | None = None  # "addr", "read", "write", "done"; None: the chip is not selected
    addr: int = 0


class EmulatedMFRC522:
    """One emulated MFRC522 and the tags lying on its antenna. Thread-safe: a demo may lay and lift tags
    from another thread while the firmware scans."""

    def __init__(self, version: int = 0x92, name: str = "") -> None:
        self.name = name
        self.version = version
        self.tristate_miso = True
        self.tags: list[Iso14443aTag] = []
        self._lock = threading.RLock()
        self.on_air: Callable[[float], None] | None = None
        self.now_us: Callable[[], float] | None = None  # the board's clock, for the SoftReset duration
        self.timer_running = False  # TAuto timer started by a transmission and not yet ended or stopped
        self.stats = ChipStats()
        self.air = CardField(random.Random(name))
        self.failures = ChipFailures()
        self.power = ChipPower()
        self._txn = _Transaction()
        self._reset_registers()

    def __repr__(self) -> str:
        return f"EmulatedMFRC522({self.name!r}, tags={self.tags!r}, fault={self.failures.fault!r})"

    # --- the physical world ---------------------------------------------------------------------------
    @property
    def field_on(self) -> bool:
        return bool(self.regs[TX_CONTROL] & 0x03) and self.failures.fault is None and not self.power.held_in_reset

    @property
    def deaf(self) -> bool:
        """True while the module hears no tag (``stop_detecting_after``)."""
        return self.failures.deaf_at is not None and self._now() >= self.failures.deaf_at

    @property
    def rx_gain_db(self) -> int:
        return RX_GAIN_DB[(self.regs[RF_CFG] >> 4) & 0x07]

    def _now(self) -> float:
        return self.now_us() if self.now_us is not None else 0.0

    def place(self, tag: Iso14443aTag, slide_us: float = 0.0) -> None:
        """Lay a tag on the antenna; it powers up in IDLE if the field is on (answering after its power-up
        time). ``slide_us``: the card is still sliding in for that long (reads fail or come out garbled)."""
        with self._lock:
            if tag in self.tags:
                raise ValueError(f"{tag!r} already lies on reader {self.name!r}")
            self._power(tag)
            tag.home = self
            self.tags.append(tag)
            if slide_us > 0:
                self.air.slide_until[tag] = self._now() + slide_us

    def lift(self, tag: Iso14443aTag | None = None) -> None:
        """Take a tag (or every tag) off the antenna; it loses power and state."""
        with self._lock:
            if tag is None:
                for t in self.tags:
                    t.home = None
                self.tags.clear()
            elif tag in self.tags:
                self.tags.remove(tag)
                tag.home = None
            else:
                raise ValueError(f"{tag!r} does not lie on reader {self.name!r}")

    def couple(self, tag: Iso14443aTag, distance_mm: float, answer: float = 0.6, garble: float = 0.5) -> None:
        """A neighbour's tag (lying on another antenna) ``distance_mm`` from this antenna: heard faintly when
        the gain reaches that far. Per read it answers with probability ``answer``; an answer is garbled with
        probability ``garble`` (a valid-looking read of wrong bits), else clean."""
        with self._lock:
            self.air.faint[tag] = (float(distance_mm), answer, garble)

    def decouple(self, tag: Iso14443aTag | None = None) -> None:
        with self._lock:
            if tag is None:
                self.air.faint.clear()
            else:
                self.air.faint.pop(tag, None)

    def stop_detecting_after(self, us: float, again_us: float | None = None) -> None:
        """Go deaf ``us`` of emulated time from now, and again ``again_us`` (default: ``us``) after every
        reset that cured it."""
        with self._lock:
            self.failures.deaf_after_us = us if again_us is None else again_us
            self.failures.deaf_at = self._now() + us

    def hang_next_soft_reset(self) -> None:
        """The next SoftReset never completes; only a hard reset (NRSTPD) brings the chip back."""
        with self._lock:
            self.failures.hang_reset = True

    def drift(self, reg: int, value: int) -> None:
        """A setup register changes by itself (the firmware is not told)."""
        with self._lock:
            self.regs[reg] = value

    def nrstpd(self, level: int) -> None:
        """The NRSTPD pin: low is hard power-down (nothing answers, field off); high restarts the chip."""
        with self._lock:
            if not level:
                self.power.held_in_reset = True
                self._reset_registers()
                self.timer_running = False
                return
            if not self.power.held_in_reset:
                return
            self.power.held_in_reset = False
            self.power.stuck = False
            self.failures.hang_reset = False
            self._reset_registers()
            self._rearm_deafness()
            if self.now_us is not None:
                self.power.resetting_until = self.now_us() + HARD_RESET_US

    def _rearm_deafness(self) -> None:
        if self.failures.deaf_after_us is not None:
            self.failures.deaf_at = self._now() + self.failures.deaf_after_us
        else:
            self.failures.deaf_at = None

    def _power(self, tag: Iso14443aTag) -> None:
        tag.power_on()
        tag.powered_at_us = self._now()

    def _powered(self, tag: Iso14443aTag) -> bool:
        """The tag has had its home field long enough to answer."""
        home = tag.home
        if home is None or not home.field_on:
            return False
        return self.now_us is None or self._now() >= tag.powered_at_us + tag.power_up_us

    def fail(self, mode: str, version: int = 0x00) -> None:
        """Break the reader: "absent" (no answer on SPI), "version" (VersionReg reads ``version``) or
        "hung" (commands never end)."""
        if mode not in FAULT_MODES:
            raise ValueError(f"unknown fault mode {mode!r} (expected one of {', '.join(FAULT_MODES)})")
        with self._lock:
            self.failures.fault = mode
            self.failures.fault_version = version

    def repair(self) -> None:
        """The reader works again; it keeps the registers it had (a re-init sets them up)."""
        with self._lock:
            self.failures.fault = None

    def power_glitch(self) -> None:
        """A brown-out: every register back to its reset value, the field off, tags lose power."""
        with self._lock:
            self._reset_registers()

    # --- SPI side (called by the bus) ----------------------------------------------------------------------
    def idle_miso(self) -> int:
        """What a non-tri-stating module drives on MISO while another chip is selected."""
        return 0x00

    def begin(self) -> None:
        self._txn.mode = "addr"

    def end(self) -> None:
        if self._txn.mode is not None:
            self.stats.accesses += 1
        self._txn.mode = None

    @property
    def resetting(self) -> bool:
        """True while a SoftReset is still running (see RESET_US)."""
        return self.now_us is not None and self.now_us() < self.power.resetting_until

    def clock(self, mosi: int) -> int | None:
        """One byte in on MOSI, one out on MISO (None: MISO not driven)."""
        if self.failures.fault == "absent" or self.power.held_in_reset:
            return None
        with self._lock:
            if self.resetting:
                self.stats.busy_accesses += 1
                return 0x00
            mode = self._txn.mode
            if mode == "addr":
                self._txn.addr = (mosi >> 1) & 0x3F
                self._txn.mode = "read" if mosi & 0x80 else "write"
                return 0x00
            if mode == "read":
                out = self._read(self._txn.addr)
                if mosi & 0x80:
                    self._txn.addr = (mosi >> 1) & 0x3F
                else:
                    self._txn.mode = "done"  # 0x00 ends a read sequence
                return out
            if mode == "write":
                self._write(self._txn.addr, mosi)
                return 0x00
            return 0x00

    # --- registers ------------------------------------------------------------------------------------------
    def _reset_registers(self) -> None:
        self.regs = bytearray(64)
        for reg, value in RESET_VALUES.items():
            self.regs[reg] = value
        self.fifo = bytearray()

    def _read(self, reg: int) -> int:
        self.stats.reads[reg] += 1
        if reg == VERSION:
            return self.failures.fault_version if self.failures.fault == "version" else self.version
        if reg == FIFO_DATA:
            if not self.fifo:
                return 0x00
            value = self.fifo[0]
            del self.fifo[0]
            return value
        if reg == FIFO_LEVEL:
            return len(self.fifo)
        return self.regs[reg]

    def _write(self, reg: int, value: int) -> None:
        self.stats.writes[reg] += 1
        if self.power.stuck:
            return  # a soft reset that never completed: the chip takes nothing
        if reg == FIFO_DATA:
            if len(self.fifo) >= FIFO_SIZE:
                self.regs[ERROR] |= ERR_BUFFER_OVFL
            else:
                self.fifo.append(value)
        elif reg == FIFO_LEVEL:
            if value & 0x80:
                self.fifo.clear()
                self.regs[ERROR] &= ~ERR_BUFFER_OVFL & 0xFF
        elif reg in (COM_IRQ, DIV_IRQ):
            marked = value & 0x7F
            if value & 0x80:
                self.regs[reg] |= marked
            else:
                self.regs[reg] &= ~marked & 0xFF
        elif reg in (ERROR, STATUS1, STATUS2, VERSION, CRC_RESULT_H, CRC_RESULT_L):
            pass  # read-only
        elif reg == CONTROL:
            if value & 0x80:  # TStopNow
                self.timer_running = False
            self.regs[reg] = (self.regs[reg] & 0x07) | (value & 0x38)  # TStopNow / TStartNow read as 0
        elif reg == COLL:
            self.regs[reg] = (self.regs[reg] & 0x7F) | (value & 0x80)
        elif reg == TX_CONTROL:
            was_on = self.field_on
            self.regs[reg] = value
            if self.field_on and not was_on:
                for tag in self.tags:
                    self._power(tag)
        elif reg == COMMAND:
            self._command(value)
        elif reg == BIT_FRAMING:
            self.regs[reg] = value
            if value & 0x80 and self.regs[COMMAND] & 0x0F == CMD_TRANSCEIVE:
                self._transceive()
        else:
            self.regs[reg] = value

    # --- commands -------------------------------------------------------------------------------------------
    def _command(self, value: int) -> None:
        cmd = value & 0x0F
        self.regs[COMMAND] = value & 0x30 | (cmd if cmd != CMD_NO_CHANGE else self.regs[COMMAND] & 0x0F)
        if cmd == CMD_NO_CHANGE:
            return
        self.stats.commands[cmd] += 1
        if cmd == CMD_SOFT_RESET:
            self._reset_registers()
            self.timer_running = False
            if self.failures.hang_reset:
                self.power.stuck = True  # PowerDown never clears again
                self.regs[COMMAND] = 0x20 | 0x10
                return
            self._rearm_deafness()
            if self.now_us is not None:
                self.power.resetting_until = self.now_us() + RESET_US
            return
        if cmd == CMD_IDLE:
            return
        if self.failures.fault == "hung":
            return  # the command never ends: no IRQ will ever come
        self.regs[ERROR] = 0
        if cmd == CMD_CALC_CRC:
            preset = CRC_PRESETS[self.regs[MODE] & 0x03]
            crc = crc_coprocessor(bytes(self.fifo), preset)
            self.fifo.clear()
            self.regs[CRC_RESULT_L] = crc & 0xFF
            self.regs[CRC_RESULT_H] = crc >> 8
            self.regs[DIV_IRQ] |= DIV_CRC  # the command keeps running until Idle, as on the chip
        elif cmd == CMD_TRANSMIT:
            bits = self._tx_bits()
            self._air(frame_us(len(bits)))
            self._send(bits)
            self.regs[COMMAND] &= 0xF0
            self.regs[COM_IRQ] |= IRQ_TX | IRQ_IDLE
            if self.regs[T_MODE] & 0x80:  # TAuto: the timer starts at the end of every transmission
                self.timer_running = True
        elif cmd in (CMD_MEM, CMD_RANDOM_ID):
            self.regs[COMMAND] &= 0xF0
            self.regs[COM_IRQ] |= IRQ_IDLE
        elif cmd == CMD_TRANSCEIVE:
            if self.regs[BIT_FRAMING] & 0x80:
                self._transceive()
        elif cmd in (CMD_RECEIVE, CMD_MF_AUTHENT):
            # Not used by the firmware. Receive waits for a frame that never comes (TimerIRq as usual);
            # MIFARE Classic authentication is not emulated and ends with a protocol error.
            if cmd == CMD_MF_AUTHENT:
                self.regs[ERROR] |= ERR_PROTOCOL
                self.regs[COM_IRQ] |= IRQ_ERR | IRQ_IDLE
                self.regs[COMMAND] &= 0xF0
            else:
                self._timeout()

    def _tx_bits(self) -> list[int]:
        last = self.regs[BIT_FRAMING] & 0x07
        data = bytes(self.fifo)
        self.fifo.clear()
        if self.regs[TX_MODE] & 0x80 and not last:  # TxCRCEn
            crc = crc_coprocessor(data, CRC_PRESETS[self.regs[MODE] & 0x03])
            data += bytes([crc & 0xFF, crc >> 8])
        bits = to_bits(data, last or 8)
        if len(self.stats.frames) < 10_000:
            self.stats.frames.append(data)
            self.stats.frame_bits.append(len(bits))
        return bits

    def _send(self, bits: list[int]) -> list[list[int]]:
        """Put the frame on air; the answers the receiver hears (see the module docstring for the model)."""
        if not self.field_on:
            return []
        if not self.regs[TX_ASK] & 0x40:
            return []  # without 100 % ASK no ISO 14443A tag understands the reader
        start = len(bits) == 7  # REQA / WUPA: a new read begins, each link picks how it goes this time
        gain = self.rx_gain_db
        deaf = self.deaf
        strong = []
        for tag in self.tags:
            if not self._powered(tag):
                continue
            answer = self._through(tag, bits, start, self._own_mode)
            if answer is not None and not deaf and tag.distance_mm <= OWN_RANGE_MM[gain]:
                strong.append(answer)
        faint = []
        for tag, (distance, p_answer, p_garble) in list(self.air.faint.items()):
            if tag in self.tags or not self._powered(tag) or distance > FAINT_RANGE_MM[gain]:
                continue
            answer = self._through(tag, bits, start, lambda t, a=p_answer, g=p_garble: self._faint_mode(a, g))
            if answer is not None and not deaf:
                faint.append(answer)
        if strong:
            return strong  # a tag on the antenna captures the receiver
        if len(faint) > 1:  # faint answers drown each other: no clean collision, a damaged frame
            shortest = min(faint, key=len)
            return [shortest[: max(1, len(shortest) // 2)]]
        return faint

    def _own_mode(self, tag: Iso14443aTag) -> str:
        if self._now() < self.air.slide_until.get(tag, -1.0):
            r = self.air.rng.random()
            for mode, weight in _SLIDE_MODES:
                if r < weight:
                    return mode
                r -= weight
        return _CLEAN

    def _faint_mode(self, p_answer: float, p_garble: float) -> str:
        if self.air.rng.random() >= p_answer:
            return _SILENT
        return "garbled" if self.air.rng.random() < p_garble else _CLEAN

    def _through(self, tag: Iso14443aTag, bits: list[int], start: bool, pick: Callable[..., str]) -> list[int] | None:
        """The frame reaches the tag; what the receiver hears of its answer in this read's link mode."""
        if start:
            mode: object = pick(tag)
            if mode == "garbled":
                mode = self._phantom(tag)  # it starts in the tag's state: a halted tag's phantom is halted
            self.air.modes[tag] = mode
        mode = self.air.modes.get(tag, _CLEAN)
        answer = tag.receive(bits)  # the tag itself hears the frame whatever the receiver makes of its answer
        if isinstance(mode, Iso14443aTag):
            return mode.receive(bits)
        if mode == _SILENT or answer is None:
            return None
        if mode == _PARTIAL and len(answer) > 1:
            return answer[: self.air.rng.randrange(1, len(answer))]
        return answer

    def _phantom(self, tag: Iso14443aTag) -> Iso14443aTag:
        """The tag as a garbled read makes it look: the same kind, 2-4 bits of its UID flipped."""
        while True:
            uid = bytearray(tag.uid)
            for bit in self.air.rng.sample(range(8 * len(uid)), self.air.rng.randint(2, 4)):
                uid[bit // 8] ^= 1 << (bit % 8)
            if uid[0] != CASCADE_TAG and uid != tag.uid:
                break
        phantom = type(tag)(bytes(uid))
        phantom.state, phantom._from_halt, phantom._level = tag.state, tag._from_halt, tag._level
        return phantom

    def _timer_us(self) -> float | None:
        if not self.regs[T_MODE] & 0x80:  # TAuto off: nothing starts the timer after a transmission
            return None
        prescaler = ((self.regs[T_MODE] & 0x0F) << 8) | self.regs[T_PRESCALER]
        reload = (self.regs[T_RELOAD_H] << 8) | self.regs[T_RELOAD_L]
        return (reload + 1) * (2 * prescaler + 1) / CARRIER_HZ * 1e6

    def _timeout(self) -> None:
        period = self._timer_us()
        if period is not None:
            self._air(period)
            self.regs[COM_IRQ] |= IRQ_TIMER
            self.timer_running = False

    def _transceive(self) -> None:
        # StartSend stays set (see the module docstring): the driver has to clear it before the next command.
        if self.failures.fault == "hung":
            return
        self.regs[ERROR] = 0
        bits = self._tx_bits()
        self._air(frame_us(len(bits)))
        answers = self._send(bits)
        self.regs[COM_IRQ] |= IRQ_TX
        if not answers:
            self._timeout()
            return
        self.timer_running = False  # TAuto: the timer stops when an answer starts
        if len(answers) >= self.air.freeze_at:
            self.stats.frozen += 1
            return  # a stack: the reception never ends, no IRQ until the command is stopped
        merged, collision = self._merge(answers)
        self._air(FDT_US + frame_us(len(merged)))
        self._receive(merged, collision)

    @staticmethod
    def _merge(answers: list[list[int]]) -> tuple[list[int], int | None]:
        """Superpose the answers; the index of the first bit where they disagree, or None."""
        length = max(len(a) for a in answers)
        merged = []
        collision = None
        for i in range(length):
            values = {a[i] for a in answers if i < len(a)}
            if len(values) > 1 and collision is None:
                collision = i
            merged.append(1 if 1 in values else 0)
        return merged, collision

    def _receive(self, bits: list[int], collision: int | None) -> None:
        align = (self.regs[BIT_FRAMING] >> 4) & 0x07
        if collision is not None:
            if not self.regs[COLL] & 0x80:  # ValuesAfterColl = 0: bits after the collision read as 0
                bits = bits[: collision + 1] + [0] * (len(bits) - collision - 1)
            position = collision + 1
            self.regs[COLL] = (self.regs[COLL] & 0x80) | (0x20 if position > 32 else position & 0x1F)
            self.regs[ERROR] |= ERR_COLL
        else:
            self.regs[COLL] = (self.regs[COLL] & 0x80) | 0x20  # CollPosNotValid
        data = from_bits([0] * align + bits)
        if self.regs[RX_MODE] & 0x80 and len(bits) % 8 == 0:  # RxCRCEn: check the CRC_A at the end
            preset = CRC_PRESETS[self.regs[MODE] & 0x03]
            if len(data) < 3 or crc_coprocessor(data[:-2], preset) != data[-2] | data[-1] << 8:
                self.regs[ERROR] |= ERR_CRC
        for byte in data:
            if len(self.fifo) >= FIFO_SIZE:
                self.regs[ERROR] |= ERR_BUFFER_OVFL
                break
            self.fifo.append(byte)
        self.regs[CONTROL] = (self.regs[CONTROL] & 0xF8) | ((align + len(bits)) % 8)
        self.regs[COM_IRQ] |= IRQ_RX
        if self.regs[ERROR]:
            self.regs[COM_IRQ] |= IRQ_ERR

    def _air(self, us: float) -> None:
        self.stats.air_time_us += us
        if self.on_air is not None:
            self.on_air(us)
