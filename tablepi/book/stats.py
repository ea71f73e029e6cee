"""Statistics per player and per partnership, over a period of bar evenings (one evening, a season, all time).

Every figure is a sum over the book's per-seat rows (:mod:`tablepi.book.store`), each deal seen from the player's
side; docs/players.md says what each one means. ``tests/book`` recomputes them all from ``tablepi replay --json``
output and the records' seat events, by other code, and holds this module to the same numbers.
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tablepi.book.rating import ordinal
from tablepi.book.store import Book, Player

#: Deals together before a partner or an opponent is named "best partner" / "toughest opponent".
MIN_TOGETHER = 20
#: Deals rated before a player appears on the leaderboard.
MIN_DEALS = 60


@dataclass(frozen=True)
class Period:
    """Evenings from ``first`` to ``last`` (``YYYY-MM-DD``, both included; None: no bound)."""

    label: str
    first: str | None = None
    last: str | None = None

    def where(self, column: str = "evening") -> tuple[str, list[str]]:
        parts, args = [], []
        if self.first is not None:
            parts.append(f"{column} >= ?")
            args.append(self.first)
        if self.last is not None:
            parts.append(f"{column} <= ?")
            args.append(self.last)
        return (" AND ".join(parts) or "1"), args


ALL_TIME = Period("all")


def evening_period(evening: str) -> Period:
    return Period(evening, evening, evening)


def season_period(seasons: Mapping[str, tuple[str, str]], today: str) -> Period:
    """The season holding ``today`` (the configured one that started last if several do), else all time."""
    holding = [(start, name, end) for name, (start, end) in seasons.items() if start <= today <= end]
    if not holding:
        return ALL_TIME
    start, name, end = max(holding)
    return Period(name, start, end)


def check_date(text: object, where: str) -> str:
    """A date of the config (``YYYY-MM-DD``)."""
    from tablepi.errors import ConfigError

    if not isinstance(text, str):
        raise ConfigError.setting(where, f"expected a date such as \"2026-09-01\", got {text!r}")
    try:
        datetime.date.fromisoformat(text)
    except ValueError:
        raise ConfigError.setting(where, f"{text!r} is not a date (YYYY-MM-DD)") from None
    return text


_SUMS = """
SELECT COUNT(*), COALESCE(SUM(won), 0), COALESCE(SUM(lost), 0),
       COALESCE(SUM(trump_team), 0), COALESCE(SUM(trump_team * won), 0),
       COALESCE(SUM(1 - trump_team), 0), COALESCE(SUM((1 - trump_team) * won), 0),
       COALESCE(SUM(kapo_made), 0), COALESCE(SUM(kapo_conceded), 0), COALESCE(SUM(revokes), 0),
       COALESCE(SUM(lines), 0), COALESCE(SUM(reviewed), 0), COALESCE(SUM(cost), 0),
       COUNT(cost_lines), COALESCE(SUM(cost_lines), 0), COUNT(lines_lost), COALESCE(SUM(lines_lost), 0),
       COUNT(luck), COALESCE(SUM(luck), 0)
FROM deal_rows WHERE {who} AND {period}
"""


def player_stats(book: Book, player: Player, period: Period, *, min_together: int = MIN_TOGETHER) -> dict[str, Any]:
    """Everything the player page shows for ``period`` (names of others as player ids: the page decides how to
    show them)."""
    return _stats(book, "player = ?", [player.id], period, min_together, with_others=True)


def partnership_stats(book: Book, one: Player, other: Player, period: Period) -> dict[str, Any]:
    """The pair's figures: every deal ``one`` played with ``other`` as his partner."""
    return _stats(book, "player = ? AND partner = ?", [one.id, other.id], period, MIN_TOGETHER,
                  with_others=False)


def _stats(book: Book, who: str, who_args: list[Any], period: Period, min_together: int,
           with_others: bool) -> dict[str, Any]:
    where, args = period.where()
    params = [*who_args, *args]
    with book.lock:
        db = book.db
        sums = db.execute(_SUMS.format(who=who, period=where), params).fetchone()
        named = db.execute(f"SELECT named, COUNT(*), SUM(won) FROM deal_rows WHERE {who} AND {where} "
                           "AND named IS NOT NULL GROUP BY named ORDER BY named", params).fetchall()
        announced = db.execute(f"SELECT announced, COUNT(*), SUM(won) FROM deal_rows WHERE {who} AND {where} "
                               "AND announced IS NOT NULL GROUP BY announced ORDER BY announced", params).fetchall()
        matches = db.execute(f"SELECT COUNT(*), COALESCE(SUM(won), 0) FROM match_rows WHERE {who} AND {where} "
                             "AND finished = 1", params).fetchone()
        partners = opponents = []
        if with_others:
            partners = db.execute(
                f"SELECT partner, COUNT(*), SUM(won) FROM deal_rows WHERE {who} AND {where} AND partner IS NOT NULL "
                "GROUP BY partner HAVING COUNT(*) >= ? ORDER BY 1.0 * SUM(won) / COUNT(*) DESC, COUNT(*) DESC, "
                "partner", [*params, min_together]).fetchall()
            opponents = db.execute(
                f"SELECT opp, COUNT(*), SUM(won) FROM (SELECT opp1 AS opp, won FROM deal_rows WHERE {who} AND {where} "
                f"UNION ALL SELECT opp2, won FROM deal_rows WHERE {who} AND {where}) WHERE opp IS NOT NULL "
                "GROUP BY opp HAVING COUNT(*) >= ? ORDER BY 1.0 * SUM(won) / COUNT(*), COUNT(*) DESC, opp",
                [*params, *params, min_together]).fetchall()
    (deals, won, lost, as_trump, won_trump, as_def, won_def, kapo_made, kapo_conceded, revokes, lines, reviewed,
     cost, n_cost_lines, cost_lines, n_lines_lost, lines_lost, n_luck, luck) = sums
    out: dict[str, Any] = {
        "period": {"label": period.label, "first": period.first, "last": period.last},
        "matches": {"played": matches[0], "won": matches[1]},
        "deals": {"played": deals, "won": won, "lost": lost, "tied": deals - won - lost},
        "trump_team": {"played": as_trump, "won": won_trump},
        "defenders": {"played": as_def, "won": won_def},
        "trumps_named": {(suit or "by_hand"): {"named": n, "won": w} for suit, n, w in named},
        "announced": {kind: {"announced": n, "won": w} for kind, n, w in announced},
        "kapo": {"made": kapo_made, "conceded": kapo_conceded},
        "revokes": revokes,
        "lines": {"total": lines, "per_deal": round(lines / deals, 3) if deals else None},
        "review": {
            "deals_reviewed": reviewed, "points_lost": cost,
            "points_lost_per_deal": round(cost / reviewed, 3) if reviewed else None,
            "lines_lost_to_choices": round(float(cost_lines), 3) if n_cost_lines else None,
            "lines_lost": round(float(lines_lost), 3) if n_lines_lost else None,
            "luck": round(float(luck), 3) if n_luck else None,
        },
    }
    if with_others:
        out["best_partner"] = None if not partners else {"player": partners[0][0], "deals": partners[0][1],
                                                          "won": partners[0][2]}
        out["toughest_opponents"] = [{"player": p, "deals": n, "won": w} for p, n, w in opponents[:3]]
    return out


def leaderboard(book: Book, *, min_deals: int = MIN_DEALS) -> list[dict[str, Any]]:
    """Players rated on at least ``min_deals`` deals, best first by the conservative rating (mu - 3 sigma)."""
    ratings = book.ratings()
    players = {p.id: p for p in book.players()}
    rows = []
    for pid, (mu, sigma, matches, deals) in ratings.items():
        if deals < min_deals or pid not in players:
            continue
        rows.append({"player": pid, "rating": round(ordinal(mu, sigma), 2), "mu": round(mu, 2),
                     "sigma": round(sigma, 2), "matches": matches, "deals": deals})
    rows.sort(key=lambda r: (-r["rating"], -r["deals"], r["player"]))
    for rank, row in enumerate(rows, start=1):
        row["rank"] = rank
    return rows
