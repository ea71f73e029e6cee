"""Standings: match points, then line difference, then card points (docs/tournament.md). Pure.

A round at a table is one match (``partie``) or its first ``deals`` deals. When it is complete the team with the
match (``partie``) or with fewer open lines (``deals``) gets 2 match points, a tie 1 each. Line difference is the
opponents' open lines minus one's own (striking lines is the aim of the game); card points are the points taken
in the counted deals. A round still in play counts its lines and points so far but no match points yet.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from tablepi.rules.seats import Team
from tablepi.rules.slate import SlateEntry
from tablepi.tournament.config import RoundLength

WIN, TIE = 2, 1
#: Table id of the entrants who sit out a round (never a real table's: it is not a valid table id).
BYE = "(bye)"


@dataclass(frozen=True, slots=True)
class TableRound:
    """What one table played in one round, with who sat there (team -> entrants credited)."""

    round: int
    table: str
    teams: Mapping[Team, tuple[str, ...]]
    entries: tuple[SlateEntry, ...]
    start_lines: int
    match_over: bool


@dataclass(frozen=True, slots=True)
class Score:
    match_points: int = 0
    lines: int = 0
    points: int = 0

    def __add__(self, other: Score) -> Score:
        return Score(self.match_points + other.match_points, self.lines + other.lines, self.points + other.points)

    @property
    def key(self) -> tuple[int, int, int]:
        return (self.match_points, self.lines, self.points)


@dataclass(frozen=True, slots=True)
class Adjustment:
    """A director's correction of one entrant's round (audited in the store)."""

    entrant: str
    round: int
    score: Score


@dataclass
class Standing:
    name: str
    total: Score = Score()
    rounds: dict[int, Score] = field(default_factory=dict)
    complete: set[int] = field(default_factory=set)
    dropped: int | None = None
    rank: int = 0

    def to_json(self) -> dict[str, object]:
        return {"rank": self.rank, "name": self.name, "match_points": self.total.match_points,
                "lines": self.total.lines, "points": self.total.points, "dropped": self.dropped,
                "rounds": {str(r): [s.match_points, s.lines, s.points] for r, s in sorted(self.rounds.items())}}


def counted(entries: Sequence[SlateEntry], length: RoundLength, deals: int) -> tuple[SlateEntry, ...]:
    return tuple(entries if length is RoundLength.PARTIE else entries[:deals])


def open_lines(entries: Iterable[SlateEntry], start: int) -> dict[Team, int]:
    lines = dict.fromkeys(Team, start)
    for entry in entries:
        for team in Team:
            lines[team] += entry.added[team] - entry.struck[team]
    return lines


def table_scores(played: TableRound, length: RoundLength, deals: int) -> tuple[dict[Team, Score], bool]:
    """Each team's score in this round at this table, and whether the round is complete there."""
    entries = counted(played.entries, length, deals)
    lines = open_lines(entries, played.start_lines)
    points = {team: sum(e.result.points[team] for e in entries) for team in Team}
    complete = played.match_over if length is RoundLength.PARTIE else (len(entries) >= deals or played.match_over)
    scores: dict[Team, Score] = {}
    for team in Team:
        match_points = 0
        if complete:
            if lines[team] < lines[team.other]:
                match_points = WIN
            elif lines[team] == lines[team.other]:
                match_points = TIE
        scores[team] = Score(match_points, lines[team.other] - lines[team], points[team])
    return scores, complete


def standings(
    entrants: Sequence[str],
    played: Iterable[TableRound],
    length: RoundLength,
    deals: int,
    drop_worst: bool = False,
    adjustments: Iterable[Adjustment] = (),
) -> list[Standing]:
    """Everyone ranked; equal scores share a rank (listed by name)."""
    scored = [(item, *table_scores(item, length, deals)) for item in played]
    return rank(entrants, scored, drop_worst, adjustments)


#: One table's round with each team's score there and whether it is complete (what :func:`table_scores` gives).
Scored = tuple[TableRound, Mapping[Team, Score], bool]


def rank(
    entrants: Sequence[str], scored: Iterable[Scored], drop_worst: bool = False,
    adjustments: Iterable[Adjustment] = (),
) -> list[Standing]:
    """:func:`standings` from rounds already scored (the server keeps each table's scores until it changes)."""
    table = {name: Standing(name) for name in entrants}
    for item, scores, complete in scored:
        for team, names in item.teams.items():
            for name in names:
                if name in table:
                    table[name].rounds[item.round] = table[name].rounds.get(item.round, Score()) + scores[team]
                    if complete:
                        table[name].complete.add(item.round)
    for adjustment in adjustments:
        if adjustment.entrant in table:
            st = table[adjustment.entrant]
            st.rounds[adjustment.round] = st.rounds.get(adjustment.round, Score()) + adjustment.score
    for st in table.values():
        done = [r for r in st.rounds if r in st.complete]
        if drop_worst and len(done) >= 2:
            st.dropped = min(done, key=lambda r: (st.rounds[r].key, -r))
        total = Score()
        for number, score in st.rounds.items():
            if number != st.dropped:
                total = total + score
        st.total = total
    ranked = sorted(table.values(), key=lambda s: (tuple(-v for v in s.total.key), s.name))
    for i, st in enumerate(ranked):
        st.rank = ranked[i - 1].rank if i and ranked[i - 1].total.key == st.total.key else i + 1
    return ranked


def bye_score() -> Score:
    """What a bye is worth (docs/tournament.md, "Byes"): a won round's match points, nothing for the tie-breaks."""
    return Score(WIN, 0, 0)


def bye_rounds(byes: Sequence[Sequence[str]]) -> list[Scored]:
    """The byes of every round (``byes[0]``: round 1) as complete rounds scored :func:`bye_score` each."""
    out: list[Scored] = []
    for number, names in enumerate(byes, start=1):
        if names:
            item = TableRound(number, BYE, {Team.NS: tuple(names)}, (), 0, True)
            out.append((item, {Team.NS: bye_score(), Team.EW: Score()}, True))
    return out


def csv_text(ranked: Sequence[Standing], rounds: int) -> str:
    """The standings as CSV (one line per entrant; per round: match points/lines/points)."""
    import csv
    import io

    out = io.StringIO()
    writer = csv.writer(out)
    head = ["rank", "name", "match_points", "line_difference", "card_points", "dropped_round"]
    head += [f"round_{r}" for r in range(1, rounds + 1)]
    writer.writerow(head)
    for st in ranked:
        row: list[object] = [st.rank, st.name, st.total.match_points, st.total.lines, st.total.points,
                             st.dropped or ""]
        for r in range(1, rounds + 1):
            s = st.rounds.get(r)
            row.append("" if s is None else f"{s.match_points}/{s.lines}/{s.points}")
        writer.writerow(row)
    return out.getvalue()
