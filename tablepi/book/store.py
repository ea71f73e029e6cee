"""The players' book: one SQLite file (``players.sqlite3`` beside the journal), filled from the journal's facts.

Tables (docs/players.md, "What is stored"):

- ``players``: each named player once (his name as first written, matched without case), whether his name may be
  shown on the pages (``public``: off until he opts in), his player tag when he has one.
- ``matches``: each match of a record (table, journal id, number), its wall-clock times, its bar evening, its
  deals as ``tablepi replay --json`` gives them (seat letters only, no names) with each card's review.
- ``seats``: who sat where in each match (a player, or NULL: a guest).
- ``deal_rows`` / ``match_rows``: one row per seat per deal / match from that seat's side (won, trump team, trumps
  named, announcements, Kapo, revokes, lines, cost of his cards), with his partner and opponents: what the
  statistics add up (:mod:`tablepi.book.stats`).
- ``ratings``: each player's rating after the matches so far (:mod:`tablepi.book.rating`), a cache that is
  recomputed from the matches in order whenever it could differ.
- ``forgotten``: a keyed digest of each forgotten name and when he was forgotten, so that a rebuild from the
  journal does not bring back the matches he asked to have forgotten (his later matches are a new start).

Everything except ``players.public`` and ``forgotten`` is derived from the journal and archive, and
:meth:`Book.rebuild` makes it again from them.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import secrets
import sqlite3
import threading
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tablepi.book.facts import MatchFacts
from tablepi.errors import TablepiError
from tablepi.rules.seats import Seat

log = logging.getLogger(__name__)

#: The book's schema version (``PRAGMA user_version``); a book of another version is rebuilt from the journal.
SCHEMA_VERSION = 2
#: A bar's evening runs past midnight: a match ended before this hour counts to the evening before.
DAY_STARTS = 6

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS players (
    id INTEGER PRIMARY KEY, name TEXT NOT NULL, folded TEXT NOT NULL UNIQUE, public INTEGER NOT NULL DEFAULT 0,
    uid TEXT NOT NULL DEFAULT '', since REAL NOT NULL);
CREATE TABLE IF NOT EXISTS matches (
    id INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE, tbl TEXT NOT NULL, journal TEXT NOT NULL,
    number INTEGER NOT NULL, started REAL NOT NULL, ended REAL NOT NULL, evening TEXT NOT NULL,
    finished INTEGER NOT NULL, winner TEXT, dealt INTEGER NOT NULL, deals TEXT NOT NULL, revokes TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS matches_order ON matches (ended, key);
CREATE INDEX IF NOT EXISTS matches_evening ON matches (evening);
CREATE TABLE IF NOT EXISTS seats (
    match INTEGER NOT NULL REFERENCES matches(id) ON DELETE CASCADE, seat TEXT NOT NULL, player INTEGER,
    PRIMARY KEY (match, seat));
CREATE INDEX IF NOT EXISTS seats_player ON seats (player);
CREATE TABLE IF NOT EXISTS deal_rows (
    match INTEGER NOT NULL REFERENCES matches(id) ON DELETE CASCADE, deal INTEGER NOT NULL, seat TEXT NOT NULL,
    player INTEGER, partner INTEGER, opp1 INTEGER, opp2 INTEGER, evening TEXT NOT NULL,
    trump_team INTEGER NOT NULL, won INTEGER NOT NULL, lost INTEGER NOT NULL, named TEXT, announced TEXT,
    kapo_made INTEGER NOT NULL, kapo_conceded INTEGER NOT NULL, revokes INTEGER NOT NULL, lines INTEGER NOT NULL,
    reviewed INTEGER NOT NULL, cost INTEGER, cost_lines REAL, lines_lost REAL, luck REAL,
    PRIMARY KEY (match, deal, seat));
CREATE INDEX IF NOT EXISTS deal_rows_player ON deal_rows (player, evening);
CREATE TABLE IF NOT EXISTS match_rows (
    match INTEGER NOT NULL REFERENCES matches(id) ON DELETE CASCADE, seat TEXT NOT NULL,
    player INTEGER, partner INTEGER, opp1 INTEGER, opp2 INTEGER, evening TEXT NOT NULL, ended REAL NOT NULL,
    finished INTEGER NOT NULL, won INTEGER NOT NULL, deals INTEGER NOT NULL, PRIMARY KEY (match, seat));
CREATE INDEX IF NOT EXISTS match_rows_player ON match_rows (player, evening);
CREATE TABLE IF NOT EXISTS ratings (
    player INTEGER PRIMARY KEY, mu REAL NOT NULL, sigma REAL NOT NULL, matches INTEGER NOT NULL,
    deals INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS forgotten (digest TEXT NOT NULL, until REAL NOT NULL);
"""

_PLAYER_COLUMNS = ("player", "partner", "opp1", "opp2")


class BookError(TablepiError, ValueError):
    """A request the book cannot do (an unknown player): one line for the command line."""


@dataclass(frozen=True)
class Player:
    id: int
    name: str
    public: bool
    uid: str

    @property
    def initials(self) -> str:
        """What the pages show of a player who has not opted in: the first letter of each word, "J. M."."""
        return " ".join(word[0] + "." for word in self.name.split()[:3]) or "?"

    @property
    def shown(self) -> str:
        return self.name if self.public else self.initials


def evening_of(when: float, day_starts: int = DAY_STARTS) -> str:
    """The bar evening (local date, ``YYYY-MM-DD``) of a wall time: before ``day_starts`` o'clock it is still
    the evening before."""
    return time.strftime("%Y-%m-%d", time.localtime(when - day_starts * 3600))


class Checkpoints:
    """The book's WAL checkpoints, on a thread and connection of their own: SQLite's automatic checkpoint runs in
    the commit that crosses its threshold, and its copy and fsync made one added match in a hundred wait ten times
    longer than the others. Here a checkpoint runs after writes, at most once a second, off the writer's path."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._wanted = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def written(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="book-checkpoints", daemon=True)
            self._thread.start()
        self._wanted.set()

    def _run(self) -> None:
        db = sqlite3.connect(str(self.path), check_same_thread=False)
        try:
            while True:
                self._wanted.wait()
                if self._stop.is_set():
                    return
                self._wanted.clear()
                try:
                    db.execute("PRAGMA wal_checkpoint(PASSIVE)")
                except sqlite3.Error as err:  # busy or gone: the next write asks again
                    log.debug("book checkpoint: %s", err)
                if self._stop.wait(1.0):
                    return
        finally:
            db.close()

    def close(self) -> None:
        if self._thread is not None:
            self._stop.set()
            self._wanted.set()
            self._thread.join()
            self._thread = None


class Book:
    """The players' book. Thread-safe (one connection, one lock): the app's worker writes, the pages read."""

    def __init__(self, path: Path | str, *, day_starts: int = DAY_STARTS) -> None:
        self.path = Path(path)
        self.day_starts = day_starts
        if str(path) != ":memory:":
            self.path.parent.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
        self.lock = threading.RLock()
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.execute("PRAGMA foreign_keys=ON")
        self.db.execute("PRAGMA wal_autocheckpoint=0")  # the checkpoints' own thread does it (Checkpoints)
        self._checkpoints = None if str(path) == ":memory:" else Checkpoints(self.path)
        version = self.db.execute("PRAGMA user_version").fetchone()[0]
        if version not in (0, SCHEMA_VERSION):
            self._drop_derived()
        self.db.executescript(_SCHEMA)
        self.db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        found = self.db.execute("SELECT value FROM meta WHERE key='secret'").fetchone()
        if found is None:
            self.db.execute("INSERT INTO meta VALUES ('secret', ?)", (secrets.token_hex(32),))
            found = self.db.execute("SELECT value FROM meta WHERE key='secret'").fetchone()
        self._secret = bytes.fromhex(found[0])
        self.version = 0  # counts changes: pages cache on it

    @property
    def changes(self) -> tuple[int, int]:
        """Changes a reader must see: this process's writes, and another's (``tablepi players private NAME``
        while the table runs: SQLite's data_version moves when another connection commits)."""
        with self.lock:
            return self.version, int(self.db.execute("PRAGMA data_version").fetchone()[0])

    def close(self) -> None:
        if self._checkpoints is not None:
            self._checkpoints.close()
        with self.lock:
            self.db.close()  # the last connection to close checkpoints what is left

    def __enter__(self) -> Book:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        with self.lock:
            self.db.execute("BEGIN IMMEDIATE")
            try:
                yield self.db
                self.db.execute("COMMIT")
            except BaseException:
                self.db.execute("ROLLBACK")
                raise
            self.version += 1
        if self._checkpoints is not None:
            self._checkpoints.written()

    def _drop_derived(self) -> None:
        for name in ("deal_rows", "match_rows", "seats", "ratings", "matches"):
            self.db.execute(f"DROP TABLE IF EXISTS {name}")

    # --- players ---------------------------------------------------------------------------------------------

    def digest(self, name: str) -> str:
        """A keyed digest of a name (for ``forgotten`` and the private links): the name itself is not kept."""
        return hmac.new(self._secret, name.casefold().encode("utf-8"), hashlib.sha256).hexdigest()

    def token(self, player: Player) -> str:
        """The secret part of a player's own page address (``/me/<token>``): only his QR code or link opens it."""
        return self.digest("me:" + player.name)[:24]

    def player_by_token(self, token: str) -> Player | None:
        return next((p for p in self.players() if hmac.compare_digest(self.token(p), token)), None)

    def players(self) -> list[Player]:
        with self.lock:
            rows = self.db.execute("SELECT id, name, public, uid FROM players ORDER BY folded").fetchall()
        return [Player(i, n, bool(p), u) for i, n, p, u in rows]

    def player(self, name_or_id: str | int) -> Player | None:
        with self.lock:
            if isinstance(name_or_id, int):
                row = self.db.execute("SELECT id, name, public, uid FROM players WHERE id=?", (name_or_id,)).fetchone()
            else:
                row = self.db.execute("SELECT id, name, public, uid FROM players WHERE folded=?",
                                      (name_or_id.casefold(),)).fetchone()
        return None if row is None else Player(row[0], row[1], bool(row[2]), row[3])

    def _need(self, name: str) -> Player:
        found = self.player(name)
        if found is None:
            raise BookError(f"no player {name!r} in the book (tablepi players lists them)")
        return found

    def set_public(self, name: str, public: bool) -> Player:
        """Show his name on the pages (``public``) or only his initials. A player not in the book yet is added (he
        opts in as he names himself, before his first match is over)."""
        with self._transaction() as db:
            self._player_id(db, name, "", time.time())
            db.execute("UPDATE players SET public=? WHERE folded=?", (int(public), name.casefold()))
        return self._need(name)

    def forget(self, name: str) -> int:
        """Remove a player from the book (and so from every page): his seats become a guest's, his name and rating
        are deleted; a rebuild from the journal will not bring those matches back to his name. Returns the number
        of matches he was in."""
        player = self._need(name)
        with self._transaction() as db:
            count = db.execute("SELECT COUNT(*) FROM seats WHERE player=?", (player.id,)).fetchone()[0]
            for table in ("deal_rows", "match_rows"):
                for column in _PLAYER_COLUMNS:
                    db.execute(f"UPDATE {table} SET {column}=NULL WHERE {column}=?", (player.id,))
            db.execute("UPDATE seats SET player=NULL WHERE player=?", (player.id,))
            db.execute("DELETE FROM players WHERE id=?", (player.id,))
            db.execute("INSERT INTO forgotten VALUES (?, ?)", (self.digest(player.name), time.time()))
            self._rerate(db)
        return int(count)

    def _forgotten_until(self, db: sqlite3.Connection, name: str) -> float:
        row = db.execute("SELECT MAX(until) FROM forgotten WHERE digest=?", (self.digest(name),)).fetchone()
        return float(row[0]) if row and row[0] is not None else 0.0

    def _player_id(self, db: sqlite3.Connection, name: str, uid: str, when: float) -> int:
        folded = name.casefold()
        row = db.execute("SELECT id, uid FROM players WHERE folded=?", (folded,)).fetchone()
        if row is not None:
            if uid and uid != row[1]:
                db.execute("UPDATE players SET uid=? WHERE id=?", (uid, row[0]))
            return int(row[0])
        cur = db.execute("INSERT INTO players (name, folded, uid, since) VALUES (?, ?, ?, ?)",
                         (name, folded, uid, when))
        return int(cur.lastrowid or 0)

    # --- matches ---------------------------------------------------------------------------------------------

    def has(self, key: str) -> bool:
        with self.lock:
            return self.db.execute("SELECT 1 FROM matches WHERE key=?", (key,)).fetchone() is not None

    def add(self, facts: Iterable[MatchFacts]) -> int:
        """Add matches (a match already in the book is replaced: the same record read again changes nothing).
        Ratings follow: updated for a match played after every other, recomputed in order otherwise."""
        with self.lock:  # a reader sees the match and its players' ratings together
            return self._add(facts)

    def _add(self, facts: Iterable[MatchFacts]) -> int:
        """One transaction: the matches, their rows and their players' ratings together."""
        added: list[int] = []
        in_order = True
        with self._transaction() as db:
            # The ratings' order is (ended, key): a match that sorts before one already rated means all again.
            found = db.execute("SELECT ended, key FROM matches ORDER BY ended DESC, key DESC LIMIT 1").fetchone()
            latest: tuple[float, str] | None = None if found is None else (found[0], found[1])
            for match in facts:
                place = (match.ended, match.key)
                if latest is not None and place < latest:
                    in_order = False
                replaced = db.execute("DELETE FROM matches WHERE key=?", (match.key,)).rowcount
                in_order = in_order and not replaced
                added.append(self._insert(db, match))
                latest = place if latest is None else max(latest, place)
            if added:
                self._rerate(db, only=added if in_order else None)
        return len(added)

    def _insert(self, db: sqlite3.Connection, match: MatchFacts) -> int:
        evening = evening_of(match.ended, self.day_starts)
        cur = db.execute(
            "INSERT INTO matches (key, tbl, journal, number, started, ended, evening, finished, winner, dealt, deals, "
            "revokes) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (match.key, match.table, match.journal, match.number, match.started, match.ended, evening,
             int(match.finished), match.winner, len(match.deals), json.dumps(match.deals, ensure_ascii=False),
             json.dumps(match.revokes)))
        mid = int(cur.lastrowid or 0)
        ids: dict[str, int | None] = {}
        for seat in Seat:
            name = match.names.get(seat.value)
            if name is None or match.ended <= self._forgotten_until(db, name):
                ids[seat.value] = None
            else:
                ids[seat.value] = self._player_id(db, name, match.uids.get(seat.value, ""), match.ended)
        db.executemany("INSERT INTO seats VALUES (?, ?, ?)", [(mid, s, p) for s, p in ids.items()])
        revokes: dict[tuple[int, str], int] = {}
        for number, who in match.revokes:
            revokes[(number, who)] = revokes.get((number, who), 0) + 1
        rows: list[tuple[Any, ...]] = []
        for deal in match.deals:
            rows.extend(_deal_rows(mid, evening, deal, ids, revokes))
        db.executemany(f"INSERT INTO deal_rows VALUES ({', '.join('?' * 22)})", rows)
        match_rows = []
        for at, team, _, partner, (o1, o2) in _SIDES:
            match_rows.append((mid, at, ids[at], ids[partner], ids[o1], ids[o2], evening, match.ended,
                               int(match.finished), int(match.winner == team), len(match.deals)))
        db.executemany("INSERT INTO match_rows VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", match_rows)
        return mid

    def match_count(self) -> int:
        with self.lock:
            return int(self.db.execute("SELECT COUNT(*) FROM matches").fetchone()[0])

    def matches(self, only: list[int] | None = None) -> list[tuple[int, str, float, str | None,
                                                                   dict[str, int | None], int]]:
        """Every finished match (or those of ``only``) in order: (id, key, ended, winner, seat -> player id,
        deals) — what the rating reads."""
        where, args = ("", []) if only is None else (f" AND id IN ({', '.join('?' * len(only))})", list(only))
        with self.lock:
            rows = self.db.execute(
                f"SELECT id, key, ended, winner, dealt FROM matches WHERE finished=1{where} ORDER BY ended, key",
                args).fetchall()
            seats: dict[int, dict[str, int | None]] = {}
            seat_where = "" if only is None else f" WHERE match IN ({', '.join('?' * len(only))})"
            for mid, seat, player in self.db.execute(f"SELECT match, seat, player FROM seats{seat_where}", args):
                seats.setdefault(mid, {})[seat] = player
        return [(i, k, e, w, seats.get(i, {}), n) for i, k, e, w, n in rows]

    def match(self, mid: int) -> dict[str, Any] | None:
        with self.lock:
            row = self.db.execute(
                "SELECT id, key, tbl, journal, number, started, ended, evening, finished, winner, deals, revokes "
                "FROM matches WHERE id=?", (mid,)).fetchone()
            if row is None:
                return None
            seats = dict(self.db.execute("SELECT seat, player FROM seats WHERE match=?", (mid,)).fetchall())
        keys = ("id", "key", "table", "journal", "number", "started", "ended", "evening", "finished", "winner")
        out = dict(zip(keys, row[:10], strict=True))
        out["deals"] = json.loads(row[10])
        out["revokes"] = json.loads(row[11])
        out["seats"] = seats
        return out

    def matches_of_evening(self, evening: str, table: str | None = None) -> list[int]:
        with self.lock:
            if table is None:
                rows = self.db.execute("SELECT id FROM matches WHERE evening=? ORDER BY ended, key", (evening,))
            else:
                rows = self.db.execute("SELECT id FROM matches WHERE evening=? AND tbl=? ORDER BY ended, key",
                                       (evening, table))
            return [r[0] for r in rows.fetchall()]

    def matches_of_player(self, player: int) -> list[int]:
        with self.lock:
            return [r[0] for r in self.db.execute(
                "SELECT m.id FROM matches m JOIN seats s ON s.match=m.id WHERE s.player=? ORDER BY m.ended, m.key",
                (player,)).fetchall()]

    def evenings(self) -> list[str]:
        with self.lock:
            return [r[0] for r in self.db.execute("SELECT DISTINCT evening FROM matches ORDER BY evening DESC")]

    def clear_derived(self) -> None:
        """Every match, seat, row and rating deleted (players and their choices kept): before a rebuild."""
        with self._transaction() as db:
            for table in ("deal_rows", "match_rows", "seats", "ratings", "matches"):
                db.execute(f"DELETE FROM {table}")

    # --- ratings ---------------------------------------------------------------------------------------------

    def _rerate(self, db: sqlite3.Connection, only: list[int] | None = None) -> None:
        """In a transaction: the ratings after the matches ``only`` (played after every other), or all of them
        again in order."""
        from tablepi.book.rating import rate_matches

        if only is not None:
            matches = self.matches(only)
            players = {p for m in matches for p in m[4].values() if p is not None}
            marks = ", ".join("?" * len(players))
            start = {p: (mu, sigma, m, d) for p, mu, sigma, m, d in db.execute(
                f"SELECT player, mu, sigma, matches, deals FROM ratings WHERE player IN ({marks})",
                list(players))}
            table = rate_matches(matches, start)
        else:
            table = rate_matches(self.matches(), {})
            db.execute("DELETE FROM ratings")
        db.executemany("INSERT OR REPLACE INTO ratings VALUES (?, ?, ?, ?, ?)",
                       [(p, mu, sigma, m, d) for p, (mu, sigma, m, d) in table.items()])

    def ratings(self) -> dict[int, tuple[float, float, int, int]]:
        """player id -> (mu, sigma, matches rated, deals in them)."""
        with self.lock:
            return {p: (mu, s, m, d) for p, mu, s, m, d in
                    self.db.execute("SELECT player, mu, sigma, matches, deals FROM ratings")}


#: Each seat as the rows need it, worked out once: (seat, its team, the other team, partner, the two opponents).
_SIDES = tuple((seat.value, seat.team.value, seat.team.other.value, seat.partner.value,
                tuple(s.value for s in Seat if s not in (seat, seat.partner))) for seat in Seat)
_TEAM_OF = {seat.value: seat.team.value for seat in Seat}


_RANK = {"matt": 1, "konter": 2, "konter_a_matt": 3}


def _deal_rows(mid: int, evening: str, deal: dict[str, Any], ids: dict[str, int | None],
               revokes: dict[tuple[int, str], int]) -> Iterator[tuple[Any, ...]]:
    """The deal from each seat's side (what the statistics add up)."""
    trump_team = _TEAM_OF[deal["forehand"]]
    review = deal.get("review")
    costs: dict[str, list[float]] = {}
    lines_cost: dict[str, list[float]] = {}
    if review is not None:
        for play in review["plays"]:
            costs.setdefault(play["seat"], []).append(play.get("cost", 0))
            if play.get("cost_lines") is not None:
                lines_cost.setdefault(play["seat"], []).append(play["cost_lines"])
    seat_figures = review.get("lines_lost", {}) if isinstance(review, dict) else {}
    luck = review.get("luck", {}) if isinstance(review, dict) else {}
    for seat, mine, theirs, partner, (o1, o2) in _SIDES:
        said = [a["announcement"] for a in deal["announcements"] if a["seat"] == seat]
        announced = None
        if said:
            kinds = set(said)
            announced = "konter_a_matt" if {"matt", "konter"} <= kinds else max(kinds, key=_RANK.__getitem__)
        won = deal["winner"] == mine
        lost = deal["winner"] == theirs
        lines = (deal["struck"][mine] + deal["added"][theirs]) - (deal["struck"][theirs] + deal["added"][mine])
        yield (
            mid, deal["number"], seat, ids[seat], ids[partner], ids[o1], ids[o2], evening,
            int(mine == trump_team), int(won), int(lost),
            (deal["trump"] or "") if deal["forehand"] == seat else None,
            announced,
            int(bool(deal["kapo"]) and won), int(bool(deal["kapo"]) and lost),
            revokes.get((deal["number"], seat), 0), lines,
            int(review is not None),
            None if review is None else int(sum(costs.get(seat, ()))),
            sum(lines_cost[seat]) if seat in lines_cost else None,
            seat_figures.get(seat) if isinstance(seat_figures, dict) else None,
            luck.get(seat) if isinstance(luck, dict) else None,
        )
