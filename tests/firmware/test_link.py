"""The device side of the line protocol: framing, CRC, sequence numbers, commands, garbage."""

from __future__ import annotations

from types import SimpleNamespace

from hypothesis import given, settings
from hypothesis import strategies as st

from tablepi.emulator.firmware import load_firmware
from tablepi.emulator.tags import Ntag213
from tests.firmware.firmware_rig import Rig, crc16, frame, parse

A = Ntag213("04A1B2C3D4E5F6")
FW = load_firmware()  # for the hypothesis test, which cannot take a function-scoped fixture


def test_crc_check_value(fw: SimpleNamespace) -> None:
    assert fw.link.crc16(b"123456789") == 0x29B1
    for data in (b"", b"7 PLACE 2 04A1B2C3D4E5F6", bytes(range(256))):
        assert fw.link.crc16(data) == crc16(data)


def test_hello_resets_the_sequence_and_is_followed_by_state(rig: Rig) -> None:
    rig.start()
    rig.run_ms(1100)  # an HB goes out meanwhile
    rig.port.incoming += frame("0 HELLO?")
    rig.app.step()
    lines = rig.port.lines()
    assert [parse(line) for line in lines] == [
        (0, ["HELLO", "2", "tablepi-fw/1.1.0", "4"]),
        (1, ["STATE", "-", "-", "-", "-"]),
    ]


def test_sequence_numbers_count_up_by_one_per_line(rig: Rig) -> None:
    rig.start()
    for i in range(5):
        rig.send(f"{i} PING")
    seqs = [seq for seq, _ in rig.log]
    assert seqs == list(range(len(seqs)))
    assert [fields for _, fields in rig.log[2:]] == [["ACK", str(i)] for i in range(5)]


def test_sequence_wraps_after_65535(rig: Rig) -> None:
    rig.start()
    rig.app.link.seq = 65535
    rig.send("1 PING")
    rig.send("2 PING")
    assert [seq for seq, _ in rig.log[-2:]] == [65535, 0]


def test_state_reports_every_zone(rig: Rig) -> None:
    rig.start()
    rig.chips[1].place(A)
    rig.chips[3].place(Ntag213("04000000000001"))
    rig.chips[3].place(Ntag213("04000000000002"))
    rig.chips[2].fail("version", 0x00)
    rig.run_ms(1100)
    assert rig.send("9 STATE?") == [["STATE", "-", "04A1B2C3D4E5F6", "FAULT", "MULTI"]]


def test_led_commands(rig: Rig) -> None:
    rig.start()
    led = rig.board.led_pins[1]
    assert rig.send("1 LED 1 ON") == [["ACK", "1"]]
    assert led() == 1
    assert rig.send("2 LED 1 OFF") == [["ACK", "2"]]
    assert led() == 0
    assert rig.send("3 LED 1 FLASH") == [["ACK", "3"]]
    assert led() == 1
    rig.run_ms(rig.cfg.LED_FLASH_MS + 10)
    assert led() == 0
    assert rig.send("4 LED 4 ON") == [["NAK", "4", "RANGE"]]
    assert rig.send("5 LED 1 BLINK") == [["NAK", "5", "SYNTAX"]]
    assert rig.send("6 LED 1") == [["NAK", "6", "SYNTAX"]]


def test_beep(rig: Rig) -> None:
    rig.start()
    assert rig.send("1 BEEP 100") == [["ACK", "1"]]
    assert rig.board.buzzer() == 1
    rig.run_ms(110)
    assert rig.board.buzzer() == 0
    assert rig.send("2 BEEP 0") == [["NAK", "2", "RANGE"]]
    assert rig.send("3 BEEP 2001") == [["NAK", "3", "RANGE"]]
    assert rig.send("4 BEEP loud") == [["NAK", "4", "SYNTAX"]]


def test_rescan_answers_ack_then_a_fresh_state_without_events(rig: Rig) -> None:
    rig.start()
    rig.chips[0].place(A)
    rig.run_ms(30)
    rig.events()
    rig.chips[0].lift(A)
    rig.chips[2].place(A)  # moved within the quiet time: RESCAN sees it at once (once it has powered up)
    rig.clock.advance_us(A.power_up_us)
    assert rig.send("7 RESCAN") == [["ACK", "7"], ["STATE", "-", "-", "04A1B2C3D4E5F6", "-"]]
    assert rig.run_ms(1000) == []


def test_bad_crc_is_nak_with_the_sequence(rig: Rig) -> None:
    rig.start()
    rig.port.incoming += b"12 PING *0000\n"
    rig.app.step()
    assert rig.events() == [["NAK", "12", "CRC"]]


def test_garbage_without_a_sequence_is_nak_dash(rig: Rig) -> None:
    rig.start()
    for junk in (b"hello\n", b"import machine; machine.reset()\r\n", b"\x03\x03\x04\n", b"\xff\xfe PING\n"):
        rig.port.incoming += junk
        rig.app.step()
        assert rig.events() == [["NAK", "-", "CRC"]], junk


def test_too_long_line_is_dropped_and_the_next_line_works(rig: Rig) -> None:
    rig.start()
    rig.port.incoming += b"1 PING " + b"x" * 200 + b"\n" + frame("2 PING")
    for _ in range(10):
        rig.app.step()
    assert rig.events() == [["NAK", "-", "CRC"], ["ACK", "2"]]


def test_line_length_limit_is_120_bytes_with_the_newline(rig: Rig) -> None:
    rig.start()
    for size, expected in ((120, ["NAK", "3", "UNKNOWN"]), (121, ["NAK", "-", "CRC"])):
        body = "3 X"
        body += "Y" * (size - len(frame(body)))
        line = frame(body)
        assert len(line) == size
        rig.port.incoming += line
        for _ in range(3):
            rig.app.step()
        assert rig.events() == [expected], size


def test_unknown_command_and_fields_where_none_belong(rig: Rig) -> None:
    rig.start()
    assert rig.send("1 DANCE") == [["NAK", "1", "UNKNOWN"]]
    assert rig.send("2 STATE? now") == [["NAK", "2", "SYNTAX"]]
    assert rig.send("x PING") == [["NAK", "-", "SYNTAX"]]
    assert rig.send("3") == [["NAK", "3", "SYNTAX"]]


def test_empty_lines_are_ignored(rig: Rig) -> None:
    rig.start()
    rig.port.incoming += b"\n\r\n"
    rig.app.step()
    assert rig.events() == []
    assert rig.app.link.errors == 0


def test_errors_are_counted_in_the_heartbeat(rig: Rig) -> None:
    rig.start()
    rig.send("1 DANCE")
    rig.port.incoming += b"junk\n"
    rig.run_ms(1100)
    beats = [fields for _, fields in rig.log if fields[0] == "HB"]
    assert beats[-1][3] == "2"


def test_lines_split_across_reads_are_joined(rig: Rig) -> None:
    rig.start()
    line = frame("5 PING")
    for b in line:
        rig.port.incoming.append(b)
        rig.app.step()
    assert rig.events() == [["ACK", "5"]]


@settings(max_examples=60, deadline=None)
@given(st.binary(max_size=400))
def test_random_bytes_never_crash_and_every_answer_is_well_formed(junk: bytes) -> None:
    rig = Rig(FW)
    rig.start()
    rig.port.incoming += junk + b"\n" + frame("60000 PING")
    for _ in range(20):
        rig.app.step()
    answers = rig.events()  # parse() checks every CRC
    assert answers[-1] == ["ACK", "60000"]
    assert all(fields[0] in ("NAK", "ACK", "HELLO", "STATE") for fields in answers)
