"""A player's games as CSV and as game records, with the others' names as the pages show them.

Both exports are for the player himself: his own name is written; every other player is written as the pages
show him (his name if he opted in, else his initials), a guest as "guest". The game records are the book's matches
written back as records (docs/records.md) from the archive and the journal, with the seat events' names replaced
the same way, so a record handed to one player carries nobody else's name against his will.
"""

from __future__ import annotations

import csv
import io
import time
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

from tablepi.book.store import Book, Player
from tablepi.journal.record import load_record, write_record
from tablepi.rules.seats import Seat
from tablepi.table.events import PlayersSeated, TableEvent

GUEST = "guest"

CSV_COLUMNS = ("evening", "ended", "table", "match", "deal", "seat", "partner", "opponents", "trump_team",
               "trumps", "named_by_me", "announcements", "result", "won", "points_us", "points_them", "kapo",
               "lines_struck_us", "lines_added_us", "lines_struck_them", "lines_added_them", "open_us",
               "open_them", "reviewed", "points_lost")


def shown_names(book: Book, viewer: Player | None = None) -> dict[int, str]:
    """player id -> what an export or a page shows of him (``viewer`` sees his own name)."""
    return {p.id: (p.name if viewer is not None and p.id == viewer.id else p.shown) for p in book.players()}


def player_csv(book: Book, player: Player) -> str:
    """One row per deal he played, from his side."""
    names = shown_names(book, player)
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(CSV_COLUMNS)
    for mid in book.matches_of_player(player.id):
        match = book.match(mid)
        assert match is not None
        seat = next(Seat(s) for s, p in match["seats"].items() if p == player.id)
        mine, theirs = seat.team.value, seat.team.other.value

        def who(s: Seat, seats: Mapping[str, int | None] = match["seats"]) -> str:
            found = seats.get(s.value)
            return GUEST if found is None else names.get(found, GUEST)

        opponents = " & ".join(who(s) for s in seat.team.other.seats)
        for deal in match["deals"]:
            review = deal.get("review")
            cost = "" if review is None else sum(p.get("cost", 0) for p in review["plays"] if p["seat"] == seat.value)
            said = " ".join(f"{a['seat']}:{a['announcement']}" for a in deal["announcements"])
            writer.writerow([
                match["evening"], time.strftime("%Y-%m-%d %H:%M", time.localtime(match["ended"])), match["table"],
                match["number"], deal["number"], seat.value, who(seat.partner), opponents,
                int(Seat(deal["forehand"]).team.value == mine), deal["trump"] or "",
                int(deal["forehand"] == seat.value), said, deal["result"],
                "tie" if deal["winner"] is None else int(deal["winner"] == mine),
                deal["points"][mine], deal["points"][theirs], int(bool(deal["kapo"])),
                deal["struck"][mine], deal["added"][mine], deal["struck"][theirs], deal["added"][theirs],
                deal["slate"][mine], deal["slate"][theirs], int(review is not None), cost,
            ])
    return out.getvalue()


def write_player_records(book: Book, player: Player, sources: Mapping[str, Path], folder: Path) -> list[Path]:
    """His matches as game records in ``folder`` (one file per record he played in). ``sources``: journal id ->
    the archived record or journal it came from (:func:`record_sources`)."""
    folder.mkdir(parents=True, exist_ok=True)
    names = {p.name.casefold(): shown for p, shown in
             ((p, shown_names(book, player)[p.id]) for p in book.players())}
    written: list[Path] = []
    done: set[str] = set()
    for mid in book.matches_of_player(player.id):
        match = book.match(mid)
        assert match is not None
        journal = match["journal"]
        source = sources.get(journal)
        if source is None or journal in done:
            continue
        done.add(journal)
        record = load_record(source)
        events = [_renamed(event, names) for event in record.events]
        target = folder / f"{match['evening']}-table{match['table']}-{journal[:8]}.jsonl"
        with target.open("w", encoding="utf-8") as out:
            write_record(out, record.header, events)
        written.append(target)
    return written


def _renamed(event: TableEvent, names: Mapping[str, str]) -> TableEvent:
    if not isinstance(event, PlayersSeated):
        return event
    seats = tuple((seat, names.get(name.casefold(), GUEST)) for seat, name in event.names)
    return replace(event, names=seats, uid="")


def record_sources(archive: Path | None) -> dict[str, Path]:
    """journal id -> the archived record holding it (a live journal's finished match is exported once it is
    archived, when the next match begins)."""
    from tablepi.journal import archive as match_archive

    found: dict[str, Path] = {}
    if archive is not None:
        for path in match_archive.matches(archive):
            jid = match_archive.journal_id_of(path)
            if jid:
                found[jid] = path
    return found
