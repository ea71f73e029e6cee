"""Single-dummy judgement: each card judged on what its player could know, in lines and then points.

A player choosing a card sees his own hand, every card played so far, the cards shown at the table (a tap, the trump
card, the queens shown at an announcement — a touch announcement is a claim, not knowledge), and the voids the play
proves (RULES.md 13-15: a plain card of another suit on a plain lead proves the led suit void; a non-trump on a trump
lead proves no trump was held). The hand sizes follow from the cards played. Every way the unseen cards can lie
that agrees with all of it is a *layout*; each is taken as equally likely.

For every legal card the judgement gives, over the layouts, the team's expected **net lines** (lines it strikes and
lines added to the other team, minus lines struck by the other team and lines added to itself: RULES.md 24-27, from
the stake as announced, the trump team and the tie rule in force) and expected **points**, with double-dummy play
after the card (both sides maximising net lines, then points: the game is zero-sum); and the chance that the team
wins, ties, takes Kapo or concedes it. The best cards have the highest expected lines, then points. Exact (every
layout) wherever there are at most 20,000 layouts, at any trick, else a fixed number of layouts drawn uniformly at
random (reproducibly), with the standard error of the expected lines (see :data:`EXACT_LAYOUTS`, :data:`SAMPLES`).

Double-dummy values in lines come from the points search: a team wins (or ties) with best play exactly when best
play gives it 21 (or 20) points, and it can take Kapo only when best play gives it all 40, so a Kapo search is run
only then. The net lines of the result, then the points, are then the lexicographic best-play value (the lines of a
result only grow with the points, except for Kapo, which needs all 40). Tests check this against an exhaustive
minimax on (lines, points).

The layouts of one position are searched together by one search whose transposition table is keyed on the four hands
(:mod:`tablepi.analysis.solver`), so a position two layouts reach is searched once, and each layout's value of a card
starts from that card's value in the layout before. A position with many layouts is shared among threads, one a core:
each thread searches runs of neighbouring layouts with a table of its own, without the interpreter lock.
"""

from __future__ import annotations

import math
import queue
import random
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from tablepi.analysis.kernel import new_search, search_threads, shared_pool
from tablepi.analysis.solve import TOTAL_POINTS, _unit
from tablepi.analysis.solver import Search
from tablepi.analysis.tables import Tables, tables
from tablepi.rules.cards import DECK, Card, Suit
from tablepi.rules.deal import TRICKS_PER_DEAL, WINNING_POINTS, Play
from tablepi.rules.house import TieRule
from tablepi.rules.play import legal_plays, trick_winner
from tablepi.rules.seats import Direction, Seat, Team
from tablepi.rules.trumps import effective_suit

#: Positions with at most this many layouts are judged on all of them, at any trick (from trick 4 there are never more
#: than 1,680; at trick 3 up to 34,650, at trick 2 up to 756,756, at trick 1 up to 17,153,136); others on a sample of
#: :data:`SAMPLES` layouts.
EXACT_LAYOUTS = 20_000
#: Layouts drawn for a sampled judgement, by trick.
SAMPLES = {1: 12, 2: 48, 3: 160}
#: Layouts one search takes at a time when a position's layouts are shared among threads: at most CHUNK, so that a
#: search's table keeps the positions of neighbouring layouts (the enumeration changes one hand at a time), and about
#: a quarter of a thread's share, at least MIN_CHUNK, so that the threads finish together. A position with fewer than
#: two parts is searched in one thread. (The worst trick-2 position of the benchmark, 16,632 layouts on 2 threads: 3.9 s
#: with parts of 1,024, 4.2 s with 256, 4.6 s with two halves.)
CHUNK = 1024
MIN_CHUNK = 128


@dataclass(frozen=True, slots=True)
class Stakes:
    """What a deal's result is worth on the slate, in net lines for one team (RULES.md 24-27).

    ``announced``: the Matt and Konter parts announced (0-2); ``carried``: lines carried in from earlier ties under
    ``tie = "carry"``. A tie under ``carry`` counts 0 now.
    """

    trump_team: Team
    announced: int = 0
    tie: TieRule = TieRule.STANDARD
    carried: int = 0

    def tie_lines(self) -> int:
        """Lines added to the trump team by a 20-20 tie (rule 27 and its house rules)."""
        if self.tie is TieRule.STANDARD:
            return 1 + self.announced
        return 1 if self.tie is TieRule.PLUS_ONE else 0

    def lines(self, team: Team, points: int, kapo: bool) -> int:
        """Net lines of ``team`` when it ends the deal with ``points``; ``kapo``: the winner took all six tricks."""
        if points * 2 == TOTAL_POINTS:
            return -self.tie_lines() if team is self.trump_team else self.tie_lines()
        stake = 1 + self.announced + self.carried + (1 if kapo else 0)
        if points >= WINNING_POINTS:  # it strikes the stake; a losing trump team has the stake added
            return stake if team is self.trump_team else 2 * stake
        return -2 * stake if team is self.trump_team else -stake


@dataclass(frozen=True, slots=True)
class CardValue:
    """One legal card, over the layouts: expected net lines and points of the player's team, and chances."""

    lines: float
    points: float
    win: float
    tie: float
    kapo_for: float
    kapo_against: float
    wins: int  # layouts in which the team wins the deal after this card

    def to_json(self) -> dict[str, float]:
        return {"lines": round(self.lines, 4), "points": round(self.points, 4), "win": round(self.win, 4),
                "tie": round(self.tie, 4), "kapo_for": round(self.kapo_for, 4),
                "kapo_against": round(self.kapo_against, 4)}


@dataclass(frozen=True, slots=True)
class SingleDummy:
    """The judgement of one card played on what its player could know.

    ``stderr`` (sampled only): the largest standard error of a card's expected lines. ``cost_lines`` is never
    negative; ``cost_points`` is the best card's expected points minus those of the card played (negative when
    the card played took more points but fewer lines).
    """

    exact: bool
    layouts: int
    stderr: float | None
    cards: Mapping[Card, CardValue]
    best_cards: tuple[Card, ...]
    cost_lines: float
    cost_points: float

    @property
    def mistake(self) -> bool:
        """Some card was better on what the player could know (in lines, or in points at equal lines)."""
        return self.cost_lines > 0 or (self.cost_lines == 0 and self.cost_points > 0)

    def to_json(self) -> dict[str, Any]:
        return {
            "exact": self.exact,
            "layouts": self.layouts,
            "stderr": None if self.stderr is None else round(self.stderr, 4),
            "cards": {str(card): value.to_json() for card, value in self.cards.items()},
            "best_cards": [str(c) for c in self.best_cards],
            "cost_lines": round(self.cost_lines, 4),
            "cost_points": round(self.cost_points, 4),
        }


# --------------------------------------------------------------------------------------------- what a seat knows


@dataclass(frozen=True, slots=True)
class View:
    """What ``seat`` knows when it plays: its hand, the cards shown by each other seat and still held, the suits
    (effective: a matador is a trump) each other seat is proven void in, how many cards each other seat holds, and
    the cards it cannot place (``free``)."""

    seat: Seat
    hand: tuple[Card, ...]
    pinned: Mapping[Seat, tuple[Card, ...]]
    void: Mapping[Seat, frozenset[Suit]]
    sizes: Mapping[Seat, int]
    free: tuple[Card, ...]


def views(hands: Mapping[Seat, Sequence[Card]], trump: Suit, plays: Sequence[Play],
          shown: Sequence[tuple[int, Seat, Card]] = ()) -> Iterator[View]:
    """What each player knew at each of ``plays`` (in order), from the dealt hands (only to know his own hand and
    whether a card followed the rules: a revoke, which the table flags, proves nothing)."""
    held = {seat: list(cards) for seat, cards in hands.items()}
    void: dict[Seat, set[Suit]] = {seat: set() for seat in Seat}
    played: set[Card] = set()
    trick: list[Card] = []
    for index, play in enumerate(plays):
        seat = play.seat
        own = tuple(held[seat])
        pinned: dict[Seat, tuple[Card, ...]] = {s: () for s in Seat}
        for at, who, card in shown:
            if at <= index and who is not seat and card in held[who] and card not in pinned[who]:
                pinned[who] += (card,)
        sizes = {s: len(held[s]) for s in Seat}
        fixed = {c for cards in pinned.values() for c in cards}
        free = tuple(c for c in DECK if c not in played and c not in own and c not in fixed and c not in trick)
        yield View(seat, own, pinned, {s: frozenset(v) for s, v in void.items()}, sizes, free)
        led = trick[0] if trick else None
        if led is not None and play.card in legal_plays(held[seat], led, trump):
            led_suit = effective_suit(led, trump)
            suit = effective_suit(play.card, trump)
            if suit is not led_suit and (suit is not trump or led_suit is trump):
                void[seat].add(led_suit)  # rules 13-15: he would have followed
        held[seat].remove(play.card)
        trick.append(play.card)
        played.add(play.card)
        if len(trick) == 4:
            trick = []


# --------------------------------------------------------------------------------------------- layouts


class Layouts:
    """The layouts of one view: counted exactly by suit, enumerated or drawn uniformly.

    A layout gives each other seat its hidden cards. Cards of one effective suit are interchangeable for the
    constraints (the voids), so the count is a sum over how many cards of each suit each seat gets of the ways to
    choose them (a multinomial); drawing follows the same counts, so every layout is equally likely.
    """

    def __init__(self, view: View, trump: Suit) -> None:
        self.others = [s for s in Seat if s is not view.seat]
        groups: dict[Suit, list[Card]] = {}
        for card in view.free:
            groups.setdefault(effective_suit(card, trump), []).append(card)
        self.groups = list(groups.items())
        self.need = tuple(view.sizes[s] - len(view.pinned[s]) for s in self.others)
        self.allowed = [tuple(suit not in view.void[s] for s in self.others) for suit, _ in self.groups]
        self._memo: dict[tuple[int, tuple[int, ...]], int] = {}
        # For drawing: the splits of group i given the cards still needed, each weighted by its layouts, and the sum.
        self._options: dict[tuple[int, tuple[int, ...]], tuple[list[tuple[tuple[int, ...], int]], int]] = {}
        if any(n < 0 for n in self.need) or sum(self.need) != len(view.free):
            raise ValueError("the view does not add up: the hand sizes and the unseen cards disagree")

    def _splits(self, i: int, need: tuple[int, ...]) -> Iterator[tuple[tuple[int, ...], int]]:
        """Ways to share group ``i`` among the other seats: (counts, multinomial)."""
        n = len(self.groups[i][1])
        ok = self.allowed[i]
        for a in range(min(n, need[0]) + 1 if ok[0] else 1):
            for b in range(min(n - a, need[1]) + 1 if ok[1] else 1):
                c = n - a - b
                if c > need[2] or (c and not ok[2]):
                    continue
                yield (a, b, c), math.comb(n, a) * math.comb(n - a, b)

    def count(self, i: int = 0, need: tuple[int, ...] | None = None) -> int:
        """How many layouts there are (from group ``i`` on, with ``need`` cards still to give each seat)."""
        need = self.need if need is None else need
        if i == len(self.groups):
            return 1 if not any(need) else 0
        key = (i, need)
        known = self._memo.get(key)
        if known is None:
            known = 0
            for split, ways in self._splits(i, need):
                known += ways * self.count(i + 1, tuple(x - k for x, k in zip(need, split, strict=True)))
            self._memo[key] = known
        return known

    def all(self) -> Iterator[dict[Seat, tuple[Card, ...]]]:
        """Every layout, once."""
        import itertools

        def walk(i: int, need: tuple[int, ...], parts: list[list[Card]]) -> Iterator[dict[Seat, tuple[Card, ...]]]:
            if i == len(self.groups):
                yield {s: tuple(p) for s, p in zip(self.others, parts, strict=True)}
                return
            cards = self.groups[i][1]
            for split, _ in self._splits(i, need):
                rest = tuple(x - k for x, k in zip(need, split, strict=True))
                if not self.count(i + 1, rest):
                    continue
                for first in itertools.combinations(cards, split[0]):
                    left = [c for c in cards if c not in first]
                    for second in itertools.combinations(left, split[1]):
                        third = [c for c in left if c not in second]
                        yield from walk(i + 1, rest, [parts[0] + list(first), parts[1] + list(second),
                                                      parts[2] + third])

        yield from walk(0, self.need, [[], [], []])

    def masks(self, t: Tables, base: Sequence[int], place: Mapping[Seat, int]) -> list[list[int]]:
        """Every layout, once, in the order of :meth:`all`, as four hand masks by position (``place``): ``base``, the
        cards known to be in each hand, with the layout's added. For a judgement on every layout: built on masks
        directly, a layout costs a fraction of a dict of cards."""
        import itertools

        first, second, third = (place[s] for s in self.others)
        groups = [[1 << t.bit_of[c.index] for c in cards] for _, cards in self.groups]
        out: list[list[int]] = []

        def walk(i: int, need: tuple[int, ...], a: int, b: int, c: int) -> None:
            if i == len(groups):
                hands = list(base)
                hands[first] |= a
                hands[second] |= b
                hands[third] |= c
                out.append(hands)
                return
            bits = groups[i]
            every = sum(bits)
            for split, _ in self._splits(i, need):
                rest = tuple(x - k for x, k in zip(need, split, strict=True))
                if not self.count(i + 1, rest):
                    continue
                for one in itertools.combinations(bits, split[0]):
                    got_a = sum(one)
                    left = [x for x in bits if not x & got_a]
                    for two in itertools.combinations(left, split[1]):
                        got_b = sum(two)
                        walk(i + 1, rest, a | got_a, b | got_b, c | (every ^ got_a ^ got_b))

        walk(0, self.need, 0, 0, 0)
        return out

    def draw(self, rng: random.Random) -> dict[Seat, tuple[Card, ...]]:
        """One layout, uniformly at random."""
        need = self.need
        parts: list[list[Card]] = [[], [], []]
        for i in range(len(self.groups)):
            known = self._options.get((i, need))
            if known is None:
                found = [(split, ways * self.count(i + 1, tuple(x - k for x, k in zip(need, split, strict=True))))
                         for split, ways in self._splits(i, need)]
                known = self._options[(i, need)] = (found, sum(w for _, w in found))
            options, weight = known
            pick = rng.randrange(weight)
            k = 0
            while pick >= options[k][1]:
                pick -= options[k][1]
                k += 1
            split = options[k][0]
            cards = list(self.groups[i][1])
            rng.shuffle(cards)
            a, b = split[0], split[1]
            parts[0] += cards[:a]
            parts[1] += cards[a : a + b]
            parts[2] += cards[a + b :]
            need = tuple(x - k for x, k in zip(need, split, strict=True))
        return {s: tuple(p) for s, p in zip(self.others, parts, strict=True)}


# --------------------------------------------------------------------------------------------- judging


class Judge:
    """Judges the cards of one deal in one trump suit; keeps its searches (and their tables) for the whole deal."""

    def __init__(self, trump: Suit, stakes: Stakes, direction: Direction = Direction.ANTICLOCKWISE, *,
                 compiled: bool | None = None) -> None:
        self.trump = trump
        self.stakes = stakes
        self.tables: Tables = tables(trump)
        self.order = direction.order_from(Seat.N)
        self._position = {seat: i for i, seat in enumerate(self.order)}
        self._compiled = compiled
        self._searches: list[Search] = [new_search(self.tables, compiled, full=True)]
        self._threads = search_threads(compiled)
        self._kapo_search: Search | None = None
        self.layouts = 0  # layouts judged so far
        self.solves = 0  # (layout, card) values found so far

    @property
    def nodes(self) -> int:
        return sum(s.nodes for s in (*self._searches, self._kapo_search) if s is not None)

    def judge(self, view: View, leader: Seat, trick: Sequence[Card], played_card: Card,
              banked: Mapping[Team, int], tricks: Mapping[Team, int], seed: str = "", stakes: Stakes | None = None,
              layouts: Sequence[Mapping[Seat, Sequence[Card]]] | None = None) -> SingleDummy:
        """The judgement of ``played_card`` by ``view.seat`` in this position. ``banked``/``tricks``: points and
        tricks each team took in the completed tricks. ``stakes``: the stake as the player knew it (default: the
        judge's). ``layouts``: judge on these instead (tests)."""
        stakes = stakes or self.stakes
        seat = view.seat
        team = seat.team
        legal = legal_plays(list(view.hand), trick[0] if trick else None, self.trump)
        cards = list(legal) if played_card in legal else [*legal, played_card]
        space = Layouts(view, self.trump)
        total = space.count() if layouts is None else len(layouts)
        trick_number = _trick_number(view)
        exact = layouts is not None or self.exact(total, trick_number)
        t = self.tables
        pos = self._position
        own = t.mask(view.hand)
        pinned = {s: t.mask(view.pinned[s]) for s in Seat}
        base = [0, 0, 0, 0]
        for s in Seat:
            base[pos[s]] = own if s is seat else pinned[s]
        if layouts is None and exact:
            masks = space.masks(t, base, pos)
        else:
            if layouts is not None:
                chosen: list[Mapping[Seat, Sequence[Card]]] = list(layouts)
            else:
                rng = random.Random(f"{seed}/{seat.value}/{len(view.free)}")
                chosen = [space.draw(rng) for _ in range(SAMPLES[trick_number])]
            masks = []
            for layout in chosen:
                hands = list(base)
                for s in Seat:
                    if s is not seat:
                        hands[pos[s]] |= t.mask(layout[s])
                masks.append(hands)
        bits = [t.bit_of[c.index] for c in trick]
        card_bits = [t.bit_of[c.index] for c in cards]
        lead = pos[leader]
        # Two cards of the hand with the same points and no card still in play between them in their suit are
        # alike in every layout (tables.py): one is searched for both.
        present = own | t.mask(view.free) | t.mask(trick) | sum(pinned.values())
        alike = [_alike(t, own, present, b, card_bits) for b in card_bits]
        searched = sorted(set(alike))
        found = self.values(masks, lead, bits, searched)
        n = len(masks)
        at = {b: i for i, b in enumerate(searched)}
        self.layouts += n
        self.solves += n * len(searched)
        stats = []
        kapos: dict[tuple[int, int], bool] = {}  # (layout, card searched): alike cards take Kapo alike
        for i, card in enumerate(cards):
            done = [*trick, card]
            ns_tricks, ew_tricks = tricks[Team.NS], tricks[Team.EW]
            won: Seat | None = None
            if len(done) == 4:
                won = self.order[(lead + trick_winner(done, self.trump)) % 4]
                if won.team is Team.NS:
                    ns_tricks += 1
                else:
                    ew_tricks += 1
            # The results are counted by N+S points (at most 41 of them), each weighed once; only an all-or-nothing
            # result needs a Kapo search, layout by layout.
            values = found[at[alike[i]] :: len(searched)]
            results: Counter[tuple[int, bool]] = Counter()
            for v, count in Counter(values).items():
                ns = banked[Team.NS] + v
                if (ns == TOTAL_POINTS and not ew_tricks) or (ns == 0 and not ns_tricks):
                    for j in (j for j, w in enumerate(values) if w == v):
                        key = (j, alike[i])
                        if key not in kapos:
                            kapos[key] = self._kapo(masks[j], lead, bits, alike[i], won, Team.NS if ns else Team.EW)
                        results[ns, kapos[key]] += 1
                else:
                    results[ns, False] += count
            sums = [0, 0, 0, 0, 0, 0, 0]  # lines, lines², points, wins, ties, kapo for, kapo against
            for (ns, kapo), count in results.items():
                points = ns if team is Team.NS else TOTAL_POINTS - ns
                lines = stakes.lines(team, points, kapo)
                sums[0] += count * lines
                sums[1] += count * lines * lines
                sums[2] += count * points
                if points >= WINNING_POINTS:
                    sums[3] += count
                    sums[5] += count * kapo
                elif points * 2 == TOTAL_POINTS:
                    sums[4] += count
                else:
                    sums[6] += count * kapo
            stats.append(sums)
        options = [i for i, card in enumerate(cards) if card in legal]
        top = max((stats[i][0], stats[i][2]) for i in options)
        best = tuple(cards[i] for i in options if (stats[i][0], stats[i][2]) == top)
        mine = stats[cards.index(played_card)]
        stderr = None
        if not exact:
            stderr = max(math.sqrt(max(0.0, s[1] / n - (s[0] / n) ** 2) / (n - 1)) if n > 1 else 0.0 for s in stats)
        return SingleDummy(
            exact=exact,
            layouts=total if exact else n,
            stderr=stderr,
            cards={card: CardValue(s[0] / n, s[2] / n, s[3] / n, s[4] / n, s[5] / n, s[6] / n, s[3])
                   for card, s in zip(cards, stats, strict=True) if card in legal},
            best_cards=best,
            cost_lines=(top[0] - mine[0]) / n,
            cost_points=(top[1] - mine[2]) / n,
        )

    def exact(self, total: int, trick_number: int) -> bool:
        """Whether a position of trick ``trick_number`` with ``total`` layouts is judged on all of them."""
        return total <= EXACT_LAYOUTS

    def values(self, layouts: list[list[int]], lead: int, trick: list[int], cards: list[int]) -> list[int]:
        """N+S points from the position after each card in each layout (layout by layout). The layouts are searched
        in parts (:data:`CHUNK`) by as many searches as there are threads (:func:`.kernel.search_threads`), each
        keeping its own table for the whole deal; the values are exact, so they do not depend on which search took
        which part."""
        guesses = [TOTAL_POINTS // 2] * len(cards)
        size = min(CHUNK, max(MIN_CHUNK, len(layouts) // (4 * self._threads)))
        if self._threads == 1 or len(layouts) < 2 * size:
            return self._searches[0].values(layouts, lead, trick, cards, guesses)
        while len(self._searches) < self._threads:
            self._searches.append(new_search(self.tables, self._compiled, full=True))
        free: queue.SimpleQueue[Search] = queue.SimpleQueue()
        for search in self._searches:
            free.put(search)

        def part(start: int) -> list[int]:
            search = free.get()
            try:
                return search.values(layouts[start : start + size], lead, trick, cards, guesses)
            finally:
                free.put(search)

        found: list[int] = []
        for values in shared_pool(self._threads).map(part, range(0, len(layouts), size)):
            found.extend(values)
        return found

    def _kapo(self, hands: list[int], lead: int, trick: list[int], card: int, won: Seat | None, team: Team) -> bool:
        """Whether ``team`` can take every trick left after the player to move plays ``card`` (RULES.md 20)."""
        if self._kapo_search is None:
            self._kapo_search = new_search(_unit(self.tables), self._compiled, full=True)
        pos = (lead + len(trick)) % 4
        after = list(hands)
        after[pos] ^= 1 << card
        if won is not None:
            if won.team is not team:
                return False
            leader, current = self._position[won], []
        else:
            leader, current = lead, [*trick, card]
        count = sum(h.bit_count() for h in after) + len(current)
        if not count:
            return True
        if team is Team.NS:
            return self._kapo_search.search(after, leader, current, count - 1, count) >= count
        return self._kapo_search.search(after, leader, current, 0, 1) <= 0


def _alike(t: Tables, hand: int, present: int, bit: int, choices: list[int]) -> int:
    """The strongest card among ``choices`` that is interchangeable with ``bit`` (``bit`` itself if none is)."""
    same = t.suit_mask[t.suit[bit]]
    while True:
        above = present & same & ((1 << bit) - 1)  # stronger cards of the suit still in play
        if not above:
            return bit
        nxt = above.bit_length() - 1  # the next stronger one
        if not (hand >> nxt) & 1 or t.points[nxt] != t.points[bit] or nxt not in choices:
            return bit
        bit = nxt


def _trick_number(view: View) -> int:
    """The trick a view plays to, from the cards still to be played."""
    left = len(view.hand) + sum(view.sizes[s] for s in Seat if s is not view.seat)
    return TRICKS_PER_DEAL - (left - 1) // 4
