"""The scan loop on four emulated readers: PLACE / LIFT / MULTI / FAULT / OK, quiet time, no flapping.

Time is emulated (tag air time and a Pico-like cost per SPI transaction advance a manual clock), so the
timing assertions here are about the firmware's logic, not about this machine's speed.
"""

from __future__ import annotations

from types import SimpleNamespace

from tablepi.emulator.board import ManualClock
from tablepi.emulator.tags import Ntag213
from tests.firmware.firmware_rig import FakePort, Rig

A = Ntag213("04A1B2C3D4E5F6")
B = Ntag213("04A1B2C3D4E5F7")


def test_boot_says_hello_then_state(rig: Rig) -> None:
    assert rig.start() == [["HELLO", "2", "tablepi-fw/1.1.0", "4"], ["STATE", "-", "-", "-", "-"]]
    assert [seq for seq, _ in rig.log] == [0, 1]


def test_card_laid_is_placed_within_30_ms_and_flashes_the_led(rig: Rig) -> None:
    rig.start()
    rig.run_ms(50)
    rig.chips[2].place(A)
    landed = rig.clock.ticks_ms()
    assert rig.run_ms(30) == [["PLACE", "2", "04A1B2C3D4E5F6"]]
    led = rig.board.led_pins[2].history
    assert led and led[0][1] == 1 and led[0][0] - landed <= 30
    rig.run_ms(200)
    assert led[-1][1] == 0  # the flash ended


def test_resting_card_stays_present_without_full_reads(fw: SimpleNamespace) -> None:
    rig = Rig(fw, VERIFY_MS=60_000)
    rig.start()
    rig.chips[0].place(A)
    assert rig.run_ms(30) == [["PLACE", "0", "04A1B2C3D4E5F6"]]
    rig.chips[0].stats.reset()
    assert rig.run_ms(3000) == []
    selects = [f for f in rig.chips[0].stats.frames if f[:2] == b"\x93\x70"]
    assert selects == []  # presence only: REQA, WUPA, HLTA
    assert {f for f in rig.chips[0].stats.frames} == {b"\x26", b"\x52", b"\x50\x00\x57\xcd"}


def test_resting_card_is_verified_in_full_now_and_then(rig: Rig) -> None:
    rig.start()
    rig.chips[0].place(A)
    rig.run_ms(30)
    rig.chips[0].stats.reset()
    assert rig.run_ms(3000) == []
    selects = [f for f in rig.chips[0].stats.frames if f[:2] == b"\x93\x70"]
    assert 2 <= len(selects) <= 4  # VERIFY_MS = 1000: one full read a second, one select per read


def test_lift_waits_for_the_quiet_time(rig: Rig) -> None:
    rig.start()
    rig.chips[1].place(A)
    rig.run_ms(30)
    rig.chips[1].lift(A)
    assert rig.run_ms(rig.cfg.REMOVE_QUIET_MS - 30) == []
    assert rig.run_ms(60) == [["LIFT", "1", "04A1B2C3D4E5F6"]]
    assert rig.run_ms(500) == []


def test_a_card_that_misses_answers_does_not_flap(rig: Rig) -> None:
    rig.start()
    rig.chips[3].place(A)
    rig.run_ms(30)
    for _ in range(20):
        A.silent = True
        assert rig.run_ms(rig.cfg.REMOVE_QUIET_MS * 0.7) == []
        A.silent = False
        assert rig.run_ms(20) == []
    A.silent = False


def test_card_relaid_within_the_quiet_time_is_no_event(rig: Rig) -> None:
    rig.start()
    rig.chips[0].place(A)
    rig.run_ms(30)
    rig.chips[0].lift(A)
    rig.run_ms(50)
    rig.chips[0].place(A)  # powers up fresh: answers REQA, read again, found to be the same card
    assert rig.run_ms(1000) == []


def test_two_cards_are_multi_until_one_remains(rig: Rig) -> None:
    rig.start()
    rig.chips[0].place(A)
    rig.run_ms(30)
    rig.chips[0].place(B)
    assert rig.run_ms(30) == [["MULTI", "0"]]
    assert rig.run_ms(1000) == []
    rig.chips[0].lift(A)
    events = rig.run_ms(rig.cfg.REMOVE_QUIET_MS + 50)
    assert events == [["PLACE", "0", "04A1B2C3D4E5F7"]]
    rig.chips[0].place(A)
    assert rig.run_ms(30) == [["MULTI", "0"]]
    rig.chips[0].lift()
    assert rig.run_ms(rig.cfg.REMOVE_QUIET_MS + 50) == [["LIFT", "0", "-"]]


def test_two_cards_laid_together_are_multi_at_once(rig: Rig) -> None:
    rig.start()
    rig.chips[2].place(A)
    rig.chips[2].place(B)
    assert rig.run_ms(30) == [["MULTI", "2"]]


def test_quick_swap_ends_with_the_new_card(rig: Rig) -> None:
    rig.start()
    rig.chips[0].place(A)
    rig.run_ms(30)
    rig.chips[0].lift(A)
    rig.chips[0].place(B)
    events = rig.run_ms(rig.cfg.REMOVE_QUIET_MS + 100)
    # The old card answered a moment ago, so for the quiet time the zone holds two cards.
    assert events == [["MULTI", "0"], ["PLACE", "0", "04A1B2C3D4E5F7"]]


def test_slow_swap_is_lift_then_place(rig: Rig) -> None:
    rig.start()
    rig.chips[0].place(A)
    rig.run_ms(30)
    rig.chips[0].lift(A)
    assert rig.run_ms(rig.cfg.REMOVE_QUIET_MS + 50) == [["LIFT", "0", "04A1B2C3D4E5F6"]]
    rig.chips[0].place(B)
    assert rig.run_ms(30) == [["PLACE", "0", "04A1B2C3D4E5F7"]]


def test_reader_failing_selftest_is_reported_and_retried(rig: Rig) -> None:
    rig.chips[1].fail("version", 0x00)
    assert rig.start() == [
        ["HELLO", "2", "tablepi-fw/1.1.0", "4"],
        ["STATE", "-", "FAULT", "-", "-"],
        ["FAULT", "1", "SELFTEST"],
    ]
    rig.chips[0].place(A)
    assert rig.run_ms(2500) == [["PLACE", "0", "04A1B2C3D4E5F6"]]  # the others work meanwhile
    rig.chips[1].repair()
    rig.chips[1].place(B)
    assert rig.run_ms(rig.cfg.FAULT_RETRY_MS + 50) == [["OK", "1"], ["PLACE", "1", "04A1B2C3D4E5F7"]]


def test_hung_reader_is_timeout_then_ok_and_the_card_comes_back(rig: Rig) -> None:
    rig.start()
    rig.chips[3].place(A)
    rig.run_ms(30)
    rig.chips[3].fail("hung")
    assert rig.run_ms(50) == [["FAULT", "3", "TIMEOUT"]]
    rig.app.state()
    assert rig.events() == [["STATE", "-", "-", "-", "FAULT"]]
    rig.chips[3].repair()
    assert rig.run_ms(rig.cfg.FAULT_RETRY_MS + 50) == [["OK", "3"], ["PLACE", "3", "04A1B2C3D4E5F6"]]


def test_unplugged_reader_is_timeout(rig: Rig) -> None:
    rig.start()
    rig.chips[2].fail("absent")
    assert rig.run_ms(50) == [["FAULT", "2", "TIMEOUT"]]
    assert rig.run_ms(3000) == []  # retried quietly


def test_power_glitch_is_repaired_without_losing_the_card(rig: Rig) -> None:
    """A brown-out resets the chip's registers: hard reset and set-up at once, no FAULT, the card stays."""
    rig.start()
    rig.chips[0].place(A)
    rig.run_ms(30)
    rig.chips[0].power_glitch()
    assert rig.run_ms(rig.cfg.HEALTH_MS + 50) == []
    assert rig.app.scanner.repairs == 1
    rig.chips[0].lift(A)
    assert rig.run_ms(rig.cfg.REMOVE_QUIET_MS + 100) == [["LIFT", "0", "04A1B2C3D4E5F6"]]


def test_a_chip_that_stays_wrong_after_its_repair_is_fault_reset(rig: Rig) -> None:
    rig.start()
    rig.chips[1].power_glitch()
    rig.chips[1].fail("version", 0x00)  # and it does not come back
    assert rig.run_ms(rig.cfg.HEALTH_MS + 50)[:1] == [["FAULT", "1", "TIMEOUT"]]


def test_heartbeat_carries_scan_statistics(rig: Rig) -> None:
    rig.start()
    rig.chips[0].place(A)
    rig.run_ms(2050)
    beats = [fields for _, fields in rig.log if fields[0] == "HB"]
    assert len(beats) == 2
    uptime, scans, errors, *rates = (int(x) for x in beats[1][1:])
    assert 1900 <= uptime <= 2100
    assert errors == 0
    assert len(rates) == 4 and all(rate >= 50 for rate in rates)
    assert scans >= sum(rates)


def test_heartbeat_and_quiet_times_across_the_ticks_wrap(fw: SimpleNamespace) -> None:
    """ticks_ms wraps at 2**30 ms (12.4 days): uptime, rates and the quiet time must go on through it."""
    rig = Rig(fw, start_ms=(1 << 30) - 700)
    rig.start()
    rig.chips[0].place(A)
    assert rig.run_ms(2050) == [["PLACE", "0", "04A1B2C3D4E5F6"]]
    assert rig.clock.ticks_ms() < 2000  # wrapped
    rig.chips[0].lift(A)
    assert rig.run_ms(rig.cfg.REMOVE_QUIET_MS + 50) == [["LIFT", "0", "04A1B2C3D4E5F6"]]
    beats = [fields for _, fields in rig.log if fields[0] == "HB"]
    uptime, _scans, _errors, *rates = (int(x) for x in beats[1][1:])
    assert 1900 <= uptime <= 2100
    assert all(50 <= rate < 1000 for rate in rates)


def test_every_zone_is_scanned_50_times_a_second_with_a_card_on_each(rig: Rig) -> None:
    rig.start()
    for i, chip in enumerate(rig.chips):
        chip.place(Ntag213.numbered(100 + i))  # four different cards (one card on two zones is crosstalk)
    rig.run_ms(1000)
    before = [z.scans for z in rig.app.scanner.zones]
    rig.run_ms(1000)
    after = [z.scans for z in rig.app.scanner.zones]
    assert all(b - a >= 50 for a, b in zip(before, after, strict=True))


def test_watchdog_is_fed_every_step(rig: Rig) -> None:
    rig.start()
    rig.app.step()
    boot_ms = rig.board.wdt.longest_gap_ms  # WDT armed in main.py, then four soft resets and self-tests
    assert boot_ms < 200
    rig.board.wdt.longest_gap_ms = 0
    rig.chips[0].place(A)
    rig.run_ms(2000)
    assert rig.board.wdt.feeds > 100
    assert rig.board.wdt.longest_gap_ms < 20


def test_module_that_does_not_tristate_miso_breaks_the_others(rig: Rig) -> None:
    rig.chips[1].tristate_miso = False  # the pitfall in hw/README.md: it drags the shared MISO low
    assert rig.start()[1] == ["STATE", "FAULT", "-", "FAULT", "FAULT"]


class StalledHostPort(FakePort):
    """USB CDC with the host holding the port open but not reading: every write waits its 500 ms timeout."""

    def __init__(self, clock: ManualClock) -> None:
        super().__init__()
        self.clock = clock

    def write(self, data: bytes) -> None:
        self.clock.advance_ms(500)
        super().write(data)


def test_a_host_that_does_not_read_cannot_starve_the_watchdog(fw: SimpleNamespace) -> None:
    """Boot with four dead readers sends six lines; at 500 ms each they must not add up to the 3 s timeout."""
    rig = Rig(fw, port=StalledHostPort)
    for chip in rig.chips:
        chip.fail("absent")
    lines = rig.start()
    assert [f[0] for f in lines] == ["HELLO", "STATE", "FAULT", "FAULT", "FAULT", "FAULT"]
    rig.app.step()
    rig.send("1 RESCAN")
    assert rig.board.wdt.longest_gap_ms < rig.cfg.WDT_MS / 2
