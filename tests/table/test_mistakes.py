"""Honest players, with mistakes injected at random points and corrected the documented way (docs/table.md).

Scripted players (:func:`tablepi.table.simulate.simulate_match`) play a whole match; the rules core says what the
slate must be. Between two of their gestures, when nothing lies tentatively on the table, a mistake is injected and
corrected as the table asks: a phone on a zone (take it away), a played card knocked off and put back, a reader
that drops out and comes back, the wrong card laid and undone, a card laid out of turn and taken back, undo pressed
twice and both cards laid again, a claim by the wrong side or a trump button mid-play (confirm). The honest
gestures after it are shifted by the time the mistake took. The match must end on exactly the rules core's slate.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field, replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tablepi.rules import Card, HouseRules, Seat, Team
from tablepi.table import (
    Button,
    ButtonName,
    CardLifted,
    CardPlaced,
    ReaderState,
    ReaderStatus,
    Table,
    TableConfig,
    TableEvent,
    TablePhase,
    Tick,
    ZoneCardStatus,
)
from tablepi.table.game import PlayCard
from tablepi.table.simulate import PHONE_UID, Script, simulate_match
from tablepi.table.state import PromptCode

WINDOW = 1.0


@dataclass
class Run:
    """The table fed with the honest events and the injected ones, on one clock."""

    script: Script
    rng: random.Random
    table: Table = field(init=False)
    events: list[TableEvent] = field(default_factory=list)
    now: float = 0.0
    injected: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.table = Table(self.script.rules, self.script.dealer, self.script.config)

    def feed(self, event: TableEvent) -> None:
        self.events.append(event)
        self.table.apply(event)

    def at(self, delay: float) -> float:
        self.now = round(self.now + delay, 3)
        return self.now

    def place(self, seat: Seat, card: Card | None, delay: float = 0.5, uid: str = "") -> None:
        self.feed(CardPlaced(self.at(delay), seat, card, uid))

    def lift(self, seat: Seat, card: Card | None, delay: float = 0.5, uid: str = "") -> None:
        self.feed(CardLifted(self.at(delay), seat, card, uid))

    def press(self, name: ButtonName, seat: Seat | None = None, delay: float = 0.5) -> None:
        self.feed(Button(self.at(delay), name, seat))

    def wait(self, delay: float = WINDOW + 0.2) -> None:
        self.feed(Tick(self.at(delay)))

    # --- what the table knows -------------------------------------------------------------------------------------

    def lying(self) -> dict[Seat, list[tuple[Card | None, ZoneCardStatus]]]:
        return {z.seat: [(c.card, c.status) for c in z.cards] for z in self.table.state.zones}

    def settled(self) -> bool:
        state = self.table.state
        return all(c.status is not ZoneCardStatus.TENTATIVE for z in state.zones for c in z.cards)

    def still_to_play(self, seat: Seat) -> list[Card]:
        """``seat``'s cards this deal that it has not played yet (the honest script's deal says which)."""
        state = self.table.state
        assert self.script.match is not None
        deal = self.script.match.deals[state.deal.number - 1]
        played = {card for trick in state.deal.tricks for _, card in trick.plays}
        lying = {c for cards in self.lying().values() for c, _ in cards}
        return [p.card for t in deal.tricks for p in t.plays if p.seat is seat and p.card not in played | lying]


# --- the mistakes, each with its documented correction ----------------------------------------------------------------


def phone_on_a_zone(run: Run) -> bool:
    seat = run.rng.choice(list(Seat))
    run.place(seat, None, uid=PHONE_UID)
    run.lift(seat, None, 1.5, uid=PHONE_UID)  # unknown_tag clears when it is taken away
    return True


def reader_drops_out(run: Run) -> bool:
    seat = run.rng.choice(list(Seat))
    run.feed(ReaderStatus(run.at(0.3), seat, run.rng.choice([ReaderState.OFFLINE, ReaderState.FAULT])))
    run.wait(3.0)
    run.feed(ReaderStatus(run.at(0.5), seat, ReaderState.ONLINE))
    return True


def card_knocked_off_and_put_back(run: Run) -> bool:
    state = run.table.state
    if state.phase is not TablePhase.PLAY:
        return False
    candidates = [(seat, card) for seat, cards in run.lying().items() for card, status in cards
                  if status is ZoneCardStatus.PLAYED and len(cards) == 1]
    if not candidates:
        return False
    seat, card = run.rng.choice(candidates)
    run.lift(seat, card, 0.3)
    run.place(seat, card, 0.8)  # lifted_early (or a swept card put back): putting it back is the correction
    return True


def wrong_card_laid_and_undone(run: Run) -> bool:
    state = run.table.state
    seat = state.deal.to_play
    if state.phase is not TablePhase.PLAY or seat is None or run.lying()[seat]:
        return False
    later = run.still_to_play(seat)[1:]  # one of his cards, not the one he is about to play
    if not later:
        return False
    wrong = run.rng.choice(later)
    run.place(seat, wrong, 0.6)
    run.wait()
    run.press(ButtonName.UNDO)  # "a misread or a wrong card: press undo, take back the stray card"
    run.lift(seat, wrong)
    return True


def card_laid_out_of_turn(run: Run) -> bool:
    state = run.table.state
    if state.phase is not TablePhase.PLAY or state.deal.to_play is None:
        return False
    others = [s for s in Seat if s is not state.deal.to_play and not run.lying()[s] and run.still_to_play(s)]
    if not others:
        return False
    seat = run.rng.choice(others)
    run.place(seat, run.rng.choice(run.still_to_play(seat)), 0.4)
    run.wait()
    lying = run.lying()[seat]
    run.lift(seat, lying[0][0])  # out_of_turn: lift it; it clears
    return True


def undo_twice_and_lay_again(run: Run) -> bool:
    """Undo pressed twice drops the last two plays; both players lift their cards and lay them again, in turn."""
    done = run.table
    actions = []
    probe = Table.replay(run.events, run.script.rules, run.script.dealer, run.script.config)
    for _ in range(2):
        action = probe.last_action
        if not isinstance(action, PlayCard) or run.lying()[action.seat] != [(action.card, ZoneCardStatus.PLAYED)]:
            return False
        actions.append(action)
        probe.apply(Button(run.now, ButtonName.UNDO))
    if actions[0].seat is actions[1].seat:
        return False
    run.press(ButtonName.UNDO)
    run.press(ButtonName.UNDO, delay=0.3)
    assert done.state.prompt.code is PromptCode.LIFT_CARD
    for action in actions:
        run.lift(action.seat, action.card, 0.4)
    for action in reversed(actions):
        run.place(action.seat, action.card, 0.6)
        run.wait()
    return True


def claim_by_the_wrong_side(run: Run) -> bool:
    state = run.table.state
    if state.phase is not TablePhase.PLAY or state.deal.current_trick is not None:
        return False
    points = dict(state.deal.points)
    team = run.rng.choice([t for t in Team if points[t] < 21])
    run.press(ButtonName.CLAIM, team.seats[0])
    assert "claim_refused" in state_codes(run)
    run.press(ButtonName.CONFIRM)
    return True


def trump_button_mid_play(run: Run) -> bool:
    if run.table.state.phase is not TablePhase.PLAY:
        return False
    run.press(ButtonName.TRUMP_CLUBS)
    assert "not_now" in state_codes(run)
    run.press(ButtonName.CONFIRM)
    return True


def state_codes(run: Run) -> list[str]:
    return [w.code.value for w in run.table.state.warnings]


MISTAKES: list[Callable[[Run], bool]] = [
    phone_on_a_zone,
    reader_drops_out,
    card_knocked_off_and_put_back,
    wrong_card_laid_and_undone,
    card_laid_out_of_turn,
    undo_twice_and_lay_again,
    claim_by_the_wrong_side,
    trump_button_mid_play,
]


def play_with_mistakes(script: Script, seed: int, rate: float) -> Run:
    run = Run(script, random.Random(seed))
    shift = 0.0
    for event in script.events:
        if run.settled() and run.rng.random() < rate:
            before = run.now
            mistake = run.rng.choice(MISTAKES)
            if mistake(run):
                run.injected.append(mistake.__name__)
                shift += run.now - before + 0.5
        run.now = round(event.time + shift, 3)
        run.feed(replace(event, time=run.now))
    return run


def check_same_slate(run: Run) -> None:
    script = run.script
    assert script.match is not None
    state = run.table.state
    assert len(run.table.matches) == 1
    assert state.phase is TablePhase.MATCH_OVER, run.injected
    expected = [(e.result.winner, dict(e.result.points), e.stake) for e in script.match.slate.history]
    got = [(e.result.winner, dict(e.result.points), e.stake) for e in state.match.slate]
    assert got == expected, run.injected
    for team in Team:
        assert state.match.open_lines_of(team) == script.match.slate.open_lines(team)
    assert Table.replay(run.events, script.rules, script.dealer, script.config).state == state


@pytest.mark.parametrize("seed", range(6))
def test_every_mistake_corrected_gives_the_rules_cores_slate(seed: int) -> None:
    script = simulate_match(seed, HouseRules())
    run = play_with_mistakes(script, seed, rate=0.2)
    assert len(run.injected) >= 10, run.injected
    check_same_slate(run)


def test_every_kind_of_mistake_is_injected_somewhere() -> None:
    """The mistakes above are not dead code: across a few matches each one happens."""
    seen: set[str] = set()
    for seed in range(4):
        script = simulate_match(seed, HouseRules.from_mapping({"start_lines": 4}))
        seen |= set(play_with_mistakes(script, seed, rate=0.15).injected)
    assert seen == {m.__name__ for m in MISTAKES}


@settings(max_examples=12, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    penalty=st.sampled_from(["warn", "lose_deal"]),
    scan=st.booleans(),
    rate=st.sampled_from([0.05, 0.2]),
)
def test_mistakes_anywhere_in_any_house_rules(seed: int, penalty: str, scan: bool, rate: float) -> None:
    rules = HouseRules.from_mapping({"start_lines": 3, "revoke_penalty": penalty})
    script = simulate_match(seed, rules, config=TableConfig(hand_scan=scan))
    check_same_slate(play_with_mistakes(script, seed, rate))
