"""The warning ledger: which warnings stand on screen, and every warning raised (docs/table.md, "Warnings").

Each warning gets an id when it is raised. The gesture that caused it keeps the id, so the warning can be resolved
when its cause goes (the stray card lifted, the reader back) or dropped from the log when its action is undone.
Confirm acknowledges every standing warning at once. Nothing here knows the rules or the zones.
"""

from __future__ import annotations

from collections.abc import Iterable

from tablepi.table.warnings import TableWarning


class WarningLedger:
    """Standing warnings and the log of all of them, by id (ids only grow, so the log keeps its order)."""

    def __init__(self) -> None:
        self._active: dict[int, TableWarning] = {}
        self._log: dict[int, TableWarning] = {}
        self._next_id = 0

    @property
    def standing(self) -> tuple[TableWarning, ...]:
        """The warnings on screen, oldest first."""
        return tuple(self._active.values())

    @property
    def log(self) -> tuple[TableWarning, ...]:
        """Every warning raised and not undone, in order (acknowledged and resolved ones included)."""
        return tuple(self._log.values())

    def __bool__(self) -> bool:
        """Whether any warning stands."""
        return bool(self._active)

    def add(self, warning: TableWarning) -> int:
        """Raise ``warning``; returns its id."""
        wid = self._next_id
        self._next_id += 1
        self._active[wid] = warning
        self._log[wid] = warning
        return wid

    def get(self, wid: int) -> TableWarning | None:
        """The standing warning ``wid``, None once resolved."""
        return self._active.get(wid)

    def resolve(self, wid: int) -> None:
        """Its cause is gone: off the screen, still in the log."""
        self._active.pop(wid, None)

    def resolve_all(self, wids: Iterable[int]) -> None:
        for wid in wids:
            self._active.pop(wid, None)

    def acknowledge(self) -> None:
        """Confirm: every standing warning leaves the screen."""
        self._active.clear()

    def forget(self, wids: Iterable[int]) -> None:
        """The action that raised these was undone: they never happened."""
        for wid in wids:
            self._active.pop(wid, None)
            self._log.pop(wid, None)
