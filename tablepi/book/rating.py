"""The team rating: openskill's Thurstone-Mosteller model, one update per finished match, reproducible from the
matches.

Why per match and not per deal (docs/players.md, "The rating"): a deal is decided mostly by the cards dealt, and
the deals of one match are played by the same four people one after the other; the match — a team striking its
nine lines — is the unit the game itself declares a winner by. On the benchmark's seasons (``bench/bench_players.py``)
rating per deal or per line a deal moved predicted the next match no better than rating per match.

Why a wide performance spread (``beta`` 100, twelve times openskill's default) and a small drift (``tau`` 0.05): a
match of Konter a Matt has far more luck in it than the games openskill's defaults are made for. With a narrower
spread the rating's own odds are too sure of themselves (on the training half of the benchmark's bar season the
odds of beta 12.5 had to be scaled down to a third to fit, those of beta 100 to 0.95), and its predictions are worse
than win percentage's. The drift lets a player's form change over a season (a newcomer who learns). Chosen so, on
the benchmark's bar season (circles of regulars, steady partners, newcomers, regulars who leave) the rating
predicts the next match better than win percentage; where everyone sits with everyone at random it is level with
it, as is anything that must learn the players (docs/players.md, "The rating", gives the figures and why).

A guest (a seat nobody named) plays with a fresh, unknown rating each time and is never kept. A match that was not
finished (abandoned, or still in play) does not count.

>>> ratings = rate_matches([(1, "t:j:1", 0.0, "NS", {"N": 1, "S": 2, "E": 3, "W": None}, 12)], {})
>>> ratings[1][0] > ratings[3][0]
True
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tablepi.rules.seats import Team

#: Standing rating of a player: (mu, sigma, matches, deals).
Rating = tuple[float, float, int, int]
#: A match as the book gives it: (id, key, ended, winner team, seat -> player id or None, number of deals).
RatedMatch = tuple[int, str, float, str | None, Mapping[str, int | None], int]


#: The spread of one match's performance around a player's rating (openskill's default is 25/6).
BETA = 100.0
#: How much a player's rating may drift between two matches (openskill's default is 25/300): his form changes.
TAU = 0.05


def model() -> Any:
    """The model every rating is made with (mu 25, sigma 25/3 for a newcomer; performance spread :data:`BETA`,
    drift :data:`TAU`)."""
    from openskill.models import ThurstoneMostellerFull

    return ThurstoneMostellerFull(beta=BETA, tau=TAU)


def ordinal(mu: float, sigma: float) -> float:
    """The leaderboard's figure: the rating we are fairly sure he has at least (mu - 3 sigma)."""
    return mu - 3 * sigma


def rate_matches(matches: Sequence[RatedMatch], start: Mapping[int, Rating]) -> dict[int, Rating]:
    """The ratings after ``matches`` (in order) from ``start``; returns every player touched or started with."""
    rater = model()
    table: dict[int, Rating] = dict(start)
    for _, _, _, winner, seats, deals in matches:
        if winner not in (Team.NS.value, Team.EW.value):
            continue
        teams = []
        for team in Team:
            teams.append([_current(rater, table, seats.get(seat.value)) for seat in team.seats])
        ranks = [1, 2] if winner == Team.NS.value else [2, 1]
        rated = rater.rate(teams, ranks=ranks)
        for team, after in zip(Team, rated, strict=True):
            for seat, new in zip(team.seats, after, strict=True):
                player = seats.get(seat.value)
                if player is None:
                    continue
                _, _, played, dealt = table.get(player, (0.0, 0.0, 0, 0))
                table[player] = (float(new.mu), float(new.sigma), played + 1, dealt + deals)
    return table


def _current(rater: Any, table: Mapping[int, Rating], player: int | None) -> Any:
    if player is None or player not in table:
        return rater.rating()
    mu, sigma, _, _ = table[player]
    return rater.rating(mu=mu, sigma=sigma)
