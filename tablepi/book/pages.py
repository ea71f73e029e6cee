"""The table's own pages for the players' phones: the live slate and deal in play, the evening's deals with their
reviews, each player's page, the leaderboard (docs/players.md, "The pages").

Read-only: every route answers GET (and HEAD) only, so nothing on a page can change the table or the book. Every
text a player or a record gave (names above all) is escaped as it is written into HTML, and the live view's
script writes only ``textContent``. Names are shown as the book allows: a player who has not opted in by his
initials, a guest as "guest"; his own name only on his own page (``/me/<token>``), which alone offers his exports:
his games as CSV and as game records (:mod:`tablepi.book.export`, the code ``tablepi players export`` writes them
with), built at most :data:`EXPORTS_AT_ONCE` at a time. The live view holds only the cards already played (the
feed's summary), never a hand. Pages are light: one small stylesheet and one small script, both served by the
table, no framework.

:class:`Pages` makes each page's HTML; :func:`make_pages` is the Starlette app around it. An open page's stream
waits on the channel :data:`~tablepi.book.fill.CHANNEL` of the pages' :class:`~tablepi.changes.Changes`, told
by whoever changes the book or the live view (a :class:`LiveBoard` shown the table's keeper's live view, the
league's server): an idle page costs nothing between changes but its keep-alive. A write from another process
(``tablepi players private``) is seen at the next keep-alive tick (:data:`tablepi.changes.TICK`). A table serves
them from a process of its own (:mod:`tablepi.book.process`).
"""

from __future__ import annotations

import asyncio
import html
import json
import time
from collections.abc import Callable
from importlib import resources
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from tablepi.book.config import BookConfig
from tablepi.book.export import RecordLookup, player_csv, player_records, records_zip
from tablepi.book.fill import CHANNEL, LiveView
from tablepi.book.rating import ordinal
from tablepi.book.stats import ALL_TIME, Period, evening_period, leaderboard, player_stats, season_period
from tablepi.book.store import Book, Player, evening_of
from tablepi.book.texts import texts, texts_json
from tablepi.changes import Changes
from tablepi.display.i18n import LANGUAGES
from tablepi.rules.cards import Card
from tablepi.rules.seats import Seat, Team
from tablepi.web.app import LANG_COOKIE, event_stream, language
from tablepi.web.guard import StreamSlots

#: Open live pages at most (a bar's phones, many times over); beyond, 503 and Retry-After (tablepi.web.guard).
MAX_STREAMS = 1000
#: Exports being built at once (each reads all of a player's matches, off the server's loop); beyond, 503 and
#: Retry-After.
EXPORTS_AT_ONCE = 2
#: A player's newest game records in one download at most: each is read back and checked as ``tablepi replay``
#: reads it (about 0.1 s a record on the development machine, several times that on a Pi); all of them are
#: ``tablepi players export --records``.
MAX_RECORDS = 100
_ESC = html.escape
#: Besides the shared guard's headers: these pages have no inline script or style at all, so they say so.
_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
                               "connect-src 'self'; frame-ancestors 'none'; form-action 'none'",
    "Cache-Control": "no-store",
}
#: A live view: (version, each table now as the keeper (or the league's server) last made it: a table's
#: keeper gives its own table, a league every table of the bar).
LiveSource = Callable[[], LiveView]
#: The game records for one export: a table's archive as it is now, or a league's feeds.
RecordSource = Callable[[], RecordLookup]


def _static(name: str) -> str:
    return resources.files("tablepi.book").joinpath("static", name).read_text(encoding="utf-8")


class LiveBoard:
    """The newest live view a table's keeper showed (:meth:`show`, from any thread), for :class:`Pages`
    (:meth:`now`); each one shown wakes the open streams (:attr:`changes`)."""

    def __init__(self) -> None:
        self.changes = Changes()
        self._live: LiveView = (0, [])

    def show(self, live: LiveView) -> None:
        self._live = live
        self.changes.changed(CHANNEL)

    def now(self) -> LiveView:
        return self._live


def card_html(text: str) -> str:
    card = Card.parse(text)
    red = " red" if card.suit.value in ("H", "D") else ""
    return f"<span class='card{red}'>{_ESC(card.display)}</span>"


class Pages:
    """Each page's HTML from the book (and the live view), in one language, and a player's exports (his game
    records from ``records``); ``changes`` is told (channel :data:`~tablepi.book.fill.CHANNEL`) whenever the book
    or ``live`` changed."""

    def __init__(self, book: Book, config: BookConfig, live: LiveSource, changes: Changes,
                 records: RecordSource) -> None:
        self.book = book
        self.config = config
        self.live = live
        self.changes = changes
        self.records = records
        self._sent: dict[str, tuple[tuple[int, tuple[int, int]], str]] = {}
        self._made: dict[tuple[Any, ...], str] = {}  # pages made since the book last changed
        self._made_version: tuple[int, int] = (-1, -1)

    def cached(self, key: tuple[Any, ...], make: Callable[[], str]) -> str:
        """A page made once per change of the book (a match finished) and evening: a regular's page adds up
        thousands of deals, and a bar's phones ask for it far more often than a match ends."""
        version = self.book.changes
        if version != self._made_version:
            self._made, self._made_version = {}, version
        key = (*key, evening_of(time.time(), self.book.day_starts))
        found = self._made.get(key)
        if found is None:
            found = self._made[key] = make()
        return found

    # --- names as the pages may show them --------------------------------------------------------------------

    def shown(self, viewer: Player | None = None) -> dict[int, str]:
        return {p.id: (p.name if viewer is not None and p.id == viewer.id else p.shown) for p in self.book.players()}

    def seat_name(self, name: str | None, t: dict[str, str]) -> str:
        """A name seated at the table, as the live page may show it."""
        if not name:
            return t["guest"]
        found = self.book.player(name)
        if found is not None:
            return found.shown
        return Player(0, name, False, "").initials  # not in the book yet: private until he opts in

    def stream_text(self, lang: str) -> tuple[tuple[int, tuple[int, int]], str]:
        """What an open page's stream sends: the live view and the book's version, made once per change (however
        many phones look)."""
        key = (self.live()[0], self.book.changes)
        cached = self._sent.get(lang)
        if cached is None or cached[0] != key:
            body = {"book": sum(key[1]), "live": self.live_view(lang)}
            cached = self._sent[lang] = (key, json.dumps(body, ensure_ascii=False))
        return cached

    def live_view(self, lang: str) -> dict[str, Any]:
        """Each table now: the cards of the trick in play, the slate, the seats as the pages may name them."""
        version, views = self.live()
        t = texts(lang)
        tables = []
        for view in views:
            names = view.get("seats", {})
            tables.append({"table": view.get("table", ""), "state": view.get("state"),
                           "seats": {seat.value: self.seat_name(names.get(seat.value), t) for seat in Seat}})
        return {"version": version, "tables": tables}

    # --- the frame ---------------------------------------------------------------------------------------------

    def frame(self, lang: str, title: str, body: str, page: str) -> str:
        t = texts(lang)
        nav = " ".join(
            f"<a href='{href}'{' aria-current=page' if key == page else ''}>{_ESC(t[key])}</a>"
            for key, href in (("live", "/"), ("evening", "/evening"), ("players", "/players"),
                              ("leaderboard", "/leaderboard")))
        langs = " ".join(f"<a href='?lang={code}' lang='{code}'>{code}</a>" for code in LANGUAGES)
        return (
            f"<!doctype html><html lang='{lang}'><head><meta charset='utf-8'>"
            "<meta name='viewport' content='width=device-width, initial-scale=1'>"
            f"<title>{_ESC(title)}</title><link rel='stylesheet' href='/static/book.css'>"
            "<script src='/static/book.js' defer></script></head>"
            f"<body data-page='{page}' data-texts='{_ESC(texts_json(lang), quote=True)}'>"
            f"<nav>{nav}<span class='langs'>{langs}</span></nav><main id='main'>{body}</main>"
            f"<footer><p>{_ESC(t['read_only'])} {_ESC(t['private_note'])}</p></footer></body></html>")

    # --- pages -------------------------------------------------------------------------------------------------

    def live_page(self, lang: str) -> str:
        t = texts(lang)
        body = (f"<h1>{_ESC(t['live'])}</h1><div id='live' class='live'><p class='meta'>{_ESC(t['waiting'])}</p>"
                "</div>")
        return self.frame(lang, t["live"], body, "live")

    def evening_page(self, lang: str, evening: str | None) -> str:
        t = texts(lang)
        day = evening or evening_of(time.time(), self.book.day_starts)
        title = t["evening_of"].format(date=day)
        names = self.shown()
        parts = [f"<h1>{_ESC(title)}</h1><p class='noprint'><button type='button' id='print'>"
                 f"{_ESC(t['print'])}</button></p>"]
        matches = self.book.matches_of_evening(day)
        if not matches:
            parts.append(f"<p>{_ESC(t['no_matches'])}</p>")
        for mid in matches:
            match = self.book.match(mid)
            if match is not None:
                parts.append(self._match_html(match, names, t))
        return self.frame(lang, title, "".join(parts), "evening")

    def _match_html(self, match: dict[str, Any], names: dict[int, str], t: dict[str, str]) -> str:
        def who(seat: str) -> str:
            player = match["seats"].get(seat)
            return t["guest"] if player is None else names.get(player, t["guest"])

        seats = " · ".join(f"{_ESC(t['seat_' + s.value])} {_ESC(who(s.value))}" for s in Seat)
        out = [f"<section class='match'><h2>{_ESC(t['match_n'].format(number=match['number'], table=match['table']))}"
               f"</h2><p class='seats'>{seats}</p>{self._slate_html(match['deals'], t)}"]
        for deal in match["deals"]:
            out.append(self._deal_html(deal, t))
        out.append("</section>")
        return "".join(out)

    def _slate_html(self, deals: list[dict[str, Any]], t: dict[str, str]) -> str:
        """The match's slate: each team's open lines after each deal (a team with none left won the match)."""
        if not deals:
            return ""
        head = "".join(f"<th class='num'>{int(deal['number'])}</th>" for deal in deals)
        rows = "".join(
            f"<tr><th>{_ESC(t['seat_' + team.seats[0].value])}+{_ESC(t['seat_' + team.seats[1].value])}</th>"
            + "".join(f"<td class='num'>{int(deal['slate'][team.value])}</td>" for deal in deals) + "</tr>"
            for team in Team)
        return (f"<div class='scroll'><table class='slate'><caption>{_ESC(t['slate_open'])}</caption>"
                f"<tr><th>{_ESC(t['deal'])}</th>{head}</tr>{rows}</table></div>")

    def _deal_html(self, deal: dict[str, Any], t: dict[str, str]) -> str:
        trump = "–" if deal["trump"] is None else _ESC({"S": "♠", "H": "♥", "D": "♦", "C": "♣"}[deal["trump"]])
        said = ", ".join(f"{t['seat_' + a['seat']]} {a['announcement'].replace('_', ' ')}"
                         for a in deal["announcements"])
        head = (f"<h3>{_ESC(t['deal_n'].format(number=deal['number']))}: {_ESC(t['trumps'])} {trump} "
                f"({_ESC(t['forehand'])} {_ESC(t['seat_' + deal['forehand']])})"
                f"{' · ' + _ESC(t['announced']) + ' ' + _ESC(said) if said else ''}</h3>")
        costs: dict[tuple[str, str], dict[str, Any]] = {}
        review = deal.get("review")
        if review is not None:
            costs = {(p["seat"], p["card"]): p for p in review["plays"]}
        rows = []
        for number, trick in enumerate(deal["tricks"], start=1):
            cells = []
            for play in trick["order"]:
                seat, _, card = play.partition(":")
                cost = costs.get((seat, card), {}).get("cost", 0)
                mark = f" <b class='cost'>−{int(cost)}</b>" if cost else ""
                cells.append(f"<td>{_ESC(t['seat_' + seat])} {card_html(card)}{mark}</td>")
            winner = "" if trick["winner"] is None else _ESC(t["seat_" + trick["winner"]])
            rows.append(f"<tr><td class='num'>{number}</td>{''.join(cells)}<td>→ {winner}</td>"
                        f"<td class='num'>{int(trick['points'])}</td></tr>")
        table = f"<table class='tricks'>{''.join(rows)}</table>" if rows else ""
        note = ""
        if deal["tricks"]:
            if review is None:
                note = f"<p class='meta'>{_ESC(t['not_reviewed'])}</p>"
            elif not any(p.get("cost") for p in review["plays"]):
                note = f"<p class='meta'>{_ESC(t['best_play'])}</p>"
        slate = deal["slate"]
        result = (f"<p>{_ESC(deal['result'])} · {_ESC(t['open_lines'].format(ns=slate['NS'], ew=slate['EW']))}"
                  "</p>")
        return f"<div class='deal'>{head}{table}{result}{note}</div>"

    def players_page(self, lang: str) -> str:
        t = texts(lang)
        names = self.shown()
        ratings = self.book.ratings()
        rows = "".join(
            f"<li><a href='/players/{p.id}'>{_ESC(names[p.id])}</a> "
            f"<span class='meta'>{ratings.get(p.id, (0, 0, 0, 0))[3]} {_ESC(t['deals'])}</span></li>"
            for p in sorted(self.book.players(), key=lambda p: names[p.id].casefold()))
        return self.frame(lang, t["players"], f"<h1>{_ESC(t['players'])}</h1><ul class='players'>{rows}</ul>",
                          "players")

    def player_page(self, lang: str, player: Player, viewer: Player | None) -> str:
        t = texts(lang)
        names = self.shown(viewer)
        title = names[player.id]
        today = evening_of(time.time(), self.book.day_starts)
        periods: list[tuple[str, Period]] = [(t["evening"], evening_period(today)),
                                             (t["season"], season_period(self.config.seasons, today)),
                                             (t["all_time"], ALL_TIME)]
        found = [(label, player_stats(self.book, player, period, min_together=self.config.min_together))
                 for label, period in periods]
        mu, sigma, _, rated = self.book.ratings().get(player.id, (0.0, 0.0, 0, 0))
        if rated >= self.config.min_deals:
            rating = f"{ordinal(mu, sigma):.1f} (± {sigma:.1f})"
        else:
            rating = t["not_yet"].format(deals=self.config.min_deals)
        head = "".join(f"<th class='num'>{_ESC(label)}</th>" for label, _ in found)
        rows = []

        def row(label: str, values: list[str]) -> None:
            rows.append(f"<tr><th>{_ESC(label)}</th>{''.join(f'<td class=num>{v}</td>' for v in values)}</tr>")

        def share(a: int, b: int) -> str:
            return f"{a}/{b}" + (f" ({100 * a // b}%)" if b else "")

        row(t["matches_won"], [share(s["matches"]["won"], s["matches"]["played"]) for _, s in found])
        row(t["deals_won"], [share(s["deals"]["won"], s["deals"]["played"]) for _, s in found])
        row(t["as_trump_team"], [share(s["trump_team"]["won"], s["trump_team"]["played"]) for _, s in found])
        row(t["as_defenders"], [share(s["defenders"]["won"], s["defenders"]["played"]) for _, s in found])
        symbols = {"S": "♠", "H": "♥", "D": "♦", "C": "♣", "by_hand": "✋"}
        row(t["trumps_named"], [" ".join(f"{symbols.get(k, '?')}{v['named']} ({v['won']})"
                                         for k, v in s["trumps_named"].items()) for _, s in found])
        row(t["announcements"], [" / ".join(f"{s['announced'].get(k, {}).get('announced', 0)} "
                                            f"({s['announced'].get(k, {}).get('won', 0)})"
                                            for k in ("matt", "konter", "konter_a_matt")) for _, s in found])
        row(t["kapos"], [f"{s['kapo']['made']} / {s['kapo']['conceded']}" for _, s in found])
        row(t["revokes"], [str(s["revokes"]) for _, s in found])
        row(t["lines_per_deal"], ["–" if s["lines"]["per_deal"] is None else f"{s['lines']['per_deal']:+.2f}"
                                  for _, s in found])
        row(t["points_lost"], ["–" if s["review"]["points_lost_per_deal"] is None else
                               f"{s['review']['points_lost']} ({s['review']['points_lost_per_deal']:.1f})"
                               for _, s in found])

        def named(entry: dict[str, Any] | None) -> str:
            if entry is None:
                return "–"
            return f"{_ESC(names.get(entry['player'], t['guest']))} ({entry['won']}/{entry['deals']})"

        row(t["best_partner"], [named(s["best_partner"]) for _, s in found])
        row(t["toughest"], [", ".join(named(o) for o in s["toughest_opponents"]) or "–" for _, s in found])
        exports = ""
        if viewer is not None and viewer.id == player.id:  # his own page: his games to take home
            own = f"/me/{self.book.token(player)}"
            exports = (f"<p class='exports'>{_ESC(t['take_home'])} <a href='{own}/games.csv' download>"
                       f"{_ESC(t['games_csv'])}</a> · <a href='{own}/records.zip' download>"
                       f"{_ESC(t['game_records'])}</a></p>")
        body = (f"<h1>{_ESC(title)}</h1><p>{_ESC(t['rating'])}: {_ESC(rating)}</p>{exports}"
                f"<div class='scroll'><table class='stats'><tr><th></th>{head}</tr>{''.join(rows)}</table></div>")
        return self.frame(lang, title, body, "players")

    def games_csv(self, player: Player) -> bytes:
        """His games as CSV, as ``tablepi players export`` writes them."""
        return player_csv(self.book, player).encode("utf-8")

    def records_zip(self, player: Player) -> bytes:
        """His newest :data:`MAX_RECORDS` game records in one ZIP, as ``tablepi players export --records`` writes
        them."""
        return records_zip(player_records(self.book, player, self.records(), newest=MAX_RECORDS))

    def leaderboard_page(self, lang: str) -> str:
        t = texts(lang)
        names = self.shown()
        rows = "".join(
            f"<tr><td class='num'>{r['rank']}</td><td><a href='/players/{r['player']}'>"
            f"{_ESC(names.get(r['player'], '?'))}</a></td><td class='num'>{r['rating']:.1f}</td>"
            f"<td class='num'>± {r['sigma']:.1f}</td><td class='num'>{r['deals']}</td></tr>"
            for r in leaderboard(self.book, min_deals=self.config.min_deals))
        note = t["rating_note"].format(deals=self.config.min_deals)
        body = (f"<h1>{_ESC(t['leaderboard'])}</h1><p class='meta'>{_ESC(note)}</p><table class='board'>"
                f"<tr><th>#</th><th>{_ESC(t['name'])}</th><th class='num'>{_ESC(t['rating'])}</th><th></th>"
                f"<th class='num'>{_ESC(t['deals'])}</th></tr>{rows}</table>")
        return self.frame(lang, t["leaderboard"], body, "leaderboard")


def make_pages(pages: Pages, default_language: str, *, stopping: Callable[[], bool] = lambda: False,
               max_streams: int = MAX_STREAMS) -> Starlette:
    """The ASGI app: GET only (a POST, PUT or DELETE is refused with 405 by the routing)."""
    slots = StreamSlots(max_streams)
    building = StreamSlots(EXPORTS_AT_ONCE, retry_after=10, what="exports")

    def answer(request: Request, text: str, status: int = 200) -> Response:
        response = HTMLResponse(text, status_code=status, headers=_HEADERS)
        if request.query_params.get("lang", "") in LANGUAGES:
            response.set_cookie(LANG_COOKIE, request.query_params["lang"], samesite="lax")
        return response

    def lang(request: Request) -> str:
        return language(request, default_language)

    async def run(function: Callable[..., Any], *args: Any) -> Any:
        return await asyncio.get_running_loop().run_in_executor(None, function, *args)

    async def live_page(request: Request) -> Response:
        return answer(request, pages.live_page(lang(request)))

    async def live_json(request: Request) -> Response:
        return JSONResponse(pages.live_view(lang(request)), headers=_HEADERS)

    async def evening(request: Request) -> Response:
        day = request.path_params.get("date")
        if day is not None and (len(day) != 10 or not day.replace("-", "").isdigit()):
            return PlainTextResponse("not a date", status_code=404, headers=_HEADERS)
        chosen = lang(request)
        return answer(request, await run(pages.cached, ("evening", chosen, day),
                                         lambda: pages.evening_page(chosen, day)))

    async def players(request: Request) -> Response:
        chosen = lang(request)
        return answer(request, await run(pages.cached, ("players", chosen), lambda: pages.players_page(chosen)))

    async def player(request: Request) -> Response:
        found = pages.book.player(int(request.path_params["id"]))
        if found is None:
            return PlainTextResponse("no such player", status_code=404, headers=_HEADERS)
        chosen = lang(request)
        return answer(request, await run(pages.cached, ("player", chosen, found.id),
                                         lambda: pages.player_page(chosen, found, None)))

    async def me(request: Request) -> Response:
        found = pages.book.player_by_token(str(request.path_params["token"])[:64])
        if found is None:
            return PlainTextResponse("no such page", status_code=404, headers=_HEADERS)
        chosen = lang(request)
        return answer(request, await run(pages.cached, ("me", chosen, found.id),
                                         lambda: pages.player_page(chosen, found, found)))

    def export(make: Callable[[Player], bytes], media: str, filename: str) -> Callable[[Request], Any]:
        """His own export, only by his own page's secret; built off the loop, a few at a time."""

        async def answer_export(request: Request) -> Response:
            found = pages.book.player_by_token(str(request.path_params["token"])[:64])
            if found is None:
                return PlainTextResponse("no such page", status_code=404, headers=_HEADERS)
            if not building.take():
                return PlainTextResponse("busy making other exports; try again shortly", status_code=503,
                                         headers={**_HEADERS, "Retry-After": str(building.retry_after)})
            try:
                body = await run(make, found)
            finally:
                building.give_back()
            return Response(body, media_type=media,
                            headers={**_HEADERS, "Content-Disposition": f"attachment; filename={filename}"})

        return answer_export

    async def board(request: Request) -> Response:
        chosen = lang(request)
        return answer(request, await run(pages.cached, ("leaderboard", chosen),
                                         lambda: pages.leaderboard_page(chosen)))

    async def static(request: Request) -> Response:
        name = request.path_params["name"]
        kinds = {"book.css": "text/css", "book.js": "text/javascript"}
        if name not in kinds:
            return PlainTextResponse("not found", status_code=404)
        return Response(_static(name), media_type=kinds[name],
                        headers={**_HEADERS, "Cache-Control": "max-age=3600"})

    async def events(request: Request) -> Response:
        pages.changes.attach()
        return event_stream(request, lambda: pages.stream_text(lang(request)), slots, stopping,
                            lambda: pages.changes.wait(CHANNEL))

    routes = [
        Route("/", live_page),
        Route("/live.json", live_json),
        Route("/events", events),
        Route("/evening", evening),
        Route("/evening/{date}", evening),
        Route("/players", players),
        Route("/players/{id:int}", player),
        Route("/me/{token}", me),
        Route("/me/{token}/games.csv", export(pages.games_csv, "text/csv; charset=utf-8", "konter-games.csv")),
        Route("/me/{token}/records.zip", export(pages.records_zip, "application/zip", "konter-records.zip")),
        Route("/leaderboard", board),
        Route("/static/{name}", static),
    ]
    return Starlette(routes=routes)

