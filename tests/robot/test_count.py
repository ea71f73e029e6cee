"""The robot's own count checked on RULES.md's cases (fast: no window)."""

from __future__ import annotations

from .count import Play, after, legal, points, trick_winner, trump_order


def test_the_count_itself() -> None:
    """RULES.md's own cases: ♣Q is no matador under clubs; ♠Q led under hearts is a trump lead."""
    assert trump_order("C") == ["AC", "QS", "QH", "QD", "KC", "QC", "JC", "TC", "9C"]
    assert trump_order("H") == ["AH", "QS", "QH", "QD", "KH", "JH", "TH", "9H"]
    assert trick_winner([("N", "AS"), ("W", "QS"), ("S", "KS"), ("E", "9S")], "H") == "W"  # Matt trumps ♠A
    assert trick_winner([("N", "QS"), ("W", "AH"), ("S", "AS"), ("E", "9H")], "H") == "W"
    assert trick_winner([("N", "KC"), ("W", "QC"), ("S", "AC"), ("E", "9D")], "S") == "S"
    assert trick_winner([("N", "KC"), ("W", "QC"), ("S", "9S"), ("E", "AD")], "S") == "S"
    assert points(["AS", "KH", "QD", "JC", "TS", "9H"]) == 10


def test_the_legal_cards_themselves() -> None:
    """RULES.md 13-15 and 6: follow the plain suit or trump; a matador led asks for a trump; a matador is no card of
    its printed suit; void, any card."""
    hand = ["AS", "QS", "KH", "9C"]
    assert legal(hand, None, "H") == hand
    assert legal(hand, "KS", "H") == ["AS", "QS", "KH"]  # ♠ followed with ♠A, or trumped (♠Q is a trump, ♥K too)
    assert legal(hand, "QD", "C") == ["QS", "9C"]  # a matador led: a trump
    assert legal(["AS", "KS", "9C"], "QS", "H") == ["AS", "KS", "9C"]  # ♠Q led under ♥ is a trump lead: no trump
    assert legal(["QS", "9C"], "AS", "H") == ["QS", "9C"]  # ♠Q is no spade: void in ♠, any card
    assert legal(["KD", "9C"], "AS", "H") == ["KD", "9C"]
    assert [after(s) for s in "NWSE"] == ["W", "S", "E", "N"]
    play = Play({"N": ["AS"], "W": ["KS"], "S": ["QS"], "E": ["9S"]}, "N", "H")
    assert [play.to_play, play.play("AS"), play.to_play] == ["N", None, "W"]
    for card in ("KS", "QS"):
        play.play(card)
    assert play.play("9S") == "S"  # Matt takes it
