"""The players' book: filled from the table's journal and archive, statistics equal to an independent count from
``tablepi replay --json``, a reproducible rating, privacy (initials, forget) in the exports."""

from __future__ import annotations

import contextlib
import io
import json
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import pytest

from tablepi.book.export import archive_lookup, player_csv, write_player_records
from tablepi.book.fill import journal_facts, rebuild, record_facts
from tablepi.book.rating import rate_matches
from tablepi.book.stats import ALL_TIME, Period, evening_period, leaderboard, partnership_stats, player_stats
from tablepi.book.store import Book
from tablepi.cli import main
from tablepi.journal import archive as match_archive
from tablepi.rules.seats import Seat
from tests.book.helpers import HOSTILE, play, rotation

PEOPLE = ["Jang", "Marie", "Pol", "Fränz", "Lis", *HOSTILE]
DAY = 86400.0


@pytest.fixture(scope="module")
def evening(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Twelve matches of seven regulars (and guests) at one table, with the mistakes players make."""
    directory = tmp_path_factory.mktemp("table")
    play(directory, rotation(12, PEOPLE), seed=11).close()
    return directory


def _records(directory: Path) -> list[Path]:
    return [p for p in match_archive.matches(directory / "archive") if p.name.endswith(".jsonl.gz")]


def _fill(book: Book, directory: Path, review: bool = False) -> None:
    """Each archived record on a day of its own (to test periods): day 0, 1, 2, ..."""
    for day, path in enumerate(_records(directory)):
        book.add(record_facts(path, "1", review=review, ended=1_800_000_000.0 + day * DAY))


# --- an independent count, from `tablepi replay --json` and the records' own seat lines ----------------------

def _replay_json(path: Path) -> dict[str, Any]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["replay", "--json", str(path)]) == 0
    return json.loads(out.getvalue())


def _seatings(path: Path) -> dict[int, dict[str, str]]:
    """match number -> seat -> name, read from the record's lines: the names in force at each match's first
    trumps (a seat line before the match's first card or deal entry)."""
    import gzip

    with gzip.open(path, "rt", encoding="utf-8") as handle:
        lines = handle.read().splitlines()[1:]
    names: dict[str, str] = {}
    out: dict[int, dict[str, str]] = {}
    match = 1
    started = False
    for line in lines:
        event = json.loads(line)
        if event["type"] == "seat":
            moved = {name.casefold() for name in event["names"].values()}
            names = {s: n for s, n in names.items() if s in event["names"] or n.casefold() not in moved}
            names.update(event["names"])  # names stay from match to match; a player sits at one seat
        elif event["type"] == "button" and event["name"] in ("new_match", "revanche") and started:
            match, started = match + 1, False
        elif event["type"] in ("place", "deal_entry") and not started:
            out[match] = dict(names)
            started = True
    return out


def _count(directory: Path, name: str, first_day: int = 0, last_day: int = 10**6) -> dict[str, Any]:
    c: Counter[str] = Counter()
    named: Counter[str] = Counter()
    named_won: Counter[str] = Counter()
    said: Counter[str] = Counter()
    said_won: Counter[str] = Counter()
    partners: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for day, path in enumerate(_records(directory)):
        if not first_day <= day <= last_day:
            continue
        report = _replay_json(path)
        seats = _seatings(path)
        by_match: dict[int, list[dict[str, Any]]] = defaultdict(list)
        for deal in report["deals"]:
            by_match[deal["match"]].append(deal)
        for number, deals in by_match.items():
            who = seats.get(number, {})
            mine_seats = [s for s, n in who.items() if n == name]
            if not mine_seats:
                continue
            seat = mine_seats[0]
            team = "NS" if seat in "NS" else "EW"
            other = "EW" if team == "NS" else "NS"
            partner = who.get({"N": "S", "S": "N", "E": "W", "W": "E"}[seat])
            final = deals[-1]["slate"]
            winner = team if final[team] <= 0 else (other if final[other] <= 0 else None)  # rule 28
            if winner is not None:
                c["matches"] += 1
                c["matches_won"] += winner == team
            for deal in deals:
                won, lost = deal["winner"] == team, deal["winner"] == other
                trump = ("NS" if deal["forehand"] in "NS" else "EW") == team
                c["deals"] += 1
                c["won"] += won
                c["lost"] += lost
                c["trump"] += trump
                c["trump_won"] += trump and won
                c["def"] += not trump
                c["def_won"] += (not trump) and won
                c["kapo_made"] += deal["kapo"] and won
                c["kapo_conceded"] += deal["kapo"] and lost
                c["lines"] += deal["struck"][team] + deal["added"][other] - deal["struck"][other] - deal["added"][team]
                if deal["forehand"] == seat:
                    named[deal["trump"] or "by_hand"] += 1
                    named_won[deal["trump"] or "by_hand"] += won
                kinds = {a["announcement"] for a in deal["announcements"] if a["seat"] == seat}
                if kinds:
                    kind = "konter_a_matt" if {"matt", "konter"} <= kinds or "konter_a_matt" in kinds else kinds.pop()
                    said[kind] += 1
                    said_won[kind] += won
                if partner is not None:
                    partners[partner][0] += 1
                    partners[partner][1] += won
            c["revokes"] += sum(1 for w in report["warnings"] if w["code"] == "revoke" and w["seat"] == seat
                                and (len(by_match) == 1))
    return {"c": c, "named": {k: {"named": v, "won": named_won[k]} for k, v in named.items()},
            "announced": {k: {"announced": v, "won": said_won[k]} for k, v in said.items()},
            "partners": partners}


def _assert_same(stats: dict[str, Any], count: dict[str, Any]) -> None:
    c = count["c"]
    assert stats["matches"] == {"played": c["matches"], "won": c["matches_won"]}
    assert stats["deals"] == {"played": c["deals"], "won": c["won"], "lost": c["lost"],
                              "tied": c["deals"] - c["won"] - c["lost"]}
    assert stats["trump_team"] == {"played": c["trump"], "won": c["trump_won"]}
    assert stats["defenders"] == {"played": c["def"], "won": c["def_won"]}
    assert stats["kapo"] == {"made": c["kapo_made"], "conceded": c["kapo_conceded"]}
    assert stats["lines"]["total"] == c["lines"]
    assert stats["trumps_named"] == count["named"]
    assert stats["announced"] == count["announced"]


@pytest.mark.parametrize("name", ["Jang", "Pol", "<script>x()</script>", "\u05e9\u05dc\u05d5\u05dd \u05d0"])
def test_statistics_equal_an_independent_count_from_replay_json(evening: Path, tmp_path: Path, name: str) -> None:
    records = _records(evening)
    assert len(records) >= 8  # most matches rotated into the archive; some records hold two matches
    with Book(tmp_path / "players.sqlite3") as book:
        _fill(book, evening)
        player = book.player(name)
        assert player is not None
        count = _count(evening, name)
        assert count["c"]["deals"] > 0
        _assert_same(player_stats(book, player, ALL_TIME, min_together=1), count)
        # a period: the days 2 to 5 only (each record was given a day of its own)
        first = time.strftime("%Y-%m-%d", time.localtime(1_800_000_000.0 + 2 * DAY - 6 * 3600))
        last = time.strftime("%Y-%m-%d", time.localtime(1_800_000_000.0 + 5 * DAY - 6 * 3600))
        _assert_same(player_stats(book, player, Period("some", first, last)), _count(evening, name, 2, 5))
        _assert_same(player_stats(book, player, evening_period(first)), _count(evening, name, 2, 2))
        # the partnership with his most frequent partner
        partner_name, (deals, won) = max(count["partners"].items(), key=lambda kv: kv[1][0])
        partner = book.player(partner_name)
        assert partner is not None
        pair = partnership_stats(book, player, partner, ALL_TIME)
        assert (pair["deals"]["played"], pair["deals"]["won"]) == (deals, won)


def test_revokes_are_counted_for_the_seat_that_revoked(evening: Path, tmp_path: Path) -> None:
    with Book(tmp_path / "players.sqlite3") as book:
        _fill(book, evening)
        total = sum(player_stats(book, p, ALL_TIME)["revokes"] for p in book.players())
        rows = book.db.execute("SELECT SUM(revokes) FROM deal_rows").fetchone()[0]
        warned = sum(1 for path in _records(evening) for w in _replay_json(path)["warnings"] if w["code"] == "revoke")
    assert rows == warned > 0  # mistakes=True: the scripted players revoke now and then
    assert 0 < total <= rows  # a guest's revokes are nobody's


def test_the_rating_is_reproducible_from_the_matches_in_order(evening: Path, tmp_path: Path) -> None:
    with Book(tmp_path / "a.sqlite3") as one, Book(tmp_path / "b.sqlite3") as two:
        _fill(one, evening)
        facts = [f for day, path in enumerate(_records(evening))
                 for f in record_facts(path, "1", review=False, ended=1_800_000_000.0 + day * DAY)]
        two.add(reversed(facts))  # the same matches added in the wrong order: rated again in order
        by_name = {p.name: p.id for p in one.players()}
        other = {p.name: p.id for p in two.players()}
        first = {n: one.ratings()[i] for n, i in by_name.items() if i in one.ratings()}
        second = {n: two.ratings()[i] for n, i in other.items() if i in two.ratings()}
        assert first == second
        assert rate_matches(one.matches(), {}) == one.ratings()
        board = leaderboard(one, min_deals=30)
        assert board and all(row["deals"] >= 30 for row in board)
        assert [r["rating"] for r in board] == sorted((r["rating"] for r in board), reverse=True)
        assert len(leaderboard(one, min_deals=10**6)) == 0


def test_rebuild_from_the_journal_and_archive_gives_the_same_book(evening: Path, tmp_path: Path) -> None:
    with Book(tmp_path / "players.sqlite3") as book:
        count = rebuild(book, evening / "journal.sqlite3", evening / "archive", "1", review=False)
        assert count == book.match_count() >= 10
        first = {p.name: player_stats(book, p, ALL_TIME) for p in book.players()}
        book.set_public("Jang", True)
        rebuild(book, evening / "journal.sqlite3", evening / "archive", "1", review=False)
        assert {p.name: player_stats(book, p, ALL_TIME) for p in book.players()} == first
        assert book.player("jang") is not None and book.player("jang").public  # his choice survives a rebuild
        assert not book.player("Marie").public  # private by default
        assert book.player("Marie").initials == "M."


def test_guests_stay_guests(evening: Path, tmp_path: Path) -> None:
    with Book(tmp_path / "players.sqlite3") as book:
        _fill(book, evening)
        names = {p.name for p in book.players()}
        assert names <= set(PEOPLE)
        guests = book.db.execute("SELECT COUNT(*) FROM seats WHERE player IS NULL").fetchone()[0]
        assert guests > 0


def test_reviewed_deals_carry_each_cards_cost(evening: Path, tmp_path: Path) -> None:
    with Book(tmp_path / "players.sqlite3") as book:
        book.add(record_facts(_records(evening)[0], "1", review=True))
        match = book.match(1)
        assert match is not None
        reviewed = [d for d in match["deals"] if d["review"] is not None]
        assert reviewed, "deals played out to the last trick are reviewed"
        for deal in reviewed:
            cards = {(p["seat"], p["card"]) for p in deal["review"]["plays"]}
            played = {tuple(o.split(":")) for t in deal["tricks"] for o in t["order"]}
            assert cards == played
            assert all(isinstance(p["cost"], int) and p["cost"] >= 0 for p in deal["review"]["plays"])
        stats = [player_stats(book, p, ALL_TIME)["review"] for p in book.players()]
        assert any(s["deals_reviewed"] for s in stats)
        # the single-dummy review's figures: lines lost to choices (per card, summed) and to luck (per seat)
        reviewed_players = [s for s in stats if s["deals_reviewed"]]
        assert all(s["lines_lost"] is not None and s["luck"] is not None for s in reviewed_players)
        for deal in reviewed:
            for seat in "NESW":
                per_card = sum(p["cost_lines"] or 0 for p in deal["review"]["plays"] if p["seat"] == seat)
                assert abs(per_card - deal["review"]["lines_lost"][seat]) < 1e-3


def test_forget_removes_him_from_the_book_and_a_rebuild_does_not_bring_him_back(evening: Path, tmp_path: Path) -> None:
    with Book(tmp_path / "players.sqlite3") as book:
        rebuild(book, evening / "journal.sqlite3", evening / "archive", "1", review=False)
        matches = book.forget("Pol")
        assert matches > 0
        assert book.player("Pol") is None
        rebuild(book, evening / "journal.sqlite3", evening / "archive", "1", review=False)
        assert book.player("Pol") is None
        assert "Pol" not in book.db.execute("SELECT group_concat(name) FROM players").fetchone()[0]


def test_exports_show_others_by_initials_unless_they_opted_in(evening: Path, tmp_path: Path) -> None:
    with Book(tmp_path / "players.sqlite3") as book:
        rebuild(book, evening / "journal.sqlite3", evening / "archive", "1", review=False)
        book.set_public("Marie", True)
        jang = book.player("Jang")
        assert jang is not None
        text = player_csv(book, jang)
        rows = text.splitlines()
        assert len(rows) - 1 == player_stats(book, jang, ALL_TIME)["deals"]["played"]
        folder = tmp_path / "records"
        written = write_player_records(book, jang, archive_lookup(evening / "archive"), folder)
        assert written
        records = "".join(p.read_text(encoding="utf-8") for p in written)
        for other in ("Pol", "Fränz", "Lis", *HOSTILE):
            assert other not in text and json.dumps(other)[1:-1] not in records, other
        assert "Jang" in records  # his own name: the export is his
        met = set(book.matches_of_player(jang.id)) & set(book.matches_of_player(book.player("Marie").id))
        assert bool(met) == ("Marie" in text) == ("Marie" in records)  # she opted in
        for path in written:  # the records still replay
            assert main(["replay", "--json", str(path)]) == 0


def test_the_journals_finished_match_is_in_the_book(evening: Path) -> None:
    facts = journal_facts(evening / "journal.sqlite3", "1", review=False)
    assert all(f.finished for f in facts)


def test_the_command_line(evening: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base = ["players", "--config", str(tmp_path / "none.toml"), "--journal", str(evening / "journal.sqlite3"),
            "--book", str(tmp_path / "players.sqlite3")]
    assert main([*base, "rebuild", "--no-review"]) == 0
    assert main([*base, "public", "Jang"]) == 0
    assert main([*base, "list"]) == 0
    out = capsys.readouterr().out
    assert "Jang" in out and "M." in out
    assert main([*base, "stats", "Jang"]) == 0
    stats = json.loads(capsys.readouterr().out)
    assert stats["deals"]["played"] > 0
    assert main([*base, "export", "Jang", str(tmp_path / "jang.csv")]) == 0
    assert (tmp_path / "jang.csv").read_text().startswith("evening,")
    names = evening / "names.txt"
    before = names.read_text(encoding="utf-8") if names.exists() else None
    names.write_text("Pol\nJang\n", encoding="utf-8")
    try:
        assert main([*base, "forget", "Pol"]) == 0
        assert names.read_text(encoding="utf-8") == "Jang\n"  # the keyboard no longer offers him
    finally:
        if before is None:
            names.unlink()
        else:
            names.write_text(before, encoding="utf-8")
    assert main([*base, "stats", "Pol"]) == 2
    assert "no player 'Pol'" in capsys.readouterr().err
    assert main([*base, "leaderboard"]) == 0
    assert Seat.N.value == "N"


def test_a_match_won_just_before_the_table_stopped_is_added_at_the_next_start(tmp_path: Path) -> None:
    from tablepi.book.fill import BookKeeper
    from tablepi.journal.journal import JournaledTable

    table = play(tmp_path, [{Seat.N: "Jang", Seat.S: "Marie"}], seed=3)  # won, the keeper not running
    table.close()
    with Book(tmp_path / "players.sqlite3") as book:
        again = JournaledTable(tmp_path / "journal.sqlite3", archive=tmp_path / "archive")
        keeper = BookKeeper(book, again, "1", review=False).start()
        try:
            assert keeper.idle.wait(60)
            assert book.match_count() == 1 and book.player("Jang") is not None
        finally:
            keeper.close()
            again.close()
