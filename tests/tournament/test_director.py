"""The director over HTTP (no browser): login, announcements reach every table, corrections with an audit trail,
CSV and printable standings, the attention marks; and what is readable without a login."""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator

import pytest

from tablepi.notices import Notice, NoticeCode
from tablepi.web.serve import WebServer
from tests.tournament.conftest import Tournament
from tests.waits import wait_until

pytestmark = pytest.mark.slow

CUP = """
[tournament]
name = "Director cup"
format = "pairs"
round = "deals"
deals = 2
rounds = 2
slow_minutes = 0.02
pairs = [["Anna", "Jos"], ["Marie", "Pit"], ["Lis", "Ben"], ["Tom", "Eva"]]
"""


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: object, **kwargs: object) -> None:
        return None


@pytest.fixture
def cup(make_tournament: Callable[..., Tournament]) -> Tournament:
    return make_tournament(CUP, mistakes=True)


@pytest.fixture
def web(cup: Tournament) -> Iterator[WebServer]:
    server = WebServer(cup.server).start()
    yield server
    server.close()


def login(web: WebServer, who: str = "Carla") -> str:
    opener = urllib.request.build_opener(NoRedirect)
    body = urllib.parse.urlencode({"password": "secret", "who": who}).encode()
    with pytest.raises(urllib.error.HTTPError) as moved:
        opener.open(urllib.request.Request(f"{web.url}/login", body), timeout=5)
    assert moved.value.code == 303
    return str(moved.value.headers["set-cookie"]).split(";")[0]


def csrf_of(web: WebServer, cookie: str) -> str:
    """The session's CSRF token, as the dashboard page carries it for its script."""
    status, text = get(web, "/director", cookie)
    found = re.search(r'<meta name="csrf" content="([^"]+)">', text)
    return found.group(1) if status == 200 and found else ""


def post(web: WebServer, cookie: str, action: str, body: dict[str, object], *, csrf: str | None = None,
         headers: dict[str, str] | None = None, data: bytes | None = None) -> tuple[int, str]:
    token = csrf_of(web, cookie) if csrf is None else csrf
    request = urllib.request.Request(f"{web.url}/director/{action}", json.dumps(body).encode() if data is None
                                     else data, {"Cookie": cookie, "Content-Type": "application/json",
                                                 "X-CSRF-Token": token, **(headers or {})})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read())["message"]
    except urllib.error.HTTPError as error:
        text = error.read()
        try:
            return error.code, json.loads(text)["message"]
        except ValueError:
            return error.code, text.decode()


def get(web: WebServer, path: str, cookie: str = "") -> tuple[int, str]:
    opener = urllib.request.build_opener(NoRedirect)
    try:
        with opener.open(urllib.request.Request(f"{web.url}{path}", headers={"Cookie": cookie}), timeout=5) as r:
            return r.status, r.read(2000).decode()
    except urllib.error.HTTPError as error:
        return error.code, ""


def test_only_standings_and_the_overlay_are_readable_without_login(cup: Tournament, web: WebServer) -> None:
    assert get(web, "/standings")[0] == 200
    assert get(web, "/standings.json")[0] == 200
    assert get(web, "/print")[0] == 200
    assert get(web, "/overlay/1?token=tok")[0] == 200
    assert get(web, "/overlay/1")[0] == 403
    assert get(web, "/overlay/1?token=nope")[0] == 403
    for path in ("/director", "/tables/1", "/director/standings.csv"):
        assert get(web, path)[0] == 303  # to the login page
    for path in ("/tables/1/events", "/director/events", "/director/stats.json"):
        assert get(web, path)[0] == 401
    assert post(web, "forged=1", "announce", {"text": "hi"})[0] == 401
    cookie = login(web)
    assert get(web, "/tables/1", cookie)[0] == 200
    assert get(web, "/director", cookie)[0] == 200


def test_director_runs_the_tournament(cup: Tournament, web: WebServer) -> None:
    cookie = login(web, "Carla")
    assert post(web, cookie, "next-round", {}) == (200, "round 1 started: 2 tables seated")
    for table in cup.tables.values():
        wait_until(lambda t=table: (t.drain() or True) and t.app.seating is not None,  # type: ignore[misc]
                   f"table {table.name}'s seating")
        table.new_match(int(table.name))
    status, message = post(web, cookie, "next-round", {})
    assert status == 400 and "not finished" in message
    assert post(web, cookie, "announce", {"text": "Coffee is ready"})[0] == 200
    for table in cup.tables.values():
        wait_until(lambda t=table: (t.drain() or True) and any(  # type: ignore[misc]
            isinstance(n, Notice) and n.code is NoticeCode.ANNOUNCEMENT and n.param("text") == "Coffee is ready"
            for n in t.app.notices), "the announcement")
    # Play the round; then the dashboard's attention marks.
    for table in cup.tables.values():
        while table.playing and len(table.journaled.state.match.slate) < 2:
            table.step()
    cup.settle()
    before = {s.name: s.total for s in cup.server.standings()}
    assert post(web, cookie, "adjust", {"entrant": "Anna & Jos", "round": 1, "match_points": 1, "why": ""})[0] == 400
    assert post(web, cookie, "adjust", {"entrant": "Anna & Jos", "round": 1, "match_points": 1, "lines": -2,
                                        "why": "slate misread at table 1"})[0] == 200
    after = {s.name: s.total for s in cup.server.standings()}
    assert after["Anna & Jos"].match_points == before["Anna & Jos"].match_points + 1
    assert after["Anna & Jos"].lines == before["Anna & Jos"].lines - 2
    entry = cup.server.audit[-1]
    assert (entry["who"], entry["what"], entry["why"]) == ("Carla", "adjust", "slate misread at table 1")
    status, text = get(web, "/director/standings.csv", cookie)
    assert status == 200 and text.splitlines()[0].startswith("rank,name,match_points,line_difference")
    assert "Anna & Jos" in text
    dashboard = cup.server.dashboard()
    rows = {row["table"]: row for row in dashboard["tables"]}
    assert set(rows) == {"1", "2"}
    warned = [r for r in rows.values() if r["warnings"]]
    assert all("warning" in r["attention"] for r in warned)
    wait_until(lambda: all("slow" in r["attention"] or r["phase"] == "match_over"
                           for r in cup.server.dashboard()["tables"]), "slow marks")
    # Start round 2 (the round is complete everywhere now) and restart the server: the audit trail stays.
    assert post(web, cookie, "next-round", {})[0] == 200
    assert [a["what"] for a in cup.server.store.audit_log()] == ["round", "announce", "adjust", "round"]
