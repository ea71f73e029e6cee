"""The slate ("d'Lee", RULES.md 23-28) and the match around it (rules 22, 29).

Each team starts with ``start_lines`` open lines. A won deal strikes ``stake`` of the winner's open lines; a lost
trump game adds lines to the trump team; a tie adds lines to the trump team (or carries, by house rule). The first
team with no open line left wins the match.

The slate keeps every deal's entry so the display can draw the lines as players know them: the starting lines and
the added ones, each open or struck.

>>> from tablepi.rules.seats import Team
>>> slate = Slate()
>>> slate.open_lines(Team.NS), slate.open_lines(Team.EW)
(9, 9)
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass

from tablepi.rules.cards import Card
from tablepi.rules.deal import Deal, DealResult
from tablepi.rules.entry import DealEntry
from tablepi.rules.errors import RulesCode, RulesError
from tablepi.rules.house import HouseRules, TieRule
from tablepi.rules.seats import Seat, Team


class Line(enum.Enum):
    """One tally line on the slate, as drawn."""

    OPEN = "open"  # a starting line not yet struck
    STRUCK = "struck"  # a starting line struck through
    ADDED = "added"  # a line added for a lost trump game or a tie, still open
    ADDED_STRUCK = "added_struck"  # an added line later struck


@dataclass(frozen=True, slots=True)
class SlateEntry:
    """What one deal did to the slate."""

    number: int  # 1-based deal number in the match
    result: DealResult
    stake: int  # lines this deal was worth, a carried tie included
    struck: Mapping[Team, int]  # lines actually struck (never more than were open, rule 28)
    added: Mapping[Team, int]
    carried: int  # with tie = "carry": lines carried to the next decided deal after this one

    def describe(self) -> str:
        """E.g. ``'NS win 25-15, Konter: 2 lines'``."""
        return self.result.describe()


class Slate:
    """The score diagram of one match. Record each deal's result with :meth:`record`."""

    def __init__(self, rules: HouseRules | None = None) -> None:
        self.rules = rules or HouseRules()
        self.history: list[SlateEntry] = []
        self._open = {Team.NS: self.rules.start_lines, Team.EW: self.rules.start_lines}
        self._carry = 0

    def open_lines(self, team: Team) -> int:
        """Lines the team still has to strike (RULES.md 23-28). Never below zero."""
        return self._open[team]

    @property
    def carry(self) -> int:
        """Lines carried from ties under ``tie = "carry"``, to be added to the next decided deal's stake."""
        return self._carry

    def carried_into(self, number: int) -> int:
        """Lines carried into deal ``number`` (1-based) from ties just before it under ``tie = "carry"``."""
        return self.history[number - 2].carried if 1 < number <= len(self.history) + 1 else 0

    @property
    def winner(self) -> Team | None:
        """The first team with no open lines left (rule 28)."""
        for team in Team:
            if self._open[team] == 0:
                return team
        return None

    @property
    def is_over(self) -> bool:
        return self.winner is not None

    def record(self, result: DealResult) -> SlateEntry:
        """Apply a deal's result (rules 24-28) and keep it in the history."""
        if self.is_over:
            raise RulesError(f"the match is over: {self.winner} have struck all their lines (rule 28)",
                             code=RulesCode.MATCH_OVER, rule=28)
        struck = {Team.NS: 0, Team.EW: 0}
        added = {Team.NS: 0, Team.EW: 0}
        carried = 0
        if result.winner is None:
            stake = result.stake
            if self.rules.tie is TieRule.STANDARD:
                added[result.trump_team] = stake  # rule 27: 1 + announcements
            elif self.rules.tie is TieRule.PLUS_ONE:
                stake = 1
                added[result.trump_team] = 1
            else:  # carry: nothing happens now
                self._carry += stake
                carried = self._carry
        else:
            stake = result.stake + self._carry
            self._carry = 0
            winner, loser = result.winner, result.winner.other
            struck[winner] = min(stake, self._open[winner])  # rules 25, 28
            if loser is result.trump_team:
                added[loser] = stake  # rule 26: a lost trump game adds lines
        for team in Team:
            self._open[team] += added[team] - struck[team]
        entry = SlateEntry(len(self.history) + 1, result, stake, struck, added, carried)
        self.history.append(entry)
        return entry

    def lines(self, team: Team) -> tuple[Line, ...]:
        """The team's row as drawn: starting lines then added lines, in order, struck ones marked.

        Lines are struck oldest first: starting lines before added ones, as a scorer crosses them out.
        """
        start = self.rules.start_lines
        added_total = sum(entry.added[team] for entry in self.history)
        struck_total = sum(entry.struck[team] for entry in self.history)
        row = [Line.OPEN] * start + [Line.ADDED] * added_total
        for i in range(min(struck_total, len(row))):
            row[i] = Line.STRUCK if row[i] is Line.OPEN else Line.ADDED_STRUCK
        return tuple(row)


class Match:
    """A series of deals until one team has struck all its lines (rules 22, 28-29).

    >>> match = Match(first_dealer=Seat.N)
    >>> deal = match.new_deal()
    >>> deal.forehand   # anticlockwise: the dealer's right
    <Seat.W: 'W'>
    """

    def __init__(self, rules: HouseRules | None = None, first_dealer: Seat = Seat.N) -> None:
        self.rules = rules or HouseRules()
        self.slate = Slate(self.rules)
        self.dealer = first_dealer
        self.deals: list[Deal] = []
        #: Deals told by hand (a chalk slate), by deal number, and corrections accepted by both teams.
        self.entered: dict[int, DealEntry] = {}
        self.corrected: dict[int, DealEntry] = {}

    @property
    def is_over(self) -> bool:
        return self.slate.is_over

    @property
    def winner(self) -> Team | None:
        return self.slate.winner

    def new_deal(self, hands: Mapping[Seat, list[Card]] | None = None) -> Deal:
        """Start the next deal with the current dealer."""
        if self.is_over:
            raise RulesError("the match is over; start a revanche or a new match (rule 29)",
                             code=RulesCode.MATCH_OVER, rule=29)
        if self.deals and not self.deals[-1].is_over:
            raise RulesError("finish the current deal before dealing again", code=RulesCode.DEAL_IN_PROGRESS)
        deal = Deal(self.dealer, self.rules, hands)
        self.deals.append(deal)
        return deal

    def finish_deal(self) -> SlateEntry:
        """Score the current deal and pass the deal on: the next dealer is this deal's forehand (rule 22)."""
        if not self.deals or not self.deals[-1].is_over:
            raise RulesError("no finished deal to score", code=RulesCode.NOT_OVER)
        if len(self.slate.history) == len(self.deals) + len(self.entered):
            raise RulesError("this deal is already scored", code=RulesCode.NOT_OVER)
        deal = self.deals[-1]
        entry = self.slate.record(deal.result())
        self.dealer = deal.forehand
        return entry

    def enter_deal(self, entry: DealEntry) -> SlateEntry:
        """Score a deal told by hand (no card seen): the slate applies it as a played one (rules 24-28), and the
        next dealer is its forehand, who named trumps (rule 22)."""
        if self.is_over:
            raise RulesError("the match is over; start a revanche or a new match (rule 29)",
                             code=RulesCode.MATCH_OVER, rule=29)
        if self.deals and not self.deals[-1].is_over:
            raise RulesError("finish the current deal before entering one", code=RulesCode.DEAL_IN_PROGRESS)
        scored = self.slate.record(entry.result())
        self.entered[scored.number] = entry
        self.dealer = entry.trumps
        return scored

    def abandon_deal(self) -> None:
        """Drop the deal in progress (its cards are gathered; it is told by hand instead)."""
        if self.deals and not self.deals[-1].is_over:
            self.deals.pop()

    def correct(self, number: int, entry: DealEntry) -> None:
        """Replace deal ``number``'s result by ``entry`` (both teams agreed) and rescore the slate from the first
        deal. Refused, with the slate unchanged, when the corrected slate ends the match before a later deal."""
        history = self.slate.history
        if not 1 <= number <= len(history):
            raise RulesError(f"there is no deal {number} to correct (deals 1-{len(history)})",
                             code=RulesCode.NO_SUCH_DEAL)
        slate = Slate(self.rules)
        for scored in history:
            result = entry.result() if scored.number == number else scored.result
            try:
                slate.record(result)
            except RulesError:
                raise RulesError(f"with deal {number} corrected the match ends before deal {scored.number}",
                                 code=RulesCode.MATCH_OVER, rule=28) from None
        self.slate = slate
        self.corrected[number] = entry
        if number == len(history) and (not self.deals or self.deals[-1].is_over):
            self.dealer = entry.trumps  # the last deal's forehand deals next (rule 22), as corrected


    def scored(self) -> tuple[tuple[SlateEntry, Deal | DealEntry], ...]:
        """Each scored deal with what it is scored from: its correction (both teams agreed), the entry told by
        hand, or the played deal. Who named trumps, the announcements and the result all come from that one
        source, so a corrected deal is corrected throughout."""
        return tuple((scored, self.corrected.get(scored.number, source)) for scored, source in self.scored_as_told())

    def scored_as_told(self) -> tuple[tuple[SlateEntry, Deal | DealEntry], ...]:
        """Each scored deal with what it was first scored from (a correction set aside): the played deal with its
        tricks, or the entry told by hand."""
        played = iter(self.deals)
        out: list[tuple[SlateEntry, Deal | DealEntry]] = []
        for scored in self.slate.history:
            entry = self.entered.get(scored.number)
            source: Deal | DealEntry | None = entry if entry is not None else next(played, None)
            if source is not None:
                out.append((scored, source))
        return tuple(out)

    def revanche(self) -> Match:
        """The losers ask for a revanche: same teams, a fresh slate; the deal passes on as usual (rule 29)."""
        if not self.is_over:
            raise RulesError("a revanche follows a finished match (rule 29)", code=RulesCode.MATCH_NOT_OVER, rule=29)
        return Match(self.rules, self.dealer)
