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

from tablepi.journal.record import load_record
from tablepi.rules.cards import Card, Suit
from tablepi.table.machine import Table
from tablepi.table.summary import replay_report

HELP = "replay a game record and print each deal, the slate and every warning"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("record", help="the game record (JSON Lines, docs/records.md; .gz from the archive), or a "
                        "journal file (read only, damaged or not)")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    parser.add_argument(
        "--analyse", action="store_true", help="with --json: add each deal's best-play analysis (docs/analysis.md)"
    )


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
        from tablepi.journal.journal import read_journal

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
