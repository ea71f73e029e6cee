"""Whatever happens on the table, the referee never crashes, and replay gives the same state."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tablepi.rules import DECK, HouseRules, Seat
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
    Tick,
)

seats = st.sampled_from(list(Seat))
cards = st.sampled_from([*DECK[:8], None])  # few cards: collisions, replays and re-plays happen often


@st.composite
def events(draw: st.DrawFn) -> list[TableEvent]:
    out: list[TableEvent] = []
    t = 0.0
    for _ in range(draw(st.integers(1, 80))):
        t += draw(st.sampled_from([0.0, 0.2, 0.6, 1.0, 2.0]))
        kind = draw(st.integers(0, 9))
        if kind <= 3:
            out.append(CardPlaced(t, draw(seats), draw(cards), "04AABBCC" if draw(st.booleans()) else ""))
        elif kind <= 6:
            out.append(CardLifted(t, draw(seats), draw(cards), "04AABBCC" if draw(st.booleans()) else ""))
        elif kind == 7:
            out.append(Button(t, draw(st.sampled_from(list(ButtonName))), draw(st.none() | seats)))
        elif kind == 8:
            out.append(ReaderStatus(t, draw(seats), draw(st.sampled_from(list(ReaderState)))))
        else:
            out.append(Tick(t))
    return out


@settings(max_examples=150, deadline=None)
@given(events(), st.booleans(), st.sampled_from(["warn", "lose_deal"]))
def test_any_gestures_never_crash_and_replay_is_exact(evs: list[TableEvent], scan: bool, penalty: str) -> None:
    rules = HouseRules.from_mapping({"revoke_penalty": penalty, "start_lines": 2})
    config = TableConfig(hand_scan=scan)
    table = Table(rules, Seat.N, config)
    for event in evs:
        state = table.apply(event)
        assert state.prompt.code
    again = Table.replay(evs, rules, Seat.N, config)
    assert again.state == table.state


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 50), st.lists(st.integers(0, 700), max_size=12), st.booleans())
def test_undo_and_confirm_anywhere_in_a_real_match_never_crash(seed: int, where: list[int], confirm: bool) -> None:
    from tablepi.table.simulate import simulate_match

    script = simulate_match(seed % 5, mistakes=True)
    evs = list(script.events)
    name = ButtonName.CONFIRM if confirm else ButtonName.UNDO
    for index in sorted(where, reverse=True):
        if index < len(evs):
            evs.insert(index, Button(evs[index].time, name))
    table = Table.replay(evs, script.rules, script.dealer, script.config)
    assert table.state.prompt.code
    assert Table.replay(evs, script.rules, script.dealer, script.config).state == table.state
