"""The facts the book keeps of a match: each review belongs to the deal it reviews."""

from __future__ import annotations

import dataclasses
from typing import Any

from tablepi.book.facts import match_facts
from tablepi.journal.record import RecordHeader
from tablepi.rules.deal import Deal
from tablepi.rules.entry import DealEntry
from tablepi.rules.house import HouseRules
from tablepi.rules.seats import Seat, Team
from tablepi.table.events import DealEntered, TableEvent
from tablepi.table.machine import Table
from tablepi.table.simulate import simulate_match
from tablepi.table.state import TableConfig


class _Found:
    def __init__(self, deal: Deal) -> None:
        self.deal = deal

    def to_json(self) -> dict[str, Any]:
        plays = [{"seat": p.seat.value, "card": str(p.card), "trick": n, "cost": 0, "sd": None}
                 for n, trick in enumerate(self.deal.tricks, start=1) for p in trick.plays]
        return {"known": True, "plays": plays, "sd_summary": None}


def test_a_deal_told_by_hand_first_does_not_shift_the_reviews() -> None:
    """Deal 1 told by hand (no cards), then deals played with cards: each played deal's review is of its own
    cards. The played deals were once paired with the slate's lines in order, so deal 2 got deal 3's review."""
    rules = HouseRules()
    header = RecordHeader(rules, Seat.N, TableConfig())
    told = DealEntered(1.0, DealEntry(Seat.W, Team.NS, 25))
    table = Table(rules, Seat.N, TableConfig())
    table.apply(told)
    script = simulate_match(3, rules, table.state.deal.dealer, TableConfig())
    events: list[TableEvent] = [told, *(dataclasses.replace(e, time=2.0 + e.time) for e in script.events)]
    seen: dict[int, Deal] = {}

    def reviewer(deal: Deal, number: int, carried: int) -> _Found:
        seen[number] = deal
        return _Found(deal)

    [facts] = match_facts(header, events, table="1", journal="j", ended=0.0, reviewer=reviewer)
    assert facts.deals[0]["by_hand"] and facts.deals[0]["review"] is None
    played = [d for d in facts.deals if not d["by_hand"]]
    assert len(played) >= 2 and 1 not in seen
    for report in played:
        cards = [tuple(play.split(":")) for trick in report["tricks"] for play in trick["order"]]
        reviewed = [(p["seat"], p["card"]) for p in report["review"]["plays"]]
        assert reviewed == cards, f"deal {report['number']} carries another deal's review"
