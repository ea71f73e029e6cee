"""The tournament server: the broker in, the store, the tables rebuilt, standings and seatings, the director.

Threads: paho's network thread only puts received messages on a queue; one worker thread stores them (one
transaction per batch), acknowledges them to the broker only once stored (manual acks: a server killed before
that gets them again), applies them to the tables and refreshes what the pages show (:class:`Hub`). The web
app's requests read the hub and call the director's methods, which take the same lock as the worker.
"""

from __future__ import annotations

import itertools
import json
import logging
import queue
import re
import threading
import time
from collections import Counter, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tablepi.changes import Changes
from tablepi.errors import FeedError, TablepiError
from tablepi.feed.client import make_client, session_properties
from tablepi.feed.config import FeedConfig
from tablepi.feed.messages import (
    Seating,
    announce_topic,
    decode,
    encode,
    resend_topic,
    seating_topic,
    summary,
    table_of,
)
from tablepi.feed.replay import JournalFeed, PlayedMatch, TableFeed
from tablepi.safeinput import clean_text, shown
from tablepi.tournament.config import Entrants, RoundLength, TournamentConfig
from tablepi.tournament.seating import (
    History,
    TableSeating,
    choose_byes,
    first_round_pairs,
    first_round_players,
    swiss_pairs,
    swiss_players,
)
from tablepi.tournament.standings import (
    Adjustment,
    Score,
    Scored,
    Standing,
    TableRound,
    bye_rounds,
    csv_text,
    rank,
    table_scores,
)
from tablepi.tournament.store import QUARANTINE_HEAD, Store

log = logging.getLogger(__name__)

#: The broker keeps the server's session (its subscriptions and what arrives meanwhile) this long while it is down.
SESSION_SECONDS = 7 * 24 * 3600
#: Each table's live view is refreshed at most this often (seconds): a view is a whole snapshot of the table,
#: and 200 tables' views four times a second cost more than their events.
TABLE_INTERVAL = 1.0
#: The standings are recomputed and published at most this often (seconds) while deals are being scored: a
#: scored deal is on the projector within this (plus a poll of the page), however many tables score at once.
STANDINGS_INTERVAL = 0.2
#: The director's dashboard is refreshed at most this often while tables change (seconds), while it is open.
DIRECTOR_INTERVAL = 2.0
#: A page that read a channel this recently is watching it (seconds; an open stream reads it every 0.1 s).
WATCHED = 30.0
#: How long the overlay's delayed view reaches back, at most (seconds beyond the configured delay).
HISTORY_SLACK = 60.0
#: A gap in a table's journal is asked for again after this many seconds (reordered messages fill most before)...
GAP_WAIT = 2.0
#: ... and again this often while it lasts (seconds).
ASK_EVERY = 10.0
#: Resend requests sent at most per look (a table's whole archive lost is one request per journal).
MAX_ASKS = 50
#: A director's correction of one entrant's round is at most this (more is a typing error: 1e+23 match points).
MAX_MATCH_POINTS = 10
MAX_LINES = 100
MAX_POINTS = 1000
#: Held matches and quarantined messages the dashboard lists (the newest; the counts are complete).
MAX_HELD_SHOWN = 50
#: A journal id as a table makes it (a uuid's hex; a salvaged record's id).
JOURNAL_ID = re.compile(r"[A-Za-z0-9_.:-]{1,64}")
#: The highest seq a message may carry (a journal of a whole season has far fewer events).
MAX_SEQ = 10**9
#: A table's status names at most this many earlier journals (it sends the newest it keeps: KEEP_DONE).
MAX_EARLIER = 50


def read_message(table: str, kind: str, payload: bytes) -> dict[str, Any] | None:
    """One message of a table's topic as the server uses it, checked: a status, or an event or header of the
    table's own journal. None for a topic the server does not read; FeedError (one line) for anything it cannot
    use — the message is then quarantined."""
    if kind not in ("events", "status"):
        return None
    obj = decode(payload)
    if obj.get("table") != table:
        raise FeedError(f"a message on table {table}'s topic speaks for table {shown(obj.get('table'))}",
                        field="table")
    if kind == "status":
        if not isinstance(obj.get("online"), bool):
            raise FeedError(f"status: online must be true or false, got {shown(obj.get('online'))}",
                            field="online")
        jid, last = obj.get("journal"), obj.get("last")
        if jid is not None and (not isinstance(jid, str) or not JOURNAL_ID.fullmatch(jid) or isinstance(last, bool)
                                or not isinstance(last, int) or not 0 <= last <= MAX_SEQ):
            raise FeedError(f"status: journal and last must be a journal id and a seq, got {shown(jid)}, "
                            f"{shown(last)}", field="journal" if isinstance(last, int) else "last")
        earlier = obj.get("earlier", {})
        if not isinstance(earlier, dict) or len(earlier) > MAX_EARLIER or not all(
                JOURNAL_ID.fullmatch(j) and isinstance(n, int) and not isinstance(n, bool) and 0 <= n <= MAX_SEQ
                for j, n in earlier.items()):
            raise FeedError(f"status: earlier must map at most {MAX_EARLIER} journal ids to seqs, got "
                            f"{shown(earlier)}", field="earlier")
        return obj
    seq, journal, number = obj.get("seq"), obj.get("journal"), obj.get("round")
    if isinstance(seq, bool) or not isinstance(seq, int) or not 0 <= seq <= MAX_SEQ:
        raise FeedError(f"seq must be a number from 0 to {MAX_SEQ}, got {shown(seq)}", field="seq")
    if not isinstance(journal, str) or not JOURNAL_ID.fullmatch(journal):
        raise FeedError(f"journal must be a journal id, got {shown(journal)}", field="journal")
    if number is not None and (isinstance(number, bool) or not isinstance(number, int) or not 1 <= number <= 1000):
        raise FeedError(f"round must be a round number or null, got {shown(number)}", field="round")
    part = "header" if seq == 0 else "event"
    if not isinstance(obj.get(part), dict):
        raise FeedError(f"message {seq} has no {part} object", field=part)
    return obj


def quarantined(now: float, topic: str, table: str, payload: bytes, reason: str) -> tuple[float, str, str, int, str,
                                                                                          str]:
    """A store row for a message that could not be used: its first bytes only, printable."""
    head = clean_text(payload[:QUARANTINE_HEAD].decode("utf-8", "replace"))
    return (now, topic, table, len(payload), clean_text(reason), head)


class TournamentError(TablepiError, ValueError):
    """A director's request that cannot be done now (the round is not finished, an unknown entrant)."""


class Hub:
    """What the pages show, per channel: the latest JSON text and its version; a short history for the overlay.
    :attr:`changes` wakes a channel's open streams when :meth:`put` changes it (from the server's worker thread)."""

    def __init__(self, keep: float = 90.0) -> None:
        self._lock = threading.Lock()
        self.changes = Changes()
        self._data: dict[str, tuple[int, str]] = {}
        self._history: dict[str, deque[tuple[float, str]]] = {}
        self._read: dict[str, float] = {}  # channel -> when a page last read it (monotonic)
        self.keep = keep

    def watched(self, channel: str, within: float = WATCHED) -> bool:
        """Whether a page has read ``channel`` lately: a table's view is only made while someone looks."""
        with self._lock:
            return time.monotonic() - self._read.get(channel, -1e9) <= within

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
        self.changes.changed(channel)

    def get(self, channel: str) -> tuple[int, str]:
        with self._lock:
            self._read[channel] = time.monotonic()
            return self._data.get(channel, (0, "{}"))

    def as_of(self, channel: str, when: float) -> tuple[float, str]:
        """The text the channel had at wall time ``when`` (the overlay's delay); (0, "{}") before anything."""
        with self._lock:
            self._read[channel] = time.monotonic()
            found: tuple[float, str] = (0.0, "{}")
            for stamp, text in self._history.get(channel, ()):
                if stamp > when:
                    break
                found = (stamp, text)
            return found

    def next_after(self, channel: str, when: float) -> float | None:
        """The wall time of the channel's first text after ``when`` (the overlay shows it ``overlay_delay`` after
        that), or None."""
        with self._lock:
            return next((stamp for stamp, _ in self._history.get(channel, ()) if stamp > when), None)


@dataclass
class Counts:
    """What the worker has seen (the dashboard and :meth:`TournamentServer.stats`)."""

    received: int = 0  # messages, read or not
    applied: int = 0  # events new to their journal, applied
    duplicates: int = 0  # events known already (a resend, a duplicated delivery)
    quarantined: int = 0  # messages that could not be read or applied (kept in the store)


@dataclass
class Pacing:
    """What the pages were last given and when, and what is due: the standings at most every
    :data:`STANDINGS_INTERVAL`, the tables' live views every :data:`TABLE_INTERVAL` (only the ones a page watches),
    the dashboard every :data:`DIRECTOR_INTERVAL` while it is open."""

    standings_dirty: bool = False
    standings_sent: float = 0.0
    dirty_tables: set[str] = field(default_factory=set)  # changed since their view was last made
    tables_sent: float = 0.0
    director_sent: float = 0.0
    views: dict[str, dict[str, Any]] = field(default_factory=dict)  # each table's live view, as last published


class BrokerLink:
    """The server's side of the broker: one persistent session with manual acknowledgements, paho's network thread
    putting each message on a queue, and the worker thread taking them in batches."""

    def __init__(self) -> None:
        self.client: Any = None  # paho's client, once started
        self.queue: queue.SimpleQueue[tuple[Any, ...]] = queue.SimpleQueue()
        self.stopping = threading.Event()
        self.worker: threading.Thread | None = None

    def start(self, broker: FeedConfig, client_id: str, on_connect: Callable[..., None],
              clock: Callable[[], float], run: Callable[[], None]) -> None:
        """Connect (in the background, again after every loss) and start the worker thread ``run``."""
        self.client = make_client(broker, client_id, manual_ack=True)
        self.client.on_connect = on_connect
        self.client.on_message = lambda client, userdata, message: self.queue.put(
            (message.topic, message.payload, message.mid, message.qos, clock()))
        self.client.connect_async(broker.host, broker.port, broker.keepalive, clean_start=False,
                                  properties=session_properties(SESSION_SECONDS))
        self.client.loop_start()
        self.worker = threading.Thread(target=run, name="tournament", daemon=True)
        self.worker.start()

    def take(self, wait: float, most: int = 500) -> list[tuple[Any, ...]]:
        """The next batch of messages: the first within ``wait`` seconds, then what comes within 20 ms more."""
        batch: list[tuple[Any, ...]] = []
        try:
            batch.append(self.queue.get(timeout=wait))
            deadline = time.monotonic() + 0.02
            while len(batch) < most and time.monotonic() < deadline:
                batch.append(self.queue.get_nowait())
        except queue.Empty:
            pass
        return batch

    def ack(self, batch: list[tuple[Any, ...]]) -> None:
        """Acknowledge ``batch`` to the broker (once it is stored: a server killed before gets it again)."""
        for _, _, mid, qos, _ in batch:
            if qos > 0:
                self.client.ack(mid, qos)

    def publish(self, topic: str, payload: bytes, *, retain: bool = False) -> bool:
        """Publish at QoS 1; False when the server is not connected to a broker (not started)."""
        if self.client is None:
            return False
        self.client.publish(topic, payload, qos=1, retain=retain)
        return True

    def close(self) -> bool:
        """Stop the worker and disconnect; False if closed already."""
        if self.stopping.is_set():
            return False
        self.stopping.set()
        if self.worker is not None:
            self.worker.join(5.0)
        if self.client is not None:
            self.client.disconnect()
            self.client.loop_stop()
        return True


class TournamentServer:
    def __init__(self, config: TournamentConfig, *, clock: Callable[[], float] = time.time) -> None:
        self.config = config
        self.clock = clock
        self.store = Store(config.store)
        self.hub = Hub(keep=config.web.overlay_delay + HISTORY_SLACK)
        self.broker = BrokerLink()
        self.feeds: dict[str, TableFeed] = {}
        self.rounds: list[list[TableSeating]] = []
        self.drawn: list[float] = []  # per round, when it was drawn (the server's clock, as messages are received)
        self.byes: list[tuple[str, ...]] = []  # per round, the entrants who sit it out (docs/tournament.md)
        self.audit: list[dict[str, Any]] = []
        self.lock = threading.RLock()
        self.counts = Counts()
        self.pacing = Pacing()
        self._asked: dict[tuple[str, str, int], tuple[float, float, int]] = {}  # gap -> (seen, asked, times)
        # (round, table) -> (the table's feed version, its scored round): recomputed only when the table changed
        self._scored: dict[tuple[int, str], tuple[int, Scored]] = {}
        self._load()

    # --- start, stop -------------------------------------------------------------------------------------------

    def _load(self) -> None:
        """Everything from the store: rounds, the director's acts, every message (replayed)."""
        for _, seating, started, _ in self.store.rounds():
            tables, byes = (seating, []) if isinstance(seating, list) else (seating["tables"], seating["byes"])
            self.rounds.append([TableSeating.from_json(t) for t in tables])
            self.drawn.append(started)
            self.byes.append(tuple(str(name) for name in byes))
        self.audit = self.store.audit_log()
        self.counts.quarantined = self.store.quarantined(0)[0]
        for table, message, received in self.store.messages():
            self._feed(table).receive(message, received)
        self._publish_all()

    def start(self) -> TournamentServer:
        """Connect to the broker (persistent session) and start the worker."""
        # An id of this server's own (made with its store): a fixed, guessable one would let anyone with a
        # table's password take over the server's persistent session (the broker config also binds ids to users).
        self.broker.start(self.config.broker, f"tablepi-tournament-{self.store.instance()}", self._on_connect,
                          self.clock, self._run)
        return self

    def close(self) -> None:
        if self.broker.close():
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

    def _run(self) -> None:
        pacing = self.pacing
        while not self.broker.stopping.is_set():
            wait = 0.2
            if pacing.standings_dirty:  # wake up when the standings are due, even if nothing more arrives
                wait = min(wait, max(0.005, STANDINGS_INTERVAL - (self.clock() - pacing.standings_sent)))
            batch = self.broker.take(wait)
            try:
                if batch:
                    self.receive(batch)
                    self.broker.ack(batch)
                else:
                    self.ask_again()
                    with self.lock:
                        self._flush_standings()
                        self._flush_tables()
                        if self.clock() - pacing.director_sent >= DIRECTOR_INTERVAL:
                            self._publish_director(only_watched=True)
            except Exception:
                log.exception("tournament: error while handling %d messages", len(batch))

    def receive(self, batch: list[tuple[Any, ...]]) -> None:
        """Store and apply ``(topic, payload, mid, qos, received)`` items (the worker; tests call it directly).

        Each message on its own: one that cannot be read — not JSON, nested too deep, too big, not what
        docs/feed.md says, a table speaking for another — is quarantined (kept in the store with the reason, shown
        on the dashboard) and acknowledged like the others, so it never holds back another table's events."""
        prefix = self.config.broker.prefix
        rows: list[tuple[str, str, int, str, float]] = []
        decoded: list[tuple[str, dict[str, Any], float]] = []
        statuses: list[tuple[str, dict[str, Any], float]] = []
        bad: list[tuple[float, str, str, int, str, str]] = []
        for topic, payload, _, _, now in batch:
            where = table_of(topic, prefix)
            if where is None:
                continue
            table, kind = where
            try:
                obj = read_message(table, kind, payload)
            except FeedError as error:
                bad.append(quarantined(now, topic, table, payload, str(error)))
                continue
            if obj is None:
                continue
            if kind == "status":
                statuses.append((table, obj, now))
                continue
            rows.append((table, obj["journal"], obj["seq"], payload.decode("utf-8"), now))
            decoded.append((table, obj, now))
        self.counts.received += len(batch)
        with self.lock:
            # The feeds know every stored message (they are rebuilt from the store at start): only the new ones
            # are written, and they are stored before they are applied. A known one is compared with the stored
            # one: a different event under the same (journal, seq) is a second sender with this table's password.
            fresh_rows = []
            for row, (_, obj, now) in zip(rows, decoded, strict=True):
                if not self._feed(row[0]).knows(row[1], row[2]):
                    fresh_rows.append(row)
                elif (reason := self._conflict(row[0], obj)) is not None:
                    bad.append(quarantined(now, f"{prefix}/tables/{row[0]}/events", row[0], row[3].encode(), reason))
        if fresh_rows:
            self.store.add_messages(fresh_rows)
        if bad:
            self.store.quarantine(bad)
            counts = self.counts
            for item in bad:
                counts.quarantined += 1
                if counts.quarantined <= 20 or counts.quarantined % 1000 == 0:  # a flood is counted, not logged whole
                    log.warning("tournament: quarantined message %d on %s (%d bytes): %s%s", counts.quarantined,
                                item[1], item[3], item[4], "" if counts.quarantined < 20 else
                                " (from now on every 1000th is logged; the dashboard counts them all)")
        with self.lock:
            changed: set[str] = set()
            standings_changed = bool(bad)
            for table, obj, now in decoded:
                feed = self._feed(table)
                feed.last_message = now
                version = feed.version
                try:
                    fresh, scored = feed.receive(obj, now)
                except Exception as error:  # one table's message must not stop the others'
                    self._poisoned(table, obj, now, error)
                    changed.add(table)
                    continue
                if not fresh:
                    self.counts.duplicates += 1
                    continue
                if scored:
                    feed.scored_at = now
                self.counts.applied += 1
                changed.add(table)
                # a deal scored, a header, a match begun (a second journal claiming a round disputes it)
                standings_changed = standings_changed or feed.version != version
            for table, obj, now in statuses:
                feed = self._feed(table)
                feed.online = bool(obj.get("online"))
                feed.last_message = max(feed.last_message, now)
                feed.report(obj)
                changed.add(table)
            self.pacing.standings_dirty = self.pacing.standings_dirty or standings_changed
            self._flush_standings()
            self.pacing.dirty_tables |= changed
            self._flush_tables()
            if (changed or bad) and self.clock() - self.pacing.director_sent >= DIRECTOR_INTERVAL:
                self._publish_director(only_watched=True)

    def _conflict(self, table: str, obj: dict[str, Any]) -> str | None:
        """Why a message already known differs from the stored one (None when it is the same event again)."""
        stored = self.store.message(table, obj["journal"], obj["seq"])
        part = "header" if obj["seq"] == 0 else "event"
        if stored is None or stored.get(part) == obj.get(part):
            return None
        journal = self._feed(table).journals.get(obj["journal"])
        if journal is not None and obj["seq"] not in journal.conflicts:
            journal.conflicts.append(obj["seq"])
            journal.version += 1
        return (f"a second, different {part} {obj['seq']} of journal {obj['journal'][:12]} (the first is kept): "
                "two senders with this table's password?")

    def _poisoned(self, table: str, obj: dict[str, Any], now: float, error: Exception) -> None:
        """A message that broke the replay in an unforeseen way: its journal stops there (shown), the message is
        quarantined, every other journal goes on."""
        log.exception("tournament: table %s, journal %s, seq %s could not be applied", table,
                      obj.get("journal"), obj.get("seq"))
        journal = self._feed(table).journals.get(str(obj.get("journal")))
        if journal is not None and not journal.broken:
            journal.broken = f"event {obj.get('seq')}: {clean_text(f'{type(error).__name__}: {error}')}"
            seq = obj.get("seq")
            journal.broken_at = seq if isinstance(seq, int) and not isinstance(seq, bool) else None
            journal.version += 1
        text = json.dumps(obj, ensure_ascii=False)
        self.store.quarantine([quarantined(now, f"{self.config.broker.prefix}/tables/{table}/events", table,
                                           text.encode(), f"could not be applied: {type(error).__name__}")])
        self.counts.quarantined += 1

    def held(self) -> list[dict[str, Any]]:
        """Matches a table's feed says belong to a round that are not counted, each with the reason: two journals
        claim that table's round (none counts until the director assigns one), another match is the round's, the
        table was not seated in it, or it has not started. A director's *assign* correction counts one."""
        assigned = self._assigned()
        out: list[dict[str, Any]] = []
        for table, feed in sorted(self.feeds.items(), key=lambda item: _table_key(item[0])):
            rounds: dict[int, tuple[tuple[JournalFeed, PlayedMatch] | None, str]] = {}  # round -> (counted, dispute)
            for journal in sorted(feed.journals.values(), key=lambda j: (j.index, j.jid)):
                for match in journal.matches:
                    number = match.round
                    if not match.started or number is None or f"{journal.jid}:{match.number}" in assigned:
                        continue
                    seated = self.seating_of(table, number) is not None
                    drawn = self.drawn[number - 1] if number <= len(self.drawn) else 0.0
                    if seated and number not in rounds:
                        rounds[number] = (feed.for_round(number, assigned, drawn),
                                          self._dispute(table, number, feed.open_claims(number, assigned, drawn)))
                    counted, dispute = rounds.get(number, (None, ""))
                    if counted is not None and counted[0] is journal and counted[1] is match:
                        continue
                    if number > len(self.rounds):
                        why = f"round {number} has not started"
                    elif not seated:
                        why = f"table {table} was not seated in round {number}"
                    elif match.begun_before(drawn):
                        why = f"its match began before round {number} was drawn: no table had its seating"
                    elif counted is not None:
                        why = (f"table {table}'s round {number} is journal {counted[0].jid[:12]} match "
                               f"{counted[1].number}")
                    elif dispute:
                        why = dispute
                    else:
                        continue
                    out.append({"table": table, "journal": journal.jid, "match": match.number, "round": number,
                                "deals": len(match.slate), "reason": why, "seated": seated,
                                "received": list(journal.received)})
        return out[-MAX_HELD_SHOWN:]

    def _dispute(self, table: str, number: int, claims: list[tuple[JournalFeed, PlayedMatch]]) -> str:
        """Why two or more journals claiming table ``table``'s round ``number`` are held ("" for one claim): and
        which of them was left unfinished before the next began, as a table's players do who abandon their round's
        match and play it again (the table then claims the round anew, docs/tournament.md). Said, never decided:
        the server cannot tell a table's own journal from one published with its password, and an unfinished
        match may be one played offline, so the director picks."""
        if len(claims) < 2:
            return ""
        c = self.config
        left = []
        ordered = sorted(claims, key=lambda jm: (jm[0].index, jm[0].jid))
        for (journal, match), (after, _) in itertools.pairwise(ordered):
            complete = match.over or (c.round_length is RoundLength.DEALS and len(match.slate) >= c.deals)
            if not complete and journal.index < after.index and journal.received[1] < after.received[0]:
                left.append(f"journal {journal.jid[:12]} was left unfinished at deal {len(match.slate) + 1} "
                            f"({len(match.slate)} scored) before journal {after.jid[:12]} began")
        return (f"{len(claims)} journals for table {table} round {number}: " + "".join(f"{why}; " for why in left)
                + "none is counted until the director assigns one")

    def disputed(self) -> list[dict[str, Any]]:
        """Every table's round that two journals claim and the director has not settled yet (docs/tournament.md,
        "Which match is which round"): it counts nothing, and its entrants' rows say so."""
        with self.lock:
            assigned = self._assigned()
            out = []
            for number, seating in enumerate(self.rounds, start=1):
                for ts in seating:
                    feed = self.feeds.get(ts.table)
                    if feed is not None and feed.disputed(number, assigned, self.drawn[number - 1]):
                        out.append({"table": ts.table, "round": number,
                                    "names": sorted(n for names in ts.team_map().values() for n in names)})
            return out

    def _feed(self, table: str) -> TableFeed:
        feed = self.feeds.get(table)
        if feed is None:
            feed = self.feeds[table] = TableFeed(table)
        return feed

    # --- what the pages show -----------------------------------------------------------------------------------

    def _undone(self) -> set[int]:
        return {int(a["undoes"]) for a in self.audit if a["what"] == "undo"}

    def _assigned(self) -> dict[str, int]:
        undone = self._undone()
        return {f'{a["journal"]}:{a.get("match", 1)}': int(a["round"]) for a in self.audit
                if a["what"] == "assign" and a["id"] not in undone}

    def _adjustments(self) -> list[Adjustment]:
        undone = self._undone()
        return [Adjustment(a["entrant"], int(a["round"]),
                           Score(int(a["match_points"]), int(a["lines"]), int(a["points"])))
                for a in self.audit if a["what"] == "adjust" and a["id"] not in undone]

    def scored_rounds(self) -> list[Scored]:
        """Every table's round, scored. A table's score is recomputed only when its feed changed since (its
        version), so the standings cost little more than ranking however many tables there are."""
        with self.lock:
            assigned: dict[str, int] | None = None
            c = self.config
            out: list[Scored] = []
            for number, seating in enumerate(self.rounds, start=1):
                for ts in seating:
                    feed = self.feeds.get(ts.table)
                    version = -1 if feed is None else feed.version
                    hit = self._scored.get((number, ts.table))
                    if hit is not None and hit[0] == version:
                        out.append(hit[1])
                        continue
                    if assigned is None:
                        assigned = self._assigned()
                    item = self._table_round(number, ts, feed, assigned)
                    value: Scored = (item, *table_scores(item, c.round_length, c.deals))
                    self._scored[(number, ts.table)] = (version, value)
                    out.append(value)
            return out

    def _table_round(self, number: int, ts: TableSeating, feed: TableFeed | None,
                     assigned: dict[str, int]) -> TableRound:
        found = feed.for_round(number, assigned, self.drawn[number - 1]) if feed is not None else None
        if found is None or found[0].header is None:
            return TableRound(number, ts.table, ts.team_map(), (), 9, False)
        journal, match = found
        assert journal.header is not None
        return TableRound(number, ts.table, ts.team_map(), match.slate, journal.header.house_rules.start_lines,
                          match.over)

    def standings(self, scored: list[Scored] | None = None) -> list[Standing]:
        with self.lock:
            scored = self.scored_rounds() if scored is None else scored
            return rank(self.config.entrant_names, [*scored, *bye_rounds(self.byes)],
                        self.config.drop_worst, self._adjustments())

    def standings_csv(self) -> str:
        return csv_text(self.standings(), max(len(self.rounds), 1))

    def round_progress(self, scored: list[Scored] | None = None) -> dict[str, dict[str, Any]]:
        """Per table, in the current round: deals counted, whether the round is complete there, and when the
        server applied the last deal scored (wall clock: the benchmark splits the latency with it)."""
        out: dict[str, dict[str, Any]] = {}
        current = len(self.rounds)
        for item, _, complete in self.scored_rounds() if scored is None else scored:
            if item.round == current:
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

    def _flush_standings(self) -> None:
        if self.pacing.standings_dirty and self.clock() - self.pacing.standings_sent >= STANDINGS_INTERVAL:
            self._publish_standings()

    def _publish_standings(self) -> None:
        self.pacing.standings_dirty = False
        self.pacing.standings_sent = self.clock()
        scored = self.scored_rounds()
        body = {"name": self.config.name, "round": len(self.rounds), "rounds": self.config.rounds,
                "format": self.config.entrants.value, "updated": self.clock(),
                "standings": [s.to_json() for s in self.standings(scored)], "tables": self.round_progress(scored),
                "byes": list(self.byes[-1]) if self.byes else [], "disputed": self.disputed()}
        self.hub.put("standings", json.dumps(body, ensure_ascii=False))

    def table_view(self, table: str) -> dict[str, Any]:
        feed = self.feeds.get(table)
        journal = feed.latest() if feed is not None else None
        state = journal.state if journal is not None else None
        number = journal.round_tag if journal is not None and journal.round_tag is not None else len(self.rounds)
        seating = self.seating_of(table, number)
        return {"table": table, "round": number,
                "seats": {} if seating is None else {s.value: n for s, n in seating.seats},
                "online": bool(feed and feed.online), "state": None if state is None else summary(state)}

    def _flush_tables(self, every: float = TABLE_INTERVAL) -> None:
        """Publish the live views of the tables that changed and that a page is watching (a table's page, its
        overlay), at most every ``every`` seconds: a card is on the table's page within that. A view is a whole
        snapshot of the table; 200 tables' views made for nobody would cost more than their events. The others
        stay marked and are made when someone looks (the dashboard makes them all)."""
        now = self.clock()
        pacing = self.pacing
        if pacing.dirty_tables and now - pacing.tables_sent >= every:
            pacing.tables_sent = now
            for table in [t for t in pacing.dirty_tables if self.hub.watched(f"table/{t}")]:
                pacing.dirty_tables.discard(table)
                self._publish_table(table)

    def _refresh_views(self) -> None:
        """Every table's view up to date (the dashboard's rows are made from them)."""
        dirty, self.pacing.dirty_tables = self.pacing.dirty_tables, set()
        for table in dirty:
            self._publish_table(table)

    def _publish_table(self, table: str) -> None:
        view = self.pacing.views[table] = self.table_view(table)
        self.hub.put(f"table/{table}", json.dumps(view, ensure_ascii=False), self.clock())

    def dashboard(self) -> dict[str, Any]:
        self._refresh_views()
        now = self.clock()
        progress = self.round_progress()
        disputed = self.disputed()
        rows = []
        for table in sorted(set(self.feeds) | set(self.config.table_ids()), key=_table_key):
            feed = self.feeds.get(table)
            view = self.pacing.views.get(table) or self.table_view(table)
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
            gaps = [self._gap_row(table, *gap, now) for gap in (feed.gaps() if feed is not None else [])]
            if gaps:
                attention.append("gap")
            conflicts = sum(len(j.conflicts) for j in feed.journals.values()) if feed is not None else 0
            if conflicts:
                attention.append("conflict")
            if any(d["table"] == table for d in disputed):
                attention.append("disputed")
            if (journal is not None and journal.applied and journal.round_tag is None
                    and self.seating_of(table, len(self.rounds)) is not None):
                # seated this round, its events carry no round: the table's match of the round was played in an
                # earlier journal (players playing on), or its seating has not reached it
                attention.append("casual")
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
                "progress": progress.get(table), "attention": attention, "gaps": gaps, "conflicts": conflicts,
            })
        count, kept = self.store.quarantined(MAX_HELD_SHOWN)
        held = self.held()
        return {"name": self.config.name, "round": len(self.rounds), "rounds": self.config.rounds,
                "byes": list(self.byes[-1]) if self.byes else [], "tables": rows, "unfinished": self.unfinished(),
                "audit": self.audit[-50:], "held": held, "disputed": disputed, "quarantined": count, "quarantine": kept,
                "received": self.counts.received, "duplicates": self.counts.duplicates}

    def _gap_row(self, table: str, journal: str, first: int, last: int, now: float) -> dict[str, Any]:
        seen, _, times = self._asked.get((table, journal, first), (now, 0.0, 0))
        return {"journal": journal[:12], "first": first, "last": last, "since": round(now - seen, 1),
                "asked": times}

    def ask_again(self) -> int:
        """Ask each table for what is missing from its journals (docs/feed.md, "Resend"): a gap seen for
        :data:`GAP_WAIT` seconds (reordered messages fill most within a moment), then again every
        :data:`ASK_EVERY` seconds while it lasts. Returns how many requests were sent."""
        now = self.clock()
        sent = 0
        current: dict[tuple[str, str, int], tuple[float, float, int]] = {}
        with self.lock:
            for table, feed in self.feeds.items():
                for journal, first, _ in feed.gaps():
                    key = (table, journal, first)
                    seen, asked, times = self._asked.get(key, (now, 0.0, 0))
                    due = now - seen >= GAP_WAIT and now - asked >= ASK_EVERY and sent < MAX_ASKS
                    if due and self._request_resend(table, journal, first):
                        asked, times, sent = now, times + 1, sent + 1
                    current[key] = (seen, asked, times)
            self._asked = current
        return sent

    def _request_resend(self, table: str, journal: str, first: int) -> bool:
        log.info("tournament: asking table %s to resend journal %s from %d", table, journal[:12], first)
        return self.broker.publish(resend_topic(self.config.broker.prefix, table),
                                   encode({"table": table, "journal": journal, "from": first}))

    def _publish_director(self, only_watched: bool = False) -> None:
        if only_watched and not self.hub.watched("director"):
            return
        self.pacing.director_sent = self.clock()
        self.hub.put("director", json.dumps(self.dashboard(), ensure_ascii=False))

    def seating_of(self, table: str, number: int) -> TableSeating | None:
        if not 1 <= number <= len(self.rounds):
            return None
        return next((t for t in self.rounds[number - 1] if t.table == table), None)

    def stats(self) -> dict[str, Any]:
        """Counters for the benchmark and the curious: messages received, applied, duplicates, waiting."""
        with self.lock:
            waiting = sum(j.waiting for f in self.feeds.values() for j in f.journals.values())
            counts = self.counts
            return {"received": counts.received, "applied": counts.applied, "duplicates": counts.duplicates,
                    "waiting": waiting, "queued": self.broker.queue.qsize(), "tables": len(self.feeds),
                    "quarantined": counts.quarantined}

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
            had = Counter(name for names in self.byes for name in names)
            ranked = list(c.entrant_names) if number == 1 else [s.name for s in self.standings()]
            byes = choose_byes(ranked, c.byes_per_round, had, seed if number == 1 else None)
            playing = [name for name in ranked if name not in byes]
            if number == 1:
                seating = (first_round_pairs([p for p in c.pairs if p.name in playing], tables, seed)
                           if c.entrants is Entrants.PAIRS else first_round_players(playing, tables, seed))
            else:
                history = History.of(self.rounds)
                if c.entrants is Entrants.PAIRS:
                    by_name = {p.name: p for p in c.pairs}
                    seating = swiss_pairs([by_name[n] for n in playing], tables, history)
                else:
                    seating = swiss_players(playing, tables, history)
            drawn = self.clock()
            self.store.add_round(number, {"tables": [t.to_json() for t in seating], "byes": byes}, who, drawn)
            self.rounds.append(seating)
            self.drawn.append(drawn)
            self.byes.append(tuple(byes))
            self.audit.append(self.store.audit(who, "round", f"round {number} started", {"round": number}))
            self._publish_all()
        self.send_seatings()
        return seating

    def send_seatings(self) -> None:
        """Publish every table's seating of the current round (retained: a table that comes later gets it)."""
        if not self.rounds:
            return
        number = len(self.rounds)
        c = self.config
        roster = tuple(sorted(c.players if c.entrants is Entrants.INDIVIDUALS
                              else (p for pair in c.pairs for p in pair.players), key=str.casefold))
        deals = c.deals if c.round_length is RoundLength.DEALS else None
        for ts in self.rounds[-1]:
            message = Seating(number, ts.table, ts.seats, roster, deals)
            self.broker.publish(seating_topic(self.config.broker.prefix, ts.table), encode(message.to_json()),
                                retain=True)

    def announce(self, text: str, who: str) -> None:
        """Show ``text`` on every table (retained: the latest announcement)."""
        text = text.strip()
        if not text:
            raise TournamentError("an announcement needs a text")
        with self.lock:
            self.audit.append(self.store.audit(who, "announce", text, {"text": text}))
            self._publish_director()
        self.broker.publish(announce_topic(self.config.broker.prefix), encode({"text": text, "at": self.clock()}),
                            retain=True)

    def adjust(self, who: str, why: str, entrant: str, number: int, score: Score) -> dict[str, Any]:
        """A correction of one entrant's round, added to what the tables' journals give (audited)."""
        if not why.strip():
            raise TournamentError("a correction needs a reason")
        if entrant not in self.config.entrant_names:
            raise TournamentError(f"no entrant {entrant!r}")
        if not 1 <= number <= len(self.rounds):
            raise TournamentError(f"round {number} has not been played")
        for what, value, bound in (("match points", score.match_points, MAX_MATCH_POINTS),
                                   ("lines", score.lines, MAX_LINES), ("card points", score.points, MAX_POINTS)):
            if abs(value) > bound:
                raise TournamentError(f"{what}: a correction of a round is at most ±{bound}, not {value}")
        with self.lock:
            entry = self.store.audit(who, "adjust", why.strip(), {
                "entrant": entrant, "round": number, "match_points": score.match_points, "lines": score.lines,
                "points": score.points})
            self.audit.append(entry)
            self._publish_all()
            return entry

    def undo(self, who: str, why: str, number: int) -> dict[str, Any]:
        """Take back correction ``number`` (an *adjust* or an *assign*, by its id in the audit trail): it stays in
        the trail, marked undone, and counts no more."""
        if not why.strip():
            raise TournamentError("an undo needs a reason")
        with self.lock:
            entry = next((a for a in self.audit if a["id"] == number), None)
            if entry is None or entry["what"] not in ("adjust", "assign"):
                raise TournamentError(f"no correction {number} in the audit trail")
            if number in self._undone():
                raise TournamentError(f"correction {number} is undone already")
            done = self.store.audit(who, "undo", why.strip(), {"undoes": number})
            self.audit.append(done)
            self._scored.clear()
            self._publish_all()
            return done

    def assign(self, who: str, why: str, table: str, journal: str, number: int, match: int = 1) -> dict[str, Any]:
        """A correction: match ``match`` of the table's journal ``journal`` (an id, or its first characters) is its
        match of round ``number`` (0: of none)."""
        if not why.strip():
            raise TournamentError("a correction needs a reason")
        if not 0 <= number <= self.config.rounds or not 1 <= match <= 1000:
            raise TournamentError(f"round {number}, match {match}: no such round or match")
        with self.lock:
            feed = self.feeds.get(table)
            matching = [jid for jid in (feed.journals if feed is not None else {}) if jid.startswith(journal)]
            if not journal or len(matching) != 1:
                raise TournamentError(f"table {table} has no journal {journal!r}" if not matching
                                      else f"{journal!r} names {len(matching)} journals: give more of the id")
            entry = self.store.audit(who, "assign", why.strip(), {"table": table, "journal": matching[0],
                                                                 "match": match, "round": number})
            self.audit.append(entry)
            self._scored.clear()  # which match is which round changed
            self._publish_all()
            return entry


def _table_key(table: str) -> tuple[int, str]:
    return (int(table), "") if table.isdigit() else (1 << 30, table)
