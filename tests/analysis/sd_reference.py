"""An independent, simple single-dummy reference for the tests: every layout, exhaustive minimax in lines then points.

Written apart from tablepi.analysis: layouts are every way to deal the unseen cards that makes each earlier card of
another seat legal under the rules core (``legal_plays``) for the hand he then held, and keeps the cards shown with
their seat; the value of an ended deal is the net lines the project's own slate (``settle`` + ``Slate.record``)
gives, then the points; minimax tries every legal card at every turn (positions are memoised, nothing is pruned).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction

from tablepi.rules import DECK, Card, Deal, Seat, Suit, Team
from tablepi.rules.deal import Announcement, Play, settle
from tablepi.rules.house import HouseRules
from tablepi.rules.play import legal_plays, trick_winner
from tablepi.rules.slate import Slate


def net_lines(team: Team, points_ns: int, tricks_ns: int, trump_team: Team,
              announcements: tuple[tuple[Seat, Announcement], ...], rules: HouseRules) -> int:
    """``team``'s net lines on a fresh slate after a deal ending so (lines struck and added to the other team,
    minus the other team's struck lines and lines added to ``team``)."""
    slate = Slate(rules)
    entry = slate.record(settle(trump_team, {Team.NS: points_ns, Team.EW: 40 - points_ns},
                                {Team.NS: tricks_ns, Team.EW: 6 - tricks_ns}, announcements))
    other = team.other
    return entry.struck[team] + entry.added[other] - entry.struck[other] - entry.added[team]


@dataclass
class Position:
    """A moment of a deal: who plays next, what each seat held (true hands), the play so far."""

    deal: Deal
    index: int  # how many cards were played before this one
    hands: dict[Seat, list[Card]]  # the true hands now
    history: list[Play]  # every card played so far


def positions(deal: Deal, dealt: dict[Seat, list[Card]]) -> Iterator[Position]:
    plays = [p for t in deal.tricks for p in t.plays]
    hands = {s: list(c) for s, c in dealt.items()}
    for i, play in enumerate(plays):
        yield Position(deal, i, {s: list(c) for s, c in hands.items()}, plays[:i])
        hands[play.seat].remove(play.card)


def layouts(pos: Position, seat: Seat, trump: Suit) -> list[dict[Seat, list[Card]]]:
    """Every layout of the cards ``seat`` cannot see that agrees with what he saw."""
    played = {p.card for p in pos.history}
    mine = pos.hands[seat]
    pinned: dict[Seat, list[Card]] = {s: [] for s in Seat}
    for at, who, card in pos.deal.evidence.shown:
        if at <= pos.index and who is not seat and card not in played and card not in pinned[who]:
            pinned[who].append(card)
    others = [s for s in Seat if s is not seat]
    unseen = [c for c in DECK if c not in played and c not in mine and all(c not in p for p in pinned.values())]
    room = {s: len(pos.hands[s]) - len(pinned[s]) for s in others}
    later = {s: [p.card for p in pos.history if p.seat is s] for s in others}
    out: list[dict[Seat, list[Card]]] = []

    def consistent(layout: dict[Seat, list[Card]]) -> bool:
        # replay: each earlier card of another seat legal for the hand he held then (a revoke proves nothing)
        held = {s: layout[s] + later[s] for s in others}
        trick: list[Card] = []
        for play in pos.history:
            if play.seat is not seat and trick:
                true_hand = pos.hands[play.seat] + [p.card for p in pos.history[pos.history.index(play):]
                                                    if p.seat is play.seat]
                truly_legal = play.card in legal_plays(true_hand, trick[0], trump)
                if truly_legal and play.card not in legal_plays(held[play.seat], trick[0], trump):
                    return False
            if play.seat is not seat:
                held[play.seat].remove(play.card)
            trick.append(play.card)
            if len(trick) == 4:
                trick = []
        return True

    def place(i: int, layout: dict[Seat, list[Card]]) -> None:
        if i == len(unseen):
            full = {s: pinned[s] + layout[s] for s in others}
            if consistent({s: list(c) for s, c in full.items()}):
                out.append(full)
            return
        for s in others:
            if len(layout[s]) < room[s]:
                layout[s].append(unseen[i])
                place(i + 1, layout)
                layout[s].pop()

    place(0, {s: [] for s in others})
    return out


class Minimax:
    """Exhaustive minimax in (net lines, points) of team N+S, both sides best (zero-sum: E+W minimise it)."""

    def __init__(self, deal: Deal) -> None:
        assert deal.trump is not None
        self.deal = deal
        self.trump = deal.trump
        self.order = deal.rules.direction
        self.announcements = tuple(deal.announcements)
        self.memo: dict[object, tuple[int, int]] = {}
        self.finals: dict[tuple[int, int], tuple[int, int]] = {}

    def final(self, points_ns: int, tricks_ns: int) -> tuple[int, int]:
        known = self.finals.get((points_ns, tricks_ns))
        if known is None:
            known = self.finals[points_ns, tricks_ns] = (
                net_lines(Team.NS, points_ns, tricks_ns, self.deal.trump_team, self.announcements, self.deal.rules),
                points_ns)
        return known

    def value(self, hands: dict[Seat, list[Card]], leader: Seat, trick: list[Card], points_ns: int,
              tricks_ns: int, tricks_done: int) -> tuple[int, int]:
        """(N+S net lines, N+S final points) with best play from here."""
        held = tuple(frozenset(hands[s]) for s in Seat)
        return self._value(held, leader, tuple(trick), points_ns, tricks_ns, tricks_done)

    def _value(self, held: tuple[frozenset[Card], ...], leader: Seat, trick: tuple[Card, ...], points_ns: int,
               tricks_ns: int, tricks_done: int) -> tuple[int, int]:
        if len(trick) == 4:
            seats = [leader]
            for _ in range(3):
                seats.append(self.order.next(seats[-1]))
            won = seats[trick_winner(list(trick), self.trump)]
            gained = sum(c.points for c in trick)
            if won.team is Team.NS:
                points_ns, tricks_ns = points_ns + gained, tricks_ns + 1
            return self._value(held, won, (), points_ns, tricks_ns, tricks_done + 1)
        if tricks_done == 6:
            return self.final(points_ns, tricks_ns)
        key = (held, leader, trick, points_ns, tricks_ns)
        known = self.memo.get(key)
        if known is not None:
            return known
        seat = leader
        for _ in range(len(trick)):
            seat = self.order.next(seat)
        i = SEATS.index(seat)
        results = []
        for card in legal_plays(list(held[i]), trick[0] if trick else None, self.trump):
            after = (*held[:i], held[i] - {card}, *held[i + 1 :])
            results.append(self._value(after, leader, (*trick, card), points_ns, tricks_ns, tricks_done))
        best = max(results) if seat.team is Team.NS else min(results)
        self.memo[key] = best
        return best


SEATS = tuple(Seat)


@dataclass
class Expected:
    lines: Fraction
    points: Fraction
    win: Fraction
    tie: Fraction
    kapo_for: Fraction
    kapo_against: Fraction


def single_dummy(pos: Position, minimax: Minimax) -> tuple[dict[Card, Expected], int]:
    """For every legal card of the player to move: the expectation over all his layouts (and how many)."""
    deal = pos.deal
    assert deal.trump is not None
    trump = deal.trump
    history = pos.history
    play_seat = (deal.tricks[pos.index // 4].plays[pos.index % 4]).seat
    team = play_seat.team
    done = len(history) // 4
    trick = [p.card for p in history[done * 4:]]
    leader = deal.tricks[done].leader
    points_ns = sum(t.points for t in deal.tricks[:done] if t.winner is not None and t.winner.team is Team.NS)
    tricks_ns = sum(1 for t in deal.tricks[:done] if t.winner is not None and t.winner.team is Team.NS)
    spread = layouts(pos, play_seat, trump)
    own = pos.hands[play_seat]
    legal = legal_plays(own, trick[0] if trick else None, trump)
    # the net lines of a Kapo are those of no other result: they tell one apart
    ns_all = 40 if team is Team.NS else 0
    kapo_for = net_lines(team, ns_all, 6 if ns_all else 0, deal.trump_team, minimax.announcements, deal.rules)
    kapo_against = net_lines(team, 40 - ns_all, 0 if ns_all else 6, deal.trump_team, minimax.announcements,
                             deal.rules)
    out: dict[Card, Expected] = {}
    n = len(spread)
    for card in legal:
        total = [0, 0, 0, 0, 0, 0]
        for layout in spread:
            hands = {s: list(layout[s]) if s is not play_seat else [c for c in own if c is not card] for s in Seat}
            lines_ns, final_ns = minimax.value(hands, leader, [*trick, card], points_ns, tricks_ns, done)
            lines = lines_ns if team is Team.NS else -lines_ns
            points = final_ns if team is Team.NS else 40 - final_ns
            total[0] += lines
            total[1] += points
            total[2] += points >= 21
            total[3] += points == 20
            total[4] += lines == kapo_for
            total[5] += lines == kapo_against
        out[card] = Expected(*(Fraction(x, n) for x in total))
    return out, n
