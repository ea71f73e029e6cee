"""Tap to show, lay to play: the tap window decided from event times only, so replays are exact."""

from __future__ import annotations

import dataclasses

from tablepi.rules import Card, Seat
from tablepi.table import CardLifted, CardPlaced, Table, TableConfig, Tick, ZoneCardStatus

from .conftest import Rec, codes


def test_a_card_lifted_inside_the_window_is_a_show(rec: Rec) -> None:
    state = rec.trumps().place("W", "KH").lift("W", "KH", dt=0.99).state()
    assert state.deal.tricks == ()
    assert Card.parse("KH") in dict(state.deal.shown)[Seat.W]  # a show: now known to be in W's hand


def test_a_card_lifted_at_the_window_was_played(rec: Rec) -> None:
    state = rec.trumps().place("W", "KH").lift("W", "KH", dt=1.0).state()
    assert state.deal.tricks[0].plays == ((Seat.W, Card.parse("KH")),)
    assert codes(state) == ["lifted_early"]


def test_the_window_is_configurable() -> None:
    rec = Rec(tap_window=2.0)
    state = rec.trumps().place("W", "KH").lift("W", "KH", dt=1.5).state()
    assert state.deal.tricks == ()


def test_a_placed_card_is_tentative_until_the_window_passes(rec: Rec) -> None:
    rec.trumps().place("W", "KH")
    assert rec.state().zone(Seat.W).cards[0].status is ZoneCardStatus.TENTATIVE
    assert rec.tick(0.5).state().zone(Seat.W).cards[0].status is ZoneCardStatus.TENTATIVE
    state = rec.tick(0.5).state()
    assert state.zone(Seat.W).cards[0].status is ZoneCardStatus.PLAYED
    assert state.deal.to_play is Seat.S


def test_the_next_seats_card_settles_a_tentative_card_at_once(rec: Rec) -> None:
    state = rec.trumps().place("W", "KH").place("S", "JH", dt=0.2).state()
    assert state.deal.tricks[0].plays == ((Seat.W, Card.parse("KH")),)
    assert state.zone(Seat.S).cards[0].status is ZoneCardStatus.TENTATIVE


def test_a_card_of_another_seat_does_not_settle_it(rec: Rec) -> None:
    """E taps while W's card is fresh: W's card stays tentative (E may be announcing)."""
    state = rec.trumps().place("W", "KH").place("E", "QS", dt=0.1).state()
    assert state.zone(Seat.W).cards[0].status is ZoneCardStatus.TENTATIVE


def test_sweeping_settles_the_fourth_card(rec: Rec) -> None:
    rec.trumps().place("W", "KH").place("S", "JH").place("E", "AD").place("N", "9H")
    state = rec.lift("W", "KH", dt=0.2).state()  # swept before N's window ran out
    assert state.deal.tricks[0].winner is Seat.W
    assert codes(state) == []


def test_tick_changes_nothing_without_a_tentative_card() -> None:
    table = Table()
    assert not table.would_change(Tick(5.0))
    table.apply(CardPlaced(0.0, Seat.W, Card.parse("AH")))
    table.apply(CardLifted(0.2, Seat.W, Card.parse("AH")))
    table.apply(CardPlaced(1.0, Seat.W, Card.parse("KH")))
    assert not table.would_change(Tick(1.5))
    assert table.would_change(Tick(2.0))


def test_a_clock_stepping_back_counts_as_standing_still() -> None:
    table = Table()
    table.apply(CardPlaced(10.0, Seat.W, Card.parse("AH")))
    state = table.apply(CardLifted(3.0, Seat.W, Card.parse("AH")))
    assert state.time == 10.0 and state.deal.trump is not None


def test_replay_is_exact_tap_and_lay_included() -> None:
    rec = Rec()
    rec.trumps().place("W", "KH").lift("W", "KH", dt=0.4).place("W", "9S").tick(0.7).place("S", "TS", dt=0.1)
    first, second = rec.table(), rec.table()
    assert first.state == second.state
    assert first.state.deal.tricks[0].plays == ((Seat.W, Card.parse("9S")),)


def test_state_is_immutable(rec: Rec) -> None:
    state = rec.trumps().state()
    try:
        state.deal.trump = None  # type: ignore[misc]
    except dataclasses.FrozenInstanceError:
        pass
    else:  # pragma: no cover
        raise AssertionError("TableState must be frozen")


def test_config_rejects_a_silly_window() -> None:
    import pytest

    from tablepi.errors import ConfigError

    with pytest.raises(ConfigError, match="tap_window"):
        TableConfig(tap_window=0)
