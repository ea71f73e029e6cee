"""The pages on a hostile bar's Wi-Fi: bounded bodies, no action from another origin, a CSRF token per session,
JSON-only actions, password guessing slowed, locked out and logged, sessions that end at /logout, bounded and
undoable corrections, a limit on open streams with a polite refusal, TLS with certificates made for the test, and
what every page carries (security headers, a viewport, a 24-hour clock outside English)."""

from __future__ import annotations

import logging
import re
import socket
import ssl
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from tablepi import changes
from tablepi.tournament.config import parse_tournament_config
from tablepi.tournament.server import TournamentServer
from tablepi.web.auth import LOCK_AFTER
from tablepi.web.guard import MAX_BODY
from tablepi.web.serve import WebServer
from tests.streams import read_event
from tests.tournament.conftest import Tournament
from tests.tournament.test_director import NoRedirect, csrf_of, get, login, post
from tests.tournament.test_tls import make_broker_cert, make_ca
from tests.waits import wait_until

CUP = """
[tournament]
name = "Guard cup"
format = "pairs"
round = "deals"
deals = 1
rounds = 2
pairs = [["Anna", "Jos"], ["Marie", "Pit"], ["Lis", "Ben"], ["Tom", "Eva"]]
"""


@pytest.fixture
def alone(tmp_path: Path) -> Iterator[TournamentServer]:
    """The server without a broker (the pages only)."""
    config = parse_tournament_config(CUP + '[broker]\npassword = "x"\n[web]\ndirector_password = "secret"\n'
                                     'overlay_token = "tok"\nmax_streams = 5\n', tmp_path / "t.toml")
    server = TournamentServer(config)
    yield server
    server.close()


@pytest.fixture
def web(alone: TournamentServer) -> Iterator[WebServer]:
    running = WebServer(alone).start()
    yield running
    running.close()


def raw(web: WebServer, request: bytes, read: int = 4096, timeout: float = 10.0) -> bytes:
    with socket.create_connection(("127.0.0.1", web.port), timeout) as sock:
        sock.sendall(request)
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = sock.recv(read)
            if not chunk:
                break
            data += chunk
        return data


def test_request_bodies_are_bounded(web: WebServer) -> None:
    # 300 MB announced: refused before a byte of it is read
    head = raw(web, b"POST /login HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\n"
                    b"Content-Length: 300000000\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 413")
    # sent in chunks without a length: refused once past the bound
    chunk = b"a" * 4096
    body = b"".join(b"%x\r\n%s\r\n" % (len(chunk), chunk) for _ in range(MAX_BODY // 4096 + 4))
    head = raw(web, b"POST /login HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n" + body + b"0\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 413")
    assert get(web, "/standings")[0] == 200  # and the server serves on


def test_every_page_carries_the_headers_a_viewport_and_readable_links(web: WebServer) -> None:
    for path in ("/standings", "/login", "/print", "/overlay/1?token=tok"):
        with urllib.request.urlopen(f"{web.url}{path}", timeout=5) as response:
            text = response.read().decode()
            assert response.headers["X-Content-Type-Options"] == "nosniff"
            assert "frame-ancestors 'none'" in response.headers["Content-Security-Policy"]
            assert '<meta name="viewport" content="width=device-width, initial-scale=1">' in text, path
    css = urllib.request.urlopen(f"{web.url}/static/common.css", timeout=5).read().decode()
    assert re.search(r"\ba \{ color: #ffd479; \}", css)  # gold on the dark green, not the browser's dark blue
    script = urllib.request.urlopen(f"{web.url}/static/view.js", timeout=5).read().decode()
    assert 'hourCycle: lang === "en" ? undefined : "h23"' in script


def test_printable_standings_say_during_until_the_round_is_complete(alone: TournamentServer,
                                                                   web: WebServer) -> None:
    alone.start_next_round("test")
    assert "Standings during round 1" in get(web, "/print")[1]
    assert "Klassement während der Tour 1" in get(web, "/print?lang=lb")[1]


def test_an_action_from_another_origin_or_without_the_token_is_refused(web: WebServer) -> None:
    cookie = login(web)
    token = csrf_of(web, cookie)
    assert token
    evil = {"Origin": f"http://127.0.0.1:{web.port + 1}"}  # the same host, another port
    assert post(web, cookie, "announce", {"text": "x"}, headers=evil)[0] == 403
    assert post(web, cookie, "announce", {"text": "x"}, csrf="")[0] == 403
    assert post(web, cookie, "announce", {"text": "x"}, csrf="forged")[0] == 403
    assert post(web, cookie, "announce", {"text": "x"}, headers={"Content-Type": "text/plain"})[0] == 415
    assert post(web, cookie, "next-round", {}, headers={"Origin": web.url})[0] == 200
    # the login itself from another origin
    body = urllib.parse.urlencode({"password": "secret"}).encode()
    request = urllib.request.Request(f"{web.url}/login", body, evil)
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.build_opener(NoRedirect).open(request, timeout=5)
    assert refused.value.code == 403


def test_logout_ends_the_session_on_the_server(web: WebServer) -> None:
    cookie = login(web)
    assert get(web, "/director", cookie)[0] == 200
    get(web, "/logout", cookie)
    assert get(web, "/director", cookie)[0] == 303  # the same cookie, replayed: worth nothing now
    assert get(web, "/director/events", cookie)[0] == 401


def test_password_guessing_is_slowed_locked_out_and_logged(web: WebServer,
                                                            caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING)
    opener = urllib.request.build_opener(NoRedirect)

    def attempt(password: str) -> int:
        body = urllib.parse.urlencode({"password": password, "who": "mallory"}).encode()
        try:
            opener.open(urllib.request.Request(f"{web.url}/login", body), timeout=10)
        except urllib.error.HTTPError as error:
            return error.code
        return 200

    start = time.monotonic()
    codes = [attempt(f"guess{i}") for i in range(LOCK_AFTER)]
    assert codes == [401] * LOCK_AFTER
    assert time.monotonic() - start >= LOCK_AFTER * 0.9  # about a second per guess, not 22 a second
    assert attempt("secret") == 429  # locked out, even with the right password
    lines = [r.getMessage() for r in caplog.records]
    assert any("wrong password for 'mallory' from 127.0.0.1" in line for line in lines)
    assert any("locked out" in line for line in lines)


def test_corrections_are_bounded_and_undoable(alone: TournamentServer, web: WebServer) -> None:
    cookie = login(web, "Carla")
    assert post(web, cookie, "next-round", {})[0] == 200
    status, message = post(web, cookie, "adjust", {"entrant": "Anna & Jos", "round": 1,
                                                   "match_points": "99999999999999999999999", "why": "typo"})
    assert status == 400 and "match_points" in message
    assert post(web, cookie, "adjust", {"entrant": "Anna & Jos", "round": 1, "match_points": 11,
                                        "why": "typo"})[0] == 400
    before = {s.name: s.total for s in alone.standings()}
    assert post(web, cookie, "adjust", {"entrant": "Anna & Jos", "round": 1, "match_points": 2, "why": "bye"})[0] \
        == 200
    entry = alone.audit[-1]
    assert {s.name: s.total for s in alone.standings()} != before
    undone = post(web, cookie, "undo", {"id": entry["id"], "why": "wrong entrant"})
    assert undone == (200, f"correction {entry['id']} undone")
    assert {s.name: s.total for s in alone.standings()} == before
    assert post(web, cookie, "undo", {"id": entry["id"], "why": "again"})[0] == 400
    assert [a["what"] for a in alone.audit] == ["round", "adjust", "undo"]


def test_open_streams_are_limited_with_a_polite_refusal(web: WebServer) -> None:
    held = []
    try:
        for _ in range(5):  # [web] max_streams = 5
            sock = socket.create_connection(("127.0.0.1", web.port), 5)
            sock.sendall(b"GET /standings/events HTTP/1.1\r\nHost: x\r\n\r\n")
            assert sock.recv(4096).startswith(b"HTTP/1.1 200")
            held.append(sock)
        refused = raw(web, b"GET /standings/events HTTP/1.1\r\nHost: x\r\n\r\n")
        assert refused.startswith(b"HTTP/1.1 503") and b"retry-after: 20" in refused.lower()
        assert get(web, "/standings")[0] == 200  # pages are still served
    finally:
        for sock in held:
            sock.close()
    wait_until(lambda: raw(web, b"GET /standings/events HTTP/1.1\r\nHost: x\r\n\r\n").startswith(b"HTTP/1.1 200"),
               "the slots to be given back", every=0.2)


@pytest.mark.slow
def test_the_pages_over_tls(tmp_path: Path) -> None:
    """[web] certfile and keyfile: the password never crosses the Wi-Fi in clear; the cookie is Secure."""
    ca = make_ca(tmp_path / "ca", "ca")
    cert, key = make_broker_cert(tmp_path / "ca", ca)
    config = parse_tournament_config(CUP + f'[broker]\npassword = "x"\n[web]\ndirector_password = "secret"\n'
                                     f'certfile = "{cert}"\nkeyfile = "{key}"\n', tmp_path / "t.toml")
    server = TournamentServer(config)
    web = WebServer(server).start()
    try:
        assert web.url.startswith("https://")
        context = ssl.create_default_context(cafile=str(ca))
        with urllib.request.urlopen(f"{web.url}/standings", timeout=10, context=context) as response:
            assert response.status == 200
        opener = urllib.request.build_opener(NoRedirect, urllib.request.HTTPSHandler(context=context))
        body = urllib.parse.urlencode({"password": "secret"}).encode()
        with pytest.raises(urllib.error.HTTPError) as moved:
            opener.open(urllib.request.Request(f"{web.url}/login", body), timeout=10)
        assert moved.value.code == 303 and "Secure" in moved.value.headers["set-cookie"]
        with pytest.raises((urllib.error.URLError, ConnectionError)):  # plain HTTP to the TLS port: nothing
            urllib.request.urlopen(f"http://127.0.0.1:{web.port}/standings", timeout=5).read()
    finally:
        web.close()
        server.close()


@pytest.mark.slow
def test_fifteen_hundred_live_pages(make_tournament: Callable[..., Tournament]) -> None:
    """1,500 projector pages open at once: every one is served (no 500, no accept() errors); beyond the
    configured limit a polite 503; the standings still reach them."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < 4000:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(8000, hard), hard))
    t = make_tournament(CUP)
    t.server.config = replace(t.server.config, web=replace(t.server.config.web, max_streams=1500))
    web = WebServer(t.server).start()
    socks: list[socket.socket] = []
    try:
        for _ in range(1500):
            sock = socket.create_connection(("127.0.0.1", web.port), 10)
            sock.sendall(b"GET /standings/events HTTP/1.1\r\nHost: x\r\n\r\n")
            socks.append(sock)
        heads = []
        for sock in socks:
            sock.settimeout(30)
            heads.append(sock.recv(4096))
        assert all(h.startswith(b"HTTP/1.1 200") for h in heads), {h[:12] for h in heads}
        assert raw(web, b"GET /standings/events HTTP/1.1\r\nHost: x\r\n\r\n").startswith(b"HTTP/1.1 503")
        t.start_round(1)
        t.play_all()
        t.settle()
        wait = time.monotonic() + 20
        seen = 0
        for sock in socks[:50]:  # the standings reach the open pages
            data = b""
            while b'"round": 1' not in data and time.monotonic() < wait:
                data += sock.recv(65536)
            seen += b'"round": 1' in data
        assert seen == 50
    finally:
        for sock in socks:
            sock.close()
        web.close()



def test_streams_wake_on_a_change_and_idle_streams_do_nothing(web: WebServer, alone: TournamentServer,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """An open page gets a change as soon as it is published (from another thread, as the server's worker does),
    and an idle stream does no work at all until then: no look at the hub, no wakeup (it used to look ten times a
    second); when the server stops, the waiting streams end at once."""
    looks: list[str] = []
    real_get = alone.hub.get

    def counted(channel: str) -> tuple[int, str]:
        looks.append(channel)
        return real_get(channel)

    monkeypatch.setattr(alone.hub, "get", counted)
    monkeypatch.setattr(changes, "TICK", 60.0)  # the keep-alive tick (every 5 s) falls outside the test
    held = []
    try:
        for _ in range(4):
            sock = socket.create_connection(("127.0.0.1", web.port), 5)
            sock.sendall(b"GET /standings/events HTTP/1.1\r\nHost: x\r\n\r\n")
            data = bytearray()
            read_event(sock, data)  # the standings as they are
            held.append((sock, data))
        looks.clear()  # each stream looked before it sent its first event, read above
        woken = alone.hub.changes.wakeups
        time.sleep(1.5)
        assert looks == [] and alone.hub.changes.wakeups == woken  # idle: nothing per tick
        threading.Thread(target=alone.hub.put, args=("standings", '{"changed": 1}')).start()
        started = time.monotonic()
        for sock, data in held:
            assert read_event(sock, data) == '{"changed": 1}'
        assert time.monotonic() - started < 0.5
        assert alone.hub.changes.wakeups == woken + 4 and len(looks) == 4  # one look per stream and change
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


def test_the_overlay_wakes_when_a_change_is_as_old_as_its_delay_and_not_before(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The overlay shows a table's change ``overlay_delay`` after it (here 1 s): its stream is woken then (not
    0.1 s late, as polling was), does not show it earlier, and an idle overlay does not look at the hub."""
    config = parse_tournament_config(CUP + '[broker]\npassword = "x"\n[web]\ndirector_password = "secret"\n'
                                     'overlay_token = "tok"\noverlay_delay = 1.0\n', tmp_path / "t.toml")
    server = TournamentServer(config)
    looks: list[float] = []
    real_as_of = server.hub.as_of

    def counted(channel: str, when: float) -> tuple[float, str]:
        looks.append(when)
        return real_as_of(channel, when)

    monkeypatch.setattr(server.hub, "as_of", counted)
    monkeypatch.setattr(changes, "TICK", 60.0)
    web = WebServer(server).start()
    sock = socket.create_connection(("127.0.0.1", web.port), 5)
    try:
        sock.sendall(b"GET /overlay/1/events?token=tok HTTP/1.1\r\nHost: x\r\n\r\n")
        data = bytearray()
        assert read_event(sock, data) == "{}"
        if server.hub.next_after("table/1", 0.0) is not None:  # the table's view the server made as it started
            read_event(sock, data)  # ... shown 1 s after it
        looks.clear()  # each stream looked before it sent its first event, read above
        time.sleep(1.0)
        assert looks == []  # idle: no look
        put = time.monotonic()
        threading.Thread(target=server.hub.put, args=("table/1", '{"deal": 1}', server.clock())).start()
        assert read_event(sock, data) == '{"deal": 1}'
        shown = time.monotonic() - put
        assert 1.0 - 0.05 <= shown < 1.3, shown
        assert len(looks) <= 4  # at the change, at its due time (and a look or two if the timer fires a hair early)
    finally:
        sock.close()
        web.close()
        server.close()
