"""The tournament server: the broker in, the store, the tables rebuilt, standings and seatings, the director.

Threads: paho's network thread only puts received messages on a queue; one worker thread stores them (one
transaction per batch), acknowledges them to the broker only once stored (manual acks: a server killed before
that gets them again), applies them to the tables and refreshes what the pages show (:class:`Hub`). The web
app's requests read the hub and call the director's methods, which take the same lock as the worker.
"""

from __future__ import annotations

import json
import logging
import queue
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any

from tablepi.feed.client import make_client, session_properties
from tablepi.feed.messages import (
    FeedError,
    Seating,
    announce_topic,
    decode,
    encode,
    seating_topic,
    summary,
    table_of,
)
from tablepi.rules.seats import Team
from tablepi.tournament.config import Entrants, TournamentConfig
from tablepi.tournament.replay import TableFeed
from tablepi.tournament.seating import (
    History,
    TableSeating,
    first_round_pairs,
    first_round_players,
    swiss_pairs,
    swiss_players,
)
from tablepi.tournament.standings import Adjustment, Score, Standing, TableRound, csv_text, standings, table_scores
from tablepi.tournament.store import Store

log = logging.getLogger(__name__)

#: The broker keeps the server's session (its subscriptions and what arrives meanwhile) this long while it is down.
SESSION_SECONDS = 7 * 24 * 3600
#: Each table's live view is refreshed at most this often (seconds).
TABLE_INTERVAL = 0.25
#: How long the overlay's delayed view reaches back, at most (seconds beyond the configured delay).
HISTORY_SLACK = 60.0


class TournamentError(Exception):
    """A director's request that cannot be done now (the round is not finished, an unknown entrant)."""


class Hub:
    """What the pages show, per channel: the latest JSON text and its version; a short history for the overlay."""

    def __init__(self, keep: float = 90.0) -> None:
        self._lock = threading.Lock()
        self._data: dict[str, tuple[int, str]] = {}
        self._history: dict[str, deque[tuple[float, str]]] = {}
        self.keep = keep

    def put(self, channel: str, text: str, now: float | None = None) -> None:
        with self._lock:
            version, old = self._data.get(channel, (0, ""))
            if old == text:
                return
            self._data[channel] = (version + 1, text)
            if channel.startswith("table/"):
                history = self._history.setdefault(channel, deque())
                stamp = time.time() if now is None else now
                history.append((stamp, text))
                while history and history[0][0] < stamp - self.keep:
                    if len(history) == 1:
                        break
                    history.popleft()

    def get(self, channel: str) -> tuple[int, str]:
        with self._lock:
            return self._data.get(channel, (0, "{}"))

    def as_of(self, channel: str, when: float) -> tuple[float, str]:
        """The text the channel had at wall time ``when`` (the overlay's delay); (0, "{}") before anything."""
        with self._lock:
            found: tuple[float, str] = (0.0, "{}")
            for stamp, text in self._history.get(channel, ()):
                if stamp > when:
                    break
                found = (stamp, text)
            return found


class TournamentServer:
    def __init__(self, config: TournamentConfig, *, clock: Callable[[], float] = time.time) -> None:
        self.config = config
        self.clock = clock
        self.store = Store(config.store)
        self.hub = Hub(keep=config.web.overlay_delay + HISTORY_SLACK)
        self.feeds: dict[str, TableFeed] = {}
        self.rounds: list[list[TableSeating]] = []
        self.audit: list[dict[str, Any]] = []
        self._views: dict[str, dict[str, Any]] = {}  # each table's live view, as last published
        self.lock = threading.RLock()
        self.client: Any = None
        self.received = 0
        self.applied = 0
        self.duplicates = 0
        self._queue: queue.SimpleQueue[tuple[Any, ...]] = queue.SimpleQueue()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._director_sent = 0.0
        self._dirty_tables: set[str] = set()
        self._tables_sent = 0.0
        self._load()

    # --- start, stop -------------------------------------------------------------------------------------------

    def _load(self) -> None:
        """Everything from the store: rounds, the director's acts, every message (replayed)."""
        for _, seating, _, _ in self.store.rounds():
            self.rounds.append([TableSeating.from_json(t) for t in seating])
        self.audit = self.store.audit_log()
        for table, message, received in self.store.messages():
            self._feed(table).receive(message, received)
        self._publish_all()

    def start(self) -> TournamentServer:
        """Connect to the broker (persistent session) and start the worker."""
        broker = self.config.broker
        self.client = make_client(broker, f"tablepi-tournament-{broker.user}", manual_ack=True)
        self.client.on_connect = self._on_connect
        self.client.on_message = self._on_message
        self.client.connect_async(broker.host, broker.port, broker.keepalive, clean_start=False,
                                  properties=session_properties(SESSION_SECONDS))
        self.client.loop_start()
        self._thread = threading.Thread(target=self._run, name="tournament", daemon=True)
        self._thread.start()
        return self

    def close(self) -> None:
        if self._stop.is_set():
            return
        self._stop.set()
        if self._thread is not None:
            self._thread.join(5.0)
        if self.client is not None:
            self.client.disconnect()
            self.client.loop_stop()
        self.store.close()

    def __enter__(self) -> TournamentServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- the broker side ---------------------------------------------------------------------------------------

    def _on_connect(self, client: Any, userdata: Any, flags: Any, reason: Any, properties: Any = None) -> None:
        if getattr(reason, "is_failure", False):
            log.error("tournament: the broker refused the connection: %s", reason)
            return
        prefix = self.config.broker.prefix
        client.subscribe([(f"{prefix}/tables/+/events", 1), (f"{prefix}/tables/+/status", 1)])
        log.info("tournament: connected to the broker (session present: %s)",
                 getattr(flags, "session_present", "?"))

    def _on_message(self, client: Any, userdata: Any, message: Any) -> None:
        self._queue.put((message.topic, message.payload, message.mid, message.qos, self.clock()))

    def _run(self) -> None:
        while not self._stop.is_set():
            batch: list[tuple[Any, ...]] = []
            try:
                batch.append(self._queue.get(timeout=0.2))
                deadline = time.monotonic() + 0.02
                while len(batch) < 500 and time.monotonic() < deadline:
                    batch.append(self._queue.get_nowait())
            except queue.Empty:
                pass
            try:
                if batch:
                    self.receive(batch)
                    for _, _, mid, qos, _ in batch:
                        if qos > 0:
                            self.client.ack(mid, qos)
                else:
                    with self.lock:
                        self._flush_tables()
                        if self.clock() - self._director_sent >= 2.0:
                            self._publish_director()
            except Exception:
                log.exception("tournament: error while handling %d messages", len(batch))

    def receive(self, batch: list[tuple[Any, ...]]) -> None:
        """Store and apply ``(topic, payload, mid, qos, received)`` items (the worker; tests call it directly)."""
        prefix = self.config.broker.prefix
        rows: list[tuple[str, str, int, str, float]] = []
        decoded: list[tuple[str, dict[str, Any], float]] = []
        statuses: list[tuple[str, bool, float]] = []
        for topic, payload, _, _, now in batch:
            where = table_of(topic, prefix)
            if where is None:
                continue
            try:
                obj = decode(payload)
            except FeedError as error:
                log.warning("tournament: ignored a message on %s: %s", topic, error)
                continue
            table, kind = where
            if kind == "status":
                statuses.append((table, bool(obj.get("online")), now))
                continue
            if kind != "events" or obj.get("table") != table:
                continue  # a table speaks only for itself (the ACL makes sure of it too)
            seq = obj.get("seq")
            if isinstance(seq, bool) or not isinstance(seq, int) or not isinstance(obj.get("journal"), str):
                continue
            rows.append((table, obj["journal"], seq, payload.decode("utf-8"), now))
            decoded.append((table, obj, now))
        self.received += len(batch)
        new = self.store.add_messages(rows) if rows else []
        with self.lock:
            changed: set[str] = set()
            standings_changed = False
            for (table, obj, now), is_new in zip(decoded, new, strict=True):
                feed = self._feed(table)
                feed.last_message = now
                if not is_new:
                    self.duplicates += 1
                    continue
                fresh, scored = feed.receive(obj, now)
                if scored:
                    feed.scored_at = now
                if fresh:
                    self.applied += 1
                    changed.add(table)
                    standings_changed = standings_changed or scored > 0 or obj.get("seq") == 0
            for table, online, now in statuses:
                feed = self._feed(table)
                feed.online = online
                feed.last_message = max(feed.last_message, now)
                changed.add(table)
            if standings_changed:
                self._publish_standings()
            self._dirty_tables |= changed
            self._flush_tables()
            if changed and self.clock() - self._director_sent >= 0.5:
                self._publish_director()

    def _feed(self, table: str) -> TableFeed:
        feed = self.feeds.get(table)
        if feed is None:
            feed = self.feeds[table] = TableFeed(table)
        return feed

    # --- what the pages show -----------------------------------------------------------------------------------

    def _assigned(self) -> dict[str, int]:
        return {f'{a["journal"]}:{a.get("match", 1)}': int(a["round"]) for a in self.audit if a["what"] == "assign"}

    def _adjustments(self) -> list[Adjustment]:
        return [Adjustment(a["entrant"], int(a["round"]),
                           Score(int(a["match_points"]), int(a["lines"]), int(a["points"])))
                for a in self.audit if a["what"] == "adjust"]

    def table_rounds(self) -> list[TableRound]:
        assigned = self._assigned()
        out: list[TableRound] = []
        for number, seating in enumerate(self.rounds, start=1):
            for ts in seating:
                feed = self.feeds.get(ts.table)
                found = feed.for_round(number, assigned) if feed is not None else None
                if found is None or found[0].header is None:
                    out.append(TableRound(number, ts.table, ts.team_map(), (), 9, False))
                    continue
                journal, match = found
                assert journal.header is not None
                out.append(TableRound(number, ts.table, ts.team_map(), match.slate,
                                      journal.header.house_rules.start_lines, match.over))
        return out

    def standings(self, played: list[TableRound] | None = None) -> list[Standing]:
        with self.lock:
            c = self.config
            return standings(c.entrant_names, self.table_rounds() if played is None else played, c.round_length,
                             c.deals, c.drop_worst, self._adjustments())

    def standings_csv(self) -> str:
        return csv_text(self.standings(), max(len(self.rounds), 1))

    def round_progress(self, played: list[TableRound] | None = None) -> dict[str, dict[str, Any]]:
        """Per table, in the current round: deals counted, whether the round is complete there, and when the
        server applied the last deal scored (wall clock: the benchmark splits the latency with it)."""
        c = self.config
        out: dict[str, dict[str, Any]] = {}
        current = len(self.rounds)
        for item in self.table_rounds() if played is None else played:
            if item.round == current:
                _, complete = table_scores(item, c.round_length, c.deals)
                feed = self.feeds.get(item.table)
                out[item.table] = {"deals": len(item.entries), "complete": complete,
                                   "scored_at": feed.scored_at if feed is not None else 0.0}
        return out

    def _publish_all(self) -> None:
        with self.lock:
            self._publish_standings()
            for table in set(self.feeds) | set(self.config.table_ids()):
                self._publish_table(table)
            self._publish_director()

    def _publish_standings(self) -> None:
        played = self.table_rounds()
        body = {"name": self.config.name, "round": len(self.rounds), "rounds": self.config.rounds,
                "format": self.config.entrants.value, "updated": self.clock(),
                "standings": [s.to_json() for s in self.standings(played)], "tables": self.round_progress(played)}
        self.hub.put("standings", json.dumps(body, ensure_ascii=False))

    def table_view(self, table: str) -> dict[str, Any]:
        feed = self.feeds.get(table)
        journal = feed.latest() if feed is not None else None
        state = journal.state if journal is not None else None
        seating = self.seating_of(table, len(self.rounds))
        return {"table": table, "round": len(self.rounds),
                "seats": {} if seating is None else {s.value: n for s, n in seating.seats},
                "online": bool(feed and feed.online), "state": None if state is None else summary(state)}

    def _flush_tables(self, every: float = TABLE_INTERVAL) -> None:
        """Publish the live views of the tables that changed, at most every ``every`` seconds (a card is on the
        table's page within that; 200 tables' views per batch would cost more than the events themselves)."""
        now = self.clock()
        if self._dirty_tables and now - self._tables_sent >= every:
            self._tables_sent = now
            dirty, self._dirty_tables = self._dirty_tables, set()
            for table in dirty:
                self._publish_table(table)

    def _publish_table(self, table: str) -> None:
        view = self._views[table] = self.table_view(table)
        self.hub.put(f"table/{table}", json.dumps(view, ensure_ascii=False), self.clock())

    def dashboard(self) -> dict[str, Any]:
        now = self.clock()
        progress = self.round_progress()
        rows = []
        for table in sorted(set(self.feeds) | set(self.config.table_ids()), key=_table_key):
            feed = self.feeds.get(table)
            view = self._views.get(table) or self.table_view(table)
            state = view["state"]
            attention: list[str] = []
            if state is not None and state["warnings"]:
                attention.append("warning")
            if feed is None or not feed.online:
                attention.append("offline")
            in_play = state is not None and state["phase"] != "match_over"
            last = feed.last_event if feed is not None else 0.0
            if in_play and last and now - last > self.config.slow_minutes * 60:
                attention.append("slow")
            journal = feed.latest() if feed is not None else None
            if journal is not None and journal.broken:
                attention.append("broken")
            rows.append({
                "table": table, "round": view["round"], "seats": view["seats"],
                "match": None if state is None else state["match"], "deal": None if state is None else state["deal"],
                "phase": None if state is None else state["phase"],
                "open_lines": None if state is None else state["open_lines"],
                "warnings": [] if state is None else [w["message"] for w in state["warnings"]],
                "last_event_age": None if not last else round(now - last, 1),
                "journal": "" if journal is None else journal.jid[:12],
                "waiting": 0 if journal is None else journal.waiting,
                "broken": "" if journal is None else journal.broken,
                "progress": progress.get(table), "attention": attention,
            })
        return {"name": self.config.name, "round": len(self.rounds), "rounds": self.config.rounds,
                "tables": rows, "unfinished": self.unfinished(), "audit": self.audit[-50:],
                "received": self.received, "duplicates": self.duplicates}

    def _publish_director(self) -> None:
        self._director_sent = self.clock()
        self.hub.put("director", json.dumps(self.dashboard(), ensure_ascii=False))

    def seating_of(self, table: str, number: int) -> TableSeating | None:
        if not 1 <= number <= len(self.rounds):
            return None
        return next((t for t in self.rounds[number - 1] if t.table == table), None)

    def stats(self) -> dict[str, Any]:
        """Counters for the benchmark and the curious: messages received, applied, duplicates, waiting."""
        with self.lock:
            waiting = sum(j.waiting for f in self.feeds.values() for j in f.journals.values())
            return {"received": self.received, "applied": self.applied, "duplicates": self.duplicates,
                    "waiting": waiting, "queued": self._queue.qsize(), "tables": len(self.feeds)}

    # --- the director ------------------------------------------------------------------------------------------

    def unfinished(self) -> list[str]:
        """Tables of the current round whose round is not complete yet."""
        return sorted((t for t, p in self.round_progress().items() if not p["complete"]), key=_table_key)

    def start_next_round(self, who: str, *, force: bool = False) -> list[TableSeating]:
        """Draw the next round (random first, then Swiss), store it and send each table its seating."""
        with self.lock:
            c = self.config
            if len(self.rounds) >= c.rounds:
                raise TournamentError(f"all {c.rounds} rounds have been played")
            waiting = self.unfinished()
            if waiting and not force:
                raise TournamentError(f"round {len(self.rounds)} is not finished at table(s) {', '.join(waiting)}")
            tables = c.table_ids()
            number = len(self.rounds) + 1
            seed = c.seed * 1000 + number
            if number == 1:
                seating = (first_round_pairs(c.pairs, tables, seed) if c.entrants is Entrants.PAIRS
                           else first_round_players(c.players, tables, seed))
            else:
                ranked = [s.name for s in self.standings()]
                history = History.of(self.rounds)
                if c.entrants is Entrants.PAIRS:
                    by_name = {p.name: p for p in c.pairs}
                    seating = swiss_pairs([by_name[n] for n in ranked], tables, history)
                else:
                    seating = swiss_players(ranked, tables, history)
            self.store.add_round(number, [t.to_json() for t in seating], who)
            self.rounds.append(seating)
            self.audit.append(self.store.audit(who, "round", f"round {number} started", {"round": number}))
            self._publish_all()
        self.send_seatings()
        return seating

    def send_seatings(self) -> None:
        """Publish every table's seating of the current round (retained: a table that comes later gets it)."""
        if self.client is None or not self.rounds:
            return
        number = len(self.rounds)
        for ts in self.rounds[-1]:
            message = Seating(number, ts.table, ts.seats)
            self.client.publish(seating_topic(self.config.broker.prefix, ts.table), encode(message.to_json()),
                                qos=1, retain=True)

    def announce(self, text: str, who: str) -> None:
        """Show ``text`` on every table (retained: the latest announcement)."""
        text = text.strip()
        if not text:
            raise TournamentError("an announcement needs a text")
        with self.lock:
            self.audit.append(self.store.audit(who, "announce", text, {"text": text}))
            self._publish_director()
        if self.client is not None:
            self.client.publish(announce_topic(self.config.broker.prefix),
                                encode({"text": text, "at": self.clock()}), qos=1, retain=True)

    def adjust(self, who: str, why: str, entrant: str, number: int, score: Score) -> dict[str, Any]:
        """A correction of one entrant's round, added to what the tables' journals give (audited)."""
        if not why.strip():
            raise TournamentError("a correction needs a reason")
        if entrant not in self.config.entrant_names:
            raise TournamentError(f"no entrant {entrant!r}")
        if not 1 <= number <= len(self.rounds):
            raise TournamentError(f"round {number} has not been played")
        with self.lock:
            entry = self.store.audit(who, "adjust", why.strip(), {
                "entrant": entrant, "round": number, "match_points": score.match_points, "lines": score.lines,
                "points": score.points})
            self.audit.append(entry)
            self._publish_all()
            return entry

    def assign(self, who: str, why: str, table: str, journal: str, number: int, match: int = 1) -> dict[str, Any]:
        """A correction: match ``match`` of the table's journal ``journal`` (an id, or its first characters) is its
        match of round ``number`` (0: of none)."""
        if not why.strip():
            raise TournamentError("a correction needs a reason")
        with self.lock:
            feed = self.feeds.get(table)
            matching = [jid for jid in (feed.journals if feed is not None else {}) if jid.startswith(journal)]
            if not journal or len(matching) != 1:
                raise TournamentError(f"table {table} has no journal {journal!r}" if not matching
                                      else f"{journal!r} names {len(matching)} journals: give more of the id")
            entry = self.store.audit(who, "assign", why.strip(), {"table": table, "journal": matching[0],
                                                                 "match": match, "round": number})
            self.audit.append(entry)
            self._publish_all()
            return entry


def _table_key(table: str) -> tuple[int, str]:
    return (int(table), "") if table.isdigit() else (1 << 30, table)


def team_names(seating: TableSeating) -> dict[str, str]:
    teams = seating.team_map()
    return {team.value: " & ".join(teams[team]) for team in Team}
