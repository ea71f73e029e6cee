"""The names of earlier matches' players, most recent first: what the on-screen keyboard offers before any key.

A small text file beside the journal (``names.txt``, one name a line, the most recent first) that the app adds to
whenever players are seated. It is a convenience, never the record: a lost or broken file is an empty list, and
the names of every match are in its journal and records anyway.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterable
from pathlib import Path

from tablepi.deck import atomic_write_text
from tablepi.errors import ConfigError
from tablepi.players import check_name

log = logging.getLogger(__name__)

#: How many names are kept: a bar's regulars and then some.
KEEP = 60


class RecentNames:
    """Names seen at this table, the most recent first, each once (whatever its case)."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.names: tuple[str, ...] = self._read()

    def _read(self) -> tuple[str, ...]:
        if self.path is None:
            return ()
        try:
            lines = self.path.read_text(encoding="utf-8").splitlines()
        except FileNotFoundError:
            return ()
        except (OSError, UnicodeDecodeError) as err:
            log.warning("earlier names not offered: cannot read %s: %s", self.path, err)
            return ()
        return _merge((), lines)

    def add(self, names: Iterable[str]) -> None:
        """Put ``names`` first (the players just seated), keep the rest after them, write the file."""
        merged = _merge(names, self.names)
        if merged == self.names:
            return
        self.names = merged
        if self.path is not None:
            try:
                atomic_write_text(self.path, "".join(f"{name}\n" for name in merged))
            except OSError as err:
                log.warning("earlier names not kept: cannot write %s: %s", self.path, err)


def forget_name(path: Path, name: str) -> bool:
    """Drop ``name`` from the names file (``tablepi players forget``); whether it was there. A table running now
    keeps the names it read at start in memory until it is restarted."""
    recent = RecentNames(path)
    kept = tuple(n for n in recent.names if n.casefold() != name.casefold())
    if kept == recent.names:
        return False
    atomic_write_text(path, "".join(f"{n}\n" for n in kept))
    return True


def _merge(first: Iterable[str], then: Iterable[str]) -> tuple[str, ...]:
    seen: set[str] = set()
    out: list[str] = []
    for raw in (*first, *then):
        with contextlib.suppress(ConfigError):
            name = check_name(raw)
            if name.casefold() not in seen:
                seen.add(name.casefold())
                out.append(name)
    return tuple(out[:KEEP])
