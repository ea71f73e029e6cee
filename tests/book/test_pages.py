"""The players' pages in a real headless Chromium at phone (390x844) and projector (1920x1080) sizes: the live
view follows a deal being played (and shows no card before it is played), every page shows a player who did not
opt in by his initials only, hostile names are text, and no page takes a write."""

from __future__ import annotations

import dataclasses
import html
import json
import re
import socket
import time
from collections.abc import Iterator
from typing import Any

import pytest

from tablepi import changes
from tablepi.book.config import BookConfig
from tablepi.book.export import archive_lookup
from tablepi.book.fill import BookKeeper, rebuild, record_facts
from tablepi.book.pages import LiveBoard, Pages, make_pages
from tablepi.book.store import Book
from tablepi.journal.journal import JournaledTable
from tablepi.rules.house import HouseRules
from tablepi.rules.seats import Seat
from tablepi.table.events import CardPlaced, PlayersSeated, SeatingSource
from tablepi.table.simulate import simulate_match
from tablepi.table.state import TableConfig
from tablepi.web.serve import WebServer
from tests.book.helpers import HOSTILE, browser_at, every_page, get, get_bytes, name_forms, own_exports, play, rotation
from tests.streams import read_event

pytestmark = pytest.mark.slow

PEOPLE = ["Jang", "Marie", "Pol", "Fränz", *HOSTILE]
#: Added to the book by hand: what the table's keyboard refuses, the pages must still show as text.
LONG = "\u202e" + "Ω<i>x</i>" * 1250  # 10,000 characters with a right-to-left override
PRIVATE = ["Jang", "Pol", "Fränz", "<b>Bold</b>", "\u05e9\u05dc\u05d5\u05dd \u05d0"]
PUBLIC = ["Marie", "<script>x()</script>", "Zoë & \"Q\""]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    directory = tmp_path_factory.mktemp("pages")
    play(directory, rotation(6, PEOPLE), seed=5).close()
    book = Book(directory / "players.sqlite3")
    rebuild(book, directory / "journal.sqlite3", directory / "archive", "1", review=False)
    first = sorted((directory / "archive").glob("*.jsonl.gz"))[0]
    reviewed = record_facts(first, "1", review=True, ended=book.match(1)["ended"])  # type: ignore[index]
    book.add(reviewed)  # the first record again, with the best-play review of its deals
    evening = book.db.execute("SELECT evening FROM matches WHERE key=?", (reviewed[0].key,)).fetchone()[0]
    for name in PUBLIC:
        book.set_public(name, True)
    book.set_public(LONG, True)
    table = JournaledTable(directory / "journal.sqlite3", archive=directory / "archive")
    board = LiveBoard()
    keeper = BookKeeper(book, table, "1", review=False, show=board.show).start()
    pages = Pages(book, BookConfig(min_deals=10, min_together=5), board.now, board.changes,
                  lambda: archive_lookup(directory / "archive"))
    web = WebServer(None, app=lambda stopping: make_pages(pages, "en", stopping=stopping),
                    changes=board.changes).start()
    yield {"web": web, "book": book, "table": table, "keeper": keeper, "reviewed": evening, "pages": pages,
           "board": board}
    web.close()
    keeper.close()
    table.close()
    book.close()


@pytest.fixture(params=[(390, 844), (1920, 1080)], ids=["phone", "projector"])
def browser(site: dict[str, Any], request: pytest.FixtureRequest) -> Iterator[Any]:
    driver = browser_at(request.param)
    driver.set_window_size(*request.param)
    yield driver
    driver.quit()


def test_no_page_names_a_player_who_did_not_opt_in(site: dict[str, Any]) -> None:
    pages = every_page(site["web"].url, site["book"])
    for path, text in pages.items():
        for name in PRIVATE:
            for form in name_forms(name):
                assert form not in text, (name, path)
    everything = "".join(pages.values())
    assert html.escape("Marie") in everything and html.escape("<script>x()</script>") in everything
    assert "<script>x()" not in everything  # a public hostile name is escaped, never markup
    # A player's own exports (by his own page's secret): his name, and nobody else's who did not opt in.
    exports = own_exports(site["web"].url, site["book"])
    for path, (owner, text) in exports.items():
        for name in PRIVATE:
            if name != owner:
                for form in name_forms(name):
                    assert form not in text, (name, path)
    jang = site["book"].player("Jang")
    assert "Jang" in exports[f"/me/{jang.id}/records.zip"][1]  # his own records name him
    assert "Marie" in exports[f"/me/{jang.id}/games.csv"][1]  # she opted in


def test_a_players_exports_are_his_own_pages_and_the_records_replay(site: dict[str, Any],
                                                                     tmp_path: Any) -> None:
    """His CSV and his game records are served only by his own page's secret link, written by the same code as
    ``tablepi players export``; the records replay."""
    import io
    import zipfile

    from tablepi.book.export import player_csv
    from tablepi.cli import main

    base = site["web"].url
    book: Book = site["book"]
    jang = book.player("Jang")
    assert jang is not None
    own = f"/me/{book.token(jang)}"
    page = get(f"{base}{own}")[1]
    assert f"href='{own}/games.csv'" in page and f"href='{own}/records.zip'" in page
    assert "games.csv" not in get(f"{base}/players/{jang.id}")[1]  # not on the page everybody sees
    status, body, _ = get_bytes(f"{base}{own}/games.csv")
    assert status == 200 and body.decode("utf-8") == player_csv(book, jang)
    status, body, _ = get_bytes(f"{base}{own}/records.zip")
    assert status == 200
    with zipfile.ZipFile(io.BytesIO(body)) as archive:
        names = archive.namelist()
        assert names
        archive.extractall(tmp_path)
    for name in names:
        assert main(["replay", "--json", str(tmp_path / name)]) == 0
    for path in ("games.csv", "records.zip"):
        assert get_bytes(f"{base}/me/{'0' * 24}/{path}")[0] == 404


def test_a_name_made_private_from_the_command_line_leaves_the_pages_at_once(site: dict[str, Any]) -> None:
    """``tablepi players private NAME`` is another process's write: the served pages (made once per change of the
    book) follow it at the next request."""
    from tablepi.cli import main

    base = site["web"].url
    book: Book = site["book"]
    marie = book.player("Marie")
    assert marie is not None
    assert "Marie" in get(f"{base}/players/{marie.id}")[1]
    assert main(["players", "--config", "/nonexistent.toml", "--book", str(book.path), "private", "Marie"]) == 0
    try:
        for path in ("/players", f"/players/{marie.id}", "/leaderboard"):
            assert "Marie" not in get(f"{base}{path}")[1], path
    finally:
        assert main(["players", "--config", "/nonexistent.toml", "--book", str(book.path), "public", "Marie"]) == 0
    assert "Marie" in get(f"{base}/players/{marie.id}")[1]


def test_no_page_accepts_a_write(site: dict[str, Any]) -> None:
    base = site["web"].url
    before = site["book"].db.execute("SELECT COUNT(*), SUM(public) FROM players").fetchone()
    for path in ("/", "/live.json", "/events", "/players", "/players/1", "/leaderboard", "/evening", "/me/x",
                 "/me/x/games.csv", "/me/x/records.zip", "/static/book.js"):
        for method in ("POST", "PUT", "DELETE", "PATCH"):
            status, _ = get(f"{base}{path}", method)
            assert status == 405, (path, method, status)
    assert site["book"].db.execute("SELECT COUNT(*), SUM(public) FROM players").fetchone() == before


def test_the_own_page_shows_his_name_and_only_his(site: dict[str, Any]) -> None:
    book: Book = site["book"]
    jang = book.player("Jang")
    assert jang is not None
    status, text = get(f"{site['web'].url}/me/{book.token(jang)}")
    assert status == 200 and "<h1>Jang</h1>" in text
    for name in PRIVATE[1:]:
        assert html.escape(name) not in text
    assert get(f"{site['web'].url}/me/{'0' * 24}")[0] == 404


def _no_overflow(driver: Any) -> None:
    width = driver.execute_script("return document.documentElement.scrollWidth")
    inner = driver.execute_script("return window.innerWidth")
    assert width <= inner + 1, (width, inner)


def test_pages_render_at_phone_and_projector_size_with_hostile_names_as_text(site: dict[str, Any],
                                                                           browser: Any) -> None:
    from selenium.webdriver.common.by import By

    base = site["web"].url
    browser.get(f"{base}/players?lang=lb")
    names = [a.text for a in browser.find_elements(By.CSS_SELECTOR, "ul.players a")]
    assert "<script>x()</script>" in names and "Marie" in names
    assert any(n.startswith("\u202eΩ<i>x</i>") and len(n) >= 9000 for n in names)  # shown whole, as text
    assert browser.execute_script("return document.querySelectorAll('main script, main i, main b').length") == 0
    _no_overflow(browser)
    for path in ["/leaderboard", "/evening/" + site["book"].evenings()[0], "/players/1"]:
        browser.get(base + path)
        assert browser.find_element(By.TAG_NAME, "h1").text
        _no_overflow(browser)
    browser.get(base + "/evening/" + site["reviewed"] + "?lang=en")
    assert browser.find_elements(By.CSS_SELECTOR, ".deal table.tricks .card")
    slate = browser.find_element(By.CSS_SELECTOR, ".match table.slate").text  # each team's open lines, deal by deal
    assert "N+S" in slate and "E+W" in slate and " 0" in slate  # the winners struck their last line
    assert browser.find_elements(By.CSS_SELECTOR, ".cost"), "the review's costly cards are marked"


def test_the_live_page_follows_a_deal_and_shows_no_card_before_it_is_played(site: dict[str, Any],
                                                                          browser: Any) -> None:
    from selenium.webdriver.support.ui import WebDriverWait

    table: JournaledTable = site["table"]
    base = site["web"].url
    browser.get(f"{base}/?lang=en")
    WebDriverWait(browser, 20).until(lambda d: "open" in d.find_element("id", "live").text)
    start = table.journal.last_time + 5
    table.feed(PlayersSeated(start, ((Seat.N, "Marie"), (Seat.E, "Jang")), SeatingSource.TOUCH))
    script = simulate_match(99, HouseRules(), table.state.deal.dealer, TableConfig())
    played: list[str] = []
    for event in script.events[:40]:
        event = dataclasses.replace(event, time=start + 1 + event.time)
        table.feed(event)
        if isinstance(event, CardPlaced) and event.card is not None and table.state.deal.current_trick is not None:
            played.append(event.card.display)
    site["keeper"].idle.wait(10)
    state = table.state
    trick = state.deal.current_trick or state.deal.tricks[-1]
    shown = [card.display for _, card in trick.plays]
    WebDriverWait(browser, 20).until(lambda d: all(c in d.find_element("id", "live").text for c in shown))
    text = browser.find_element("id", "live").text
    assert "Marie" in text and "Jang" not in text and "J." in text  # Jang did not opt in: his initials
    cards_on_page = set(re.findall(r"[♠♥♦♣](?:10|[AKQJ9])", text))
    assert cards_on_page <= {c for c in shown}, "only the cards of the trick in play"
    status, live = get(f"{base}/live.json")
    assert status == 200
    assert set(re.findall(r'"([AKQJT9][SHDC])"', live)) <= {str(card) for _, card in trick.plays}



def test_the_live_stream_wakes_on_a_change_and_an_idle_one_does_nothing(site: dict[str, Any],
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """An open page's stream gets a change the keeper made (on its own thread) as soon as it is made, and an idle
    stream does not look at the book or the table at all until then (it used to look four times a second); when
    the server stops, the waiting streams end at once."""
    keeper: BookKeeper = site["keeper"]
    board: LiveBoard = site["board"]
    monkeypatch.setattr(changes, "TICK", 60.0)  # the keep-alive tick (every 5 s) falls outside the test
    pages = Pages(site["book"], BookConfig(min_deals=10, min_together=5), board.now, board.changes,
                  site["pages"].records)
    looks: list[str] = []
    real = pages.stream_text

    def counted(lang: str) -> tuple[Any, str]:
        looks.append(lang)
        return real(lang)

    monkeypatch.setattr(pages, "stream_text", counted)
    web = WebServer(None, app=lambda stopping: make_pages(pages, "en", stopping=stopping),
                    changes=board.changes).start()
    held = []
    try:
        for _ in range(3):
            sock = socket.create_connection(("127.0.0.1", web.port), 5)
            sock.sendall(b"GET /events HTTP/1.1\r\nHost: x\r\n\r\n")
            data = bytearray()
            first = json.loads(read_event(sock, data))  # the book and the table as they are
            held.append((sock, data))
        looks.clear()  # each stream looked before it sent its first event, read above
        time.sleep(1.5)
        assert looks == []  # idle: no look at all
        keeper.opt_in("Marie")  # already public: the book is written again (a new version), on the keeper's thread
        started = time.monotonic()
        for sock, data in held:
            sock.settimeout(5)
            assert json.loads(read_event(sock, data))["book"] != first["book"]
        assert time.monotonic() - started < 0.5
        assert len(looks) == 3  # one look per stream and change
        started = time.monotonic()
        web.close()  # the waiting streams end at once, not at their next keep-alive
        assert time.monotonic() - started < 1.5
        for sock, _ in held:
            sock.settimeout(2)
            while sock.recv(65536):
                pass
    finally:
        for sock, _ in held:
            sock.close()
        web.close()
