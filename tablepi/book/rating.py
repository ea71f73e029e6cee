"""The team rating: openskill's Thurstone-Mosteller model, one update per finished match, reproducible from the
matches.

Why per match and not per deal (docs/players.md, "The rating"): a deal is decided mostly by the cards dealt, and
the deals of one match are played by the same four people one after the other; rated one by one they would count
as a dozen independent pieces of evidence, the uncertainty would shrink a dozen times too fast and the rating
would follow the luck of the cards. The match — a team striking its nine lines — is the unit the game itself
declares a winner by. The benchmark (``bench/bench_players.py``) compares both on the same history: on its whole
season the rating per deal, with parameters chosen on the training half, predicted the next match better than the
rating per match, and only as well as win percentage (docs/players.md, "The rating").

Why Thurstone-Mosteller with a wide performance spread (``beta`` 12.5, three times openskill's default): a match of
Konter a Matt has much more luck in it than the games openskill's defaults are made for, and with the default
spread the rating is too sure of itself. It does not predict the next match better than the partnership's win
percentage: on the benchmark's season it is behind it, and no model with its parameters chosen on the season's
first half is ahead of it (docs/players.md, "The rating", gives the figures and why). The
rating is shown for what win percentage does not give: its uncertainty, and the partner's and the opponents'
strength taken into account.

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
BETA = 12.5


def model() -> Any:
    """The model every rating is made with (mu 25, sigma 25/3 for a newcomer; performance spread :data:`BETA`)."""
    from openskill.models import ThurstoneMostellerFull

    return ThurstoneMostellerFull(beta=BETA)


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
