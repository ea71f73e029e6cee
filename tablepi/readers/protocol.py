"""The reader link protocol v2 and v1 (docs/protocol.md): pure encoding and parsing, no I/O.

Every message is a frozen dataclass; :func:`encode_line` and :func:`parse_line` convert between a message with
its sequence number and the bytes of one line, checksum included:

>>> encode_line(7, Place(2, "04A1B2C3D4E5F6"))
b'7 PLACE 2 04A1B2C3D4E5F6 *0CF8\\n'
>>> parse_line(b'7 PLACE 2 04A1B2C3D4E5F6 *0CF8\\n')
(7, Place(zone=2, uid='04A1B2C3D4E5F6', time_ms=None))
>>> parse_line(encode_line(8, Lift(2, "04A1B2C3D4E5F6", 81234)))
(8, Lift(zone=2, uid='04A1B2C3D4E5F6', time_ms=81234))
>>> f"{crc16(b'123456789'):04X}"
'29B1'

Whatever bytes arrive, :func:`parse_line` either returns a message or raises :class:`ProtocolError` whose
``reason`` is the ``NAK`` reason a device would answer (``CRC``, ``SYNTAX``, ``UNKNOWN``, ``RANGE``) and whose
``seq`` is the sequence number when it could be read. Message types this version does not know parse to
:class:`Unknown`, so a newer device does not break an older host (docs/protocol.md, Versioning).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import ClassVar

from tablepi.errors import ProtocolError as ProtocolError  # the project's one class, named for the protocol

#: Protocol version this module speaks (``PROTO`` in ``HELLO``).
PROTO_VERSION = 2
#: Versions a host still understands: v1 devices send PLACE / LIFT without the time field.
SUPPORTED_VERSIONS = frozenset({1, 2})
#: Longest line allowed, newline included.
MAX_LINE = 120
#: Zones in the protocol (``STATE`` and ``HB`` have one field per zone).
ZONE_COUNT = 4
SEQ_MODULO = 65536

_UID_RE = re.compile(rb"[0-9A-F]{8}|[0-9A-F]{14}|[0-9A-F]{20}")
_TYPE_RE = re.compile(rb"[A-Z][A-Z?]*")
_FIELD_RE = re.compile(rb"[\x21-\x29\x2b-\x7e]+")  # printable ASCII except space and '*'


def crc16(data: bytes, crc: int = 0xFFFF) -> int:
    """CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF, no reflection, no final xor) of ``data``."""
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) & 0xFFFF if crc & 0x8000 else (crc << 1) & 0xFFFF
    return crc


# --- messages -------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Hello:
    """Device: protocol version, firmware name/version, number of zones. Always followed by ``STATE``."""

    TYPE: ClassVar[str] = "HELLO"
    proto: int
    firmware: str
    zones: int


@dataclass(frozen=True, slots=True)
class State:
    """Device: full snapshot, one field per zone: ``-`` empty, a UID, ``MULTI`` or ``FAULT``."""

    TYPE: ClassVar[str] = "STATE"
    zones: tuple[str, ...]

    EMPTY: ClassVar[str] = "-"
    MULTI: ClassVar[str] = "MULTI"
    FAULT: ClassVar[str] = "FAULT"


@dataclass(frozen=True, slots=True)
class Place:
    """Device: a tag arrived on the zone. ``time_ms`` (v2): the device's uptime at the tag's first answer."""

    TYPE: ClassVar[str] = "PLACE"
    zone: int
    uid: str
    time_ms: int | None = None


@dataclass(frozen=True, slots=True)
class Lift:
    """Device: the tag left the zone. ``uid`` is ``None`` for ``LIFT ZONE -`` (end of a ``MULTI``).
    ``time_ms`` (v2): the device's uptime at the last answer of what left."""

    TYPE: ClassVar[str] = "LIFT"
    zone: int
    uid: str | None
    time_ms: int | None = None


@dataclass(frozen=True, slots=True)
class Multi:
    """Device: two or more tags answer on the zone; its previous tag is implicitly lifted."""

    TYPE: ClassVar[str] = "MULTI"
    zone: int


@dataclass(frozen=True, slots=True)
class Cross:
    """Device (v2): the zone hears, faintly, the tag that lies on zone ``holder`` (antenna crosstalk). The
    device reports no PLACE or LIFT of it on this zone; the card stays on ``holder``."""

    TYPE: ClassVar[str] = "CROSS"
    zone: int
    uid: str
    holder: int


@dataclass(frozen=True, slots=True)
class Fault:
    """Device: the zone's reader stopped working (``SELFTEST``, ``TIMEOUT`` or ``RESET``)."""

    TYPE: ClassVar[str] = "FAULT"
    CODES: ClassVar[frozenset[str]] = frozenset({"SELFTEST", "TIMEOUT", "RESET"})
    zone: int
    code: str


@dataclass(frozen=True, slots=True)
class Ok:
    """Device: the zone's reader works again after a ``FAULT``."""

    TYPE: ClassVar[str] = "OK"
    zone: int


@dataclass(frozen=True, slots=True)
class Heartbeat:
    """Device, once a second: uptime, total scans, lines dropped by the device, scans/s of each zone."""

    TYPE: ClassVar[str] = "HB"
    uptime_ms: int
    scans: int
    errors: int
    rates: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Ack:
    """Device: the host command with sequence number ``host_seq`` was done."""

    TYPE: ClassVar[str] = "ACK"
    host_seq: int


@dataclass(frozen=True, slots=True)
class Nak:
    """Device: a host command was refused. ``host_seq`` is ``None`` for ``NAK - CRC`` (no readable
    sequence)."""

    TYPE: ClassVar[str] = "NAK"
    REASONS: ClassVar[frozenset[str]] = frozenset({"CRC", "SYNTAX", "UNKNOWN", "RANGE"})
    host_seq: int | None
    reason: str


@dataclass(frozen=True, slots=True)
class HelloQuery:
    """Host: ask for ``HELLO`` and ``STATE``."""

    TYPE: ClassVar[str] = "HELLO?"


@dataclass(frozen=True, slots=True)
class StateQuery:
    """Host: ask for ``STATE``."""

    TYPE: ClassVar[str] = "STATE?"


@dataclass(frozen=True, slots=True)
class Ping:
    """Host: ask for an ``ACK``."""

    TYPE: ClassVar[str] = "PING"


@dataclass(frozen=True, slots=True)
class Led:
    """Host: zone LED ``ON``, ``OFF`` or ``FLASH``."""

    TYPE: ClassVar[str] = "LED"
    MODES: ClassVar[frozenset[str]] = frozenset({"ON", "OFF", "FLASH"})
    zone: int
    mode: str


@dataclass(frozen=True, slots=True)
class Beep:
    """Host: sound the buzzer for ``ms`` milliseconds (1..2000)."""

    TYPE: ClassVar[str] = "BEEP"
    ms: int


@dataclass(frozen=True, slots=True)
class Rescan:
    """Host: forget every zone's state and read all zones afresh (``ACK`` then ``STATE``)."""

    TYPE: ClassVar[str] = "RESCAN"


@dataclass(frozen=True, slots=True)
class Unknown:
    """A well-formed line of a type this version does not know; receivers count and ignore it."""

    type: str
    fields: tuple[str, ...]


Message = (
    Hello
    | State
    | Place
    | Lift
    | Multi
    | Cross
    | Fault
    | Ok
    | Heartbeat
    | Ack
    | Nak
    | HelloQuery
    | StateQuery
    | Ping
    | Led
    | Beep
    | Rescan
    | Unknown
)
#: Messages the device sends.
DEVICE_MESSAGES = (Hello, State, Place, Lift, Multi, Cross, Fault, Ok, Heartbeat, Ack, Nak)
#: Messages the host sends.
HOST_MESSAGES = (HelloQuery, StateQuery, Ping, Led, Beep, Rescan)


# --- encoding -------------------------------------------------------------------------------------


def _fields(msg: Message) -> list[str]:
    """The text fields of ``msg`` in protocol order; validates so an encoder never writes a line a parser
    refuses."""
    match msg:
        case Hello(proto, firmware, zones):
            return [_num(proto), _token(firmware), _num(zones)]
        case State(zones):
            if len(zones) != ZONE_COUNT:
                raise ProtocolError(f"STATE needs {ZONE_COUNT} zones, got {len(zones)}", "RANGE")
            return [_zone_field(z) for z in zones]
        case Place(zone, uid, time_ms):
            return [_zone(zone), _uid(uid), *_when(time_ms)]
        case Lift(zone, uid, time_ms):
            return [_zone(zone), "-" if uid is None else _uid(uid), *_when(time_ms)]
        case Multi(zone) | Ok(zone):
            return [_zone(zone)]
        case Cross(zone, uid, holder):
            return [_zone(zone), _uid(uid), _zone(holder)]
        case Fault(zone, code):
            return [_zone(zone), _choice(code, Fault.CODES, "fault code")]
        case Heartbeat(uptime_ms, scans, errors, rates):
            if len(rates) != ZONE_COUNT:
                raise ProtocolError(f"HB needs {ZONE_COUNT} rates, got {len(rates)}", "RANGE")
            return [_num(uptime_ms), _num(scans), _num(errors), *(_num(r) for r in rates)]
        case Ack(host_seq):
            return [_seq(host_seq)]
        case Nak(host_seq, reason):
            return ["-" if host_seq is None else _seq(host_seq), _choice(reason, Nak.REASONS, "NAK reason")]
        case HelloQuery() | StateQuery() | Ping() | Rescan():
            return []
        case Led(zone, mode):
            return [_zone(zone), _choice(mode, Led.MODES, "LED mode")]
        case Beep(ms):
            if not 1 <= ms <= 2000:
                raise ProtocolError(f"BEEP length {ms} ms out of range 1..2000", "RANGE")
            return [_num(ms)]
        case Unknown(type_, fields):
            if not _TYPE_RE.fullmatch(type_.encode("ascii", "replace")) or type_ in _PARSERS:
                raise ProtocolError(f"not an unknown message type: {type_!r}", "SYNTAX")
            return [_token(f) for f in fields]
    raise ProtocolError(f"not a protocol message: {msg!r}", "SYNTAX")


def _num(value: int) -> str:
    if not isinstance(value, int) or value < 0:
        raise ProtocolError(f"not a non-negative integer: {value!r}", "RANGE")
    return str(value)


def _when(time_ms: int | None) -> list[str]:
    """The v2 time field, or nothing (v1)."""
    return [] if time_ms is None else [_num(time_ms)]


def _seq(value: int) -> str:
    if not isinstance(value, int) or not 0 <= value < SEQ_MODULO:
        raise ProtocolError(f"sequence number out of range 0..65535: {value!r}", "RANGE")
    return str(value)


def _zone(value: int) -> str:
    if not isinstance(value, int) or not 0 <= value < ZONE_COUNT:
        raise ProtocolError(f"zone out of range 0..{ZONE_COUNT - 1}: {value!r}", "RANGE")
    return str(value)


def _uid(value: str) -> str:
    if not isinstance(value, str) or not _UID_RE.fullmatch(value.encode("ascii", "replace")):
        raise ProtocolError(f"not a UID (8, 14 or 20 upper-case hex digits): {value!r}", "SYNTAX")
    return value


def _zone_field(value: str) -> str:
    if value in (State.EMPTY, State.MULTI, State.FAULT):
        return value
    return _uid(value)


def _token(value: str) -> str:
    if not isinstance(value, str) or not _FIELD_RE.fullmatch(value.encode("ascii", "replace")):
        raise ProtocolError(f"field must be printable ASCII without space or '*': {value!r}", "SYNTAX")
    return value


def _choice(value: str, allowed: frozenset[str], what: str) -> str:
    if value not in allowed:
        raise ProtocolError(f"not a {what}: {value!r} (expected one of {' '.join(sorted(allowed))})", "RANGE")
    return value


def message_type(msg: Message) -> str:
    """The protocol name of ``msg`` (``PLACE``, ``HELLO?``...)."""
    return msg.type if isinstance(msg, Unknown) else msg.TYPE


def encode_line(seq: int, msg: Message) -> bytes:
    """The complete line for ``msg`` sent with sequence number ``seq``: fields, checksum and ``\\n``."""
    type_ = message_type(msg)
    body = " ".join([_seq(seq), type_, *_fields(msg)]).encode("ascii")
    line = body + b" *" + f"{crc16(body):04X}".encode("ascii") + b"\n"
    if len(line) > MAX_LINE:
        raise ProtocolError(f"line of {len(line)} bytes exceeds {MAX_LINE}", "RANGE")
    return line


# --- parsing --------------------------------------------------------------------------------------


def parse_line(line: bytes) -> tuple[int, Message]:
    """Parse one line (with or without its ``\\r\\n``) into ``(seq, message)``; raise ProtocolError
    otherwise."""
    if not isinstance(line, bytes | bytearray):
        raise ProtocolError(f"a line must be bytes, not {type(line).__name__}", "SYNTAX")
    raw = bytes(line)
    if len(raw) > MAX_LINE:
        raise ProtocolError(f"line of {len(raw)} bytes exceeds {MAX_LINE}", "SYNTAX")
    if raw.endswith(b"\n"):
        raw = raw[:-1]
    if raw.endswith(b"\r"):
        raw = raw[:-1]
    body, sep, crc_text = raw.rpartition(b" *")
    if not sep or not re.fullmatch(rb"[0-9A-F]{4}", crc_text):
        raise ProtocolError(f"no checksum at the end of line {raw[:40]!r}", "CRC", _peek_seq(raw))
    if crc16(body) != int(crc_text, 16):
        raise ProtocolError(f"bad checksum in line {raw[:40]!r}", "CRC", _peek_seq(body))
    parts = body.split(b" ")
    if len(parts) < 2 or not all(_FIELD_RE.fullmatch(p) for p in parts):
        raise ProtocolError(f"malformed line {raw[:40]!r}", "SYNTAX", _peek_seq(body))
    seq = _parse_int(parts[0], 0, SEQ_MODULO - 1, "sequence number", None)
    type_bytes = parts[1]
    if not _TYPE_RE.fullmatch(type_bytes):
        raise ProtocolError(f"malformed message type {type_bytes!r}", "SYNTAX", seq)
    type_ = type_bytes.decode("ascii")
    fields = [p.decode("ascii") for p in parts[2:]]
    parser = _PARSERS.get(type_)
    if parser is None:
        return seq, Unknown(type_, tuple(fields))
    try:
        return seq, parser(fields)
    except ProtocolError as err:
        raise ProtocolError(f"{type_}: {err}", err.reason, seq) from None


def _peek_seq(raw: bytes) -> int | None:
    """The sequence number at the start of a line that failed, so the NAK can name it, when it is readable."""
    head = raw.split(b" ", 1)[0]
    if head.isdigit() and len(head) <= 5 and int(head) < SEQ_MODULO:
        return int(head)
    return None


def _parse_int(text: bytes | str, low: int, high: int | None, what: str, seq: int | None) -> int:
    raw = text.encode("ascii") if isinstance(text, str) else text
    if not raw.isdigit() or len(raw) > 12:
        raise ProtocolError(f"{what} is not a decimal number: {raw!r}", "SYNTAX", seq)
    value = int(raw)
    if value < low or (high is not None and value > high):
        raise ProtocolError(f"{what} {value} out of range", "RANGE", seq)
    return value


def _arity(fields: list[str], count: int) -> None:
    if len(fields) != count:
        raise ProtocolError(f"expected {count} fields, got {len(fields)}", "SYNTAX")


def _p_zone(text: str) -> int:
    return _parse_int(text, 0, ZONE_COUNT - 1, "zone", None)


def _p_uid(text: str) -> str:
    if not _UID_RE.fullmatch(text.encode("ascii")):
        raise ProtocolError(f"not a UID: {text!r}", "SYNTAX")
    return text


def _p_hello(f: list[str]) -> Hello:
    _arity(f, 3)
    return Hello(
        _parse_int(f[0], 0, None, "protocol version", None), f[1], _parse_int(f[2], 0, None, "zones", None)
    )


def _p_state(f: list[str]) -> State:
    _arity(f, ZONE_COUNT)
    return State(tuple(z if z in (State.EMPTY, State.MULTI, State.FAULT) else _p_uid(z) for z in f))


def _p_time(f: list[str]) -> int | None:
    """PLACE / LIFT: two fields (v1) or three, the last the device's uptime in ms (v2)."""
    if len(f) not in (2, 3):
        raise ProtocolError(f"expected 2 or 3 fields, got {len(f)}", "SYNTAX")
    return _parse_int(f[2], 0, None, "event time", None) if len(f) == 3 else None


def _p_place(f: list[str]) -> Place:
    time_ms = _p_time(f)
    return Place(_p_zone(f[0]), _p_uid(f[1]), time_ms)


def _p_lift(f: list[str]) -> Lift:
    time_ms = _p_time(f)
    return Lift(_p_zone(f[0]), None if f[1] == "-" else _p_uid(f[1]), time_ms)


def _p_multi(f: list[str]) -> Multi:
    _arity(f, 1)
    return Multi(_p_zone(f[0]))


def _p_cross(f: list[str]) -> Cross:
    _arity(f, 3)
    return Cross(_p_zone(f[0]), _p_uid(f[1]), _p_zone(f[2]))


def _p_fault(f: list[str]) -> Fault:
    _arity(f, 2)
    return Fault(_p_zone(f[0]), _choice(f[1], Fault.CODES, "fault code"))


def _p_ok(f: list[str]) -> Ok:
    _arity(f, 1)
    return Ok(_p_zone(f[0]))


def _p_hb(f: list[str]) -> Heartbeat:
    _arity(f, 3 + ZONE_COUNT)
    nums = [_parse_int(x, 0, None, "heartbeat field", None) for x in f]
    return Heartbeat(nums[0], nums[1], nums[2], tuple(nums[3:]))


def _p_ack(f: list[str]) -> Ack:
    _arity(f, 1)
    return Ack(_parse_int(f[0], 0, SEQ_MODULO - 1, "host sequence number", None))


def _p_nak(f: list[str]) -> Nak:
    _arity(f, 2)
    host_seq = None if f[0] == "-" else _parse_int(f[0], 0, SEQ_MODULO - 1, "host sequence number", None)
    return Nak(host_seq, _choice(f[1], Nak.REASONS, "NAK reason"))


def _p_led(f: list[str]) -> Led:
    _arity(f, 2)
    return Led(_p_zone(f[0]), _choice(f[1], Led.MODES, "LED mode"))


def _p_beep(f: list[str]) -> Beep:
    _arity(f, 1)
    return Beep(_parse_int(f[0], 1, 2000, "beep length", None))


def _p_empty(cls: type[HelloQuery | StateQuery | Ping | Rescan]):  # type: ignore[no-untyped-def]
    def parse(f: list[str]) -> HelloQuery | StateQuery | Ping | Rescan:
        _arity(f, 0)
        return cls()

    return parse


_PARSERS = {
    "HELLO": _p_hello,
    "STATE": _p_state,
    "PLACE": _p_place,
    "LIFT": _p_lift,
    "MULTI": _p_multi,
    "CROSS": _p_cross,
    "FAULT": _p_fault,
    "OK": _p_ok,
    "HB": _p_hb,
    "ACK": _p_ack,
    "NAK": _p_nak,
    "HELLO?": _p_empty(HelloQuery),
    "STATE?": _p_empty(StateQuery),
    "PING": _p_empty(Ping),
    "LED": _p_led,
    "BEEP": _p_beep,
    "RESCAN": _p_empty(Rescan),
}


def next_seq(seq: int) -> int:
    """The sequence number after ``seq`` (wraps from 65535 to 0)."""
    return (seq + 1) % SEQ_MODULO
