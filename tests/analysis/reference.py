"""Slow, obviously-correct searches on the rules core itself, to check the fast solver against.

- :func:`minimax` is exhaustive minimax: every legal card at every turn, no pruning, no table.
- :func:`alphabeta` is a plain alpha-beta with a transposition table of exact values on (cards in play, leader):
  the baseline the benchmark measures the solver against.

Both use :func:`tablepi.rules.legal_plays` and :func:`tablepi.rules.trick_winner` on :class:`Card` values and
return the points team N+S takes from the position on.
"""

from __future__ import annotations

from collections.abc import Sequence

from tablepi.analysis.tables import fast_legal, fast_winner, tables
from tablepi.rules.cards import Card, Suit
from tablepi.rules.play import legal_plays, trick_winner

Hands = list[list[Card]]  # by position 0-3 in playing order; even positions are N+S


def minimax(hands: Hands, trump: Suit, leader: int, trick: Sequence[Card] = ()) -> int:
    """N+S points from here with best play by all, searched exhaustively."""
    cards = list(trick)
    pos = (leader + len(cards)) % 4
    if len(cards) == 4:
        winner = (leader + trick_winner(cards, trump)) % 4
        taken = sum(c.points for c in cards)
        rest = minimax(hands, trump, winner, ())
        return rest + (taken if winner % 2 == 0 else 0)
    if not hands[pos]:
        return 0
    values = []
    for card in legal_plays(hands[pos], cards[0] if cards else None, trump):
        hands[pos].remove(card)
        values.append(minimax(hands, trump, leader, [*cards, card]))
        hands[pos].append(card)
    return max(values) if pos % 2 == 0 else min(values)


def minimax_line(hands: Hands, trump: Suit, leader: int, line: Sequence[Card]) -> list[int]:
    """Exhaustive minimax from a trick start, giving the value of every position along ``line`` (a played line
    from here): element ``i`` is the N+S points from the position after ``line[:i]``. One search, every position."""
    values: dict[int, int] = {}

    def search(lead: int, cards: list[Card], on_line: int) -> int:
        # on_line: how many cards of ``line`` the path has followed, or -1 when it left the line
        if len(cards) == 4:
            winner = (lead + trick_winner(cards, trump)) % 4
            taken = sum(c.points for c in cards)
            value = search(winner, [], on_line) + (taken if winner % 2 == 0 else 0)
            return value
        pos = (lead + len(cards)) % 4
        if not hands[pos]:
            value = 0
        else:
            results = []
            for card in legal_plays(hands[pos], cards[0] if cards else None, trump):
                follows = on_line >= 0 and on_line < len(line) and line[on_line] is card
                hands[pos].remove(card)
                results.append(search(lead, [*cards, card], on_line + 1 if follows else -1))
                hands[pos].append(card)
            value = max(results) if pos % 2 == 0 else min(results)
        if on_line >= 0:
            values[on_line] = value
        return value

    search(leader, [], 0)
    return [values[i] for i in range(len(values))]


class AlphaBeta:
    """Plain alpha-beta with a table of exact trick-start values; ``nodes`` counts the cards tried.

    No move ordering, no bounds in the table (only values that fell inside the window), no merging of cards: the
    baseline the solver is measured against.
    """

    def __init__(self, trump: Suit) -> None:
        self.trump = trump
        self.nodes = 0
        self._table: dict[int, int] = {}

    def value(self, hands: Hands, leader: int, trick: Sequence[Card] = ()) -> int:
        hands = [list(hand) for hand in hands]
        remaining = sum(1 << card.index for hand in hands for card in hand)
        return self._search(hands, remaining, leader, list(trick), -1, 41)

    def _search(self, hands: Hands, remaining: int, leader: int, cards: list[Card], alpha: int, beta: int) -> int:
        if len(cards) == 4:
            winner = (leader + trick_winner(cards, self.trump)) % 4
            taken = sum(c.points for c in cards) if winner % 2 == 0 else 0
            return taken + self._start(hands, remaining, winner, alpha - taken, beta - taken)
        if not cards and not hands[leader]:
            return 0
        pos = (leader + len(cards)) % 4
        maximise = pos % 2 == 0
        best = -1 if maximise else 99
        for card in legal_plays(list(hands[pos]), cards[0] if cards else None, self.trump):
            self.nodes += 1
            hands[pos].remove(card)
            cards.append(card)
            v = self._search(hands, remaining & ~(1 << card.index), leader, cards, alpha, beta)
            cards.pop()
            hands[pos].append(card)
            if maximise:
                best = max(best, v)
                alpha = max(alpha, v)
            else:
                best = min(best, v)
                beta = min(beta, v)
            if alpha >= beta:
                break
        return best

    def _start(self, hands: Hands, remaining: int, leader: int, alpha: int, beta: int) -> int:
        key = remaining | leader << 24
        known = self._table.get(key)
        if known is not None:
            return known
        value = self._search(hands, remaining, leader, [], alpha, beta)
        if alpha < value < beta:  # only a value inside the window is exact
            self._table[key] = value
        return value


class MaskMinimax:
    """Exhaustive minimax on the solver's card masks (legal cards and trick winner from
    :func:`~tablepi.analysis.tables.fast_legal` and :func:`~tablepi.analysis.tables.fast_winner`, which tests check
    against the rules core). Every legal card is tried at every turn; there is no pruning, no ordering and no merging
    of cards. Trick starts are memoised on (cards in play, leader): the same position always has the same value, so
    this is still the full minimax, evaluated once per distinct position. Small enough for every position from
    trick 3 on (16 cards) on thousands of deals."""

    def __init__(self, trump: Suit) -> None:
        self.tables = tables(trump)
        self.nodes = 0
        self._memo: dict[int, int] = {}

    def value(self, hands: Sequence[int], leader: int, trick: Sequence[int] = ()) -> int:
        """N+S points from the position: ``hands`` are masks by position (N+S even), ``trick`` the bits played to
        the trick in progress from ``leader``; the trick's cards count."""
        h = list(hands)
        return self._play(h, leader, (leader + len(trick)) % 4, list(trick))

    def _start(self, h: list[int], leader: int) -> int:
        rem = h[0] | h[1] | h[2] | h[3]
        if not rem:
            return 0
        key = rem | leader << 24
        known = self._memo.get(key)
        if known is None:
            known = self._memo[key] = self._play(h, leader, leader, [])
        return known

    def _play(self, h: list[int], leader: int, pos: int, bits: list[int]) -> int:
        """Every legal card of each player in turn (a follower's legal cards depend only on the card led)."""
        t = self.tables
        if len(bits) == 4:
            winner = (leader + fast_winner(t, bits)) % 4
            taken = t.points[bits[0]] + t.points[bits[1]] + t.points[bits[2]] + t.points[bits[3]]
            return (taken if winner % 2 == 0 else 0) + self._start(h, winner)
        hand = h[pos]
        legal = fast_legal(t, hand, bits[0] if bits else None)
        maximise = pos % 2 == 0
        best = -1 if maximise else 99
        nxt = (pos + 1) % 4
        while legal:
            low = legal & -legal
            legal ^= low
            self.nodes += 1
            h[pos] = hand ^ low
            bits.append(low.bit_length() - 1)
            v = self._play(h, leader, nxt, bits)
            bits.pop()
            if (v > best) if maximise else (v < best):
                best = v
        h[pos] = hand
        return best


class PlainSearch:
    """The benchmark's baseline: plain alpha-beta on the solver's card masks, with a table of exact values on
    (cards in play, leader) at trick starts, each searched with the full window. No move ordering, no bounds, no
    merging of equivalent cards, no zero-window search: what a first attempt looks like."""

    def __init__(self, trump: Suit) -> None:
        self.tables = tables(trump)
        self.nodes = 0
        self._table: dict[int, int] = {}

    def value(self, hands: Sequence[int], leader: int) -> int:
        """N+S points from a trick start (hands are masks by position, N+S the even ones)."""
        return self._start(list(hands), leader)

    def _start(self, h: list[int], leader: int) -> int:
        rem = h[0] | h[1] | h[2] | h[3]
        if not rem:
            return 0
        key = rem | leader << 24
        known = self._table.get(key)
        if known is None:
            known = self._table[key] = self._play(h, 0, leader, leader, [], -1, 41)
        return known

    def _play(self, h: list[int], k: int, leader: int, pos: int, bits: list[int], alpha: int, beta: int) -> int:
        t = self.tables
        legal = fast_legal(t, h[pos], bits[0] if bits else None)
        maximise = pos % 2 == 0
        best = -1 if maximise else 99
        hand = h[pos]
        while legal:
            low = legal & -legal
            legal ^= low
            bit = low.bit_length() - 1
            self.nodes += 1
            h[pos] = hand ^ low
            bits.append(bit)
            if k == 3:
                winner = (leader + fast_winner(t, bits)) % 4
                taken = sum(t.points[b] for b in bits) if winner % 2 == 0 else 0
                v = taken + self._start(h, winner)
            else:
                v = self._play(h, k + 1, leader, (pos + 1) % 4, bits, alpha, beta)
            bits.pop()
            h[pos] = hand
            if maximise:
                best = max(best, v)
                alpha = max(alpha, v)
            else:
                best = min(best, v)
                beta = min(beta, v)
            if alpha >= beta:
                break
        return best
