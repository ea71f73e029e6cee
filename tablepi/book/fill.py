"""Filling the book from the journal and the archive: as matches finish (:class:`BookKeeper`, a journal listener
with a worker thread), and all over again (:func:`rebuild`).

The keeper follows the journal the table writes: the core thread only puts each journaled line on a queue (a
:class:`~tablepi.journal.journal.JournalListener` must never make the table wait); the keeper's thread replays the lines
through its own :class:`~tablepi.table.machine.Table` and, the moment a match is won, adds it to the book with its
reviews. When the journal rotates, matches of the archived file that the book lacks (one abandoned unfinished) are
added from the archive. Each time the keeper has taken what was queued, it hands what it made of the table now
(the live view: only cards already played, never a hand) to ``show``: the pages' process
(:class:`~tablepi.book.process.PagesProcess`) or a :class:`~tablepi.book.pages.LiveBoard`, whose open streams then
look, not on a timer.
"""

from __future__ import annotations

import json
import logging
import queue
import threading
import time
from collections.abc import Callable, Container
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tablepi.book.facts import MatchFacts, Reviewer, match_facts
from tablepi.book.store import Book
from tablepi.errors import RecordError
from tablepi.journal import archive as match_archive
from tablepi.journal.record import RecordHeader, load_record, parse_event
from tablepi.table.events import TableEvent
from tablepi.table.machine import Table

if TYPE_CHECKING:
    from tablepi.journal.journal import Journal, JournaledTable

log = logging.getLogger(__name__)

#: The channel of the pages' streams (tablepi.book.pages): the book or the live view has changed.
CHANNEL = "book"
#: What the phones see: (version, each table now); a new version each time it changed.
LiveView = tuple[int, list[dict[str, Any]]]


def archive_time(path: Path) -> float:
    """When an archived match was archived: the UTC stamp in its name (``journal-YYYYMMDD-HHMMSS.n-<id>``), else
    the file's time."""
    parts = path.name.split("-")
    if len(parts) >= 4:
        try:
            return float(time.mktime(time.strptime(parts[1] + parts[2][:6], "%Y%m%d%H%M%S"))) - time.timezone
        except (ValueError, OverflowError):
            pass
    return path.stat().st_mtime


def record_facts(path: Path, table: str, *, finished_only: bool = False, review: bool = True,
                 ended: float | None = None, reviewer: Reviewer | None = None) -> list[MatchFacts]:
    """The matches of a game record or archived match (``.jsonl``, ``.jsonl.gz``)."""
    record = load_record(path, [])  # a name an earlier tablepi wrote: read as the table reads it
    journal = match_archive.journal_id_of(path) or path.name
    when = ended if ended is not None else archive_time(path)
    return match_facts(record.header, record.events, table=table, journal=journal, ended=when,
                       finished_only=finished_only, review=review, reviewer=reviewer)


def journal_facts(path: Path, table: str, *, review: bool = True) -> list[MatchFacts]:
    """The finished matches of a live journal (read only, like ``tablepi export``)."""
    from tablepi.journal.journal import read_journal

    view = read_journal(path)
    try:
        events = view.events([])  # a name an earlier tablepi wrote is read as the table reads it
    except RecordError as err:
        log.warning("the book skips %s: %s", path, err)
        return []
    journal = _journal_id(path)
    ended = path.stat().st_mtime if path.exists() else time.time()
    return match_facts(view.header, events, table=table, journal=journal, ended=ended, finished_only=True,
                       review=review)


def _journal_id(path: Path) -> str:
    import sqlite3

    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            row = db.execute("SELECT value FROM meta WHERE key='id'").fetchone()
        finally:
            db.close()
    except sqlite3.Error:
        row = None
    return str(row[0]) if row else path.name


def rebuild(book: Book, journal: Path, archive: Path | None, table: str, *, review: bool = True) -> int:
    """The book made again from the archive and the journal (players' choices and forgotten names kept)."""
    book.clear_derived()
    count = 0
    if archive is not None:
        for path in match_archive.matches(archive):
            if not path.name.endswith(".jsonl.gz"):
                continue
            try:
                count += book.add(record_facts(path, table, review=review))
            except (RecordError, OSError, ValueError) as err:
                log.warning("the book skips %s: %s", path, err)
    if journal.exists():
        count += book.add(journal_facts(journal, table, review=review))
    return count


class JournalMirror:
    """The journal as the book keeper follows it: its lines replayed through a table state machine of its own,
    and which of its matches are won (what the keeper adds to the book)."""

    def __init__(self, header: RecordHeader, journal_id: str, events: list[TableEvent]) -> None:
        self.header = header
        self.journal_id = journal_id
        self.events = events
        self.table = Table.replay(events, header.house_rules, header.dealer, header.table)
        self.previous = events[-1].time if events else 0.0
        self.won = {n for n, m in enumerate(self.table.matches, start=1) if m.winner is not None}

    def take(self, line: str) -> int | None:
        """One journaled line; returns the number of the match it won, if it won one."""
        event = parse_event(json.loads(line), self.header, len(self.events) + 1, self.previous)
        self.previous = event.time
        self.events.append(event)
        self.table.advance(event)
        number = len(self.table.matches)
        if number in self.won or self.table.matches[-1].winner is None:
            return None
        self.won.add(number)
        return number

    def facts(self, numbers: Container[int], table: str, review: bool,
              reviewer: Reviewer | None) -> list[MatchFacts]:
        """The won matches ``numbers`` of this journal, as the book takes them."""
        found = match_facts(self.header, self.events, table=table, journal=self.journal_id, ended=time.time(),
                            finished_only=True, review=review, reviewer=reviewer)
        return [f for f in found if f.number in numbers]

    def live_view(self, table: str) -> dict[str, Any]:
        """The table now, as the phones see it: the feed's summary (cards played, never a hand) and the seats."""
        from tablepi.feed.messages import summary

        state = self.table.state
        return {"table": table, "state": summary(state),
                "seats": {seat.value: name for seat, name in state.names}, "at": time.time()}


class BookKeeper:
    """Keeps the book up to date with the running table (a :class:`~tablepi.journal.journal.JournalListener`);
    ``show`` is handed the live view (on the keeper's thread) each time the book or the live view may have
    changed, and once as the keeper starts."""

    def __init__(self, book: Book, journaled: JournaledTable, table: str, *, review: bool = True,
                 reviewer: Reviewer | None = None, show: Callable[[LiveView], None] = lambda live: None) -> None:
        self.book = book
        self.table = table
        self.review = review
        self.reviewer = reviewer
        self._queue: queue.SimpleQueue[tuple[str, Any]] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        # the journal as the table replayed it
        self._mirror = JournalMirror(journaled.header, journaled.journal.id, list(journaled.journal.events([])))
        self._dirty = False
        self._live: LiveView = (1, [self._mirror.live_view(table)])
        self._show = show
        self.idle = threading.Event()
        self.idle.set()
        journaled.listeners.append(self)

    # --- the journal's listener (core thread: a queue put, nothing else) -------------------------------------

    def journaled(self, journal: Journal, seq: int, line: str) -> None:
        self.idle.clear()
        self._queue.put(("line", line))

    def rotated(self, old_id: str, archived: Path, new: Journal) -> None:
        self.idle.clear()
        self._queue.put(("rotated", (archived, new.id, new.header)))

    def opt_in(self, name: str) -> None:
        """A player chose on the screen to be named on the pages (core thread: noted, the book is written here)."""
        self._queue.put(("public", name))

    # --- the worker ------------------------------------------------------------------------------------------

    def start(self) -> BookKeeper:
        """Start the keeper's thread; first it adds the journal's won matches the book lacks (the table was stopped
        before the keeper had added the last one)."""
        mirror = self._mirror
        missing = [n for n in sorted(mirror.won) if not self.book.has(f"{self.table}:{mirror.journal_id}:{n}")]
        if missing:
            self.idle.clear()
            self._queue.put(("missing", missing))
        self._show(self._live)
        self._thread = threading.Thread(target=self._run, name="book", daemon=True)
        self._thread.start()
        return self

    def close(self, wait: float = 10.0) -> None:
        """Stop after what was queued (at most ``wait`` seconds; a match's reviews may take longer: a match the
        book then lacks is added at the next start, or when the journal rotates)."""
        if self._thread is not None:
            self._queue.put(("stop", None))
            self._thread.join(wait)
            self._thread = None

    def _run(self) -> None:
        while True:
            kind, body = self._queue.get()
            try:
                if kind == "stop":
                    return
                if kind == "line":
                    self._line(body)
                elif kind == "rotated":
                    self._rotated(*body)
                elif kind == "public":
                    self.book.set_public(body, True)
                elif kind == "missing":
                    self.book.add(self._mirror.facts(body, self.table, self.review, self.reviewer))
            except Exception:  # the book must never stop the table: say it and go on
                log.exception("the players' book could not take %s", kind)
            if self._queue.empty():
                self._publish()
                self._show(self._live)
                self.idle.set()

    def _line(self, line: str) -> None:
        won = self._mirror.take(line)
        self._dirty = True
        if won is not None:
            self.book.add(self._mirror.facts((won,), self.table, self.review, self.reviewer))

    def _rotated(self, archived: Path, new_id: str, header: RecordHeader) -> None:
        try:
            found = record_facts(archived, self.table, review=self.review, reviewer=self.reviewer)
        except (RecordError, OSError, ValueError) as err:
            log.warning("the book skips %s: %s", archived, err)
            found = []
        self.book.add([f for f in found if not self.book.has(f.key)])
        self._mirror = JournalMirror(header, new_id, [])
        self._dirty = True

    def _publish(self) -> None:
        if not self._dirty:
            return
        self._dirty = False
        self._live = (self._live[0] + 1, [self._mirror.live_view(self.table)])


def default_book_path(journal: Path) -> Path:
    """The book beside the journal: ``players.sqlite3``."""
    return journal.with_name("players.sqlite3")
