"""Every live button does something, and the table never refuses a button it publishes as live.

Under every combination of house rules and table modes, whole scripted matches are played; at the first moment of
each kind (phase, prompt and set of live buttons), every live button is pressed on a copy of the table. It must
change the state and raise no refusal. The screen's buttons and per-seat targets are exactly the live ones.
"""

from __future__ import annotations

import copy
import dataclasses
import itertools

import pytest

from tablepi.display.scene import Scene
from tablepi.display.view import DisplaySettings
from tablepi.display.viewmodel import build_view
from tablepi.rules import Direction, HouseRules, RevokePenalty, TieRule
from tablepi.table import Button, Table, TableConfig, TableState, Target, WarningCode
from tablepi.table.simulate import simulate_match
from tablepi.table.state import PromptCode

#: Warnings that mean "the table refused that button".
REFUSALS = frozenset({WarningCode.NOT_NOW, WarningCode.CLAIM_REFUSED, WarningCode.ANNOUNCEMENT_WITHOUT_CARDS,
                      WarningCode.ANNOUNCEMENT_TOO_LATE, WarningCode.ILLEGAL_PLAY})

COMBINATIONS = list(itertools.product(Direction, TieRule, RevokePenalty, (True, False), (False, True)))


def _plain(state: TableState) -> TableState:
    """The state without the clock."""
    return dataclasses.replace(state, time=0.0, events=0)


def _kind(state: TableState) -> tuple[object, ...]:
    return (state.phase, state.prompt.code, bool(state.warnings), state.possible.buttons)


def _check_live_buttons(table: Table, time: float) -> int:
    state = table.state
    pressed = 0
    for target in state.possible.buttons:
        trial = copy.deepcopy(table)
        before = len(trial.warning_log)
        after = trial.apply(Button(time, target.name, target.seat))
        assert _plain(after) != _plain(state), f"{target} changed nothing in {state.phase} ({state.prompt})"
        refused = [w for w in trial.warning_log[before:] if w.code in REFUSALS]
        assert not refused, f"{target} was live but refused: {refused}"
        pressed += 1
    return pressed


def _check_screen_offers_only_live(state: TableState) -> None:
    view = build_view(Scene(state, DisplaySettings()))
    shown = {Target(b.action, b.seat) for b in (*view.buttons, *view.targets()) if b.enabled}
    assert shown <= set(state.possible.buttons), shown - set(state.possible.buttons)
    # Nothing live for a seat is out of reach: its seatless button is on the panel (it asks "who?"), and while the
    # table asks, the seat's own name answers.
    per_seat = {t for t in state.possible.buttons if t.seat is not None}
    if view.seats:
        assert {Target(t.name) for t in per_seat} <= shown
        asked = state.prompt.button if state.prompt.code is PromptCode.CHOOSE_SEAT else None
        assert {t for t in per_seat if t.name is asked} <= shown


@pytest.mark.parametrize(("direction", "tie", "penalty", "claims", "hand_scan"), COMBINATIONS,
                         ids=lambda v: getattr(v, "value", str(v)))
def test_every_live_button_acts_and_none_is_refused(
    direction: Direction, tie: TieRule, penalty: RevokePenalty, claims: bool, hand_scan: bool
) -> None:
    rules = HouseRules(direction=direction, start_lines=2, tie=tie, revoke_penalty=penalty, claims=claims)
    config = TableConfig(hand_scan=hand_scan)
    seen: set[tuple[object, ...]] = set()
    phases = set()
    pressed = 0
    for seed in range(2):
        script = simulate_match(seed, rules, config=config, mistakes=True)
        table = Table(rules, script.dealer, config)
        for event in (None, *script.events):
            state = table.state if event is None else table.apply(event)
            kind = _kind(state)
            if kind in seen:
                continue
            seen.add(kind)
            phases.add(state.phase)
            _check_screen_offers_only_live(state)
            pressed += _check_live_buttons(table, state.time + 0.01)
    assert len(phases) == (5 if hand_scan else 4)  # every phase was walked
    assert pressed > 20
