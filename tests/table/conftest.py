"""Helpers for the table tests: a small writer of game records, so every scenario is driven by a record.

``Rec`` keeps a clock and writes record lines (docs/records.md); ``rec.table()`` parses the text with the real
record reader and replays it through a fresh Table, exactly as ``tablepi replay`` does.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from tablepi.journal.record import read_record
from tablepi.table.machine import Table
from tablepi.table.state import TableState

# One deal with dealer N (anticlockwise: forehand W, order W S E N), hearts trumps, every card legal.
HANDS = {
    "W": "QS AH KH 9S AC 9D",
    "S": "QH QD JH TS KC 9C",
    "E": "AS KS JS AD KD TD",
    "N": "TH 9H JD QC JC TC",
}
# The six tricks, as (seat, card) in playing order. EW (trump team, W) take all six: 40-0, Kapo.
DEAL = [
    [("W", "KH"), ("S", "JH"), ("E", "AD"), ("N", "9H")],  # W wins (KH highest trump), 8 points
    [("W", "AC"), ("S", "KC"), ("E", "KD"), ("N", "QC")],  # W wins, 12
    [("W", "9S"), ("S", "TS"), ("E", "AS"), ("N", "TC")],  # E wins, 4
    [("E", "KS"), ("N", "JC"), ("W", "9D"), ("S", "9C")],  # E wins, 4
    [("E", "JS"), ("N", "JD"), ("W", "AH"), ("S", "QH")],  # W wins (AH above the matadors), 8
    [("W", "QS"), ("S", "QD"), ("E", "TD"), ("N", "TH")],  # W wins, 4
]


class Rec:
    """Writes a game record line by line with a running clock (seconds)."""

    def __init__(self, dealer: str = "N", house_rules: dict[str, Any] | None = None, **table: Any) -> None:
        self.t = 0.0
        self.header: dict[str, Any] = {
            "format": "tablepi-record",
            "version": 1,
            "house_rules": house_rules or {},
            "dealer": dealer,
        }
        if table:
            self.header["table"] = table
        self.lines: list[dict[str, Any]] = []

    def _add(self, dt: float, obj: dict[str, Any]) -> Rec:
        self.t = round(self.t + dt, 3)
        obj["t"] = self.t
        self.lines.append(obj)
        return self

    def place(self, seat: str, card: str, dt: float = 0.6, **extra: Any) -> Rec:
        return self._add(dt, {"type": "place", "seat": seat, "card": card, **extra})

    def lift(self, seat: str, card: str, dt: float = 0.3, **extra: Any) -> Rec:
        return self._add(dt, {"type": "lift", "seat": seat, "card": card, **extra})

    def tag(self, seat: str, uid: str, present: bool = True, dt: float = 0.5) -> Rec:
        return self._add(dt, {"type": "place" if present else "lift", "seat": seat, "uid": uid})

    def tap(self, seat: str, card: str) -> Rec:
        """A card shown: laid and lifted well inside the tap window."""
        return self.place(seat, card).lift(seat, card, dt=0.3)

    def button(self, name: str, seat: str | None = None, dt: float = 0.5) -> Rec:
        obj: dict[str, Any] = {"type": "button", "name": name}
        if seat is not None:
            obj["seat"] = seat
        return self._add(dt, obj)

    def reader(self, seat: str, state: str, dt: float = 0.5) -> Rec:
        return self._add(dt, {"type": "reader", "seat": seat, "state": state})

    def tick(self, dt: float = 1.5) -> Rec:
        return self._add(dt, {"type": "tick"})

    def trumps(self, card: str = "AH", seat: str = "W") -> Rec:
        return self.tap(seat, card)

    def trick(self, plays: list[tuple[str, str]], sweep: bool = True) -> Rec:
        """Lay the cards one after another (each settles the one before), wait, and sweep them off."""
        for seat, card in plays:
            self.place(seat, card)
        self.tick()
        if sweep:
            for seat, card in plays:
                self.lift(seat, card, dt=0.1)
        return self

    def deal(self, tricks: list[list[tuple[str, str]]] = DEAL, trumps: str = "AH", forehand: str = "W") -> Rec:
        self.trumps(trumps, forehand)
        for plays in tricks:
            self.trick(plays)
        return self

    def text(self) -> str:
        return "\n".join(json.dumps(obj) for obj in [self.header, *self.lines]) + "\n"

    def table(self) -> Table:
        record = read_record(self.text().splitlines())
        header = record.header
        return Table.replay(record.events, header.house_rules, header.dealer, header.table)

    def state(self) -> TableState:
        return self.table().state


@pytest.fixture
def rec() -> Rec:
    return Rec()


def codes(state: TableState) -> list[str]:
    return [w.code.value for w in state.warnings]


def log_codes(table: Table) -> list[str]:
    return [w.code.value for w in table.warning_log]
