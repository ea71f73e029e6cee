"""What the table publishes so that the screen asks no rule of its own (STYLE.md 16): which cards a seat entering
one by hand may still hold, and whether a match is starting (its first dealer still to be chosen).

Each is checked against what the screen used to work out for itself, at every state of played matches (a reader
dying mid-match, so cards are entered by hand; mistakes; hand scans), so moving the question into the table
changed no answer."""

from __future__ import annotations

import pytest

from tablepi.rules import Card, Seat
from tablepi.rules.cards import DECK
from tablepi.rules.house import HouseRules
from tablepi.table import Button, ButtonName, CardLifted, CardPlaced, Table
from tablepi.table.events import CardEntered, DealerChosen
from tablepi.table.simulate import simulate_match
from tablepi.table.state import TableConfig, TablePhase, TableState

from .test_by_hand import kill_reader


def screen_possible_cards(state: TableState, seat: Seat) -> tuple[Card, ...]:
    """The screen's own answer before the table published it (app/console.py ``possible_cards``)."""
    played = {card for trick in state.deal.tricks for _, card in trick.plays}
    shown = dict(state.deal.shown)
    elsewhere = {card for who, cards in shown.items() if who is not seat for card in cards}
    elsewhere |= {zc.card for zone in state.zones if zone.seat is not seat for zc in zone.cards if zc.card}
    own = [c for c in shown.get(seat, ()) if c not in played]
    mine_known = len(own) + sum(1 for t in state.deal.tricks if t.card_of(seat) is not None)
    if own and mine_known >= 6:
        return tuple(c for c in DECK if c in own)
    return tuple(c for c in DECK if c not in played and c not in elsewhere)


def screen_match_starts(state: TableState) -> bool:
    """The screen's own answer before the table published it (app/console.py ``match_starts``)."""
    deal = state.deal
    return state.phase is TablePhase.TRUMPS and not state.match.slate and not deal.tricks and deal.trump is None


def check(state: TableState) -> None:
    assert state.possible.choose_dealer == screen_match_starts(state)
    for seat in Seat:
        if state.phase is TablePhase.PLAY and seat in state.possible.by_hand:
            assert state.possible.cards_for(seat) == screen_possible_cards(state, seat), (seat, state.events)
        else:
            assert state.possible.cards_for(seat) == ()


@pytest.mark.parametrize("seed", [3, 11, 19])
@pytest.mark.parametrize(("scan", "mistakes"), [(False, False), (True, False), (False, True)])
def test_the_published_answers_are_the_screens_at_every_state(seed: int, scan: bool, mistakes: bool) -> None:
    script = simulate_match(seed, config=TableConfig(hand_scan=scan), mistakes=mistakes, claims=False)
    # A reader dying mid-match (its cards then entered by hand); the mistakes' stray tags are no cards to enter.
    events = script.events if mistakes else kill_reader(script.events, script, Seat.E)
    assert mistakes or any(isinstance(e, CardEntered) for e in events)
    table = Table(script.rules, script.dealer, script.config)
    check(table.state)
    starting = int(table.state.possible.choose_dealer)
    for event in events:
        state = table.apply(event)
        check(state)
        starting += state.possible.choose_dealer
    assert starting  # the match's start was seen


def test_a_card_shown_or_lying_elsewhere_is_not_offered_and_a_hand_known_whole_is_all_that_is() -> None:
    rules = HouseRules()
    table = Table(rules, Seat.N, TableConfig())
    fh = table.state.prompt.seat
    assert fh is not None
    second = rules.direction.next(fh)
    third = rules.direction.next(second)

    def c(text: str) -> Card:
        return Card.parse(text)

    table.apply(CardPlaced(1.0, fh, c("AH")))
    state = table.apply(CardLifted(1.2, fh, c("AH")))  # forehand names hearts
    assert state.phase is TablePhase.PLAY and state.deal.to_play is fh
    assert state.possible.cards_for(fh) == DECK  # the AH he showed is his own: still possible for him
    state = table.apply(CardPlaced(2.0, fh, c("AH")))  # laid: tentative; the next seat may enter his card
    assert state.possible.by_hand == (second,)
    assert c("AH") not in state.possible.cards_for(second)  # it lies on forehand's zone
    state = table.apply(Button(2.1, ButtonName.ANNOUNCE_MATT, second))
    state = table.apply(CardEntered(2.2, second, c("KH")))
    assert state.possible.by_hand == (third,)
    assert c("KH") not in state.possible.cards_for(third)  # played
    assert c("QS") in state.possible.cards_for(third)  # the second seat only said Matt: a claim is no evidence
    hand = [c(t) for t in ("9H", "TS", "JS", "KS", "AS", "9S")]
    for i, card in enumerate(hand):  # the third seat taps his whole hand: the table knows it
        table.apply(CardPlaced(3.0 + i, third, card))
        state = table.apply(CardLifted(3.2 + i, third, card))
    assert state.possible.cards_for(third) == tuple(card for card in DECK if card in hand)


def test_the_first_dealer_may_be_chosen_only_while_the_table_says_so() -> None:
    table = Table(HouseRules(), Seat.N, TableConfig())
    state = table.apply(DealerChosen(1.0, Seat.W))
    assert state.deal.dealer is Seat.W and state.possible.choose_dealer
    state = table.apply(Button(2.0, ButtonName.TRUMP_SPADES))
    assert not state.possible.choose_dealer
    state = table.apply(DealerChosen(3.0, Seat.E))
    assert state.deal.dealer is Seat.W and "hand_refused" in state.warning_codes()  # refused: trumps are named
