"""What a replayed table led to, as plain values: every deal (tricks, points, result, stake, the slate after it),
the names, the warnings and each match's summary.

It is what ``tablepi replay --json`` prints (docs/records.md) and what the players' book reads a record's deals
from (:mod:`tablepi.book.facts`): one account of a record, built from the table's published state only.
"""

from __future__ import annotations

from typing import Any

from tablepi.rules.deal import Deal
from tablepi.rules.entry import DealEntry
from tablepi.rules.seats import Team
from tablepi.rules.slate import Match, SlateEntry
from tablepi.table.machine import Table


def replay_report(table: Table) -> dict[str, Any]:
    """Everything the record led to, as plain values (the ``--json`` output)."""
    deals: list[dict[str, Any]] = []
    for match_number, match in enumerate(table.matches, start=1):
        for entry, source in match.scored_as_told():
            correction = match.corrected.get(entry.number)
            if isinstance(source, DealEntry):
                deals.append(_entered_report(match_number, match, correction or source, entry))
                continue
            report = _deal_report(match_number, match, source, entry)
            hand = {(seat, card) for m, d, seat, card in table.by_hand if (m, d) == (match_number, entry.number)}
            report["by_hand"] = bool(hand)
            for trick, deal_trick in zip(report["tricks"], source.tricks, strict=True):
                trick["by_hand"] = [p.seat.value for p in deal_trick.plays if (p.seat, p.card) in hand]
            if correction is not None:  # corrected throughout: who named trumps, who dealt, the announcements
                report.update(_told(match, correction))
            deals.append(report)
    current = table.matches[-1]
    state = table.state
    return {
        "deals": deals,
        "names": {seat.value: name for seat, name in state.names},
        "warnings": [w.to_json() for w in table.warning_log],
        "matches": [_match_summary(number, match) for number, match in enumerate(table.matches, start=1)],
        "match": {
            "number": len(table.matches),
            "deals": len(current.slate.history),
            "open_lines": {team.value: current.slate.open_lines(team) for team in Team},
            "winner": None if current.winner is None else current.winner.value,
            "phase": state.phase.value,
            "prompt": {
                "code": state.prompt.code.value,
                "seat": None if state.prompt.seat is None else state.prompt.seat.value,
            },
        },
    }


def _match_summary(number: int, match: Match) -> dict[str, Any]:
    """One match of the record: its deals, open lines and winner; ``begun``: a deal of it is under way or scored
    (a record that ends with the revanche that began the next match holds that match not begun)."""
    return {
        "number": number,
        "deals": len(match.slate.history),
        "open_lines": {team.value: match.slate.open_lines(team) for team in Team},
        "winner": None if match.winner is None else match.winner.value,
        "begun": bool(match.slate.history) or any(d.trump is not None for d in match.deals),
    }


def _entered_report(match_number: int, match: Match, told: DealEntry, entry: SlateEntry) -> dict[str, Any]:
    """A deal told by hand: who named trumps and the result; no cards, no tricks (``"by_hand": true``)."""
    report = _deal_report(match_number, match, None, entry)
    report.update({**_told(match, told), "trump": None, "tricks": [], "by_hand": True})
    return report


def _told(match: Match, told: DealEntry) -> dict[str, Any]:
    """The seats and announcements of a deal as told (by hand, or as corrected)."""
    return {
        "dealer": match.rules.direction.order_from(told.trumps)[3].value, "forehand": told.trumps.value,
        "announcements": [{"seat": seat.value, "announcement": a.value} for seat, a in told.announcements],
    }


def _deal_report(match_number: int, match: Match, deal: Deal | None, entry: SlateEntry) -> dict[str, Any]:
    result = entry.result
    history = match.slate.history[: entry.number]
    open_after = {team.value: match.rules.start_lines for team in Team}
    for past in history:
        for team in Team:
            open_after[team.value] += past.added[team] - past.struck[team]
    if deal is None:
        deal = Deal(match.dealer, match.rules)  # a deal told by hand: its seats and cards are filled in after
    corrected = entry.number in match.corrected
    return {
        "match": match_number,
        "number": entry.number,
        "by_hand": False,
        "corrected": corrected,
        "dealer": deal.dealer.value,
        "forehand": deal.forehand.value,
        "trump": None if deal.trump is None else deal.trump.value,
        "announcements": [{"seat": seat.value, "announcement": a.value} for seat, a in deal.announcements],
        "tricks": [
            {
                "leader": trick.leader.value,
                "cards": {play.seat.value: str(play.card) for play in trick.plays},
                "order": [str(play) for play in trick.plays],
                "winner": None if trick.winner is None else trick.winner.value,
                "points": trick.points,
            }
            for trick in deal.tricks
        ],
        "points": {team.value: result.points[team] for team in Team},
        "winner": None if result.winner is None else result.winner.value,
        "claimed_by": None if result.claimed_by is None else result.claimed_by.value,
        "revoke_by": None if result.revoke_by is None else result.revoke_by.value,
        "kapo": result.kapo,
        "stake": entry.stake,
        "result": result.describe(),
        "struck": {team.value: entry.struck[team] for team in Team},
        "added": {team.value: entry.added[team] for team in Team},
        "slate": open_after,
    }
