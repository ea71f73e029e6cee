"""``tablepi replay RECORD.jsonl [--json]``: play a game record back and print what the table made of it.

Per deal: dealer, forehand, trumps, announcements, each trick's cards and winner, points per team, the result,
Kapo, the stake and the slate after the deal; then every warning. ``--json`` prints the same as one JSON object
(keys ``deals``, ``warnings``, ``match``) for tools and bug reports; with ``--analyse`` each deal also carries its
best-play analysis under ``analysis`` (docs/analysis.md).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from tablepi.record import load_record
from tablepi.rules.cards import Card, Suit
from tablepi.rules.deal import Deal
from tablepi.rules.entry import DealEntry
from tablepi.rules.seats import Team
from tablepi.rules.slate import Match, SlateEntry
from tablepi.table.machine import Table

HELP = "replay a game record and print each deal, the slate and every warning"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("record", help="the game record (JSON Lines, docs/records.md; .gz from the archive), or a "
                        "journal file (read only, damaged or not)")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    parser.add_argument(
        "--analyse", action="store_true", help="with --json: add each deal's best-play analysis (docs/analysis.md)"
    )


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


def _play_text(play: str, names: dict[str, str] | None = None) -> str:
    """``S:QS`` (seat S played the queen of spades) as ``S ♠Q``: suits as symbols, so seat S and spades cannot be
    confused.

    >>> _play_text("S:QS"), _play_text("W:TH")
    ('S ♠Q', 'W ♥10')
    """
    seat, _, card = play.partition(":")
    return f"{(names or {}).get(seat, seat)} {Card.parse(card).display}"


def _suit_text(suit: str | None) -> str:
    return "not named" if suit is None else Suit(suit).symbol


def format_text(report: dict[str, Any]) -> str:
    """The report as lines a person reads: players by their names where the table seated them (the JSON keeps the
    record's own seat letters and ``S:QS`` form, and the names apart)."""
    names: dict[str, str] = report.get("names", {})

    def who(seat: str | None) -> str:
        return names.get(seat, seat) if seat is not None else "nobody"

    out: list[str] = []
    for deal in report["deals"]:
        out.append(
            f"Match {deal['match']}, deal {deal['number']}: dealer {who(deal['dealer'])}, "
            f"forehand {who(deal['forehand'])}, trumps {_suit_text(deal['trump'])}"
        )
        for item in deal["announcements"]:
            out.append(f"  {who(item['seat'])} announces {item['announcement']}")
        for number, trick in enumerate(deal["tricks"], start=1):
            by_hand = set(trick.get("by_hand", ()))
            cards = ", ".join(_play_text(play, names) + (" (by hand)" if play.partition(":")[0] in by_hand else "")
                              for play in trick["order"])
            out.append(f"  trick {number}: {cards} -> {who(trick['winner'])} ({trick['points']} points)")
        points = deal["points"]
        out.append(f"  points NS {points['NS']} EW {points['EW']}; {deal['result']}")
        out.append(f"  kapo: {'yes' if deal['kapo'] else 'no'}, stake {deal['stake']}")
        slate = deal["slate"]
        out.append(f"  slate: NS {slate['NS']} open, EW {slate['EW']} open")
    if report["warnings"]:
        out.append("Warnings:")
        for w in report["warnings"]:
            rule = f"rule {w['rule']}" if w["rule"] is not None else "protocol"
            where = f"deal {w['deal']}" + (f" trick {w['trick']}" if w["trick"] is not None else "")
            out.append(f"  [{w['code']}] {where}, {rule}: {w['message']}")
    else:
        out.append("Warnings: none")
    matches = report["matches"]
    for match in matches:
        if not match["begun"] and match is matches[-1] and len(matches) > 1:
            out.append(f"Match {match['number']}: not begun (the record ends as it begins)")
            continue
        winner = match["winner"] or "nobody yet"
        lines = match["open_lines"]
        out.append(
            f"Match {match['number']}: {match['deals']} deals, NS {lines['NS']} open, EW {lines['EW']} open; "
            f"winner: {winner}"
        )
    return "\n".join(out)


def _is_journal(path: Path) -> bool:
    """A journal (SQLite file, or its .events copy alone) rather than a record."""
    if path.name.endswith(".events") or Path(str(path) + ".events").exists():
        return True
    try:
        with open(path, "rb") as handle:
            return handle.read(16) == b"SQLite format 3\x00"
    except OSError:
        return False


def run(args: argparse.Namespace) -> int:
    path = Path(args.record)
    salvaged: list[str] = []
    if _is_journal(path):  # a journal, damaged or not: its intact events (read only, like export)
        from tablepi.journal import read_journal

        view = read_journal(path.with_name(path.name.removesuffix(".events")))
        if view.recovery.damaged:
            print(f"tablepi replay: warning: the journal is damaged: {view.recovery.summary()}", file=sys.stderr)
        header, events = view.header, tuple(view.events(salvaged))
    else:
        record = load_record(path, salvaged)
        header, events = record.header, record.events
    for note in salvaged:  # a name an earlier tablepi wrote that this one refuses: read as it fits, and said
        print(f"tablepi replay: warning: {note}", file=sys.stderr)
    table = Table.replay(events, header.house_rules, header.dealer, header.table)
    report = replay_report(table)
    if getattr(args, "analyse", False):
        from tablepi.commands.analyse import analyse_table

        reviews = {(r["match"], r["number"]): r for r in analyse_table(table)}
        for deal in report["deals"]:
            review = reviews.get((deal["match"], deal["number"]))
            deal["analysis"] = None if review is None else {k: v for k, v in review.items() if k != "match"}
    if args.json:
        print(json.dumps(report, indent=2, ensure_ascii=False))
    else:
        print(format_text(report))
    return 0
