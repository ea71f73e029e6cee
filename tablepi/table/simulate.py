"""Scripted players: whole matches as table events, the way hands and zones would produce them.

Used to write example records, to drive the crash test and the benchmark, and by the app's demo mode. The players
are simple (a random legal card; Matt announced when held, trumps named from the first three cards) but the
gestures are real: taps to name trumps and to announce, lays that stay, sweeps after each trick, with times.
With ``mistakes`` they also misbehave now and then (a card laid out of turn and taken back, a phone on a zone, a
card lifted too early and put back, a wrong card undone, a revoke), so the records exercise the warnings.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Mapping
from dataclasses import dataclass, field

from tablepi.rules.cards import DECK, MATT, Card, Suit
from tablepi.rules.deal import TRICKS_PER_DEAL, WINNING_POINTS, Announcement, Deal
from tablepi.rules.house import HouseRules, RevokePenalty
from tablepi.rules.play import trick_winner
from tablepi.rules.seats import Seat
from tablepi.rules.slate import Match
from tablepi.rules.trumps import strength
from tablepi.table.events import Button, ButtonName, CardLifted, CardPlaced, TableEvent, Tick
from tablepi.table.state import TableConfig

PHONE_UID = "04DEADBEEF0042"


@dataclass(slots=True)
class _Clock:
    now: float = 0.0

    def step(self, seconds: float) -> float:
        self.now = round(self.now + seconds, 3)
        return self.now


@dataclass(slots=True)
class Script:
    """A simulated match: the events, and what the rules core says came of it (for checking the table)."""

    rules: HouseRules
    dealer: Seat
    config: TableConfig
    events: list[TableEvent] = field(default_factory=list)
    match: Match | None = None
    deals: int = 0


def simulate_match(
    seed: int,
    rules: HouseRules | None = None,
    dealer: Seat = Seat.N,
    config: TableConfig | None = None,
    mistakes: bool = False,
    claims: bool = True,
    skill: Mapping[Seat, float] | None = None,
) -> Script:
    """Play one whole match with scripted players and return its events. With ``skill`` a seat plays, that often
    (0 to 1), a sensible card instead of a random legal one (:func:`_sensible`): players of different strength, for
    the players' book's rating benchmark."""
    rules = rules or HouseRules()
    config = config or TableConfig()
    rng = random.Random(seed)
    clock = _Clock()
    script = Script(rules, dealer, config)
    out = script.events
    match = Match(rules, dealer)
    lay = config.tap_window * 0.6  # between two players' cards: the next card settles the previous one
    while not match.is_over:
        cards = list(DECK)
        rng.shuffle(cards)
        deal_dealer = match.dealer
        forehand = rules.direction.next(deal_dealer)
        order = rules.direction.order_from(forehand)
        size = TRICKS_PER_DEAL  # rule 8: six cards a hand, one a trick
        hands = {seat: cards[i * size : (i + 1) * size] for i, seat in enumerate(order)}
        deal = match.new_deal(hands if config.hand_scan else None)
        # Rule 9: forehand names trumps from his first three cards, by tapping one of that suit.
        first = hands[forehand][:3]
        suit = max(Suit, key=lambda s: sum(1 for c in first if c.suit is s))
        trump_card = next(c for c in first if c.suit is suit)
        out.append(CardPlaced(clock.step(2.0), forehand, trump_card))
        out.append(CardLifted(clock.step(0.3), forehand, trump_card))
        deal.choose_trump(suit, forehand)
        # The simulator's own full view, to choose legal cards. It never ends the deal on a revoke: only what the
        # table can know (``deal``) decides that under house rule lose_deal.
        known = Deal(deal_dealer, dataclasses.replace(rules, revoke_penalty=RevokePenalty.WARN), hands)
        known.choose_trump(suit, forehand)
        if config.hand_scan:
            for seat in order:
                for card in hands[seat]:
                    out.append(CardPlaced(clock.step(0.4), seat, card))
                    out.append(CardLifted(clock.step(0.2), seat, card))
        if mistakes and rng.random() < 0.3:
            victim = rng.choice(list(Seat))
            out.append(CardPlaced(clock.step(0.5), victim, None, PHONE_UID))
            out.append(CardLifted(clock.step(1.5), victim, None, PHONE_UID))
            out.append(Button(clock.step(0.5), ButtonName.CONFIRM))
        clock.step(1.0)
        acknowledge = False
        while not deal.is_over:
            to_play = deal.to_play
            assert to_play is not None
            seat = to_play
            # Announcements (rule 10): a player holding ♠Q taps it before his first card.
            if deal.can_announce(seat) and MATT in hands[seat] and not deal.announcements and rng.random() < 0.5:
                out.append(CardPlaced(clock.step(0.4), seat, MATT))
                out.append(CardLifted(clock.step(0.3), seat, MATT))
                deal.announce(seat, Announcement.MATT, shown=(MATT,))
                known.announce(seat, Announcement.MATT, shown=(MATT,))
            legal = known.legal_plays(seat)
            card = rng.choice(legal)
            if skill is not None and rng.random() < skill.get(seat, 0.0):
                card = _sensible(legal, known, seat)
            if mistakes and deal.current_trick is not None and rng.random() < 0.04:
                # A revoke (rule 18): a card that does not answer the lead while he holds one that does.
                wrong = [c for c in hands[seat] if c not in legal]
                if wrong:
                    card = rng.choice(wrong)
            if mistakes and deal.current_trick is not None and rng.random() < 0.05:
                _out_of_turn(out, clock, rules, deal, seat, hands, rng, lay)
            if mistakes and rng.random() < 0.03:
                _undone_play(out, clock, seat, card, known, lay)
            out.append(CardPlaced(clock.step(lay), seat, card))
            deal.play(seat, card, check=False)
            if known.play(seat, card, check=False):
                acknowledge = True  # the table shows a warning: someone touches confirm after the trick
            hands[seat].remove(card)
            trick = deal.tricks[-1]
            if deal.is_over and not trick.complete:  # a revoke lost the deal (house rule lose_deal)
                out.append(Tick(clock.step(config.tap_window + 0.5)))
                for play in trick.plays:
                    out.append(CardLifted(clock.step(0.1), play.seat, play.card))
            if mistakes and not trick.complete and len(trick.plays) >= 2 and rng.random() < 0.04:
                early = trick.plays[0]
                out.append(CardLifted(clock.step(lay), early.seat, early.card))
                out.append(CardPlaced(clock.step(0.8), early.seat, early.card))
            if trick.complete:
                clock.step(config.tap_window + 0.5)
                out.append(Tick(clock.now))
                for play in trick.plays:
                    out.append(CardLifted(clock.step(0.1), play.seat, play.card))
                if acknowledge:
                    out.append(Button(clock.step(0.5), ButtonName.CONFIRM))
                    acknowledge = False
                done = len(deal.completed_tricks)
                if claims and rules.claims and done < TRICKS_PER_DEAL and not deal.is_over:
                    points = deal.points()
                    for team, score in points.items():
                        if score >= WINNING_POINTS and rng.random() < 0.5:
                            out.append(Button(clock.step(1.0), ButtonName.CLAIM, team.seats[0]))
                            deal.claim(team)
                            break
                clock.step(0.5)
        match.finish_deal()
        script.deals += 1
        clock.step(3.0)
    script.match = match
    return script


def _sensible(legal: tuple[Card, ...], deal: Deal, seat: Seat) -> Card:
    """A card a thinking player would play: when the partner wins the trick, the most points; when a card wins it,
    the cheapest winner; otherwise the fewest points. A lead is the strongest card held."""
    trump = deal.trump
    assert trump is not None
    trick = deal.current_trick
    if trick is None or not trick.plays:
        return max(legal, key=lambda c: strength(c, trump))
    cards = [play.card for play in trick.plays]
    if trick.plays[trick_winner(cards, trump)].seat is seat.partner:
        return max(legal, key=lambda c: (c.points, -strength(c, trump)))
    winners = [c for c in legal if trick_winner([*cards, c], trump) == len(cards)]
    if winners:
        return min(winners, key=lambda c: (strength(c, trump), c.points))
    return min(legal, key=lambda c: (c.points, strength(c, trump)))


def _out_of_turn(
    out: list[TableEvent], clock: _Clock, rules: HouseRules, deal: Deal, seat: Seat,
    hands: dict[Seat, list[Card]], rng: random.Random, lay: float,
) -> None:
    """A player further round lays a card too soon, sees the warning and takes it back."""
    other = rules.direction.next(seat)
    trick = deal.current_trick
    if trick is None or trick.card_of(other) is not None or not hands[other]:
        return
    card = rng.choice(hands[other])
    out.append(CardPlaced(clock.step(lay), other, card))
    out.append(CardLifted(clock.step(2.0), other, card))
    out.append(Button(clock.step(0.5), ButtonName.CONFIRM))


def _undone_play(
    out: list[TableEvent], clock: _Clock, seat: Seat, card: Card, known: Deal, lay: float
) -> None:
    """A player lays the wrong card, presses undo, takes it back and lays another (the right one follows)."""
    legal = known.legal_plays(seat)
    wrong = next((c for c in legal if c != card), None)
    if wrong is None:
        return
    out.append(CardPlaced(clock.step(lay), seat, wrong))
    out.append(Tick(clock.step(1.5)))
    out.append(Button(clock.step(0.5), ButtonName.UNDO))
    out.append(CardLifted(clock.step(0.5), seat, wrong))
