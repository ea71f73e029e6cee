"""Every phase of the physical protocol (docs/table.md), driven by game records."""

from __future__ import annotations

from tablepi.rules import Announcement, Card, Seat, Suit, Team
from tablepi.table import ButtonName, PromptCode, TablePhase, ZoneCardStatus

from .conftest import DEAL, Rec, codes, log_codes


def test_start_prompts_forehand_to_name_trumps_rule_2_and_9(rec: Rec) -> None:
    """Dealer N, anticlockwise: forehand is W (rule 2), who names trumps (rule 9)."""
    state = rec.state()
    assert state.phase is TablePhase.TRUMPS
    assert tuple(state.prompt) == (PromptCode.NAME_TRUMPS, Seat.W)
    assert state.deal.dealer is Seat.N and state.deal.forehand is Seat.W


def test_clockwise_house_rule_makes_east_forehand_rule_2() -> None:
    state = Rec(house_rules={"direction": "clockwise"}).state()
    assert state.prompt.code is PromptCode.NAME_TRUMPS and state.prompt.seat is Seat.E


def test_forehand_names_trumps_by_showing_a_card_rule_9(rec: Rec) -> None:
    state = rec.trumps("AH").state()
    assert state.phase is TablePhase.PLAY
    assert state.deal.trump is Suit.HEARTS
    assert tuple(state.prompt) == (PromptCode.PLAY, Seat.W)
    assert Card.parse("AH") in dict(state.deal.shown)[Seat.W]  # shown, so known to be in W's hand


def test_trump_card_left_on_the_zone_asks_to_lift_it(rec: Rec) -> None:
    state = rec.place("W", "QS").state()
    assert state.deal.trump is Suit.SPADES  # the printed suit: ♠Q names spades
    assert tuple(state.prompt) == (PromptCode.LIFT_CARD, Seat.W)
    assert state.zone(Seat.W).cards[0].status is ZoneCardStatus.SHOWN


def test_trumps_by_touch_rule_9(rec: Rec) -> None:
    state = rec.button("trump_clubs").state()
    assert state.deal.trump is Suit.CLUBS and state.phase is TablePhase.PLAY


def test_only_forehand_names_trumps_rule_9(rec: Rec) -> None:
    table = rec.tap("S", "AS").table()
    assert table.state.deal.trump is None
    assert log_codes(table) == ["out_of_turn"]
    assert table.warning_log[0].rule == 9


def test_matt_announced_by_showing_the_queen_rule_10_11(rec: Rec) -> None:
    state = rec.trumps().tap("W", "QS").state()
    assert state.deal.announcements == ((Seat.W, Announcement.MATT),)
    assert codes(state) == []


def test_konter_needs_both_red_queens_from_one_seat_rule_10(rec: Rec) -> None:
    rec.trumps().tap("S", "QH")
    assert rec.state().deal.announcements == ()
    state = rec.tap("S", "QD").state()
    assert state.deal.announcements == ((Seat.S, Announcement.KONTER),)
    assert {Card.parse("QH"), Card.parse("QD")} <= set(dict(state.deal.shown)[Seat.S])


def test_announcement_by_a_player_not_to_play_is_a_show_not_a_play_rule_10(rec: Rec) -> None:
    """S taps the red queens while W is to lead: no out-of-turn warning, the announcement stands."""
    table = rec.trumps().tap("S", "QH").tap("S", "QD").table()
    assert log_codes(table) == []
    assert table.state.deal.to_play is Seat.W


def test_konter_a_matt_in_one_hand_rule_10_24() -> None:
    hands = Rec().trumps("AH")
    state = hands.tap("S", "QS").tap("S", "QH").tap("S", "QD").state()
    parts: set[str] = set()
    for _, announcement in state.deal.announcements:
        parts |= announcement.parts
    assert parts == {"matt", "konter"}


def test_announcement_by_touch_without_a_seat_asks_for_it_rule_10(rec: Rec) -> None:
    """A touch that does not say whose it is never goes to a guessed seat: the table asks, then takes the answer."""
    state = rec.trumps().button("announce_matt").state()
    assert state.deal.announcements == ()
    assert state.prompt.code is PromptCode.CHOOSE_SEAT and state.prompt.button is ButtonName.ANNOUNCE_MATT
    assert state.possible.seats_for(ButtonName.ANNOUNCE_MATT) == (Seat.N, Seat.E, Seat.S, Seat.W)
    state = rec.button("announce_matt", seat="S").state()
    assert state.deal.announcements == ((Seat.S, Announcement.MATT),) and state.prompt.code is PromptCode.PLAY


def test_announcement_by_touch_for_a_named_seat_rule_10(rec: Rec) -> None:
    state = rec.trumps().button("announce_konter", seat="N").state()
    assert state.deal.announcements == ((Seat.N, Announcement.KONTER),)


def test_announcement_after_ones_first_card_is_too_late_rule_10(rec: Rec) -> None:
    rec.trumps().trick(DEAL[0])
    table = rec.tap("W", "QS").table()
    assert table.state.deal.announcements == ()
    assert log_codes(table) == ["announcement_too_late"]
    assert table.warning_log[0].rule == 10


def test_a_lay_is_played_and_the_fourth_card_closes_the_trick_rule_12_17(rec: Rec) -> None:
    rec.trumps()
    for seat, card in DEAL[0]:
        rec.place(seat, card)
    state = rec.tick().state()
    trick = state.deal.tricks[0]
    assert trick.winner is Seat.W and trick.points == 8
    assert tuple(state.prompt) == (PromptCode.SWEEP, Seat.W)  # W won and must clear his zone before leading


def test_sweeping_clears_the_trick_and_the_winner_leads_rule_12(rec: Rec) -> None:
    state = rec.trumps().trick(DEAL[0]).state()
    assert all(zone.is_clear for zone in state.zones)
    assert state.prompt.code is PromptCode.PLAY and state.prompt.seat is Seat.W
    assert state.prompt.lead and state.deal.trick_number == 2


def test_next_lead_may_come_once_the_winners_zone_is_clear(rec: Rec) -> None:
    rec.trumps().trick(DEAL[0], sweep=False).lift("W", "KH")
    state = rec.place("W", "AC").tick().state()
    assert state.deal.tricks[1].plays == ((Seat.W, Card.parse("AC")),)
    assert codes(state) == []


def test_a_whole_deal_kapo_scored_and_next_dealer_is_forehand_rules_19_20_22_24(rec: Rec) -> None:
    table = rec.deal().table()
    state = table.state
    assert state.phase is TablePhase.DEAL_OVER
    entry = state.match.slate[0]
    assert entry.result.points == {Team.EW: 40, Team.NS: 0}
    assert entry.result.kapo and entry.stake == 2
    assert state.match.open_lines_of(Team.EW) == 7
    assert tuple(state.prompt) == (PromptCode.NEXT_DEAL, Seat.W)  # rule 22: this deal's forehand deals next
    assert state.prompt.forehand is Seat.S
    assert log_codes(table) == []


def test_next_deal_starts_when_the_new_forehand_names_trumps_rule_22(rec: Rec) -> None:
    state = rec.deal().tap("S", "9C").state()
    assert state.phase is TablePhase.PLAY and state.deal.number == 2
    assert state.deal.dealer is Seat.W and state.deal.forehand is Seat.S and state.deal.trump is Suit.CLUBS


def test_confirm_starts_the_next_deal(rec: Rec) -> None:
    state = rec.deal().button("confirm").state()
    assert state.phase is TablePhase.TRUMPS and state.deal.number == 2


def test_claim_by_touch_with_21_points_rule_21(rec: Rec) -> None:
    rec.trumps()
    for plays in DEAL[:3]:
        rec.trick(plays)
    state = rec.button("claim").state()  # EW have 24
    assert state.phase is TablePhase.DEAL_OVER
    result = state.match.slate[0].result
    assert result.claimed_by is Team.EW and not result.kapo


def test_claim_refused_below_21_rule_21(rec: Rec) -> None:
    table = rec.trumps().trick(DEAL[0]).button("claim").table()
    assert table.state.phase is TablePhase.PLAY
    assert log_codes(table) == ["claim_refused"]


def test_match_over_revanche_and_new_match_rules_28_29() -> None:
    rec = Rec(house_rules={"start_lines": 2})
    state = rec.deal().state()  # EW strike 2 of 2 lines: the match is over
    assert state.phase is TablePhase.MATCH_OVER and state.match.winner is Team.EW
    assert state.prompt.code is PromptCode.MATCH_OVER and state.prompt.winner is Team.EW
    state = rec.button("revanche").state()
    assert state.match.number == 2 and state.phase is TablePhase.TRUMPS
    assert state.match.open_lines_of(Team.EW) == 2
    assert state.deal.dealer is Seat.W  # the deal passes on as usual
    state = rec.button("new_match", seat="E").state()
    assert state.match.number == 3 and state.deal.dealer is Seat.E


def test_revanche_before_the_end_is_refused_rule_29(rec: Rec) -> None:
    table = rec.button("revanche").table()
    assert table.state.match.number == 1
    assert log_codes(table) == ["not_now"]


def test_hand_scan_then_play_catches_an_illegal_card_at_once_rule_18() -> None:
    rec = Rec(hand_scan=True)
    rec.trumps()
    state = rec.state()
    assert state.phase is TablePhase.HAND_SCAN and tuple(state.prompt) == (PromptCode.SCAN_HAND, Seat.W)
    hands = {"W": "QS AH KH 9S AC 9D", "S": "QH QD JH TS KC 9C", "E": "AS KS JS AD KD TD", "N": "TH 9H JD QC JC TC"}
    for seat in "WSEN":
        for card in hands[seat].split():
            rec.tap(seat, card)
    state = rec.state()
    assert state.phase is TablePhase.PLAY and state.deal.trump is Suit.HEARTS
    rec.place("W", "KH").place("S", "TS")  # S holds three trumps: a revoke, seen at once (rules 15, 18)
    table = rec.table()
    assert "revoke" in [w.code.value for w in table.state.warnings if w.tentative]
    rec.tick()
    table = rec.table()
    assert log_codes(table) == ["revoke"]
    assert table.warning_log[0].rule == 15


def test_hand_scan_can_be_cut_short_with_confirm() -> None:
    rec = Rec(hand_scan=True).trumps().tap("W", "QS").button("confirm")
    state = rec.state()
    assert state.phase is TablePhase.PLAY
    assert Card.parse("QS") in dict(state.deal.shown)[Seat.W]


def test_undo_takes_back_the_last_play_and_the_card_must_be_lifted(rec: Rec) -> None:
    rec.trumps().place("W", "KH").tick()
    assert rec.state().deal.tricks[0].plays == ((Seat.W, Card.parse("KH")),)
    state = rec.button("undo").state()
    assert state.deal.tricks == () and state.deal.to_play is Seat.W
    assert tuple(state.prompt) == (PromptCode.LIFT_CARD, Seat.W)
    state = rec.lift("W", "KH").place("W", "9S").tick().state()
    assert state.deal.tricks[0].plays == ((Seat.W, Card.parse("9S")),)


def test_undo_of_a_trump_choice(rec: Rec) -> None:
    state = rec.button("trump_clubs").button("undo").state()
    assert state.phase is TablePhase.TRUMPS and state.deal.trump is None


def test_undo_reopens_a_finished_deal(rec: Rec) -> None:
    state = rec.deal().button("undo").state()
    assert state.phase is TablePhase.PLAY and state.match.slate == ()
    assert state.deal.to_play is Seat.N and len(state.deal.tricks[-1].plays) == 3


def test_tie_adds_lines_to_the_trump_team_rule_27() -> None:
    """A 20-20 deal: NS trump team here (dealer E, forehand N)."""
    # Forehand N leads; the cards are arranged so each team collects exactly 20.
    tricks = [
        [("N", "AS"), ("W", "9S"), ("S", "TS"), ("E", "JS")],  # N 5
        [("N", "AH"), ("W", "9H"), ("S", "TH"), ("E", "JH")],  # N 5 (10)
        [("N", "AD"), ("W", "9D"), ("S", "TD"), ("E", "JD")],  # N 5 (15)
        [("N", "AC"), ("W", "9C"), ("S", "TC"), ("E", "JC")],  # N 5 (20)
        [("N", "KS"), ("W", "QD"), ("S", "KC"), ("E", "QS")],  # E wins with ♠Q (spades trumps): 10
        [("E", "QH"), ("N", "KH"), ("W", "KD"), ("S", "QC")],  # E wins with ♥Q: 10 (EW 20)
    ]
    rec = Rec(dealer="E").deal(tricks, trumps="AS", forehand="N")
    state = rec.state()
    entry = state.match.slate[0]
    assert entry.result.is_tie and entry.result.points == {Team.NS: 20, Team.EW: 20}
    assert entry.added == {Team.NS: 1, Team.EW: 0}
    assert state.match.open_lines_of(Team.NS) == 10
