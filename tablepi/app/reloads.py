"""The deck and player files the running table uses, read again when they change on disk.

:class:`TableFiles` watches them. A file changed on disk (``tablepi enroll`` writing it, an owner editing it) is
read again and swapped in whole; a file that does not read is one line in the log and the old decks stay in use.
Only a change that has stood still for one poll is read, so a file being written by an editor is read once, when
written. The app's loop polls it (:meth:`TableFiles.poll`) and takes the new decks and players when it says so.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from tablepi.deck import DeckRegistry, load_deck_file
from tablepi.errors import ConfigError
from tablepi.players import PlayerRegistry, load_players_file

log = logging.getLogger(__name__)

#: How often the deck and player files are looked at (a stat each).
POLL_SECONDS = 0.5

_Signature = tuple[tuple[str, tuple[int, int, int] | None], ...]


def _signature(paths: Sequence[Path]) -> _Signature:
    out: list[tuple[str, tuple[int, int, int] | None]] = []
    for path in paths:
        try:
            st = os.stat(path)
            out.append((str(path), (st.st_mtime_ns, st.st_size, st.st_ino)))
        except OSError:
            out.append((str(path), None))
    return tuple(out)


def load_decks(paths: Sequence[Path]) -> tuple[DeckRegistry, list[str]]:
    """The deck registry from the configured files. A missing file is not fatal (the table runs and every card
    is an unknown tag until ``tablepi enroll`` wrote it); a broken or conflicting one is a ConfigError."""
    decks = []
    problems: list[str] = []
    for path in paths:
        if not path.exists():
            problems.append(f"deck file {path} does not exist yet: run `tablepi enroll` to tag a deck")
            continue
        decks.extend(load_deck_file(path))
    return DeckRegistry(decks), problems


class TableFiles:
    """The decks and player tags the running table uses, reloaded atomically when their files change."""

    def __init__(
        self,
        deck_paths: Sequence[Path],
        players_path: Path | None = None,
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.deck_paths = tuple(deck_paths)
        self.players_path = players_path
        self.clock = clock
        self.registry, self.problems = load_decks(self.deck_paths)
        self.players = self._read_players(startup=True)
        self.loaded_at = time.time()
        self.reloads = 0
        self._decks_sig = _signature(self.deck_paths)
        self._players_sig = self._player_signature()
        self._pending: tuple[_Signature, _Signature] | None = None
        self._warned: set[tuple[_Signature, _Signature]] = set()
        self._next = clock() + POLL_SECONDS

    def knows(self, uid: str) -> bool:
        """Whether ``uid`` is a card of an enrolled deck: the readers' ``known`` (garbled reads are no cards)."""
        return self.registry.lookup(uid) is not None

    def _player_signature(self) -> _Signature:
        return _signature([self.players_path]) if self.players_path is not None else ()

    def _read_players(self, startup: bool = False) -> PlayerRegistry:
        if self.players_path is None:
            return PlayerRegistry()
        try:
            return load_players_file(self.players_path)
        except ConfigError as err:
            if not startup:
                raise
            log.warning("player tags not used: %s", err)
            self.problems.append(str(err))
            return PlayerRegistry(source=self.players_path)

    def poll(self, force: bool = False) -> bool:
        """Look at the files (at most every :data:`POLL_SECONDS`, unless ``force``); True if anything new was
        swapped in. A change is read once it has stood still for one poll, or at once with ``force``."""
        now = self.clock()
        if not force and now < self._next:
            return False
        self._next = now + POLL_SECONDS
        seen = (_signature(self.deck_paths), self._player_signature())
        if seen == (self._decks_sig, self._players_sig):
            self._pending = None
            return False
        if not force and seen != self._pending:
            self._pending = seen  # changed since the last look: perhaps still being written
            return False
        self._pending = None
        return self._reload(seen)

    def _reload(self, seen: tuple[_Signature, _Signature]) -> bool:
        changed = False
        if seen[0] != self._decks_sig:
            try:
                registry, problems = load_decks(self.deck_paths)
            except (ConfigError, OSError) as err:
                if seen not in self._warned:
                    self._warned.add(seen)
                    log.warning("deck file not reloaded, the table keeps its decks: %s", err)
            else:
                self.registry, self.problems = registry, problems
                self._decks_sig = seen[0]
                changed = True
                names = ", ".join(f"{name!r}" for name in registry.decks) or "none"
                log.info("deck files reloaded: decks %s", names)
        if seen[1] != self._players_sig:
            try:
                players = self._read_players()
            except ConfigError as err:
                if seen not in self._warned:
                    self._warned.add(seen)
                    log.warning("player file not reloaded, the table keeps its player tags: %s", err)
            else:
                self.players = players
                self._players_sig = seen[1]
                changed = True
                log.info("player tags reloaded: %d players", len(players))
        if changed:
            self.reloads += 1
            self.loaded_at = time.time()
        return changed

    def status(self) -> dict[str, Any]:
        return {
            "decks": [
                {"name": deck.name, "cards": len(deck.cards), "source": str(deck.source) if deck.source else None}
                for deck in self.registry.decks.values()
            ],
            "deck_files": [str(p) for p in self.deck_paths],
            "problems": list(self.problems),
            "players": {"file": str(self.players_path) if self.players_path else None, "count": len(self.players),
                        "names": list(self.players.names)},
            "loaded_at": self.loaded_at,
            "reloads": self.reloads,
        }
