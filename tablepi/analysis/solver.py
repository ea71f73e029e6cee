"""The exact perfect-information solver (pure Python): card points each team takes with best play.

A position is the four hands, the seat to lead and the cards of the trick being played. Its *value* is the number
of card points team N+S takes from here to the end of the deal when all four play best, each team maximising its
own points. The 40 points are shared out, so this is a zero-sum game and E+W's value is the rest.

The search is alpha-beta in the style of DDS, the bridge double-dummy solver:

- a **transposition table** on (cards still in play, leader) at the start of each trick, holding a lower and an
  upper bound, so a zero-window search leaves bounds a later search can use; it also keeps the best lead. With
  ``full`` it is keyed on the four hands instead, so one table serves every layout of the unseen cards that a
  single-dummy judgement searches (:mod:`tablepi.analysis.single`); that key is taken after each card slid into the
  place of a stronger card of its suit with the same points that is no longer in play, the cards between gone too
  (say the ten gone, the nine takes its place), so positions that differ only in which of such cards are gone share
  an entry;
- **merging equivalent cards**: of two cards of one hand with no card still in play between them in the suit's
  order and the same points, only one is tried (see :mod:`tablepi.analysis.tables`);
- **move ordering**: the lead the table remembers first; a follower tries to win cheaply against an opponent and
  to smear points on a partner's trick; the last player takes the trick's outcome into account;
- **quick cut-offs**: the value is always between 0 and the points still in play, which closes many windows;
  the last trick is counted, not searched;
- **MTD(f)**: the exact value is found by zero-window searches converging on it.

This module is the reference implementation of the search; ``_kernel.c`` is the same algorithm compiled, used
when it is built (:mod:`tablepi.analysis.kernel`), and tests check that both give identical answers.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from tablepi.analysis.tables import CARDS, TRUMP, Tables, fast_winner

_NEXT = (1, 2, 3, 0)
#: Steps that slide the cards of a full key into their places (enough for this deck; see ``_kernel.c``, slide_key).
SLIDE_STEPS = 3


class Search(Protocol):
    """A search for one deal in one trump suit (:class:`PySearch` or the compiled kernel)."""

    nodes: int

    def search(self, hands: Sequence[int], leader: int, trick: Sequence[int], alpha: int, beta: int) -> int: ...

    def values(self, layouts: Sequence[Sequence[int]], leader: int, trick: Sequence[int], cards: Sequence[int],
               guesses: Sequence[int]) -> list[int]: ...


def mtdf(search: Search, total: int, hands: Sequence[int], leader: int, trick: Sequence[int],
         guess: int | None = None) -> int:
    """The exact value by MTD(f): zero-window searches closing in on it; ``total`` is the most it can be."""
    lower, upper = 0, total
    g = total // 2 if guess is None else min(max(guess, 0), total)
    while lower < upper:
        beta = g if g > lower else lower + 1
        g = search.search(hands, leader, trick, beta - 1, beta)
        if g < beta:
            upper = g
        else:
            lower = g
    return g


class PySearch:
    """Search state for one deal in one trump suit: the tables and a transposition table shared by all searches.

    ``hands`` passed to the methods are masks by *position* 0-3 in playing order, position 0 being N; N+S are the
    even positions. Every search of one object must concern the same deal (the table is keyed on the cards in play,
    which only says who holds what when the deal is fixed).
    """

    def __init__(self, tables: Tables, full: bool = False) -> None:
        self.tables = tables
        self.nodes = 0
        self.full = full
        self._tt: dict[int, tuple[int, int, int]] = {}
        t = tables
        above = []
        for bit in range(CARDS):
            same = t.suit_mask[t.suit[bit]]
            above.append(same & ((1 << bit) - 1))
        self._above = tuple(above)
        self._suit_of_bit = tuple(t.suit_mask[t.suit[b]] for b in range(CARDS))
        # For a full key: cards that may take the place of the next stronger card of their suit (same points), or of
        # the card two places stronger (same points, the card between of other points).
        self._slides = sum(1 << b for b in range(1, CARDS)
                           if t.suit[b - 1] == t.suit[b] and t.points[b - 1] == t.points[b])
        self._jumps = sum(1 << b for b in range(2, CARDS) if t.suit[b - 2] == t.suit[b]
                          and t.points[b - 2] == t.points[b] != t.points[b - 1])

    def value(self, hands: Sequence[int], leader: int, trick: Sequence[int], guess: int | None = None) -> int:
        """Exact N+S points from this position (the cards of ``trick`` included), by MTD(f)."""
        total = self.tables.points_of(hands[0] | hands[1] | hands[2] | hands[3]) + sum(
            self.tables.points[b] for b in trick
        )
        return mtdf(self, total, hands, leader, trick, guess)

    def search(self, hands: Sequence[int], leader: int, trick: Sequence[int], alpha: int, beta: int) -> int:
        """Fail-soft alpha-beta: the exact value if it lies strictly inside (alpha, beta), else a bound beyond."""
        h = list(hands)
        start, play = self._make(h)
        if not trick:
            return start(leader, alpha, beta)
        t = self.tables
        sm = t.suit_mask
        tmask = 0
        tpts = 0
        lsm = self._suit_of_bit[trick[0]]
        rel = sm[TRUMP] | lsm
        win = 99
        wpos = pos = leader
        for b in trick:
            tmask |= 1 << b
            tpts += t.points[b]
            if b < win and (rel >> b) & 1:
                win, wpos = b, pos
            pos = _NEXT[pos]
        return play(len(trick), pos, alpha, beta, tmask, lsm, win, wpos, tpts)

    def values(self, layouts: Sequence[Sequence[int]], leader: int, trick: Sequence[int], cards: Sequence[int],
               guesses: Sequence[int]) -> list[int]:
        """For each layout (four hands by position, the player to move holding ``cards``) and each of ``cards``:
        the exact N+S points from the position after that card, the trick's points included; layout by layout.
        Each value starts MTD(f) from the last value of the same card (``guesses`` at first)."""
        t = self.tables
        pos = (leader + len(trick)) % 4
        guess = list(guesses)
        out: list[int] = []
        for layout in layouts:
            hands = list(layout)
            for i, card in enumerate(cards):
                if not (hands[pos] >> card) & 1:
                    raise ValueError("a card to judge is not in the hand of the player to move")
                hands[pos] ^= 1 << card
                after = [*trick, card]
                if len(after) < 4:
                    total = t.points_of(hands[0] | hands[1] | hands[2] | hands[3]) + sum(t.points[b] for b in after)
                    value = mtdf(self, total, hands, leader, after, guess[i])
                else:
                    won = (leader + fast_winner(t, after)) % 4
                    gained = sum(t.points[b] for b in after) if won % 2 == 0 else 0
                    rest = t.points_of(hands[0] | hands[1] | hands[2] | hands[3])
                    value = gained + mtdf(self, rest, hands, won, (), guess[i] - gained)
                hands[pos] ^= 1 << card
                guess[i] = value
                out.append(value)
        return out

    def _make(self, h: list[int]) -> tuple[Callable[[int, int, int], int], Callable[..., int]]:
        """The search as closures over the hot state (faster than attribute look-ups in CPython)."""
        t = self.tables
        tt = self._tt
        full = self.full
        slides, jumps = self._slides, self._jumps
        pts = t.points
        tm = t.suit_mask[TRUMP]
        suit_of_bit = self._suit_of_bit
        above = self._above
        point_masks = t.point_masks
        nxt = _NEXT
        counter = [0]
        # A key holds masks side by side, each CARDS bits wide: the four hands, then the leader.
        at1, at2, at3, at4 = CARDS, 2 * CARDS, 3 * CARDS, 4 * CARDS

        def points_of(mask: int) -> int:
            total = 0
            for p, m in point_masks:
                total += p * (mask & m).bit_count()
            return total

        def moves_of(hand: int, legal: int, present: int) -> list[int]:
            out = []
            m = legal
            while m:
                low = m & -m
                b = low.bit_length() - 1
                m ^= low
                ab = present & above[b]
                if ab:
                    nb = ab.bit_length() - 1
                    if (hand >> nb) & 1 and pts[nb] == pts[b]:
                        continue
                out.append(b)
            return out

        def start(leader: int, alpha: int, beta: int) -> int:
            rem = h[0] | h[1] | h[2] | h[3]
            if not rem:
                return 0
            lead_hand = h[leader]
            if not lead_hand & (lead_hand - 1):
                # The last trick: count it.
                counter[0] += 1
                lsm = suit_of_bit[lead_hand.bit_length() - 1]
                rel = rem & (tm | lsm)
                w = rel & -rel
                if (h[0] | h[2]) & w:
                    return points_of(rem)
                return 0
            steps: list[tuple[int, int]] = []
            if full:
                # The key after every card slid into the place of a stronger card of its suit with the same points,
                # it and the cards between gone: the same cards by suit, order and points in the same hands, so the
                # same value (_kernel.c, slide_key).
                k0, k1, k2, r = h[0], h[1], h[2], rem
                for _ in range(SLIDE_STEPS):
                    m, j = r & slides & ~(r << 1), r & jumps & ~(r << 1) & ~(r << 2)
                    if not m | j:
                        break
                    steps.append((m, j))
                    r ^= m | m >> 1 | j | j >> 2
                    k0 ^= (k0 & m) | (k0 & m) >> 1 | (k0 & j) | (k0 & j) >> 2
                    k1 ^= (k1 & m) | (k1 & m) >> 1 | (k1 & j) | (k1 & j) >> 2
                    k2 ^= (k2 & m) | (k2 & m) >> 1 | (k2 & j) | (k2 & j) >> 2
                key = k0 | k1 << at1 | k2 << at2 | (r & ~(k0 | k1 | k2)) << at3 | leader << at4
            else:
                key = rem | (leader << at1)
            entry = tt.get(key)
            if entry is None:
                lo, hi, best_lead = 0, points_of(rem), -1
            else:
                lo, hi, best_lead = entry
                if lo >= beta:
                    return lo
                if hi <= alpha:
                    return hi
                if lo == hi:
                    return lo
                for m, j in reversed(steps):  # the best lead from the key's places back to the hands'
                    if (m >> 1 >> best_lead) & 1:
                        best_lead += 1
                    elif (j >> 2 >> best_lead) & 1:
                        best_lead += 2
            if hi <= alpha:
                return hi
            if lo >= beta:
                return lo
            a = alpha if alpha > lo else lo
            b = beta if beta < hi else hi
            counter[0] += 1
            moves = moves_of(lead_hand, lead_hand, rem)
            if best_lead >= 0 and best_lead in moves:
                moves.remove(best_lead)
                moves.insert(0, best_lead)
            maximise = not leader & 1
            best = -1 if maximise else 99
            chosen = moves[0]
            aa, bb = a, b
            nxt_pos = nxt[leader]
            for card in moves:
                bm = 1 << card
                h[leader] = lead_hand ^ bm
                v = play(1, nxt_pos, aa, bb, bm, suit_of_bit[card], card, leader, pts[card])
                h[leader] = lead_hand
                if maximise:
                    if v > best:
                        best, chosen = v, card
                        if v > aa:
                            aa = v
                            if aa >= bb:
                                break
                else:
                    if v < best:
                        best, chosen = v, card
                        if v < bb:
                            bb = v
                            if aa >= bb:
                                break
            if best <= a:
                hi = best
            elif best >= b:
                lo = best
            else:
                lo = hi = best
            for m, j in steps:
                if (m >> chosen) & 1:
                    chosen -= 1
                elif (j >> chosen) & 1:
                    chosen -= 2
            tt[key] = (lo, hi, chosen)
            return best

        def play(k: int, pos: int, alpha: int, beta: int, tmask: int, lsm: int, win: int, wpos: int,
                 tpts: int) -> int:
            counter[0] += 1
            hand = h[pos]
            rel = tm | lsm
            if lsm == tm:
                legal = hand & tm or hand
            else:
                follow = hand & lsm
                legal = (follow | (hand & tm)) if follow else hand
            present = h[0] | h[1] | h[2] | h[3] | tmask
            moves = moves_of(hand, legal, present)
            partner_wins = not (wpos ^ pos) & 1
            if len(moves) > 1:
                if k == 3:
                    # The last card decides the trick: best immediate gain for the mover first.
                    def gain(b: int) -> int:
                        taken = tpts + pts[b]
                        return taken if (partner_wins and not (b < win and (rel >> b) & 1)) or (
                            b < win and (rel >> b) & 1) else -taken
                    moves.sort(key=gain, reverse=True)
                elif partner_wins:
                    moves.sort(key=lambda b: (b < win and (rel >> b) & 1, -pts[b]))
                else:
                    moves.sort(key=lambda b: (0, -b) if b < win and (rel >> b) & 1 else (1, pts[b], -b))
            maximise = not pos & 1
            best = -1 if maximise else 99
            for card in moves:
                bm = 1 << card
                h[pos] = hand ^ bm
                if card < win and (rel >> card) & 1:
                    nwin, nwpos = card, pos
                else:
                    nwin, nwpos = win, wpos
                if k == 3:
                    ns = tpts + pts[card] if not nwpos & 1 else 0
                    v = ns + start(nwpos, alpha - ns, beta - ns)
                else:
                    v = play(k + 1, nxt[pos], alpha, beta, tmask | bm, lsm, nwin, nwpos, tpts + pts[card])
                h[pos] = hand
                if maximise:
                    if v > best:
                        best = v
                        if v > alpha:
                            alpha = v
                            if alpha >= beta:
                                break
                else:
                    if v < best:
                        best = v
                        if v < beta:
                            beta = v
                            if alpha >= beta:
                                break
            return best

        def finish() -> None:
            self.nodes += counter[0]
            counter[0] = 0

        def start_counted(leader: int, alpha: int, beta: int) -> int:
            try:
                return start(leader, alpha, beta)
            finally:
                finish()

        def play_counted(*args: int) -> int:
            try:
                return play(*args)
            finally:
                finish()

        return start_counted, play_counted
