"""The solver is exact: it equals exhaustive minimax (on the rules core and on the fast tables, checked against each
other) and a plain alpha-beta."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from tablepi.analysis import Solver, compiled_available
from tablepi.analysis.kernel import new_search
from tablepi.analysis.review import dealt_hands
from tablepi.analysis.solve import TOTAL_POINTS
from tablepi.analysis.solver import mtdf
from tablepi.analysis.tables import tables
from tablepi.rules import Card, Deal, Direction, Seat, Suit, Team, parse_cards
from tests.analysis.helpers import random_deal
from tests.analysis.reference import AlphaBeta, MaskMinimax, PlainSearch, minimax_line

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


def mask_check(deal: Deal, solver: Solver, from_trick: int = 3) -> int:
    """Exhaustive minimax on the fast tables at every position of the played line from ``from_trick`` on; the
    solver must equal it at each. Returns the positions checked."""
    assert deal.trump is not None
    t = tables(deal.trump)
    reference = MaskMinimax(deal.trump)
    checked = 0
    for leader, trick, played, hands in positions(deal, from_trick):
        masks = [t.mask(hands[s]) for s in ORDER]
        expected = reference.value(masks, ORDER.index(leader), [t.bit_of[c.index] for c in trick])
        assert solver.value(leader, trick, played) == expected, (checked, str(deal.trump))
        checked += 1
    return checked


def test_mask_minimax_equals_minimax_on_the_rules() -> None:
    """The fast exhaustive minimax equals the one written on the rules core's own functions (from trick 3 on)."""
    rng = random.Random(314)
    for _ in range(6):
        deal = random_deal(rng)
        assert deal.trump is not None
        hands = dealt_hands(deal)
        assert hands is not None
        played = [c for trick in deal.tricks[:2] for c in trick.cards]
        line = [c for trick in deal.tricks[2:] for c in trick.cards]
        by_position = [[c for c in hands[s] if c not in played] for s in ORDER]
        leader = ORDER.index(deal.tricks[2].leader)
        t = tables(deal.trump)
        expected = minimax_line(by_position, deal.trump, leader, line)
        reference = MaskMinimax(deal.trump)
        for i, (lead, trick, _, rest) in enumerate(positions(deal, 3)):
            masks = [t.mask(rest[s]) for s in ORDER]
            assert reference.value(masks, ORDER.index(lead), [t.bit_of[c.index] for c in trick]) == expected[i]


@pytest.mark.slow
def test_equals_exhaustive_minimax_from_every_position_of_trick_3_on_thousands_of_deals() -> None:
    """2,000 random deals (fixed seed), every one of the 16 positions from trick 3 on, the solver's default search
    (the compiled kernel when built) against exhaustive minimax: 32,000 positions."""
    rng = random.Random(2718)
    checked = 0
    for _ in range(2000):
        deal = random_deal(rng)
        assert deal.trump is not None
        checked += mask_check(deal, Solver(dealt_hands(deal) or {}, deal.trump, small=True))
    assert checked == 2000 * 16


def test_python_search_equals_exhaustive_minimax_from_trick_3_on() -> None:
    """The pure-Python search on fewer deals: 150 deals, 16 positions each."""
    rng = random.Random(2719)
    checked = 0
    for _ in range(150):
        deal = random_deal(rng)
        assert deal.trump is not None
        checked += mask_check(deal, Solver(dealt_hands(deal) or {}, deal.trump, compiled=False))
    assert checked == 150 * 16


def test_compiled_and_python_kernels_agree() -> None:
    if not compiled_available():
        pytest.skip("the compiled kernel is not built")
    rng = random.Random(7)
    for _ in range(12):
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


@pytest.mark.parametrize("compiled", KERNELS)
@pytest.mark.parametrize(("trump", "held", "twin"), [(Suit.HEARTS, "9S", "TS"), (Suit.CLUBS, "QC", "QD")])
def test_the_full_table_shares_positions_that_differ_only_in_which_equal_card_is_gone(
        compiled: bool, trump: Suit, held: str, twin: str) -> None:
    """Keyed on the four hands (single-dummy), the table takes a position after each card slid into the place of a
    gone stronger card of its suit with the same points, the cards between gone too: N holding 9S with TS played is
    the same position as N holding TS with 9S played; with clubs trumps and KC played, N holding QC with QD played is
    the same as N holding QD with QC played. The second is answered from the first's entry (no node searched), with
    the same value, which is the exhaustive minimax's."""
    t = tables(trump)

    def hands(north: str) -> list[int]:
        seats = {Seat.N: north + " AH KD", Seat.E: "AS JH 9D", Seat.S: "KS JC TD", Seat.W: "JS AC TC"}
        return [t.mask(parse_cards(seats[s])) for s in ORDER]

    search = new_search(t, compiled, full=True)
    reference = MaskMinimax(trump)
    for leader in range(4):
        first, second = hands(held), hands(twin)
        total = t.points_of(first[0] | first[1] | first[2] | first[3])
        value = mtdf(search, total, first, leader, [])
        nodes = search.nodes
        assert mtdf(search, total, second, leader, []) == value == reference.value(second, leader, [])
        assert search.nodes == nodes
