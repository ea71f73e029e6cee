"""Faults between the tables and the server: whatever happens on the way, the standings equal those computed from
the tables' own journals (and the rounds the tables say they played them in)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from tablepi.feed.broker import Mosquitto
from tablepi.tournament.server import TournamentServer
from tests.tournament.conftest import Tournament, table_feed
from tests.tournament.mqttproxy import MqttProxy
from tests.tournament.simulate import SimulatedTable, standings_from_journals
from tests.waits import wait_until

pytestmark = pytest.mark.slow

CUP = """
[tournament]
name = "Fault cup"
format = "pairs"
round = "deals"
deals = 3
rounds = 2
pairs = [["Anna", "Jos"], ["Marie", "Pit"], ["Lis", "Ben"], ["Tom", "Eva"]]
"""


def scores(ranked: list) -> list[tuple[str, int, int, int]]:  # type: ignore[type-arg]
    return [(s.name, s.total.match_points, s.total.lines, s.total.points) for s in ranked]


def check(t: Tournament) -> None:
    t.settle()
    expected = scores(standings_from_journals(t.config, t.server.rounds, t.tables.values(), t.server.byes))
    assert scores(t.server.standings()) == expected
    assert any(row[3] > 0 for row in expected)  # deals were really played and counted


def half(table: SimulatedTable) -> None:
    assert table.script is not None
    events = table.script.events
    table.play(until=table.script.base + events[len(events) // 2].time)


def test_broker_restarted_mid_round(make_tournament: Callable[[str], Tournament], broker: Mosquitto) -> None:
    t = make_tournament(CUP)
    t.start_round(1)
    for table in t.tables.values():
        half(table)
    broker.restart()  # same port; persistence keeps the server's session and what it had not delivered
    t.play_all()
    check(t)


def test_table_offline_ten_minutes_then_back(make_tournament: Callable[[str], Tournament]) -> None:
    t = make_tournament(CUP)
    t.start_round(1)
    table = t.tables["1"]
    table.play(until=table.clock.now + 60)
    table.disconnect()  # the network goes; the table plays on
    wait_until(lambda: "offline" in next(r for r in t.server.dashboard()["tables"] if r["table"] == "1")["attention"],
               "the dashboard to show table 1 offline")
    start = table.clock.now
    table.play(until=start + 600)
    assert table.clock.now - start > 500, "ten simulated minutes of play while offline"
    journaled = len(table.journaled.journal)
    table.connect()
    t.play_all()
    check(t)
    assert len(table.journaled.journal) > journaled


def test_duplicated_and_reordered_messages(make_tournament: Callable[[str], Tournament], broker: Mosquitto,
                                           tmp_path: Path) -> None:
    proxy = MqttProxy(broker.port, duplicate=0.25, reorder=0.25)
    try:
        t = make_tournament(CUP)
        for name, table in list(t.tables.items()):  # every table's feed goes through the proxy
            table.close()
            feed = replace(table_feed(broker, name), port=proxy.port)
            t.tables[name] = SimulatedTable(name, tmp_path / f"proxied-{name}", feed).connect()
        t.start_round(1)
        t.play_all()
        check(t)
        assert proxy.duplicated > 10 and proxy.reordered > 10
        assert t.server.counts.duplicates > 0
    finally:
        proxy.close()


def test_server_restarted(make_tournament: Callable[[str], Tournament]) -> None:
    t = make_tournament(CUP)
    t.start_round(1)
    for table in t.tables.values():
        half(table)
    t.settle()
    t.server.close()  # down while the tables play on: the broker keeps its session's messages
    t.play_all()
    for table in t.tables.values():
        assert table.feed is not None and table.feed.wait_sent(20)
    t.server = TournamentServer(t.config).start()
    check(t)
    t.start_round(2)  # the restarted server seats round 2 from the standings it rebuilt
    t.play_all()
    check(t)
