"""The players' book at a season's size: load, a finished match added, pages served, phones on the live page, and
whether the rating predicts the next match better than win percentage.

Run: ``.venv/bin/python bench/bench_players.py [--matches 10000] [--runs 3] [--phones 200] [--cache DIR]``.

1. **A season** of ``--matches`` matches among ``--players`` regulars (and a guest now and then) is generated
   through the table's own code: scripted players (:func:`tablepi.table.simulate.simulate_match`, each regular with
   a hidden skill: how often he plays a sensible card instead of a random legal one; every tenth match with the
   mistakes players make) give the gestures; the records are written as the archive writes finished matches
   (:func:`tablepi.journal.archive.write_match`), and the book reads them back through the real table state machine, as
   it does on the table. Left out of the generation: the journal's per-event fsync (0.3 s a match on this machine;
   10,000 matches would take an hour). ``--cache`` keeps the season for the next run.
2. **Loaded into the book once**, timed: the replay of every record (facts) and the inserts (with the ratings kept
   up to date match by match), without the best-play review (0.1 s a deal here: the table reviews a match's deals
   as it finishes, off the table's path; the time of one reviewed match is printed besides).
3. **A finished match added** to the full book (its replay, its rows, its players' ratings), ``--runs`` runs of 100.
4. **The leaderboard and a regular's page** served over HTTP by the table's pages (uvicorn, as on the table),
   ``--runs`` runs of 200 requests each, from a client in this process (keep-alive).
5. **The hold-out**: every match predicted from what was known before it (the first half of the season only
   teaches), by the per-match rating, a per-deal rating, and the partnerships' win percentage so far; log loss,
   Brier score and how often the favourite won.
6. **200 phones on the live page while deals are played**: the table as it runs (journal with fsync, table, view
   model, headless renderer: the time from a card placed to its frame drawn), once bare and once with the book
   keeping up and the pages serving ``--phones`` open event streams (a separate process plays the phones), the
   two alternating in the same run, ``--runs`` times; and how many updates the phones received.

Figures: min / median / max over the runs. Left out: a real Pi (this is a 2-core x86 machine), Wi-Fi, and the
phones' browsers drawing the page.
"""

from __future__ import annotations

import argparse
import http.client
import json
import math
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from tablepi.book.config import BookConfig
from tablepi.book.export import archive_lookup
from tablepi.book.facts import match_facts
from tablepi.book.fill import BookKeeper, record_facts
from tablepi.book.pages import Pages, make_pages
from tablepi.book.rating import model
from tablepi.book.store import Book
from tablepi.changes import Changes
from tablepi.journal import archive as match_archive
from tablepi.journal.record import RecordHeader, event_to_line
from tablepi.rules.seats import Seat, Team
from tablepi.table.events import PlayersSeated, SeatingSource, TableEvent
from tablepi.table.simulate import simulate_match
from tablepi.web.serve import WebServer

BASE = 1_790_000_000.0  # the season's first match ended here (wall clock)
NAMES = ["Jang", "Marie", "Pol", "Fränz", "Lis", "Nico", "Tom", "Anne", "Carole", "Jos", "Mett", "Lex", "Pit",
         "Josée", "Romain", "Claude", "Sandra", "Yves", "Gaby", "Luc", "Monique", "Patrick", "Danielle", "Raoul"]


def uptime() -> None:
    """The machine's load (shared and noisy: the figures are read against it)."""
    print("uptime:", subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip(), flush=True)


def spread(values: list[float], unit: str = "ms", scale: float = 1000.0) -> str:
    return " / ".join(f"{v * scale:.2f}" for v in (min(values), statistics.median(values), max(values))) + f" {unit}"


def pct(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


# --- 1. the season ---------------------------------------------------------------------------------------------

def season_events(number: int, skills: dict[str, float], rng: random.Random) -> tuple[list[TableEvent], int]:
    people = list(skills)
    chosen = rng.sample(people, 4)
    names = {seat: name for seat, name in zip(Seat, chosen, strict=True)}
    if rng.random() < 0.05:
        del names[rng.choice(list(Seat))]  # a guest in that seat
    skill = {seat: skills.get(names.get(seat, ""), 0.3) for seat in Seat}
    script = simulate_match(number, dealer=Seat.N, mistakes=number % 10 == 0, skill=skill)
    events: list[TableEvent] = [PlayersSeated(0.0, tuple(names.items()), SeatingSource.TOUCH)]
    events += [_shifted(e) for e in script.events]
    return events, script.deals


def _shifted(event: TableEvent) -> TableEvent:
    import dataclasses

    return dataclasses.replace(event, time=event.time + 1.0)


def generate(folder: Path, matches: int, players: int) -> list[tuple[Path, float]]:
    manifest = folder / "season.json"
    if manifest.exists():
        data = json.loads(manifest.read_text())
        if data["matches"] == matches and data["players"] == players:
            return [(Path(p), e) for p, e in data["records"]]
    rng = random.Random(24)
    skills = {name: round(rng.uniform(0.0, 0.9), 2) for name in NAMES[:players]}
    header = RecordHeader()
    records = []
    start = time.perf_counter()
    for number in range(matches):
        events, _ = season_events(number, skills, rng)
        path = match_archive.write_match(folder / "archive", "journal", f"season{number:06d}", header,
                                         [event_to_line(e) for e in events])
        records.append((str(path), BASE + number * 1200.0))  # a match every 20 minutes, evening after evening
        if number % 1000 == 999:
            print(f"  generated {number + 1} matches ({time.perf_counter() - start:.0f} s)", flush=True)
    manifest.write_text(json.dumps({"matches": matches, "players": players, "skills": skills,
                                    "records": records}))
    return [(Path(p), e) for p, e in records]


# --- 2-4. load, add, serve -------------------------------------------------------------------------------------

def load(book: Book, records: list[tuple[Path, float]]) -> tuple[float, float]:
    facts_time = add_time = 0.0
    for path, ended in records:
        t0 = time.perf_counter()
        facts = record_facts(path, "1", review=False, ended=ended)
        t1 = time.perf_counter()
        book.add(facts)
        t2 = time.perf_counter()
        facts_time += t1 - t0
        add_time += t2 - t1
    return facts_time, add_time


def bench_add(book: Book, runs: int, first: int) -> None:
    rng = random.Random(99)
    skills = {name: rng.uniform(0.0, 0.9) for name in NAMES}
    adds: list[list[float]] = []
    cpus: list[list[float]] = []
    whole: list[list[float]] = []
    number = first
    for _ in range(runs):
        one: list[float] = []
        cpu: list[float] = []
        both: list[float] = []
        for _ in range(100):
            events, _ = season_events(number, skills, rng)
            ended = BASE + number * 1200.0
            number += 1
            t0 = time.perf_counter()
            facts = match_facts(RecordHeader(), events, table="1", journal=f"extra{number}", ended=ended,
                                review=False)
            t1, c1 = time.perf_counter(), time.thread_time()
            book.add(facts)
            t2, c2 = time.perf_counter(), time.thread_time()
            one.append(t2 - t1)
            cpu.append(c2 - c1)
            both.append(t2 - t0)
        adds.append(one)
        cpus.append(cpu)
        whole.append(both)
    print(f"a finished match added to the book (rows and ratings), {runs} runs of 100: "
          f"p50 {spread([pct(r, 0.5) for r in adds])}, p99 {spread([pct(r, 0.99) for r in adds])} (target <= 50 ms)")
    print(f"  its CPU time (the adding thread's own: what the machine's other load does not inflate): "
          f"p50 {spread([pct(r, 0.5) for r in cpus])}, p99 {spread([pct(r, 0.99) for r in cpus])}")
    print(f"  with its replay from the events (the keeper's whole work, review left out): "
          f"p50 {spread([pct(r, 0.5) for r in whole])}, p99 {spread([pct(r, 0.99) for r in whole])}")
    events, _ = season_events(number, skills, rng)
    t0 = time.perf_counter()
    reviewed = match_facts(RecordHeader(), events, table="1", journal="reviewed", ended=BASE, review=True)
    seconds = time.perf_counter() - t0
    deals = len(reviewed[0].deals) if reviewed else 0
    print(f"  one match with the best-play review of its deals: {seconds:.2f} s ({deals} deals), on the keeper's "
          "thread")


def bench_pages(book: Book, runs: int, archive: Path | None) -> None:
    pages = Pages(book, BookConfig(), lambda: (1, []), Changes(), lambda: archive_lookup(archive))
    web = WebServer(None, app=lambda stopping: make_pages(pages, "en", stopping=stopping),
                    changes=pages.changes).start()
    try:
        regular = max(book.players(), key=lambda p: book.ratings().get(p.id, (0, 0, 0, 0))[3])
        for path, label in (("/leaderboard", "the leaderboard"), (f"/players/{regular.id}", "a regular's page")):
            p50s, p99s = [], []
            for _ in range(runs):
                conn = http.client.HTTPConnection("127.0.0.1", web.port, timeout=30)
                samples = []
                for _ in range(200):
                    t0 = time.perf_counter()
                    conn.request("GET", path)
                    answer = conn.getresponse()
                    answer.read()
                    samples.append(time.perf_counter() - t0)
                    assert answer.status == 200
                conn.close()
                p50s.append(pct(samples, 0.5))
                p99s.append(pct(samples, 0.99))
            print(f"{label} served ({path}), {runs} runs of 200: p50 {spread(p50s)}, p99 {spread(p99s)} "
                  "(target p99 <= 100 ms)")
        own = f"/me/{book.token(regular)}"
        for path, label in ((f"{own}/games.csv", "his games as CSV"), (f"{own}/records.zip", "his game records")):
            times, size = [], 0
            for _ in range(runs):
                conn = http.client.HTTPConnection("127.0.0.1", web.port, timeout=300)
                t0 = time.perf_counter()
                conn.request("GET", path)
                answer = conn.getresponse()
                size = len(answer.read())
                times.append(time.perf_counter() - t0)
                conn.close()
                assert answer.status == 200
            print(f"{label} served ({book.ratings()[regular.id][2]} matches; {size / 1e6:.1f} MB), {runs} runs: "
                  f"{spread(times, 's', 1.0)}")
    finally:
        web.close()


# --- 5. the hold-out -------------------------------------------------------------------------------------------

def holdout(book: Book) -> None:
    # The season only: the matches the add benchmark appends are played by other hidden skills under the same names.
    matches = [m for m in book.matches() if ":season" in m[1]]
    deal_wins: dict[int, list[int]] = {}
    with book.lock:
        for mid, won, lost in book.db.execute("SELECT match, won, lost FROM deal_rows WHERE seat='N' ORDER BY match, "
                                              "deal"):
            if won or lost:
                deal_wins.setdefault(mid, []).append(1 if won else 0)
    from openskill.models import PlackettLuce

    rater = model()
    plain = PlackettLuce()  # openskill's defaults: nothing chosen on any season
    per_match: dict[int, Any] = {}
    per_deal: dict[int, Any] = {}
    defaults: dict[int, Any] = {}
    record: dict[int, list[int]] = {}  # player -> [won, played] matches
    scores: dict[str, list[tuple[float, int]]] = {"rating per match": [], "rating per deal": [],
                                                  "openskill defaults": [], "win %": []}
    teach = len(matches) // 2

    def team(table: dict[int, Any], seats: dict[str, int | None], side: Team, by: Any = rater) -> list[Any]:
        return [table.get(p, by.rating()) if p is not None else by.rating()
                for p in (seats.get(s.value) for s in side.seats)]

    for index, (mid, _, _, winner, seats, _) in enumerate(matches):
        if winner not in ("NS", "EW"):
            continue
        outcome = 1 if winner == "NS" else 0
        if index >= teach:
            scores["rating per match"].append(
                (rater.predict_win([team(per_match, seats, Team.NS), team(per_match, seats, Team.EW)])[0], outcome))
            scores["rating per deal"].append(
                (rater.predict_win([team(per_deal, seats, Team.NS), team(per_deal, seats, Team.EW)])[0], outcome))
            scores["openskill defaults"].append((plain.predict_win(
                [team(defaults, seats, Team.NS, plain), team(defaults, seats, Team.EW, plain)])[0], outcome))
            ns, ew = _win_share(record, seats, Team.NS), _win_share(record, seats, Team.EW)
            scores["win %"].append((ns / (ns + ew), outcome))
        ranks = [1, 2] if outcome else [2, 1]
        new = rater.rate([team(per_match, seats, Team.NS), team(per_match, seats, Team.EW)], ranks=ranks)
        _store(per_match, seats, new)
        _store(defaults, seats, plain.rate([team(defaults, seats, Team.NS, plain),
                                            team(defaults, seats, Team.EW, plain)], ranks=ranks))
        for won in deal_wins.get(mid, []):
            new = rater.rate([team(per_deal, seats, Team.NS), team(per_deal, seats, Team.EW)],
                             ranks=[1, 2] if won else [2, 1])
            _store(per_deal, seats, new)
        for side in Team:
            for seat in side.seats:
                player = seats.get(seat.value)
                if player is not None:
                    w, n = record.get(player, [0, 0])
                    record[player] = [w + (side.value == winner), n + 1]
    print(f"hold-out: the second half of the season ({len(scores['win %'])} matches), each predicted from the "
          "matches before it:")
    base = [_log_loss(p, o) for p, o in scores["win %"]]
    for name, pairs in scores.items():
        losses = [_log_loss(p, o) for p, o in pairs]
        brier = statistics.fmean((p - o) ** 2 for p, o in pairs)
        right = statistics.fmean(1.0 if (p > 0.5) == bool(o) else 0.0 for p, o in pairs if p != 0.5)
        versus = ""
        if name != "win %":  # the same matches: the difference match by match, and its standard error
            diff = [a - b for a, b in zip(losses, base, strict=True)]
            versus = (f"; log loss minus win %'s {statistics.fmean(diff):+.4f} "
                      f"(standard error {statistics.stdev(diff) / math.sqrt(len(diff)):.4f})")
        print(f"  {name:18}: log loss {statistics.fmean(losses):.4f}, Brier {brier:.4f}, favourite won "
              f"{right:.1%}{versus}")


def _log_loss(p: float, outcome: int) -> float:
    return -math.log(max(1e-9, p if outcome else 1 - p))


def _win_share(record: dict[int, list[int]], seats: dict[str, int | None], side: Team) -> float:
    """The partnership's share of matches won so far (each player's, Laplace-smoothed: 0.5 for a newcomer)."""
    got = [record.get(p, [0, 0]) for p in (seats.get(s.value) for s in side.seats) if p is not None]
    return sum((w + 1) / (n + 2) for w, n in got) / len(got) if got else 0.5


def _store(table: dict[int, Any], seats: dict[str, int | None], new: list[list[Any]]) -> None:
    for side, rated in zip(Team, new, strict=True):
        for seat, rating in zip(side.seats, rated, strict=True):
            player = seats.get(seat.value)
            if player is not None:
                table[player] = rating


# --- 6. phones on the live page while deals are played ---------------------------------------------------------

PHONES = r"""
import asyncio, sys
async def phone(port, counts, i):
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(b"GET /events HTTP/1.1\r\nHost: table\r\nAccept: text/event-stream\r\n\r\n")
    await writer.drain()
    while True:
        line = await reader.readline()
        if not line:
            return
        if line.startswith(b"data:"):
            counts[i] += 1
async def main(port, n):
    counts = [0] * n
    tasks = [asyncio.create_task(phone(port, counts, i)) for i in range(n)]
    await asyncio.sleep(0.5)
    print("connected", flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
    print(sum(1 for c in counts if c > 1), min(counts), sum(counts), flush=True)
    for t in tasks: t.cancel()
asyncio.run(main(int(sys.argv[1]), int(sys.argv[2])))
"""


def card_to_frame(scratch: Path, book: Book | None, phones: int, seed: int) -> tuple[list[float], str]:
    os.environ.update(SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy")
    from tablepi.app.core import TableApp
    from tablepi.app.demo import VirtualClock
    from tablepi.app.screen import PygameScreen
    from tablepi.config import DisplayConfig
    from tablepi.deck import DeckRegistry
    from tablepi.journal.journal import JournaledTable
    from tablepi.table import CardPlaced

    script = simulate_match(seed)
    clock = VirtualClock()
    path = scratch / f"frame-{seed}-{book is not None}.sqlite3"
    table = JournaledTable(path, RecordHeader())
    screen = PygameScreen(DisplayConfig(language="en"), headless=True)
    app = TableApp(table, DeckRegistry(), {0: "N", 1: "E", 2: "S", 3: "W"}, screen=screen,  # type: ignore[dict-item]
                   clock=clock)
    keeper = web = phone = worker = None
    note = ""
    if book is not None:
        from tablepi.analysis.worker import ReviewWorker

        worker = ReviewWorker()  # as the app: the book's reviews in the table's review worker process
        worker.start().result()

        def reviewer(deal: Any, number: int, carried: int) -> Any:
            assert worker is not None
            return worker.submit(deal, number, carried).result()

        keeper = BookKeeper(book, table, "1", review=True, reviewer=reviewer).start()
        pages = Pages(book, BookConfig(), keeper.live_now, keeper.changes,
                      lambda: archive_lookup(table.archive))
        web = WebServer(None, app=lambda stopping: make_pages(pages, "en", stopping=stopping),
                        changes=keeper.changes).start()
        phone = subprocess.Popen([sys.executable, "-c", PHONES, str(web.port), str(phones)], stdin=subprocess.PIPE,
                                 stdout=subprocess.PIPE, text=True)
        assert phone.stdout is not None and phone.stdout.readline().strip() == "connected"
    samples = []
    try:
        for event in script.events:
            clock.now = event.time
            start = time.perf_counter()
            app.handle(event)
            if isinstance(event, CardPlaced):
                samples.append(time.perf_counter() - start)
            if book is not None:
                time.sleep(0.002)  # a real table's gestures come seconds apart: let the phones' updates go out
    finally:
        if phone is not None and phone.stdin is not None and phone.stdout is not None:
            time.sleep(1.0)
            phone.stdin.write("\n")
            phone.stdin.flush()
            updated, fewest, total = phone.stdout.readline().split()
            note = f"{updated}/{phones} phones received updates (the fewest {fewest}; {total} in all)"
            phone.wait(10)
        if web is not None:
            web.close()
        if keeper is not None:
            keeper.close(wait=300.0)  # the match's reviews, in the worker process
        if worker is not None:
            worker.close()
        app.close()
    return samples, note


def bench_phones(book: Book, runs: int, phones: int) -> None:
    with tempfile.TemporaryDirectory(prefix="tablepi-phones-") as scratch:
        bare: list[list[float]] = []
        busy: list[list[float]] = []
        notes = []
        for run in range(runs):
            bare.append(card_to_frame(Path(scratch), None, 0, 11 + run)[0])
            samples, note = card_to_frame(Path(scratch), book, phones, 11 + run)
            busy.append(samples)
            notes.append(note)
    for label, runs_ in (("bare table", bare), (f"with the book and {phones} phones", busy)):
        print(f"card placed -> frame drawn, {label}: p50 {spread([pct(r, 0.5) for r in runs_])}, "
              f"p99 {spread([pct(r, 0.99) for r in runs_])}")
    ratio = [pct(b, 0.5) / pct(a, 0.5) for a, b in zip(bare, busy, strict=True)]
    print(f"  ratio of the p50s (with / bare), per run: {' / '.join(f'{r:.2f}' for r in ratio)}")
    for note in notes:
        print(f"  {note}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=10_000)
    parser.add_argument("--players", type=int, default=24)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--phones", type=int, default=200)
    parser.add_argument("--cache", type=Path, help="keep the generated season here (reused when it matches)")
    parser.add_argument("--book", type=Path, help="a book already loaded (a copy: it is written to): skip 1-2")
    parser.add_argument("--only", choices=("add", "pages", "holdout", "phones"), action="append",
                        help="with --book: only these parts (repeat for several)")
    args = parser.parse_args()
    if args.book is not None:
        parts = args.only or ["add", "pages", "holdout", "phones"]
        archive = None if args.cache is None else args.cache / "archive"
        with Book(args.book) as book:
            for part in parts:
                uptime()
                {"add": lambda: bench_add(book, args.runs, 20_000),
                 "pages": lambda: bench_pages(book, args.runs, archive),
                 "holdout": lambda: holdout(book), "phones": lambda: bench_phones(book, args.runs, args.phones)}[part]()
        return
    with tempfile.TemporaryDirectory(prefix="tablepi-players-") as scratch:
        folder = args.cache or Path(scratch) / "season"
        folder.mkdir(parents=True, exist_ok=True)
        t0 = time.perf_counter()
        records = generate(folder, args.matches, args.players)
        print(f"season: {len(records)} matches of {args.players} regulars ready in {time.perf_counter() - t0:.0f} s")
        book = Book(Path(scratch) / "players.sqlite3")
        uptime()
        t0, c0 = time.perf_counter(), time.process_time()
        facts, adds = load(book, records)
        total, cpu = time.perf_counter() - t0, time.process_time() - c0
        rows = book.db.execute("SELECT COUNT(*) FROM deal_rows").fetchone()[0]
        print(f"loaded into the book once: {total:.1f} s ({facts:.1f} s replaying the records through the table, "
              f"{adds:.1f} s inserting and rating; {cpu:.0f} s of CPU); {book.match_count()} matches, "
              f"{rows // 4} deals, "
              f"{os.path.getsize(book.path) / 1e6:.0f} MB")
        for part in (lambda: bench_add(book, args.runs, args.matches),
                     lambda: bench_pages(book, args.runs, folder / "archive"), lambda: holdout(book),
                     lambda: bench_phones(book, args.runs, args.phones)):
            uptime()
            part()
        uptime()
        book.close()


if __name__ == "__main__":
    main()
