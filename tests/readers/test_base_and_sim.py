"""The public read path written once in Reader, exercised through the sim backend driven like hardware."""

from __future__ import annotations

import queue
import time

import pytest

from tablepi.errors import ConfigError, ParseError, ReaderError
from tablepi.readers import (
    Reader,
    ReaderPump,
    ZoneEvent,
    ZoneState,
    ZoneStatus,
    open_reader,
    reader_class,
)
from tablepi.readers.events import ReaderEvent, ZoneSnapshot, normalise_uid
from tablepi.readers.sim import ScriptStep, SimReader

from .conftest import collect

A = "04A1B2C3D4E5F6"
B = "04B0B0B0B0B0B0"
C = "DEADBEEF"


def drain(reader: Reader, wait: float = 0.05) -> list[ReaderEvent]:
    out: list[ReaderEvent] = []
    while (ev := reader.recv(wait)) is not None:
        out.append(ev)
    return out


def cards(events: list[ReaderEvent]) -> list[tuple[int, str, bool]]:
    return [(e.zone, e.uid, e.present) for e in events if isinstance(e, ZoneEvent)]


def statuses(events: list[ReaderEvent]) -> list[tuple[int, ZoneState]]:
    return [(e.zone, e.state) for e in events if isinstance(e, ZoneStatus)]


@pytest.fixture
def sim() -> SimReader:
    reader = open_reader("sim")
    assert isinstance(reader, SimReader)
    assert statuses(drain(reader)) == [(z, ZoneState.ONLINE) for z in range(4)]
    yield reader
    reader.close()


def test_place_and_lift_come_out_in_order(sim: SimReader) -> None:
    sim.place(0, A)
    sim.place(3, B)
    sim.lift(0)
    assert cards(drain(sim)) == [(0, A, True), (3, B, True), (0, A, False)]
    assert sim.present == (None, None, None, B)


def test_place_over_a_card_lifts_it_first(sim: SimReader) -> None:
    sim.place(1, A)
    sim.place(1, B)
    assert cards(drain(sim)) == [(1, A, True), (1, A, False), (1, B, True)]
    assert sim.health().counters["implicit_lift"] == 1


def test_duplicates_and_stray_lifts_from_a_backend_are_dropped(sim: SimReader) -> None:
    # Feed the normalising core directly as a misbehaving backend would.
    t = time.monotonic()
    for item in [
        ZoneEvent(2, A, True, t),
        ZoneEvent(2, A, True, t),
        ZoneEvent(2, B, False, t),
        ZoneEvent(2, A, False, t),
        ZoneEvent(2, A, False, t),
        ZoneEvent(9, A, True, t),
    ]:
        sim._inbox.put(item)
    assert cards(drain(sim)) == [(2, A, True), (2, A, False)]
    counters = sim.health().counters
    assert counters["duplicate_place"] == 1
    assert counters["stray_lift"] == 2
    assert counters["bad_zone"] == 1


def test_snapshot_is_diffed_against_what_was_told(sim: SimReader) -> None:
    t = time.monotonic()
    sim.place(0, A)
    sim.place(1, B)
    drain(sim)
    for item in [ZoneSnapshot(0, A, t), ZoneSnapshot(1, None, t), ZoneSnapshot(2, C, t), ZoneSnapshot(3, None, t)]:
        sim._inbox.put(item)
    assert cards(drain(sim)) == [(1, B, False), (2, C, True)]


def test_unplug_keeps_belief_and_replug_reports_only_the_difference(sim: SimReader) -> None:
    sim.place(0, A)
    sim.place(1, B)
    drain(sim)
    sim.unplug()
    sim.lift(0)  # taken while unplugged
    sim.place(2, C)  # laid while unplugged
    events = drain(sim)
    assert statuses(events) == [(z, ZoneState.OFFLINE) for z in range(4)]
    assert cards(events) == []
    assert sim.present == (A, B, None, None)  # belief kept while offline
    sim.replug()
    events = drain(sim)
    assert cards(events) == [(0, A, False), (2, C, True)]  # B neither lost nor doubled
    assert statuses(events) == [(z, ZoneState.ONLINE) for z in range(4)]


def test_fault_and_recover(sim: SimReader) -> None:
    sim.place(2, A)
    sim.fault(2, "TIMEOUT")
    sim.lift(2)  # not seen while faulty
    events = drain(sim)
    assert statuses(events) == [(2, ZoneState.FAULT)]
    assert [e.detail for e in events if isinstance(e, ZoneStatus)] == ["TIMEOUT"]
    sim.recover(2)
    assert cards(drain(sim)) == [(2, A, False)]
    assert sim.states[2] is ZoneState.ONLINE


def test_multi_lifts_the_card_and_clears_on_a_single_tag(sim: SimReader) -> None:
    sim.place(1, A)
    sim.multi(1)
    events = drain(sim)
    assert cards(events) == [(1, A, True), (1, A, False)]
    assert statuses(events) == [(1, ZoneState.MULTI)]
    sim.place(1, B)
    events = drain(sim)
    assert statuses(events) == [(1, ZoneState.ONLINE)]
    assert cards(events) == [(1, B, True)]


def test_status_only_on_change(sim: SimReader) -> None:
    sim.unplug(3)
    sim.unplug(3)
    assert statuses(drain(sim)) == [(3, ZoneState.OFFLINE)]
    assert sim.health().counters["repeated_status"] == 1


class FakeClock:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


def test_debounce_swallows_a_bounce_but_delivers_a_real_lift() -> None:
    clock = FakeClock()
    with SimReader(debounce=0.3, clock=clock) as reader:
        drain(reader, 0)
        reader.place(0, A)
        reader.lift(0)
        clock.t += 0.1
        reader.place(0, A)  # back within 0.3 s: a bounce
        assert cards(drain(reader, 0)) == [(0, A, True)]
        reader.lift(0)
        lift_time = clock.t
        assert drain(reader, 0) == []  # held for the debounce window
        clock.t += 0.31
        events = drain(reader, 0)
        assert cards(events) == [(0, A, False)]
        assert events[0].time == lift_time  # the lift keeps the time it was observed
        assert reader.health().counters["debounced"] == 1


def test_debounce_releases_a_held_lift_before_another_card() -> None:
    clock = FakeClock()
    with SimReader(debounce=5.0, clock=clock) as reader:
        drain(reader, 0)
        reader.place(0, A)
        reader.lift(0)
        reader.place(0, B)
        assert cards(drain(reader, 0)) == [(0, A, True), (0, A, False), (0, B, True)]


def test_recv_times_out_and_closed_reader_raises() -> None:
    reader = open_reader("sim", online=False)
    start = time.monotonic()
    assert reader.recv(0.05) is None
    assert time.monotonic() - start >= 0.04
    reader.close()
    reader.close()  # idempotent
    with pytest.raises(ReaderError):
        reader.recv(0)


def test_iteration_ends_when_closed() -> None:
    reader = SimReader()
    reader.place(0, A)
    got = []
    for ev in reader:
        got.append(ev)
        if isinstance(ev, ZoneEvent):
            reader.close()
    assert cards(got) == [(0, A, True)]


def test_script_replays_a_scene() -> None:
    with open_reader("sim", script=["0.02 place 1 04a1b2c3d4e5f6", "0.04 lift 1", ScriptStep(0.06, "unplug")]) as r:
        events = collect(r, lambda ev: statuses(ev)[-4:] == [(z, ZoneState.OFFLINE) for z in range(4)])  # unplugged
        assert cards(events) == [(1, A, True), (1, A, False)]
        assert statuses(events)[-4:] == [(z, ZoneState.OFFLINE) for z in range(4)]


@pytest.mark.parametrize("line", ["place 1 04A1B2C3D4E5F6", "1 jump 2", "x place 1 A", "1 place 2"])
def test_bad_script_lines_are_config_errors(line: str) -> None:
    with pytest.raises(ConfigError, match="sim script line"):
        SimReader(script=[line])


def test_sim_refuses_bad_zone_and_uid() -> None:
    with SimReader() as reader:
        with pytest.raises(ParseError, match=r"zones 0\.\.3"):
            reader.place(4, A)
        with pytest.raises(ParseError, match="not a tag UID"):
            reader.place(0, "XYZ")
        reader.place(0, A)
        with pytest.raises(ParseError, match="holds"):
            reader.lift(0, B)


def test_registry_errors_are_clear() -> None:
    with pytest.raises(ConfigError, match="unknown reader backend 'rfid'"):
        open_reader("rfid")
    with pytest.raises(ConfigError, match="no option 'prot'"):
        open_reader("sim", prot="x")
    assert reader_class("sim") is SimReader
    assert reader_class("tablepi.readers.sim:SimReader") is SimReader


def test_missing_optional_library_breaks_only_its_backend(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "smartcard", None)
    monkeypatch.setitem(sys.modules, "smartcard.scard", None)
    monkeypatch.delitem(sys.modules, "tablepi.readers.pcsc", raising=False)
    with pytest.raises(ReaderError, match=r"pcsc.*smartcard.*pip install"):
        open_reader("pcsc", readers=["a", "b", "c", "d"])
    with open_reader("sim") as reader:  # the others still work
        assert reader.backend == "sim"


def test_pump_moves_events_onto_a_queue_and_stops() -> None:
    q: queue.Queue[ReaderEvent] = queue.Queue()
    reader = SimReader()
    with ReaderPump(reader, q.put, poll=0.02, close_reader=True) as pump:
        reader.place(2, A)
        ev = q.get(timeout=2)
        while isinstance(ev, ZoneStatus):  # the four ONLINE statuses come first
            ev = q.get(timeout=2)
        assert isinstance(ev, ZoneEvent) and (ev.zone, ev.uid, ev.present) == (2, A, True)
        assert pump.running
    assert not pump.running
    assert reader.closed
    pump.close()  # idempotent


def test_normalise_uid() -> None:
    assert normalise_uid("04:a1:b2:c3:d4:e5:f6") == A
    assert normalise_uid("de ad be ef") == C
    with pytest.raises(ParseError):
        normalise_uid("04A1B2C3D4E5")  # 6 bytes is no tag UID
