"""The robot's own count of a trick, written from RULES.md 3-6 and 17 on the cards' text alone ("QS", "TH"), with
nothing of tablepi.rules: who wins a trick (trumps, the three matadors) and the card points in it."""

from __future__ import annotations

POINTS = {"A": 4, "K": 3, "Q": 2, "J": 1, "T": 0, "9": 0}  # rule 3
MATADORS = ("QS", "QH", "QD")  # rule 4: always trumps, in this order under the trump ace (rule 5)
PLAIN = "AKQJT9"  # rule 7, highest first


def trump_order(trump: str) -> list[str]:
    """Rule 5, highest first: the trump ace, the three matadors, then the rest of the trump suit."""
    rest = [f"{rank}{trump}" for rank in "KQJT9" if f"{rank}{trump}" not in MATADORS]
    return [f"A{trump}", *MATADORS, *rest]


def trick_winner(plays: list[tuple[str, str]], trump: str) -> str:
    """Rule 17 (with rule 6: a matador is a trump, never its printed suit): ``plays`` is (seat, card) in playing
    order, the first led; the winning seat."""
    order = trump_order(trump)
    trumps = [(order.index(card), seat) for seat, card in plays if card in order]
    if trumps:
        return min(trumps)[1]
    led = plays[0][1][1]
    followed = [(PLAIN.index(card[0]), seat) for seat, card in plays if card[1] == led]
    return min(followed)[1]


def points(cards: list[str]) -> int:
    return sum(POINTS[card[0]] for card in cards)

