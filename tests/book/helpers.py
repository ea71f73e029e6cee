"""Evenings played through the table's journal (the real table, journal and archive) for the book's tests."""

from __future__ import annotations

import dataclasses
import html
import io
import json
import os
import urllib.error
import urllib.request
import zipfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from tablepi.book.store import Book
from tablepi.journal.journal import JournaledTable
from tablepi.journal.record import RecordHeader
from tablepi.rules.house import HouseRules
from tablepi.rules.seats import Seat
from tablepi.table.events import Button, ButtonName, PlayersSeated, SeatingSource
from tablepi.table.simulate import simulate_match
from tablepi.table.state import TableConfig

#: Names the pages must show as text, as the table takes them (at most 20 characters, no control or
#: direction-override characters: the screen's keyboard refuses those; the pages' tests add them besides).
HOSTILE = ("<b>Bold</b>", "<script>x()</script>", "\u05e9\u05dc\u05d5\u05dd \u05d0", "Zoë & \"Q\"")


def play(directory: Path, seatings: Sequence[Mapping[Seat, str]], *, seed: int = 1, mistakes: bool = True,
         table: JournaledTable | None = None) -> JournaledTable:
    """One match per seating (seats not named are guests), one after the other, into ``directory``'s journal
    and archive (or on ``table``)."""
    rules = HouseRules()
    if table is None:
        header = RecordHeader(rules, Seat.N, TableConfig())
        table = JournaledTable(directory / "journal.sqlite3", header, archive=directory / "archive")
    for number, names in enumerate(seatings):
        start = table.journal.last_time + 5.0
        if table.table.matches[-1].slate.history:
            table.feed(Button(start, ButtonName.NEW_MATCH))
            start = table.journal.last_time + 1.0
        if names:
            table.feed(PlayersSeated(start, tuple(names.items()), SeatingSource.TOUCH))
        script = simulate_match(seed + number, rules, table.state.deal.dealer, TableConfig(), mistakes=mistakes)
        for event in script.events:
            table.feed(dataclasses.replace(event, time=start + 1.0 + event.time))
    return table


def rotation(count: int, people: Sequence[str]) -> list[dict[Seat, str]]:
    """``count`` seatings drawn from ``people`` in turn (W left to a guest in every third match)."""
    out = []
    for i in range(count):
        chosen: list[str] = []
        k = 0
        while len(chosen) < 4:
            name = people[(i * 3 + k * (1 + i % 2)) % len(people)]
            k += 1
            if name not in chosen:
                chosen.append(name)
        seats = dict(zip(Seat, chosen, strict=True))
        if i % 3 == 2:
            del seats[Seat.W]
        out.append(seats)
    return out


def browser_at(size: tuple[int, int]) -> Any:
    webdriver = pytest.importorskip("selenium.webdriver")
    from selenium.webdriver.chrome.service import Service

    if not os.path.exists("/usr/bin/chromedriver"):
        pytest.skip("chromium-driver is not installed (scripts/setup.sh installs it)")
    os.environ["SE_OFFLINE"] = "true"
    options = webdriver.ChromeOptions()
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", f"--window-size={size[0]},{size[1]}"):
        options.add_argument(arg)
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


def get(url: str, method: str = "GET") -> tuple[int, str]:
    req = urllib.request.Request(url, method=method, data=b"x=1" if method != "GET" else None)
    try:
        with urllib.request.urlopen(req, timeout=10) as answer:
            return answer.status, answer.read(200_000).decode("utf-8")
    except urllib.error.HTTPError as err:
        return err.code, ""


def get_bytes(url: str) -> tuple[int, bytes, str]:
    """status, body, content type."""
    try:
        with urllib.request.urlopen(url, timeout=60) as answer:
            return answer.status, answer.read(), answer.headers.get("Content-Type", "")
    except urllib.error.HTTPError as err:
        return err.code, b"", ""


def own_exports(base: str, book: Book) -> dict[str, tuple[str, str]]:
    """Every player's own exports, fetched by his own page's secret link: path -> (his name, the text: the CSV,
    or every game record in the ZIP)."""
    out = {}
    for player in book.players():
        own = f"{base}/me/{book.token(player)}"
        status, body, kind = get_bytes(f"{own}/games.csv")
        assert status == 200 and kind.startswith("text/csv"), (player.name, status, kind)
        out[f"/me/{player.id}/games.csv"] = (player.name, body.decode("utf-8"))
        status, body, kind = get_bytes(f"{own}/records.zip")
        assert status == 200 and kind == "application/zip", (player.name, status, kind)
        with zipfile.ZipFile(io.BytesIO(body)) as archive:
            text = "".join(archive.read(name).decode("utf-8") for name in archive.namelist())
        out[f"/me/{player.id}/records.zip"] = (player.name, text)
    return out


def every_page(base: str, book: Book) -> dict[str, str]:
    """Every page the pages serve (each evening's, each player's), in each language: path -> text."""
    paths = ["/", "/live.json", "/players", "/leaderboard", "/evening", "/static/book.js", "/static/book.css"]
    paths += [f"/evening/{day}" for day in book.evenings()]
    paths += [f"/players/{p.id}" for p in book.players()]
    out = {}
    for lang in ("en", "lb", "de", "fr"):
        for path in paths:
            status, text = get(f"{base}{path}?lang={lang}")
            assert status == 200, path
            out[f"{path}?lang={lang}"] = text
    return out


def name_forms(name: str) -> set[str]:
    """Every way a name could be written into a page: as is, HTML-escaped, JSON-escaped."""
    return {name, html.escape(name), html.escape(name, quote=False), json.dumps(name)[1:-1],
            json.dumps(name, ensure_ascii=False)[1:-1]}
