"""The evening: every match played at the table since the evening began, the archived ones included.

The journal holds one match (docs/journal.md, "Retention"); the matches before it tonight are in ``archive/``.
Players, the owner and ``tablepi export`` mean the evening: the screen's history lists its deals, match numbers
count from its first match, names stay from match to match until players change them, and the export writes it
whole.

An evening begins at :data:`EVENING_BEGINS` o'clock, local time, so that a bar's evening past midnight stays one
evening and the next day's starts fresh, whether or not the table was switched off in between.
"""

from __future__ import annotations

import logging
import time
from dataclasses import replace
from pathlib import Path

from tablepi.errors import RecordError
from tablepi.journal import archive
from tablepi.journal.record import load_record
from tablepi.table.machine import Table
from tablepi.table.state import Evening

log = logging.getLogger(__name__)

#: The hour (local time) at which one evening ends and the next begins.
EVENING_BEGINS = 6


def evening_start(now: float) -> float:
    """The moment (epoch seconds) the evening holding ``now`` began: the last :data:`EVENING_BEGINS` o'clock."""
    day = time.localtime(now - EVENING_BEGINS * 3600)
    return time.mktime((day.tm_year, day.tm_mon, day.tm_mday, EVENING_BEGINS, 0, 0, 0, 0, -1))


def tonight(folder: Path, now: float | None = None) -> list[Path]:
    """The matches archived this evening, oldest first (archives of older versions, ``.sqlite3``, are not read)."""
    start = evening_start(time.time() if now is None else now)
    out = []
    for path in archive.matches(folder):
        try:
            if path.name.endswith(".jsonl.gz") and path.stat().st_mtime >= start:
                out.append(path)
        except OSError:
            continue
    return out


class EveningBook:
    """The evening of one table: each archived match read once, kept as an :class:`Evening` of its own (numbered
    from 1), and strung together on demand."""

    def __init__(self, folder: Path | None) -> None:
        self.folder = folder
        self._alone: dict[Path, Evening] = {}

    def before_current(self, now: float | None = None) -> Evening:
        """What the evening holds before the journal's match: every match archived tonight, in order."""
        evening = Evening()
        if self.folder is None:
            return evening
        for path in tonight(self.folder, now):
            alone = self._read(path)
            if alone is not None:
                evening = evening.then(alone.matches, alone.history)
        return evening

    def archived(self, path: Path, table: Table) -> None:
        """``table``'s journal was just archived at ``path``: what it played is known without reading it back."""
        self._alone[path] = _alone(table)

    def _read(self, path: Path) -> Evening | None:
        if path not in self._alone:
            try:
                record = load_record(path, [])
            except RecordError as err:
                log.warning("the evening leaves out an archived match that does not read: %s", err)
                return None
            h = record.header
            self._alone[path] = _alone(Table.replay(record.events, h.house_rules, h.dealer, h.table))
        return self._alone[path]


def _alone(table: Table) -> Evening:
    """An archived journal's table as an evening of its own: its matches over (the last one, begun by the revanche
    or new match that closed the journal, goes on in the next journal), their deals numbered from match 1."""
    state, before = table.state, table.evening
    rows = tuple(replace(row, match=row.match - before.matches) for row in state.history[len(before.history):])
    return Evening(state.match.number - before.matches - 1, rows)
