"""A game record's matches as plain facts for the book: who sat where, every deal, each card's cost.

The deals are exactly what ``tablepi replay --json`` prints (:func:`tablepi.table.summary.replay_report`), so the
book and the replay never disagree about a result; to that the book adds who sat in each seat (the seat events in
force when the match's first trumps were named), the revokes the table warned about, and, where every card of a
deal is known (a hand scan, or all six tricks played), the best-play review of each card
(:mod:`tablepi.analysis`): its cost in points, and in lines where the review gives them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from tablepi.journal.record import RecordHeader
from tablepi.rules.deal import Deal
from tablepi.rules.seats import Seat
from tablepi.table.events import PlayersSeated, TableEvent
from tablepi.table.machine import Table
from tablepi.table.summary import replay_report
from tablepi.table.warnings import WarningCode

#: The review's per-seat figures the book keeps per deal: lines lost to his choices (on what he could know) and to
#: luck (what only the hidden cards decided).
SEAT_FIGURES = ("lines_lost", "luck")
#: Reviews one deal (deal, its number in the match, lines carried into it from ties under tie = "carry") -> a
#: DealReview (tablepi.analysis.review).
Reviewer = Callable[[Deal, int, int], Any]


@dataclass(frozen=True)
class MatchFacts:
    """One match of one record. ``names``: seat -> the player's name, None for a guest (nobody named him)."""

    table: str
    journal: str
    number: int  # the match's number within its record (1-based)
    started: float  # wall clock (seconds since the epoch)
    ended: float
    finished: bool
    winner: str | None  # "NS", "EW", None
    names: dict[str, str | None]
    uids: dict[str, str]  # seat -> the player tag that seated him, where a tag did
    deals: tuple[dict[str, Any], ...]  # replay --json deals, each with "review" (None: not reviewed)
    revokes: tuple[tuple[int, str], ...] = field(default=())  # (deal number, seat) of each revoke warned

    @property
    def key(self) -> str:
        return f"{self.table}:{self.journal}:{self.number}"


def match_facts(
    header: RecordHeader,
    events: Iterable[TableEvent],
    *,
    table: str,
    journal: str,
    ended: float,
    finished_only: bool = False,
    review: bool = True,
    reviewer: Reviewer | None = None,
) -> list[MatchFacts]:
    """The matches of one record with at least one scored deal (only those won, with ``finished_only``: a live
    journal's match in play is added when it is over). ``ended`` is the wall time of the record's last event.
    With ``review`` each deal whose cards are all known is reviewed, by ``reviewer`` (the table passes its review
    worker process: the review never runs in the table's own process) or here."""
    replayed = Table(header.house_rules, header.dealer, header.table)
    uids: dict[Seat, str] = {}
    seated: dict[int, tuple[dict[Seat, str], dict[Seat, str]]] = {}
    first_time: dict[int, float] = {}
    warned: dict[int, int] = {}  # id of a warning -> the match it was raised in
    last = 0.0
    logged = 0
    for event in events:
        if isinstance(event, PlayersSeated):
            for seat, _ in event.names:
                if event.uid:
                    uids[seat] = event.uid
                else:
                    uids.pop(seat, None)
        replayed.advance(event)
        last = max(last, float(event.time))
        number = len(replayed.matches)
        current = replayed.matches[-1]
        if number not in seated and (replayed.trump is not None or current.slate.history):
            names = dict(replayed.state.names)  # the table's own: undo, a player moving seat, names kept
            seated[number] = (names, {seat: uid for seat, uid in uids.items() if seat in names})
            first_time[number] = last
        if len(replayed.warning_log) != logged:  # a warning raised (or undone): note the match of the new ones
            logged = len(replayed.warning_log)
            for warning in replayed.warning_log:
                warned.setdefault(id(warning), number)
    report = replay_report(replayed)
    by_match: dict[int, list[dict[str, Any]]] = {}
    for deal in report["deals"]:
        by_match.setdefault(deal["match"], []).append(deal)
    revokes: dict[int, list[tuple[int, str]]] = {}
    for warning in replayed.warning_log:
        if warning.code is WarningCode.REVOKE and warning.seat is not None and warning.deal is not None:
            revokes.setdefault(warned.get(id(warning), len(replayed.matches)), []).append(
                (warning.deal, warning.seat.value))
    out: list[MatchFacts] = []
    for number, match in enumerate(replayed.matches, start=1):
        deals = by_match.get(number, [])
        if not deals or (finished_only and match.winner is None):
            continue
        if review:
            _add_reviews(deals, match, reviewer or _review_here)
        else:
            for deal in deals:
                deal["review"] = None
        who, tags = seated.get(number, ({}, {}))
        start = first_time.get(number, 0.0)
        out.append(MatchFacts(
            table=table, journal=journal, number=number,
            started=ended - max(0.0, last - start), ended=ended,
            finished=match.winner is not None,
            winner=None if match.winner is None else match.winner.value,
            names={seat.value: who.get(seat) for seat in Seat},
            uids={seat.value: uid for seat, uid in tags.items()},
            deals=tuple(deals), revokes=tuple(revokes.get(number, ())),
        ))
    return out


def _review_here(deal: Deal, number: int, carried: int) -> Any:
    from tablepi.analysis import review_deal

    return review_deal(deal, number, carried=carried)


def _add_reviews(deals: list[dict[str, Any]], match: Any, reviewer: Reviewer) -> None:
    """Each deal's ``review``: per card its cost in points (double-dummy) and in lines (on what its player could
    know: the single-dummy review), per seat the lines lost to choices and to luck, where every card is known."""
    # By deal number, from the match's own pairing: a deal told by hand has no cards, so the played deals and
    # the slate's lines do not pair up in order.
    played = {entry.number: source for entry, source in match.scored_as_told() if isinstance(source, Deal)}
    for report in deals:
        report["review"] = None
        deal = played.get(report["number"])
        if deal is None or deal.trump is None or report.get("by_hand"):
            continue
        found = reviewer(deal, report["number"], match.slate.carried_into(report["number"])).to_json()
        if not found.get("known"):
            continue
        summary = found.get("sd_summary") or {}
        report["review"] = {
            "plays": [{"seat": p["seat"], "card": p["card"], "trick": p["trick"], "cost": p["cost"],
                       "cost_lines": None if not p.get("sd") else p["sd"]["cost_lines"]} for p in found["plays"]],
            **{k: {seat: v[k] for seat, v in summary.items()} for k in SEAT_FIGURES if summary},
        }
