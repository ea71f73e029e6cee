"""The worked examples of RULES.md section 6, verbatim."""

from __future__ import annotations

import pytest

from tablepi.rules import Card, Slate, Suit, Team, legal_plays, parse_cards, trick_winner

from .helpers import result_of


@pytest.mark.parametrize(
    ("points_a", "trump_team", "announced", "stake", "open_a", "open_b"),
    [
        (25, "NS", [("N", "konter")], 2, 7, 9),  # A wins 25-15, Konter
        (18, "NS", [("E", "matt")], 2, 11, 7),  # A loses 18-22, Matt
        (0, "NS", [("E", "konter_a_matt")], 4, 13, 5),  # A takes no trick: B wins, Kapo
        (20, "EW", [], None, 9, 10),  # B is trump team, 20-20
    ],
)
def test_slate_examples(
    points_a: int, trump_team: str, announced: list[tuple[str, str]], stake: int | None, open_a: int, open_b: int
) -> None:
    # Team A is NS, team B is EW.
    slate = Slate()
    result = result_of(points_a, trump_team=trump_team, announced=announced)
    entry = slate.record(result)
    if stake is not None:
        assert entry.stake == stake
    assert (slate.open_lines(Team.NS), slate.open_lines(Team.EW)) == (open_a, open_b)


@pytest.mark.parametrize(
    ("trump", "led", "hand", "legal"),
    [
        ("H", "KS", "AS KS QH TD 9C JC", "AS KS QH"),
        ("D", "KD", "AD KC QD 9S TD JC", "AD QD TD"),
        ("S", "JD", "9H AC KC TC TH JC", "9H AC KC TC TH JC"),
    ],
)
def test_legal_card_examples(trump: str, led: str, hand: str, legal: str) -> None:
    assert set(legal_plays(parse_cards(hand), Card.parse(led), Suit.parse(trump))) == set(parse_cards(legal))


@pytest.mark.parametrize(
    ("trump", "cards", "winner"),
    [("C", "TH KH 9C AH", "9C"), ("D", "QD KD QH JD", "QH")],
)
def test_trick_winner_examples(trump: str, cards: str, winner: str) -> None:
    played = parse_cards(cards)
    assert played[trick_winner(played, Suit.parse(trump))] == Card.parse(winner)
