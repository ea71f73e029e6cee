"""The serial backend against the protocol emulator on a real pseudo-terminal."""

from __future__ import annotations

import threading
import time

import pytest

from tablepi.errors import ConfigError, ReaderError
from tablepi.readers import ZoneEvent, ZoneState, open_reader
from tablepi.readers import protocol as p
from tablepi.readers.events import ReaderEvent
from tablepi.readers.serial import SerialReader, find_port

from .conftest import PtyDevice, card_events, collect, settle, status_events

A = "04A1B2C3D4E5F6"
B = "04B0B0B0B0B0B0"
C = "0411223344556677889900"[:20]
D = "DEADBEEF"


def all_online(events: list[ReaderEvent]) -> bool:
    return sum(1 for s in status_events(events) if s[1] == "ONLINE") >= 4


@pytest.fixture
def reader(pty_device: PtyDevice) -> SerialReader:
    r = open_reader("serial", port=str(pty_device.path), backoff_initial=0.05, backoff_max=0.2)
    assert isinstance(r, SerialReader)
    collect(r, all_online)
    yield r
    r.close()


def test_connect_reports_cards_already_on_the_zones(pty_device: PtyDevice) -> None:
    pty_device.device.place(1, A)  # laid before the host connected: the device stays silent until asked
    with open_reader("serial", port=str(pty_device.path)) as r:
        events = collect(r, lambda ev: all_online(ev) and card_events(ev))
        assert card_events(events) == [(1, A, True)]
        assert r.health().all_online
        assert r.firmware == "tablepi-emu/1.0"


def test_place_lift_multi_fault(reader: SerialReader, pty_device: PtyDevice) -> None:
    dev = pty_device.device
    dev.place(0, A)
    dev.place(3, B)
    dev.lift(0)
    events = collect(reader, lambda ev: len(card_events(ev)) == 3)
    assert card_events(events) == [(0, A, True), (3, B, True), (0, A, False)]
    dev.multi(3)  # B implicitly lifted
    events = collect(reader, lambda ev: ("MULTI" in [s for _, s in status_events(ev)]))
    assert card_events(events) == [(3, B, False)]
    dev.lift(3)  # LIFT 3 - ends the MULTI
    assert status_events(collect(reader, lambda ev: bool(status_events(ev)))) == [(3, "ONLINE")]
    dev.place(2, D)
    dev.fault(2)
    events = collect(reader, lambda ev: bool(status_events(ev)))
    assert status_events(events) == [(2, "FAULT")]
    dev.zones[2] = "-"  # the card is taken while the zone's chip is dead...
    dev.recover(2)  # ...OK, then the host's STATE? settles it: one lift, no doubles
    events = collect(reader, lambda ev: bool(card_events(ev)))
    assert (2, "ONLINE") in status_events(events)
    assert card_events(events + settle(reader)) == [(2, D, False)]


def test_garbage_bad_checksums_gaps_and_half_lines_lose_nothing(
    reader: SerialReader, pty_device: PtyDevice
) -> None:
    dev = pty_device.device
    dev.send_raw(b"\x00\xff\xfe garbage \x1b[0m\n")
    dev.send_raw(b"x" * 300 + b"\n")  # overlong
    dev.place(0, A, corrupt=True)  # bad CRC: dropped; the next line shows the gap
    dev.send_raw(b"12 PLA")  # half a line...
    dev.send_raw(b"\n")  # ...ended: garbage
    dev.place(1, B, lose=True)  # lost entirely
    dev.place(2, D)
    events = collect(reader, lambda ev: len(card_events(ev)) == 3)
    events += settle(reader)
    assert sorted(card_events(events)) == [(0, A, True), (1, B, True), (2, D, True)]
    assert reader.present == (A, B, D, None)
    counters = reader.health().counters
    assert counters["seq_gaps"] >= 1
    assert counters["bad_lines"] >= 3
    assert counters["overlong_line"] == 1


def test_unknown_messages_are_counted_and_ignored(reader: SerialReader, pty_device: PtyDevice) -> None:
    pty_device.device.send(p.Unknown("TEMP", ("21",)))
    pty_device.device.place(0, A)
    assert card_events(collect(reader, lambda ev: bool(card_events(ev)))) == [(0, A, True)]
    assert reader.health().counters["unknown_messages"] == 1


def test_commands_are_acknowledged(reader: SerialReader, pty_device: PtyDevice) -> None:
    stop = threading.Event()

    def pump() -> None:
        while not stop.is_set():
            reader.recv(0.02)

    thread = threading.Thread(target=pump, daemon=True)
    thread.start()
    try:
        assert reader.ping().wait(2)
        assert reader.led(2, "flash").wait(2)
        assert reader.beep(100).wait(2)
        assert reader.rescan().wait(2)
        assert pty_device.device.leds == {2: "FLASH"}
        with pytest.raises(p.ProtocolError):
            reader.beep(5000)  # refused before it is sent
    finally:
        stop.set()
        thread.join()
    kinds = [type(m).__name__ for m in pty_device.device.received]
    assert kinds[-4:] == ["Ping", "Led", "Beep", "Rescan"]


def test_unplug_mid_line_and_replug_loses_and_doubles_nothing(
    reader: SerialReader, pty_device: PtyDevice
) -> None:
    dev = pty_device.device
    dev.place(0, A)
    dev.place(1, B)
    collect(reader, lambda ev: len(card_events(ev)) == 2)
    dev.send_raw(b"40 PLACE 3 04B0")  # the cable goes in the middle of a line
    pty_device.unplug()
    events = collect(reader, lambda ev: len(status_events(ev)) == 4)
    assert status_events(events) == [(z, "OFFLINE") for z in range(4)]
    assert reader.present == (A, B, None, None)  # still believed while the cable is out
    dev.zones[0] = "-"  # A taken while unplugged
    dev.zones[2] = D  # D laid while unplugged
    assert reader.recv(0.3) is None  # a few reconnect attempts fail on the missing path
    pty_device.replug()
    events = collect(reader, all_online)
    events += settle(reader)
    assert sorted(card_events(events)) == [(0, A, False), (2, D, True)]
    assert reader.present == (None, B, D, None)
    counters = reader.health().counters
    assert counters["disconnects"] == 1 and counters["connects"] == 2
    assert counters["open_failed"] >= 1


def test_silent_device_is_a_dead_link(pty_device: PtyDevice) -> None:
    pty_device.device.heartbeat = None
    with open_reader("serial", port=str(pty_device.path), link_timeout=0.3) as r:
        collect(r, all_online)
        events = collect(r, lambda ev: len(status_events(ev)) == 4, timeout=3)
        assert status_events(events) == [(z, "OFFLINE") for z in range(4)]
        # and it comes back by itself once it answers again
        collect(r, all_online, timeout=3)


def test_device_reboot_resets_sequence_without_a_gap(reader: SerialReader, pty_device: PtyDevice) -> None:
    pty_device.device.place(0, A)
    collect(reader, lambda ev: bool(card_events(ev)))
    pty_device.device.reboot()
    pty_device.device.place(1, B)
    events = collect(reader, lambda ev: bool(card_events(ev)))
    assert card_events(events + settle(reader, 0.2)) == [(1, B, True)]
    assert reader.health().counters.get("seq_gaps", 0) == 0


def test_unsupported_protocol_version_is_a_fault_not_events(pty_device: PtyDevice) -> None:
    dev = pty_device.device
    with open_reader("serial", port=str(pty_device.path)) as r:
        collect(r, all_online)
        dev.send(p.Hello(3, "future/9", 4))
        dev.place(0, A)
        events = collect(r, lambda ev: "FAULT" in [s for _, s in status_events(ev)])
        events += settle(r, 0.2)
        assert card_events(events) == []


def test_missing_port_means_offline_not_a_crash(tmp_path) -> None:  # type: ignore[no-untyped-def]
    with open_reader("serial", port=str(tmp_path / "nothing"), backoff_initial=0.01) as r:
        # Said once, so the table shows the zones offline instead of a table that looks ready.
        said = [r.recv(0.1) for _ in range(4)]
        assert [(s.zone, s.state) for s in said] == [(z, ZoneState.OFFLINE) for z in range(4)]  # type: ignore[union-attr]
        assert "nothing" in said[0].detail  # type: ignore[union-attr]
        assert r.recv(0.1) is None  # not again at every retry
        assert r.states == (ZoneState.OFFLINE,) * 4
        assert r.health().counters["open_failed"] >= 2
        with pytest.raises(ReaderError, match="link is down"):
            r.ping()


def test_bad_options_are_config_errors() -> None:
    with pytest.raises(ConfigError, match="'port'"):
        open_reader("serial", port=5)
    with pytest.raises(ConfigError, match="'zones'"):
        open_reader("serial", zones=6)


def test_find_port_prefers_the_first_existing_candidate(tmp_path) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "usb-tablepi_reader_01-if00").touch()
    (tmp_path / "other").touch()
    assert find_port([str(tmp_path / "missing"), str(tmp_path / "*tablepi*")]) == str(
        tmp_path / "usb-tablepi_reader_01-if00"
    )
    assert find_port([str(tmp_path / "missing")]) is None


def test_events_carry_host_monotonic_time(reader: SerialReader, pty_device: PtyDevice) -> None:
    before = time.monotonic()
    pty_device.device.place(0, A)
    ev = next(e for e in collect(reader, lambda ev: bool(card_events(ev))) if isinstance(e, ZoneEvent))
    assert before <= ev.time <= time.monotonic()


@pytest.mark.parametrize("proto", [1, 2])
def test_events_are_dated_when_the_device_saw_them_v2_or_on_arrival_v1(tmp_path, proto: int) -> None:  # type: ignore[no-untyped-def]
    """v2: a LIFT sent after the 200 ms quiet time is dated at the card's last answer; v1 has no time: arrival."""
    from .conftest import PtyDevice

    dev = PtyDevice(tmp_path, heartbeat=0.1)
    dev.device.proto = proto
    try:
        with open_reader("serial", port=str(dev.path)) as r:
            collect(r, all_online)
            settle(r, 0.35)  # a few heartbeats, read as they come, map the device's clock
            dev.device.place(2, A, ago_ms=30)
            placed = collect(r, lambda ev: bool(card_events(ev)))
            settle(r, 0.4)
            dev.device.lift(2, ago_ms=200)
            sent = time.monotonic()
            lifted = collect(r, lambda ev: bool(card_events(ev)))
            got = time.monotonic()
            assert r.proto == proto
        place = next(e for e in placed if isinstance(e, ZoneEvent))
        lift = next(e for e in lifted if isinstance(e, ZoneEvent))
        if proto == 2:
            assert sent - 0.2 - 0.05 <= lift.time <= sent - 0.2 + 0.02
        else:
            assert sent <= lift.time <= got
        assert place.time < lift.time
    finally:
        dev.close()
