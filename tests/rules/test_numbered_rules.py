"""One test (at least) per numbered rule of RULES.md; each test names its rule."""

from __future__ import annotations

import itertools

import pytest

from tablepi.errors import IllegalPlay, RulesError
from tablepi.rules import (
    DECK,
    MATADORS,
    Announcement,
    Card,
    Deal,
    Direction,
    FaultCode,
    HouseRules,
    Line,
    Match,
    Phase,
    Seat,
    Slate,
    Suit,
    Team,
    TieRule,
    legal_plays,
    parse_cards,
    trick_winner,
    trump_order,
)
from tablepi.rules.cards import Rank
from tablepi.rules.trumps import effective_suit, is_trump, plain_suit_cards

from .helpers import deal_with, play_cards, result_of, scripted_deal

C = Card.parse


def cards(text: str) -> tuple[Card, ...]:
    return parse_cards(text)


# --- 1. Table and cards ---------------------------------------------------------------------------------------


def test_rule_1_four_seats_two_teams_partners_opposite() -> None:
    assert {seat.partner for seat in Seat} == set(Seat)
    assert Seat.N.partner is Seat.S and Seat.E.partner is Seat.W
    assert Seat.N.team is Seat.S.team is Team.NS
    assert Seat.E.team is Seat.W.team is Team.EW


def test_rule_2_anticlockwise_by_default_and_forehand_is_dealers_right() -> None:
    anti = Direction.ANTICLOCKWISE
    assert anti.order_from(Seat.N) == (Seat.N, Seat.W, Seat.S, Seat.E)
    assert Deal(Seat.N).forehand is Seat.W
    clockwise = HouseRules(direction=Direction.CLOCKWISE)
    assert Deal(Seat.N, clockwise).forehand is Seat.E
    assert Direction.CLOCKWISE.order_from(Seat.S) == (Seat.S, Seat.W, Seat.N, Seat.E)


def test_rule_3_twenty_four_cards_worth_forty_points() -> None:
    assert len(DECK) == 24 and len(set(DECK)) == 24
    assert sum(card.points for card in DECK) == 40
    assert [Card(rank, Suit.CLUBS).points for rank in Rank] == [4, 3, 2, 1, 0, 0]
    # a card's points never depend on trumps: the same Card value is used whatever the trump
    assert C("QS").points == 2


def test_rule_4_the_three_matadors_are_always_trumps() -> None:
    assert cards("QS QH QD") == MATADORS
    for trump in Suit:
        assert all(is_trump(card, trump) for card in MATADORS)


def test_rule_5_trump_order_for_each_suit() -> None:
    assert trump_order(Suit.SPADES) == cards("AS QS QH QD KS JS TS 9S")
    assert trump_order(Suit.HEARTS) == cards("AH QS QH QD KH JH TH 9H")
    assert trump_order(Suit.DIAMONDS) == cards("AD QS QH QD KD JD TD 9D")
    assert trump_order(Suit.CLUBS) == cards("AC QS QH QD KC QC JC TC 9C")


def test_rule_5_ordering_decides_tricks_between_trumps() -> None:
    for trump in Suit:
        order = trump_order(trump)
        for higher, lower in itertools.pairwise(order):
            assert trick_winner([lower, higher], trump) == 1
            assert trick_winner([higher, lower], trump) == 0


def test_rule_6_a_matador_is_a_trump_for_every_purpose() -> None:
    # With hearts trumps the spade queen is not a spade: leading it is a trump lead ...
    assert effective_suit(C("QS"), Suit.HEARTS) is Suit.HEARTS
    hand = cards("AS KS 9H TD 9C JC")
    assert legal_plays(hand, C("QS"), Suit.HEARTS) == (C("9H"),)
    # ... and a player whose only "spade" is the queen is void in spades.
    hand = cards("QS 9H TD 9C JC AD")
    assert set(legal_plays(hand, C("KS"), Suit.HEARTS)) == set(hand)


def test_rule_7_plain_suits_rank_and_size() -> None:
    assert plain_suit_cards(Suit.SPADES, Suit.CLUBS) == cards("AS KS JS TS 9S")
    assert plain_suit_cards(Suit.CLUBS, Suit.HEARTS) == cards("AC KC QC JC TC 9C")
    assert trick_winner(cards("JC QC KC 9C"), Suit.HEARTS) == 2
    assert trick_winner(cards("TD 9D JD AD"), Suit.SPADES) == 3


# --- 2. Dealing, trumps, announcements ---------------------------------------------------------------------


def test_rule_8_six_cards_each_and_no_card_twice() -> None:
    hands = {seat: list(DECK[i * 6 : i * 6 + 6]) for i, seat in enumerate(Seat)}
    Deal(Seat.N, hands=hands)  # accepted
    with pytest.raises(RulesError, match="six"):
        Deal(Seat.N, hands={**hands, Seat.N: hands[Seat.N][:5]})
    doubled = {**hands, Seat.E: [*hands[Seat.E][:5], hands[Seat.N][0]]}
    with pytest.raises(RulesError, match="dealt to both"):
        Deal(Seat.N, hands=doubled)


def test_rule_9_forehand_names_any_suit_and_only_forehand() -> None:
    deal = Deal(Seat.N)
    assert deal.phase is Phase.TRUMPS and deal.to_play is None
    with pytest.raises(RulesError, match="forehand W names trumps"):
        deal.choose_trump(Suit.HEARTS, Seat.E)
    with pytest.raises(IllegalPlay, match="before trumps"):
        deal.play(Seat.W, C("AS"))
    deal.choose_trump(Suit.HEARTS, Seat.W)
    assert deal.trump is Suit.HEARTS and deal.phase is Phase.PLAY
    with pytest.raises(RulesError, match="already"):
        deal.choose_trump(Suit.CLUBS, Seat.W)


def test_rule_10_announcements_need_the_cards_and_come_before_first_card() -> None:
    deal = Deal(Seat.N)
    deal.choose_trump(Suit.CLUBS)
    with pytest.raises(RulesError, match="without showing"):
        deal.announce(Seat.E, Announcement.MATT)
    deal.announce(Seat.E, Announcement.KONTER, shown=cards("QH QD"))
    assert deal.evidence.known[Seat.E] == set(cards("QH QD"))
    with pytest.raises(RulesError, match="already announced konter"):
        deal.announce(Seat.N, Announcement.KONTER_A_MATT, shown=cards("QS QH QD"))
    # forehand W leads; W may no longer announce, E (not yet played) still may
    deal.play(Seat.W, C("AC"))
    with pytest.raises(RulesError, match="too late"):
        deal.announce(Seat.W, Announcement.MATT, shown=cards("QS"))
    deal.announce(Seat.S, Announcement.MATT, shown=cards("QS"))
    assert [a for _, a in deal.announcements] == [Announcement.KONTER, Announcement.MATT]


def test_rule_10_konter_impossible_when_red_queens_are_split_even_between_partners() -> None:
    hands = {
        Seat.N: cards("QH AS KS JS TS 9S"),
        Seat.S: cards("QD AH KH JH TH 9H"),
        Seat.E: cards("QS AD KD JD TD 9D"),
        Seat.W: cards("AC KC QC JC TC 9C"),
    }
    deal = Deal(Seat.N, hands=hands)
    deal.choose_trump(Suit.CLUBS)
    with pytest.raises(RulesError, match="in S's hand"):
        deal.announce(Seat.N, Announcement.KONTER)
    deal.announce(Seat.E, Announcement.MATT)  # full knowledge: no need to show
    assert deal.announcements == [(Seat.E, Announcement.MATT)]
    with pytest.raises(RulesError, match="another player already announced matt"):
        deal.announce(Seat.W, Announcement.KONTER_A_MATT)


def test_rule_11_queen_shown_then_played_by_another_seat_is_flagged() -> None:
    deal = Deal(Seat.N)
    deal.choose_trump(Suit.SPADES)
    deal.announce(Seat.S, Announcement.MATT, shown=cards("QS"))
    deal.play(Seat.W, C("AS"), check=False)
    faults = deal.play(Seat.S, C("KS"), check=False)
    assert faults == ()
    faults = deal.play(Seat.E, C("QS"), check=False)
    assert [f.code for f in faults] == [FaultCode.QUEEN_SHOWN_BY_OTHER]
    assert faults[0].rule == 11 and faults[0].seat is Seat.E and "S showed" in faults[0].message
    assert deal.holder(C("QS")) is None  # played: nobody holds it any more
    checked = Deal(Seat.N)
    checked.choose_trump(Suit.SPADES)
    checked.announce(Seat.S, Announcement.MATT, shown=cards("QS"))
    assert checked.holder(C("QS")) is Seat.S and checked.holder(C("QH")) is None
    with pytest.raises(IllegalPlay, match="rule 11"):
        checked.play(Seat.W, C("QS"))


# --- 3. Play -------------------------------------------------------------------------------------------------


def test_rule_12_forehand_leads_then_the_trick_winner_leads() -> None:
    deal = Deal(Seat.N)
    deal.choose_trump(Suit.CLUBS)
    assert deal.to_play is Seat.W
    with pytest.raises(IllegalPlay, match=r"out of turn.*W is to play.*rule 12"):
        deal.play(Seat.E, C("AS"))
    play_cards(deal, "AS KS JS 9C")  # W S E N; the club (trump) on N wins
    assert deal.tricks[0].winner is Seat.N
    assert deal.to_play is Seat.N


def test_rule_13_plain_suit_led_follow_or_trump_never_discard() -> None:
    hand = cards("AS KS QH TD 9C JC")
    assert legal_plays(hand, C("KS"), Suit.HEARTS) == cards("AS KS QH")  # the worked example
    assert legal_plays(hand, C("KS"), Suit.CLUBS) == cards("AS KS QH 9C JC")
    deal = deal_with("N", "AS KS QH TD 9C JC", trump="H", dealer="E")  # N is forehand
    play_cards(deal, "AS")
    assert deal.to_play is Seat.W


def test_rule_13_discarding_when_holding_the_led_suit_is_a_revoke() -> None:
    deal = scripted_deal(trump="C", dealer="N")  # W leads
    play_cards(deal, "KS")
    with pytest.raises(IllegalPlay, match=r"revokes in trick 1.*rule 13"):
        deal.play(Seat.S, deal.hand(Seat.S)[_index_not_following(deal, Seat.S)])


def _index_not_following(deal: Deal, seat: Seat) -> int:
    hand = deal.hand(seat)
    assert hand is not None
    legal = deal.legal_plays(seat)
    return next(i for i, card in enumerate(hand) if card not in legal)


def test_rule_14_void_in_led_plain_suit_any_card() -> None:
    hand = cards("9H AC KC TC TH JC")
    assert legal_plays(hand, C("JD"), Suit.SPADES) == hand  # worked example: void in diamonds, no trump


def test_rule_15_trump_led_must_play_a_trump_if_holding_one() -> None:
    hand = cards("AD KC QD 9S TD JC")
    assert legal_plays(hand, C("KD"), Suit.DIAMONDS) == cards("AD QD TD")  # worked example
    # a matador lead is a trump lead
    assert legal_plays(cards("AC 9D KH JS"), C("QH"), Suit.DIAMONDS) == cards("9D")
    # no trump: any card
    hand = cards("AC KH JS 9C")
    assert legal_plays(hand, C("QS"), Suit.DIAMONDS) == hand


def test_rule_16_no_duty_to_overtrump_win_or_trump_when_void() -> None:
    hand = cards("9C AH KH JS")  # clubs trumps; spade led, holds JS: may play JS or the low trump
    assert legal_plays(hand, C("AS"), Suit.CLUBS) == cards("9C JS")
    void = cards("9C AH KH TD")  # void in spades: may discard, need not trump
    assert legal_plays(void, C("AS"), Suit.CLUBS) == void


def test_rule_17_highest_trump_wins_else_highest_of_led_suit() -> None:
    assert trick_winner(cards("TH KH 9C AH"), Suit.CLUBS) == 2  # worked example
    assert trick_winner(cards("QD KD QH JD"), Suit.DIAMONDS) == 2  # ♥Q outranks ♦Q in every trump suit
    assert trick_winner(cards("KS AH 9S AS"), Suit.CLUBS) == 3  # off-suit ace does not win
    assert trick_winner(cards("JS"), Suit.CLUBS) == 0


def test_rule_18_revoke_seen_at_once_when_the_hand_is_known() -> None:
    deal = Deal(Seat.N)
    deal.choose_trump(Suit.CLUBS)
    deal.show(Seat.S, C("9S"))  # the table saw S holding 9S
    play_cards(deal, "KS")
    faults = deal.play(Seat.S, C("AH"), check=False)
    assert [(f.code, f.rule, f.seat, f.trick) for f in faults] == [(FaultCode.REVOKE, 13, Seat.S, 1)]


def test_rule_18_revoke_proven_later_by_a_card_of_the_suit() -> None:
    deal = Deal(Seat.N)
    deal.choose_trump(Suit.CLUBS)
    assert play_cards(deal, "KS AH 9S JS", check=False) == []  # S discards on spades: claims void
    # E won with? JS is E's: KS(W) AH(S) 9S(E) JS(N): KS highest spade -> W leads
    assert deal.tricks[0].winner is Seat.W
    faults = play_cards(deal, "TS", check=False)  # W leads TS
    assert faults == []
    faults = play_cards(deal, "AS", check=False)  # S plays AS: proves he held spades in trick 1
    assert len(faults) == 1
    revoke = faults[0]
    assert (revoke.code, revoke.rule, revoke.seat, revoke.trick) == (FaultCode.REVOKE, 13, Seat.S, 1)
    assert revoke.card == C("AH") and revoke.proof == C("AS")
    assert revoke.led == C("KS") and revoke.held == (C("AS"),)
    assert "♥A on ♠K while holding ♠A" in revoke.message
    # reported once: another spade from S proves nothing new
    rest = play_cards(deal, "9H JH", check=False)
    assert rest == []


def test_rule_18_trump_revoke_proven_later() -> None:
    deal = Deal(Seat.N)
    deal.choose_trump(Suit.HEARTS)
    play_cards(deal, "AH KS", check=False)  # W leads a trump, S plays a spade: claims no trump
    faults = play_cards(deal, "9H QS", check=False)  # E, N
    assert faults == []  # N's matador is fine: N followed trumps
    play_cards(deal, "9S", check=False)  # W (won with AH) leads
    faults = play_cards(deal, "TH", check=False)  # S trumps the spade: he had a trump in trick 1
    assert [(f.rule, f.trick, f.seat) for f in faults] == [(15, 1, Seat.S)]


# --- 4. Result of a deal -----------------------------------------------------------------------------------


def test_rule_19_twenty_one_wins_twenty_all_is_a_tie() -> None:
    win = result_of(points_ns=21)
    assert win.winner is Team.NS and not win.is_tie
    tie = result_of(points_ns=20)
    assert tie.winner is None and tie.is_tie
    assert sum(tie.points.values()) == 40


def test_rule_20_kapo_needs_all_six_tricks_not_forty_points() -> None:
    kapo = result_of(points_ns=40, tricks_ns=6)
    assert kapo.kapo and kapo.stake == 2
    forty = result_of(points_ns=40, tricks_ns=5)  # EW took a trick of tens and nines
    assert forty.winner is Team.NS and not forty.kapo and forty.stake == 1


def test_rule_21_claim_with_twenty_one_or_more() -> None:
    deal = Deal(Seat.N)
    deal.choose_trump(Suit.CLUBS)
    play_cards(deal, "AS KS JS 9S", check=False)  # W wins 8 points for EW
    with pytest.raises(RulesError, match="needs 21"):
        deal.claim(Team.EW)
    play_cards(deal, "AH KH JH 9H AD KD JD 9D", check=False)  # W wins both: 24
    deal.claim(Team.EW)
    result = deal.result()
    assert result.winner is Team.EW and result.claimed_by is Team.EW and not result.kapo
    assert deal.is_over
    off = Deal(Seat.N, HouseRules(claims=False))
    off.choose_trump(Suit.CLUBS)
    with pytest.raises(RulesError, match="switched off"):
        off.claim(Team.NS)


def test_rule_22_next_dealer_is_this_deals_forehand() -> None:
    match = Match(first_dealer=Seat.N)
    deal = match.new_deal()
    deal.choose_trump(Suit.CLUBS)
    play_all_lead_winner(deal)
    match.finish_deal()
    assert match.dealer is Seat.W
    assert match.new_deal().forehand is Seat.S


def play_all_lead_winner(deal: Deal) -> None:
    """Play the deal to the end with each seat's cards chosen from a fixed split of the pack (unchecked)."""
    pack = list(DECK)
    while not deal.is_over:
        seat = deal.to_play
        assert seat is not None
        card = next(c for c in pack if c not in deal.played)
        pack.remove(card)
        deal.play(seat, card, check=False)


# --- 5. The slate ------------------------------------------------------------------------------------------


def test_rule_23_nine_open_lines_each_by_default_and_house_rule() -> None:
    assert Slate().open_lines(Team.NS) == Slate().open_lines(Team.EW) == 9
    assert Slate(HouseRules(start_lines=5)).open_lines(Team.EW) == 5
    assert Slate().lines(Team.NS) == (Line.OPEN,) * 9


def test_rule_24_stake_from_announcements_and_kapo() -> None:
    assert result_of(points_ns=25).stake == 1
    assert result_of(points_ns=25, announced=[("N", "matt")]).stake == 2
    assert result_of(points_ns=25, announced=[("E", "konter")]).stake == 2
    assert result_of(points_ns=25, announced=[("N", "konter_a_matt")]).stake == 3
    assert result_of(points_ns=25, announced=[("N", "matt"), ("E", "konter")]).stake == 3
    assert result_of(points_ns=40, tricks_ns=6, announced=[("S", "konter_a_matt")]).stake == 4


def test_rule_25_winner_strikes_stake_lines() -> None:
    slate = Slate()
    slate.record(result_of(points_ns=25, trump_team="NS", announced=[("N", "konter")]))
    assert slate.open_lines(Team.NS) == 7 and slate.open_lines(Team.EW) == 9
    assert slate.lines(Team.NS)[:3] == (Line.STRUCK, Line.STRUCK, Line.OPEN)


def test_rule_26_lost_trump_game_adds_lines_lost_defence_does_not() -> None:
    slate = Slate()
    slate.record(result_of(points_ns=18, trump_team="NS", announced=[("E", "matt")]))
    assert slate.open_lines(Team.NS) == 11 and slate.open_lines(Team.EW) == 7
    assert slate.lines(Team.NS).count(Line.ADDED) == 2
    other = Slate()
    other.record(result_of(points_ns=18, trump_team="EW"))  # EW won its own trump game
    assert other.open_lines(Team.NS) == 9 and other.open_lines(Team.EW) == 8


def test_rule_27_tie_adds_to_trump_team_and_house_variants() -> None:
    tie = result_of(points_ns=20, trump_team="EW", announced=[("N", "konter_a_matt")])
    slate = Slate()
    slate.record(tie)
    assert (slate.open_lines(Team.NS), slate.open_lines(Team.EW)) == (9, 12)  # 1 + 2 announced
    plus_one = Slate(HouseRules(tie=TieRule.PLUS_ONE))
    plus_one.record(tie)
    assert plus_one.open_lines(Team.EW) == 10
    carry = Slate(HouseRules(tie=TieRule.CARRY))
    carry.record(tie)
    assert (carry.open_lines(Team.NS), carry.open_lines(Team.EW), carry.carry) == (9, 9, 3)
    entry = carry.record(result_of(points_ns=25, trump_team="NS"))
    assert entry.stake == 4 and carry.open_lines(Team.NS) == 5 and carry.carry == 0


def test_rule_28_first_team_without_open_lines_wins_overstrike_ignored() -> None:
    slate = Slate(HouseRules(start_lines=3))
    slate.record(result_of(points_ns=40, tricks_ns=6, announced=[("N", "konter_a_matt")]))  # stake 4 > 3
    assert slate.open_lines(Team.NS) == 0 and slate.winner is Team.NS
    assert slate.history[-1].struck[Team.NS] == 3
    with pytest.raises(RulesError, match="match is over"):
        slate.record(result_of(points_ns=25))


def test_rule_29_revanche_same_teams_fresh_slate() -> None:
    match = Match(HouseRules(start_lines=1), Seat.E)
    deal = match.new_deal()
    deal.choose_trump(Suit.SPADES)
    play_all_lead_winner(deal)
    match.finish_deal()
    assert match.is_over
    with pytest.raises(RulesError, match="revanche"):
        match.new_deal()
    again = match.revanche()
    assert not again.is_over and again.slate.open_lines(Team.NS) == 1 and again.dealer is match.dealer
    with pytest.raises(RulesError, match="follows a finished match"):
        again.revanche()


def test_every_card_text_round_trips() -> None:
    for card in DECK:
        assert Card.parse(str(card)) is card or Card.parse(str(card)) == card
        assert eval(repr(card), {"Card": Card}) == card
        assert Card.parse(card.display) == card
