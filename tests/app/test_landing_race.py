"""A card landing between two antennas, through the serial backend into the table: never a show at the neighbour.

An older firmware (or a table top whose antennas hear each other even at the near gain) may give the card to the
neighbouring zone first and move it a moment later: ``PLACE`` there, ``CROSS`` here, then ``LIFT`` there and
``PLACE`` here, the PLACE dated (protocol v2) from when this zone first heard the card — before the neighbour's
last answer. Taken at face value the neighbour *showed* the card: forehand's zone hearing ♥A would name hearts
trumps. The reader marks that lift a misread (the card was between the antennas and is given to the zone the
device settled on) and the table takes it for no gesture at all.
"""

from __future__ import annotations

from tablepi.app.demo import ZONES
from tablepi.deck import DeckRegistry, virtual_deck
from tablepi.readers.events import ZoneCrosstalk, ZoneEvent
from tablepi.readers.serial import SerialReader
from tablepi.rules import Card, Seat
from tablepi.table import Table, WarningCode
from tablepi.table.adapter import from_zone_crosstalk, from_zone_event
from tests.firmware.firmware_rig import frame
from tests.firmware.soak import HostSerial, Wire


def play_lines(lines: list[str]) -> tuple[Table, list[ZoneEvent]]:
    now = [100.0]
    wire = Wire()
    reader = SerialReader(port="/dev/null", clock=lambda: now[0], serial_factory=lambda **_: HostSerial(wire),
                          link_timeout=1e9)
    deck = DeckRegistry([virtual_deck()])
    reader.known = lambda uid: deck.lookup(uid) is not None
    table = Table()
    events: list[ZoneEvent] = []
    try:
        reader.recv(0)  # opens the port, says HELLO?
        for seq, body in enumerate(lines):
            wire.to_host += frame(f"{seq} {body}")
            now[0] += 0.02
            while (ev := reader.recv(0)) is not None:
                if isinstance(ev, ZoneEvent):
                    events.append(ev)
                    table.apply(from_zone_event(ev, ZONES, deck))
                elif isinstance(ev, ZoneCrosstalk):
                    table.apply(from_zone_crosstalk(ev, ZONES, deck))
        for _ in range(10):  # the held lift (garble window) comes out
            now[0] += 0.05
            while (ev := reader.recv(0)) is not None:
                if isinstance(ev, ZoneEvent):
                    events.append(ev)
                    table.apply(from_zone_event(ev, ZONES, deck))
    finally:
        reader.close()
    return table, events


def device_lines(first_zone: int, last_zone: int, uid: str, swap_place_ms: int) -> list[str]:
    """HELLO and STATE, a heartbeat at uptime 1000 ms, then the landing race as firmware 1.1.0 sent it."""
    return [
        "HELLO 2 tablepi-fw/1.1.0 4",
        "STATE - - - -",
        "HB 1000 500 0 100 100 100 100",
        f"PLACE {first_zone} {uid} 1010",
        f"CROSS {last_zone} {uid} {first_zone}",
        f"LIFT {first_zone} {uid} 1120",
        f"PLACE {last_zone} {uid} {swap_place_ms}",
    ]


def test_a_card_moved_from_the_neighbour_that_heard_it_first_is_no_show_there() -> None:
    ah = virtual_deck().uid_of(Card.parse("AH"))
    assert ah is not None
    # W (zone 3, forehand of dealer N) heard ♥A first; it lies on S's zone (2), heard there from 1015 ms on.
    table, events = play_lines(device_lines(3, 2, ah, swap_place_ms=1015))
    lifts = [e for e in events if not e.present]
    assert [(e.zone, e.misread) for e in lifts] == [(3, True)]
    state = table.state
    assert state.deal.trump is None  # W showed nothing: no trumps named
    assert [zc.card for zc in state.zone(Seat.S).cards] == [Card.parse("AH")]
    assert state.zone(Seat.W).cards == ()
    assert WarningCode.CROSSTALK in [w.code for w in state.warnings]


def test_a_card_really_moved_from_one_zone_to_the_next_is_a_show_where_it_was() -> None:
    """Lifted off W's zone (last answer at 1120 ms) and laid on S's afterwards (first answer 1200 ms): a gesture."""
    ah = virtual_deck().uid_of(Card.parse("AH"))
    assert ah is not None
    table, events = play_lines(device_lines(3, 2, ah, swap_place_ms=1200))
    assert [(e.zone, e.misread) for e in events if not e.present] == [(3, False)]
    state = table.state
    assert state.deal.trump is not None and state.deal.trump.value == "H"  # W's tap named hearts, as a show does
