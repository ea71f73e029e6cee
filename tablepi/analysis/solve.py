"""Solving a Konter a Matt position with all four hands known: points with best play, and what each side can force.

>>> from tablepi.rules import Seat, Suit, parse_cards
>>> hands = {
...     Seat.N: parse_cards("AS QS QH QD KS JS"), Seat.W: parse_cards("TS 9S AH KH JH TH"),
...     Seat.S: parse_cards("9H AD KD JD TD 9D"), Seat.E: parse_cards("AC KC QC JC TC 9C"),
... }
>>> solver = Solver(hands, Suit.SPADES)
>>> solver.points(Seat.N)          # N leads and draws the trumps
{<Team.NS: 'NS'>: 40, <Team.EW: 'EW'>: 0}
>>> solver.kapo(Seat.N, Team.NS)
True
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache

from tablepi.analysis.kernel import new_search
from tablepi.analysis.solver import Search, mtdf
from tablepi.analysis.tables import Tables, tables
from tablepi.rules.cards import Card, Suit
from tablepi.rules.deal import TRICKS_PER_DEAL, WINNING_POINTS
from tablepi.rules.errors import RulesError
from tablepi.rules.seats import Direction, Seat, Team

TOTAL_POINTS = 40  # the card points of the pack (RULES.md 3, 19)


@dataclass(frozen=True, slots=True)
class Forced:
    """The best result a side can force from a position: the points with best play, the winner, Kapo, the stake.

    ``winner`` is None for a 20-20 tie (RULES.md 19); ``kapo`` says the winner can force all six tricks (rule 20);
    ``stake`` is 1 + ``announced`` + 1 for Kapo (rule 24).
    """

    points: Mapping[Team, int]
    winner: Team | None
    kapo: bool
    stake: int

    @classmethod
    def of(cls, points: Mapping[Team, int], kapo: bool, announced: int = 0) -> Forced:
        winner = next((team for team in Team if points[team] >= WINNING_POINTS), None)
        kapo = kapo and winner is not None
        return cls(dict(points), winner, kapo, 1 + announced + (1 if kapo else 0))


class Solver:
    """One deal in one trump suit: the four hands (as dealt, or as they stand) and the direction of play.

    Every question is about a position of this deal: the cards played in completed tricks are left out of the
    hands with ``played``, the trick in progress is ``trick`` (cards in playing order from ``leader``). Answers are
    the points each team takes *from that position on*, the cards of the trick in progress included. The search
    keeps its transposition table between questions, so a whole review of one deal costs little more than one
    solve.
    """

    def __init__(
        self,
        hands: Mapping[Seat, Iterable[Card]],
        trump: Suit,
        direction: Direction = Direction.ANTICLOCKWISE,
        *,
        compiled: bool | None = None,
        small: bool = False,
    ) -> None:
        self.trump = trump
        self._small = small  # a small transposition table: for positions late in the deal
        self.direction = direction
        self.tables: Tables = tables(trump)
        self._order = direction.order_from(Seat.N)  # position 0 is N: N+S are the even positions
        self._position = {seat: i for i, seat in enumerate(self._order)}
        self._hands = {seat: self.tables.mask(hands[seat]) for seat in Seat}
        seen = 0
        for mask in self._hands.values():
            if seen & mask:
                raise RulesError("a card is in two hands")
            seen |= mask
        self._compiled = compiled
        self._points_search: Search | None = None  # made on first use (a Kapo question needs only the other)
        self._kapo_search: Search | None = None

    @property
    def _search(self) -> Search:
        if self._points_search is None:
            self._points_search = new_search(self.tables, self._compiled, self._small)
        return self._points_search

    @property
    def nodes(self) -> int:
        """Positions searched so far (both searches)."""
        return sum(s.nodes for s in (self._points_search, self._kapo_search) if s is not None)

    def _masks(self, played: Iterable[Card], trick: Sequence[Card]) -> list[int]:
        gone = self.tables.mask(played) | self.tables.mask(trick)
        return [self._hands[seat] & ~gone for seat in self._order]

    def _check(self, leader: Seat, masks: list[int], trick: Sequence[Card]) -> None:
        counts = [mask.bit_count() for mask in masks]
        lead = self._position[leader]
        size = counts[lead] + (1 if trick else 0)  # cards each hand held at the start of this trick
        if len(trick) > 3 or any(counts[i] != size - (1 if (i - lead) % 4 < len(trick) else 0) for i in range(4)):
            raise RulesError(f"not a position of this deal: hands of {counts} cards with {len(trick)} in the trick")

    def points(self, leader: Seat, trick: Sequence[Card] = (), played: Iterable[Card] = (),
               guess: int | None = None) -> dict[Team, int]:
        """Points each team takes from this position on with best play by all (the trick in progress included)."""
        ns = self.value(leader, trick, played, guess)
        return {Team.NS: ns, Team.EW: self.total(trick, played) - ns}

    def total(self, trick: Sequence[Card] = (), played: Iterable[Card] = ()) -> int:
        """The points still to be taken: the cards in the hands and in the trick in progress."""
        masks = self._masks(played, trick)
        return self.tables.points_of(masks[0] | masks[1] | masks[2] | masks[3]) + sum(c.points for c in trick)

    def value(self, leader: Seat, trick: Sequence[Card] = (), played: Iterable[Card] = (),
              guess: int | None = None) -> int:
        """N+S points from this position on with best play (exact)."""
        played = tuple(played)
        masks = self._masks(played, trick)
        self._check(leader, masks, trick)
        bits = [self.tables.bit_of[c.index] for c in trick]
        total = self.tables.points_of(masks[0] | masks[1] | masks[2] | masks[3]) + sum(c.points for c in trick)
        return mtdf(self._search, total, masks, self._position[leader], bits, guess)

    def at_least(self, team: Team, points: int, leader: Seat, trick: Sequence[Card] = (),
                 played: Iterable[Card] = ()) -> bool:
        """Whether ``team`` can force ``points`` or more from this position on (one zero-window search)."""
        played = tuple(played)
        masks = self._masks(played, trick)
        self._check(leader, masks, trick)
        bits = [self.tables.bit_of[c.index] for c in trick]
        lead = self._position[leader]
        if team is Team.NS:
            return self._search.search(masks, lead, bits, points - 1, points) >= points
        total = self.tables.points_of(masks[0] | masks[1] | masks[2] | masks[3]) + sum(c.points for c in trick)
        ns_most = total - points  # E+W get ``points`` or more exactly when N+S get at most this
        return self._search.search(masks, lead, bits, ns_most, ns_most + 1) <= ns_most

    def kapo(self, leader: Seat, team: Team, trick: Sequence[Card] = (), played: Iterable[Card] = ()) -> bool:
        """Whether ``team`` can force every remaining trick, the one in progress included (RULES.md 20).

        Solved with the same search on a count of cards instead of points: taking every trick is taking every card.
        """
        if self._kapo_search is None:
            self._kapo_search = new_search(_unit(self.tables), self._compiled, self._small)
        played = tuple(played)
        masks = self._masks(played, trick)
        self._check(leader, masks, trick)
        bits = [self.tables.bit_of[c.index] for c in trick]
        cards = sum(mask.bit_count() for mask in masks) + len(bits)
        lead = self._position[leader]
        if team is Team.NS:
            return self._kapo_search.search(masks, lead, bits, cards - 1, cards) >= cards
        return self._kapo_search.search(masks, lead, bits, 0, 1) <= 0

    def forced(self, leader: Seat, announced: int = 0) -> Forced:
        """The best result from the start of the deal: points, winner, Kapo, stake."""
        points = self.points(leader)
        winner = next((team for team in Team if points[team] >= WINNING_POINTS), None)
        kapo = winner is not None and self.kapo(leader, winner)
        return Forced.of(points, kapo, announced)


@cache
def _unit(t: Tables) -> Tables:
    """The same labelling with every card worth 1: the search then counts cards, i.e. tricks (for Kapo)."""
    return Tables(
        trump=t.trump,
        bit_of=t.bit_of,
        card_of=t.card_of,
        suit=t.suit,
        suit_mask=t.suit_mask,
        points=(1,) * len(t.points),
        point_masks=((1, (1 << len(t.points)) - 1),),
    )


assert TRICKS_PER_DEAL * 4 <= TOTAL_POINTS  # the unit search's totals fit the same bounds as points
