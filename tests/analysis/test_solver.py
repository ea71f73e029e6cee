"""The solver is exact: it equals exhaustive minimax and a plain alpha-beta on the rules core itself."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from tablepi.analysis import Solver, compiled_available
from tablepi.analysis.reference import AlphaBeta, PlainSearch, minimax_line
from tablepi.analysis.review import dealt_hands
from tablepi.analysis.solve import TOTAL_POINTS
from tablepi.rules import Card, Deal, Direction, Seat, Suit, Team, parse_cards
from tests.analysis.helpers import random_deal

KERNELS = [False, *([True] if compiled_available() else [])]
ORDER = Direction.ANTICLOCKWISE.order_from(Seat.N)


def positions(deal: Deal, from_trick: int) -> Iterator[tuple[Seat, list[Card], list[Card], dict[Seat, list[Card]]]]:
    """Every position of the played line from the start of trick ``from_trick``: (leader, trick, played, hands)."""
    hands = dealt_hands(deal)
    assert hands is not None
    played: list[Card] = []
    for number, trick in enumerate(deal.tricks, start=1):
        for k in range(4):
            if number >= from_trick:
                yield trick.leader, list(trick.cards[:k]), list(played), {
                    s: [c for c in hands[s] if c not in played and c not in trick.cards[:k]] for s in Seat
                }
        played.extend(trick.cards)


def line_check(deal: Deal, solvers: list[Solver], from_trick: int) -> int:
    """Exhaustive minimax from the start of ``from_trick`` gives every position of the played line from there (N+S
    points from the trick in progress on); the solver must equal it at each. Returns the positions checked."""
    hands = dealt_hands(deal)
    assert hands is not None and deal.trump is not None
    played = [c for trick in deal.tricks[: from_trick - 1] for c in trick.cards]
    line = [c for trick in deal.tricks[from_trick - 1 :] for c in trick.cards]
    by_position = [[c for c in hands[s] if c not in played] for s in ORDER]
    expected = minimax_line(by_position, deal.trump, ORDER.index(deal.tricks[from_trick - 1].leader), line)
    checked = 0
    for i, (leader, trick, done, _) in enumerate(positions(deal, from_trick)):
        for solver in solvers:
            assert solver.value(leader, trick, done) == expected[i], (i, str(deal.trump))
        checked += 1
    return checked


def test_equals_exhaustive_minimax_from_every_position_of_trick_3_on() -> None:
    rng = random.Random(314)
    checked = 0
    for _ in range(8):
        deal = random_deal(rng)
        assert deal.trump is not None
        hands = dealt_hands(deal) or {}
        checked += line_check(deal, [Solver(hands, deal.trump, compiled=c) for c in KERNELS], 3)
    assert checked == 8 * 16


@pytest.mark.parametrize("compiled", KERNELS, ids=lambda c: "compiled" if c else "python")
def test_equals_exhaustive_minimax_on_thousands_of_positions(compiled: bool) -> None:
    """Every position from trick 4 on, on hundreds of random deals: thousands of positions, searched exhaustively."""
    rng = random.Random(2718)
    checked = 0
    for _ in range(400 if compiled else 150):
        deal = random_deal(rng)
        assert deal.trump is not None
        checked += line_check(deal, [Solver(dealt_hands(deal) or {}, deal.trump, compiled=compiled)], 4)
    assert checked >= 1800


def test_compiled_and_python_kernels_agree() -> None:
    if not compiled_available():
        pytest.skip("the compiled kernel is not built")
    rng = random.Random(7)
    for _ in range(25):
        deal = random_deal(rng)
        assert deal.trump is not None
        hands = dealt_hands(deal) or {}
        fast, slow = Solver(hands, deal.trump, compiled=True), Solver(hands, deal.trump, compiled=False)
        for leader, trick, played, _ in positions(deal, 1):
            assert fast.value(leader, trick, played) == slow.value(leader, trick, played)
            for team in Team:
                points = rng.randrange(0, 41)
                assert fast.at_least(team, points, leader, trick, played) == slow.at_least(
                    team, points, leader, trick, played)
                assert fast.kapo(leader, team, trick, played) == slow.kapo(leader, team, trick, played)


@pytest.mark.slow
def test_equals_plain_alpha_beta_from_the_start() -> None:
    """From the first card, against the plain baseline (few deals: it takes seconds each)."""
    from tablepi.analysis.tables import tables

    rng = random.Random(99)
    for _ in range(3):
        deal = random_deal(rng)
        assert deal.trump is not None
        hands = dealt_hands(deal) or {}
        t = tables(deal.trump)
        expected = PlainSearch(deal.trump).value([t.mask(hands[s]) for s in ORDER], ORDER.index(deal.forehand))
        for compiled in KERNELS:
            assert Solver(hands, deal.trump, compiled=compiled).value(deal.forehand) == expected


def test_equals_rules_alpha_beta_from_trick_2() -> None:
    """From trick 2, against alpha-beta written on the rules core's own functions."""
    rng = random.Random(98)
    for _ in range(6):
        deal = random_deal(rng)
        assert deal.trump is not None
        hands = dealt_hands(deal) or {}
        played = list(deal.tricks[0].cards)
        leader = deal.tricks[1].leader
        by_position = [[c for c in hands[s] if c not in played] for s in ORDER]
        expected = AlphaBeta(deal.trump).value(by_position, ORDER.index(leader))
        for compiled in KERNELS:
            assert Solver(hands, deal.trump, compiled=compiled).value(leader, (), played) == expected


def test_kapo_equals_exhaustive_search() -> None:
    """Kapo (all remaining tricks) against a brute-force search on the rules, from trick 4 on."""
    from tablepi.rules import legal_plays, trick_winner

    def can_take_all(hands: dict[Seat, list[Card]], trump: Suit, leader: Seat, trick: list[Card], team: Team) -> bool:
        seat = ORDER[(ORDER.index(leader) + len(trick)) % 4]
        if len(trick) == 4:
            winner = ORDER[(ORDER.index(leader) + trick_winner(trick, trump)) % 4]
            if winner.team is not team:
                return False
            return not hands[winner] or can_take_all(hands, trump, winner, [], team)
        outcomes = []
        for card in legal_plays(hands[seat], trick[0] if trick else None, trump):
            hands[seat].remove(card)
            outcomes.append(can_take_all(hands, trump, leader, [*trick, card], team))
            hands[seat].append(card)
        return any(outcomes) if seat.team is team else all(outcomes)

    rng = random.Random(5)
    for _ in range(40):
        deal = random_deal(rng)
        assert deal.trump is not None
        solver = Solver(dealt_hands(deal) or {}, deal.trump)
        for leader, trick, played, hands in positions(deal, 4):
            for team in Team:
                expected = can_take_all({s: list(c) for s, c in hands.items()}, deal.trump, leader, trick, team)
                assert solver.kapo(leader, team, trick, played) == expected


def test_values_share_the_forty_points() -> None:
    rng = random.Random(3)
    deal = random_deal(rng)
    assert deal.trump is not None
    solver = Solver(dealt_hands(deal) or {}, deal.trump)
    points = solver.points(deal.forehand)
    assert sum(points.values()) == TOTAL_POINTS


def test_last_trick_is_counted() -> None:
    hands = {Seat.N: parse_cards("AH"), Seat.W: parse_cards("KH"), Seat.S: parse_cards("9C"), Seat.E: parse_cards("TH")}
    solver = Solver(hands, Suit.CLUBS)
    assert solver.points(Seat.N) == {Team.NS: 7, Team.EW: 0}  # S's ♣9 is a trump and takes it; N+S anyway
    assert solver.points(Seat.N, parse_cards("AH KH")) == {Team.NS: 7, Team.EW: 0}
