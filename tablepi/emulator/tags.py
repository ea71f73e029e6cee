"""Virtual ISO 14443A tags (NTAG213 and plain 4-byte UID tags) that answer frames bit by bit.

A tag sees what a real one sees: a list of bits (least significant bit of each byte first, parity left out)
and answers with a list of bits or nothing. Its state machine follows ISO/IEC 14443-3: IDLE, READY, ACTIVE
and HALT, where a tag woken from HALT returns to HALT (not IDLE) on any unexpected frame, WUPA wakes halted
tags and REQA does not, and anticollision / select run over one cascade level per SEL code (0x93, 0x95, 0x97)
with the cascade tag 0x88 and a BCC per level. Two tags on one antenna answer at once; the emulated chip
merges their bits, which is where real collisions come from.
"""

from __future__ import annotations

import enum
from typing import Any

from tablepi.errors import ParseError

REQA = 0x26
WUPA = 0x52
HLTA = 0x50
SEL_CODES = (0x93, 0x95, 0x97)
CASCADE_TAG = 0x88
SAK_CASCADE = 0x04
NTAG_READ = 0x30
NTAG_GET_VERSION = 0x60
NTAG_NAK = 0x0  # 4-bit NAK: invalid argument / command


def crc_a(data: bytes | bytearray) -> bytes:
    """ISO 14443A CRC_A (reflected 0x8408, preset 0x6363), low byte first as sent on air.

    >>> crc_a(bytes([0x50, 0x00])).hex()
    '57cd'
    """
    crc = 0x6363
    for byte in data:
        b = byte ^ (crc & 0xFF)
        b = (b ^ (b << 4)) & 0xFF
        crc = ((crc >> 8) ^ (b << 8) ^ (b << 3) ^ (b >> 4)) & 0xFFFF
    return bytes([crc & 0xFF, crc >> 8])


def to_bits(data: bytes | bytearray, last_bits: int = 8) -> list[int]:
    """Bytes as air bits, LSB first; the last byte contributes only ``last_bits`` bits."""
    bits = [(byte >> i) & 1 for byte in data for i in range(8)]
    if data and last_bits != 8:
        del bits[len(bits) - 8 + last_bits :]
    return bits


def from_bits(bits: list[int]) -> bytes:
    """Air bits back to bytes; a trailing partial byte fills its low bits."""
    out = bytearray((len(bits) + 7) // 8)
    for i, bit in enumerate(bits):
        if bit:
            out[i // 8] |= 1 << (i % 8)
    return bytes(out)


class TagState(enum.Enum):
    """ISO 14443-3 PICC states (POWER-OFF is a tag off the field: it is then not asked at all)."""

    IDLE = "idle"
    READY = "ready"
    ACTIVE = "active"
    HALT = "halt"


class Iso14443aTag:
    """A type A tag with a 4-, 7- or 10-byte UID. Subclasses add memory commands for the ACTIVE state.

    ``silent`` makes the tag keep its state but answer nothing, like a card at the edge of the field whose
    load modulation the reader no longer hears: the tool for flapping and quiet-time tests.
    """

    atqa = b"\x44\x00"  # sent LSB first: 0x0044, double-size UID, bit frame anticollision
    sak_final = 0x00
    #: Time after entering the field (or the field coming on) before the tag answers: ISO/IEC 14443-3 allows
    #: up to 5 ms; the emulator takes the worst case. A card lies ``distance_mm`` above the antenna (an 18 mm
    #: table top and the sticker: 20 mm), which the reader's gain must reach.
    power_up_us: float = 5000.0
    distance_mm: float = 20.0

    def __init__(self, uid: bytes | str) -> None:
        if isinstance(uid, str):
            try:
                uid = bytes.fromhex(uid)
            except ValueError:
                raise ParseError(f"not a hex UID: {uid!r}") from None
        if len(uid) not in (4, 7, 10):
            raise ParseError(f"a UID has 4, 7 or 10 bytes, not {len(uid)}: {uid.hex().upper()}")
        if len(uid) == 4 and uid[0] == CASCADE_TAG:
            raise ParseError(f"a 4-byte UID cannot start with the cascade tag 0x88: {uid.hex().upper()}")
        self.uid = bytes(uid)
        self.silent = False
        self.home: Any = None  # the emulated reader whose antenna it lies on (powers it)
        self.powered_at_us = 0.0
        self.state = TagState.IDLE
        self._from_halt = False  # the '*' of READY* / ACTIVE*: unexpected frames return to HALT
        self._level = 0

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.uid.hex().upper()!r})"

    @property
    def uid_hex(self) -> str:
        return self.uid.hex().upper()

    def levels(self) -> list[bytes]:
        """The 5-byte cascade level answers: (CT) UID bytes, BCC."""
        u = self.uid
        if len(u) == 4:
            parts = [u]
        elif len(u) == 7:
            parts = [bytes([CASCADE_TAG]) + u[0:3], u[3:7]]
        else:
            parts = [bytes([CASCADE_TAG]) + u[0:3], bytes([CASCADE_TAG]) + u[3:6], u[6:10]]
        return [p + bytes([p[0] ^ p[1] ^ p[2] ^ p[3]]) for p in parts]

    # --- field --------------------------------------------------------------------------------------------
    def power_on(self) -> None:
        """Entering the field (or the field switching on): a fresh tag in IDLE."""
        self.state = TagState.IDLE
        self._from_halt = False
        self._level = 0

    # --- air interface ------------------------------------------------------------------------------------
    def receive(self, bits: list[int]) -> list[int] | None:
        """Handle one frame from the reader; return the answer's bits or None for silence."""
        answer = self._receive(bits)
        return None if self.silent else answer

    def _fallback(self) -> None:
        """Any unexpected frame in READY / ACTIVE: back to IDLE, or to HALT if woken from it."""
        self.state = TagState.HALT if self._from_halt else TagState.IDLE
        self._level = 0

    def _receive(self, bits: list[int]) -> list[int] | None:
        if len(bits) == 7:
            cmd = from_bits(bits)[0]
            if cmd == WUPA or (cmd == REQA and self.state is TagState.IDLE):
                if self.state in (TagState.IDLE, TagState.HALT):
                    self._from_halt = self.state is TagState.HALT
                    self.state = TagState.READY
                    self._level = 0
                    return to_bits(self.atqa)
                self._fallback()
            elif self.state in (TagState.READY, TagState.ACTIVE):
                self._fallback()
            return None
        if self.state is TagState.READY:
            return self._anticollision(bits)
        if self.state is TagState.ACTIVE:
            if len(bits) % 8 or not self._crc_ok(from_bits(bits)):
                self._fallback()
                return None
            frame = from_bits(bits)[:-2]
            if frame == bytes([HLTA, 0x00]):
                self.state = TagState.HALT
                self._from_halt = False
                return None
            answer = self.command(frame)
            if answer is None:
                self._fallback()
                return to_bits(bytes([NTAG_NAK]), 4)
            return to_bits(answer + crc_a(answer))
        return None  # IDLE / HALT ignore everything but REQA / WUPA

    @staticmethod
    def _crc_ok(frame: bytes) -> bool:
        return len(frame) >= 3 and crc_a(frame[:-2]) == frame[-2:]

    def _anticollision(self, bits: list[int]) -> list[int] | None:
        if len(bits) < 16:
            self._fallback()
            return None
        head = from_bits(bits[:16])
        sel, nvb = head[0], head[1]
        if sel not in SEL_CODES or SEL_CODES.index(sel) != self._level:
            self._fallback()
            return None
        level = self.levels()[self._level]
        level_bits = to_bits(level)
        if nvb == 0x70:
            frame = from_bits(bits)
            if len(bits) != 72 or not self._crc_ok(frame):
                self._fallback()
                return None
            if frame[2:7] != level:
                return None  # another tag is being selected: stay READY, keep quiet
            last = self._level == len(self.levels()) - 1
            sak = bytes([self.sak_final if last else SAK_CASCADE])
            if last:
                self.state = TagState.ACTIVE
            else:
                self._level += 1
            return to_bits(sak + crc_a(sak))
        known = ((nvb >> 4) - 2) * 8 + (nvb & 0x0F)
        if not 0 <= known < 40 or len(bits) != 16 + known:
            self._fallback()
            return None
        if bits[16:] != level_bits[:known]:
            return None  # not this tag's prefix: it stays READY and silent
        return level_bits[known:]

    def command(self, frame: bytes) -> bytes | None:
        """Memory commands in ACTIVE state (without CRC); None answers NAK. Plain tags know none."""
        return None


class Ntag213(Iso14443aTag):
    """NXP NTAG213: 7-byte UID starting 0x04, 45 pages of 4 bytes, READ and GET_VERSION."""

    PAGES = 45
    VERSION = bytes([0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x0F, 0x03])

    def __init__(self, uid: bytes | str) -> None:
        super().__init__(uid)
        if len(self.uid) != 7:
            raise ParseError(f"an NTAG213 has a 7-byte UID, not {len(self.uid)}: {self.uid_hex}")
        u = self.uid
        bcc0 = CASCADE_TAG ^ u[0] ^ u[1] ^ u[2]
        bcc1 = u[3] ^ u[4] ^ u[5] ^ u[6]
        memory = bytearray(self.PAGES * 4)
        memory[0:4] = bytes([u[0], u[1], u[2], bcc0])
        memory[4:8] = u[3:7]
        memory[8:12] = bytes([bcc1, 0x48, 0x00, 0x00])
        memory[12:16] = bytes([0xE1, 0x10, 0x12, 0x00])  # capability container: NDEF, 144 bytes
        memory[16:20] = bytes([0x03, 0x00, 0xFE, 0x00])  # empty NDEF message, terminator
        self.memory = memory

    @classmethod
    def numbered(cls, n: int) -> Ntag213:
        """A reproducible tag for tests and demos: 04 + 5 bytes derived from n + a check byte."""
        body = n.to_bytes(5, "big")
        return cls(bytes([0x04]) + body + bytes([(sum(body) + 0x5A) & 0xFF]))

    def command(self, frame: bytes) -> bytes | None:
        if len(frame) == 2 and frame[0] == NTAG_READ and frame[1] < self.PAGES:
            start = frame[1] * 4
            data = (self.memory + self.memory)[start : start + 16]  # reads wrap around to page 0
            return bytes(data)
        if frame == bytes([NTAG_GET_VERSION]):
            return self.VERSION
        return None
