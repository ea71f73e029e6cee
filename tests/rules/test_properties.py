"""Property tests over thousands of random deals (hypothesis)."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from tablepi.rules import (
    DECK,
    Deal,
    FaultCode,
    HouseRules,
    Match,
    Seat,
    Suit,
    Team,
    TieRule,
    effective_suit,
    trick_winner,
)
from tablepi.rules.deal import Play

seeds = st.integers(min_value=0, max_value=2**32 - 1)


def random_legal_deal(rng: random.Random, dealer: Seat = Seat.N, rules: HouseRules | None = None) -> Deal:
    cards = list(DECK)
    rng.shuffle(cards)
    deal = Deal(dealer, rules, hands={seat: cards[i * 6 : i * 6 + 6] for i, seat in enumerate(Seat)})
    deal.choose_trump(rng.choice(list(Suit)))
    while not deal.is_over:
        legal = deal.legal_plays()
        assert legal, "a legal set is never empty"
        deal.play(deal.to_play, rng.choice(legal))  # type: ignore[arg-type]
    return deal


@settings(max_examples=2000, deadline=None)
@given(seeds, st.sampled_from(list(Seat)))
def test_random_legal_deals_are_consistent(seed: int, dealer: Seat) -> None:
    deal = random_legal_deal(random.Random(seed), dealer)
    result = deal.result()
    assert sum(result.points.values()) == 40
    assert len(deal.tricks) == 6 and sum(result.tricks.values()) == 6
    for trick in deal.tricks:
        assert trick.winner is not None and trick.card_of(trick.winner) is not None
        assert trick.plays[trick_winner(trick.cards, deal.trump)].seat is trick.winner  # type: ignore[arg-type]
        assert len({play.seat for play in trick.plays}) == 4
    assert result.kapo == (result.winner is not None and result.tricks[result.winner] == 6)
    assert (result.winner is None) == (result.points[Team.NS] == 20)


@settings(max_examples=500, deadline=None)
@given(seeds)
def test_replaying_the_plays_without_hands_gives_the_same_result_and_no_fault(seed: int) -> None:
    deal = random_legal_deal(random.Random(seed))
    blind = Deal(deal.dealer)
    blind.choose_trump(deal.trump)  # type: ignore[arg-type]
    for trick in deal.tricks:
        for play in trick.plays:
            assert blind.play(play.seat, play.card, check=False) == ()
    assert blind.result() == deal.result()


@settings(max_examples=500, deadline=None)
@given(seeds)
def test_every_revoke_reported_without_hands_is_a_real_revoke(seed: int) -> None:
    """Random (often illegal) play: the blind table never accuses an innocent player (rule 18)."""
    rng = random.Random(seed)
    cards = list(DECK)
    rng.shuffle(cards)
    hands = {seat: cards[i * 6 : i * 6 + 6] for i, seat in enumerate(Seat)}
    blind = Deal(Seat.N)
    trump = rng.choice(list(Suit))
    blind.choose_trump(trump)
    held_at: list[dict[Seat, tuple]] = []  # the true hands at the start of each trick
    while not blind.is_over:
        if blind.current_trick is None:
            held_at.append({seat: tuple(hand) for seat, hand in hands.items()})
        seat = blind.to_play
        assert seat is not None
        card = rng.choice(hands[seat])
        hands[seat].remove(card)
        for fault in blind.play(seat, card, check=False):
            assert fault.code is FaultCode.REVOKE
            trick = blind.tricks[fault.trick - 1]
            led_card = trick.plays[0].card
            suit = effective_suit(led_card, trump)
            assert any(effective_suit(c, trump) is suit for c in held_at[fault.trick - 1][fault.seat])


@settings(max_examples=300, deadline=None)
@given(seeds, st.sampled_from(list(TieRule)))
def test_matches_never_go_below_zero_and_last_at_least_three_deals(seed: int, tie: TieRule) -> None:
    rng = random.Random(seed)
    rules = HouseRules(tie=tie)
    match = Match(rules, rng.choice(list(Seat)))
    deals = 0
    while not match.is_over:
        cards = list(DECK)
        rng.shuffle(cards)
        deal = match.new_deal({seat: cards[i * 6 : i * 6 + 6] for i, seat in enumerate(Seat)})
        deal.choose_trump(rng.choice(list(Suit)))
        while not deal.is_over:
            deal.play(deal.to_play, rng.choice(deal.legal_plays()))  # type: ignore[arg-type]
        match.finish_deal()
        deals += 1
        assert all(match.slate.open_lines(team) >= 0 for team in Team)
        assert deals < 500
    assert deals >= 3
    loser = match.winner.other  # type: ignore[union-attr]
    assert match.slate.open_lines(match.winner) == 0 and match.slate.open_lines(loser) > 0  # type: ignore[arg-type]
    lines = match.slate.lines(match.winner)  # type: ignore[arg-type]
    assert all(line.value.endswith("struck") for line in lines)


def test_play_is_a_named_value() -> None:
    assert str(Play(Seat.N, DECK[0])) == "N:AS"
