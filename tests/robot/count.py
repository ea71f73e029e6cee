"""The robot's own rules, written from RULES.md on the cards' text alone ("QS", "TH"), with nothing of
tablepi.rules: who may play which card (rules 13-15), who wins a trick (rules 4-6 and 17: trumps, the three
matadors), the card points in it (rule 3), and whose turn it is (rules 2, 8-9, 12 and 22, anticlockwise)."""

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



ORDER = "NWSE"  # rule 2: anticlockwise, N -> W -> S -> E -> N


def after(seat: str) -> str:
    """The next seat in the direction of play (rule 2): the dealer's is forehand (rules 8-9)."""
    return ORDER[(ORDER.index(seat) + 1) % 4]


def is_trump(card: str, trump: str) -> bool:
    """Rules 4 and 6: a matador is a trump, whatever its printed suit."""
    return card in MATADORS or card[1] == trump


def legal(hand: list[str], led: str | None, trump: str) -> list[str]:
    """The cards of ``hand`` its player may play to a trick led with ``led`` (None: he leads, any card)."""
    if led is None:
        return list(hand)
    if is_trump(led, trump):  # rule 15: a trump led (a matador too) asks for a trump
        trumps = [card for card in hand if is_trump(card, trump)]
        return trumps or list(hand)
    suit = [card for card in hand if card[1] == led[1] and not is_trump(card, trump)]
    if suit:  # rule 13: follow suit or play any trump
        return [card for card in hand if card in suit or is_trump(card, trump)]
    return list(hand)  # rule 14: void in the suit led, any card


class Play:
    """One deal as the robot sees it: the hands dealt (card text), forehand (he leads trick 1, rule 12), trumps;
    whose turn it is and which cards he may play, trick after trick (the winner leads the next)."""

    def __init__(self, hands: dict[str, list[str]], forehand: str, trump: str) -> None:
        self.hands = {seat: list(cards) for seat, cards in hands.items()}
        self.trump = trump
        self.leader = forehand
        self.trick: list[tuple[str, str]] = []

    @property
    def to_play(self) -> str:
        seat = self.leader
        for _ in self.trick:
            seat = after(seat)
        return seat

    def legal(self) -> list[str]:
        led = self.trick[0][1] if self.trick else None
        return legal(self.hands[self.to_play], led, self.trump)

    def play(self, card: str) -> str | None:
        """``card`` played by the seat to play; at the trick's fourth card, its winner (who leads next)."""
        seat = self.to_play
        assert card in self.legal(), (seat, card, self.hands[seat], self.trick)
        self.hands[seat].remove(card)
        self.trick.append((seat, card))
        if len(self.trick) < 4:
            return None
        self.leader = trick_winner(self.trick, self.trump)
        self.trick = []
        return self.leader
