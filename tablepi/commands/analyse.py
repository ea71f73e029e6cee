"""``tablepi analyse RECORD.jsonl [--json]``: best-play analysis of every deal in a game record (docs/analysis.md).

Per deal: the par table (what forehand's team makes with best play in each trump suit), the points with best play
in the trumps named, the points taken, and every card that lost points (and whether it changed the result); then
every card some other card beat on what its player could know (single-dummy, in net lines), and per seat the lines
lost that way and the luck (the rest of what the cards cost with all hands known).
``--json`` prints ``{"deals": [...]}`` with the per-deal objects of docs/analysis.md.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from tablepi.journal.record import load_record
from tablepi.rules.deal import Deal
from tablepi.table.machine import Table

HELP = "best-play analysis of every deal in a game record: par, best, and the cards that lost points"

_EFFECTS = {
    "lost_deal": "lost the deal",
    "win_to_tie": "turned a win into a tie",
    "missed_kapo": "missed Kapo",
    "allowed_kapo": "let the other team force Kapo",
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("record", help="the game record (JSON Lines, docs/records.md)")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of text")


def analyse_table(table: Table) -> list[dict[str, Any]]:
    """The review of every scored deal of a replayed table, as plain values, in order."""
    from tablepi.analysis import review_deal

    out: list[dict[str, Any]] = []
    for match_number, match in enumerate(table.matches, start=1):
        for entry, source in match.scored_as_told():  # a deal told by hand has no cards: numbered, not reviewed
            if not isinstance(source, Deal) or source.trump is None:
                continue
            carried = match.slate.carried_into(entry.number)  # from ties under tie = "carry"
            out.append({"match": match_number, **review_deal(source, entry.number, carried=carried).to_json()})
    return out


def format_text(deals: list[dict[str, Any]]) -> str:
    lines: list[str] = []
    for deal in deals:
        head = f"Match {deal['match']}, deal {deal['number']}: trumps {deal['trump']}, forehand {deal['forehand']}"
        played = deal["played"]
        lines.append(f"{head}; played NS {played['NS']} EW {played['EW']}")
        if not deal["known"]:
            lines.append(f"  not analysed: {len(deal['unknown'])} cards were never seen (no hand scan, claimed)")
            lines.extend(_claim_lines(deal["claim"]))
            continue
        par = " ".join(f"{suit} {p['NS']}-{p['EW']}" for suit, p in deal["par"].items())
        best, forced = deal["best"], deal["forced"]
        kapo = ", Kapo" if forced["kapo"] else ""
        outcome = "tie" if forced["winner"] is None else f"{forced['winner']} win{kapo}"
        lines.append(f"  par (NS-EW): {par}; best NS {best['NS']} EW {best['EW']} ({outcome})")
        for index in deal["mistakes"]:
            play = deal["plays"][index]
            effects = "".join(f", {_EFFECTS[e]}" for e in play["effects"])
            better = " ".join(play["best_cards"])
            lines.append(
                f"  trick {play['trick']}: {play['seat']} {play['card']} cost {play['cost']} (best {better}){effects}"
            )
        if not deal["mistakes"]:
            lines.append("  every card was a best card")
        lines.extend(_single_dummy_lines(deal))
        lines.extend(_claim_lines(deal["claim"]))
    return "\n".join(lines)


def _single_dummy_lines(deal: dict[str, Any]) -> list[str]:
    """The cards beaten on what their player could know, and per seat lines lost and luck."""
    out: list[str] = []
    for play in deal["plays"]:
        sd = play["sd"]
        if sd is None or not (sd["cost_lines"] > 0 or (sd["cost_lines"] == 0 and sd["cost_points"] > 0)):
            continue
        best = sd["best_cards"][0]
        basis = f"{sd['layouts']} layouts" if sd["exact"] else f"{sd['layouts']} sampled layouts, ±{sd['stderr']:.2f}"
        cost = (f"{sd['cost_lines']:.2f} lines" if sd["cost_lines"] > 0 else f"{sd['cost_points']:.2f} points")
        win = sd["cards"][best]["win"]
        out.append(f"  single-dummy, trick {play['trick']}: {play['seat']} {play['card']} cost {cost} on what "
                   f"{play['seat']} could know (best {' '.join(sd['best_cards'])}: wins in {win:.0%} of {basis})")
    summary = deal.get("sd_summary")
    if summary:
        parts = " ".join(f"{seat} {v['lines_lost']:.2f}/{v['luck']:+.2f}" for seat, v in summary.items())
        out.append(f"  lines lost on what each could know / luck: {parts}")
    return out


def _claim_lines(claim: dict[str, Any] | None) -> list[str]:
    if claim is None:
        return []
    if claim["safe"] is None:
        verdict = (f"cannot tell: Kapo in {claim['kapo_layouts']} of {claim['layouts']} layouts of the unseen cards"
                   if claim["layouts"] else "cannot tell: too many layouts of the unseen cards")
    else:
        verdict = "safe" if claim["safe"] else "not safe: Kapo was still possible"
    return [f"  claim by {claim['team']} after trick {claim['after_trick']}: {verdict}"]


def run(args: argparse.Namespace) -> int:
    notes: list[str] = []
    record = load_record(args.record, notes)
    for note in notes:  # a name an earlier tablepi wrote that this one refuses: read as it fits, and said
        print(f"tablepi analyse: warning: {note}", file=sys.stderr)
    header = record.header
    table = Table.replay(record.events, header.house_rules, header.dealer, header.table)
    deals = analyse_table(table)
    if args.json:
        print(json.dumps({"deals": deals}, indent=2, ensure_ascii=False))
    else:
        print(format_text(deals))
    return 0
