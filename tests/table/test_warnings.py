"""One scenario per warning code (docs/table.md), each driven by a game record."""

from __future__ import annotations

from tablepi.rules import Card, RevokePenalty, Seat, Team
from tablepi.table import PromptCode, TablePhase, TagProblem, WarningCode

from .conftest import DEAL, Rec, codes, log_codes


def test_out_of_turn_rule_12_flagged_at_once_and_cleared_by_lifting(rec: Rec) -> None:
    rec.trumps().place("W", "KH").tick().place("E", "AD")  # S is to play, E lays
    state = rec.state()
    assert [w.code for w in state.warnings] == [WarningCode.OUT_OF_TURN]
    assert state.warnings[0].tentative and state.warnings[0].fault.expected is Seat.S
    state = rec.tick().state()
    warning = state.warnings[0]
    assert not warning.tentative and warning.rule == 12 and warning.seat is Seat.E and warning.trick == 1
    assert tuple(state.prompt) == (PromptCode.LIFT_CARD, Seat.E)
    state = rec.lift("E", "AD").state()
    assert codes(state) == [] and state.deal.to_play is Seat.S
    assert state.deal.tricks[0].plays == ((Seat.W, Card.parse("KH")),)


def test_unknown_tag_a_phone_on_a_zone_rule_3(rec: Rec) -> None:
    rec.trumps().tag("N", "04DEADBEEF0042")
    table = rec.table()
    assert codes(table.state) == ["unknown_tag"]
    assert table.state.warnings[0].device.uid == "04DEADBEEF0042"
    assert codes(rec.tag("N", "04DEADBEEF0042", present=False).state()) == []


def test_unknown_tag_resolved_through_the_records_deck_and_zones() -> None:
    rec = Rec()
    rec.header["zones"] = {"0": "N", "1": "W", "2": "S", "3": "E"}
    rec.header["deck"] = {"name": "blue", "cards": {"04A1B2C3D4E5F6": "AH"}}
    rec._add(0.5, {"type": "place", "zone": 1, "uid": "04A1B2C3D4E5F6"})
    rec._add(0.3, {"type": "lift", "zone": 1, "uid": "04A1B2C3D4E5F6"})
    rec._add(0.5, {"type": "place", "zone": 0, "uid": "0499999999999"[:8]})
    state = rec.state()
    assert state.deal.trump is not None and state.deal.trump.value == "H"
    assert codes(state) == ["unknown_tag"] and state.warnings[0].seat is Seat.N


def test_unknown_tag_card_of_a_second_deck_rule_3(rec: Rec) -> None:
    rec.trumps().place("W", "KH", deck="blue").tick().place("S", "JH", deck="red")
    state = rec.state()
    assert codes(state) == ["unknown_tag"]
    assert state.warnings[0].device.tag is TagProblem.OTHER_DECK and state.warnings[0].device.deck == "red"
    assert state.deal.to_play is Seat.S  # the stranger's card is not played


def test_card_already_played_in_this_deal_rule_3(rec: Rec) -> None:
    rec.trumps().trick(DEAL[0]).place("W", "AC").place("S", "KH")  # KH was W's card in trick 1
    state = rec.state()
    assert codes(state) == ["card_already_played"]
    assert state.warnings[0].seat is Seat.S
    assert state.warnings[0].fault.played_by is Seat.W and state.warnings[0].fault.played_in == 1
    assert state.deal.to_play is Seat.S


def test_two_cards_on_one_zone(rec: Rec) -> None:
    rec.trumps().place("W", "KH").place("W", "AC", dt=0.2)
    state = rec.state()
    assert WarningCode.TWO_CARDS_ON_ZONE in [w.code for w in state.warnings]
    # The first card is the play once the window passes; lifting the second clears the warning.
    state = rec.tick().lift("W", "AC").state()
    assert codes(state) == [] and state.deal.tricks[0].plays == ((Seat.W, Card.parse("KH")),)


def test_two_cards_then_the_first_lifted_the_second_counts_from_then(rec: Rec) -> None:
    rec.trumps().trick(DEAL[0], sweep=False)
    rec.place("W", "AC")  # W leads trick 2 while his KH still lies there
    assert "two_cards_on_zone" in codes(rec.state())
    state = rec.lift("W", "KH").tick().state()
    assert codes(state) == []
    assert state.deal.tricks[1].plays == ((Seat.W, Card.parse("AC")),)


def test_two_cards_reported_by_the_reader(rec: Rec) -> None:
    state = rec.reader("S", "multi").state()
    assert codes(state) == ["two_cards_on_zone"]
    assert codes(rec.reader("S", "online").state()) == []


def test_lifted_early_and_put_back(rec: Rec) -> None:
    rec.trumps().place("W", "KH").place("S", "JH").tick().lift("W", "KH")
    state = rec.state()
    assert codes(state) == ["lifted_early"]
    assert tuple(state.prompt) == (PromptCode.PUT_BACK, Seat.W)
    state = rec.place("W", "KH").state()
    assert codes(state) == [] and len(state.deal.tricks[0].plays) == 2


def test_lifted_early_clears_when_the_trick_completes(rec: Rec) -> None:
    rec.trumps().place("W", "KH").place("S", "JH").tick().lift("W", "KH")
    state = rec.place("E", "AD").place("N", "9H").tick().state()
    assert codes(state) == [] and state.deal.tricks[0].winner is Seat.W


def test_announcement_without_cards_rule_11(rec: Rec) -> None:
    """W showed ♠Q; S then touches "Matt": S cannot hold it."""
    rec.trumps().tap("W", "QS").button("announce_matt", seat="S")
    table = rec.table()
    assert log_codes(table) == ["announcement_without_cards"]
    assert table.warning_log[0].rule == 10  # Matt counts once per deal, and W showed ♠Q
    assert [s for s, _ in table.state.deal.announcements] == [Seat.W]


def test_announcement_without_cards_in_hand_scan_mode_rule_10() -> None:
    rec = Rec(hand_scan=True).trumps()
    hands = {"W": "QS AH KH 9S AC 9D", "S": "QH QD JH TS KC 9C", "E": "AS KS JS AD KD TD", "N": "TH 9H JD QC JC TC"}
    for seat in "WSEN":
        for card in hands[seat].split():
            rec.tap(seat, card)
    table = rec.button("announce_konter", seat="E").table()
    assert log_codes(table) == ["announcement_without_cards"]
    assert table.state.deal.announcements == ()


def test_queen_shown_by_one_seat_played_by_another_rule_11(rec: Rec) -> None:
    rec.trumps().tap("S", "QH").tap("S", "QD")  # S announces Konter
    rec.trick(DEAL[0]).place("W", "AC").place("S", "KC").place("E", "QH")  # E plays S's queen
    table = rec.tick().table()
    assert "queen_shown_by_other_seat" in log_codes(table)
    warning = next(w for w in table.warning_log if w.code is WarningCode.QUEEN_SHOWN_BY_OTHER_SEAT)
    assert warning.seat is Seat.E and warning.rule == 11


def test_queen_shown_twice_by_two_seats_rule_11(rec: Rec) -> None:
    table = rec.trumps().tap("S", "QH").tap("N", "QH").table()
    assert log_codes(table) == ["queen_shown_by_other_seat"]


def test_revoke_at_once_when_a_shown_card_proves_it_rules_15_18(rec: Rec) -> None:
    """S showed his red queens (trumps): on a trump lead he plays a spade — a revoke, seen at once."""
    rec.trumps().tap("S", "QH").tap("S", "QD").place("W", "KH").place("S", "TS")
    state = rec.state()
    assert [w.code.value for w in state.warnings if w.tentative] == ["revoke"]
    table = rec.tick().table()
    assert log_codes(table) == ["revoke"]
    warning = table.warning_log[0]
    assert warning.rule == 15 and warning.seat is Seat.S and warning.trick == 1
    assert table.state.phase is TablePhase.PLAY  # house rule "warn": the deal goes on


def test_revoke_proved_later_rule_18(rec: Rec) -> None:
    """N plays ♦J on a trump lead (legal if void, rules 14-15); later he plays ♥10, a trump: he held one then."""
    rec.trumps().trick([("W", "KH"), ("S", "JH"), ("E", "AD"), ("N", "JD")])
    assert log_codes(rec.table()) == []
    rec.trick([("W", "AC"), ("S", "KC"), ("E", "KD"), ("N", "TH")])
    table = rec.table()
    assert log_codes(table) == ["revoke"]
    warning = table.warning_log[0]
    assert warning.trick == 1 and warning.seat is Seat.N and warning.fault.proof == Card.parse("TH")


def test_revoke_loses_the_deal_under_the_house_rule_lose_deal() -> None:
    rec = Rec(house_rules={"revoke_penalty": "lose_deal"})
    rec.trumps().tap("S", "QH").tap("S", "QD").place("W", "KH").place("S", "TS").tick()
    table = rec.table()
    state = table.state
    assert state.phase is TablePhase.DEAL_OVER
    result = state.match.slate[0].result
    assert result.revoke_by is Seat.S and result.winner is Team.EW
    assert table.warning_log[0].fault.penalty is RevokePenalty.LOSE_DEAL


def test_illegal_play_not_in_the_scanned_hand() -> None:
    rec = Rec(hand_scan=True).trumps()
    hands = {"W": "QS AH KH 9S AC 9D", "S": "QH QD JH TS KC 9C", "E": "AS KS JS AD KD TD", "N": "TH 9H JD QC JC TC"}
    for seat in "WSEN":
        for card in hands[seat].split():
            rec.tap(seat, card)
    table = rec.place("W", "TH").tick().table()  # TH is N's card
    assert log_codes(table) == ["illegal_play"]
    assert table.state.deal.tricks == ()


def test_reader_offline_and_back(rec: Rec) -> None:
    state = rec.reader("E", "offline").state()
    assert codes(state) == ["reader_offline"] and state.zone(Seat.E).reader.value == "offline"
    assert codes(rec.reader("E", "online").state()) == []


def test_scan_errors_card_in_two_hands_and_too_many_cards_rule_8() -> None:
    rec = Rec(hand_scan=True).trumps()
    for card in ["QS", "AH", "KH", "9S", "AC", "9D"]:
        rec.tap("W", card)
    rec.tap("W", "TC")
    rec.tap("S", "AH")
    table = rec.table()
    assert log_codes(table) == ["too_many_cards", "card_in_two_hands"]


def test_trump_button_after_trumps_is_not_now_rule_9(rec: Rec) -> None:
    table = rec.trumps().button("trump_spades").table()
    assert log_codes(table) == ["not_now"]
    assert table.state.deal.trump is not None and table.state.deal.trump.value == "H"


def test_confirm_acknowledges_warnings(rec: Rec) -> None:
    rec.trumps().trick([("W", "KH"), ("S", "JH"), ("E", "AD"), ("N", "JD")])
    rec.trick([("W", "AC"), ("S", "KC"), ("E", "KD"), ("N", "TH")])
    assert codes(rec.state()) == ["revoke"]
    assert codes(rec.button("confirm").state()) == []
    assert log_codes(rec.table()) == ["revoke"]  # still in the record's history


def test_undo_withdraws_the_warnings_of_the_undone_play(rec: Rec) -> None:
    rec.trumps().tap("S", "QH").tap("S", "QD").place("W", "KH").place("S", "TS").tick()
    assert codes(rec.state()) == ["revoke"]
    table = rec.button("undo").table()
    assert log_codes(table) == [] and table.state.deal.to_play is Seat.S


def test_a_non_matador_shown_by_one_seat_and_played_by_another_rule_8(rec: Rec) -> None:
    rec.trumps().tap("S", "KC").trick(DEAL[0]).place("W", "AC").place("S", "9C").place("E", "KC").tick()
    table = rec.table()
    assert "card_in_two_hands" in log_codes(table)


def test_a_card_placed_after_multi_clears_the_readers_warning(rec: Rec) -> None:
    rec.trumps().reader("W", "multi")
    assert codes(rec.state()) == ["two_cards_on_zone"]
    state = rec.place("W", "KH").state()
    assert codes(state) == [] and state.zone(Seat.W).reader.value == "online"


def test_crosstalk_a_zone_hearing_another_zones_card_is_a_warning_never_a_play(rec: Rec) -> None:
    """Protocol: one card in one place. The reader kept W's card on W's zone and reported that S's antenna
    heard it; the table tells the owner (space the antennas, lower the gain) and plays nothing for S."""
    rec.header["version"] = 2  # the crosstalk event came with record version 2
    rec.trumps().place("W", "KH")
    rec._add(0.05, {"type": "crosstalk", "seat": "S", "card": "KH", "uid": "04D30BA1B2C3D4", "holder": "W"})
    state = rec.state()
    assert codes(state) == ["crosstalk"]
    warning = state.warnings[0]
    assert warning.seat is Seat.S and warning.fault.holder is Seat.W and warning.card == Card.parse("KH")
    assert warning.rule is None and not warning.tentative
    assert "space them further apart or lower the readers' gain" in warning.message
    assert state.zone(Seat.S).cards == () and [zc.card for zc in state.zone(Seat.W).cards] == [Card.parse("KH")]
    state = rec.tick().state()
    assert state.deal.tricks[0].plays == ((Seat.W, Card.parse("KH")),) and state.deal.to_play is Seat.S


def test_crosstalk_is_shown_once_per_zone_until_confirmed(rec: Rec) -> None:
    rec.header["version"] = 2
    rec.trumps().place("W", "KH")
    for _ in range(3):
        rec._add(0.05, {"type": "crosstalk", "seat": "S", "card": "KH", "holder": "W"})
    rec._add(0.05, {"type": "crosstalk", "seat": "N", "uid": "04DEADBEEF0042"})  # a garbled read: no holder
    table = rec.table()
    assert codes(table.state) == ["crosstalk", "crosstalk"] and log_codes(table) == ["crosstalk", "crosstalk"]
    garbled = table.state.warnings[1]
    assert garbled.seat is Seat.N and garbled.fault.holder is None and garbled.card is None
    assert garbled.device.uid == "04DEADBEEF0042"
    table = rec.button("confirm").table()
    assert codes(table.state) == []
    table = rec._add(0.05, {"type": "crosstalk", "seat": "S", "card": "KH", "holder": "W"}).table()
    assert codes(table.state) == ["crosstalk"]  # heard again after the owner saw it: shown again


def test_crosstalk_events_round_trip_through_records() -> None:
    import pytest

    from tablepi.errors import RecordError
    from tablepi.journal.record import RecordHeader, event_to_json, parse_event
    from tablepi.table import ReaderCrosstalk

    for event in (
        ReaderCrosstalk(1.5, Seat.S, Card.parse("KH"), "04D30BA1B2C3D4", Seat.W),
        ReaderCrosstalk(2.0, Seat.N, None, "04DEADBEEF0042", None),
    ):
        assert parse_event(event_to_json(event), RecordHeader(), 2) == event
    with pytest.raises(RecordError, match="a crosstalk event needs record version 2"):
        parse_event(event_to_json(event), RecordHeader(version=1), 2)


def test_a_misread_lift_is_no_show_and_takes_back_what_the_placement_did(rec: Rec) -> None:
    """The reader gave a card it had reported on W's zone to the neighbouring zone (``misread``): W did nothing."""
    table = rec.place("W", "AH").lift("W", "AH", misread=True).table()
    assert table.state.deal.trump is None and table.state.zone(Seat.W).cards == ()  # forehand named no trumps
    rec = Rec().trumps()
    table = rec.place("W", "QS").lift("W", "QS", misread=True).table()  # W's ♠Q before his first card
    assert table.state.deal.tricks == () and table.state.deal.announcements == ()
    shown = Rec().trumps().place("W", "QS").lift("W", "QS").table()  # the same gesture, a real show: Matt
    assert [seat for seat, _ in shown.state.deal.announcements] == [Seat.W]


def test_misread_lifts_round_trip_through_records() -> None:
    from tablepi.journal.record import RecordHeader, event_to_json, parse_event
    from tablepi.table import CardLifted

    event = CardLifted(3.0, Seat.W, Card.parse("QS"), "04D30BA1B2C3D4", "", misread=True)
    assert event_to_json(event)["misread"] is True
    assert parse_event(event_to_json(event), RecordHeader(), 2) == event
    assert "misread" not in event_to_json(CardLifted(3.0, Seat.W, Card.parse("QS")))
