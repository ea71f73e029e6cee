"""A bar with several tables: every table's matches reach one book over a real mosquitto, through the
tournament server's code, and the statistics span the tables."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tablepi.book.league import LeagueServer, load_league_config
from tablepi.book.stats import ALL_TIME, player_stats
from tablepi.book.store import Book
from tablepi.feed.broker import SERVER_USER, Mosquitto
from tablepi.rules.seats import Seat
from tablepi.table.events import PlayersSeated, SeatingSource
from tests.tournament.conftest import table_feed
from tests.tournament.simulate import SimulatedTable
from tests.waits import wait_until

pytestmark = pytest.mark.slow


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[Mosquitto]:
    with Mosquitto.for_tables(tmp_path / "broker", ("1", "2")) as running:
        yield running


def test_two_tables_fill_one_book(broker: Mosquitto, tmp_path: Path) -> None:
    config_path = tmp_path / "league.toml"
    config_path.write_text(f"""
[league]
name = "Café"
tables = ["1", "2"]
[broker]
host = "127.0.0.1"
port = {broker.port}
password = "{broker.passwords[SERVER_USER]}"
[players]
min_deals = 1
""", encoding="utf-8")
    config = load_league_config(config_path)
    book = Book(config.book)
    server = LeagueServer(config.server, book, review=False).start()
    tables = [SimulatedTable(t, tmp_path / f"table{t}", table_feed(broker, t)).connect() for t in ("1", "2")]
    try:
        seatings = [{Seat.N: "Jang", Seat.E: "Pol", Seat.S: "Marie", Seat.W: "Lis"},  # in seat order, as the
                    {Seat.N: "Jang", Seat.E: "Nico", Seat.S: "Fränz"}]  # journal writes a seating back
        for number, (table, names) in enumerate(zip(tables, seatings, strict=True)):
            table.new_match(30 + number)
            table.drain()
            state = table.app.handle(PlayersSeated(table.app.now, tuple(names.items()), SeatingSource.TOUCH))
            assert state is not None and dict(state.names) == names, state
        for table in tables:
            table.play()
            table.finish_deal()
        wait_until(lambda: book.match_count() == 2, "both tables' matches in the book", 60)
        jang = book.player("Jang")
        assert jang is not None
        stats = player_stats(book, jang, ALL_TIME)
        assert stats["matches"]["played"] == 2
        assert {book.match(m)["table"] for m in book.matches_of_player(jang.id)} == {"1", "2"}  # type: ignore[index]
        assert book.ratings()[jang.id][2] == 2
        assert live_table(server) in ("1", "2")
    finally:
        for table in tables:
            table.close()
        server.close()
        book.close()
    # A restart rebuilds the tables from the store and adds nothing twice.
    with Book(config.book) as again:
        restarted = LeagueServer(config.server, again, review=False)
        try:
            assert again.match_count() == 2
        finally:
            restarted.close()


def live_table(server: LeagueServer) -> str:
    return str(server.live_now()[1].get("table", ""))
