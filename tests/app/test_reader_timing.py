"""Device-dated reader events into the table: a 0.85 s show stays a show with the 1.0 s tap window.

The firmware (protocol v2) sends a LIFT only after its 200 ms quiet time and a re-check of the reader, dated
at the card's last answer; the serial backend dates events by it (tests/readers/test_serial.py). The app
must then not let the table decide "laid" before such a lift can have arrived: its ticks run
``report_delay`` behind. With ticks at ``now`` (the old behaviour) the same gesture became a lay.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tablepi.app.core import TableApp
from tablepi.app.demo import ZONES, VirtualClock, demo_deck
from tablepi.deck import DeckRegistry
from tablepi.journal.journal import JournaledTable
from tablepi.journal.record import RecordHeader
from tablepi.readers import ZoneEvent, ZoneState, ZoneStatus
from tablepi.readers.serial import SerialReader
from tablepi.table import CardLifted, CardPlaced, TableEvent, Tick
from tablepi.table.state import TableConfig


def show(tmp_path: Path, report_delay: float) -> list[TableEvent]:
    clock = VirtualClock()
    header = RecordHeader(table=TableConfig(tap_window=1.0), zones=tuple(ZONES.items()))
    deck = demo_deck()
    uid = next(iter(deck.cards))
    fed: list[TableEvent] = []
    with JournaledTable(tmp_path / "journal.sqlite3", header) as table:
        app = TableApp(table, DeckRegistry([deck]), ZONES, clock=clock)
        app.report_delay = report_delay
        feed = table.feed

        def spy(event: TableEvent):  # type: ignore[no-untyped-def]
            fed.append(event)
            return feed(event)

        table.feed = spy  # type: ignore[method-assign]
        for zone in range(4):
            app.put(ZoneStatus(zone, ZoneState.ONLINE, "", clock.now))
        app.step(0)
        landed = clock.now

        def run_until(t: float) -> None:
            while clock.now < t - 1e-9:
                clock.now = min(t, clock.now + 0.05)
                app.step(0)

        run_until(landed + 0.012)  # PLACE: two agreeing reads ~12 ms after landing, dated at the first answer
        app.put(ZoneEvent(0, uid, True, landed))
        run_until(landed + 0.85 + 0.22)  # lifted at 0.85 s; the LIFT leaves after the quiet time and re-check
        app.put(ZoneEvent(0, uid, False, landed + 0.85))
        run_until(landed + 2.0)
        app.close()
    return fed


def between_place_and_lift(fed: list[TableEvent]) -> tuple[float, float, list[float]]:
    place = next(e for e in fed if isinstance(e, CardPlaced))
    lift = next(e for e in fed if isinstance(e, CardLifted))
    ticks = [e.time for e in fed[fed.index(place) : fed.index(lift)] if isinstance(e, Tick)]
    return place.time, lift.time, ticks


def test_ticks_stay_behind_a_lift_that_is_still_on_its_way(tmp_path: Path) -> None:
    placed, lifted, ticks = between_place_and_lift(show(tmp_path, SerialReader.report_delay))
    assert lifted - placed == pytest.approx(0.85, abs=1e-6)
    assert ticks and max(ticks) < placed + 1.0  # nothing told the table the tap window had run out: a show


def test_ticks_at_now_would_have_made_it_a_lay(tmp_path: Path) -> None:
    placed, _lifted, ticks = between_place_and_lift(show(tmp_path, 0.0))
    assert max(ticks) >= placed + 1.0
