"""A bar with several tables: every table's matches reach one book over a real mosquitto, through the
tournament server's code, and the statistics span the tables; the league serves the table's pages for all of them
(each table's live slate, the evening and its print layout, the players, the leaderboard, a player's own exports),
in a real headless Chromium, and names nobody who did not opt in."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from tablepi.book.league import LeagueServer, load_league_config
from tablepi.book.pages import Pages, make_pages
from tablepi.book.stats import ALL_TIME, player_stats
from tablepi.book.store import Book
from tablepi.feed.broker import SERVER_USER, Mosquitto
from tablepi.rules.seats import Seat
from tablepi.table.events import PlayersSeated, SeatingSource
from tablepi.web.serve import WebServer
from tests.book.helpers import browser_at, every_page, get_bytes, name_forms, own_exports
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
    """The table where a card was played last (the live view lists every table, each with its state)."""
    views = [v for v in server.live_now()[1] if v["state"] is not None]
    return str(views[-1]["table"]) if views else ""


def league_config(broker: Mosquitto, tmp_path: Path) -> Path:
    path = tmp_path / "league.toml"
    path.write_text(f"""
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
    return path


PRIVATE = ["Jang", "Pol", "<b>Bold</b>"]


def test_the_league_serves_every_tables_pages_and_names_nobody_private(broker: Mosquitto, tmp_path: Path) -> None:
    """Table 1 finishes a match, table 2 is in the middle of a deal: the live page shows both tables' slates (table
    2's trick in play, no other card), the evening (and its print layout) and player pages come from both tables'
    book, a player's own page offers his games as CSV and as game records from the tables' feeds (never a match in
    play), and no served page or export names a player who did not opt in."""
    import base64
    import io
    import zipfile

    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    config = load_league_config(league_config(broker, tmp_path))
    book = Book(config.book)
    book.set_public("Marie", True)
    server = LeagueServer(config.server, book, review=False).start()
    pages = Pages(book, config.players, server.live_now, server.hub.changes, lambda: server.record)
    site = WebServer(None, app=lambda stopping: make_pages(pages, "en", stopping=stopping),
                     changes=server.hub.changes).start()  # as `tablepi league` serves them
    tables = [SimulatedTable(t, tmp_path / f"table{t}", table_feed(broker, t)).connect() for t in ("1", "2")]
    driver = None
    try:
        seatings = [{Seat.N: "Jang", Seat.E: "Marie", Seat.S: "Pol", Seat.W: "<b>Bold</b>"},
                    {Seat.N: "Marie", Seat.E: "Jang", Seat.S: "<b>Bold</b>", Seat.W: "Pol"}]
        for number, (table, names) in enumerate(zip(tables, seatings, strict=True)):
            table.new_match(40 + number)
            table.drain()
            table.app.handle(PlayersSeated(table.app.now, tuple(names.items()), SeatingSource.TOUCH))
        tables[0].play()
        tables[0].finish_deal()
        second = tables[1]
        while not ((trick_now := second.journaled.state.deal.current_trick) and len(trick_now.plays) == 2):
            assert second.step() is not None
        trick = [card.display for _, card in second.journaled.state.deal.current_trick.plays]  # type: ignore[union-attr]
        wait_until(lambda: book.match_count() == 1, "table 1's match in the league's book", 60)
        driver = browser_at((390, 844))
        driver.get(f"{site.url}/?lang=en")
        WebDriverWait(driver, 30).until(
            lambda d: all(c in d.find_element(By.CSS_SELECTOR, "section[data-table='2']").text for c in trick))
        sections = driver.find_elements(By.CSS_SELECTOR, "#live section.table")
        assert [s.get_attribute("data-table") for s in sections] == ["1", "2"]
        two = sections[1].text
        assert "Table 2" in two and "Marie" in two and "J." in two and "Jang" not in two
        assert set(re.findall(r"[♠♥♦♣](?:10|[AKQJ9])", two)) <= set(trick), "only the cards of the trick in play"
        assert "Table 1" in sections[0].text
        assert driver.execute_script("return document.documentElement.scrollWidth <= window.innerWidth + 1")
        driver.get(f"{site.url}/evening")
        assert "table 1" in driver.find_element(By.TAG_NAME, "main").text.lower()
        assert driver.find_elements(By.CSS_SELECTOR, ".deal table.tricks .card")
        # The printable evening: the browser's print layout drops the navigation and keeps every deal.
        driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": "print"})
        assert not driver.find_element(By.TAG_NAME, "nav").is_displayed()
        assert driver.find_element(By.CSS_SELECTOR, ".deal table.tricks").is_displayed()
        assert driver.find_element(By.CSS_SELECTOR, ".match table.slate").is_displayed()
        driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": ""})
        pdf = base64.b64decode(driver.execute_cdp_cmd("Page.printToPDF", {})["data"])
        assert pdf.startswith(b"%PDF")
        driver.get(f"{site.url}/leaderboard")
        assert "Marie" in driver.find_element(By.CSS_SELECTOR, "table.board").text
        # Her own page (her secret link) offers her games of every table, as the table's own pages do.
        marie = book.player("Marie")
        assert marie is not None
        driver.get(f"{site.url}/me/{book.token(marie)}")
        links = [a.get_attribute("href") for a in driver.find_elements(By.CSS_SELECTOR, "p.exports a")]
        assert [link.rsplit("/", 1)[-1] for link in links] == ["games.csv", "records.zip"]
        status, body, _ = get_bytes(links[1])
        assert status == 200
        with zipfile.ZipFile(io.BytesIO(body)) as archive:
            archive.extractall(tmp_path / "records")
            assert [name.split("-table")[1][0] for name in archive.namelist()] == ["1"]  # table 2's is in play
        from tablepi.cli import main

        assert main(["replay", "--json", str(next((tmp_path / "records").iterdir()))]) == 0
        live = server.feeds["2"].latest()
        assert live is not None and server.record("2", live.jid) is None  # a match in play: its hands are hidden
        pages = every_page(site.url, book)
        for path, text in pages.items():
            for name in PRIVATE:
                for form in name_forms(name):
                    assert form not in text, (name, path)
        assert any("Marie" in text for text in pages.values())
        for path, (owner, text) in own_exports(site.url, book).items():
            for name in PRIVATE:
                if name != owner:
                    for form in name_forms(name):
                        assert form not in text, (name, path)
    finally:
        if driver is not None:
            driver.quit()
        for table in tables:
            table.close()
        site.close()
        server.close()
        book.close()


def test_a_players_link_from_a_league_has_the_leagues_address_and_port(tmp_path: Path,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    """``tablepi players --league CONFIG link NAME``: the league's book, and the address of the league's pages
    (its [web] host and port), not the table configuration's default port 8080."""
    from tablepi.cli import main

    config = tmp_path / "league.toml"
    config.write_text('[league]\ntables = ["1"]\nbook = "bar.sqlite3"\n[web]\nhost = "127.0.0.1"\nport = 9123\n',
                      encoding="utf-8")
    with Book(tmp_path / "bar.sqlite3") as book:
        jang = book.set_public("Jang", True)
        token = book.token(jang)
    assert main(["players", "--config", str(tmp_path / "none.toml"), "--league", str(config), "link", "Jang"]) == 0
    assert capsys.readouterr().out.strip() == f"http://127.0.0.1:9123/me/{token}"
