"""The robot's own count checked on RULES.md's cases (fast: no window)."""

from __future__ import annotations

from .count import points, trick_winner, trump_order


def test_the_count_itself() -> None:
    """RULES.md's own cases: ♣Q is no matador under clubs; ♠Q led under hearts is a trump lead."""
    assert trump_order("C") == ["AC", "QS", "QH", "QD", "KC", "QC", "JC", "TC", "9C"]
    assert trump_order("H") == ["AH", "QS", "QH", "QD", "KH", "JH", "TH", "9H"]
    assert trick_winner([("N", "AS"), ("W", "QS"), ("S", "KS"), ("E", "9S")], "H") == "W"  # Matt trumps ♠A
    assert trick_winner([("N", "QS"), ("W", "AH"), ("S", "AS"), ("E", "9H")], "H") == "W"
    assert trick_winner([("N", "KC"), ("W", "QC"), ("S", "AC"), ("E", "9D")], "S") == "S"
    assert trick_winner([("N", "KC"), ("W", "QC"), ("S", "9S"), ("E", "AD")], "S") == "S"
    assert points(["AS", "KH", "QD", "JC", "TS", "9H"]) == 10
