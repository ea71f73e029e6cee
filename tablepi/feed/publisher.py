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
from tablepi.feed.outbox import KEEP_DONE, Cursor, JournalCursor, find_archived, read_journal_file
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
    """One journal's part of the outbox: every line not acknowledged yet (seq 0 is the header message)."""

    jid: str
    cursor: JournalCursor
    header: dict[str, Any]
    lines: dict[int, str] = field(default_factory=dict)
    next_send: int = 0
    acked_ahead: set[int] = field(default_factory=set)  # acknowledged out of order, beyond cursor.acked

    def add(self, seq: int, line: str, again: bool = False) -> None:
        """A line to send (``again``: one acknowledged before, asked for again by the server)."""
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
        self.cursor = Cursor.load(config.cursor or table.path.with_name("feed-cursor.json"))
        self._seating: Seating | None = None
        if self.cursor.seating is not None:
            try:
                self._seating = Seating.from_json(self.cursor.seating)
            except FeedError:
                self._seating = None
        self._queue: queue.SimpleQueue[tuple[Any, ...]] = queue.SimpleQueue()
        self._journals: dict[str, _Journal] = {}
        self._inflight: dict[int, tuple[str, int]] = {}
        self._connected = False
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._state: TableState | None = None
        self._state_sent = 0.0
        self._saved = 0.0
        self._dirty = False
        self._warned = False
        self.refused = 0
        self.problem = ""
        self.published = 0
        self.acknowledged = 0
        self._archive = table.archive
        self._current = table.journal.id
        self.resent = 0  # lines sent again because the server asked
        self._load_backlog(table)
        table.listeners.append(self)
        factory = client_factory or _default_factory
        will = (status_topic(self.prefix, config.table), encode({"table": config.table, "online": False}))
        self.client = factory(config, f"tablepi-table-{config.table}", will=will)
        self.client.on_connect = self._on_connect
        self.client.on_disconnect = self._on_disconnect
        self.client.on_connect_fail = self._on_connect_fail
        self._connect_warned = False
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
        self._queue.put(("line", journal.id, str(journal.path), journal.header, seq, line, self.round))

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
        self._save(force=True)

    def __enter__(self) -> FeedPublisher:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def backlog(self) -> int:
        """Messages (events and headers) the broker has not acknowledged yet."""
        return sum(len(j.lines) for j in self._journals.values())

    @property
    def connected(self) -> bool:
        return self._connected

    def wait_sent(self, timeout: float) -> bool:
        """Wait until everything journaled so far is acknowledged and the cursor written (tests, a clean
        shutdown)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self._queue.empty() and self.backlog == 0 and not self._dirty:
                return True
            time.sleep(0.02)
        return False

    # --- the outbox at start -------------------------------------------------------------------------------------

    def _load_backlog(self, table: JournaledTable) -> None:
        """What the broker has not acknowledged: older journals (archived since) first, then the current one.
        Runs before the core starts, on its thread: the journal is not being written."""
        current = table.journal
        if self.cursor.rebuilt and table.archive is not None:
            self._register_archive(table.archive, current.id)
        for jid, jc in sorted(self.cursor.journals.items(), key=lambda item: item[1].index):
            if jid == current.id or jc.done:
                continue
            path = find_archived(table.archive, jid, jc.path) if table.archive is not None else None
            found = read_journal_file(path, max(jc.acked, 0)) if path is not None else None
            if found is None:
                log.warning("feed: journal %s (%d events not acknowledged) is gone; they cannot be sent", jid,
                            max(0, jc.last - jc.acked))
                jc.archived, jc.acked = True, jc.last
                continue
            jc.path, jc.archived = str(path), True
            out = self._journal(jid, str(path), found[1])
            for seq, line in found[2]:
                out.add(seq, line)
        lines = current.lines_after(0)
        now = self._journal(current.id, str(current.path), current.header.to_json())
        if lines and not now.cursor.rounds:
            now.cursor.tag(1, self.round)  # begun before the feed was on: the seating it has now, if any
        for seq, line in lines:
            now.add(seq, line)

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
        out = self._journals.get(jid)
        path: Path | None = None
        if jid == self._current and out is not None:
            path = Path(out.cursor.path)
        elif self._archive is not None:
            hint = self.cursor.journals[jid].path if jid in self.cursor.journals else ""
            path = find_archived(self._archive, jid, hint)
        found = read_journal_file(path, max(first, 1) - 1) if path is not None else None
        if found is None:
            log.warning("feed: the server asked for journal %s from %d, which this table does not have",
                        jid[:12], first)
            return 0
        if out is None:
            out = self._journal(jid, str(path), found[1])
            out.cursor.archived = jid != self._current
        if first == 0:
            out.lines[0] = ""
        for seq, line in found[2]:
            out.add(seq, line, again=True)
        out.next_send = min(out.next_send, first)
        count = len(found[2]) + (first == 0)
        self.resent += count
        log.info("feed: the server asked for journal %s from %d: %d lines sent again", jid[:12], first, count)
        return count

    def _journal(self, jid: str, path: str, header: Any) -> _Journal:
        known = self._journals.get(jid)
        if known is not None:
            return known
        header_obj = header if isinstance(header, dict) else header.to_json()
        jc = self.cursor.register(jid, path)
        out = _Journal(jid, jc, header_obj)
        out.rewind()
        if jc.acked < 0:
            out.lines[0] = ""  # the header message, made when sent
        self._journals[jid] = out
        self._dirty = True
        return out

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
                self._save()
            except Exception:
                log.exception("feed: unexpected error while sending (the table plays on)")

    def _handle(self, item: tuple[Any, ...]) -> None:
        kind = item[0]
        if kind == "line":
            _, jid, path, header, seq, line, round_ = item
            out = self._journals.get(jid) or self._journal(jid, path, header)
            if out.cursor.tag(seq, round_):
                self._dirty = True
            out.add(seq, line)
        elif kind == "rotated":
            _, old_id, archived, new_id, new_path, header = item
            old = self._journals.get(old_id)
            if old is not None:
                old.cursor.path, old.cursor.archived = archived, True
            self._journal(new_id, new_path, header)
            self._current = new_id
            self._dirty = True
        elif kind == "state":
            self._state = item[1]
        elif kind == "ack":
            _, mid, failed, reason = item
            where = self._inflight.pop(mid, None)
            if where is None:
                return
            acked = self._journals.get(where[0])
            if failed:
                self._refused(where, reason)
            elif acked is not None:
                acked.ack(where[1])
                self.acknowledged += 1
                self._dirty = True
        elif kind == "connected":
            self._connected = True
            self._warned = False
            self._connect_warned = False
            for out in self._journals.values():
                out.rewind()
            self._inflight.clear()
            self._publish_online()
            self._state_sent = 0.0
        elif kind == "connect_failed":
            self._connect_failed()
        elif kind == "disconnected":
            self._connected = False
            self._inflight.clear()
        elif kind == "seating":
            self.cursor.seating = item[1].to_json()
            self._dirty = True
        elif kind == "resend":
            self.resend(item[1], item[2])

    def _publish_online(self) -> None:
        """The retained status: online, and the last seq of the journal it plays in (the server asks for what it
        lacks of it: a tail lost with a broker that crashed shows there)."""
        out = self._journals.get(self._current)
        body: dict[str, Any] = {"table": self.config.table, "online": True}
        if out is not None and out.cursor.last > 0:
            body.update(journal=out.jid, last=out.cursor.last)
        self.client.publish(status_topic(self.prefix, self.config.table), encode(body), qos=1, retain=True)

    def _connect_failed(self) -> None:
        """paho could not connect (it retries on its own): say why once, in one line, until it connects. Over TLS
        the reason comes from a handshake of our own (paho does not pass it on): a wrong CA is named as such."""
        if self._connect_warned:
            return
        self._connect_warned = True
        where = f"{self.config.host}:{self.config.port}"
        tls = None
        if self.config.tls:
            from tablepi.feed.client import tls_problem

            tls = tls_problem(self.config)
        self.problem = tls.text if tls is not None else f"cannot connect to the broker at {where}"
        log.warning("feed: %s. The table plays on; its events wait in the journal.", self.problem)
        if tls is not None and tls.untrusted and self.on_message is not None:
            self.on_message(Notice(NoticeCode.FEED_PROBLEM, (("text", f"feed: {self.problem}"),)))

    def _refused(self, where: tuple[str, int], reason: str) -> None:
        self.refused += 1
        self.problem = f"the broker refused event {where[1]} of journal {where[0][:8]}: {reason}"
        if not self._warned:
            self._warned = True
            log.warning("feed: %s (check this table's ACL on the broker: tablepi doctor)", self.problem)
            if self.on_message is not None:
                self.on_message(Notice(NoticeCode.FEED_PROBLEM, (("text", f"feed: {self.problem}"),)))
        # Not acknowledged: it stays in the outbox and goes again after the next reconnect.
        for out in self._journals.values():
            if out.jid == where[0]:
                out.next_send = 1 << 62  # nothing more from this journal until a reconnect rewinds it

    def _send(self) -> None:
        topic = events_topic(self.prefix, self.config.table)
        for out in sorted(self._journals.values(), key=lambda j: j.cursor.index):
            if out.cursor.last < 1:
                continue  # the header goes with the first event
            while len(self._inflight) < WINDOW and out.next_send in out.lines:
                seq = out.next_send
                info = self.client.publish(topic, self._payload(out, seq), qos=1)
                self._inflight[info.mid] = (out.jid, seq)
                self.published += 1
                out.next_send += 1
            if len(self._inflight) >= WINDOW or out.lines:
                return  # journal order: a later journal waits for this one to be acknowledged

    def _payload(self, out: _Journal, seq: int) -> bytes:
        table = json.dumps(self.config.table)
        if seq == 0:
            return encode({"kind": "header", "table": self.config.table, "journal": out.jid, "seq": 0,
                           "index": out.cursor.index, "header": out.header})
        line = out.lines[seq]
        number = out.cursor.round_at(seq)
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

    def _save(self, force: bool = False) -> None:
        now = time.monotonic()
        if self._dirty and (force or now - self._saved >= SAVE_INTERVAL):
            try:
                self.cursor.save()
            except OSError as error:
                log.warning("feed: cannot write the cursor %s: %s (events will be sent again)",
                            self.cursor.path, error)
            self._saved = now
            self._dirty = False

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
