"""The referee against everything real hands can do at a bar table, checked after every step.

A hypothesis state machine drives one :class:`Table` with physical gestures: a card (any of the 24, a card of a
second deck, or an unknown tag) laid on any zone, whatever lies on a zone lifted, any button pressed with or
without a seat, a zone's reader going offline and coming back (with its snapshot of what lies there now), and time
passing. Helper rules play whole honest tricks so that deals and matches do end. A model keeps the physical truth:
what lies on each zone, and what each zone's reader last told the table.

After every step:

- ``apply`` never raised;
- each zone of the state holds exactly what physically lies on it (for a zone whose reader is offline: what the
  reader last reported);
- what the table accepted as played obeys the rules: the order of play (rule 12), one card once, the winner of
  each trick (rule 17), and a fresh rules ``Deal`` fed the same plays agrees on tricks, winners, points and result;
- completed tricks of a deal hold at most 40 points, exactly 40 when all six are complete (rule 19);
- the slate is what the rules core's ``Slate`` makes of the deals' results, and never below zero (rule 28);
- a card the table accepted as played lay on that seat's zone;
- every few steps, and at the end: the same events replayed into a new table give an equal state.

And where the protocol promises it (docs/table.md, "Undo"): undo followed by the same gesture again gives back the
same state, up to the clock.
"""

from __future__ import annotations

import dataclasses

from hypothesis import HealthCheck, Phase, event, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from tablepi.rules import (
    DECK,
    Announcement,
    Card,
    Deal,
    DealResult,
    FaultCode,
    HouseRules,
    RevokePenalty,
    Seat,
    Slate,
    Suit,
    Team,
    settle,
    trick_winner,
)
from tablepi.rules.entry import DealEntry
from tablepi.table import (
    Button,
    ButtonName,
    CardLifted,
    CardPlaced,
    PromptCode,
    ReaderState,
    ReaderStatus,
    Table,
    TableConfig,
    TableEvent,
    TablePhase,
    TableState,
    Tick,
    ZoneCardStatus,
)
from tablepi.table.events import (
    CardEntered,
    CorrectionAnswered,
    CorrectionProposed,
    DealEntered,
    DealerChosen,
    PlayersSeated,
    TrumpsEntered,
)
from tablepi.table.game import (
    Announce,
    AnswerCorrection,
    ChooseDealer,
    Claim,
    EnterDeal,
    NameTrump,
    PlayCard,
    ProposeCorrection,
    SeatPlayers,
)

DECK_NAME = "blue"
WINDOW = 1.0


class Thing:
    """One physical object that can lie on a zone: a card of the deck, of a second deck, or a stranger's tag."""

    __slots__ = ("card", "deck", "uid")

    def __init__(self, card: Card | None, uid: str, deck: str) -> None:
        self.card = card
        self.uid = uid
        self.deck = deck

    def placed(self, time: float, seat: Seat) -> CardPlaced:
        return CardPlaced(time, seat, self.card, self.uid, self.deck)

    def lifted(self, time: float, seat: Seat) -> CardLifted:
        return CardLifted(time, seat, self.card, self.uid, self.deck)

    def __repr__(self) -> str:
        return f"<{self.card or 'tag'} {self.uid}>"


CARDS = [Thing(card, f"04B{card.index:02d}", DECK_NAME) for card in DECK]
OTHERS = [
    Thing(Card.parse("QS"), "04R10", "red"),  # the same card of a second deck
    Thing(None, "04DEADBEEF0042", ""),  # a phone
    Thing(None, "04BA4C", ""),  # a bank card
]
THINGS = CARDS + OTHERS
BY_CARD = {thing.card: thing for thing in CARDS}

delays = st.sampled_from([0.0, 0.05, 0.3, 0.6, 0.99, 1.0, 1.5, 3.0])
seats = st.sampled_from(list(Seat))
# Every button; those that end the match in play come up less often, so that deals get finished.
buttons = st.sampled_from([b for b in ButtonName if b not in (ButtonName.NEW_MATCH, ButtonName.REVANCHE)] * 4
                          + [ButtonName.NEW_MATCH, ButtonName.REVANCHE])


@st.composite
def deal_entries(draw: st.DrawFn) -> DealEntry:
    """Any deal players could tell by hand: the rules core's own check refuses the rest."""
    winner = draw(st.sampled_from([Team.NS, Team.EW, None]))
    kapo = winner is not None and draw(st.booleans())
    points = None if winner is None or kapo else draw(st.none() | st.integers(21, 40))
    matt = draw(st.none() | seats)
    konter = draw(st.none() | seats)
    announcements: list[tuple[Seat, Announcement]] = []
    if matt is not None and matt is konter:
        announcements.append((matt, Announcement.KONTER_A_MATT))
    else:
        announcements += [(s, a) for s, a in ((matt, Announcement.MATT), (konter, Announcement.KONTER)) if s]
    claimed = winner if winner is not None and draw(st.booleans()) else None
    return DealEntry(draw(seats), winner, points, kapo, claimed, tuple(announcements))


entries = deal_entries()


def strip_clock(state: TableState) -> TableState:
    """The state without the clock: the time, the event count, when each card was placed, and the order in which
    the warnings on screen were raised (a warning raised again is newer than one that stayed)."""
    zones = tuple(
        dataclasses.replace(zone, cards=tuple(dataclasses.replace(c, placed=0.0) for c in zone.cards))
        for zone in state.zones
    )
    warnings = tuple(sorted(state.warnings, key=repr))
    return dataclasses.replace(state, time=0.0, events=0, zones=zones, warnings=warnings)


def replay_deal(deal: Deal, rules: HouseRules) -> Deal:
    """The same plays through a fresh rules Deal, unchecked (the table referees, it does not refuse).

    The replay never ends a deal on a revoke: it does not know what the table saw (shows, claims by touch), so
    the table's own revoke penalty is taken by :func:`result_of`, and checked against the table's faults."""
    fresh = Deal(deal.dealer, dataclasses.replace(rules, revoke_penalty=RevokePenalty.WARN))
    if deal.trump is None:
        return fresh
    fresh.choose_trump(deal.trump, deal.forehand)
    for seat, announcement in deal.announcements:
        fresh.announce(seat, announcement, shown=announcement.cards)
    for trick in deal.tricks:
        for play in trick.plays:
            fresh.play(play.seat, play.card, check=False)
    if deal.claimed_by is not None:
        fresh.claim(deal.claimed_by)
    return fresh


def result_of(fresh: Deal, deal: Deal) -> DealResult:
    """The result the rules core gives the replayed plays, with the table's claim or revoke penalty (the rules
    core decides those from what was shown, which the replay does not repeat)."""
    return settle(
        deal.trump_team, fresh.points(), fresh.tricks_won(), tuple(deal.announcements),
        claimed_by=deal.claimed_by, revoke_by=deal.revoke_by,
    )


class TableAtTheBar(RuleBasedStateMachine):
    """Physical hands on a real table; the model is the physical truth."""

    def __init__(self) -> None:
        super().__init__()
        self.table = Table()
        self.rules = HouseRules()
        self.config = TableConfig()
        self.events: list[TableEvent] = []
        self.time = 0.0
        self.truth: dict[Seat, list[Thing]] = {seat: [] for seat in Seat}  # what lies on each zone
        self.told: dict[Seat, list[Thing]] = {seat: [] for seat in Seat}  # what its reader last reported
        self.online: dict[Seat, bool] = dict.fromkeys(Seat, True)
        self.before: dict[Seat, list[Thing]] = {seat: [] for seat in Seat}  # told, at the end of the last step
        self.touched: dict[Seat, set[Thing]] = {seat: set() for seat in Seat}  # reported placed during this step
        self.plays: set[tuple[int, int, Seat, Card]] = set()
        self.dealer = Seat.N
        self.steps = 0
        self.hands: dict[Seat, set[Card | None]] = {seat: set() for seat in Seat}  # what the model scanned
        self.by_hand: set[tuple[int, int, Seat, Card]] = set()  # plays entered on the screen (never on a zone)

    @initialize(
        penalty=st.sampled_from(["warn", "lose_deal"]),
        tie=st.sampled_from(["standard", "plus_one", "carry"]),
        direction=st.sampled_from(["anticlockwise", "clockwise"]),
        dealer=seats,
        scan=st.booleans(),
    )
    def setup(self, penalty: str, tie: str, direction: str, dealer: Seat, scan: bool) -> None:
        self.rules = HouseRules.from_mapping(
            {"revoke_penalty": penalty, "tie": tie, "direction": direction, "start_lines": 3}
        )
        self.config = TableConfig(tap_window=WINDOW, deck=DECK_NAME, hand_scan=scan)
        self.dealer = dealer
        self.table = Table(self.rules, dealer, self.config)

    # --- feeding the table --------------------------------------------------------------------------------------

    def feed(self, event: TableEvent) -> TableState:
        self.events.append(event)
        return self.table.apply(event)  # never raises: a raise fails the test with the events so far

    def later(self, delay: float) -> float:
        self.time = round(self.time + delay, 3)
        return self.time

    def where(self, thing: Thing) -> Seat | None:
        return next((seat for seat in Seat if thing in self.truth[seat]), None)

    def put(self, thing: Thing, seat: Seat, delay: float) -> None:
        """Physically lay ``thing`` on ``seat``'s zone; its reader reports it if it is online."""
        assert self.where(thing) is None
        time = self.later(delay)
        self.truth[seat].append(thing)
        if self.online[seat]:
            self.told[seat].append(thing)
            self.touched[seat].add(thing)
            self.feed(thing.placed(time, seat))

    def take(self, thing: Thing, seat: Seat, delay: float) -> None:
        time = self.later(delay)
        self.truth[seat].remove(thing)
        if self.online[seat]:
            self.told[seat].remove(thing)
            self.feed(thing.lifted(time, seat))

    def free(self) -> list[Thing]:
        lying = {thing for things in self.truth.values() for thing in things}
        return [thing for thing in THINGS if thing not in lying]

    # --- what hands do ------------------------------------------------------------------------------------------

    @precondition(lambda self: self.free())
    @rule(data=st.data(), seat=seats, delay=delays)
    def lay_anything(self, data: st.DataObject, seat: Seat, delay: float) -> None:
        """Any free card or tag, on any zone, occupied or not."""
        thing = data.draw(st.sampled_from(self.free()), label="thing")
        self.put(thing, seat, delay)

    @precondition(lambda self: any(self.truth.values()))
    @rule(data=st.data(), delay=delays)
    def lift_anything(self, data: st.DataObject, delay: float) -> None:
        seat = data.draw(st.sampled_from([s for s in Seat if self.truth[s]]), label="zone")
        thing = data.draw(st.sampled_from(self.truth[seat]), label="thing")
        self.take(thing, seat, delay)

    @rule(name=buttons, seat=st.none() | seats, delay=delays)
    def press(self, name: ButtonName, seat: Seat | None, delay: float) -> None:
        self.feed(Button(self.later(delay), name, seat))

    @rule(delay=delays)
    def time_passes(self, delay: float) -> None:
        self.feed(Tick(self.later(delay)))

    @precondition(lambda self: any(self.online.values()))
    @rule(data=st.data(), state=st.sampled_from([ReaderState.OFFLINE, ReaderState.FAULT]), delay=delays)
    def reader_goes_offline(self, data: st.DataObject, state: ReaderState, delay: float) -> None:
        seat = data.draw(st.sampled_from([s for s in Seat if self.online[s]]), label="zone")
        self.online[seat] = False
        self.feed(ReaderStatus(self.later(delay), seat, state))

    @precondition(lambda self: not all(self.online.values()))
    @rule(data=st.data(), delay=delays)
    def reader_comes_back(self, data: st.DataObject, delay: float) -> None:
        """The reader is online again and reports what lies there now: lifts for cards gone, places for new."""
        seat = data.draw(st.sampled_from([s for s in Seat if not self.online[s]]), label="zone")
        self.online[seat] = True
        time = self.later(delay)
        self.feed(ReaderStatus(time, seat, ReaderState.ONLINE))
        for thing in list(self.told[seat]):
            if thing not in self.truth[seat]:
                self.told[seat].remove(thing)
                self.feed(thing.lifted(time, seat))
        for thing in self.truth[seat]:
            if thing not in self.told[seat]:
                self.told[seat].append(thing)
                self.touched[seat].add(thing)
                self.feed(thing.placed(time, seat))

    # --- honest play, so that deals and matches end --------------------------------------------------------------

    def honest_ready(self) -> bool:
        return all(self.online.values())

    def tidy(self) -> None:
        """Everything lying on the zones is taken off (stray cards, swept tricks, a phone), oldest zone first."""
        for seat in Seat:
            for thing in list(self.truth[seat]):
                self.take(thing, seat, 0.1)

    @precondition(lambda self: self.honest_ready() and self.table.state.phase is TablePhase.TRUMPS)
    @rule(data=st.data())
    def forehand_names_trumps(self, data: st.DataObject) -> None:
        self.tidy()
        self.hands = {seat: set() for seat in Seat}
        forehand = self.table.state.deal.forehand
        choices = [t for t in self.free() if t.deck == DECK_NAME]
        thing = data.draw(st.sampled_from(choices), label="trump card")
        self.put(thing, forehand, 1.0)
        self.take(thing, forehand, 0.3)

    @precondition(lambda self: self.honest_ready() and self.table.state.phase is TablePhase.HAND_SCAN)
    @rule(data=st.data())
    def hands_are_scanned(self, data: st.DataObject) -> None:
        """Hand-scan mode: each player taps the cards of his hand until the table has six of each."""
        self.tidy()
        order = self.rules.direction.order_from(self.table.state.deal.forehand)
        for seat in order:
            while self.table.state.phase is TablePhase.HAND_SCAN and dict(self.table.state.deal.scanned)[seat] < 6:
                taken = {card for hand in self.hands.values() for card in hand}
                choices = [t for t in CARDS if t.card not in taken and self.where(t) is None]
                if not choices:
                    return
                thing = data.draw(st.sampled_from(choices), label="scanned")
                self.hands[seat].add(thing.card)
                self.put(thing, seat, 0.3)
                self.take(thing, seat, 0.2)

    @precondition(lambda self: self.honest_ready() and self.table.state.phase is TablePhase.PLAY)
    @rule(data=st.data())
    def a_trick_is_played_and_swept(self, data: st.DataObject) -> None:
        """Whoever is to play lays a free card and leaves it; the fourth card closes the trick; all is swept."""
        self.tidy()
        for _ in range(4):
            state = self.table.state
            seat = state.deal.to_play
            if state.phase is not TablePhase.PLAY or seat is None or self.truth[seat]:
                break
            played = {card for trick in state.deal.tricks for _, card in trick.plays}
            choices = [t for t in self.free() if t.deck == DECK_NAME and t.card not in played]
            if len(self.hands[seat]) == 6:  # his hand was scanned: he plays one of its cards
                choices = [t for t in choices if t.card in self.hands[seat]] or choices
            if not choices:
                break
            self.put(data.draw(st.sampled_from(choices), label="card"), seat, 0.6)
            self.feed(Tick(self.later(WINDOW + 0.2)))
        self.tidy()

    @precondition(lambda self: self.honest_ready() and self.table.state.phase is not TablePhase.MATCH_OVER)
    @rule(data=st.data())
    def a_whole_deal_is_played(self, data: st.DataObject) -> None:
        """From wherever the table is, honest hands carry on to the end of the deal (or give up after six tricks)."""
        if self.table.state.phase is TablePhase.DEAL_OVER:
            self.tidy()
            self.feed(Button(self.later(1.0), ButtonName.CONFIRM))  # acknowledge, or move on to the next deal
            self.feed(Button(self.later(1.0), ButtonName.CONFIRM))
        if self.table.state.phase is TablePhase.TRUMPS:
            self.forehand_names_trumps(data)
        if self.table.state.phase is TablePhase.HAND_SCAN:
            self.hands_are_scanned(data)
        for _ in range(6):
            if self.table.state.phase is not TablePhase.PLAY:
                break
            self.a_trick_is_played_and_swept(data)

    # --- undo, then the same gesture again ------------------------------------------------------------------------

    def settled(self) -> bool:
        """Nothing tentative on the table, every reader online, no touch waiting for its seat: the last action is
        what undo will drop (undo first lays a tentative card, or withdraws the question)."""
        state = self.table.state
        return self.honest_ready() and state.prompt.code is not PromptCode.CHOOSE_SEAT and all(
            c.status is not ZoneCardStatus.TENTATIVE for zone in state.zones for c in zone.cards
        )

    @precondition(lambda self: self.settled() and self.table.last_action is not None)
    @rule()
    def undo_then_the_same_gesture_again(self) -> None:
        action = self.table.last_action
        before = strip_clock(self.table.state)
        acknowledged = set(self.table.warning_log) - set(before.warnings)
        if isinstance(action, PlayCard) and not action.by_hand:
            thing = BY_CARD[action.card]
            lying = self.table.state.zone(action.seat).cards
            if self.truth[action.seat] != [thing] or lying[0].status is not ZoneCardStatus.PLAYED:
                return  # the card is not alone on its zone, as played: laying it again is another gesture
            self.feed(Button(self.later(0.5), ButtonName.UNDO))
            self.take(thing, action.seat, 0.5)
            self.put(thing, action.seat, 0.5)
            self.feed(Tick(self.later(WINDOW + 0.1)))
        elif isinstance(action, PlayCard) and action.by_hand:
            self.feed(Button(self.later(0.5), ButtonName.UNDO))
            self.feed(CardEntered(self.later(0.5), action.seat, action.card))
        elif isinstance(action, EnterDeal):
            self.feed(Button(self.later(0.5), ButtonName.UNDO))
            self.feed(DealEntered(self.later(0.5), action.entry))
        elif isinstance(action, ProposeCorrection):
            self.feed(Button(self.later(0.5), ButtonName.UNDO))
            self.feed(CorrectionProposed(self.later(0.5), action.number, action.entry))
        elif isinstance(action, AnswerCorrection):
            self.feed(Button(self.later(0.5), ButtonName.UNDO))
            self.feed(CorrectionAnswered(self.later(0.5), action.team, action.accept))
        elif isinstance(action, SeatPlayers):
            self.feed(Button(self.later(0.5), ButtonName.UNDO))
            self.feed(PlayersSeated(self.later(0.5), action.names))
        elif isinstance(action, ChooseDealer):
            self.feed(Button(self.later(0.5), ButtonName.UNDO))
            self.feed(DealerChosen(self.later(0.5), action.seat))
        elif isinstance(action, NameTrump) and action.card is None:
            self.feed(Button(self.later(0.5), ButtonName.UNDO))
            self.feed(Button(self.later(0.5), ButtonName.trump(action.suit)))
        elif isinstance(action, Announce):
            self.feed(Button(self.later(0.5), ButtonName.UNDO))
            name = next(b for b in ButtonName if b.announcement is action.announcement)
            self.feed(Button(self.later(0.5), name, action.seat))
        elif isinstance(action, Claim):
            self.feed(Button(self.later(0.5), ButtonName.UNDO))
            self.feed(Button(self.later(0.5), ButtonName.CLAIM, action.team.seats[0]))
        else:
            return
        after = strip_clock(self.table.state)
        # The same play raises its warnings again, even those the players had acknowledged with confirm.
        again = set(after.warnings) - set(before.warnings)
        assert again <= acknowledged, f"undo then {action} again raised {again}"
        kept = tuple(w for w in after.warnings if w not in again)
        assert dataclasses.replace(after, warnings=kept) == before, f"undo then {action} again changed the table"

    # --- by hand (the screen instead of the cards) ---------------------------------------------------------------

    @precondition(lambda self: self.table.state.phase is TablePhase.PLAY)
    @rule(data=st.data(), delay=delays)
    def a_card_by_hand(self, data: st.DataObject, delay: float) -> None:
        """A card entered on the screen: by the seat to play (most often) or any other, any card not yet played."""
        state = self.table.state
        to_play = state.deal.to_play
        assert to_play is not None
        seat = data.draw(st.sampled_from([to_play] * 3 + list(Seat)))
        played = {card for trick in state.deal.tricks for _, card in trick.plays}
        card = data.draw(st.sampled_from([c for c in DECK if c not in played]))
        match = len(self.table.matches) - 1
        deal = len(self.table.matches[-1].deals) - 1
        self.feed(CardEntered(self.later(delay), seat, card))
        self.by_hand.add((match, deal, seat, card))

    @rule(data=st.data(), suit=st.sampled_from(list(Suit)), delay=delays)
    def trumps_by_hand(self, data: st.DataObject, suit: Suit, delay: float) -> None:
        """Trumps named on the screen, by forehand (most often) or another seat, at any moment: between deals it
        begins the deal; refused (a warning, nothing changes) from another seat or once trumps are named."""
        state = self.table.state
        seat = data.draw(st.sampled_from([state.deal.next_forehand] * 3 + list(Seat)))
        if state.phase in (TablePhase.TRUMPS, TablePhase.DEAL_OVER) and seat is state.deal.next_forehand:
            self.hands = {seat: set() for seat in Seat}  # a new deal's hands, as when trumps are named by a card
        self.feed(TrumpsEntered(self.later(delay), seat, suit))

    @precondition(lambda self: self.table.state.phase is not TablePhase.MATCH_OVER)
    @rule(entry=entries, delay=delays)
    def a_deal_by_hand(self, entry: DealEntry, delay: float) -> None:
        self.feed(DealEntered(self.later(delay), entry))

    @precondition(lambda self: bool(self.table.state.match.slate))
    @rule(data=st.data(), entry=entries, delay=delays)
    def a_correction_is_answered(self, data: st.DataObject, entry: DealEntry, delay: float) -> None:
        number = data.draw(st.integers(1, len(self.table.state.match.slate)))
        self.feed(CorrectionProposed(self.later(delay), number, entry))
        for team in data.draw(st.permutations(list(Team))):
            self.feed(CorrectionAnswered(self.later(0.5), team, data.draw(st.booleans())))

    @rule(seat=seats, delay=delays)
    def the_first_dealer_is_chosen(self, seat: Seat, delay: float) -> None:
        """Refused (a warning, nothing changes) once the match's first trumps are named."""
        self.feed(DealerChosen(self.later(delay), seat))

    @rule(seat=seats, name=st.sampled_from(["Jang", "Marie", "Anna", "Guillaume"]), delay=delays)
    def a_player_sits_down(self, seat: Seat, name: str, delay: float) -> None:
        self.feed(PlayersSeated(self.later(delay), ((seat, name),)))

    # --- invariants ----------------------------------------------------------------------------------------------

    @invariant()
    def zones_are_the_physical_truth(self) -> None:
        state = self.table.state
        for seat in Seat:
            expected = self.truth[seat] if self.online[seat] else self.told[seat]
            lying = sorted((str(c.card), c.uid) for c in state.zone(seat).cards)
            assert lying == sorted((str(t.card), t.uid) for t in expected), f"zone {seat}"

    @invariant()
    def accepted_plays_obey_the_rules(self) -> None:
        for match in self.table.matches:
            for deal in match.deals:
                self.check_deal(deal)

    def check_deal(self, deal: Deal) -> None:
        cards = [play.card for trick in deal.tricks for play in trick.plays]
        assert len(cards) == len(set(cards)), "a card played twice in one deal"
        assert sum(t.points for t in deal.completed_tricks) <= 40
        if len(deal.completed_tricks) == 6:
            assert sum(t.points for t in deal.completed_tricks) == 40
        leader = deal.forehand
        for number, trick in enumerate(deal.tricks, 1):
            assert trick.leader is leader, f"trick {number} led by {trick.leader}, not {leader} (rule 12)"
            seat = leader
            for play in trick.plays:
                assert play.seat is seat, f"trick {number}: {play} out of order (rule 12)"
                seat = self.rules.direction.next(seat)
            if trick.complete:
                assert deal.trump is not None
                winner = trick.plays[trick_winner(trick.cards, deal.trump)].seat
                assert trick.winner is winner, f"trick {number} won by {trick.winner}, not {winner} (rule 17)"
                leader = winner
            else:
                assert trick is deal.tricks[-1], "an incomplete trick before the last"
        fresh = replay_deal(deal, self.rules)
        assert [(t.leader, t.plays, t.winner) for t in fresh.tricks] == [
            (t.leader, t.plays, t.winner) for t in deal.tricks
        ]
        assert fresh.points() == deal.points() and fresh.tricks_won() == deal.tricks_won()
        if deal.claimed_by is not None:  # rule 21: a claim needs 21, and no card follows it
            assert deal.points()[deal.claimed_by] >= 21 and not any(not t.complete for t in deal.tricks)
        if deal.revoke_by is not None:  # house rule lose_deal: only on a revoke the table saw
            assert any(f.code is FaultCode.REVOKE and f.seat is deal.revoke_by for f in deal.faults)
        if deal.is_over:
            assert len(deal.completed_tricks) == 6 or deal.claimed_by or deal.revoke_by
            assert result_of(fresh, deal) == deal.result()

    @invariant()
    def the_slate_is_the_rules_slate(self) -> None:
        state = self.table.state
        match = self.table.matches[-1]
        slate = Slate(self.rules)
        for scored, source in match.scored():
            if scored.number in match.corrected:
                result = match.corrected[scored.number].result()
            elif isinstance(source, DealEntry):
                result = source.result()
            else:
                result = result_of(replay_deal(source, self.rules), source)
            slate.record(result)
        for team in Team:
            assert state.match.open_lines_of(team) >= 0
            assert state.match.open_lines_of(team) == slate.open_lines(team)
        assert len(state.match.slate) == len(slate.history)
        if state.phase is TablePhase.MATCH_OVER:
            assert state.match.winner is not None and state.match.open_lines_of(state.match.winner) == 0

    @invariant()
    def played_cards_lay_on_their_seats_zone(self) -> None:
        """A play the table accepted is a card that lay on that seat's zone during this step (or before it); a card
        marked played on a zone is that seat's card in a trick of this deal."""
        state = self.table.state
        for seat in Seat:
            mine = {c for trick in state.deal.tricks for who, c in trick.plays if who is seat}
            for lying in state.zone(seat).cards:
                if lying.status is ZoneCardStatus.PLAYED:
                    assert lying.card in mine, f"{lying.card} on {seat}'s zone marked played"
        plays = {
            (m, d, play.seat, play.card)
            for m, match in enumerate(self.table.matches)
            for d, deal in enumerate(match.deals)
            for trick in deal.tricks
            for play in trick.plays
        }
        for _, _, seat, card in plays - self.plays - self.by_hand:
            thing = BY_CARD[card]
            assert thing in self.before[seat] or thing in self.touched[seat], f"{seat} played {card} from nowhere"
        self.plays |= plays  # every play seen stays known: undoing a deal entered by hand brings its plays back
        self.before = {seat: list(things) for seat, things in self.told.items()}
        self.touched = {seat: set() for seat in Seat}

    @invariant()
    def replay_is_exact(self) -> None:
        self.steps += 1
        if self.steps % 10 == 0:
            self.check_replay()

    def check_replay(self) -> None:
        again = Table.replay(self.events, self.rules, self.dealer, self.config)
        assert again.state == self.table.state

    def teardown(self) -> None:
        deals = sum(len(m.slate.history) for m in self.table.matches)
        event(f"deals scored: {min(deals, 3)}{'+' if deals >= 3 else ''}")
        event(f"matches: {len(self.table.matches)}")
        event(f"events: {len(self.events) // 50 * 50}+")
        if self.events:
            self.check_replay()


TableAtTheBar.TestCase.settings = settings(
    max_examples=50,
    stateful_step_count=80,
    deadline=None,
    phases=[Phase.explicit, Phase.reuse, Phase.generate, Phase.target, Phase.shrink],
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
test_table_at_the_bar = TableAtTheBar.TestCase
