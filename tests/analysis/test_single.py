"""The single-dummy review: each card judged on what its player could know, in net lines then points.

Checked against an independent brute force (tests/analysis/sd_reference.py: every layout, exhaustive minimax on
(lines, points) with the project's slate deciding the lines), sampled judgements against exact ones within their
stated standard error, hand-made deals, and the properties the issue names.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from tablepi.analysis import Solver, compiled_available, dealt_hands, review_deal, single
from tablepi.analysis.review import DealReview, review_plays
from tablepi.analysis.single import Judge, Layouts, Stakes, views
from tablepi.rules import Card, Deal, Direction, Seat, Suit, Team, parse_cards
from tablepi.rules.deal import Announcement, DealResult, Play
from tablepi.rules.house import HouseRules, TieRule
from tablepi.rules.play import trick_winner
from tablepi.rules.slate import Slate
from tablepi.table.game import EndScan, Game, NameTrump, ScanCard
from tests.analysis.helpers import random_deal
from tests.analysis.sd_reference import Minimax, layouts, net_lines, positions, single_dummy

KERNELS = [False, *([True] if compiled_available() else [])]


def compare_from_trick(deal: Deal, review: DealReview, from_trick: int) -> int:
    """The review's single-dummy values equal the brute force at every play from ``from_trick`` on."""
    hands = dealt_hands(deal)
    assert hands is not None
    minimax = Minimax(deal)
    checked = 0
    for pos, play in zip(positions(deal, hands), review.plays, strict=True):
        if play.trick < from_trick:
            continue
        sd = play.sd
        assert sd is not None and sd.exact
        expected, n = single_dummy(pos, minimax)
        assert sd.layouts == n
        assert set(sd.cards) == set(expected)
        for card, want in expected.items():
            got = sd.cards[card]
            assert got.lines == pytest.approx(float(want.lines), abs=1e-9), (checked, str(card))
            assert got.points == pytest.approx(float(want.points), abs=1e-9)
            assert got.win == pytest.approx(float(want.win), abs=1e-9)
            assert got.tie == pytest.approx(float(want.tie), abs=1e-9)
            assert got.kapo_for == pytest.approx(float(want.kapo_for), abs=1e-9)
            assert got.kapo_against == pytest.approx(float(want.kapo_against), abs=1e-9)
        top = max((w.lines, w.points) for w in expected.values())
        assert set(sd.best_cards) == {c for c, w in expected.items() if (w.lines, w.points) == top}
        checked += 1
    return checked


def announced_deal(rng: random.Random, rules: HouseRules | None = None) -> Deal:
    """A random deal, with Matt announced (♠Q shown) when its holder may, so stakes other than 1 are covered."""
    deal = random_deal(rng)
    hands = dealt_hands(deal)
    assert hands is not None and deal.trump is not None
    if rules is None and not rng.randrange(3):
        return deal
    fresh = Deal(deal.dealer, rules, hands={s: list(c) for s, c in hands.items()})
    fresh.choose_trump(deal.trump)
    holder = next(s for s in Seat if Card.parse("QS") in hands[s])
    if rng.randrange(2):
        fresh.announce(holder, Announcement.MATT, shown=(Card.parse("QS"),))
    for trick in deal.tricks:
        for play in trick.plays:
            fresh.play(play.seat, play.card)
    return fresh


def test_exact_values_from_trick_5_equal_brute_force_for_both_kernels() -> None:
    rng = random.Random(44)
    checked = 0
    for compiled in KERNELS:
        deal = announced_deal(rng, HouseRules.from_mapping({"tie": rng.choice(["standard", "plus_one", "carry"])}))
        checked += compare_from_trick(deal, review_deal(deal, compiled=compiled, first_trick=5), 5)
    assert checked == 8 * len(KERNELS)


@pytest.mark.slow
def test_exact_values_from_trick_4_equal_brute_force_on_thousands_of_positions() -> None:
    """250 random deals (fixed seed; every tie rule, Matt announced in some), each of the 8 plays of tricks 5-6,
    and 2 more deals from trick 4 (whose brute force takes half a minute each): 2,024 positions, every legal card's
    expected lines, points and chances equal to the brute force."""
    rng = random.Random(4004)
    checked = 0
    for i in range(252):
        rules = HouseRules.from_mapping({"tie": ["standard", "plus_one", "carry"][i % 3]})
        deal = announced_deal(rng, rules)
        first = 4 if i < 2 else 5
        checked += compare_from_trick(deal, review_deal(deal, first_trick=first), first)
    assert checked == 2 * 12 + 250 * 8


def compare_with_enumeration(number: int, seed: int, large: int, small: int) -> None:
    """Positions of trick ``number`` judged on every layout (up to 20,000 of them), ``large`` of them with more than
    5,000 and ``small`` with at most 1,500: each card's expected lines, points and chances equal those of an
    independent enumeration — the rules core's layouts (sd_reference.layouts), each solved from a fresh double-dummy
    solver, its result in lines from the slate."""
    rng = random.Random(seed)
    while large > 0 or small > 0:
        deal = announced_deal(rng)
        hands = dealt_hands(deal)
        assert hands is not None and deal.trump is not None
        trump = deal.trump
        plays = [p for t in deal.tricks for p in t.plays]
        review = review_deal(deal, first_trick=number)
        first_play = 4 * (number - 1)
        seen = list(views(hands, trump, plays, deal.evidence.shown))
        for pos, play in zip(positions(deal, hands), review.plays, strict=True):
            sd = play.sd
            if play.trick != number or sd is None:
                continue
            count = Layouts(seen[pos.index], trump).count()
            assert sd.exact == (count <= single.EXACT_LAYOUTS)  # at every trick
            assert sd.layouts == (count if sd.exact else single.SAMPLES[number])
            if len(sd.cards) < 2 or not sd.exact or not (
                    (sd.layouts > 5_000 and large > 0) or (sd.layouts <= 1_500 and small > 0)):
                continue
            large -= sd.layouts > 5_000
            small -= sd.layouts <= 1_500
            spread = layouts(pos, play.seat, trump)
            assert len(spread) == sd.layouts
            trick = [p.card for p in plays[first_play : pos.index]]
            leader = deal.tricks[number - 1].leader
            done = deal.tricks[: number - 1]
            banked = {t: sum(x.points for x in done if x.winner is not None and x.winner.team is t) for t in Team}
            taken = {t: sum(1 for x in done if x.winner is not None and x.winner.team is t) for t in Team}
            team = play.seat.team
            for card, got in sd.cards.items():
                sums = [0, 0, 0, 0, 0, 0]
                for layout in spread:
                    held = {s: [*(layout[s] if s is not play.seat else pos.hands[s])] for s in Seat}
                    for p in plays[first_play : pos.index]:
                        held[p.seat].append(p.card)
                    solver = Solver(held, trump, small=True)
                    now, gone, first = [*trick, card], (), leader
                    if len(now) == 4:  # the trick is complete: on from its winner's lead
                        first = Direction.ANTICLOCKWISE.order_from(leader)[trick_winner(now, trump)]
                        now, gone = [], tuple(now)
                    ns = banked[Team.NS] + solver.value(first, now, gone)
                    if gone and first.team is Team.NS:
                        ns += sum(c.points for c in gone)
                    winner = Team.NS if ns >= 21 else Team.EW if ns <= 19 else None
                    kapo = (winner is not None and not taken[winner.other] and ns in (0, 40)
                            and (not gone or first.team is winner) and solver.kapo(first, winner, now, gone))
                    tricks_ns = (6 if winner is Team.NS else 0) if kapo else 3
                    lines = net_lines(team, ns, tricks_ns, deal.trump_team, tuple(deal.announcements), deal.rules)
                    points = ns if team is Team.NS else 40 - ns
                    sums[0] += lines
                    sums[1] += points
                    sums[2] += points >= 21
                    sums[3] += points == 20
                    sums[4] += kapo and winner is team
                    sums[5] += kapo and winner is not team
                n = len(spread)
                want = [x / n for x in sums]
                assert [got.lines, got.points, got.win, got.tie, got.kapo_for, got.kapo_against] == pytest.approx(
                    want, abs=1e-9), (str(card), sd.layouts)


@pytest.mark.slow
def test_exact_values_at_trick_3_equal_an_enumeration_layout_by_layout() -> None:
    """Four trick-3 positions, two of them with more than 5,000 layouts (see :func:`compare_with_enumeration`)."""
    compare_with_enumeration(3, 303, large=2, small=2)


@pytest.mark.slow
def test_exact_values_at_trick_2_equal_an_enumeration_layout_by_layout() -> None:
    """Trick-2 positions are judged on every layout too wherever they have at most 20,000: three of them, one with
    more than 5,000 layouts (see :func:`compare_with_enumeration`)."""
    compare_with_enumeration(2, 202, large=1, small=2)


def sampled_positions(rng: random.Random, count: int) -> Iterator[tuple[Judge, single.View, Seat, list[Card],
                                                                          Card, dict[Team, int], dict[Team, int]]]:
    """Positions of tricks 2-3 with more layouts than a sample would take (so that it samples) and few enough to
    enumerate quickly (at most 3,000)."""
    found = 0
    while found < count:
        deal = random_deal(rng)
        hands = dealt_hands(deal)
        assert hands is not None and deal.trump is not None
        plays = [p for t in deal.tricks for p in t.plays]
        judge = Judge(deal.trump, Stakes(deal.trump_team, 0, TieRule.STANDARD))
        banked = {t: 0 for t in Team}
        tricks = {t: 0 for t in Team}
        for i, view in enumerate(views(hands, deal.trump, plays, deal.evidence.shown)):
            trick = deal.tricks[i // 4]
            if i % 4 == 0 and i:
                done = deal.tricks[i // 4 - 1]
                assert done.winner is not None
                banked[done.winner.team] += done.points
                tricks[done.winner.team] += 1
            number = 2 if i < 8 else 3
            if trick is deal.tricks[0] or i >= 12 or not (
                    2 * single.SAMPLES[number] < Layouts(view, deal.trump).count() <= 3_000):
                continue
            if len(set(view.hand)) < 2:
                continue
            yield judge, view, trick.leader, list(trick.cards[: i % 4]), plays[i].card, dict(banked), dict(tricks)
            found += 1
            if found >= count:
                return


@pytest.mark.slow
def test_sampled_values_agree_with_exact_enumeration_within_their_standard_error(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """240 positions of tricks 2-3 judged on a sample (as tricks 1-3 are) and on every layout: each card's expected
    lines lies within two stated standard errors of the exact value in at least 90% of cases, within four in all
    but 1%."""
    rng = random.Random(123)
    within2 = within4 = total = 0
    for judge, view, leader, trick, card, banked, tricks in sampled_positions(rng, 240):
        space = Layouts(view, judge.trump)
        exact = judge.judge(view, leader, trick, card, banked, tricks, layouts=list(space.all()))
        assert exact.exact and exact.layouts == space.count()
        monkeypatch.setattr(single, "EXACT_LAYOUTS", 0)
        sampled = judge.judge(view, leader, trick, card, banked, tricks, seed=str(total))
        monkeypatch.undo()
        assert not sampled.exact and sampled.stderr is not None
        assert sampled.layouts == single.SAMPLES[single._trick_number(view)]
        for c, value in exact.cards.items():
            error = abs(sampled.cards[c].lines - value.lines)
            within2 += error <= 2 * sampled.stderr + 1e-9
            within4 += error <= 4 * sampled.stderr + 1e-9
            total += 1
    assert total >= 240
    assert within2 >= 0.9 * total and within4 >= 0.99 * total, (within2, within4, total)


@pytest.mark.skipif(not compiled_available(), reason="the pure-Python search runs in one thread")
def test_layouts_shared_among_threads_give_the_same_review(monkeypatch: pytest.MonkeyPatch) -> None:
    """A position's layouts searched in parts by several threads, each search with its own table, give exactly the
    review one search gives: more threads than cores, and parts small enough that every position of tricks 3-6 is
    split (the parts' values must come back in the layouts' order)."""
    import dataclasses
    import threading

    from tablepi.analysis.kernel import search_threads

    rng = random.Random(77)
    monkeypatch.setattr(single, "CHUNK", 8)
    split = 0
    seen_threads: set[str] = set()
    values = Judge.values

    def counting(self: Judge, layouts: list[list[int]], *args: object) -> list[int]:
        nonlocal split
        split += len(layouts) >= 2 * single.CHUNK  # parts of CHUNK (8) layouts: split among the threads
        return values(self, layouts, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(Judge, "values", counting)
    for _ in range(3):
        deal = random_deal(rng)
        monkeypatch.setenv("TABLEPI_ANALYSIS_THREADS", "1")
        assert search_threads() == 1
        one = review_deal(deal, first_trick=3)
        monkeypatch.setenv("TABLEPI_ANALYSIS_THREADS", "3")
        assert search_threads() == 3
        seen_threads.update(t.name for t in threading.enumerate())
        many = review_deal(deal, first_trick=3)
        seen_threads.update(t.name for t in threading.enumerate())
        assert dataclasses.replace(many, nodes=0) == dataclasses.replace(one, nodes=0)
        assert any(p.sd is not None and p.sd.exact for p in one.plays)
    assert split > 0
    assert any(name.startswith("search") for name in seen_threads)


def test_layouts_are_counted_drawn_and_enumerated_alike() -> None:
    """The count by suits equals the enumeration, and the enumeration as masks equals it layout by layout; drawn
    layouts are among them and respect voids and sizes."""
    rng = random.Random(9)
    for _ in range(20):
        deal = random_deal(rng)
        hands = dealt_hands(deal)
        assert hands is not None and deal.trump is not None
        plays = [p for t in deal.tricks for p in t.plays]
        for i, view in enumerate(views(hands, deal.trump, plays, deal.evidence.shown)):
            if i < 9:
                continue
            space = Layouts(view, deal.trump)
            every = list(space.all())
            assert len(every) == space.count()
            keys = {tuple(tuple(sorted(c.index for c in layout[s])) for s in Seat if s is not view.seat)
                    for layout in every}
            assert len(keys) == len(every)
            t = Judge(deal.trump, Stakes(deal.trump_team)).tables
            place = {seat: i for i, seat in enumerate(Seat)}
            assert space.masks(t, [0, 0, 0, 0], place) == [
                [t.mask(layout.get(seat, ())) for seat in Seat] for layout in every]
            others = [s for s in Seat if s is not view.seat]
            gone = {p.card for p in plays[:i]}
            truth = tuple(tuple(sorted(c.index for c in hands[s] if c not in gone and c not in view.pinned[s]))
                          for s in others)
            assert truth in keys
            drawn = space.draw(random.Random(i))
            assert tuple(tuple(sorted(c.index for c in drawn[s])) for s in Seat if s is not view.seat) in keys


def test_the_properties_on_random_deals() -> None:
    """cost_lines >= 0 always; with every hand known, a team's net lines = its par in net lines - the
    dd_cost_lines of its own cards + those of the other team's cards, exactly; luck + skill = dd cost."""
    rng = random.Random(77)
    for i in range(6):
        rules = HouseRules.from_mapping({"tie": ["standard", "plus_one", "carry"][i % 3]})
        deal = announced_deal(rng, rules)
        review = review_deal(deal)
        assert review.best_lines is not None and deal.trump is not None
        result = deal.result()
        announcements = tuple(deal.announcements)
        for team in Team:
            actual = net_lines(team, result.points[Team.NS], result.tricks[Team.NS], deal.trump_team,
                               announcements, deal.rules)
            own = sum(p.dd_cost_lines for p in review.plays if p.seat.team is team)
            other = sum(p.dd_cost_lines for p in review.plays if p.seat.team is not team)
            assert actual == review.best_lines[team] - own + other
        for play in review.plays:
            assert play.sd is not None
            assert play.sd.cost_lines >= 0 and play.dd_cost_lines >= 0
            assert play.sd.best_cards and (play.card in play.sd.best_cards) == (play.sd.cost_lines == 0
                                                                                and play.sd.cost_points == 0)
        summary = review.sd_summary()
        assert summary is not None
        for seat in Seat:
            lost, luck = summary[seat]
            mine = [p for p in review.plays if p.seat is seat]
            assert lost + luck == pytest.approx(sum(p.dd_cost_lines for p in mine))


def test_stakes_in_net_lines_follow_the_slate() -> None:
    """Stakes.lines equals what the project's slate does with the result, for every result and tie rule."""
    for tie in TieRule:
        rules = HouseRules.from_mapping({"tie": tie.value})
        for trump_team in Team:
            for announcements in ((), ((Seat.N, Announcement.MATT),), ((Seat.E, Announcement.KONTER_A_MATT),)):
                parts = len(set().union(*(a.parts for _, a in announcements))) if announcements else 0
                stakes = Stakes(trump_team, parts, tie)
                for points_ns, tricks_ns in ((40, 6), (40, 5), (33, 4), (21, 2), (20, 3), (19, 3), (0, 1), (0, 0)):
                    kapo = tricks_ns in (0, 6)
                    for team in Team:
                        points = points_ns if team is Team.NS else 40 - points_ns
                        assert stakes.lines(team, points, kapo) == net_lines(
                            team, points_ns, tricks_ns, trump_team, announcements, rules)


def deal_of(dealer: Seat, trump: Suit, hands: dict[Seat, str], line: str,
            shows: tuple[tuple[int, Seat, str], ...] = ()) -> Deal:
    """A deal played card by card from ``line``; ``shows``: (cards played before it, seat, card) shown then."""
    deal = Deal(dealer, hands={s: list(parse_cards(c)) for s, c in hands.items()})
    deal.choose_trump(trump)
    for i, text in enumerate(line.split()):
        for at, seat, card in shows:
            if at == i:
                deal.show(seat, Card.parse(card))
        seat_to_play = deal.to_play
        assert seat_to_play is not None
        deal.play(seat_to_play, Card.parse(text))
    return deal


# Spades trumps, W forehand. At trick 5 E leads ♥9 and wins it; N, having shown ♣10 (his last card) on the table,
# and W discard; S holds ♣K and ♦K and keeps one for the last trick, which E leads with his last card. E and W
# hold ♦10 and ♣Q, one each: two layouts. Where E holds ♦10, only the ♦K kept wins the last trick (else E+W take
# all six: Kapo); where E holds ♣Q, only the ♣K does. S keeps ♣K: with all hands known that conceded the Kapo, a
# line; on what S could know it was a pure guess.
GUESS_HANDS = {Seat.N: "AD JD KH JC 9D TC", Seat.E: "QD QS JH TS 9H TD", Seat.S: "JS KS AH AC KC KD",
               Seat.W: "AS 9S QH TH 9C QC"}
GUESS_LINE = "AS JS QD AD  9S KS QS JD  JH KH QH AH  TH AC TS JC  9H 9D 9C KD  TD TC QC KC"


def test_a_pure_guess_is_no_mistake() -> None:
    deal = deal_of(Seat.N, Suit.SPADES, GUESS_HANDS, GUESS_LINE, shows=((19, Seat.N, "TC"),))
    review = review_deal(deal, first_trick=5)
    guess = review.plays[19]
    assert (guess.trick, guess.seat, guess.card) == (5, Seat.S, Card.parse("KD"))
    assert guess.dd_cost_lines == 1 and guess.effects  # double-dummy: it let E+W force Kapo
    sd = guess.sd
    assert sd is not None and sd.exact and sd.layouts == 2
    kc, kd = sd.cards[Card.parse("KC")], sd.cards[Card.parse("KD")]
    assert (kc.lines, kc.points, kc.kapo_against) == (kd.lines, kd.points, kd.kapo_against) == (-1.5, 2.5, 0.5)
    assert set(sd.best_cards) == {Card.parse("KC"), Card.parse("KD")}
    assert sd.cost_lines == 0 and sd.cost_points == 0 and not sd.mistake
    assert guess.luck == 1  # all of that line was the lie of the cards
    assert guess not in review.sd_mistakes
    # without the shown ♣10, S could not place it either: more layouts, still no mistake
    unseen = review_deal(deal_of(Seat.N, Suit.SPADES, GUESS_HANDS, GUESS_LINE), first_trick=5).plays[19].sd
    assert unseen is not None and unseen.layouts > 2 and not unseen.mistake


# Diamonds trumps, W forehand. Trick 1 (trumps led) proves N has no trump; trick 2 (spades led) proves E and N void
# in spades; trick 3 (clubs led) W void in clubs. At trick 4 E leads ♥A, N plays ♥K, and W holds ♥Q ♥J: on
# what W can know (18 layouts, the voids placing the cards), ♥J is better by 0.22 lines; without the voids (210
# layouts) neither card is.
VOID_HANDS = {Seat.N: "JS 9H JC KH KC AC", Seat.E: "KD TC TD AH 9C AD", Seat.S: "QD KS QC 9D QS AS",
              Seat.W: "JD TS TH QH 9S JH"}
VOID_LINE = "JD QD KD JS  KS TC 9H TS  QC TD JC TH  AH KH QH 9D  9S QS 9C KC  AS AD AC JH"


def test_a_void_proven_earlier_makes_the_better_card_known() -> None:
    deal = deal_of(Seat.N, Suit.DIAMONDS, VOID_HANDS, VOID_LINE)
    review = review_deal(deal, first_trick=4)
    play = review.plays[14]
    assert (play.trick, play.seat, play.card) == (4, Seat.W, Card.parse("QH"))
    sd = play.sd
    assert sd is not None and sd.exact and sd.layouts == 18
    assert sd.best_cards == (Card.parse("JH"),) and sd.cost_lines == pytest.approx(4 / 18) and sd.mistake
    assert play in review.sd_mistakes
    hands = dealt_hands(deal)
    assert hands is not None
    plays = [p for t in deal.tricks for p in t.plays]
    view = list(views(hands, Suit.DIAMONDS, plays))[14]
    assert view.void[Seat.N] == {Suit.DIAMONDS, Suit.SPADES} and view.void[Seat.E] == {Suit.SPADES}
    blind = single.View(view.seat, view.hand, view.pinned, {s: frozenset() for s in Seat}, view.sizes, view.free)
    judge = Judge(Suit.DIAMONDS, Stakes(deal.trump_team))
    banked = {Team.NS: 0, Team.EW: 0}
    tricks = {Team.NS: 0, Team.EW: 0}
    for trick in deal.tricks[:3]:
        assert trick.winner is not None
        banked[trick.winner.team] += trick.points
        tricks[trick.winner.team] += 1
    without = judge.judge(blind, Seat.E, list(deal.tricks[3].cards[:2]), Card.parse("QH"), banked, tricks)
    assert without.layouts == 210 and not without.mistake


# --------------------------------------------------------------------------------------------- what the table shows


def scan_game(complete: bool) -> Game:
    """A hand-scan game: forehand (W) names diamonds by showing ♦J, then scans (all four hands, or W's only)."""
    hands = {s: list(parse_cards(c)) for s, c in VOID_HANDS.items()}
    game = Game(HouseRules(), Seat.N, hand_scan=True)
    assert game.forehand is Seat.W
    game.apply(NameTrump(Seat.W, Suit.DIAMONDS, Card.parse("JD")))
    for seat in Seat if complete else (Seat.W,):
        for card in hands[seat]:
            game.apply(ScanCard(seat, card))
    if not complete:
        game.apply(EndScan())
    return game


@pytest.mark.parametrize("complete", [True, False])
def test_the_trump_card_shown_is_seen_by_all_and_a_scan_by_none(complete: bool) -> None:
    deal = scan_game(complete).deal
    assert deal is not None
    assert deal.evidence.shown == [(0, Seat.W, Card.parse("JD"))]  # the scanned cards are the table's, not the players'
    if not complete:  # known to the table: checked against the play (rule 18)
        assert deal.evidence.known[Seat.W] == {Card.parse(c) for c in VOID_HANDS[Seat.W].split()}
    if complete:
        hands = dealt_hands(deal)
        assert hands is not None
        (view_of_s,) = views(hands, Suit.DIAMONDS, [Play(Seat.S, Card.parse("QD"))], deal.evidence.shown)
        assert view_of_s.pinned[Seat.W] == (Card.parse("JD"),)
        assert all(not view_of_s.pinned[s] for s in (Seat.N, Seat.E))


def test_a_card_is_judged_on_the_stake_announced_before_it() -> None:
    # S announces Matt (he holds ♠Q) after W's first card: W's ♦J was played on a stake of 1, the rest on 2.
    hands = {s: list(parse_cards(c)) for s, c in VOID_HANDS.items()}
    deal = Deal(Seat.N, hands=hands)
    deal.choose_trump(Suit.DIAMONDS)
    line = VOID_LINE.split()
    deal.play(Seat.W, Card.parse(line[0]))
    deal.announce(Seat.S, Announcement.MATT)
    for text in line[1:]:
        seat = deal.to_play
        assert seat is not None
        deal.play(seat, Card.parse(text))
    assert deal.announced_at == {"matt": 1}
    review = review_deal(deal, first_trick=1)
    plays = [p for t in deal.tricks for p in t.plays]
    for announced, index in ((0, 0), (1, 1), (1, 5)):
        alone = review_plays(dealt_hands(deal) or {}, Suit.DIAMONDS, Seat.W, plays[: index + 1],
                             stakes=Stakes(deal.trump_team, announced))
        assert review.plays[index].sd == alone.plays[index].sd, (announced, index)
    assert review.plays[0].sd != review_plays(dealt_hands(deal) or {}, Suit.DIAMONDS, Seat.W, plays[:1],
                                              stakes=Stakes(deal.trump_team, 1)).plays[0].sd


def test_lines_carried_from_ties_reach_the_next_deal() -> None:
    slate = Slate(HouseRules(tie=TieRule.CARRY))
    tie = DealResult(Team.NS, {Team.NS: 20, Team.EW: 20}, {Team.NS: 3, Team.EW: 3}, None, False, None, None, ())
    slate.record(tie)
    assert (slate.carried_into(1), slate.carried_into(2), slate.carried_into(3)) == (0, 1, 0)
    slate.record(tie)
    assert slate.carried_into(3) == 2
