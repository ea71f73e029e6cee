"""The publisher: the table's journaled events to the broker, in journal order, QoS 1, from its own thread.

The core thread calls :meth:`FeedPublisher.journaled` (a :class:`~tablepi.journal.journal.JournalListener`) and
:meth:`FeedPublisher.show` (like a screen); both only put a note on a queue. The publisher's thread sends what the
broker has not acknowledged yet, oldest journal first, at most :data:`WINDOW` messages in flight, and moves the
cursor (:mod:`tablepi.feed.outbox`) as acknowledgements come back. A PUBACK with a failure reason code (the ACL
refused the topic, a quota) is not an acknowledgement: the event stays in the outbox, the table logs a warning and
its screen is told (:class:`~tablepi.notices.Notice`). After a disconnect everything in flight is sent
again; duplicates are harmless (the server keys events by table, journal and seq).
"""

from __future__ import annotations

import json
import logging
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tablepi.errors import FeedError
from tablepi.feed.config import FeedConfig
from tablepi.feed.messages import (
    Seating,
    announce_topic,
    decode,
    encode,
    events_topic,
    resend_topic,
    seating_topic,
    state_topic,
    status_topic,
    summary,
)
from tablepi.feed.outbox import KEEP_DONE, Cursor, JournalCursor, JournalRounds, find_archived, read_journal_file
from tablepi.feed.replay import JournalFeed
from tablepi.journal.journal import Journal, JournaledTable
from tablepi.notices import Notice, NoticeCode
from tablepi.table import TableState

log = logging.getLogger(__name__)

#: Messages published and not yet acknowledged, at most.
WINDOW = 100
#: The retained state is published at most this often (seconds).
STATE_INTERVAL = 0.5
#: The cursor file is written at most this often (seconds) while acknowledgements come in.
SAVE_INTERVAL = 1.0


@dataclass
class _Journal:
    """One journal's part of the outbox: every line not acknowledged yet (seq 0 is the header message), and the
    round each of its events was journaled under (read from all its lines, the acknowledged ones too)."""

    jid: str
    cursor: JournalCursor
    header: dict[str, Any]
    rounds: JournalRounds
    lines: dict[int, str] = field(default_factory=dict)
    next_send: int = 0
    acked_ahead: set[int] = field(default_factory=set)  # acknowledged out of order, beyond cursor.acked
    claims: dict[int, bool] = field(default_factory=dict)  # round -> whether this journal may claim it

    def add(self, seq: int, line: str, again: bool = False) -> None:
        """Line ``seq`` of the journal (given in seq order from the first): to send if not acknowledged yet
        (``again``: one acknowledged before, asked for again by the server)."""
        self.rounds.line(seq, line)
        if (seq > self.cursor.acked or again) and seq not in self.lines:
            self.lines[seq] = line
        self.cursor.last = max(self.cursor.last, seq)

    def ack(self, seq: int) -> None:
        if seq <= self.cursor.acked:  # a line sent again
            self.lines.pop(seq, None)
            return
        self.acked_ahead.add(seq)
        while self.cursor.acked + 1 in self.acked_ahead:
            self.cursor.acked += 1
            self.acked_ahead.discard(self.cursor.acked)
            self.lines.pop(self.cursor.acked, None)

    def rewind(self) -> None:
        self.next_send = self.cursor.acked + 1
        self.acked_ahead.clear()


@dataclass
class FeedHealth:
    """How the feed is doing, for the table's status, ``tablepi doctor`` and the tests: counts, and the problem
    last met (said once in the log and on the screen until it is over)."""

    published: int = 0  # messages handed to the broker
    acknowledged: int = 0  # of them, acknowledged
    refused: int = 0  # PUBACKs with a failure reason code (the ACL, a quota)
    problem: str = ""
    warned: bool = False  # the refusal was said
    connect_warned: bool = False  # that the broker cannot be reached was said


class Outbox:
    """What the broker has not acknowledged yet, journal by journal (oldest first), read back from the journals
    themselves, and the cursor file that says how far it acknowledged (written at most every
    :data:`SAVE_INTERVAL`). Used by the publisher's thread only (and before it starts)."""

    def __init__(self, cursor: Cursor, table: JournaledTable) -> None:
        self.cursor = cursor
        self.journals: dict[str, _Journal] = {}
        self.archive = table.archive
        self.current = table.journal.id  # the journal the table writes now
        self.dirty = False  # the cursor changed since it was written
        self.saved = 0.0
        self.resent = 0  # lines sent again because the server asked
        self._played_by: dict[str, frozenset[int]] = {}  # the rounds earlier journals played (see claimable)
        self._load(table)

    @property
    def backlog(self) -> int:
        return sum(len(j.lines) for j in self.journals.values())

    def journaled(self, jid: str, path: str, header: Any, seq: int, line: str) -> None:
        out = self.journals.get(jid) or self.journal(jid, path, header)
        out.add(seq, line)

    def rotated(self, old_id: str, archived: str, new_id: str, new_path: str, header: Any) -> None:
        old = self.journals.get(old_id)
        if old is not None:
            old.cursor.path, old.cursor.archived = archived, True
        self.journal(new_id, new_path, header)
        self.current = new_id
        self.dirty = True

    def acked(self, jid: str, seq: int) -> bool:
        """The broker acknowledged ``seq`` of journal ``jid``; False if that journal is not in the outbox."""
        out = self.journals.get(jid)
        if out is None:
            return False
        out.ack(seq)
        self.dirty = True
        return True

    def rewind(self) -> None:
        """After a reconnect: everything not acknowledged goes again."""
        for out in self.journals.values():
            out.rewind()

    def save(self, force: bool = False) -> None:
        now = time.monotonic()
        if self.dirty and (force or now - self.saved >= SAVE_INTERVAL):
            try:
                self.cursor.save()
            except OSError as error:
                log.warning("feed: cannot write the cursor %s: %s (events will be sent again)",
                            self.cursor.path, error)
            self.saved = now
            self.dirty = False

    # --- at start, and asked again -----------------------------------------------------------------------------------

    def _load(self, table: JournaledTable) -> None:
        """What the broker has not acknowledged: older journals (archived since) first, then the current one.
        Runs before the core starts, on its thread: the journal is not being written."""
        current = table.journal
        if self.cursor.rebuilt and table.archive is not None:
            self._register_archive(table.archive, current.id)
        for jid, jc in sorted(self.cursor.journals.items(), key=lambda item: item[1].index):
            if jid == current.id or jc.done:
                continue
            path = find_archived(table.archive, jid, jc.path) if table.archive is not None else None
            found = read_journal_file(path, 0) if path is not None else None  # all: the rounds are read too
            if found is None:
                log.warning("feed: journal %s (%d events not acknowledged) is gone; they cannot be sent", jid,
                            max(0, jc.last - jc.acked))
                jc.archived, jc.acked = True, jc.last
                continue
            jc.path, jc.archived = str(path), True
            out = self.journal(jid, str(path), found[1])
            for seq, line in found[2]:
                out.add(seq, line)
        now = self.journal(current.id, str(current.path), current.header.to_json())
        for seq, line in current.lines_after(0):
            now.add(seq, line)

    def tag(self, out: _Journal, seq: int) -> int | None:
        """The round event ``seq`` of journal ``out`` is sent with: the round it was journaled under, if this
        journal may claim it (:meth:`claimable`)."""
        return self.claimable(out, out.rounds.at(seq))

    def claimable(self, out: _Journal, number: int | None) -> int | None:
        """The round journal ``out``'s events are tagged with under round ``number``'s seating: ``number``, or None
        when an earlier journal of this table has played a match of it to its end already. A table claims a round
        until it has played its match (docs/tournament.md "Which match is which round"): a revanche or a new match
        after it, in a journal of its own with the archive, is a casual match, never a second claim that would
        dispute the round; a match abandoned unfinished (*New match* before anyone won) is not the round's played,
        so the next one claims the round again and the server holds both for the director, saying which was left
        unfinished. Decided from the earlier journals' files alone (the rounds are journaled), so a restarted table
        decides the same, also with its cursor file lost."""
        if number is None:
            return None
        if number not in out.claims:
            out.claims[number] = not any(jc.index < out.cursor.index and number in self._played(jid, jc)
                                         for jid, jc in list(self.cursor.journals.items()))
        return number if out.claims[number] else None

    def withholds(self, number: int | None) -> bool:
        """Whether the journal the table writes now does not claim round ``number`` (the table's match of that
        round was played in an earlier journal): what the screen says."""
        out = self.journals.get(self.current)
        return out is not None and number is not None and self.claimable(out, number) is None

    def _played(self, jid: str, jc: JournalCursor) -> frozenset[int]:
        """The rounds an earlier journal played its match of: of its matches played to their end (or to the
        round's number of deals), the rounds their first trumps were named under, read by the server's own reader
        from the journal file (the rounds journaled in it)."""
        known = self._played_by.get(jid)
        if known is not None:
            return known
        path: Path | None = Path(jc.path) if jc.path else None
        if self.archive is not None and (path is None or not path.is_file() or jc.archived):
            path = find_archived(self.archive, jid, jc.path)
        found = read_journal_file(path, 0) if path is not None else None
        claimed: frozenset[int] = frozenset()
        rounds = JournalRounds.of(found[1], found[2]) if found is not None else None
        if found is not None and rounds is not None and any(number is not None for _, number in rounds.marks):
            feed = JournalFeed(jid)
            feed.add(0, {"header": found[1], "index": jc.index})
            for seq, line in found[2]:
                feed.add(seq, {"round": rounds.at(seq), "event": json.loads(line)})
            feed.advance()
            claimed = frozenset(m.round for m in feed.matches if m.started and m.round is not None
                                and rounds.finished(m.round, len(m.slate), m.over))
        self._played_by[jid] = claimed
        return claimed

    def _register_archive(self, archive: Path, current: str) -> None:
        """A cursor made anew (the file was lost): the archived matches may not have reached the server either.
        The newest :data:`~tablepi.feed.outbox.KEEP_DONE` are put in the outbox, oldest first (the server ignores
        what it has; their rounds are not known any more)."""
        from tablepi.journal import archive as match_archive

        for path in match_archive.matches(archive)[-KEEP_DONE:]:
            found = read_journal_file(path, 1 << 62)
            if found is not None and found[0] != current:
                jc = self.cursor.register(found[0], str(path))
                jc.archived = True
                jc.last = max(jc.last, 1)  # not done until its lines are read and acknowledged

    def resend(self, jid: str, first: int) -> int:
        """The server misses journal ``jid`` from seq ``first`` on: send it again from the journal itself (the
        current one, or the archive). Returns how many lines were put back in the outbox."""
        out = self.journals.get(jid)
        path: Path | None = None
        if jid == self.current and out is not None:
            path = Path(out.cursor.path)
        elif self.archive is not None:
            hint = self.cursor.journals[jid].path if jid in self.cursor.journals else ""
            path = find_archived(self.archive, jid, hint)
        found = read_journal_file(path, 0) if path is not None else None  # all: the rounds are read too
        if found is None:
            log.warning("feed: the server asked for journal %s from %d, which this table does not have",
                        jid[:12], first)
            return 0
        if out is None:
            out = self.journal(jid, str(path), found[1])
            out.cursor.archived = jid != self.current
        if first == 0:
            out.lines[0] = ""
        for seq, line in found[2]:
            out.add(seq, line, again=seq >= first)
        out.next_send = min(out.next_send, first)
        count = sum(seq >= first for seq, _ in found[2]) + (first == 0)
        self.resent += count
        log.info("feed: the server asked for journal %s from %d: %d lines sent again", jid[:12], first, count)
        return count

    def journal(self, jid: str, path: str, header: Any) -> _Journal:
        """Journal ``jid``'s part of the outbox, made (and registered in the cursor) when new."""
        known = self.journals.get(jid)
        if known is not None:
            return known
        header_obj = header if isinstance(header, dict) else header.to_json()
        jc = self.cursor.register(jid, path)
        out = _Journal(jid, jc, header_obj, JournalRounds(header_obj))
        out.rewind()
        if jc.acked < 0:
            out.lines[0] = ""  # the header message, made when sent
        self.journals[jid] = out
        self.dirty = True
        return out



class FeedPublisher:
    """Publishes one journaled table; :meth:`start` it after the app is built, :meth:`close` it before."""

    def __init__(
        self,
        config: FeedConfig,
        table: JournaledTable,
        *,
        on_message: Callable[[Seating | Notice], None] | None = None,
        client_factory: Callable[..., Any] | None = None,
    ) -> None:
        self.config = config
        self.on_message = on_message
        self.prefix = config.prefix
        cursor = Cursor.load(config.cursor or table.path.with_name("feed-cursor.json"))
        self._seating: Seating | None = None
        if cursor.seating is not None:
            try:
                self._seating = Seating.from_json(cursor.seating)
            except FeedError:
                self._seating = None
        self._queue: queue.SimpleQueue[tuple[Any, ...]] = queue.SimpleQueue()
        self._inflight: dict[int, tuple[str, int]] = {}
        self._connected = False
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._state: TableState | None = None
        self._state_sent = 0.0
        self.health = FeedHealth()
        self._told_played: int | None = None  # the round the screen was told this match does not count for
        self.outbox = Outbox(cursor, table)
        table.listeners.append(self)
        factory = client_factory or _default_factory
        will = (status_topic(self.prefix, config.table), encode({"table": config.table, "online": False}))
        self.client = factory(config, f"tablepi-table-{config.table}", will=will)
        self.client.on_connect = self._on_connect
        self.client.on_disconnect = self._on_disconnect
        self.client.on_connect_fail = self._on_connect_fail
        self.client.on_publish = self._on_publish
        self.client.on_message = self._on_message

    # --- what the core thread calls (never blocks) -------------------------------------------------------------

    @property
    def round(self) -> int | None:
        """The round of the seating this table has now (None outside a tournament)."""
        return None if self._seating is None else self._seating.round

    @property
    def seating(self) -> Seating | None:
        return self._seating

    def journaled(self, journal: Journal, seq: int, line: str) -> None:
        self._queue.put(("line", journal.id, str(journal.path), journal.header, seq, line))

    def rotated(self, old_id: str, archived: Path, new: Journal) -> None:
        self._queue.put(("rotated", old_id, str(archived), new.id, str(new.path), new.header))

    def show(self, state: TableState) -> None:
        self._queue.put(("state", state))

    # --- life ----------------------------------------------------------------------------------------------------

    def start(self) -> FeedPublisher:
        self.client.connect_async(self.config.host, self.config.port, self.config.keepalive, clean_start=True)
        self.client.loop_start()
        self._thread = threading.Thread(target=self._run, name=f"feed-{self.config.table}", daemon=True)
        self._thread.start()
        return self

    def close(self) -> None:
        """Stop: say offline, disconnect, keep the cursor. Idempotent."""
        if self._stop.is_set():
            return
        self._stop.set()
        self._queue.put(("wake",))
        if self._thread is not None:
            self._thread.join(5.0)
        if self._connected:
            info = self.client.publish(status_topic(self.prefix, self.config.table),
                                       encode({"table": self.config.table, "online": False}), qos=1, retain=True)
            info.wait_for_publish(1.0)
        self.client.disconnect()
        self.client.loop_stop()
        self.outbox.save(force=True)

    def __enter__(self) -> FeedPublisher:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def backlog(self) -> int:
        """Messages (events and headers) the broker has not acknowledged yet."""
        return self.outbox.backlog

    @property
    def connected(self) -> bool:
        return self._connected

    def wait_sent(self, timeout: float) -> bool:
        """Wait until everything journaled so far is acknowledged and the cursor written (tests, a clean
        shutdown)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self._queue.empty() and self.backlog == 0 and not self.outbox.dirty:
                return True
            time.sleep(0.02)
        return False

    # --- the thread ----------------------------------------------------------------------------------------------

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                item = self._queue.get(timeout=0.1)
                self._handle(item)
                while True:
                    self._handle(self._queue.get_nowait())
            except queue.Empty:
                pass
            except Exception:  # the feed must never take the table down
                log.exception("feed: unexpected error (the table plays on)")
            try:
                if self._connected:
                    self._send()
                    self._send_state()
                self.outbox.save()
            except Exception:
                log.exception("feed: unexpected error while sending (the table plays on)")

    def _handle(self, item: tuple[Any, ...]) -> None:
        self._handle_item(item)
        played = self.round if self.outbox.withholds(self.round) else None
        if played != self._told_played and self.on_message is not None:
            self._told_played = played
            self.on_message(Notice(NoticeCode.ROUND_PLAYED, (("round", played or 0),)))

    def _handle_item(self, item: tuple[Any, ...]) -> None:
        kind = item[0]
        if kind == "line":
            self.outbox.journaled(*item[1:])
        elif kind == "rotated":
            self.outbox.rotated(*item[1:])
        elif kind == "state":
            self._state = item[1]
        elif kind == "ack":
            _, mid, failed, reason = item
            where = self._inflight.pop(mid, None)
            if where is None:
                return
            if failed:
                self._refused(where, reason)
            elif self.outbox.acked(*where):
                self.health.acknowledged += 1
        elif kind == "connected":
            self._connected = True
            self.health.warned = False
            self.health.connect_warned = False
            self.outbox.rewind()
            self._inflight.clear()
            self._publish_online()
            self._state_sent = 0.0
        elif kind == "connect_failed":
            self._connect_failed()
        elif kind == "disconnected":
            self._connected = False
            self._inflight.clear()
        elif kind == "seating":
            self.outbox.cursor.seating = item[1].to_json()
            self.outbox.dirty = True
        elif kind == "resend":
            self.outbox.resend(item[1], item[2])

    def _publish_online(self) -> None:
        """The retained status: online, the last seq of the journal it plays in, and of the earlier ones it keeps
        (the server asks for what it lacks of them: a tail lost with a broker that crashed shows there, also of a
        match archived since)."""
        current = self.outbox.current
        out = self.outbox.journals.get(current)
        body: dict[str, Any] = {"table": self.config.table, "online": True}
        if out is not None and out.cursor.last > 0:
            body.update(journal=out.jid, last=out.cursor.last)
        earlier = sorted((jc.index, jid, jc.last) for jid, jc in self.outbox.cursor.journals.items()
                         if jid != current and jc.last > 0)[-KEEP_DONE:]
        if earlier:
            body["earlier"] = {jid: last for _, jid, last in earlier}
        self.client.publish(status_topic(self.prefix, self.config.table), encode(body), qos=1, retain=True)

    def _connect_failed(self) -> None:
        """paho could not connect (it retries on its own): say why once, in one line, until it connects. Over TLS
        the reason comes from a handshake of our own (paho does not pass it on): a wrong CA is named as such."""
        if self.health.connect_warned:
            return
        self.health.connect_warned = True
        where = f"{self.config.host}:{self.config.port}"
        tls = None
        if self.config.tls:
            from tablepi.feed.client import tls_problem

            tls = tls_problem(self.config)
        health = self.health
        health.problem = tls.text if tls is not None else f"cannot connect to the broker at {where}"
        log.warning("feed: %s. The table plays on; its events wait in the journal.", health.problem)
        if tls is not None and tls.untrusted and self.on_message is not None:
            self.on_message(Notice(NoticeCode.FEED_PROBLEM, (("text", f"feed: {health.problem}"),)))

    def _refused(self, where: tuple[str, int], reason: str) -> None:
        health = self.health
        health.refused += 1
        health.problem = f"the broker refused event {where[1]} of journal {where[0][:8]}: {reason}"
        if not health.warned:
            health.warned = True
            log.warning("feed: %s (check this table's ACL on the broker: tablepi doctor)", health.problem)
            if self.on_message is not None:
                self.on_message(Notice(NoticeCode.FEED_PROBLEM, (("text", f"feed: {health.problem}"),)))
        # Not acknowledged: it stays in the outbox and goes again after the next reconnect.
        for out in self.outbox.journals.values():
            if out.jid == where[0]:
                out.next_send = 1 << 62  # nothing more from this journal until a reconnect rewinds it

    def _send(self) -> None:
        topic = events_topic(self.prefix, self.config.table)
        for out in sorted(self.outbox.journals.values(), key=lambda j: j.cursor.index):
            if out.cursor.last < 1:
                continue  # the header goes with the first event
            while len(self._inflight) < WINDOW and out.next_send in out.lines:
                seq = out.next_send
                info = self.client.publish(topic, self._payload(out, seq), qos=1)
                self._inflight[info.mid] = (out.jid, seq)
                self.health.published += 1
                out.next_send += 1
            if len(self._inflight) >= WINDOW or out.lines:
                return  # journal order: a later journal waits for this one to be acknowledged

    def _payload(self, out: _Journal, seq: int) -> bytes:
        table = json.dumps(self.config.table)
        if seq == 0:
            return encode({"kind": "header", "table": self.config.table, "journal": out.jid, "seq": 0,
                           "index": out.cursor.index, "header": out.header})
        line = out.lines[seq]
        number = self.outbox.tag(out, seq)
        return (f'{{"v":1,"kind":"event","table":{table},"journal":"{out.jid}","seq":{seq},'
                f'"round":{"null" if number is None else number},"event":{line}}}').encode()

    def _send_state(self) -> None:
        state = self._state
        now = time.monotonic()
        if state is None or now - self._state_sent < STATE_INTERVAL:
            return
        self._state = None
        self._state_sent = now
        body = {"table": self.config.table, "round": self.round, "state": summary(state)}
        self.client.publish(state_topic(self.prefix, self.config.table), encode(body), qos=1, retain=True)

    # --- paho's network thread: only notes for the queue ---------------------------------------------------------

    def _on_connect(self, client: Any, userdata: Any, flags: Any, reason: Any, properties: Any = None) -> None:
        if getattr(reason, "is_failure", False):
            log.warning("feed: the broker refused the connection: %s", reason)
            return
        client.subscribe([(seating_topic(self.prefix, self.config.table), 1), (announce_topic(self.prefix), 1),
                          (resend_topic(self.prefix, self.config.table), 1)])
        self._queue.put(("connected",))

    def _on_connect_fail(self, client: Any, userdata: Any) -> None:
        self._queue.put(("connect_failed",))

    def _on_disconnect(self, client: Any, userdata: Any, flags: Any, reason: Any, properties: Any = None) -> None:
        self._queue.put(("disconnected",))

    def _on_publish(self, client: Any, userdata: Any, mid: int, reason: Any, properties: Any = None) -> None:
        self._queue.put(("ack", mid, bool(getattr(reason, "is_failure", False)), str(reason)))

    def _on_message(self, client: Any, userdata: Any, message: Any) -> None:
        try:
            obj = decode(message.payload)
            if message.topic == announce_topic(self.prefix):
                text = str(obj.get("text", ""))
                if text and self.on_message is not None:
                    self.on_message(Notice(NoticeCode.ANNOUNCEMENT, (("text", text),)))
                return
            if message.topic == resend_topic(self.prefix, self.config.table):
                jid, first = obj.get("journal"), obj.get("from")
                if not isinstance(jid, str) or isinstance(first, bool) or not isinstance(first, int) or first < 0:
                    raise FeedError(f"resend: expected a journal and a seq, got {obj!r:.80}")
                self._queue.put(("resend", jid, first))
                return
            seating = Seating.from_json(obj)
        except FeedError as error:
            log.warning("feed: ignored a message on %s: %s", message.topic, error)
            return
        if seating != self._seating:
            self._seating = seating
            self._queue.put(("seating", seating))
            if self.on_message is not None:
                self.on_message(seating)


def _default_factory(config: FeedConfig, client_id: str, *, will: tuple[str, bytes]) -> Any:
    from tablepi.feed.client import make_client

    return make_client(config, client_id, will=will)
