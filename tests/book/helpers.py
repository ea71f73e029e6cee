"""Evenings played through the table's journal (the real table, journal and archive) for the book's tests."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from pathlib import Path

from tablepi.journal.journal import JournaledTable
from tablepi.journal.record import RecordHeader
from tablepi.rules.house import HouseRules
from tablepi.rules.seats import Seat
from tablepi.table.events import Button, ButtonName, PlayersSeated, SeatingSource
from tablepi.table.simulate import simulate_match
from tablepi.table.state import TableConfig

#: Names the pages must show as text, as the table takes them (at most 20 characters, no control or
#: direction-override characters: the screen's keyboard refuses those; the pages' tests add them besides).
HOSTILE = ("<b>Bold</b>", "<script>x()</script>", "\u05e9\u05dc\u05d5\u05dd \u05d0", "Zoë & \"Q\"")


def play(directory: Path, seatings: Sequence[Mapping[Seat, str]], *, seed: int = 1, mistakes: bool = True,
         table: JournaledTable | None = None) -> JournaledTable:
    """One match per seating (seats not named are guests), one after the other, into ``directory``'s journal
    and archive (or on ``table``)."""
    rules = HouseRules()
    if table is None:
        header = RecordHeader(rules, Seat.N, TableConfig())
        table = JournaledTable(directory / "journal.sqlite3", header, archive=directory / "archive")
    for number, names in enumerate(seatings):
        start = table.journal.last_time + 5.0
        if table.table.matches[-1].slate.history:
            table.feed(Button(start, ButtonName.NEW_MATCH))
            start = table.journal.last_time + 1.0
        if names:
            table.feed(PlayersSeated(start, tuple(names.items()), SeatingSource.TOUCH))
        script = simulate_match(seed + number, rules, table.state.deal.dealer, TableConfig(), mistakes=mistakes)
        for event in script.events:
            table.feed(dataclasses.replace(event, time=start + 1.0 + event.time))
    return table


def rotation(count: int, people: Sequence[str]) -> list[dict[Seat, str]]:
    """``count`` seatings drawn from ``people`` in turn (W left to a guest in every third match)."""
    out = []
    for i in range(count):
        chosen: list[str] = []
        k = 0
        while len(chosen) < 4:
            name = people[(i * 3 + k * (1 + i % 2)) % len(people)]
            k += 1
            if name not in chosen:
                chosen.append(name)
        seats = dict(zip(Seat, chosen, strict=True))
        if i % 3 == 2:
            del seats[Seat.W]
        out.append(seats)
    return out
