"""A real mosquitto (passwords, ACL, persistence) on a free loopback port; tournament configs and servers."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tablepi.feed.broker import SERVER_USER, Mosquitto, table_user
from tablepi.feed.config import FeedConfig
from tablepi.tournament.config import TournamentConfig, parse_tournament_config
from tablepi.tournament.server import TournamentServer
from tests.tournament.simulate import SimulatedTable
from tests.waits import wait_until

TABLES = ("1", "2", "3", "4")


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[Mosquitto]:
    with Mosquitto.for_tables(tmp_path / "broker", TABLES) as running:
        yield running


def table_feed(broker: Mosquitto, table: str) -> FeedConfig:
    return FeedConfig(enabled=True, host="127.0.0.1", port=broker.port, table=table,
                      password=broker.passwords[table_user(table)])


def tournament_config(broker: Mosquitto, tmp: Path, body: str) -> TournamentConfig:
    text = body + f"""
[broker]
host = "127.0.0.1"
port = {broker.port}
password = "{broker.passwords[SERVER_USER]}"
[web]
director_password = "secret"
overlay_token = "tok"
overlay_delay = 2.0
"""
    return parse_tournament_config(text, tmp / "tournament.toml")


class Tournament:
    """Simulated tables, the server, and the helpers to play rounds."""

    def __init__(self, broker: Mosquitto, tmp: Path, config: TournamentConfig, mistakes: bool = False) -> None:
        self.broker = broker
        self.tmp = tmp
        self.config = config
        self.server = TournamentServer(config).start()
        self.tables = {t: SimulatedTable(t, tmp / f"table-{t}", table_feed(broker, t), mistakes=mistakes).connect()
                       for t in config.table_ids()}

    def start_round(self, seed: int) -> int:
        self.server.start_next_round("test")
        number = len(self.server.rounds)
        for table in self.tables.values():
            wait_until(lambda t=table: (t.drain() or True) and t.app.seating is not None  # type: ignore[misc]
                       and t.app.seating.round == number, f"table {table.name}'s seating")
            table.new_match(seed * 100 + int(table.name))
        return number

    def play_all(self) -> None:
        for table in self.tables.values():
            table.play()

    def settle(self, timeout: float = 120.0) -> None:
        """Wait until every table's feed is acknowledged and the server has applied all of it (a table reconnects
        to a restarted broker after paho's back-off, which on a loaded machine took longer than 30 s)."""
        for table in self.tables.values():
            if table.feed is not None:
                assert table.feed.wait_sent(timeout), f"table {table.name} still has {table.feed.backlog} unsent"
        def applied() -> bool:
            with self.server.lock:
                for name, table in self.tables.items():
                    feed = self.server.feeds.get(name)
                    latest = feed.journals.get(table.journaled.journal.id) if feed else None
                    if latest is None or latest.applied != len(table.journaled.journal):
                        return False
                return True
        wait_until(applied, "the server to apply every event", timeout)

    def close(self) -> None:
        for table in self.tables.values():
            table.close()
        self.server.close()


@pytest.fixture
def make_tournament(broker: Mosquitto, tmp_path: Path) -> Iterator[Callable[..., Tournament]]:
    made: list[Tournament] = []

    def make(body: str, mistakes: bool = False) -> Tournament:
        made.append(Tournament(broker, tmp_path, tournament_config(broker, tmp_path, body), mistakes))
        return made[-1]

    yield make
    for tournament in made:
        tournament.close()
