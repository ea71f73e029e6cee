"""The evening: every match played at the table since it was switched on, or since midnight, the archived ones
included.

The journal holds one match (docs/journal.md, "Retention"); the matches before it this evening are in ``archive/``.
Players, the owner and ``tablepi export`` mean the evening: the screen's history lists its deals, match numbers
count from its first match, names stay from match to match until players change them, and the export writes it
whole.

The rule (docs/journal.md, "The evening"):

- **Switched on**: the table starts after being off for :data:`OFF_GAP` or more (its journal not written for that
  long), or for the first time. The evening begins with the match on the table, unless that match is over (the
  players of the last evening left it on the slate): then it begins with the next match.
- **A restart** (a power cut, a crash, an update) within :data:`OFF_GAP` of the journal's last write is not a
  switch-on: the evening goes on. The players cannot tell a power cut from the table's own restart, and neither
  may lose them the evening.
- **Midnight**: a table switched on before midnight that runs on begins a new evening with the first match begun
  after midnight. A match is in the evening it began in: the match in play at midnight, and its deals after
  midnight, stay in the evening before.

A match begins in a journal of its own (the rotation, :class:`tablepi.journal.journal.JournaledTable`), so the
evening is kept as the id of the journal its first match began in, in ``archive/evening.json`` (:class:`Mark`):
the archived matches of the evening are that journal's and the ones archived after it. The wall clock is consulted
only at a switch-on and when a new match begins; table time (the events' times) never is.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from tablepi.errors import RecordError
from tablepi.journal import archive
from tablepi.journal.eventlog import copy_path
from tablepi.journal.record import load_record
from tablepi.journal.salvage import wal_path
from tablepi.rules import Seat, Team
from tablepi.rules.deal import Announcement, DealResult
from tablepi.rules.slate import SlateEntry
from tablepi.table.machine import Table
from tablepi.table.state import Evening, HistoryRow

log = logging.getLogger(__name__)

#: A table whose journal was not written for this long (seconds) was switched off: its next start begins a new
#: evening. Shorter is a power cut or a restart, and the evening goes on (a dinner break with the table off too).
OFF_GAP = 2 * 3600.0

#: The file beside the archived matches that says where the evening began.
MARK_NAME = "evening.json"

#: The file beside the archived matches that keeps what each one played (:class:`SummaryCache`).
CACHE_NAME = "evening-cache.json"
CACHE_FORMAT = 1

Clock = Callable[[], float]


def last_midnight(now: float) -> float:
    """The last local midnight at or before ``now`` (epoch seconds)."""
    day = time.localtime(now)
    return time.mktime((day.tm_year, day.tm_mon, day.tm_mday, 0, 0, 0, 0, 0, -1))


@dataclass(frozen=True, slots=True)
class Mark:
    """Where the evening began: ``first``, the id of the journal its first match began in ("" while that match has
    not begun: the table was switched on with the last evening's finished match on it); ``began``, the wall time
    it began (a switch-on, or the new match); ``journal``, the journal the table was on when this was written (a
    new match begun since, in a new journal, is seen at the next start even if a power cut came first)."""

    first: str
    began: float
    journal: str

    def then(self, journal: str, now: float) -> Mark:
        """The evening once a new match begins in ``journal`` at ``now``: a new evening if none had begun yet or
        midnight has passed since this one began, else this one going on."""
        if journal == self.journal:
            return self
        if not self.first or self.began < last_midnight(now):
            return Mark(journal, now, journal)
        return replace(self, journal=journal)


def switched_on(journal: str, over: bool, now: float) -> Mark:
    """The evening of a table switched on at ``now`` on ``journal``: it begins with the journal's match, or with
    the next one if that match is ``over``."""
    return Mark("" if over else journal, now, journal)


def read_mark(folder: Path) -> Mark | None:
    """The evening's mark in the archive ``folder``; None when there is none or it does not read (the evening is
    then begun again, as at a switch-on)."""
    try:
        data = json.loads((folder / MARK_NAME).read_text(encoding="utf-8"))
        return Mark(str(data["first"]), float(data["began"]), str(data["journal"]))
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError) as err:
        log.warning("%s does not read (%s): the evening begins again", folder / MARK_NAME, err)
        return None


def write_mark(folder: Path, mark: Mark) -> None:
    """Write the mark atomically (a power cut leaves the old one or the new one)."""
    _write_atomically(folder / MARK_NAME, json.dumps({"first": mark.first, "began": mark.began,
                                                      "journal": mark.journal}))


def _write_atomically(target: Path, text: str) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    archive.write_atomically(target, lambda raw: raw.write((text + "\n").encode("utf-8")))


def tonight(folder: Path, mark: Mark | None = None) -> list[Path]:
    """The matches of the evening in the archive ``folder``, oldest first: the first journal's and every one
    archived after it (``mark``: the evening's, read from the folder when not given). Archives of older versions
    (``.sqlite3``) are not read."""
    if mark is None:
        mark = read_mark(folder)
    if mark is None or not mark.first:
        return []
    found = [p for p in archive.matches(folder) if p.name.endswith(".jsonl.gz")]
    ids = [archive.journal_id_of(p) for p in found]
    if mark.first in ids:
        return found[ids.index(mark.first):]
    if mark.first == mark.journal:
        return []  # the evening's first match is the journal's, not archived yet
    return found  # its first matches were pruned (``keep_matches``): what is left of it


def last_written(journal: Path) -> float | None:
    """The wall time the journal ``journal`` was last written (the database, its write-ahead log or its second
    copy, whichever is newest: each event reaches the copy and the log, the database only at a checkpoint); None if
    none exists."""
    times = []
    for path in (journal, wal_path(journal), copy_path(journal)):
        with contextlib.suppress(OSError):
            times.append(path.stat().st_mtime)
    return max(times) if times else None


class EveningBook:
    """The evening of one table: where it began (:class:`Mark`), each archived match of it read once, kept as an
    :class:`Evening` of its own (numbered from 1), and strung together on demand."""

    def __init__(self, folder: Path | None, clock: Clock = time.time, cached: bool = True) -> None:
        self.folder = folder
        self.clock = clock
        self.mark: Mark | None = None
        self._alone: dict[Path, Evening] = {}
        self.cache = SummaryCache(folder) if folder is not None and cached else None

    def resume(self, journal: str, written: float | None) -> bool:
        """The table starts on ``journal``, last written at ``written`` (wall time). A restart finds the evening
        it left (and a new match begun since, in this journal) and says True; a switch-on says False, and the
        evening begins with :meth:`switch_on` (which needs to know whether the journal's match is over: until then
        the evening holds no archived match)."""
        if self.folder is None:
            return True
        now = self.clock()
        mark = read_mark(self.folder)
        if mark is None or written is None or now - written >= OFF_GAP:
            self.mark = None
            return False
        self._keep(mark.then(journal, now))
        return True

    def switch_on(self, journal: str, over: bool) -> None:
        """The table was switched on on ``journal``: the evening begins with its match, or the next if ``over``."""
        if self.folder is not None:
            self._keep(switched_on(journal, over, self.clock()))

    def new_match(self, journal: str) -> None:
        """A new match began in the fresh ``journal``: the evening goes on, or (after midnight, or when the
        switch-on's evening had not begun) a new one begins with it."""
        if self.folder is None or self.mark is None:
            return
        self._keep(self.mark.then(journal, self.clock()))

    def _keep(self, mark: Mark) -> None:
        assert self.folder is not None
        if mark != self.mark or not (self.folder / MARK_NAME).exists():
            try:
                write_mark(self.folder, mark)
            except OSError as err:  # a full card: the evening holds while the table runs, and is begun again later
                log.error("cannot write the evening's mark %s: %s", self.folder / MARK_NAME, err)
        self.mark = mark

    def before_current(self) -> Evening:
        """What the evening holds before the journal's match: every match of it archived, in order (a book that
        did not start a table reads the evening's mark from the folder)."""
        evening = Evening()
        if self.folder is None:
            return evening
        for path in tonight(self.folder, self.mark):
            alone = self._read(path)
            if alone is not None:
                evening = evening.then(alone.matches, alone.history)
        if self.cache is not None:
            self.cache.save()
        return evening

    def archived(self, path: Path, table: Table) -> None:
        """``table``'s journal was just archived at ``path``: what it played is known without reading it back."""
        self._alone[path] = _alone(table)
        if self.cache is not None:
            self.cache.put(path, self._alone[path])

    def _read(self, path: Path) -> Evening | None:
        if path not in self._alone:
            alone = self.cache.get(path) if self.cache is not None else None
            if alone is None:
                alone = replay_alone(path)
                if alone is None:
                    return None
                if self.cache is not None:
                    self.cache.put(path, alone)
            self._alone[path] = alone
        return self._alone[path]


def replay_alone(path: Path) -> Evening | None:
    """An archived match read and replayed: the truth the cache keeps (None: it does not read)."""
    try:
        record = load_record(path, [])
    except RecordError as err:
        log.warning("the evening leaves out an archived match that does not read: %s", err)
        return None
    h = record.header
    return _alone(Table.replay(record.events, h.house_rules, h.dealer, h.table))


def _alone(table: Table) -> Evening:
    """An archived journal's table as an evening of its own: its matches over (the last one, begun by the revanche
    or new match that closed the journal, goes on in the next journal), their deals numbered from match 1."""
    state, before = table.state, table.evening
    rows = tuple(replace(row, match=row.match - before.matches) for row in state.history[len(before.history):])
    return Evening(state.match.number - before.matches - 1, rows)


class SummaryCache:
    """What each archived match played (its :class:`Evening` alone), kept in ``archive/evening-cache.json`` so that a
    start late in a long evening does not replay every match of it again.

    Never the truth: the archived records are. An entry is used only for the very file it was made from (its name,
    size and modification time in nanoseconds: an archive file is written once, atomically) and by the very code
    that would replay it (a digest of the rules, table and record reader sources, and of this module); anything
    else (a file rewritten, tablepi updated, the cache missing, cut or unreadable) is replayed from the record and
    the entry made again. Entries of files no longer archived are dropped when it is written.
    ``tests/journal/test_evening.py`` checks the cached evening equals the replayed one, field for field.
    """

    def __init__(self, folder: Path) -> None:
        self.path = folder / CACHE_NAME
        self.code = code_digest()
        self._entries: dict[str, Any] | None = None
        self._changed = False

    def _load(self) -> dict[str, Any]:
        if self._entries is None:
            self._entries = {}
            try:
                data = json.loads(self.path.read_text(encoding="utf-8"))
                if data.get("format") == CACHE_FORMAT and data.get("code") == self.code:
                    self._entries = dict(data["matches"])
            except FileNotFoundError:
                pass
            except (OSError, ValueError, KeyError, TypeError, AttributeError) as err:
                log.warning("%s does not read (%s): the evening's matches are replayed", self.path, err)
        return self._entries

    def get(self, path: Path) -> Evening | None:
        entry = self._load().get(path.name)
        try:
            stat = path.stat()
            if entry is None or (entry["size"], entry["mtime_ns"]) != (stat.st_size, stat.st_mtime_ns):
                return None
            return evening_from_json(entry["alone"])
        except (OSError, ValueError, KeyError, TypeError, IndexError) as err:
            log.warning("%s: the cached entry of %s does not read (%s): replayed", self.path, path.name, err)
            return None

    def put(self, path: Path, alone: Evening) -> None:
        try:
            stat = path.stat()
        except OSError:
            return
        self._load()[path.name] = {"size": stat.st_size, "mtime_ns": stat.st_mtime_ns,
                                   "alone": evening_to_json(alone)}
        self._changed = True

    def save(self) -> None:
        """Write the cache if an entry was made (atomically; a failure only costs a replay at the next start)."""
        if not self._changed:
            return
        entries = self._load()
        kept = {name: entry for name, entry in entries.items() if (self.path.parent / name).exists()}
        try:
            _write_atomically(self.path, json.dumps({"format": CACHE_FORMAT, "code": self.code, "matches": kept}))
        except OSError as err:
            log.warning("cannot write %s (%s): the next start replays the evening", self.path, err)
            return
        self._entries, self._changed = kept, False


def code_digest() -> str:
    """A digest of the code an archived match's replay runs: the rules, the table, the record reader and this
    module's own encoding. A cache made by other code is not used."""
    root = Path(__file__).resolve().parent.parent
    digest = hashlib.sha256(str(CACHE_FORMAT).encode())
    for path in sorted([*(root / "rules").glob("*.py"), *(root / "table").glob("*.py"),
                        root / "journal" / "record.py", Path(__file__)]):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def _pairs(mapping: Mapping[Team, int]) -> list[list[Any]]:
    return [[team.value, value] for team, value in mapping.items()]


def _teams(pairs: list[list[Any]]) -> dict[Team, int]:
    return {Team(team): int(value) for team, value in pairs}


def _opt(value: Team | Seat | None) -> str | None:
    return None if value is None else value.value


def evening_to_json(alone: Evening) -> dict[str, Any]:
    rows = []
    for row in alone.history:
        entry, result = row.entry, row.entry.result
        rows.append({
            "match": row.match, "trumps": _opt(row.trumps), "by_hand": row.by_hand, "corrected": row.corrected,
            "number": entry.number, "stake": entry.stake, "struck": _pairs(entry.struck),
            "added": _pairs(entry.added), "carried": entry.carried,
            "trump_team": result.trump_team.value, "points": _pairs(result.points), "tricks": _pairs(result.tricks),
            "winner": _opt(result.winner), "kapo": result.kapo, "claimed_by": _opt(result.claimed_by),
            "revoke_by": _opt(result.revoke_by),
            "announcements": [[seat.value, announcement.value] for seat, announcement in result.announcements],
        })
    return {"matches": alone.matches, "history": rows}


def evening_from_json(data: Mapping[str, Any]) -> Evening:
    rows = []
    for row in data["history"]:
        result = DealResult(
            trump_team=Team(row["trump_team"]), points=_teams(row["points"]), tricks=_teams(row["tricks"]),
            winner=None if row["winner"] is None else Team(row["winner"]), kapo=bool(row["kapo"]),
            claimed_by=None if row["claimed_by"] is None else Team(row["claimed_by"]),
            revoke_by=None if row["revoke_by"] is None else Seat(row["revoke_by"]),
            announcements=tuple((Seat(seat), Announcement(a)) for seat, a in row["announcements"]))
        entry = SlateEntry(int(row["number"]), result, int(row["stake"]), _teams(row["struck"]),
                           _teams(row["added"]), int(row["carried"]))
        rows.append(HistoryRow(int(row["match"]), entry, None if row["trumps"] is None else Seat(row["trumps"]),
                               bool(row["by_hand"]), bool(row["corrected"])))
    return Evening(int(data["matches"]), tuple(rows))
