"""The outbox: which journaled events the broker has acknowledged, kept in a small cursor file.

The journal itself is the outbox (every event is in it, durable, before the screen shows it); this file only says
how far the broker has acknowledged each journal, so a restarted table resends from there and not from the start.
Losing the file costs duplicates, never events: the tournament server ignores an event it already has.

The file is JSON, written whole to a temporary file and renamed (no fsync: a cursor a little behind is harmless)::

    {"v": 1, "next_index": 3, "seating": {...} | null,
     "journals": {"<journal id>": {"index": 2, "acked": 57, "path": "...", "archived": false, "last": 60}}}

Which tournament round each event was journaled under is not in this file: the journal says it (the tournament's
seating is journaled with its round, :class:`JournalRounds`), so a cursor made anew decides every event's round as
the lost one did.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tablepi.errors import RecordError
from tablepi.journal.journal import round_in_force
from tablepi.journal.record import parse_event, parse_header
from tablepi.safeinput import load_json

#: Journals fully sent and archived are forgotten beyond this many (the newest are kept).
KEEP_DONE = 20


@dataclass
class JournalRounds:
    """Which tournament round was in force at each event of one journal, as the journal itself says: a seating by
    the tournament is journaled with its round, and a new journal begins with the names kept and the round in force
    (:func:`tablepi.journal.journal.round_in_force`). Read line by line, in seq order from the first."""

    header: dict[str, Any]
    marks: list[tuple[int, int | None]] = field(default_factory=list)  # (from seq, round), seq ascending
    deals: dict[int, int] = field(default_factory=dict)  # round -> its length in deals (a round of N deals)
    read: int = 0  # lines read, 1..read

    def line(self, seq: int, line: str) -> None:
        """Read line ``seq`` (the next one; a line read before is skipped)."""
        if seq != self.read + 1:
            return
        self.read = seq
        if '"source"' not in line:  # only a seating has a source: nothing else changes the round
            return
        try:
            event = parse_event(load_json(line), parse_header(self.header, 0), seq)
        except (RecordError, ValueError):
            return  # not a line the table journaled: it changes nothing
        seated = round_in_force((event,), None)
        if seated is None:
            return
        if seated.round is not None and seated.round_deals is not None:
            self.deals[seated.round] = seated.round_deals
        if seated.round != self.at(seq):
            self.marks.append((seq, seated.round))

    def at(self, seq: int) -> int | None:
        """The round in force when event ``seq`` was journaled (None: no tournament seating)."""
        found: int | None = None
        for start, number in self.marks:
            if start > seq:
                break
            found = number
        return found

    def finished(self, number: int, scored: int, over: bool) -> bool:
        """Whether a match begun under round ``number``, with ``scored`` deals and ``over`` or not, is the table's
        whole match of that round: played to its end, or to the round's number of deals."""
        return over or (number in self.deals and scored >= self.deals[number])

    @classmethod
    def of(cls, header: dict[str, Any], lines: list[tuple[int, str]]) -> JournalRounds:
        rounds = cls(header)
        for seq, line in lines:
            rounds.line(seq, line)
        return rounds


@dataclass
class JournalCursor:
    index: int  # the table's own numbering of its journals, in the order they began
    acked: int = -1  # every seq up to this one is acknowledged (0 is the header message; -1: nothing yet)
    path: str = ""
    archived: bool = False
    last: int = 0  # the highest seq known to exist (archived journals: when it is acked, the journal is done)

    @property
    def done(self) -> bool:
        return self.archived and self.acked >= self.last


@dataclass
class Cursor:
    path: Path
    next_index: int = 1
    seating: dict[str, Any] | None = None
    journals: dict[str, JournalCursor] = field(default_factory=dict)
    rebuilt: bool = False  # no readable file: nothing is known to be sent, the archive included

    @classmethod
    def load(cls, path: Path) -> Cursor:
        cursor = cls(path, rebuilt=True)
        try:
            obj = load_json(path.read_text(encoding="utf-8"))  # bounded: a mangled file is only unreadable
        except (OSError, ValueError):
            return cursor  # none yet, or unreadable: resend everything (the server deduplicates)
        if not isinstance(obj, dict) or obj.get("v") != 1:
            return cursor
        cursor.rebuilt = False
        with contextlib.suppress(TypeError, ValueError, AttributeError):
            cursor.next_index = int(obj.get("next_index", 1))
            seating = obj.get("seating")
            cursor.seating = seating if isinstance(seating, dict) else None
            for jid, item in dict(obj.get("journals", {})).items():
                cursor.journals[str(jid)] = JournalCursor(
                    int(item["index"]), int(item.get("acked", -1)),
                    str(item.get("path", "")), bool(item.get("archived", False)), int(item.get("last", 0)))
        return cursor

    def register(self, jid: str, path: str) -> JournalCursor:
        known = self.journals.get(jid)
        if known is None:
            known = JournalCursor(self.next_index, path=path)
            self.next_index += 1
            self.journals[jid] = known
        return known

    def save(self) -> None:
        done = sorted((c.index, jid) for jid, c in self.journals.items() if c.done)
        for _, jid in done[:-KEEP_DONE]:
            del self.journals[jid]
        obj = {
            "v": 1, "next_index": self.next_index, "seating": self.seating,
            "journals": {jid: {"index": c.index, "acked": c.acked, "path": c.path,
                               "archived": c.archived, "last": c.last} for jid, c in self.journals.items()},
        }
        tmp = self.path.with_name(self.path.name + ".tmp")
        tmp.write_text(json.dumps(obj, ensure_ascii=False), encoding="utf-8")
        os.replace(tmp, self.path)


def read_journal_file(path: Path, after: int) -> tuple[str, dict[str, Any], list[tuple[int, str]]] | None:
    """(id, header, lines after ``after``) of a journal file that is not open in this process (an archived
    one), read-only; None when it is not a readable journal."""
    if path.name.endswith(".jsonl.gz"):  # the archive keeps finished matches as compressed records
        from tablepi.journal import archive

        try:
            head, rest = archive.read_lines(path)
            return (archive.journal_id_of(path), json.loads(head),
                    [(seq, line) for seq, line in enumerate(rest, start=1) if seq > after])
        except (OSError, EOFError, ValueError):
            return None
    try:
        with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as db:
            meta = dict(db.execute("SELECT key, value FROM meta").fetchall())
            lines = list(db.execute("SELECT seq, line FROM events WHERE seq > ? ORDER BY seq", (after,)))
        return str(meta.get("id", "")), json.loads(meta["header"]), lines
    except (sqlite3.Error, KeyError, ValueError):
        return None


def find_archived(archive: Path, jid: str, hint: str = "", newest: int = 50) -> Path | None:
    """The archived journal file with id ``jid``: ``hint`` if it is that one, else a search of the newest files."""
    candidates: list[Path] = [Path(hint)] if hint else []
    with contextlib.suppress(OSError):
        files = [*archive.glob("*.jsonl.gz"), *archive.glob("*.sqlite3")]
        candidates += sorted(files, key=lambda p: p.stat().st_mtime, reverse=True)[:newest]
    for candidate in candidates:
        if candidate.is_file():
            found = read_journal_file(candidate, 1 << 62)
            if found is not None and found[0] == jid:
                return candidate
    return None
