"""Simulated tables through the real table path, a real mosquitto, the tournament server: standings and seatings
equal what the tables' own journals say."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.tournament.conftest import Tournament
from tests.tournament.simulate import standings_from_journals

pytestmark = pytest.mark.slow

PAIRS = """
[tournament]
name = "Test cup"
format = "pairs"
round = "deals"
deals = 3
rounds = 3
seed = 7
pairs = [["Anna", "Jos"], ["Marie", "Pit"], ["Lis", "Ben"], ["Tom", "Eva"], ["Zoe", "Max"]]
"""


def table_of_standings(t: Tournament) -> list[tuple[str, int, int, int]]:
    return [(s.name, s.total.match_points, s.total.lines, s.total.points) for s in t.server.standings()]


def reference(t: Tournament) -> list[tuple[str, int, int, int]]:
    ranked = standings_from_journals(t.config, t.server.rounds, t.tables.values(), t.server.byes)
    return [(s.name, s.total.match_points, s.total.lines, s.total.points) for s in ranked]


def test_two_rounds_of_pairs_standings_equal_the_journals(make_tournament: Callable[..., Tournament]) -> None:
    t = make_tournament(PAIRS)
    for round_seed in (1, 2):
        t.start_round(round_seed)
        t.play_all()
        t.settle()
        assert table_of_standings(t) == reference(t)
        assert not t.server.unfinished()
    # Swiss: round 2 pairs nobody with the pair it met in round 1 (possible with 4 pairs playing).
    met = [{ts.team_map()[team][0] for team in ts.team_map()} for ts in t.server.rounds[0]]
    for ts in t.server.rounds[1]:
        assert {ts.team_map()[team][0] for team in ts.team_map()} not in met
    # Five pairs: one sits out each round (scored as docs/tournament.md says), another one in round 2.
    (first,), (second,) = t.server.byes
    assert first != second
    seating = t.tables["1"].app.seating  # the roster comes with the seating: the names a player may pick
    assert seating is not None and len(seating.roster) == 10 and "Zoe" in seating.roster
    ranked = t.server.standings()
    assert sum(s.total.match_points for s in ranked) == 2 * 2 * 2 + 2 * 2  # 2 tables x 2 rounds x 2, 2 byes x 2
    assert all(s.total.points > 0 for s in ranked)


INDIVIDUALS = """
[tournament]
name = "Individuals"
format = "individuals"
round = "deals"
deals = 2
rounds = 3
drop_worst = true
players = ["a", "b", "c", "d", "e", "f", "g", "h"]
"""


def test_individuals_with_mistakes_rounds_of_two_deals(make_tournament: Callable[..., Tournament]) -> None:
    """Players who make mistakes leave warnings standing, so a new match may begin in the same journal: the
    round of each match is the one in force when its first trumps were named."""
    t = make_tournament(INDIVIDUALS, mistakes=True)
    for round_seed in (1, 2, 3):
        t.start_round(round_seed)
        for table in t.tables.values():
            while table.playing and len(table.journaled.state.match.slate) < 2:
                table.step()
        t.settle()
        assert table_of_standings(t) == reference(t)
        assert not t.server.unfinished()
    partners = [frozenset(team) for seating in t.server.rounds for ts in seating for team in ts.team_map().values()]
    assert len(partners) == len(set(partners))  # nobody partnered twice in three rounds
    assert all(s.dropped is not None for s in t.server.standings())  # drop_worst with three complete rounds
