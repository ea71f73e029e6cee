"""The review of played deals: hand-made deals whose best play is known, and invariants on random deals."""

from __future__ import annotations

import random

import pytest

from tablepi.analysis import Effect, compiled_available, review_deal, review_plays
from tablepi.rules import Card, Deal, Play, Seat, Suit, Team, parse_cards
from tests.analysis.helpers import random_deal

KERNELS = [False, *([True] if compiled_available() else [])]


def play_line(dealer: Seat, hands: dict[Seat, tuple[Card, ...]], trump: Suit, line: str) -> Deal:
    deal = Deal(dealer, hands={s: list(c) for s, c in hands.items()})
    deal.choose_trump(trump)
    for text in line.split():
        seat = deal.to_play
        assert seat is not None
        deal.play(seat, Card.parse(text))  # checked: the hand-made lines are legal
    return deal


# Clubs trumps, E leads (dealer S). E and N hold the trumps; W and S are void in them after trick 1. After four
# tricks N+S have 11 points and N leads ♦A, W must put ♦K on it, and S, void in diamonds, discards ♠A or ♠9. The
# ♠A on partner's trick makes 22 (E keeps ♦J for the last trick: N ♦9, W ♥9, S ♠9, E ♦J); the ♠9 keeps the ace
# for the last trick, which E wins with ♦J: 18, and the deal is lost.
DISCARD_HANDS = {
    Seat.N: parse_cards("AD 9D QH QD KC QC"),
    Seat.W: parse_cards("KD 9H AH KH JH TH"),
    Seat.S: parse_cards("AS 9S KS JS TS JC"),
    Seat.E: parse_cards("JD TD AC QS TC 9C"),
}
DISCARD_LINE = "AC QC AH JC  QS KC JH TS  TC QH KH JS  QD TH KS 9C  AD KD 9S TD  9D 9H AS JD"


@pytest.mark.parametrize("compiled", KERNELS, ids=lambda c: "compiled" if c else "python")
def test_one_discard_costs_the_deal(compiled: bool) -> None:
    deal = play_line(Seat.S, DISCARD_HANDS, Suit.CLUBS, DISCARD_LINE)
    assert deal.faults == []
    review = review_deal(deal, compiled=compiled, single=compiled)  # single-dummy: test_single.py
    assert review.played == {Team.NS: 18, Team.EW: 22}
    discard = review.plays[18]
    assert (discard.trick, discard.seat, discard.card) == (5, Seat.S, Card.parse("9S"))
    assert (discard.value, discard.best_value, discard.best_cards) == (18, 22, (Card.parse("AS"),))
    assert discard.cost == 4
    assert discard.effects == (Effect.LOST_DEAL,)
    # N's ♦A lead was right (♦9 first lets W's ♦K take the trick).
    lead = review.plays[16]
    assert lead.card == Card.parse("AD") and lead.cost == 0 and Card.parse("9D") not in lead.best_cards
    # Nothing after the discard can change the result any more.
    assert all(not p.effects for p in review.plays[19:])


# Clubs trumps, N leads (dealer E). N holds five top trumps and ♥9; S the four low trumps, ♥A and ♠9; E and W no
# trump. N draws trumps; at trick 5 (N ♣K) S, out of trumps, must keep ♥A for N's ♥9: then all six tricks are N+S's.
# Discarding ♥A instead lets W's ♥K take the last trick: no Kapo, and 7 points with best play after it (E keeps ♦A
# for W's trick); E throws ♦A away in the line played, so N+S end with 37.
KAPO_HANDS = {
    Seat.N: parse_cards("AC QS QH QD KC 9H"),
    Seat.W: parse_cards("AS KS JS TS KH JH"),
    Seat.S: parse_cards("QC JC TC 9C AH 9S"),
    Seat.E: parse_cards("TH AD KD JD TD 9D"),
}
KAPO_LINE = "AC TS 9C 9D  QS JS TC TD  QH KS JC JD  QD AS QC KD  KC JH AH AD  9H KH 9S TH"


@pytest.mark.parametrize("compiled", KERNELS, ids=lambda c: "compiled" if c else "python")
def test_a_kapo_missed_by_one_card(compiled: bool) -> None:
    deal = play_line(Seat.E, KAPO_HANDS, Suit.CLUBS, KAPO_LINE)
    review = review_deal(deal, compiled=compiled, single=compiled)
    assert review.played == {Team.NS: 37, Team.EW: 3}
    assert review.forced is not None
    assert review.forced.winner is Team.NS and review.forced.kapo and review.forced.stake == 2
    assert review.best == {Team.NS: 40, Team.EW: 0}
    miss = review.plays[18]
    assert (miss.trick, miss.seat, miss.card) == (5, Seat.S, Card.parse("AH"))
    assert miss.best_cards == (Card.parse("9S"),)
    assert (miss.value, miss.best_value, miss.cost) == (33, 40, 7)
    assert miss.effects == (Effect.MISSED_KAPO,)
    assert [p for p in review.plays if p.seat.team is Team.NS and p.effects] == [miss]
    assert review.highlight() == miss


def test_random_deals_keep_the_invariants() -> None:
    rng = random.Random(21)
    for _ in range(25):
        deal = random_deal(rng)
        review = review_deal(deal, single=False)  # the single-dummy judgement: test_single.py
        assert review.known and review.best == review.par[deal.trump]
        assert review.played == deal.points()
        for play in review.plays:
            assert play.value <= play.best_value  # the line played is never better than best play
            assert play.best_cards and (play.card in play.best_cards) == (play.cost == 0)
        # the value after a card is the best value of the next position for the same team
        for a, b in zip(review.plays, review.plays[1:], strict=False):
            same = a.seat.team is b.seat.team
            assert a.value == (b.best_value if same else 40 - b.best_value)


def test_a_claimed_deal_without_hand_scan_says_what_is_unknown() -> None:
    deal = Deal(Seat.E)  # no hands: the usual bar table
    deal.choose_trump(Suit.CLUBS)
    for text in KAPO_LINE.split()[:16]:
        seat = deal.to_play
        assert seat is not None
        deal.play(seat, Card.parse(text))
    deal.claim(Team.NS)
    review = review_deal(deal)
    assert not review.known and len(review.unknown) == 8 and review.plays == ()
    assert review.to_json()["par"] is None
    # What is known: N+S won every trick, so the claim may have given a Kapo away. The unseen cards can lie in
    # many ways that agree with the play (E and W showed they had no trumps); in some N+S force Kapo, in others not.
    claim = review.claim
    assert claim is not None and claim.layouts > 1 and 0 < claim.kapo_layouts < claim.layouts
    assert claim.kapo_possible is None and claim.safe is None


def test_claim_layouts_agree_with_the_solver_for_both_kernels() -> None:
    results = set()
    for compiled in KERNELS:
        deal = Deal(Seat.E)
        deal.choose_trump(Suit.CLUBS)
        for text in KAPO_LINE.split()[:16]:
            seat = deal.to_play
            assert seat is not None
            deal.play(seat, Card.parse(text))
        deal.claim(Team.NS)
        claim = review_deal(deal, compiled=compiled).claim
        assert claim is not None
        results.add((claim.layouts, claim.kapo_layouts))
    assert len(results) == 1


def test_a_claim_with_hand_scan_is_judged() -> None:
    deal = Deal(Seat.E, hands={s: list(c) for s, c in KAPO_HANDS.items()})
    deal.choose_trump(Suit.CLUBS)
    for text in KAPO_LINE.split()[:16]:
        seat = deal.to_play
        assert seat is not None
        deal.play(seat, Card.parse(text))
    deal.claim(Team.NS)
    review = review_deal(deal)
    assert review.known and review.claim is not None
    assert review.claim.kapo_possible and not review.claim.safe  # claiming gave the Kapo line away
    assert review.claim.best_points == 40


def test_review_plays_takes_hands_and_a_line() -> None:
    plays = [Play(s, c) for s, c in zip([Seat.N, Seat.W, Seat.S, Seat.E] * 6, parse_cards(KAPO_LINE), strict=True)]
    review = review_plays(KAPO_HANDS, Suit.CLUBS, Seat.N, plays)
    assert review.plays[18].effects == (Effect.MISSED_KAPO,)
