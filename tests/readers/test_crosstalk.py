"""One card, one place: a tag reported on two zones, and unknown UIDs on a zone holding a known card."""

from __future__ import annotations

import time

from tablepi.readers import ZoneEvent, open_reader
from tablepi.readers.events import ReaderEvent, ZoneCrosstalk
from tablepi.readers.sim import SimReader

A = "04A1B2C3D4E5F6"
B = "04B0B0B0B0B0B0"
X = "04A1B2C3D4E5E6"  # A with a bit flipped: what a garbled read of A looks like


def drain(reader: SimReader, wait: float = 0.1) -> list[ReaderEvent]:
    out: list[ReaderEvent] = []
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        ev = reader.recv(0.01)
        if isinstance(ev, ZoneEvent | ZoneCrosstalk):
            out.append(ev)
    return out


def cards(events: list[ReaderEvent]) -> list[tuple[int, str, bool]]:
    return [(e.zone, e.uid, e.present) for e in events if isinstance(e, ZoneEvent)]


def sim() -> SimReader:
    reader = open_reader("sim")
    assert isinstance(reader, SimReader)
    drain(reader, 0.05)
    return reader


def test_a_card_reported_on_two_zones_stays_where_it_was_first() -> None:
    with sim() as r:
        r.place(1, A)
        assert cards(drain(r)) == [(1, A, True)]
        r.place(2, A)  # zone 2's antenna hears the card lying on zone 1
        events = drain(r)
        assert cards(events) == []
        assert [(e.zone, e.uid, e.holder) for e in events if isinstance(e, ZoneCrosstalk)] == [(2, A, 1)]
        r.place(2, A)  # reported again (a reconnect's snapshot): still not a card there
        r.lift(2)
        assert cards(drain(r)) == []
        assert r.present == (None, A, None, None)
        r.lift(1)
        assert cards(drain(r)) == [(1, A, False)]
        assert r.health().counters["crosstalk"] == 1


def test_the_crosstalk_zone_can_take_another_card_afterwards() -> None:
    with sim() as r:
        r.place(0, A)
        r.place(3, A)
        r.lift(3)
        r.place(3, B)
        assert cards(drain(r)) == [(0, A, True), (3, B, True)]


def test_unknown_uids_on_a_zone_holding_a_known_card_are_garbled_reads() -> None:
    with sim() as r:
        r.known = {A, B}.__contains__
        r.place(0, A)
        assert cards(drain(r)) == [(0, A, True)]
        r.place(0, X)  # the device read X where A lies (v1 firmware: one read is enough)
        r.lift(0)
        r.place(0, A)
        r.lift(0)  # the device lifts A: it went
        r.place(0, X)  # and reads the garble again at once: A's lift is not taken back twice
        events = drain(r, 0.2)
        assert [e.uid for e in events if isinstance(e, ZoneCrosstalk)] == [X, X]
        assert cards(events) == []
        assert r.present == (A, None, None, None)
        r.lift(0)  # X (the device's view) goes too
        r.place(0, B)
        assert cards(drain(r, 0.2)) == [(0, A, False), (0, B, True)]
        assert r.health().counters["garbled_read"] == 2


def test_a_lift_then_an_unknown_tag_at_once_keeps_the_known_card() -> None:
    with sim() as r:
        r.known = {A}.__contains__
        r.place(2, A)
        drain(r)
        r.lift(2)  # LIFT 2 A and PLACE 2 X back to back: the device swapped A for a misreading
        r.place(2, X)
        assert cards(drain(r, 0.2)) == []
        assert r.present[2] == A


def test_an_unknown_tag_on_an_empty_zone_is_reported() -> None:
    """A phone or a second deck's card: the table warns about it (unknown tag); it is not crosstalk."""
    with sim() as r:
        r.known = {A}.__contains__
        r.place(1, X)
        assert cards(drain(r)) == [(1, X, True)]


def test_without_a_deck_an_other_uid_replaces_the_card() -> None:
    with sim() as r:
        r.place(0, A)
        r.place(0, X)
        assert cards(drain(r)) == [(0, A, True), (0, A, False), (0, X, True)]
