"""The line protocol module: checksum, encoding, parsing, and fuzzing (docs/protocol.md)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tablepi.errors import ProtocolError as BaseProtocolError
from tablepi.readers import protocol as p

UIDS = st.sampled_from([8, 14, 20]).flatmap(
    lambda n: st.text(alphabet="0123456789ABCDEF", min_size=n, max_size=n)
)
ZONE = st.integers(0, 3)
SEQ = st.integers(0, 65535)
TOKEN = st.text(alphabet=st.characters(min_codepoint=0x21, max_codepoint=0x7E, exclude_characters="*"),
                min_size=1, max_size=12)
ZONE_FIELD = st.one_of(UIDS, st.sampled_from(["-", "MULTI", "FAULT"]))
SMALL = st.integers(0, 10**9)

MESSAGES = st.one_of(
    st.builds(p.Hello, st.integers(0, 99), TOKEN, st.integers(0, 16)),
    st.builds(p.State, st.tuples(ZONE_FIELD, ZONE_FIELD, ZONE_FIELD, ZONE_FIELD)),
    st.builds(p.Place, ZONE, UIDS),
    st.builds(p.Lift, ZONE, st.one_of(st.none(), UIDS)),
    st.builds(p.Multi, ZONE),
    st.builds(p.Fault, ZONE, st.sampled_from(sorted(p.Fault.CODES))),
    st.builds(p.Ok, ZONE),
    st.builds(p.Heartbeat, SMALL, SMALL, SMALL, st.tuples(SMALL, SMALL, SMALL, SMALL)),
    st.builds(p.Ack, SEQ),
    st.builds(p.Nak, st.one_of(st.none(), SEQ), st.sampled_from(sorted(p.Nak.REASONS))),
    st.just(p.HelloQuery()),
    st.just(p.StateQuery()),
    st.just(p.Ping()),
    st.builds(p.Led, ZONE, st.sampled_from(sorted(p.Led.MODES))),
    st.builds(p.Beep, st.integers(1, 2000)),
    st.just(p.Rescan()),
    st.builds(p.Unknown, st.sampled_from(["FOO", "TEMP", "X?"]), st.lists(TOKEN, max_size=4).map(tuple)),
)


def test_crc_check_value_from_the_spec() -> None:
    assert p.crc16(b"123456789") == 0x29B1


def test_example_line_from_the_spec() -> None:
    line = p.encode_line(7, p.Place(2, "04A1B2C3D4E5F6"))
    body = b"7 PLACE 2 04A1B2C3D4E5F6"
    assert line == body + b" *" + f"{p.crc16(body):04X}".encode() + b"\n"
    assert p.parse_line(line) == (7, p.Place(2, "04A1B2C3D4E5F6"))


def test_crlf_and_bare_line_both_parse() -> None:
    line = p.encode_line(3, p.Ping())
    assert p.parse_line(line[:-1] + b"\r\n") == (3, p.Ping())
    assert p.parse_line(line[:-1]) == (3, p.Ping())


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        (b"7 PLACE 2 04A1B2C3D4E5F6 *0000\n", "CRC"),
        (b"7 PLACE 2 04A1B2C3D4E5F6\n", "CRC"),
        (b"garbage\x00\xff\n", "CRC"),
    ],
)
def test_bad_checksums_name_the_reason(line: bytes, reason: str) -> None:
    with pytest.raises(p.ProtocolError) as info:
        p.parse_line(line)
    assert info.value.reason == reason


def _signed(body: bytes) -> bytes:
    return body + b" *" + f"{p.crc16(body):04X}".encode() + b"\n"


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        (b"5 PLACE 9 04A1B2C3D4E5F6", "RANGE"),  # zone out of range
        (b"5 PLACE 1 04a1b2c3d4e5f6", "SYNTAX"),  # lower-case uid
        (b"5 PLACE 1", "SYNTAX"),  # missing field
        (b"5 BEEP 0", "RANGE"),
        (b"5 LED 1 BLINK", "RANGE"),
        (b"70000 PING", "RANGE"),  # seq out of range
        (b"5  PING", "SYNTAX"),  # double space
        (b"5 ping", "SYNTAX"),  # lower-case type
    ],
)
def test_well_checksummed_but_wrong_lines(body: bytes, reason: str) -> None:
    with pytest.raises(p.ProtocolError) as info:
        p.parse_line(_signed(body))
    assert info.value.reason == reason
    if body.split(b" ")[0] == b"5":
        assert info.value.seq == 5


def test_unknown_type_is_a_message_not_an_error() -> None:
    assert p.parse_line(_signed(b"9 TEMP 21 C")) == (9, p.Unknown("TEMP", ("21", "C")))


def test_overlong_line_is_refused() -> None:
    body = b"1 TEMP " + b"X" * 120
    with pytest.raises(p.ProtocolError):
        p.parse_line(_signed(body))


def test_encoder_refuses_what_the_parser_would_refuse() -> None:
    with pytest.raises(p.ProtocolError):
        p.encode_line(1, p.Place(4, "04A1B2C3D4E5F6"))
    with pytest.raises(p.ProtocolError):
        p.encode_line(1, p.Led(0, "BLINK"))
    with pytest.raises(p.ProtocolError):
        p.encode_line(65536, p.Ping())


def test_protocol_error_is_the_project_error() -> None:
    assert p.ProtocolError is BaseProtocolError  # one class: the protocol raises the project's own
    assert issubclass(p.ProtocolError, ValueError)


def test_seq_wraps() -> None:
    assert p.next_seq(65535) == 0
    assert p.next_seq(41) == 42


@given(SEQ, MESSAGES)
def test_every_message_round_trips(seq: int, msg: p.Message) -> None:
    line = p.encode_line(seq, msg)
    assert line.endswith(b"\n") and len(line) <= p.MAX_LINE
    assert p.parse_line(line) == (seq, msg)


@settings(max_examples=500)
@given(st.binary(max_size=200))
def test_random_bytes_raise_only_protocol_error(data: bytes) -> None:
    try:
        p.parse_line(data)
    except p.ProtocolError as err:  # the only exception allowed; it must carry a NAK reason
        assert err.reason in p.Nak.REASONS


@settings(max_examples=300)
@given(SEQ, MESSAGES, st.data())
def test_a_flipped_byte_is_always_caught(seq: int, msg: p.Message, data: st.DataObject) -> None:
    line = bytearray(p.encode_line(seq, msg))
    i = data.draw(st.integers(0, len(line) - 2))
    line[i] ^= data.draw(st.integers(1, 255))
    try:
        got = p.parse_line(bytes(line))
    except p.ProtocolError:
        return
    # CRC-16 catches every single-byte error in the body; only the checksum digits themselves can be
    # changed into another valid-looking line when they equal the body's CRC, which they then would not.
    pytest.fail(f"corrupted line parsed as {got!r}")
