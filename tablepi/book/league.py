"""``tablepi league CONFIG``: one players' book for a bar of several tables, fed by every table over MQTT.

The tournament server's own code does the work (:class:`~tablepi.tournament.server.TournamentServer`: the
broker's persistent session, the store of every message, each table's journals rebuilt through the table's code);
the league adds what a season needs: every finished match of every table goes into one book
(:mod:`tablepi.book.store`), so statistics and ratings span all the bar's tables, and the players' pages
(:mod:`tablepi.book.pages`) are served from it. A league draws no rounds and seats nobody: the players sit where
they like, as at any bar table.

The configuration (TOML)::

    [league]
    name = "Café beim Jang"
    tables = ["1", "2", "3"]        # the bar's tables (their feed's table ids)
    store = "league.sqlite3"        # every message received (the tournament server's store)
    book = "players.sqlite3"

    [broker]                        # as for a tournament (docs/tournament.md)
    host = "127.0.0.1"
    password_file = "/etc/tablepi/league-password"

    [web]
    host = "0.0.0.0"
    port = 8080
    language = "lb"

    [players]                       # as in a table's configuration (docs/players.md)
    min_deals = 60
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tablepi.book.config import BookConfig
from tablepi.book.facts import match_facts
from tablepi.book.fill import CHANNEL
from tablepi.book.store import Book
from tablepi.display.i18n import check_language
from tablepi.errors import ConfigError, TablepiError
from tablepi.feed.broker import SERVER_USER
from tablepi.feed.config import NAME, FeedConfig
from tablepi.feed.messages import summary
from tablepi.journal.record import Record
from tablepi.safeinput import clean_text, load_toml, shown
from tablepi.tournament.config import TournamentConfig, WebConfig
from tablepi.tournament.server import TournamentServer


@dataclass(frozen=True)
class LeagueConfig:
    server: TournamentConfig  # the tournament server's part: name, tables, store, broker, web
    book: Path
    players: BookConfig


def load_league_config(path: Path) -> LeagueConfig:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(f"{path}: cannot read the league's configuration: {error}", path=str(path)) from None
    try:
        return parse_league_config(load_toml(text), path)
    except ConfigError as error:
        raise ConfigError(clean_text(f"{path}: {error}"), key=error.key, path=str(path)) from None
    except (ValueError, TablepiError) as error:
        raise ConfigError(clean_text(f"{path}: {error}"), path=str(path)) from None


def parse_league_config(data: dict[str, Any], source: Path) -> LeagueConfig:
    base = source.resolve().parent
    unknown = sorted(set(data) - {"league", "broker", "web", "players"})
    if unknown:
        raise ConfigError.setting(f"[{unknown[0]}]", "unknown section (known: league, broker, web, players)")
    league = _section(data, "league")
    extra = sorted(set(league) - {"name", "tables", "store", "book"})
    if extra:
        raise ConfigError.setting(f"league.{extra[0]}", "unknown setting (known: book, name, store, tables)")
    tables = league.get("tables", [])
    if not isinstance(tables, list) or not tables or not all(isinstance(t, str) and NAME.fullmatch(t)
                                                             for t in tables):
        raise ConfigError.setting("league.tables",
                                  f"expected the bar's table ids, such as [\"1\", \"2\"], got {shown(tables)}")
    files = {}
    for key, default in (("store", "league.sqlite3"), ("book", "players.sqlite3")):
        value = league.get(key, default)
        if not isinstance(value, str) or not value:
            raise ConfigError.setting(f"league.{key}", f"expected a file name, got {shown(value)}")
        files[key] = base / Path(value).expanduser()
    broker = dict(_section(data, "broker"))
    broker.setdefault("username", SERVER_USER)
    web = dict(_section(data, "web"))
    extra = sorted(set(web) - {"host", "port", "language"})
    if extra:
        raise ConfigError.setting(f"web.{extra[0]}", "unknown setting (known: host, language, port)")
    language = check_language(web.get("language", "lb"), "web.language")
    port = web.get("port", 8080)
    if isinstance(port, bool) or not isinstance(port, int) or not 0 <= port <= 65535:
        raise ConfigError.setting("web.port", f"expected a port number, got {shown(port)}")
    name = league.get("name", "Konter a Matt")
    server = TournamentConfig(name=str(name), store=files["store"], tables=tuple(tables),
                              broker=FeedConfig.from_mapping(broker, base, "broker"),
                              web=WebConfig(str(web.get("host", "127.0.0.1")), port, language=language),
                              source=source)
    return LeagueConfig(server, files["book"], BookConfig.from_mapping(_section(data, "players"), base))


def _section(data: dict[str, Any], name: str) -> dict[str, Any]:
    value = data.get(name, {})
    if not isinstance(value, dict):
        raise ConfigError.setting(f"[{name}]", f"expected a table of settings, got {shown(value)}")
    return value


class LeagueServer(TournamentServer):
    """The tournament server that also keeps the bar's book: each match a table finishes goes into it."""

    def __init__(self, config: TournamentConfig, book: Book, *, review: bool = True) -> None:
        self.book = book
        self.review = review
        self._booked: set[str] = set()
        self._live: tuple[tuple[tuple[str, str, int], ...], tuple[int, list[dict[str, Any]]]] = ((), (0, []))
        super().__init__(config)

    def _load(self) -> None:
        super()._load()
        self._to_book()

    def receive(self, batch: list[tuple[Any, ...]]) -> None:
        super().receive(batch)
        with self.lock:
            self._to_book()
        self.hub.changes.changed(CHANNEL)  # the live view (and maybe the book): the pages' streams look

    def _to_book(self) -> None:
        """Every match won at any table and not in the book yet, with its players, from the table's events."""
        for table, feed in self.feeds.items():
            for journal in feed.journals.values():
                if journal.header is None:
                    continue
                for match in journal.matches:
                    key = f"{table}:{journal.jid}:{match.number}"
                    if not match.over or key in self._booked:
                        continue
                    self._booked.add(key)
                    if self.book.has(key):
                        continue
                    facts = match_facts(journal.header, journal.events, table=table, journal=journal.jid,
                                        ended=feed.last_event or time.time(), finished_only=True,
                                        review=self.review)
                    self.book.add([f for f in facts if f.number == match.number])

    def record(self, table: str, journal: str) -> Record | None:
        """A table's journal as its game record, as the table's archive would give it (the players' exports,
        :mod:`tablepi.book.export`): not while a match in it is in play (its hands are hidden until it is over);
        a journal the table has moved on from gives what it holds."""
        with self.lock:
            feed = self.feeds.get(table)
            found = None if feed is None else feed.journals.get(journal)
            if feed is None or found is None or found.header is None or not found.matches:
                return None
            if not found.matches[-1].over and found is feed.latest():
                return None
            return Record(found.header, tuple(found.events))

    def live_now(self) -> tuple[int, list[dict[str, Any]]]:
        """Every table of the bar as the phones see it, in the configuration's order (a table not heard from yet:
        no state); a new version only when a table moved."""
        with self.lock:
            seen: list[tuple[str, str, int]] = []
            views: list[dict[str, Any]] = []
            for table in self.config.tables:
                feed = self.feeds.get(table)
                journal = None if feed is None else feed.latest()
                if journal is None or journal.state is None:
                    seen.append((table, "", 0))
                    views.append({"table": table, "state": None, "seats": {}})
                    continue
                seen.append((table, journal.jid, journal.applied))
                state = journal.state
                views.append({"table": table, "state": summary(state),
                              "seats": {seat.value: name for seat, name in state.names}})
            key = tuple(seen)
            if key != self._live[0]:
                self._live = (key, (self._live[1][0] + 1, views))
            return self._live[1]
