"""The Starlette app: pages, server-sent events, the director's login and actions.

A stream waits on its :class:`~tablepi.tournament.server.Hub` channel's changes (:mod:`tablepi.changes`) and
sends the channel's JSON when its version changed, so a deal scored at a table is on the projector as soon as the
server applied it, and an idle page costs nothing between changes. The overlay stream sends what the table looked
like ``overlay_delay`` seconds ago (no hand shown live on a stream), and only with the overlay token: it is woken
by its table's change and again when the next change it has not shown yet is ``overlay_delay`` old.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import html
import logging
import re
import time
import urllib.parse
from collections.abc import AsyncIterator, Awaitable, Callable
from importlib import resources
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import (
    HTMLResponse,
    JSONResponse,
    PlainTextResponse,
    RedirectResponse,
    Response,
    StreamingResponse,
)
from starlette.routing import Route

from tablepi.display.i18n import LANGUAGES
from tablepi.safeinput import clean_text, load_json
from tablepi.tournament.server import TournamentError, TournamentServer
from tablepi.tournament.standings import Score
from tablepi.web.auth import DELAY, Session, Sessions, Throttle
from tablepi.web.guard import StreamSlots
from tablepi.web.texts import texts, texts_json

log = logging.getLogger(__name__)

#: A comment line this often keeps proxies from closing a quiet stream.
KEEPALIVE = 15.0
COOKIE = "tablepi_director"
#: The header a page sends its session's CSRF token in with every action.
CSRF_HEADER = "x-csrf-token"
#: The language a visitor chose with ``?lang=`` (kept for the pages he opens next).
LANG_COOKIE = "tablepi_lang"
_MARK = re.compile(r"\[\[(\w+)\]\]")
_TYPES = {"css": "text/css", "js": "text/javascript", "html": "text/html"}


def page(name: str) -> str:
    return resources.files("tablepi.web").joinpath("pages", name).read_text(encoding="utf-8")


def language(request: Request, default: str) -> str:
    """The page's language: ``?lang=`` (lb, de, fr, en), else the one chosen before (a cookie), else the config's."""
    for choice in (request.query_params.get("lang", ""), request.cookies.get(LANG_COOKIE, "")):
        if choice in LANGUAGES:
            return choice
    return default


#: What every page's ``<head>`` begins with (``[[head]]``): the character set, a viewport so a phone shows the
#: page at its own width (not a desktop page at 8 px), and the shared stylesheet (colours that read on the dark
#: green, links included).
HEAD = ('<meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">'
        '<link rel="stylesheet" href="/static/common.css">')


def translated(name: str, lang: str, text: str | None = None) -> str:
    """Page ``name`` (or ``text``) with its ``[[key]]`` marks replaced by the texts of ``lang`` (``[[texts]]``: all
    of them, for its script; ``[[lang]]``: the language code; ``[[head]]``: :data:`HEAD`)."""
    words = texts(lang)

    def one(match: re.Match[str]) -> str:
        key = match.group(1)
        if key == "texts":
            return texts_json(lang)
        if key == "lang":
            return lang
        if key == "head":
            return HEAD
        return html.escape(words[key])

    return _MARK.sub(one, page(name) if text is None else text)


class Auth:
    """The director's login: a password from the config, server-side sessions (:mod:`tablepi.web.auth`) naming who
    logged in (for the audit), a throttle on wrong passwords."""

    def __init__(self, password: str) -> None:
        self.password = password
        self.sessions = Sessions()
        self.throttle = Throttle()

    def session(self, request: Request) -> Session | None:
        return self.sessions.get(request.cookies.get(COOKIE, ""))

    def who(self, request: Request) -> str | None:
        session = self.session(request)
        return None if session is None else session.who

    def check(self, password: str) -> bool:
        return bool(self.password) and hmac.compare_digest(password.encode(), self.password.encode())


async def _stream(produce: Callable[[], tuple[Any, str]], stopping: Callable[[], bool],
                  wait: Callable[[], Awaitable[object]]) -> AsyncIterator[str]:
    """The stream's texts: ``produce``'s text whenever its key changed, looked at after each ``wait``. A visitor
    who leaves ends it through Starlette's StreamingResponse, which listens for the disconnect itself and cancels
    this generator (asking ``request.is_disconnected()`` on every look cost as much as the rest)."""
    sent: Any = None
    quiet = time.monotonic()
    while not stopping():
        key, text = produce()
        if key != sent:
            sent = key
            quiet = time.monotonic()
            yield f"data: {text}\n\n"
        elif time.monotonic() - quiet >= KEEPALIVE:
            quiet = time.monotonic()
            yield ": keepalive\n\n"
        await wait()


def event_stream(request: Request, produce: Callable[[], tuple[Any, str]], slots: StreamSlots,
                 stopping: Callable[[], bool], wait: Callable[[], Awaitable[object]]) -> Response:
    """A server-sent-event stream of ``produce``'s text, sent whenever its key changes (looked at after each
    ``wait``: a channel's change, or a timer as well), a comment every :data:`KEEPALIVE` seconds to keep proxies
    from closing it; beyond ``slots``' open streams, a polite 503 with Retry-After (the pages' scripts come back
    after it). Every page tablepi serves streams this way."""
    if not slots.take():
        return PlainTextResponse("too many open pages right now; this one tries again shortly",
                                 status_code=503, headers={"Retry-After": str(slots.retry_after)})

    async def counted() -> AsyncIterator[str]:
        try:
            async for item in _stream(produce, stopping, wait):
                yield item
        finally:
            slots.give_back()

    return StreamingResponse(counted(), media_type="text/event-stream",
                             headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})


def make_app(server: TournamentServer, *, stopping: Callable[[], bool] = lambda: False) -> Starlette:
    """The ASGI app of ``server``. ``stopping`` tells open streams to end (so uvicorn can stop at once)."""
    web = server.config.web
    auth = Auth(web.director_password)
    slots = StreamSlots(web.max_streams)

    def html_page(request: Request, name: str, status: int = 200, **fields: str) -> HTMLResponse:
        lang = language(request, web.language)
        text = translated(name, lang)
        for key, value in fields.items():
            text = text.replace("{" + key + "}", value)
        response = HTMLResponse(text, status_code=status)
        if request.query_params.get("lang", "") in LANGUAGES:
            response.set_cookie(LANG_COOKIE, lang, samesite="lax")
        return response

    changes = server.hub.changes

    def sse(request: Request, channel: str) -> Response:
        """The stream of a hub channel, woken by its changes (and every few seconds for its keep-alive)."""
        changes.attach()
        return event_stream(request, lambda: server.hub.get(channel), slots, stopping,
                            lambda: changes.wait(channel))

    def director(request: Request) -> str | None:
        return auth.who(request)

    def login_redirect(request: Request) -> Response:
        target = urllib.parse.quote(request.url.path)
        return RedirectResponse(f"/login?next={target}", status_code=303)

    # --- public ------------------------------------------------------------------------------------------------

    async def index(request: Request) -> Response:
        return RedirectResponse("/standings", status_code=303)

    async def standings_page(request: Request) -> Response:
        return html_page(request, "standings.html")

    async def standings_json(request: Request) -> Response:
        return Response(server.hub.get("standings")[1], media_type="application/json")

    async def standings_events(request: Request) -> Response:
        return sse(request, "standings")

    async def printable(request: Request) -> Response:
        lang = language(request, web.language)
        t = {key: html.escape(value) for key, value in texts(lang).items()}
        ranked = server.standings()
        disputed = server.disputed()
        said = texts(lang)["round_disputed"]
        notes = {s.name: "".join(f" <small>({html.escape(said.format(round=d['round']))})</small>"
                                 for d in disputed if s.name in d["names"]) for s in ranked}
        rows = "".join(
            f"<tr><td>{s.rank}</td><td>{html.escape(s.name)}{notes[s.name]}</td><td>{s.total.match_points}</td>"
            f"<td>{s.total.lines:+d}</td><td>{s.total.points}</td><td>{s.dropped or ''}</td></tr>" for s in ranked)
        name = html.escape(server.config.name)
        title = t["standings_of"].format(name=name)
        number = len(server.rounds)
        finished = number > 0 and not server.unfinished()
        words = t["standings_after" if finished else "standings_during"] if number else t["not_started"]
        after = words.format(round=number, date=time.strftime("%Y-%m-%d %H:%M"))
        byes = server.byes[-1] if server.byes else ()
        bye = f"<p>{t['bye'].format(names=html.escape(', '.join(byes)))}</p>" if byes else ""
        body = (f"<!doctype html><html lang='{lang}'><head>{HEAD}<title>{title}</title><style>"
                "body{background:#fff;color:#000} table{width:auto} td,th{border:1px solid #444;padding:3px 8px;"
                "color:#000}</style></head><body class='print'>"
                f"<h1>{name}</h1><p>{after}</p>{bye}<table><tr><th>#</th><th>{t['name']}</th>"
                f"<th>{t['match_points']}</th><th>{t['lines']}</th><th>{t['card_points']}</th>"
                f"<th>{t['dropped_round']}</th></tr>{rows}</table></body></html>")
        return HTMLResponse(body)

    def overlay_allowed(request: Request) -> bool:
        token = request.query_params.get("token", "")
        return bool(web.overlay_token) and hmac.compare_digest(token.encode(), web.overlay_token.encode())

    async def overlay_page(request: Request) -> Response:
        if not overlay_allowed(request):
            return PlainTextResponse("the overlay needs its token (?token=...)", status_code=403)
        return html_page(request, "overlay.html")

    async def overlay_events(request: Request) -> Response:
        if not overlay_allowed(request):
            return PlainTextResponse("forbidden", status_code=403)
        channel = f"table/{request.path_params['table']}"

        async def due() -> None:
            """Until the channel changes, or the next change it had is ``overlay_delay`` old (then on screen)."""
            following = server.hub.next_after(channel, server.clock() - web.overlay_delay)
            if following is None:
                await changes.wait(channel)
                return
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(changes.wait(channel),
                                       max(0.0, following + web.overlay_delay - server.clock()))

        changes.attach()
        return event_stream(request, lambda: server.hub.as_of(channel, server.clock() - web.overlay_delay), slots,
                            stopping, due)

    async def static(request: Request) -> Response:
        name = request.path_params["name"]
        if name not in ("common.css", "view.js"):
            return PlainTextResponse("not found", status_code=404)
        return Response(page(name), media_type=_TYPES[name.rsplit(".", 1)[1]])

    # --- login -------------------------------------------------------------------------------------------------

    async def login_page(request: Request) -> Response:
        target = request.query_params.get("next", "/director")
        return html_page(request, "login.html", message="", next=html.escape(target))

    async def login(request: Request) -> Response:
        address = request.client.host if request.client is not None else "?"
        wait = auth.throttle.locked_for(address)
        if wait:
            return PlainTextResponse(f"too many wrong passwords: try again in {int(wait) + 1} s", status_code=429,
                                     headers={"Retry-After": str(int(wait) + 1)})
        form = urllib.parse.parse_qs((await request.body()).decode("utf-8", "replace"))
        password = form.get("password", [""])[0]
        who = clean_text(form.get("who", ["director"])[0].strip())[:40] or "director"
        target = form.get("next", ["/director"])[0]
        if not target.startswith("/") or target.startswith("//") or "\\" in target:
            target = "/director"
        if not auth.check(password):
            auth.throttle.failed(address, who)
            await asyncio.sleep(DELAY)
            wrong = html.escape(texts(language(request, web.language))["wrong_password"])
            return html_page(request, "login.html", 401, message=wrong, next=html.escape(target))
        auth.throttle.succeeded(address)
        token, _ = auth.sessions.new(who)
        log.info("login: %r from %s", who, address)
        response = RedirectResponse(target, status_code=303)
        response.set_cookie(COOKIE, token, httponly=True, samesite="strict", secure=web.tls)
        return response

    async def logout(request: Request) -> Response:
        auth.sessions.end(request.cookies.get(COOKIE, ""))
        response = RedirectResponse("/standings", status_code=303)
        response.delete_cookie(COOKIE)
        return response

    # --- behind the login --------------------------------------------------------------------------------------

    async def table_page(request: Request) -> Response:
        if director(request) is None:
            return login_redirect(request)
        return html_page(request, "table.html")

    async def table_events(request: Request) -> Response:
        if director(request) is None:
            return PlainTextResponse("log in first", status_code=401)
        return sse(request, f"table/{request.path_params['table']}")

    async def director_page(request: Request) -> Response:
        session = auth.session(request)
        if session is None:
            return login_redirect(request)
        return html_page(request, "director.html", csrf=session.csrf)

    async def director_events(request: Request) -> Response:
        if director(request) is None:
            return PlainTextResponse("log in first", status_code=401)
        return sse(request, "director")

    async def director_csv(request: Request) -> Response:
        if director(request) is None:
            return login_redirect(request)
        return Response(server.standings_csv(), media_type="text/csv",
                        headers={"Content-Disposition": "attachment; filename=standings.csv"})

    async def director_stats(request: Request) -> Response:
        if director(request) is None:
            return JSONResponse({"message": "log in first"}, status_code=401)
        return JSONResponse(server.stats())

    async def action(request: Request) -> Response:
        session = auth.session(request)
        if session is None:
            return JSONResponse({"message": "log in first"}, status_code=401)
        if request.headers.get("content-type", "").split(";")[0].strip().lower() != "application/json":
            return JSONResponse({"message": "an action is a JSON body (Content-Type: application/json)"},
                                status_code=415)
        if not Sessions.csrf_ok(session, request.headers.get(CSRF_HEADER, "")):
            log.warning("refused a director's action without this session's CSRF token, client %s",
                        request.client.host if request.client is not None else "?")
            return JSONResponse({"message": "refused: reload the dashboard"}, status_code=403)
        who = session.who
        try:
            body = load_json((await request.body()).decode("utf-8", "replace") or "{}")
            if not isinstance(body, dict):
                raise ValueError("expected a JSON object")
            name = request.path_params["action"]
            loop = asyncio.get_running_loop()
            message = await loop.run_in_executor(None, _act, server, name, who, body)
        except (TournamentError, ValueError, KeyError) as error:
            return JSONResponse({"message": f"not done: {error}"}, status_code=400)
        return JSONResponse({"message": message})

    routes = [
        Route("/", index),
        Route("/standings", standings_page),
        Route("/standings.json", standings_json),
        Route("/standings/events", standings_events),
        Route("/print", printable),
        Route("/overlay/{table}", overlay_page),
        Route("/overlay/{table}/events", overlay_events),
        Route("/static/{name}", static),
        Route("/login", login_page, methods=["GET"]),
        Route("/login", login, methods=["POST"]),
        Route("/logout", logout),
        Route("/tables/{table}", table_page),
        Route("/tables/{table}/events", table_events),
        Route("/director", director_page),
        Route("/director/events", director_events),
        Route("/director/standings.csv", director_csv),
        Route("/director/stats.json", director_stats),
        Route("/director/{action}", action, methods=["POST"]),
    ]
    return Starlette(routes=routes)


def _act(server: TournamentServer, name: str, who: str, body: dict[str, Any]) -> str:
    """One director action (runs off the event loop: it writes the store and publishes to the broker)."""
    if name == "announce":
        server.announce(str(body.get("text", ""))[:MAX_ANNOUNCEMENT], who)
        return "announced to every table"
    if name == "next-round":
        seating = server.start_next_round(who, force=str(body.get("force", "")) in ("1", "true", "on"))
        return f"round {len(server.rounds)} started: {len(seating)} tables seated"
    if name == "adjust":
        score = Score(_number(body, "match_points", 0), _number(body, "lines", 0), _number(body, "points", 0))
        server.adjust(who, str(body.get("why", "")), str(body.get("entrant", "")).strip(),
                      _number(body, "round", 0), score)
        return "correction recorded"
    if name == "assign":
        server.assign(who, str(body.get("why", "")), str(body.get("table", "")).strip(),
                      str(body.get("journal", "")).strip(), _number(body, "round", 0), _number(body, "match", 1))
        return "journal assigned"
    if name == "undo":
        entry = server.undo(who, str(body.get("why", "")), _number(body, "id", 0))
        return f"correction {entry['undoes']} undone"
    raise KeyError(f"no action {name!r}")


#: An announcement is one line on the tables' screens.
MAX_ANNOUNCEMENT = 200


def _number(body: dict[str, Any], key: str, default: int) -> int:
    """A whole number from a form field (text or number); ValueError names the field."""
    value = body.get(key, default)
    if value in ("", None):
        return default
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise ValueError(f"{key}: expected a whole number")
    text = str(value).strip()
    if len(text) > 12 or not text.lstrip("+-").isdigit():
        raise ValueError(f"{key}: expected a whole number, got {clean_text(text)[:20]!r}")
    return int(text)
