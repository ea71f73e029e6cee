"""Cards, suits, seats and house rules as text: parse, print, reject with the input quoted."""

from __future__ import annotations

import pytest

from tablepi.errors import ConfigError, ParseError, TablepiError
from tablepi.rules import DECK, Card, Direction, HouseRules, RevokePenalty, Seat, Suit, Team, TieRule


@pytest.mark.parametrize("text", ["QS", "qs", "Q♠", "♠Q", "q♠", " QS ", "Q♤"])
def test_spellings_of_the_spade_queen(text: str) -> None:
    assert Card.parse(text) == Card.parse("QS")


@pytest.mark.parametrize("text", ["TH", "10H", "10h", "♥10", "♥T", "10♥"])
def test_spellings_of_ten(text: str) -> None:
    card = Card.parse(text)
    assert str(card) == "TH" and card.display == "♥10"


@pytest.mark.parametrize("text", ["", "Q", "QX", "SQ", "1H", "QSS", "8S", "11H", "Q S", "♠", "KK"])
def test_rejects_anything_else_quoting_input(text: str) -> None:
    with pytest.raises(ParseError) as info:
        Card.parse(text)
    assert repr(text) in str(info.value)
    assert isinstance(info.value, ValueError) and isinstance(info.value, TablepiError)


def test_canonical_text_and_repr() -> None:
    assert " ".join(str(c) for c in DECK[:6]) == "AS KS QS JS TS 9S"
    assert repr(Card.parse("9h")) == "Card.parse('9H')"
    assert [s.symbol for s in Suit] == ["♠", "♥", "♦", "♣"]


def test_cards_are_hashable_values() -> None:
    assert len({Card.parse("QS"), Card.parse("♠Q"), Card.parse("qs")}) == 1
    assert Card.parse("QS") != "QS"


def test_seat_and_team_parsing() -> None:
    assert Seat.parse("w") is Seat.W
    assert Team.parse("N+S") is Team.NS and Team.parse("we") is Team.EW
    with pytest.raises(ParseError, match="'X'"):
        Seat.parse("X")


def test_house_rules_round_trip_and_defaults() -> None:
    rules = HouseRules()
    assert (rules.direction, rules.start_lines, rules.tie, rules.revoke_penalty, rules.claims) == (
        Direction.ANTICLOCKWISE,
        9,
        TieRule.STANDARD,
        RevokePenalty.WARN,
        True,
    )
    custom = HouseRules.from_mapping(
        {"direction": "clockwise", "start_lines": 12, "tie": "carry", "revoke_penalty": "lose_deal", "claims": False}
    )
    assert HouseRules.from_mapping(custom.to_mapping()) == custom


@pytest.mark.parametrize(
    ("mapping", "message"),
    [
        ({"colour": "red"}, "unknown setting 'colour'"),
        ({"direction": "sideways"}, "house_rules.direction: 'sideways'"),
        ({"start_lines": 0}, "house_rules.start_lines: 0 is outside"),
        ({"start_lines": "9"}, "house_rules.start_lines: expected a whole number"),
        ({"start_lines": True}, "house_rules.start_lines: expected a whole number"),
        ({"claims": "yes"}, "house_rules.claims: expected true or false"),
        ({"revoke_penalty": "death"}, "'warn', 'lose_deal'"),
    ],
)
def test_house_rules_errors_name_the_key(mapping: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigError, match=message.replace("(", r"\(")):
        HouseRules.from_mapping(mapping)


def test_house_rules_are_frozen() -> None:
    with pytest.raises(AttributeError):
        HouseRules().start_lines = 3  # type: ignore[misc]


def test_one_object_per_card_whatever_the_way_it_is_made() -> None:
    import copy
    import dataclasses
    import pickle

    from tablepi.rules import Rank

    queen = Card(Rank.QUEEN, Suit.SPADES)
    assert queen is Card.parse("QS") is Card.parse("♠q") is DECK[2]
    assert copy.copy(queen) is queen and copy.deepcopy(queen) is queen
    assert pickle.loads(pickle.dumps(queen)) is queen
    assert dataclasses.replace(queen, rank=Rank.KING) is Card.parse("KS")
    assert queen == Card.parse("QS") and queen != Card.parse("QH") and hash(queen) == queen.index == 2
    with pytest.raises(ParseError, match="not a card"):
        Card("Q", "S")  # type: ignore[arg-type]
    assert Card(Rank.QUEEN, Suit.SPADES) is queen  # a bad attempt left nothing behind
