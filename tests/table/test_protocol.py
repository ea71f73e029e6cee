"""Gestures real hands make that the protocol has to decide (docs/table.md, "When hands do something else"),
and a regression test for each bug the state-machine test (test_stateful.py) found, named after the problem."""

from __future__ import annotations

from tablepi.rules import Card, Seat, Suit
from tablepi.table import PromptCode, TablePhase

from .conftest import DEAL, Rec, codes, log_codes


def zone_cards(rec: Rec, seat: str) -> list[tuple[str, str]]:
    return [(str(c.card), c.status.value) for c in rec.state().zone(Seat(seat)).cards]


# --- bugs found by the state machine -------------------------------------------------------------------------------


def test_a_second_decks_copy_of_a_card_on_the_same_zone_is_another_tag(rec: Rec) -> None:
    """The red ♠Q laid beside the blue ♠Q was taken for the blue one reported again (matched by card, not UID):
    the zone lost a tag, and lifting the red one took the blue one off the table's zones."""
    rec.trumps().place("W", "QS", uid="04B02", deck="blue").place("W", "QS", uid="04R10", deck="red")
    assert [c.uid for c in rec.state().zone(Seat.W).cards] == ["04B02", "04R10"]
    assert "unknown_tag" in codes(rec.state())
    rec.lift("W", "QS", uid="04R10", deck="red")
    assert [c.uid for c in rec.state().zone(Seat.W).cards] == ["04B02"]
    assert codes(rec.state()) == []


def test_new_match_leaves_no_card_marked_played_that_no_trick_holds(rec: Rec) -> None:
    """W's card lay played when the new match began; it stayed 'played' in a match where nothing was played."""
    rec.trumps().place("W", "KH").tick().button("new_match")
    state = rec.state()
    assert state.phase is TablePhase.TRUMPS and state.deal.tricks == ()
    assert zone_cards(rec, "W") == [("KH", "shown")]


def test_lifting_the_lead_early_does_not_lay_the_next_seats_tentative_card(rec: Rec) -> None:
    """W leads ♥K, S's ♥J lies tentative, W lifts ♥K: that is a card lifted early, not a sweep, so S's card must not
    be laid by it (it was, because any lift of a trick card counted as a sweep)."""
    rec.trumps().place("W", "KH").tick().place("S", "JH").lift("W", "KH", dt=0.1)
    state = rec.state()
    assert zone_cards(rec, "S") == [("JH", "tentative")]
    assert state.deal.tricks[0].plays == ((Seat.W, Card.parse("KH")),)
    assert "lifted_early" in codes(state)
    state = rec.lift("S", "JH", dt=0.2).state()  # so S's card was a show after all
    assert state.deal.tricks[0].plays == ((Seat.W, Card.parse("KH")),)


def test_sweep_of_a_complete_trick_still_lays_the_fourth_card(rec: Rec) -> None:
    """The sweep rule that stays: lifting a card of a trick whose fourth card lies tentative lays that card."""
    rec.trumps()
    for seat, card in DEAL[0][:3]:
        rec.place(seat, card)
    rec.tick().place("N", "9H").lift("W", "KH", dt=0.1)
    state = rec.state()
    assert state.deal.tricks[0].winner is Seat.W and codes(state) == []


def test_undoing_a_play_clears_already_played_of_its_card_lying_again(rec: Rec) -> None:
    """S's ♥J was played, swept, laid again (already played); undo drops the play of ♥J, so 'already played' was
    left on screen about a card nobody had played."""
    rec.trumps().trick(DEAL[0]).place("W", "AC").tick().place("S", "KH")  # KH: W's card of trick 1
    assert "card_already_played" in codes(rec.state())
    state = rec.button("undo").button("undo").state()  # drops W's ♣A, then the fourth card of trick 1
    assert state.deal.tricks[0].winner is None and len(state.deal.tricks[0].plays) == 3
    assert "card_already_played" in codes(state)  # ♥K still lies played in trick 1: the warning is true
    state = rec.button("undo").button("undo").button("undo").state()  # trick 1 is empty now
    assert state.deal.tricks == () and "card_already_played" not in codes(state)
    assert zone_cards(rec, "S") == [("KH", "stray")] and state.prompt.code is PromptCode.LIFT_CARD


def test_undo_and_redo_of_a_claim_leave_a_card_put_back_as_it_was(rec: Rec) -> None:
    """After a claim, N put his ♥9 of trick 1 down again (a card being gathered). Undoing the claim turned it into a
    'played' card (any card of the deal counted), and claiming again left it so: undo + redo changed the table."""
    rec.trumps().trick(DEAL[0]).trick(DEAL[1]).trick(DEAL[2]).button("claim", "E").place("N", "9H")
    before = zone_cards(rec, "N")
    assert before == [("9H", "shown")]
    assert zone_cards(rec.button("undo"), "N") == [("9H", "shown")]
    state = rec.button("claim", "E").state()
    assert zone_cards(rec, "N") == before and state.phase is TablePhase.DEAL_OVER


# --- protocol decisions --------------------------------------------------------------------------------------------


def test_card_knocked_off_a_complete_trick_and_put_back_is_still_that_tricks_card(rec: Rec) -> None:
    """Decision: a seat's card of the last complete trick, put back on its zone before it plays to the next trick,
    is a knocked-off card (or a sweep thought better of), not the card played a second time: no warning."""
    rec.trumps().trick(DEAL[0], sweep=False).lift("S", "JH").place("S", "JH")
    state = rec.state()
    assert codes(state) == [] and zone_cards(rec, "S") == [("JH", "played")]
    assert state.prompt.code is PromptCode.SWEEP and state.prompt.seat is Seat.W
    # The same card laid by another seat, or after the seat's next card, is still a card played again.
    rec.lift("S", "JH").lift("E", "AD").place("E", "JH")
    assert codes(rec.state()) == ["card_already_played"]


def test_card_knocked_off_an_incomplete_trick_and_put_back_is_played_again(rec: Rec) -> None:
    rec.trumps().place("W", "KH").place("S", "JH").tick().lift("W", "KH")
    assert codes(rec.state()) == ["lifted_early"] and rec.state().prompt.code is PromptCode.PUT_BACK
    state = rec.place("W", "KH").state()
    assert codes(state) == [] and zone_cards(rec, "W") == [("KH", "played")]
    assert state.prompt.code is PromptCode.PLAY and state.prompt.seat is Seat.E


def test_next_forehand_putting_a_card_back_before_the_cards_are_gathered_does_not_start_the_deal() -> None:
    """Decision: in DEAL_OVER the next forehand's card names trumps only once every other zone is clear; before,
    it is one of the last deal's cards being gathered."""
    rec = Rec().deal(DEAL[:5])
    rec.trick(DEAL[5], sweep=False)  # last trick: W S E N; the next forehand is S (dealer W)
    rec.lift("S", "QD").place("S", "QD")
    state = rec.state()
    assert state.phase is TablePhase.DEAL_OVER and state.deal.number == 1
    assert zone_cards(rec, "S") == [("QD", "played")]  # still the last trick's card
    for seat, card in DEAL[5]:
        rec.lift(seat, card, dt=0.1)
    state = rec.place("S", "AC").state()  # all gathered: now S's card names trumps
    assert state.deal.number == 2 and state.deal.trump is Suit.CLUBS


def test_two_players_laying_at_once_are_taken_in_the_order_of_play(rec: Rec) -> None:
    """Decision: cards laid within the tap window of each other are settled in the order of play, whatever order the
    readers reported them in: E's card reported just before S's does not become out of turn."""
    rec.trumps().place("W", "KH").tick()
    rec.place("E", "AD", dt=0.5).place("S", "JH", dt=0.05).tick()
    state = rec.state()
    assert codes(state) == []
    assert state.deal.tricks[0].plays == tuple((Seat(s), Card.parse(c)) for s, c in DEAL[0][:3])


def test_undo_pressed_twice_drops_two_plays(rec: Rec) -> None:
    rec.trumps().place("W", "KH").place("S", "JH").tick()
    state = rec.button("undo").button("undo").state()
    assert state.deal.tricks == () and state.deal.to_play is Seat.W
    assert zone_cards(rec, "W") == [("KH", "stray")] and zone_cards(rec, "S") == [("JH", "stray")]
    state = rec.lift("W", "KH").lift("S", "JH").state()
    assert codes(state) == [] and tuple(state.prompt) == (PromptCode.PLAY, Seat.W)
    table = rec.trick(DEAL[0]).table()
    assert table.state.deal.tricks[0].winner is Seat.W


def test_claim_by_the_wrong_side_is_refused_and_the_right_side_can_still_claim(rec: Rec) -> None:
    rec.trumps().trick(DEAL[0]).trick(DEAL[1])  # EW: 8 + 12 = 20
    rec.trick(DEAL[2])  # EW 24
    table = rec.button("claim", "N").table()
    assert log_codes(table) == ["claim_refused"] and table.state.phase is TablePhase.PLAY
    state = rec.button("confirm").button("claim", "E").state()
    assert state.phase is TablePhase.DEAL_OVER and state.match.last_result is not None
    assert state.match.last_result.claimed_by is not None and state.match.last_result.claimed_by.value == "EW"


def test_sweep_that_begins_with_the_fourth_card_inside_the_tap_window_closes_the_trick(rec: Rec) -> None:
    """Decision: N's ♥9 lifted within the tap window is a show, but a card of the same trick lifted within the tap
    window after it shows the winner was sweeping: ♥9 was played, the trick is closed, nothing is lifted early."""
    rec.trumps()
    for seat, card in DEAL[0][:3]:
        rec.place(seat, card)
    rec.tick().place("N", "9H").lift("N", "9H", dt=0.4).lift("W", "KH", dt=0.2)
    state = rec.state()
    assert state.deal.tricks[0].winner is Seat.W and len(state.deal.tricks[0].plays) == 4
    assert codes(state) == []
    for seat, card in DEAL[0][1:3]:
        rec.lift(seat, card, dt=0.1)
    assert tuple(rec.state().prompt) == (PromptCode.PLAY, Seat.W)


def test_matt_shown_by_the_fourth_seat_then_a_card_knocked_off_is_an_announcement_not_a_sweep() -> None:
    """Found by injecting mistakes into honest matches: E, fourth to play in trick 1, taps ♠Q to announce Matt and
    N's card is knocked off 0.3 s later. The sweep rule above took ♠Q for E's card to the trick."""
    rec = Rec(dealer="E").trumps("AS", "N")  # forehand N: order N W S E, so E is fourth
    rec.place("N", "KS").place("W", "9S").place("S", "TS").tick().place("E", "QS").lift("E", "QS", dt=0.3)
    state = rec.lift("N", "KS", dt=0.3).state()
    assert len(state.deal.tricks[0].plays) == 3 and state.deal.to_play is Seat.E
    assert "lifted_early" in codes(state)
    assert [(s.value, a.value) for s, a in state.deal.announcements] == [("E", "matt")]


def test_a_show_then_a_card_lifted_early_much_later_is_no_sweep(rec: Rec) -> None:
    rec.trumps()
    for seat, card in DEAL[0][:3]:
        rec.place(seat, card)
    rec.tick().place("N", "9H").lift("N", "9H", dt=0.4).lift("W", "KH", dt=2.0)
    state = rec.state()
    assert len(state.deal.tricks[0].plays) == 3 and codes(state) == ["lifted_early"]
    assert Card.parse("9H") in dict(state.deal.shown)[Seat.N]


def test_reader_offline_mid_trick_card_gone_when_back_is_not_played(rec: Rec) -> None:
    """Decision: time does not lay a card on a zone whose reader is offline (it may have been taken back unseen).
    The reader comes back and reports the card gone: it was not played; W is still to lead."""
    rec.trumps().place("W", "KH").reader("W", "offline", dt=0.2).tick(5.0).tick(5.0)
    state = rec.state()
    assert state.deal.tricks == () and zone_cards(rec, "W") == [("KH", "tentative")]
    assert codes(state) == ["reader_offline"]
    state = rec.reader("W", "online", dt=1.0).lift("W", "KH", dt=0.0).state()
    assert state.deal.tricks == () and tuple(state.prompt) == (PromptCode.PLAY, Seat.W) and codes(state) == []


def test_reader_offline_mid_trick_card_still_there_is_played_a_window_after_it_is_back(rec: Rec) -> None:
    rec.trumps().place("W", "KH").reader("W", "fault", dt=0.2).tick(5.0)
    state = rec.reader("W", "online", dt=1.0).tick(0.5).state()
    assert state.deal.tricks == ()
    state = rec.tick(0.6).state()
    assert state.deal.tricks[0].plays == ((Seat.W, Card.parse("KH")),) and zone_cards(rec, "W") == [("KH", "played")]


def test_reader_offline_mid_trick_card_changed_when_back_plays_the_new_card(rec: Rec) -> None:
    rec.trumps().place("W", "KH").reader("W", "offline", dt=0.2).tick(5.0)
    rec.reader("W", "online", dt=1.0).lift("W", "KH", dt=0.0).place("W", "AC", dt=0.0).tick(1.5)
    state = rec.state()
    assert state.deal.tricks[0].plays == ((Seat.W, Card.parse("AC")),) and codes(state) == []


def test_reader_offline_the_next_seats_card_still_lays_the_card_before_it(rec: Rec) -> None:
    rec.trumps().place("W", "KH").reader("W", "offline", dt=0.2).place("S", "JH").tick()
    state = rec.state()
    assert state.deal.tricks[0].plays == ((Seat.W, Card.parse("KH")), (Seat.S, Card.parse("JH")))


def test_reader_offline_a_played_card_gone_when_back_must_be_put_back(rec: Rec) -> None:
    rec.trumps().place("W", "KH").place("S", "JH").tick().reader("W", "offline").tick(3.0)
    state = rec.reader("W", "online").lift("W", "KH", dt=0.0).state()
    assert codes(state) == ["lifted_early"] and tuple(state.prompt) == (PromptCode.PUT_BACK, Seat.W)
    state = rec.place("W", "KH").state()
    assert codes(state) == [] and len(state.deal.tricks[0].plays) == 2
