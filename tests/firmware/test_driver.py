"""The firmware's MFRC522 driver against the emulated chip: self-test, presence, UID reads, collisions."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from tablepi.emulator.board import EmulatedBoard, ManualClock
from tablepi.emulator.tags import Iso14443aTag, Ntag213


@pytest.fixture
def one(fw: SimpleNamespace) -> SimpleNamespace:
    board = EmulatedBoard(ManualClock())
    reader = fw.mfrc522.MFRC522(board.bus, board.cs_pins[0], sleep_ms=board.clock.sleep_ms)
    return SimpleNamespace(board=board, chip=board.chips[0], reader=reader, m=fw.mfrc522)


def test_init_passes_selftest_and_sets_up_the_timer(one: SimpleNamespace) -> None:
    assert one.reader.init() == one.m.OK
    assert one.reader.version == 0x92
    assert one.chip.regs[0x2A] == 0x80  # TAuto
    assert one.chip.field_on
    assert one.reader.check() == one.m.OK


@pytest.mark.parametrize("version", [0x00, 0xFF, 0x90, 0x37])
def test_unknown_version_fails_selftest(one: SimpleNamespace, version: int) -> None:
    """0x00 / 0xFF: nothing (or a stuck line) on MISO; 0x90: the pre-production v0.0; 0x37: garbage."""
    one.chip.fail("version", version)
    assert one.reader.init() == one.m.SELFTEST


@pytest.mark.parametrize("version", [0x91, 0x92, 0x88, 0x89, 0xB2, 0x12])
def test_genuine_and_compatible_chips_pass_selftest(fw: SimpleNamespace, version: int) -> None:
    """NXP v1.0/v2.0, Fudan FM17522 (0x88, 0x89, 0xB2) and the common copy (0x12) as sold on RC522 boards."""
    board = EmulatedBoard(ManualClock(), versions=(version,))
    reader = fw.mfrc522.MFRC522(board.bus, board.cs_pins[0], fw.config.CHIP_VERSIONS, sleep_ms=board.clock.sleep_ms)
    assert reader.init() == fw.mfrc522.OK
    assert reader.version == version


def test_absent_chip_fails_selftest(one: SimpleNamespace) -> None:
    one.chip.fail("absent")
    assert one.reader.init() == one.m.SELFTEST


def test_no_tag_ends_on_the_timer(one: SimpleNamespace) -> None:
    one.reader.init()
    one.board.clock.advance_us(Ntag213.power_up_us)  # the field came on: tags power up
    assert one.reader.wupa() == one.m.NONE
    assert one.chip.regs[0x04] & 0x01  # TimerIRq
    assert one.chip.stats.air_time_us > 1000  # the 1 ms timeout was spent on air


def test_reads_a_7_byte_ntag213_uid_over_two_cascade_levels(one: SimpleNamespace) -> None:
    tag = Ntag213("04A1B2C3D4E5F6")
    one.chip.place(tag)
    one.reader.init()
    one.board.clock.advance_us(Ntag213.power_up_us)  # the field came on: tags power up
    assert one.reader.wupa() == one.m.OK
    assert one.reader.read_uid() == one.m.OK
    assert bytes(one.reader.uid[: one.reader.uid_len]) == tag.uid
    assert one.reader.sak == 0x00
    assert tag.state.value == "active"


def test_reads_a_4_byte_uid(one: SimpleNamespace) -> None:
    tag = Iso14443aTag("DEADBEEF")
    one.chip.place(tag)
    one.reader.init()
    one.board.clock.advance_us(Ntag213.power_up_us)  # the field came on: tags power up
    assert one.reader.reqa() == one.m.OK
    assert one.reader.read_uid() == one.m.OK
    assert bytes(one.reader.uid[: one.reader.uid_len]) == tag.uid


def test_halted_tag_answers_wupa_but_not_reqa(one: SimpleNamespace) -> None:
    one.chip.place(Ntag213("04A1B2C3D4E5F6"))
    one.reader.init()
    one.board.clock.advance_us(Ntag213.power_up_us)  # the field came on: tags power up
    one.reader.wupa()
    one.reader.read_uid()
    assert one.reader.halt() == one.m.OK
    assert one.reader.reqa() == one.m.NONE
    assert one.reader.wupa() == one.m.OK
    one.reader.halt()  # READY* falls back to HALT on an unexpected frame
    assert one.reader.reqa() == one.m.NONE


def test_two_tags_collide(one: SimpleNamespace) -> None:
    one.chip.place(Ntag213("04A1B2C3D4E5F6"))
    one.chip.place(Ntag213("04A1B2C3D4E5F7"))  # same first level: the collision comes at level 2
    one.reader.init()
    one.board.clock.advance_us(Ntag213.power_up_us)  # the field came on: tags power up
    assert one.reader.wupa() == one.m.OK  # identical ATQA: no collision yet
    assert one.reader.read_uid() == one.m.COLL
    assert one.chip.regs[0x06] & 0x08  # CollErr


def test_hung_chip_is_reported(one: SimpleNamespace) -> None:
    one.reader.init()
    one.board.clock.advance_us(Ntag213.power_up_us)  # the field came on: tags power up
    one.chip.fail("hung")
    assert one.reader.wupa() == one.m.HUNG


def test_power_glitch_is_seen_by_check(one: SimpleNamespace) -> None:
    one.reader.init()
    one.board.clock.advance_us(Ntag213.power_up_us)  # the field came on: tags power up
    one.chip.power_glitch()
    assert one.reader.check() == one.m.RESET
    one.chip.fail("version", 0x00)
    assert one.reader.check() == one.m.HUNG


def test_select_frames_carry_the_chip_crc(one: SimpleNamespace) -> None:
    from tablepi.emulator.tags import crc_a

    one.chip.place(Ntag213("04A1B2C3D4E5F6"))
    one.reader.init()
    one.board.clock.advance_us(Ntag213.power_up_us)  # the field came on: tags power up
    one.reader.wupa()
    one.reader.read_uid()
    selects = [f for f in one.chip.stats.frames if len(f) == 9]
    assert len(selects) == 2
    for f in selects:
        assert f[1] == 0x70
        assert f[7:] == crc_a(f[:7])


def test_init_waits_for_the_soft_reset(fw: SimpleNamespace) -> None:
    """The chip ignores writes while SoftReset runs: a driver that sets it up at once loses its setup."""
    board = EmulatedBoard(ManualClock())
    hasty = fw.mfrc522.MFRC522(board.bus, board.cs_pins[0])  # no sleep: writes land inside the reset
    assert hasty.init() != fw.mfrc522.OK
    assert board.chips[0].stats.busy_accesses > 0
    patient = fw.mfrc522.MFRC522(board.bus, board.cs_pins[1], sleep_ms=board.clock.sleep_ms)
    assert patient.init() == fw.mfrc522.OK
    assert board.chips[1].stats.busy_accesses == 0


def test_every_frame_goes_out_once_with_its_own_framing(one: SimpleNamespace) -> None:
    """StartSend stays set on the chip: the driver clears it, so no command starts early with stale framing."""
    one.chip.place(Ntag213("04A1B2C3D4E5F6"))
    one.reader.init()
    one.board.clock.advance_us(Ntag213.power_up_us)  # the field came on: tags power up
    one.chip.stats.reset()
    assert one.reader.wupa() == one.m.OK
    assert one.reader.read_uid() == one.m.OK
    assert one.reader.halt() == one.m.OK
    heads = [f[:2] for f in one.chip.stats.frames]
    assert heads == [b"\x52", b"\x93\x20", b"\x93\x70", b"\x95\x20", b"\x95\x70", b"\x50\x00"]
    assert one.chip.stats.frame_bits == [7, 16, 72, 16, 72, 32]


def test_hlta_after_a_7_bit_wupa_is_a_full_32_bit_frame(one: SimpleNamespace) -> None:
    """Transmit starts on the CommandReg write: TxLastBits = 7 left by WUPA must be reset before it."""
    tag = Ntag213("04A1B2C3D4E5F6")
    one.chip.place(tag)
    one.reader.init()
    one.board.clock.advance_us(Ntag213.power_up_us)  # the field came on: tags power up
    one.reader.wupa()
    one.reader.read_uid()
    one.reader.halt()
    one.chip.stats.reset()
    assert one.reader.wupa() == one.m.OK  # the resting-card check: WUPA, then HLTA at once
    assert one.reader.halt() == one.m.OK
    assert one.chip.stats.frames == [b"\x52", b"\x50\x00\x57\xcd"]
    assert one.chip.stats.frame_bits == [7, 32]
    assert tag.state.value == "halt"
