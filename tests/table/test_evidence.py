"""Evidence, not claims: the referee never accuses a player who did not revoke (STYLE.md 17, docs/table.md).

The two situations a new user met, each under both revoke penalties, and Claim with claims switched off. Each deal
is legal from the first card to the last (checked against the full hands by the rules core).
"""

from __future__ import annotations

import pytest

from tablepi.commands.replay import format_text
from tablepi.display.i18n import translator
from tablepi.display.scene import Scene
from tablepi.display.view import Action, DisplaySettings
from tablepi.display.viewmodel import build_view, warning_sentence
from tablepi.errors import RulesCode
from tablepi.rules import Announcement, Card, Deal, Seat, Suit, parse_cards
from tablepi.table import ButtonName, PromptCode, Table, TablePhase, WarningCode
from tablepi.table.summary import replay_report

from .conftest import DEAL, Rec, log_codes

# Situation 1. Dealer N, forehand W, clubs trumps. W holds ♦Q but not ♥Q; E holds ♥Q and plays it in trick 2;
# in trick 6 a trump is led and W, out of trumps, plays ♠K.
FALSE_KONTER_HANDS = {
    "W": "AH TD JC QD KS 9S",
    "S": "KC TH JH KD 9C AD",
    "E": "JS QH QC TC AS QS",
    "N": "JD 9H TS 9D AC KH",
}
FALSE_KONTER_TRICKS = [
    [("W", "9S"), ("S", "KC"), ("E", "QS"), ("N", "TS")],
    [("E", "QH"), ("N", "AC"), ("W", "QD"), ("S", "9C")],
    [("N", "9D"), ("W", "JC"), ("S", "AD"), ("E", "AS")],
    [("W", "TD"), ("S", "KD"), ("E", "JS"), ("N", "JD")],
    [("S", "TH"), ("E", "QC"), ("N", "9H"), ("W", "AH")],
    [("E", "TC"), ("N", "KH"), ("W", "KS"), ("S", "JH")],
]

# Situation 2. Dealer N, forehand W, clubs trumps. S holds ♠Q; W leads ♥K; in trick 4 a trump is led and W, out of
# trumps, plays ♦K.
MATT_HANDS = {
    "W": "9S KD 9C KH JH TD",
    "S": "QS 9D QD AD 9H TH",
    "E": "TS TC JD AH QH QC",
    "N": "AS JS JC AC KC KS",
}
MATT_TRICKS = [
    [("W", "KH"), ("S", "9H"), ("E", "QH"), ("N", "AS")],
    [("E", "AH"), ("N", "JC"), ("W", "JH"), ("S", "QD")],
    [("S", "AD"), ("E", "TC"), ("N", "JS"), ("W", "9C")],
    [("E", "QC"), ("N", "AC"), ("W", "KD"), ("S", "QS")],
    [("N", "KC"), ("W", "TD"), ("S", "9D"), ("E", "JD")],
    [("N", "KS"), ("W", "9S"), ("S", "TH"), ("E", "TS")],
]

PENALTIES = ("warn", "lose_deal")


def _legal(hands: dict[str, str], tricks: list[list[tuple[str, str]]]) -> None:
    """The deal is legal card by card (the rules core's checked path)."""
    deal = Deal(Seat.N, hands={Seat.parse(s): parse_cards(c) for s, c in hands.items()})
    deal.choose_trump(Suit.CLUBS, Seat.W)
    for trick in tricks:
        for seat, card in trick:
            deal.play(Seat.parse(seat), Card.parse(card))
    assert deal.is_over and deal.faults == []


def _play(rec: Rec, tricks: list[list[tuple[str, str]]]) -> Rec:
    for plays in tricks:
        rec.trick(plays)
    return rec


def _revokes(table: Table) -> list[Seat | None]:
    return [w.seat for w in table.warning_log if w.code is WarningCode.REVOKE]


@pytest.mark.parametrize("penalty", PENALTIES)
def test_a_false_konter_by_touch_is_void_and_never_convicts_the_partner(penalty: str) -> None:
    """W touches Konter holding only ♦Q. When E (W's partner) plays ♥Q the Konter is void: one warning naming W
    and ♥Q, the stake back to 1, and nothing else follows (no revoke against W when he later lacks trumps)."""
    _legal(FALSE_KONTER_HANDS, FALSE_KONTER_TRICKS)
    rules = {"revoke_penalty": penalty}
    honest = _play(Rec(house_rules=rules).trumps("JC"), FALSE_KONTER_TRICKS).table()
    rec = Rec(house_rules=rules).trumps("JC").button("announce_konter", seat="W")
    assert rec.state().deal.announcements == ((Seat.W, Announcement.KONTER),)  # the claim raises the stake meanwhile
    table = _play(rec, FALSE_KONTER_TRICKS).table()
    assert log_codes(table) == ["false_announcement"]
    warning = table.warning_log[0]
    assert (warning.seat, warning.card, warning.fault.holder, warning.fault.announcement, warning.trick) == (
        Seat.W, Card.parse("QH"), Seat.E, Announcement.KONTER, 2)
    assert _revokes(table) == []
    state = table.state
    assert state.phase is TablePhase.DEAL_OVER and state.deal.voided == ((Seat.W, Announcement.KONTER),)
    result = state.match.slate[0].result
    assert result.announcements == () and result.revoke_by is None
    assert state.match.slate == honest.state.match.slate  # exactly the deal without the touch
    assert log_codes(honest) == []
    text = warning_sentence(translator("en"), warning, {Seat.W: "Jos", Seat.E: "Pit"})
    assert text == "Jos's Konter does not count: ♥Q is Pit's. Press Confirm."


@pytest.mark.parametrize("penalty", PENALTIES)
def test_a_seatless_announce_touch_is_never_given_to_the_player_whose_card_is_tentative(penalty: str) -> None:
    """W lays ♥K at t=4.0; a Matt touch without a seat at 4.5, while W's card is inside the tap window. The table
    asks who announces; S answers at his own name. Matt is S's, W is never accused, no warning is left over, and
    after the deal Confirm starts the next one and the trump button names trumps."""
    _legal(MATT_HANDS, MATT_TRICKS)
    rec = Rec(house_rules={"revoke_penalty": penalty}).trumps("9C")
    rec.place("W", "KH", dt=4.0 - rec.t).button("announce_matt")  # no seat: a hardware button
    state = rec.state()
    assert state.deal.announcements == ()
    assert state.prompt.code is PromptCode.CHOOSE_SEAT and state.prompt.button is ButtonName.ANNOUNCE_MATT
    assert set(state.possible.seats_for(ButtonName.ANNOUNCE_MATT)) == {Seat.W, Seat.S, Seat.E, Seat.N}
    view = build_view(Scene(state, DisplaySettings()))
    assert [t.seat for t in view.targets() if t.action is Action.ANNOUNCE_MATT] == [Seat.N, Seat.E, Seat.S, Seat.W]
    rec.button("announce_matt", seat="S", dt=0.2)
    state = rec.state()
    assert state.deal.announcements == ((Seat.S, Announcement.MATT),) and state.prompt.code is PromptCode.PLAY
    for seat, card in MATT_TRICKS[0][1:]:
        rec.place(seat, card)
    rec.tick()
    for seat, card in MATT_TRICKS[0]:
        rec.lift(seat, card, dt=0.1)
    table = _play(rec, MATT_TRICKS[1:]).table()
    assert _revokes(table) == [] and log_codes(table) == []
    state = table.state
    assert state.phase is TablePhase.DEAL_OVER and state.warnings == ()
    result = state.match.slate[0].result
    assert result.announcements == ((Seat.S, Announcement.MATT),) and result.revoke_by is None
    assert result.stake == 2
    rec.button("confirm").button("trump_hearts")
    state = rec.state()
    assert state.phase is TablePhase.PLAY and state.deal.trump is Suit.HEARTS and state.deal.number == 2


def test_an_unanswered_seatless_touch_credits_nobody(rec: Rec) -> None:
    rec.trumps().button("announce_konter")
    assert rec.state().prompt.code is PromptCode.CHOOSE_SEAT
    state = rec.button("undo").state()  # undo withdraws the question, and nothing else
    assert state.prompt.code is PromptCode.PLAY and state.deal.announcements == () and state.deal.trump is Suit.HEARTS
    rec.button("announce_konter")
    for seat, card in (("W", "KH"), ("S", "JH"), ("E", "AD"), ("N", "9H")):
        rec.place(seat, card)
    state = rec.tick().state()
    assert state.deal.announcements == () and state.prompt.code is not PromptCode.CHOOSE_SEAT  # the question lapsed


def test_claim_is_neither_offered_nor_taken_with_claims_off() -> None:
    rec = Rec(house_rules={"claims": False}).trumps()
    for plays in DEAL[:3]:
        rec.trick(plays)  # EW have 24
    state = rec.state()
    assert dict(state.deal.points)[state.deal.forehand.team] >= 21
    assert state.possible.claim is None and not state.possible.seats_for(ButtonName.CLAIM)
    view = build_view(Scene(state, DisplaySettings()))
    assert Action.CLAIM not in [b.action for b in (*view.buttons, *view.targets()) if b.enabled]
    table = rec.button("claim", seat="E").table()
    assert table.state.phase is TablePhase.PLAY
    assert log_codes(table) == ["claim_refused"] and table.warning_log[0].refusal is RulesCode.CLAIMS_OFF
    assert warning_sentence(translator("en"), table.warning_log[0]) == "Claims are switched off at this table."
    # With claims on, the same moment offers Claim at both seats of the side with 21.
    on = Rec().trumps()
    for plays in DEAL[:3]:
        on.trick(plays)
    assert on.state().possible.seats_for(ButtonName.CLAIM) == (Seat.E, Seat.W)
    assert on.state().live(ButtonName.CLAIM)  # the seatless one: the one team with 21 (rule 21)


def test_konter_a_matt_by_taps_is_one_announcement(rec: Rec) -> None:
    rec.trumps().tap("W", "QS")
    assert rec.state().deal.announcements == ((Seat.W, Announcement.MATT),)
    table = rec.tap("W", "QH").tap("W", "QD").table()
    assert table.state.deal.announcements == ((Seat.W, Announcement.KONTER_A_MATT),)
    view = build_view(Scene(table.state, DisplaySettings()))
    assert view.seat(Seat.W).announcement == "Konter a Matt"  # type: ignore[union-attr]
    for plays in DEAL:
        rec.trick(plays)
    report = replay_report(rec.table())
    assert report["deals"][0]["announcements"] == [{"seat": "W", "announcement": "konter_a_matt"}]
    assert "W announces konter_a_matt" in format_text(report) and "announces matt" not in format_text(report)
