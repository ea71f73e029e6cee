"""A player's games as CSV and as game records, with the others' names as the pages show them.

Both exports are for the player himself: his own name is written; every other player is written as the pages
show him (his name if he opted in, else his initials), a guest as "guest". The game records are the book's matches
written back as records (docs/records.md) from where the matches' events are kept — a table's archive, a
league's store of every table's feed (a :data:`RecordLookup`) — with the seat events' names replaced the same way,
so a record handed to one player carries nobody else's name against his will.

``tablepi players export`` writes them to files; the pages serve the same (``/me/<token>/games.csv``,
``/me/<token>/records.zip``: :mod:`tablepi.book.pages`).
"""

from __future__ import annotations

import csv
import io
import time
import zipfile
from collections.abc import Callable, Iterator, Mapping
from dataclasses import replace
from pathlib import Path

from tablepi.book.store import Book, Player
from tablepi.journal.record import Record, load_record, write_record
from tablepi.rules.seats import Seat
from tablepi.table.events import PlayersSeated, TableEvent

GUEST = "guest"
#: (table, journal id) -> that journal's game record, or None: not kept (any more), or a match in it still in play.
RecordLookup = Callable[[str, str], Record | None]

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


def player_records(book: Book, player: Player, lookup: RecordLookup,
                   newest: int | None = None) -> Iterator[tuple[str, str]]:
    """His matches as game records, oldest first: (file name, the record's text), one per journal he played in
    (``newest``: only that many of the newest). A match whose record ``lookup`` does not give is left out."""
    shown = shown_names(book, player)
    names = {p.name.casefold(): shown[p.id] for p in book.players()}
    journals: dict[tuple[str, str], str] = {}  # (table, journal id) -> the evening of its first match he played
    for mid in book.matches_of_player(player.id):
        match = book.match(mid)
        assert match is not None
        journals.setdefault((match["table"], match["journal"]), match["evening"])
    chosen = list(journals.items())
    for (table, journal), evening in chosen[-newest:] if newest is not None else chosen:
        record = lookup(table, journal)
        if record is None:
            continue
        out = io.StringIO()
        write_record(out, record.header, [_renamed(event, names) for event in record.events])
        yield f"{evening}-table{table}-{journal}.jsonl", out.getvalue()


def write_player_records(book: Book, player: Player, lookup: RecordLookup, folder: Path) -> list[Path]:
    """His matches as game records in ``folder`` (one file per record he played in)."""
    folder.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    for name, text in player_records(book, player, lookup):
        target = folder / name
        target.write_text(text, encoding="utf-8")
        written.append(target)
    return written


def records_zip(records: Iterator[tuple[str, str]]) -> bytes:
    """Game records as one ZIP file (what a phone downloads)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, text in records:
            archive.writestr(name, text)
    return buffer.getvalue()


def _renamed(event: TableEvent, names: Mapping[str, str]) -> TableEvent:
    if not isinstance(event, PlayersSeated):
        return event
    seats = tuple((seat, names.get(name.casefold(), GUEST)) for seat, name in event.names)
    return replace(event, names=seats, uid="")


def archive_lookup(archive: Path | None) -> RecordLookup:
    """A table's game records by journal id: its archive as it is now (a live journal's finished match is there
    once it is archived, when the next match begins). The table's own matches only: ``table`` is not asked."""
    from tablepi.journal import archive as match_archive

    found: dict[str, Path] = {}
    if archive is not None:
        for path in match_archive.matches(archive):
            jid = match_archive.journal_id_of(path)
            if jid:
                found[jid] = path

    def lookup(table: str, journal: str) -> Record | None:
        path = found.get(journal)
        return None if path is None else load_record(path)

    return lookup
