"""The players' book at a season's size: load, a finished match added, pages served, phones on the live page, and
whether the rating predicts the next match better than win percentage.

Run: ``.venv/bin/python bench/bench_players.py [--matches 10000] [--season random|bar] [--runs 3] [--phones 200]
[--cache DIR]``.

1. **A season** of ``--matches`` matches among ``--players`` regulars (and a guest now and then) is generated
   through the table's own code: scripted players (:func:`tablepi.table.simulate.simulate_match`, each regular with
   a hidden skill: how often he plays a sensible card instead of a random legal one; every tenth match with the
   mistakes players make) give the gestures. ``--season random``: any four regulars sit down, skills never change;
   ``--season bar``: as a bar's regulars do (:class:`BarSeason`: circles, steady partners, newcomers who learn,
   regulars who leave); the records are written as the archive writes finished matches
   (:func:`tablepi.journal.archive.write_match`), and the book reads them back through the real table state machine, as
   it does on the table. Left out of the generation: the journal's per-event fsync (0.3 s a match on this machine;
   10,000 matches would take an hour). ``--cache`` keeps the season and the book loaded from it for the next run.
2. **Loaded into the book once**, timed: the replay of every record (facts) and the inserts (with the ratings kept
   up to date match by match), without the best-play review (0.1 s a deal here: the table reviews a match's deals
   as it finishes, off the table's path; the time of one reviewed match is printed besides).
3. **A finished match added** to the full book (its replay, its rows, its players' ratings), ``--runs`` runs of 100.
4. **The leaderboard and a regular's page** served over HTTP by the table's pages (uvicorn, as on the table),
   ``--runs`` runs of 200 requests each, from a client in this process (keep-alive); and his exports (his CSV, his
   newest game records as a ZIP), ``--runs`` times each.
5. **The hold-out**: every match of the season predicted from the matches before it — by each player's win
   percentage of matches and of deals, by openskill ratings (Thurstone-Mosteller and Plackett-Luce, per match, per
   deal, per line a deal moved), by the book's rating as shipped, and by each match's hidden skills (the bound);
   every parameter and each predictor's scale chosen on the first half only, the second half scored: log loss,
   Brier score, how often the favourite won, and each one's log loss minus win percentage's with its standard
   error.
6. **200 phones on the live page while deals are played**: the table as it runs (journal with fsync, table, view
   model, headless renderer: the time from a card placed to its frame drawn), once bare and once with the book
   keeping up and the pages serving ``--phones`` open event streams from their own process, as the table serves
   them (a separate process at the lowest priority plays the phones), the two alternating in the same run,
   ``--runs`` times, 2 ms between events both ways; and how many updates the phones received.

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
import re
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tablepi.book.config import BookConfig
from tablepi.book.export import archive_lookup
from tablepi.book.facts import match_facts
from tablepi.book.fill import BookKeeper, record_facts
from tablepi.book.pages import Pages, make_pages
from tablepi.book.process import PagesProcess, Site
from tablepi.book.store import Book
from tablepi.changes import Changes
from tablepi.journal import archive as match_archive
from tablepi.journal.record import RecordHeader, event_to_line
from tablepi.rules.seats import Seat
from tablepi.table.events import PlayersSeated, SeatingSource, TableEvent
from tablepi.table.simulate import simulate_match
from tablepi.web.serve import WebServer

PARTS = ("add", "pages", "holdout", "phones")
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

#: One match's table: seat -> the regular sitting there (None: a guest), and seat -> his hidden skill then.
Seating = tuple[dict[Seat, str | None], dict[Seat, float]]
#: The seats, partners side by side (N and S, then E and W).
PAIRED = (Seat.N, Seat.S, Seat.E, Seat.W)


def random_seating(skills: Mapping[str, float], rng: random.Random) -> Seating:
    """Four regulars at random, a guest (skill 0.3) in one seat now and then; skills that never change."""
    chosen = rng.sample(list(skills), 4)
    names: dict[Seat, str | None] = {seat: name for seat, name in zip(Seat, chosen, strict=True)}
    if rng.random() < 0.05:
        names[rng.choice(list(Seat))] = None  # a guest in that seat
    return names, {seat: skills[name] if name is not None else 0.3 for seat, name in names.items()}


class BarSeason:
    """How a bar's regulars sit down, as the random season does not: three circles of regulars who mostly play
    among themselves (the strong ones together, with exceptions), eight steady partnerships within them that sit
    together three times in four, six newcomers who arrive during the season as beginners and learn over their
    first 300 matches, and four regulars who leave before its end. Skills are otherwise fixed, from 0 to 0.9."""

    STAY = 0.85  # the share of matches played within one circle
    TOGETHER = 0.75  # how often a steady partnership sits together when both are there
    LEARNING = 300  # matches a newcomer takes to reach his skill

    def __init__(self, matches: int, players: int, rng: random.Random) -> None:
        self.matches, self.rng = matches, rng
        people = NAMES[:players]
        rng.shuffle(people)
        self.final = {name: round(rng.uniform(0.0, 0.9), 2) for name in people}
        self.start = dict(self.final)
        self.span = {name: (0.0, 2.0) for name in people}  # present from, until (shares of the season)
        for name in people[:6]:  # newcomers
            self.span[name] = (rng.uniform(0.05, 0.6), 2.0)
            self.start[name], self.final[name] = round(rng.uniform(0.0, 0.15), 2), round(rng.uniform(0.5, 0.9), 2)
        for name in people[6:10]:  # regulars who leave
            self.span[name] = (0.0, rng.uniform(0.4, 0.95))
        ranked = sorted(people, key=lambda p: self.final[p] + rng.uniform(-0.2, 0.2))
        self.circle = {name: i * 3 // len(ranked) for i, name in enumerate(ranked)}
        order = sorted(rng.sample(people, len(people)), key=lambda p: self.circle[p])
        self.partner: dict[str, str] = {}
        for a, b in zip(order[0:24:3], order[1:24:3], strict=False):
            self.partner[a], self.partner[b] = b, a
        self.played = dict.fromkeys(people, 0)

    def skill(self, name: str) -> float:
        learnt = min(1.0, self.played[name] / self.LEARNING)
        return self.start[name] + (self.final[name] - self.start[name]) * learnt

    def seating(self, number: int) -> Seating:
        rng, share = self.rng, number / self.matches
        here = [p for p, (arrive, leave) in self.span.items() if arrive <= share < leave]
        inner = [p for p in here if self.circle[p] == self.circle[rng.choice(here)]]
        if len(inner) >= 4 and rng.random() < self.STAY:
            here = inner
        chosen: list[str] = []
        while len(chosen) < 4:
            free = [p for p in here if p not in chosen]
            first = rng.choice(free)
            mate = self.partner.get(first)
            if mate not in free or rng.random() >= self.TOGETHER:
                mate = rng.choice([p for p in free if p != first])
            chosen += [first, mate]
        names: dict[Seat, str | None] = dict(zip(PAIRED, chosen, strict=True))
        skill = {seat: self.skill(name) for seat, name in names.items() if name is not None}
        for name in chosen:
            self.played[name] += 1
        return names, skill


def season_events(number: int, seating: Seating) -> tuple[list[TableEvent], int]:
    names, skill = seating
    script = simulate_match(number, dealer=Seat.N, mistakes=number % 10 == 0, skill=skill)
    named = tuple((seat, name) for seat, name in names.items() if name is not None)
    events: list[TableEvent] = [PlayersSeated(0.0, named, SeatingSource.TOUCH)]
    events += [_shifted(e) for e in script.events]
    return events, script.deals


def _shifted(event: TableEvent) -> TableEvent:
    import dataclasses

    return dataclasses.replace(event, time=event.time + 1.0)


def generate(folder: Path, matches: int, players: int, kind: str) -> list[tuple[Path, float]]:
    manifest = folder / "season.json"
    if manifest.exists():
        data = json.loads(manifest.read_text())
        if (data["matches"], data["players"], data.get("kind", "random")) == (matches, players, kind):
            return [(Path(p), e) for p, e in data["records"]]
    rng = random.Random(24)
    skills = {name: round(rng.uniform(0.0, 0.9), 2) for name in NAMES[:players]}
    bar = BarSeason(matches, players, rng) if kind == "bar" else None
    header = RecordHeader()
    records, strengths = [], []
    start = time.perf_counter()
    for number in range(matches):
        seating = bar.seating(number) if bar is not None else random_seating(skills, rng)
        events, _ = season_events(number, seating)
        strengths.append([seating[1].get(seat, 0.3) for seat in PAIRED])
        path = match_archive.write_match(folder / "archive", "journal", f"season{number:06d}", header,
                                         [event_to_line(e) for e in events])
        records.append((str(path), BASE + number * 1200.0))  # a match every 20 minutes, evening after evening
        if number % 1000 == 999:
            print(f"  generated {number + 1} matches ({time.perf_counter() - start:.0f} s)", flush=True)
    manifest.write_text(json.dumps({"matches": matches, "players": players, "kind": kind,
                                    "strengths": strengths, "records": records}))
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
            events, _ = season_events(number, random_seating(skills, rng))
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
    events, _ = season_events(number, random_seating(skills, rng))
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
#
# Every predictor sees the matches in order and predicts each before it learns from it. Whatever a predictor can
# be tuned by (openskill's prior sigma, beta and tau; the smoothing of a win percentage) is chosen on the first
# half of the season only: it runs over that half and is scored on that half's second half. Each predictor's
# figure is made a probability by one scale, p = 1 / (1 + exp(-a * s)), a fitted on the same training matches
# (a rating of deals predicts a deal, not a match: the scale turns it into a match's odds). The second half of
# the season is then predicted with what was chosen, and only scored.

#: A match for the hold-out: seat -> player (None: a guest), the winner ("NS" / "EW"), each scored deal's lines
#: moved towards N+S (positive: N+S won it).
HeldMatch = tuple[dict[str, int | None], str, list[int]]
NS, EW = ("N", "S"), ("E", "W")


def _logit(p: float) -> float:
    p = min(max(p, 1e-9), 1 - 1e-9)
    return math.log(p / (1 - p))


def _probability(a: float, score: float) -> float:
    return 1 / (1 + math.exp(-a * score))


class _WinShare:
    """Each player's share of matches (or deals) won so far, smoothed towards a half by ``prior`` imagined games;
    a team is the mean of its players'; the figure is the two teams' logit difference."""

    def __init__(self, prior: float, deals: bool = False) -> None:
        self.prior, self.deals = prior, deals
        self.record: dict[int, tuple[int, int]] = {}

    def score(self, seats: dict[str, int | None]) -> float:
        def team(side: tuple[str, str]) -> float:
            got = [self.record.get(p, (0, 0)) for p in (seats.get(s) for s in side) if p is not None]
            return statistics.fmean((w + self.prior) / (n + 2 * self.prior) for w, n in got) if got else 0.5
        return _logit(team(NS)) - _logit(team(EW))

    def learn(self, match: HeldMatch) -> None:
        seats, winner, deals = match
        for side, name in ((NS, "NS"), (EW, "EW")):
            if self.deals:
                won, played = sum(1 for d in deals if (d > 0) == (name == "NS") and d), sum(1 for d in deals if d)
            else:
                won, played = int(winner == name), 1
            for player in (seats.get(s) for s in side):
                if player is not None:
                    w, n = self.record.get(player, (0, 0))
                    self.record[player] = (w + won, n + played)


class _Rated:
    """An openskill model: updated once per match, once per deal, or once per line a deal moved (a deal weighted
    by its lines); the figure is the logit of its own prediction."""

    def __init__(self, model: Any, unit: str) -> None:
        self.model, self.unit = model, unit
        self.ratings: dict[int, Any] = {}

    def _teams(self, seats: dict[str, int | None]) -> list[list[Any]]:
        return [[self.ratings.get(p) or self.model.rating() if p is not None else self.model.rating()
                 for p in (seats.get(s) for s in side)] for side in (NS, EW)]

    def score(self, seats: dict[str, int | None]) -> float:
        return _logit(self.model.predict_win(self._teams(seats))[0])

    def learn(self, match: HeldMatch) -> None:
        seats, winner, deals = match
        if self.unit == "match":
            outcomes = [winner == "NS"]
        else:
            outcomes = [d > 0 for d in deals for _ in range(abs(d) if self.unit == "line" else 1) if d]
        for ns_won in outcomes:
            rated = self.model.rate(self._teams(seats), ranks=[1, 2] if ns_won else [2, 1])
            for side, after in zip((NS, EW), rated, strict=True):
                for seat, rating in zip(side, after, strict=True):
                    player = seats.get(seat)
                    if player is not None:
                        self.ratings[player] = rating


def _scores(predictor: Any, matches: list[HeldMatch]) -> list[float]:
    out = []
    for match in matches:
        out.append(predictor.score(match[0]))
        predictor.learn(match)
    return out


def _fit_scale(scores: list[float], outcomes: list[int]) -> tuple[float, float]:
    """The scale with the least log loss on these matches, and that loss."""
    best = (math.inf, 1.0)
    for step in range(1, 161):
        a = step / 20
        loss = statistics.fmean(_log_loss(_probability(a, s), o) for s, o in zip(scores, outcomes, strict=True))
        best = min(best, (loss, a))
    return best[1], best[0]


def _grid(kind: Any, unit: str, sigmas: tuple[float, ...], betas: tuple[float, ...],
          taus: tuple[float, ...]) -> list[tuple[str, Any]]:
    """Every combination, as (label, a fresh predictor)."""
    return [(f"sigma {sg:.2f} beta {b:.2f} tau {t:.3f}",
             lambda sg=sg, b=b, t=t: _Rated(kind(sigma=sg, beta=b, tau=t), unit))
            for sg in sigmas for b in betas for t in taus]


def _history(book: Book) -> list[tuple[int, HeldMatch]]:
    """The season's decided matches in order, each with its number in the season. The season only: the matches the
    add benchmark appends are played by other hidden skills under the same names."""
    lines: dict[int, list[int]] = {}
    with book.lock:
        for mid, moved in book.db.execute("SELECT match, lines FROM deal_rows WHERE seat='N' ORDER BY match, deal"):
            lines.setdefault(mid, []).append(moved)
    numbered = ((re.search(r":season(\d+)", key), mid, winner, seats)
                for mid, key, _, winner, seats, _ in book.matches())
    return [(int(found[1]), (dict(seats), winner, lines.get(mid, []))) for found, mid, winner, seats in numbered
            if found and winner in ("NS", "EW")]


def holdout(book: Book, strengths: list[list[float]] | None) -> None:
    """``strengths``: each season match's hidden skills by seat (N, S, E, W), as the season was generated."""
    from openskill.models import PlackettLuce as PL
    from openskill.models import ThurstoneMostellerFull as TM

    from tablepi.book.rating import BETA, model

    numbered = _history(book)
    matches = [match for _, match in numbered]
    outcomes = [int(winner == "NS") for _, winner, _ in matches]
    teach = len(matches) // 2
    tune = teach // 2  # the training half's second half scores the choices
    default = 25 / 3  # openskill's prior sigma
    candidates: dict[str, list[tuple[str, Any]]] = {
        "win % of matches": [(f"prior {k}", lambda k=k: _WinShare(k)) for k in (0.5, 1, 2, 5, 10, 20)],
        "win % of deals": [(f"prior {k}", lambda k=k: _WinShare(k, deals=True)) for k in (1, 5, 20, 50)],
        "rating per match, TM": _grid(TM, "match", (0.5, 2.0, 4.0, default), (25 / 6, BETA, 50.0), (0.0, 25 / 300)),
        "rating per match, PL": _grid(PL, "match", (0.5, 2.0, default), (25 / 6, BETA, 50.0), (0.0, 25 / 300)),
        "rating per deal, TM": _grid(TM, "deal", (0.25, 2.0, default), (25 / 6, 50.0, 200.0), (0.0,)),
        "rating per line, TM": _grid(TM, "line", (0.25, 2.0), (50.0, 200.0), (0.0,)),
    }
    held = outcomes[teach:]
    predictions: dict[str, list[float]] = {}
    print(f"hold-out: {len(matches)} matches of the season; parameters and scale chosen on the first {teach} "
          f"(scored on matches {tune + 1}-{teach}), the other {len(held)} predicted and scored:", flush=True)
    for name, grid in candidates.items():
        started = time.perf_counter()
        chosen = min(((*_fit_scale(_scores(make(), matches[:teach])[tune:], outcomes[tune:teach])[::-1], label,
                       make) for label, make in grid), key=lambda c: c[0])
        loss, a, label, make = chosen
        predictions[name] = [_probability(a, s) for s in _scores(make(), matches)[teach:]]
        print(f"  {name}: chose {label}, scale {a:.2f} (training log loss {loss:.4f}; {len(grid)} tried, "
              f"{time.perf_counter() - started:.0f} s)", flush=True)
    # As the book has it: its rating's own prediction, no scale fitted.
    book_rating = _Rated(model(), "match")
    predictions["the book's rating as it is"] = [_probability(1.0, s) for s in _scores(book_rating, matches)[teach:]]
    if strengths:
        truth = [n + s - e - w for n, s, e, w in (strengths[number] for number, _ in numbered)]
        a, _ = _fit_scale(truth[:teach], outcomes[:teach])
        predictions["the hidden skills (a bound)"] = [_probability(a, s) for s in truth[teach:]]
    base = [_log_loss(p, o) for p, o in zip(predictions["win % of matches"], held, strict=True)]
    for name, probs in predictions.items():
        losses = [_log_loss(p, o) for p, o in zip(probs, held, strict=True)]
        brier = statistics.fmean((p - o) ** 2 for p, o in zip(probs, held, strict=True))
        right = statistics.fmean(1.0 if (p > 0.5) == bool(o) else 0.0 for p, o in zip(probs, held, strict=True)
                                 if p != 0.5)
        diff = [a - b for a, b in zip(losses, base, strict=True)]
        versus = "" if name == "win % of matches" else (
            f"; minus win %'s {statistics.fmean(diff):+.4f} "
            f"(standard error {statistics.stdev(diff) / math.sqrt(len(diff)):.4f})")
        print(f"  {name:28}: log loss {statistics.fmean(losses):.4f} "
              f"(± {statistics.stdev(losses) / math.sqrt(len(losses)):.4f}), Brier {brier:.4f}, favourite won "
              f"{right:.1%}{versus}", flush=True)
    print(f"  (a coin: log loss {math.log(2):.4f})")


def _log_loss(p: float, outcome: int) -> float:
    return -math.log(max(1e-9, p if outcome else 1 - p))


# --- 6. phones on the live page while deals are played ---------------------------------------------------------

PHONES = r"""
import asyncio, os, sys
os.nice(19)  # the phones are other devices at a bar: on the table's own cores their client weighs the least it can
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

        # as the table runs them: the pages in a process of their own, shown the keeper's live view
        web = PagesProcess(Site(book.path, BookConfig(), table.archive, "en"), "127.0.0.1", 0)
        keeper = BookKeeper(book, table, "1", review=True, reviewer=reviewer, show=web.show).start()
        with urllib.request.urlopen(f"http://127.0.0.1:{web.port}/live.json", timeout=60):
            pass  # the pages process serves
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
            time.sleep(0.002)  # a real table's gestures come seconds apart (the phones' updates go out): both ways
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
    parser.add_argument("--season", choices=("random", "bar"), default="random",
                        help="how the regulars sit down: at random with fixed skills, or as a bar's regulars do "
                             "(circles, steady partners, newcomers who learn, regulars who leave: BarSeason)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--phones", type=int, default=200)
    parser.add_argument("--cache", type=Path, help="keep the generated season here (reused when it matches), and "
                                                    "a copy of the book loaded from it (season-book.sqlite3)")
    parser.add_argument("--book", type=Path, help="a book already loaded (a copy: it is written to): skip 1-2")
    parser.add_argument("--only", choices=PARTS, action="append",
                        help="only these parts after the book is loaded (repeat for several)")
    args = parser.parse_args()
    parts = args.only or list(PARTS)

    def run_parts(book: Book, first_extra: int, archive: Path | None) -> None:
        manifest = None if archive is None else archive.parent / "season.json"
        strengths = json.loads(manifest.read_text()).get("strengths") if manifest and manifest.exists() else None
        run = {"add": lambda: bench_add(book, args.runs, first_extra),
               "pages": lambda: bench_pages(book, args.runs, archive),
               "holdout": lambda: holdout(book, strengths),
               "phones": lambda: bench_phones(book, args.runs, args.phones)}
        for part in parts:
            uptime()
            run[part]()
        uptime()

    if args.book is not None:
        with Book(args.book) as book:
            run_parts(book, 20_000, None if args.cache is None else args.cache / "archive")
        return
    with tempfile.TemporaryDirectory(prefix="tablepi-players-") as scratch:
        folder = args.cache or Path(scratch) / "season"
        folder.mkdir(parents=True, exist_ok=True)
        t0 = time.perf_counter()
        records = generate(folder, args.matches, args.players, args.season)
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
        if args.cache is not None:  # the loaded season, for later runs of single parts (--book on a copy)
            with sqlite3.connect(folder / "season-book.sqlite3") as copy:
                book.db.backup(copy)
        run_parts(book, args.matches, folder / "archive")
        book.close()


if __name__ == "__main__":
    main()
