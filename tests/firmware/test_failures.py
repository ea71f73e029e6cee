"""The failure modes builders of multi-reader RC522 tables report, emulated, against the real firmware.

Each test below fails on the firmware before protocol v2 (1.0.0) and passes on this one; to see it fail, run
the file with ``TABLEPI_FIRMWARE_DIR`` set to a folder holding the old sources
(``git show REV:firmware/scanner.py`` etc.). What each model does is in tablepi/emulator/mfrc522.py;
docs/firmware.md ("Failures modelled") sums up the firmware's answer to each.
"""

from __future__ import annotations

from types import SimpleNamespace

from tablepi.emulator.mfrc522 import RF_CFG, TX_ASK
from tablepi.emulator.tags import Ntag213
from tests.firmware.firmware_rig import Rig

A = Ntag213("04A1B2C3D4E5F6")
B = Ntag213("04A1B2C3D4E5F7")
C = Ntag213("04C0C0C0C0C0C0")


def test_a_module_that_goes_deaf_after_hours_is_re_initialised_without_losing_its_card(fw: SimpleNamespace) -> None:
    """rfid #540/#546: readers stop seeing cards after hours while still answering register reads."""
    rig = Rig(fw)
    rig.start()
    rig.chips[0].place(A)
    assert rig.run_ms(50) == [["PLACE", "0", A.uid_hex]]
    # The model's "N hours" is 3 s here (the soak test runs real hours): module 0 goes deaf under its card,
    # module 1 while its zone is empty.
    rig.chips[0].stop_detecting_after(3000e3)
    rig.chips[1].stop_detecting_after(3000e3)
    assert rig.run_ms(4000) == []  # no LIFT: the reader was re-initialised before the card was given up
    assert not rig.chips[0].deaf
    rig.chips[1].place(B)  # on the module that went deaf with nothing on it
    assert rig.run_ms(rig.cfg.REINIT_MS + 100) == [["PLACE", "1", B.uid_hex]]


def test_a_soft_reset_that_never_completes_is_ended_by_a_hard_reset(fw: SimpleNamespace) -> None:
    """MFRC522-I2C-Library #5: PowerDown never clears after SoftReset; only NRSTPD brings the chip back."""
    rig = Rig(fw, REINIT_MS=60_000)  # the brown-out's repair, not a proactive re-init, meets the hang
    rig.start()
    rig.chips[0].place(A)
    rig.run_ms(50)
    rig.chips[2].hang_next_soft_reset()
    rig.chips[2].power_glitch()  # its setup is gone: the firmware must re-initialise it, and that hangs
    rig.run_ms(2 * rig.cfg.FAULT_RETRY_MS)
    assert not rig.chips[2].power.stuck
    rig.chips[2].place(B)
    events = rig.run_ms(300)
    assert ["PLACE", "2", B.uid_hex] in events
    assert all(e[0] != "LIFT" for e in events)  # zone 0's card outlived the hard reset of all modules
    rig.app.state()
    assert rig.events() == [["STATE", A.uid_hex, "-", B.uid_hex, "-"]]


def test_a_neighbours_tag_heard_garbled_is_never_a_place(fw: SimpleNamespace) -> None:
    """rfid #589, OpenRFID #26: readers 80 mm apart read each other's tags as wrong UIDs, no CRC error."""
    rig = Rig(fw, seed=3)
    rig.start()
    rig.board.lay(1, C)
    assert rig.run_ms(50) == [["PLACE", "1", C.uid_hex]]
    rig.chips[0].couple(C, 80, answer=1.0, garble=1.0)  # zone 0 hears it on every read, always garbled
    assert rig.run_ms(5000) == []
    assert rig.chips[0].rx_gain_db == 48


def test_lowering_the_gain_ends_crosstalk_at_80_mm(fw: SimpleNamespace) -> None:
    """The crosstalk model's gain settings (hw/README.md): 38 dB still reads the zone's own card, not 80 mm away."""
    rig = Rig(fw, RX_GAIN=0x50)
    rig.start()
    rig.board.lay(1, C, spacing_mm=80, answer=1.0, garble=0.0)  # at 48 dB zone 0 and 2 would read it cleanly
    assert rig.run_ms(2000) == [["PLACE", "1", C.uid_hex]]


def test_a_card_landing_between_two_antennas_is_placed_on_its_own_zone_only(fw: SimpleNamespace) -> None:
    """Crosstalk at landing: neighbours 80 mm away at 48 dB read the card cleanly on every read, and one of them
    may read it (twice, identically) before its own zone does. The near read (MFRC522.near) decides: never a
    PLACE on the neighbour's zone, not even a brief one the host would take for a show."""
    rig = Rig(fw, seed=5)
    rig.start()
    for i in range(24):
        rig.run_ms(1.7 * i % 9)  # land at every phase of the scan round
        zone = i % 4
        tag = Ntag213.numbered(2000 + i)
        rig.board.lay(zone, tag, spacing_mm=80, answer=1.0, garble=0.0, slide_us=(0.0, 8e3)[i % 2])
        events = [e for e in rig.run_ms(600) if e[0] in ("PLACE", "LIFT")]
        assert events == [["PLACE", str(zone), tag.uid_hex]], (i, events)
        rig.board.take(zone, tag)
        events = [e for e in rig.run_ms(rig.cfg.REMOVE_QUIET_MS + 200) if e[0] in ("PLACE", "LIFT")]
        assert events == [["LIFT", str(zone), tag.uid_hex]], (i, events)


def test_cards_sliding_in_are_placed_once_with_their_own_uid(fw: SimpleNamespace) -> None:
    """A card still moving gives failed, partial and garbled reads before a good one."""
    rig = Rig(fw, seed=11)
    rig.start()
    placed = []
    for i in range(40):
        zone = i % 4
        tag = Ntag213.numbered(1000 + i)
        rig.chips[zone].place(tag, slide_us=40e3)
        placed += [e for e in rig.run_ms(120) if e[0] == "PLACE"]
        assert placed[-1:] == [["PLACE", str(zone), tag.uid_hex]], placed
        rig.chips[zone].lift(tag)
        rig.run_ms(rig.cfg.REMOVE_QUIET_MS + 100)
    assert len(placed) == 40


def test_events_carry_the_time_of_the_cards_answers(fw: SimpleNamespace) -> None:
    """A 0.85 s show must reach the host as 0.85 s, not 0.85 s + the 200 ms quiet time."""
    rig = Rig(fw)
    rig.start()
    rig.run_ms(30)
    landed = rig.uptime_ms()
    rig.chips[3].place(A)
    rig.run_ms(850)
    lifted = rig.uptime_ms()
    rig.chips[3].lift(A)
    sent = None
    for _ in range(100):
        if rig.run_ms(10):
            sent = rig.uptime_ms()
            break
    assert sent is not None and sent - lifted >= rig.cfg.REMOVE_QUIET_MS  # the line leaves after the quiet time
    (_, _, placed_at), (_, _, lifted_at) = rig.stamps
    assert 0 <= placed_at - landed <= A.power_up_us / 1000 + 10  # first answer: after the tag powered up
    assert 0 <= lifted - lifted_at <= 10  # last answer: just before the card left
    assert abs((lifted_at - placed_at) - 850) <= 15


def test_a_stack_of_three_that_freezes_the_receiver_is_multi_not_a_fault(fw: SimpleNamespace) -> None:
    """Builders report readers that freeze when cards are stacked."""
    rig = Rig(fw)
    rig.start()
    rig.chips[3].place(A)
    rig.run_ms(50)
    rig.chips[3].place(B)
    rig.chips[3].place(C)
    assert rig.run_ms(3000) == [["MULTI", "3"]]
    assert rig.chips[3].stats.frozen > 0
    rig.chips[3].lift(A)
    rig.chips[3].lift(C)
    assert rig.run_ms(rig.cfg.REMOVE_QUIET_MS + 100) == [["PLACE", "3", B.uid_hex]]


def test_a_stack_of_two_is_multi(fw: SimpleNamespace) -> None:
    rig = Rig(fw)
    rig.start()
    rig.chips[1].place(A)
    rig.chips[1].place(B)
    assert rig.run_ms(100) == [["MULTI", "1"]]


def test_a_gain_that_drifted_under_a_resting_card_costs_no_lift(fw: SimpleNamespace) -> None:
    """A setup register that changes by itself: the card is no longer heard, the chip answers on the bus."""
    rig = Rig(fw)
    rig.start()
    rig.chips[1].place(A)
    rig.run_ms(50)
    rig.chips[1].drift(RF_CFG, 0x00)  # 18 dB: a card 20 mm above the antenna is out of reach
    events = rig.run_ms(3000)
    assert all(e[0] not in ("LIFT", "MULTI") for e in events), events
    assert rig.chips[1].regs[RF_CFG] == rig.cfg.RX_GAIN


def test_a_setup_register_that_drifted_on_an_empty_zone_is_repaired(fw: SimpleNamespace) -> None:
    """Repaired by the proactive re-initialisation (every REINIT_MS) or the health check, whichever comes first."""
    rig = Rig(fw)
    rig.start()
    rig.chips[0].place(A)
    rig.run_ms(50)
    rig.chips[2].drift(TX_ASK, 0x00)  # no 100 % ASK: tags no longer understand the reader
    assert rig.run_ms(rig.cfg.HEALTH_MS + 100) == []  # repaired at once: nothing for the host to worry about
    assert rig.chips[2].regs[TX_ASK] == 0x40
    rig.chips[2].place(B)
    assert rig.run_ms(100) == [["PLACE", "2", B.uid_hex]]
    rig.app.state()
    assert rig.events() == [["STATE", A.uid_hex, "-", B.uid_hex, "-"]]


def test_a_neighbours_tag_heard_cleanly_stays_on_its_own_zone(fw: SimpleNamespace) -> None:
    """One card in one place: zone 0 hears zone 1's card faithfully; it is reported once as CROSS, never placed."""
    rig = Rig(fw)
    rig.start()
    rig.chips[1].place(C)
    assert rig.run_ms(50) == [["PLACE", "1", C.uid_hex]]
    rig.chips[0].couple(C, 80, answer=1.0, garble=0.0)
    assert rig.run_ms(2000) == [["CROSS", "0", C.uid_hex, "1"]]
    rig.board.take(1, C)
    assert rig.run_ms(rig.cfg.REMOVE_QUIET_MS + 100) == [["LIFT", "1", C.uid_hex]]
    rig.chips[0].place(A)  # zone 0 works as ever afterwards (for a minute it wants a run of reads first)
    assert rig.run_ms(150) == [["PLACE", "0", A.uid_hex]]


def test_cards_landing_between_antennas_80_mm_apart_go_to_their_own_zone(fw: SimpleNamespace) -> None:
    """The hard case: the neighbours hear the card from the moment it lands, while it still slides in.

    A neighbour may then read it twice, identically, before its own zone does; but it does not read it at the
    near gain, so it does not place it: the card is placed on its own zone only. (Firmware 1.1.0 placed it on
    the neighbour first in about one landing in five and moved it within the tap window: a false show there.)
    """
    rig = Rig(fw, seed=5)
    rig.start()
    moved = 0
    for i in range(30):
        zone = i % 4
        tag = Ntag213.numbered(2000 + i)
        rig.board.lay(zone, tag, slide_us=40e3, spacing_mm=80)
        stamps = len(rig.stamps)
        events = rig.run_ms(600)
        assert events[-1:] == [["PLACE", str(zone), tag.uid_hex]] or ["PLACE", str(zone), tag.uid_hex] in events
        wrong = [e for e in events if e[0] in ("PLACE", "LIFT") and e[1] != str(zone)]
        if wrong:
            moved += 1
            assert [e[0] for e in wrong] == ["PLACE", "LIFT"], events
            (_, _, placed), (_, _, lifted) = [s for s in rig.stamps[stamps:] if s[1] != zone]
            assert lifted - placed < 500  # a show at worst, never a lay
        rig.board.take(zone, tag)
        rig.run_ms(rig.cfg.REMOVE_QUIET_MS + 100)
        rig.app.state()
        assert rig.events() == [["STATE", "-", "-", "-", "-"]]
    assert moved == 0
