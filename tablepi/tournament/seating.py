"""Who sits where: round 1 drawn at random (seeded), later rounds Swiss (docs/tournament.md). Pure.

Swiss: entrants in standings order; each table gets entrants of similar standing, avoiding opponents (and, for
individuals, partners) they have met, where that is possible. A repeat is allowed only when no seating without
one is found by the search.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from tablepi.rules.seats import Seat, Team
from tablepi.tournament.config import Pair


def choose_byes(ranked: Sequence[str], count: int, had: Mapping[str, int], seed: int | None = None) -> list[str]:
    """Who sits out this round (docs/tournament.md, "Byes"): the ``count`` entrants with the fewest byes so far;
    among equals the lowest placed in ``ranked`` (the standings; the Swiss convention), or, with ``seed`` (round 1,
    no standings yet), drawn at random. Nobody has a second bye before everyone has had one.

    >>> choose_byes(["A", "B", "C"], 1, {"C": 1})
    ['B']
    """
    order = list(ranked)
    if seed is not None:
        random.Random(seed).shuffle(order)
    place = {name: i for i, name in enumerate(order)}
    return sorted(order, key=lambda n: (had.get(n, 0), -place[n]))[:count]


@dataclass(frozen=True, slots=True)
class TableSeating:
    """One table in one round: the names per seat and the entrants each team is credited to."""

    table: str
    seats: tuple[tuple[Seat, str], ...]
    teams: tuple[tuple[Team, tuple[str, ...]], ...]

    def team_map(self) -> dict[Team, tuple[str, ...]]:
        return dict(self.teams)

    def to_json(self) -> dict[str, Any]:
        return {"table": self.table, "seats": {s.value: n for s, n in self.seats},
                "teams": {t.value: list(e) for t, e in self.teams}}

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> TableSeating:
        seats = tuple((s, str(obj["seats"][s.value])) for s in Seat)
        teams = tuple((t, tuple(obj["teams"][t.value])) for t in Team)
        return cls(str(obj["table"]), seats, teams)


@dataclass
class History:
    """Who has met whom (as opponents, and as partners)."""

    opponents: set[frozenset[str]]
    partners: set[frozenset[str]]

    @classmethod
    def of(cls, rounds: Sequence[Sequence[TableSeating]]) -> History:
        history = cls(set(), set())
        for seating in rounds:
            for table in seating:
                teams = table.team_map()
                ns, ew = teams[Team.NS], teams[Team.EW]
                for a in ns:
                    for b in ew:
                        history.opponents.add(frozenset((a, b)))
                for team in (ns, ew):
                    if len(team) == 2:
                        history.partners.add(frozenset(team))
        return history


def pairs_table(table: str, ns: Pair, ew: Pair) -> TableSeating:
    seats = ((Seat.N, ns.players[0]), (Seat.E, ew.players[0]), (Seat.S, ns.players[1]), (Seat.W, ew.players[1]))
    return TableSeating(table, seats, ((Team.NS, (ns.name,)), (Team.EW, (ew.name,))))


def players_table(table: str, ns: tuple[str, str], ew: tuple[str, str]) -> TableSeating:
    seats = ((Seat.N, ns[0]), (Seat.E, ew[0]), (Seat.S, ns[1]), (Seat.W, ew[1]))
    return TableSeating(table, seats, ((Team.NS, ns), (Team.EW, ew)))


def first_round_pairs(pairs: Sequence[Pair], tables: Sequence[str], seed: int) -> list[TableSeating]:
    order = list(pairs)
    random.Random(seed).shuffle(order)
    return [pairs_table(t, order[2 * i], order[2 * i + 1]) for i, t in enumerate(tables)]


def first_round_players(players: Sequence[str], tables: Sequence[str], seed: int) -> list[TableSeating]:
    order = list(players)
    random.Random(seed).shuffle(order)
    return [players_table(t, (order[4 * i], order[4 * i + 2]), (order[4 * i + 1], order[4 * i + 3]))
            for i, t in enumerate(tables)]


def swiss_pairs(ranked: Sequence[Pair], tables: Sequence[str], history: History) -> list[TableSeating]:
    """Pair neighbours in the standings; backtrack to avoid a rematch; allow one only if it cannot be avoided."""
    names = [p.name for p in ranked]
    by_name = {p.name: p for p in ranked}
    for avoid in (True, False):
        budget = [20000]
        found = _match(names, history, avoid, budget)
        if found is not None:
            return [pairs_table(t, by_name[a], by_name[b]) for t, (a, b) in zip(tables, found, strict=False)]
    raise AssertionError("unreachable: without avoiding rematches any pairing works")


def _match(names: list[str], history: History, avoid: bool, budget: list[int]) -> list[tuple[str, str]] | None:
    if not names:
        return []
    budget[0] -= 1
    if budget[0] < 0:
        return None
    first, rest = names[0], names[1:]
    for i, other in enumerate(rest):
        if avoid and frozenset((first, other)) in history.opponents:
            continue
        tail = _match(rest[:i] + rest[i + 1:], history, avoid, budget)
        if tail is not None:
            return [(first, other), *tail]
    return None


def swiss_players(ranked: Sequence[str], tables: Sequence[str], history: History) -> list[TableSeating]:
    """Groups of four of similar standing; within a group the split into partnerships with the fewest repeats.

    Greedy: the best-placed player not seated yet takes the three from the next eight that give the fewest repeated
    partners (weight 100) and opponents (weight 10), then the least distance in the standings.
    """
    left = list(ranked)
    rank = {name: i for i, name in enumerate(ranked)}
    out: list[TableSeating] = []
    for table in tables:
        head, pool = left[0], left[1:9]
        best: tuple[int, tuple[tuple[str, str], tuple[str, str]]] | None = None
        for three in itertools.combinations(pool, 3):
            four = (head, *three)
            split, cost = _best_split(four, history)
            cost += sum(rank[n] - rank[head] for n in three)
            if best is None or cost < best[0]:
                best = (cost, split)
        assert best is not None
        (ns, ew) = best[1]
        out.append(players_table(table, ns, ew))
        for name in (*ns, *ew):
            left.remove(name)
    return out


def _best_split(four: tuple[str, ...], history: History) -> tuple[tuple[tuple[str, str], tuple[str, str]], int]:
    a, b, c, d = four
    options = (((a, b), (c, d)), ((a, c), (b, d)), ((a, d), (b, c)))
    scored = []
    for ns, ew in options:
        cost = 100 * sum(frozenset(team) in history.partners for team in (ns, ew))
        cost += 10 * sum(frozenset((x, y)) in history.opponents for x in ns for y in ew)
        scored.append((cost, (ns, ew)))
    cost, split = min(scored, key=lambda item: item[0])
    return split, cost
