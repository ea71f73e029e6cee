"""Building the snapshot: the game, the zones and the ledger as one immutable :class:`TableState`, with its prompt.

Pure reading: nothing here changes the table. The prompt is the one gesture the table waits for, most urgent
first (docs/table.md, "Prompts").
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from tablepi.rules.cards import Card
from tablepi.rules.deal import TRICKS_PER_DEAL, Announcement
from tablepi.rules.entry import DealEntry
from tablepi.rules.house import HouseRules
from tablepi.rules.seats import Seat, Team
from tablepi.table.events import ButtonName
from tablepi.table.game import Game
from tablepi.table.ledger import WarningLedger
from tablepi.table.possible import possible_now
from tablepi.table.state import (
    CorrectionView,
    DealView,
    Evening,
    HistoryRow,
    MatchView,
    Possible,
    Prompt,
    PromptCode,
    TableConfig,
    TablePhase,
    TableState,
    TrickView,
    ZoneCardStatus,
)
from tablepi.table.zones import Zones


@dataclass(frozen=True, slots=True)
class Clock:
    """Where the table is in its event stream."""

    time: float
    events: int


def build_state(
    game: Game,
    zones: Zones,
    ledger: WarningLedger,
    *,
    rules: HouseRules,
    config: TableConfig,
    clock: Clock,
    can_undo: bool,
    asking: ButtonName | None,
    evening: Evening | None = None,
) -> TableState:
    evening = evening or Evening()
    deal = game.deal
    match = game.match
    phase = game.phase
    if deal is not None:
        dealer, forehand = deal.dealer, deal.forehand
    else:
        dealer, forehand = game.dealer, game.forehand
    tricks: tuple[TrickView, ...] = ()
    announcements: tuple[tuple[Seat, Announcement], ...] = ()
    voided: tuple[tuple[Seat, Announcement], ...] = ()
    points = {Team.NS: 0, Team.EW: 0}
    won = {Team.NS: 0, Team.EW: 0}
    shown: list[tuple[Seat, tuple[Card, ...]]] = []
    trump = game.pending_trump
    to_play = None
    trick_number = 1
    if deal is not None:
        key = (len(game.matches), game.deal_number)
        tricks = tuple(
            TrickView(i + 1, t.leader, tuple((p.seat, p.card) for p in t.plays), t.winner, t.points,
                      tuple(p.seat for p in t.plays if (*key, p.seat, p.card) in game.by_hand))
            for i, t in enumerate(deal.tricks)
        )
        announcements = tuple(deal.announcements)
        voided = tuple(deal.voided)
        points = deal.points()
        won = deal.tricks_won()
        shown = [(seat, tuple(sorted(deal.evidence.known[seat], key=lambda c: c.index))) for seat in Seat]
        trump = deal.trump
        to_play = deal.to_play if phase is TablePhase.PLAY else None
        trick_number = deal.trick_number
    warnings = list(ledger.standing)
    for _, card in zones.pending():
        warnings.extend(card.tentative)
    history = tuple(match.slate.history)
    return TableState(
        time=clock.time,
        events=clock.events,
        phase=phase,
        prompt=prompt(game, zones, rules, asking),
        deal=DealView(
            number=game.deal_number,
            dealer=dealer,
            forehand=forehand,
            next_forehand=game.forehand,
            trump=trump,
            to_play=to_play,
            trick_number=trick_number,
            tricks=tricks,
            announcements=announcements,
            voided=voided,
            shown=tuple(shown),
            scanned=tuple((seat, len(game.scan.get(seat, ()))) for seat in Seat),
            points=tuple(points.items()),
            tricks_won=tuple(won.items()),
        ),
        match=MatchView(
            number=evening.matches + len(game.matches),
            open_lines=tuple((team, match.slate.open_lines(team)) for team in Team),
            lines=tuple((team, match.slate.lines(team)) for team in Team),
            slate=history,
            last_result=history[-1].result if history else None,
            winner=match.winner,
            proposal=None if game.proposal is None else CorrectionView(
                game.proposal.number, game.proposal.entry, tuple(t for t in Team if t in game.proposal.accepted)),
        ),
        zones=zones.snapshot(),
        warnings=tuple(warnings),
        can_undo=can_undo,
        config=config,
        possible=by_hand_possible(possible_now(game, warnings=bool(ledger), can_undo=can_undo), game, zones, rules),
        names=tuple((seat, game.names[seat]) for seat in Seat if seat in game.names),
        history=evening.history + tuple(replace(row, match=row.match + evening.matches) for row in history_of(game)),
    )


def by_hand_possible(possible: Possible, game: Game, zones: Zones, rules: HouseRules) -> Possible:
    """``possible`` with who may enter a card by hand now, and, while tricks are played, which cards: those that
    may still be in his hand (:meth:`~tablepi.rules.deal.Deal.may_hold`) and lie on no other zone."""
    seats = by_hand_seats(game, zones, rules)
    deal = game.deal
    if game.phase is not TablePhase.PLAY or deal is None:
        return replace(possible, by_hand=seats)
    cards = []
    for seat in seats:
        elsewhere = {zc.card for other in Seat if other is not seat for zc in zones.cards[other]}
        cards.append((seat, tuple(card for card in deal.may_hold(seat) if card not in elsewhere)))
    return replace(possible, by_hand=seats, hand_cards=tuple(cards))


def by_hand_seats(game: Game, zones: Zones, rules: HouseRules) -> tuple[Seat, ...]:
    """Who may enter a card by hand now (docs/by-hand.md): the seat to play when nothing lies on his zone; while
    the card of the seat to play still lies there tentatively (it may yet be a show), the next seat, whose card
    settles it as a card laid on his zone would. Before trumps are named (and between deals, once the last deal's
    cards are gathered, a zone whose reader is down aside), the next forehand, who names them by hand."""
    deal = game.deal
    if game.phase is TablePhase.TRUMPS:
        return (game.forehand,)
    if game.phase is TablePhase.DEAL_OVER and not game.match.is_over and all(
            not zones.cards[s] or zones.blind(s) for s in Seat):
        # The last deal's cards are gathered (a zone whose reader is down cannot say so: it does not hold the
        # table up), so the next forehand may begin the next deal by hand: his card place, his trump choice.
        return (game.forehand,)
    if game.phase is not TablePhase.PLAY or deal is None or deal.to_play is None:
        return ()
    seat = deal.to_play
    lying = zones.cards[seat]
    if not lying:
        return (seat,)
    trick = deal.current_trick
    if all(c.status is ZoneCardStatus.TENTATIVE for c in lying) and (trick is None or len(trick.plays) < 3):
        after = rules.direction.next(seat)
        if not zones.cards[after]:
            return (after,)
    return ()


def history_of(game: Game) -> tuple[HistoryRow, ...]:
    """Every scored deal of every match of this game, in order, its matches numbered from 1."""
    rows: list[HistoryRow] = []
    hand_deals = {(match, deal) for match, deal, _, _ in game.by_hand}
    for number, match in enumerate(game.matches, start=1):
        for entry, source in match.scored():
            trumps = source.trumps if isinstance(source, DealEntry) else source.forehand
            by_hand = entry.number in match.entered or (number, entry.number) in hand_deals
            rows.append(HistoryRow(number, entry, trumps, by_hand, entry.number in match.corrected))
    return tuple(rows)


def prompt(game: Game, zones: Zones, rules: HouseRules, asking: ButtonName | None) -> Prompt:
    """The one gesture the table waits for, most urgent first (docs/table.md)."""
    if asking is not None:
        return Prompt(PromptCode.CHOOSE_SEAT, button=asking)
    for seat in Seat:
        for zc in zones.cards[seat]:
            if zc.status is ZoneCardStatus.STRAY:
                return Prompt(PromptCode.LIFT_CARD, seat, card=zc.card, uid=zc.uid)
    for seat, (card, _) in zones.lifted.items():
        return Prompt(PromptCode.PUT_BACK, seat, card=card)
    phase = game.phase
    if phase is TablePhase.TRUMPS:
        return Prompt(PromptCode.NAME_TRUMPS, game.forehand)
    if phase is TablePhase.HAND_SCAN:
        for seat in rules.direction.order_from(game.forehand):
            count = len(game.scan[seat])
            if count < TRICKS_PER_DEAL:  # rule 8: a hand is six cards, one a trick
                return Prompt(PromptCode.SCAN_HAND, seat, count=count)
    if phase is TablePhase.MATCH_OVER:
        return Prompt(PromptCode.MATCH_OVER, winner=game.match.winner)
    deal = game.deal
    last_winner = deal.tricks[-1].winner if deal is not None and deal.tricks else None
    if phase is TablePhase.DEAL_OVER:
        if zones.settled():
            return Prompt(PromptCode.SWEEP, last_winner)
        return Prompt(PromptCode.NEXT_DEAL, game.dealer, forehand=game.forehand)
    assert deal is not None
    to_play = deal.to_play
    assert to_play is not None
    trick = deal.current_trick
    blocking = [c for c in zones.cards[to_play] if c.status is not ZoneCardStatus.TENTATIVE]
    if trick is None and blocking:
        if deal.tricks:
            return Prompt(PromptCode.SWEEP, to_play, trick=len(deal.tricks))
        return Prompt(PromptCode.LIFT_CARD, to_play, card=blocking[0].card, uid=blocking[0].uid)
    return Prompt(PromptCode.PLAY, to_play, trick=deal.trick_number, lead=trick is None)
