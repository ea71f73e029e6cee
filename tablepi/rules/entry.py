"""A deal entered by hand, as on a chalk slate: no card seen, only what decides the slate.

When the readers are down (or the players simply prefer chalk), a deal is scored from what the players say: who
named trumps, what was announced, which team won (or a tie), the winners' points, Kapo, a claim. The rules core
turns that into the same :class:`~tablepi.rules.deal.DealResult` a played deal gives, so the slate (rules 24-28)
cannot tell them apart.

>>> entry = DealEntry(Seat.W, winner=Team.EW, points=25, announcements=((Seat.E, Announcement.KONTER),))
>>> result = entry.result()
>>> result.trump_team, result.winner, result.stake, dict(result.points)
(<Team.EW: 'EW'>, <Team.EW: 'EW'>, 2, {<Team.NS: 'NS'>: 15, <Team.EW: 'EW'>: 25})
>>> DealEntry(Seat.N, winner=None).result().describe()
'tie 20-20: 1 line'
"""

from __future__ import annotations

from dataclasses import dataclass

from tablepi.rules.deal import TRICKS_PER_DEAL, WINNING_POINTS, Announcement, DealResult
from tablepi.rules.errors import RulesCode, RulesError
from tablepi.rules.seats import Seat, Team

#: Every card point of the deck (rule 19): the two teams' points sum to this.
TOTAL_POINTS = 40
#: A 20-20 tie (rule 19).
TIE_POINTS = TOTAL_POINTS // 2


@dataclass(frozen=True, slots=True)
class DealEntry:
    """One deal as the players tell it.

    ``trumps``: who named trumps (the forehand of the deal, rule 9; his team is the trump team). ``winner``: the
    team with 21 or more, None for a 20-20 tie. ``points``: the winners' card points (21-40; 40 with Kapo, 20 for
    a tie; None: "they won", the points not counted, taken as 21). ``kapo``: the winners took all six tricks
    (rule 20). ``claimed_by``: the winners laid their cards down and claimed (rule 21).
    """

    trumps: Seat
    winner: Team | None
    points: int | None = None
    kapo: bool = False
    claimed_by: Team | None = None
    announcements: tuple[tuple[Seat, Announcement], ...] = ()

    def __post_init__(self) -> None:
        self.check()

    def check(self) -> None:
        """Refuse what no deal can be: each case with the rule it breaks."""
        if self.winner is None:
            if self.kapo or self.claimed_by is not None:
                raise RulesError("a 20-20 tie has no Kapo and no claim: nobody reached 21 (rules 19-21)",
                                 code=RulesCode.BAD_ENTRY)
            if self.points not in (None, TIE_POINTS):
                raise RulesError(f"a tie is 20-20, not {self.points} (rule 19)",
                                 code=RulesCode.BAD_ENTRY)
        else:
            if self.points is not None and not WINNING_POINTS <= self.points <= TOTAL_POINTS:
                raise RulesError(f"the winners have 21 to 40 points, not {self.points} (rule 19)",
                                 code=RulesCode.BAD_ENTRY)
            if self.kapo and self.points not in (None, TOTAL_POINTS):
                raise RulesError(f"Kapo is all six tricks, so all 40 points, not {self.points} (rule 20)",
                                 code=RulesCode.BAD_ENTRY)
            if self.claimed_by is not None and self.claimed_by is not self.winner:
                raise RulesError(f"{self.claimed_by} claimed, so {self.claimed_by} won the deal (rule 21)",
                                 code=RulesCode.BAD_ENTRY)
        seen: dict[str, Seat] = {}
        for seat, announcement in self.announcements:
            for part in sorted(announcement.parts):
                if part in seen:
                    # Matt is one card, Konter one pair: held by one player (rule 10)
                    raise RulesError(f"{part.capitalize()} announced by {seen[part]} and {seat}: "
                                     "each is announced once, by the player who holds it (rule 10)",
                                     code=RulesCode.BAD_ENTRY)
                seen[part] = seat

    @property
    def trump_team(self) -> Team:
        return self.trumps.team

    @property
    def winner_points(self) -> int:
        if self.winner is None:
            return TIE_POINTS
        if self.kapo:
            return TOTAL_POINTS
        return self.points if self.points is not None else WINNING_POINTS

    def result(self) -> DealResult:
        """The deal's result, as a played deal with these totals would give (rules 19-21, 24)."""
        if self.winner is None:
            points = {Team.NS: TIE_POINTS, Team.EW: TIE_POINTS}
            tricks = {Team.NS: 0, Team.EW: 0}  # not counted by hand; no rule needs them for a tie
        else:
            won = self.winner_points
            points = {self.winner: won, self.winner.other: TOTAL_POINTS - won}
            # Kapo is the only trick count the slate needs (rule 20); the rest were not counted.
            tricks = {self.winner: TRICKS_PER_DEAL if self.kapo else 0, self.winner.other: 0}
        return DealResult(
            trump_team=self.trump_team,
            points={team: points[team] for team in Team},
            tricks={team: tricks[team] for team in Team},
            winner=self.winner,
            kapo=self.kapo,
            claimed_by=self.claimed_by,
            revoke_by=None,
            announcements=self.announcements,
        )
