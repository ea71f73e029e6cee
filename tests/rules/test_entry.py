"""A deal entered by hand is scored by the rules core exactly as the same deal played would be."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tablepi.errors import RulesError
from tablepi.rules import Announcement, Seat, Slate, Team
from tablepi.rules.entry import DealEntry

from .test_properties import random_legal_deal


def entry_of_played(deal_result: object, forehand: Seat) -> DealEntry:
    result = deal_result
    winner = result.winner  # type: ignore[attr-defined]
    return DealEntry(
        forehand, winner,
        points=None if winner is None else result.points[winner],  # type: ignore[attr-defined]
        kapo=result.kapo,  # type: ignore[attr-defined]
        claimed_by=result.claimed_by,  # type: ignore[attr-defined]
        announcements=result.announcements,  # type: ignore[attr-defined]
    )


@settings(max_examples=300, deadline=None)
@given(st.integers(min_value=0, max_value=2**32 - 1), st.sampled_from(list(Seat)))
def test_a_played_deal_told_by_hand_scores_the_same_on_the_slate(seed: int, dealer: Seat) -> None:
    played = random_legal_deal(random.Random(seed), dealer)
    result = played.result()
    entered = entry_of_played(result, played.forehand).result()
    assert (entered.winner, entered.kapo, entered.stake, entered.trump_team) == \
        (result.winner, result.kapo, result.stake, result.trump_team)
    assert dict(entered.points) == dict(result.points)
    a, b = Slate(), Slate()
    ea, eb = a.record(result), b.record(entered)
    assert (ea.stake, dict(ea.struck), dict(ea.added)) == (eb.stake, dict(eb.struck), dict(eb.added))


# RULES.md section 6, the worked examples, entered by hand (A = NS is the trump team unless said).
@pytest.mark.parametrize(("entry", "ns", "ew"), [
    (DealEntry(Seat.N, Team.NS, 25, announcements=((Seat.S, Announcement.KONTER),)), 7, 9),
    (DealEntry(Seat.N, Team.EW, 22, announcements=((Seat.N, Announcement.MATT),)), 11, 7),
    (DealEntry(Seat.N, Team.EW, kapo=True, announcements=((Seat.E, Announcement.KONTER_A_MATT),)), 13, 5),
    (DealEntry(Seat.E, None), 9, 10),
])
def test_worked_examples_entered_by_hand(entry: DealEntry, ns: int, ew: int) -> None:
    slate = Slate()
    slate.record(entry.result())
    assert (slate.open_lines(Team.NS), slate.open_lines(Team.EW)) == (ns, ew)


@pytest.mark.parametrize(("kwargs", "rule"), [
    ({"winner": None, "kapo": True}, "rules 19-21"),
    ({"winner": None, "points": 21}, "rule 19"),
    ({"winner": Team.NS, "points": 20}, "rule 19"),
    ({"winner": Team.NS, "points": 30, "kapo": True}, "rule 20"),
    ({"winner": Team.NS, "claimed_by": Team.EW}, "rule 21"),
    ({"winner": Team.NS, "announcements": ((Seat.N, Announcement.MATT), (Seat.E, Announcement.KONTER_A_MATT))},
     "rule 10"),
])
def test_what_no_deal_can_be_is_refused_with_its_rule(kwargs: dict[str, object], rule: str) -> None:
    with pytest.raises(RulesError, match=rule):
        DealEntry(Seat.N, **kwargs)  # type: ignore[arg-type]
