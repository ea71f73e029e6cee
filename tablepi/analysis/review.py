"""The review of a played deal: where the points were lost, like a bridge club's hand record.

For every card played: what the player's team ends the deal with if everyone plays best after it (``value``), the
same for the best card the player had (``best_value``) and which cards those were. A play whose value is below the
best lost points; one that also changed the result the team could force (a won deal lost or tied, a Kapo missed,
a Kapo handed to the other side) is a turning point. Then the par table: for each trump suit, what each team
makes with best play from the start; and for a claim, whether it gave anything away.

Each card is also judged in net lines (what the slate counts): ``dd_cost_lines``, the lines the team's best play
could still force before the card minus after it, with all hands known; and ``sd``, the single-dummy judgement on
what the player could know (:mod:`tablepi.analysis.single`). What a card cost in lines splits into what its player
could have known (``sd.cost_lines``) and luck (the rest: what only the hidden cards decided); ``sd_summary`` sums
both per seat.

A deal is reviewed from what is known of it: with hand scan, or when all 24 cards were played, everything is. A
deal claimed before the end without hand scan leaves cards nobody saw; the review then says which, and gives no
values (who held the unseen cards decides them).
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from tablepi.analysis.single import Judge, SingleDummy, Stakes, views
from tablepi.analysis.solve import TOTAL_POINTS, Forced, Solver
from tablepi.rules.cards import DECK, Card, Suit
from tablepi.rules.deal import TRICKS_PER_DEAL, WINNING_POINTS, Deal, Play
from tablepi.rules.play import legal_plays, trick_winner
from tablepi.rules.seats import Direction, Seat, Team
from tablepi.rules.trumps import effective_suit


class Effect(enum.Enum):
    """How a play changed the best result its team could force (RULES.md 19-20)."""

    LOST_DEAL = "lost_deal"  # a win or a tie the team could force became a loss
    WIN_TO_TIE = "win_to_tie"  # a won deal became a 20-20 tie
    MISSED_KAPO = "missed_kapo"  # the team could force all six tricks, and no longer can
    ALLOWED_KAPO = "allowed_kapo"  # the other team can now force all six tricks


@dataclass(frozen=True, slots=True)
class PlayReview:
    """One card played, judged with all hands known. Values are the final points of the player's team."""

    trick: int  # 1-6
    seat: Seat
    card: Card
    value: int  # the team's points at the end if everyone plays best after this card
    best_value: int  # the same after the team's best card here
    best_cards: tuple[Card, ...]  # the legal cards reaching best_value
    legal: bool = True  # False: a revoke (the table warned); judged all the same
    effects: tuple[Effect, ...] = ()
    dd_cost_lines: int = 0  # net lines the team could force before this card minus after it (all hands known)
    sd: SingleDummy | None = None  # the judgement on what the player could know

    @property
    def cost(self) -> int:
        """Points this card gave away against the best card (0 for a best card)."""
        return self.best_value - self.value

    @property
    def luck(self) -> float:
        """The part of ``dd_cost_lines`` the player could not have known: what only the hidden cards decided."""
        return self.dd_cost_lines - (self.sd.cost_lines if self.sd is not None else 0.0)

    def to_json(self) -> dict[str, Any]:
        return {
            "trick": self.trick,
            "seat": self.seat.value,
            "card": str(self.card),
            "value": self.value,
            "best_value": self.best_value,
            "best_cards": [str(c) for c in self.best_cards],
            "cost": self.cost,
            "legal": self.legal,
            "effects": [e.value for e in self.effects],
            "dd_cost_lines": self.dd_cost_lines,
            "sd": None if self.sd is None else self.sd.to_json(),
        }


@dataclass(frozen=True, slots=True)
class ClaimReview:
    """A claim (RULES.md 21): what best play would have given from there.

    With the hands known there is one ``layout``. Without them, the unseen cards could lie in several ways that
    agree with the play (each seat's count, the suits a seat showed it lacked, the queens it showed):
    ``layouts`` of them were searched, and ``kapo_layouts`` let the claimers force Kapo; ``kapo_possible`` is then
    True or False only when all layouts agree, else None. Claimers who already lost a trick never had Kapo, so
    their claim is judged safe without a search.
    """

    team: Team
    after_trick: int
    points: int  # the claimers' points when they claimed
    best_points: int | None  # their final points with best play from the claim (None: depends on unseen cards)
    kapo_possible: bool | None  # they could have forced all six tricks: the claim cost the Kapo line
    layouts: int = 1
    kapo_layouts: int = 0

    @property
    def safe(self) -> bool | None:
        """A claim needs 21 points already taken, so the deal is won anyway; it is safe unless it gave up a Kapo
        (None: in some layouts of the unseen cards it did, in others not)."""
        if self.kapo_possible is None:
            return None
        return self.points >= WINNING_POINTS and not self.kapo_possible

    def to_json(self) -> dict[str, Any]:
        return {
            "team": self.team.value,
            "after_trick": self.after_trick,
            "points": self.points,
            "best_points": self.best_points,
            "kapo_possible": self.kapo_possible,
            "safe": self.safe,
            "layouts": self.layouts,
            "kapo_layouts": self.kapo_layouts,
        }


@dataclass(frozen=True, slots=True)
class DealReview:
    """Everything the analysis says about one deal. ``known`` False: some cards were never seen (``unknown``)."""

    number: int
    trump: Suit
    forehand: Seat
    known: bool
    played: Mapping[Team, int]
    unknown: tuple[Card, ...] = ()
    par: Mapping[Suit, Mapping[Team, int]] = field(default_factory=dict)
    best: Mapping[Team, int] | None = None
    forced: Forced | None = None
    plays: tuple[PlayReview, ...] = ()
    claim: ClaimReview | None = None
    nodes: int = 0
    best_lines: Mapping[Team, int] | None = None  # net lines of each team with best play from the start

    @property
    def mistakes(self) -> tuple[PlayReview, ...]:
        """The plays that lost points, in playing order."""
        return tuple(p for p in self.plays if p.cost > 0)

    @property
    def sd_mistakes(self) -> tuple[PlayReview, ...]:
        """The plays some other card beat on what their player could know, in playing order."""
        return tuple(p for p in self.plays if p.sd is not None and p.sd.mistake)

    def sd_highlight(self) -> PlayReview | None:
        """The single-dummy mistake most worth telling: the most lines lost, then points (the first of equals)."""
        mistakes = self.sd_mistakes
        if not mistakes:
            return None
        return max(mistakes, key=lambda p: (p.sd.cost_lines, p.sd.cost_points) if p.sd else (0.0, 0.0))

    def sd_summary(self) -> dict[Seat, tuple[float, float]] | None:
        """Per seat: ``lines_lost`` (the sum of ``sd.cost_lines``) and ``luck`` (the sum of ``dd_cost_lines`` minus
        that); None when the cards were not judged single-dummy."""
        if not self.plays or any(p.sd is None for p in self.plays):
            return None
        out = {seat: (0.0, 0.0) for seat in Seat}
        for p in self.plays:
            lost, luck = out[p.seat]
            out[p.seat] = (lost + (p.sd.cost_lines if p.sd else 0.0), luck + p.luck)
        return out

    @property
    def turning_points(self) -> tuple[PlayReview, ...]:
        """The plays that changed the result a team could force."""
        return tuple(p for p in self.plays if p.effects)

    def highlight(self) -> PlayReview | None:
        """The play most worth telling the table: the first turning point, else the costliest mistake."""
        if self.turning_points:
            return self.turning_points[0]
        if not self.mistakes:
            return None
        return max(self.mistakes, key=lambda p: p.cost)  # max keeps the first of equal costs

    def to_json(self) -> dict[str, Any]:
        """The review as plain values (docs/analysis.md)."""
        summary = self.sd_summary()
        out: dict[str, Any] = {
            "number": self.number,
            "trump": self.trump.value,
            "forehand": self.forehand.value,
            "known": self.known,
            "unknown": [str(c) for c in self.unknown],
            "par": {s.value: _points(p) for s, p in self.par.items()} if self.par else None,
            "best": None if self.best is None else _points(self.best),
            "best_lines": None if self.best_lines is None else _points(self.best_lines),
            "forced": None if self.forced is None else {
                "winner": None if self.forced.winner is None else self.forced.winner.value,
                "kapo": self.forced.kapo,
                "stake": self.forced.stake,
            },
            "played": _points(self.played),
            "plays": [p.to_json() for p in self.plays],
            "mistakes": [self.plays.index(p) for p in self.mistakes],
            "turning_points": [self.plays.index(p) for p in self.turning_points],
            "claim": None if self.claim is None else self.claim.to_json(),
            "sd_summary": None if summary is None else {
                seat.value: {"lines_lost": round(lost, 4), "luck": round(luck, 4)}
                for seat, (lost, luck) in summary.items()
            },
        }
        return out


def _points(points: Mapping[Team, int]) -> dict[str, int]:
    return {team.value: points[team] for team in Team}


def _mine(ns: int, team: Team) -> int:
    """A team's points when N+S have ``ns`` of the 40."""
    return ns if team is Team.NS else TOTAL_POINTS - ns


def _result(points: int) -> int:
    """1 won, 0 tied, -1 lost, for a team ending with ``points`` (RULES.md 19)."""
    return 1 if points >= WINNING_POINTS else (0 if points * 2 == TOTAL_POINTS else -1)


def hand_order(cards: Sequence[Card]) -> dict[Card, int]:
    """Position of each card in a hand, for listing cards the way the player holds them."""
    return {card: i for i, card in enumerate(cards)}


# --------------------------------------------------------------------------------------------- reviewing


def dealt_hands(deal: Deal) -> dict[Seat, list[Card]] | None:
    """The four hands as dealt, when known: from hand scan, or from the plays when all 24 cards were played."""
    played: dict[Seat, list[Card]] = {seat: [] for seat in Seat}
    for trick in deal.tricks:
        for play in trick.plays:
            played[play.seat].append(play.card)
    if deal.hands is not None:
        return {seat: played[seat] + list(deal.hands[seat]) for seat in Seat}
    if all(len(cards) == TRICKS_PER_DEAL for cards in played.values()):
        return played
    return None


def review_deal(deal: Deal, number: int = 1, *, compiled: bool | None = None, single: bool = True,
                first_trick: int = 1, carried: int = 0) -> DealReview:
    """Review a deal that has trumps (played out, claimed, or ended by a revoke). ``single``: judge the cards on
    what their players could know too, from trick ``first_trick`` on; ``carried``: lines carried in from earlier
    ties (``tie = "carry"``)."""
    if deal.trump is None:
        raise ValueError("a deal is reviewed once trumps are named")
    plays = [play for trick in deal.tricks for play in trick.plays]
    taken = deal.points()
    hands = dealt_hands(deal)
    if hands is None:
        seen = {play.card for play in plays}
        return DealReview(number, deal.trump, deal.forehand, False, taken,
                          unknown=tuple(c for c in DECK if c not in seen),
                          claim=_claim_unseen(deal, compiled) if deal.claimed_by is not None else None)
    announced = _announced_lines(deal)
    return review_plays(
        hands, deal.trump, deal.forehand, plays, deal.rules.direction, number=number, played_points=taken,
        announced=announced, claimed_by=deal.claimed_by, compiled=compiled,
        stakes=Stakes(deal.trump_team, announced, deal.rules.tie, carried), shown=deal.evidence.shown, single=single,
        first_trick=first_trick, announced_at=tuple(deal.announced_at.get(part, 0) for part in _parts(deal)),
    )


def review_plays(
    hands: Mapping[Seat, Sequence[Card]],
    trump: Suit,
    forehand: Seat,
    plays: Sequence[Play],
    direction: Direction = Direction.ANTICLOCKWISE,
    *,
    number: int = 1,
    played_points: Mapping[Team, int] | None = None,
    announced: int = 0,
    claimed_by: Team | None = None,
    compiled: bool | None = None,
    stakes: Stakes | None = None,
    shown: Sequence[tuple[int, Seat, Card]] = (),
    single: bool = True,
    first_trick: int = 1,
    announced_at: Sequence[int] | None = None,
) -> DealReview:
    """Review the plays of a deal from the dealt hands (the tricks follow from the rules). ``stakes``: what a result
    is worth in lines (default: the standard tie rule, ``announced``); ``shown``: the cards shown at the table, as
    ``Deal.evidence.shown``; ``single``: judge each card on what its player could know too; ``announced_at``: for each
    announced part, the cards played before it was announced (as :attr:`Deal.announced_at`; None: all before the
    first card) — a card is judged single-dummy on the stake announced before it."""
    solvers = {suit: Solver(hands, suit, direction, compiled=compiled) for suit in Suit}
    par = {suit: solvers[suit].points(forehand) for suit in Suit}
    solver = solvers[trump]
    stakes = stakes or Stakes(forehand.team, announced)
    chain = _Chain(solver, hands, trump, forehand, stakes)
    judge = Judge(trump, stakes, direction, compiled=compiled) if single else None
    seed = f"{trump.value}:" + " ".join(str(c) for seat in Seat for c in hands[seat])
    reviews: list[PlayReview] = []
    for index, (play, view) in enumerate(zip(plays, views(hands, trump, plays, shown), strict=True)):
        sd = None
        if judge is not None and chain.trick_number >= first_trick:
            known = stakes if announced_at is None else replace(
                stakes, announced=sum(1 for at in announced_at if at <= index))
            sd = judge.judge(view, chain.leader, chain.trick, play.card, chain.banked, chain.tricks, seed, known)
        reviews.append(chain.review_next(play, sd))
    start = Forced.of(par[trump], kapo=False)
    kapo = start.winner is not None and solver.kapo(forehand, start.winner)
    forced = Forced.of(par[trump], kapo=kapo, announced=announced)
    best_lines = {team: stakes.lines(team, par[trump][team], kapo) for team in Team}
    taken = dict(played_points) if played_points is not None else chain.banked_points()
    claim = chain.claim_review(claimed_by, taken) if claimed_by is not None else None
    nodes = sum(s.nodes for s in solvers.values()) + (judge.nodes if judge is not None else 0)
    return DealReview(number, trump, forehand, True, taken, (), par, dict(par[trump]), forced, tuple(reviews),
                      claim, nodes, best_lines)


def _parts(deal: Deal) -> set[str]:
    """The parts (Matt, Konter) of the standing announcements."""
    parts: set[str] = set()
    for _, announcement in deal.announcements:
        parts |= announcement.parts
    return parts


def _announced_lines(deal: Deal) -> int:
    return len(_parts(deal))


class _Chain:
    """Walks the played line, position by position, keeping what the next step needs."""

    def __init__(self, solver: Solver, hands: Mapping[Seat, Sequence[Card]], trump: Suit, forehand: Seat,
                 stakes: Stakes) -> None:
        self.solver = solver
        self.stakes = stakes
        self.trump = trump
        self.hands = {seat: list(cards) for seat, cards in hands.items()}
        self.leader = forehand
        self.trick: list[Card] = []
        self.trick_seats: list[Seat] = []
        self.played: list[Card] = []  # cards of completed tricks
        self.banked = {Team.NS: 0, Team.EW: 0}
        self.tricks = {Team.NS: 0, Team.EW: 0}
        self.trick_number = 1
        self._value: int | None = None  # N+S final points with best play from the current position

    def final_ns(self) -> int:
        """N+S final points with best play from here (cached for the position)."""
        if self._value is None:
            self._value = self.banked[Team.NS] + self.solver.value(self.leader, self.trick, self.played)
        return self._value

    def banked_points(self) -> dict[Team, int]:
        return dict(self.banked)

    def kapo(self, team: Team) -> bool:
        """Whether ``team`` can still force all six tricks from here (it must have won every trick so far, and
        best play must give it all 40 points)."""
        if self.tricks[team.other] or _mine(self.final_ns(), team) < TOTAL_POINTS:
            return False
        if not self.trick and not any(self.hands.values()):
            return self.tricks[team] == TRICKS_PER_DEAL
        return self.solver.kapo(self.leader, team, self.trick, self.played)

    def lines(self, team: Team, kapo: Mapping[Team, bool]) -> int:
        """``team``'s net lines with best play from here (``kapo``: who can force all six tricks)."""
        return self.stakes.lines(team, _mine(self.final_ns(), team), kapo[Team.NS] or kapo[Team.EW])

    def review_next(self, play: Play, sd: SingleDummy | None = None) -> PlayReview:
        """Judge the next card of the played line, then step past it."""
        seat, card = play.seat, play.card
        team = seat.team
        before = self.final_ns()
        best_value = _mine(before, team)
        hand = self.hands[seat]
        legal = legal_plays(hand, self.trick[0] if self.trick else None, self.trump)
        kapo_before = {t: self.kapo(t) for t in Team}
        lines_before = self.lines(team, kapo_before)
        trick_number = self.trick_number
        order = hand_order(hand)
        # The other legal cards: one zero-window search each says whether the team can still reach best_value.
        best_cards = [other for other in legal if other is not card and self._reaches(seat, other, best_value)]
        self._advance(seat, card)
        after = self.final_ns()
        value = _mine(after, team)
        if value == best_value and card in legal:
            best_cards.append(card)
        best_cards.sort(key=order.__getitem__)
        kapo_after = {t: self.kapo(t) for t in Team}
        effects: list[Effect] = []
        was, now = _result(best_value), _result(value)
        if now < was:
            effects.append(Effect.WIN_TO_TIE if (was, now) == (1, 0) else Effect.LOST_DEAL)
        if kapo_before[team] and not kapo_after[team]:
            effects.append(Effect.MISSED_KAPO)
        if kapo_after[team.other] and not kapo_before[team.other]:
            effects.append(Effect.ALLOWED_KAPO)
        return PlayReview(trick_number, seat, card, value, best_value, tuple(best_cards), card in legal,
                          tuple(effects), lines_before - self.lines(team, kapo_after), sd)

    def _reaches(self, seat: Seat, card: Card, target: int) -> bool:
        """Whether ``seat`` playing ``card`` now still lets his team end the deal with ``target`` points."""
        team = seat.team
        trick = [*self.trick, card]
        if len(trick) < 4:
            need = target - self.banked[team]
            return need <= 0 or self.solver.at_least(team, need, self.leader, trick, self.played)
        won = [*self.trick_seats, seat][trick_winner(trick, self.trump)]
        gained = sum(c.points for c in trick) if won.team is team else 0
        need = target - self.banked[team] - gained
        return need <= 0 or self.solver.at_least(team, need, won, (), [*self.played, *trick])

    def _advance(self, seat: Seat, card: Card) -> None:
        self.hands[seat].remove(card)
        self.trick.append(card)
        self.trick_seats.append(seat)
        if len(self.trick) == 4:
            won = self.trick_seats[trick_winner(self.trick, self.trump)]
            self.banked[won.team] += sum(c.points for c in self.trick)
            self.tricks[won.team] += 1
            self.played.extend(self.trick)
            self.trick, self.trick_seats = [], []
            self.leader = won
            self.trick_number += 1
        self._value = None

    def claim_review(self, team: Team, taken: Mapping[Team, int]) -> ClaimReview:
        best = self.final_ns()
        best_points = best if team is Team.NS else TOTAL_POINTS - best
        kapo = not self.tricks[team.other] and self.kapo(team)
        return ClaimReview(team, self.trick_number - 1, taken[team], best_points, kapo)


#: Most layouts of unseen cards a claim is searched over (a claim after trick 4 leaves 2,520; after trick 3, 369,600).
MAX_LAYOUTS = 3000


def _claim_unseen(deal: Deal, compiled: bool | None) -> ClaimReview:
    """Judge a claim made without hand scan: from the play alone when the claimers lost a trick, else by searching
    every layout of the unseen cards that agrees with the play (when there are few enough)."""
    team = deal.claimed_by
    assert team is not None and deal.trump is not None
    done = deal.completed_tricks
    points = deal.points()[team]
    if deal.tricks_won()[team.other]:
        return ClaimReview(team, len(done), points, None, False, layouts=0)
    layouts = _layouts(deal)
    if layouts is None:
        return ClaimReview(team, len(done), points, None, None, layouts=0)
    played = [c for trick in done for c in trick.cards]
    leader = done[-1].winner
    assert leader is not None
    kapo = 0
    for layout in layouts:
        solver = Solver(layout, deal.trump, deal.rules.direction, compiled=compiled, small=True)
        kapo += solver.kapo(leader, team, (), played)
    verdict = None if 0 < kapo < len(layouts) else kapo == len(layouts)
    return ClaimReview(team, len(done), points, 40 if kapo == len(layouts) else None, verdict,
                       layouts=len(layouts), kapo_layouts=kapo)


def _layouts(deal: Deal) -> list[dict[Seat, list[Card]]] | None:
    """Every way the unseen cards can lie that agrees with the play (dealt hands), or None when the play shows a
    revoke (then it proves nothing about voids) or there are more than :data:`MAX_LAYOUTS`."""
    assert deal.trump is not None
    if deal.faults:
        return None
    trump = deal.trump
    played: dict[Seat, list[Card]] = {seat: [] for seat in Seat}
    void: dict[Seat, set[Suit]] = {seat: set() for seat in Seat}
    for trick in deal.tricks:
        led = effective_suit(trick.plays[0].card, trump)
        for play in trick.plays:
            played[play.seat].append(play.card)
            suit = effective_suit(play.card, trump)
            if suit is not led and (suit is not trump or led is trump):
                void[play.seat].add(led)  # rules 13 and 15: he would have followed
    seen = {c for cards in played.values() for c in cards}
    unseen = [c for c in DECK if c not in seen]
    need = {seat: TRICKS_PER_DEAL - len(played[seat]) for seat in Seat}
    fixed = {seat: [c for c in deal.evidence.known[seat] if c not in seen] for seat in Seat}
    out: list[dict[Seat, list[Card]]] = []
    free = [c for c in unseen if not any(c in cards for cards in fixed.values())]
    hands = {seat: list(fixed[seat]) for seat in Seat}
    if any(len(hands[seat]) > need[seat] for seat in Seat):
        return None

    def place(i: int) -> bool:
        if len(out) > MAX_LAYOUTS:
            return False
        if i == len(free):
            out.append({seat: played[seat] + list(hands[seat]) for seat in Seat})
            return True
        card = free[i]
        suit = effective_suit(card, trump)
        for seat in Seat:
            if len(hands[seat]) < need[seat] and suit not in void[seat]:
                hands[seat].append(card)
                place(i + 1)
                hands[seat].pop()
        return True

    place(0)
    return None if len(out) > MAX_LAYOUTS or not out else out
