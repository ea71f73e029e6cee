"""The table state machine: physical gestures in, an immutable :class:`TableState` and warnings out.

It keeps two layers (docs/table.md):

- the **zones** (:mod:`tablepi.table.zones`): what lies on each seat's zone, from every place and lift, never
  undone (a lifted card cannot be un-lifted);
- the **game** (:mod:`tablepi.table.history`): logical actions (trumps named, a card shown, a card played, a
  claim...) folded into the rules core's :class:`~tablepi.rules.slate.Match`. Undo drops the last action and
  folds the rest again.

The other concerns live in their own modules: gesture timing in :mod:`tablepi.table.timing`, the warnings on
screen in :mod:`tablepi.table.ledger` (built by :mod:`tablepi.table.report`), what is possible now in
:mod:`tablepi.table.possible`, and the snapshot with its prompt in :mod:`tablepi.table.snapshot`.

"Tap to show, lay to play": a card placed during the play is *tentative* (flagged at once if it would be
illegal). It becomes a **show** if it is lifted within ``tap_window`` seconds, and a **play** as soon as an event
arrives at or after ``placed + tap_window`` (a :class:`~tablepi.table.events.Tick` or anything else), or the next
seat lays its card, or a card of the trick is swept. Only event times are used, so a replay is exact.
"""

from __future__ import annotations

from collections.abc import Iterable

from tablepi.errors import IllegalPlay, RulesCode, RulesError
from tablepi.rules.cards import Card, Suit
from tablepi.rules.deal import Deal, Fault
from tablepi.rules.house import HouseRules
from tablepi.rules.seats import Seat, Team
from tablepi.rules.slate import Match
from tablepi.table import report, timing
from tablepi.table.events import (
    Button,
    ButtonName,
    CardEntered,
    CardLifted,
    CardPlaced,
    CorrectionAnswered,
    CorrectionProposed,
    DealEntered,
    DealerChosen,
    HandEvent,
    PlayersSeated,
    ReaderCrosstalk,
    ReaderState,
    ReaderStatus,
    TableEvent,
    Tick,
    TrumpsEntered,
)
from tablepi.table.game import (
    Action,
    Announce,
    AnswerCorrection,
    ChooseDealer,
    Claim,
    EndScan,
    EnterDeal,
    NameTrump,
    NewMatch,
    Outcome,
    PlayCard,
    ProposeCorrection,
    Revanche,
    ScanCard,
    SeatPlayers,
    ShowCard,
    StartDeal,
)
from tablepi.table.history import History
from tablepi.table.ledger import WarningLedger
from tablepi.table.snapshot import Clock, build_state
from tablepi.table.state import Evening, TableConfig, TablePhase, TableState, ZoneCardStatus
from tablepi.table.warnings import TableWarning, WarningCode
from tablepi.table.zones import LyingCard, Zones, swept_and_put_back, trick_card, where_played

HAND_EVENTS = (CardEntered, TrumpsEntered, DealEntered, CorrectionProposed, CorrectionAnswered, PlayersSeated,
               DealerChosen)


class Table:
    """The referee. Feed it events with :meth:`apply`; read :attr:`state`.

    >>> from tablepi.rules import Card, Seat
    >>> table = Table(dealer=Seat.N)
    >>> tuple(table.state.prompt)          # anticlockwise: W is forehand
    (<PromptCode.NAME_TRUMPS: 'name_trumps'>, <Seat.W: 'W'>)
    >>> _ = table.apply(CardPlaced(0.0, Seat.W, Card.parse("AH")))
    >>> table.state.deal.trump
    <Suit.HEARTS: 'H'>
    """

    def __init__(
        self, rules: HouseRules | None = None, dealer: Seat = Seat.N, config: TableConfig | None = None,
        evening: Evening | None = None,
    ) -> None:
        self.rules = rules or HouseRules()
        self.config = config or TableConfig()
        self.first_dealer = dealer
        #: The matches of the evening before this table's first (archived): their number and scored deals.
        self.evening = evening or Evening()
        self._history = History(self.rules, dealer, self.config.hand_scan)
        self._zones = Zones()
        self._ledger = WarningLedger()
        self._crosstalk: dict[Seat, int] = {}  # the standing crosstalk warning of each zone that heard one
        self._asking: ButtonName | None = None  # a seatless touch waiting for its seat
        self._deck = self.config.deck
        self._time = 0.0
        self._events = 0
        self._state: TableState | None = None

    @classmethod
    def replay(
        cls,
        events: Iterable[TableEvent],
        rules: HouseRules | None = None,
        dealer: Seat = Seat.N,
        config: TableConfig | None = None,
        evening: Evening | None = None,
    ) -> Table:
        """A table that has seen ``events``: state = replay(events). No snapshot is built on the way (only the
        last state is read): a start-up replay costs the events alone."""
        table = cls(rules, dealer, config, evening)
        for event in events:
            table.advance(event)
        return table

    # --- public reading ----------------------------------------------------------------------------------------

    @property
    def state(self) -> TableState:
        if self._state is None:
            self._state = build_state(
                self._history.game, self._zones, self._ledger, rules=self.rules, config=self.config,
                clock=Clock(self._time, self._events), can_undo=bool(self._history), asking=self._asking,
                evening=self.evening,
            )
        return self._state

    @property
    def matches(self) -> tuple[Match, ...]:
        """Every match played at this table so far, the current one last (for records and reports)."""
        return tuple(self._history.game.matches)

    @property
    def by_hand(self) -> frozenset[tuple[int, int, Seat, Card]]:
        """The cards entered by hand: (match number, deal number, seat, card), numbers from 1."""
        return frozenset(self._history.game.by_hand)

    @property
    def warning_log(self) -> tuple[TableWarning, ...]:
        """Every warning raised so far, in order (acknowledged and resolved ones included, undone ones not)."""
        return self._ledger.log

    @property
    def last_action(self) -> Action | None:
        """The action the next undo drops (a play, a show, trumps named...), None when there is nothing to undo.

        A tentative card is not an action yet: undo first lays it (docs/table.md), so then it is the one dropped.
        """
        last = self._history.last
        return last.action if last is not None else None

    def would_change(self, event: TableEvent) -> bool:
        """Whether ``event`` changes the state. Only a :class:`Tick` may not: it matters when a tentative card's
        tap window has run out. The journal skips ticks that change nothing."""
        if not isinstance(event, Tick):
            return True
        return any(self._due(seat, card, event.time) for seat, card in self._zones.pending())

    # --- events ------------------------------------------------------------------------------------------------

    def apply(self, event: TableEvent) -> TableState:
        """Consume one event and return the new state. Never raises for anything that happens at a table."""
        self.advance(event)
        return self.state

    def advance(self, event: TableEvent) -> None:
        """Consume one event like :meth:`apply`, without building the snapshot (built when :attr:`state` is read).

        For a consumer that replays many events and looks at few states (the tournament server replays every
        table's feed): the snapshot costs more than the event itself.
        """
        time = max(float(event.time), self._time)  # a clock that steps back is treated as standing still
        self._time = time
        self._events += 1
        self._state = None
        try:
            self._expire(time)
            if isinstance(event, CardPlaced):
                self._on_place(event, time)
            elif isinstance(event, CardLifted):
                self._on_lift(event, time)
            elif isinstance(event, Button):
                self._on_button(event)
            elif isinstance(event, ReaderStatus):
                self._on_reader(event)
            elif isinstance(event, ReaderCrosstalk):
                self._on_crosstalk(event)
            elif isinstance(event, HAND_EVENTS):
                self._on_hand(event)
            elif not isinstance(event, Tick):
                raise TypeError(f"not a table event: {event!r}")
        except RulesError as err:
            # Whatever the rules refuse is refused with a warning, the game unchanged (History.do is all or
            # nothing): a gesture never stops the table, and a journal of gestures always replays.
            self._warn(report.hand_refused(self._where(), err.seat, err, err.card))
        if self._asking is not None and not self.state.possible.seats_for(self._asking):
            self._asking = None  # nobody may make it any more (the first trick went round): the question lapses
            self._state = None

    @property
    def trump(self) -> Suit | None:
        """The trumps :attr:`state` shows (named for this deal, or before a hand scan), without the snapshot."""
        game = self._history.game
        return game.deal.trump if game.deal is not None else game.pending_trump

    # --- the game, the deal, where we are ----------------------------------------------------------------------

    def _deal(self) -> Deal | None:
        return self._history.game.deal

    def _where(self) -> report.Where:
        game = self._history.game
        deal = game.deal
        trick = deal.trick_number if deal is not None and game.started and deal.trump is not None else None
        return report.Where(game.deal_number, trick)

    def _to_play(self) -> Seat | None:
        deal = self._deal()
        if self._history.game.phase is not TablePhase.PLAY or deal is None:
            return None
        return deal.to_play

    def _warn(self, warning: TableWarning) -> int:
        return self._ledger.add(warning)

    # --- timing: tentative cards -------------------------------------------------------------------------------

    def _expire(self, time: float) -> None:
        """Every tentative card that has lain for the whole tap window is laid (played), in the order of play
        first (:func:`tablepi.table.timing.next_due`)."""
        while True:
            due = [(seat, card) for seat, card in self._zones.pending() if self._due(seat, card, time)]
            if not due:
                return
            self._lay(*timing.next_due(due, self._to_play()))

    def _due(self, seat: Seat, card: LyingCard, time: float) -> bool:
        return timing.due(card.placed, self.config.tap_window, time, blind=self._zones.blind(seat))

    def _lay_for(self, seat: Seat, because_place: bool) -> None:
        """A gesture that only makes sense if the player to move laid his tentative card: lay it now
        (:func:`tablepi.table.timing.settles`)."""
        to_play = self._to_play()
        deal = self._deal()
        if to_play is None or deal is None:
            return
        if not timing.settles(seat, to_play, deal, self.rules.direction, because_place):
            return
        for card in self._zones.cards[to_play]:
            if card.status is ZoneCardStatus.TENTATIVE:
                self._lay(to_play, card)
                return

    def _lay(self, seat: Seat, zc: LyingCard) -> None:
        """A tentative card stayed: it is a play, or a stray out-of-turn card."""
        zc.tentative = ()
        deal = self._deal()
        assert zc.card is not None
        if self._history.game.phase is not TablePhase.PLAY or deal is None:
            zc.status = ZoneCardStatus.STRAY
            return
        card = zc.card
        if card in deal.played:
            zc.status = ZoneCardStatus.STRAY
            zc.warnings.append(self._warn(report.already_played(self._where(), seat, card, where_played(deal, card))))
            return
        to_play = deal.to_play
        if to_play is not seat:
            zc.status = ZoneCardStatus.STRAY
            zc.warnings.append(self._warn(report.out_of_turn(self._where(), seat, card, to_play)))
            return
        trick_before = len(deal.completed_tricks)
        try:
            self._do(PlayCard(seat, card))
        except RulesError as err:  # IllegalPlay: not in the scanned hand
            zc.status = ZoneCardStatus.STRAY
            zc.warnings.append(self._warn(report.refused_play(self._where(), seat, card, err)))
            return
        zc.status = ZoneCardStatus.PLAYED
        if len(deal.completed_tricks) > trick_before:
            self._trick_closed()

    def _trick_closed(self) -> None:
        """The fourth card closed the trick: a card lifted early no longer needs to come back."""
        self._ledger.resolve_all(wid for _, wid in self._zones.lifted.values())
        self._zones.lifted.clear()

    # --- places and lifts --------------------------------------------------------------------------------------

    def _zone_readable(self, seat: Seat) -> None:
        """A place or lift on a zone the reader called MULTI means one tag is readable again."""
        if self._zones.readers[seat] is ReaderState.MULTI:
            self._zones.readers[seat] = ReaderState.ONLINE
            self._ledger.resolve_all(self._zones.reader_warnings[seat])
            self._zones.reader_warnings[seat] = []

    def _on_place(self, event: CardPlaced, time: float) -> None:
        seat = event.seat
        self._zone_readable(seat)
        zone = self._zones.cards[seat]
        if any(c.matches(event.card, event.uid) for c in zone):
            return  # the same tag reported again (a reader reconnecting, the app restarting): already known
        self._lay_for(seat, because_place=True)
        zc = LyingCard(event.card, event.uid, time, self._zones.next_order())
        if event.card is None:
            zc.warnings.append(self._warn(report.unknown_tag(self._where(), seat, event.uid)))
            zone.append(zc)
            return
        if event.deck:
            if self._deck is None:
                self._deck = event.deck
            elif event.deck != self._deck:
                zc.warnings.append(self._warn(
                    report.other_deck(self._where(), seat, event.card, event.uid, event.deck, self._deck)))
                zone.append(zc)
                return
        if zone:
            zc.second = True
            zc.warnings.append(self._warn(report.two_cards(self._where(), seat, event.card)))
            zone.append(zc)
            return
        self._place_card(seat, zc)

    def _place_card(self, seat: Seat, zc: LyingCard) -> None:
        """A known card of the deck arrives on an otherwise clear zone: what it means depends on the phase."""
        assert zc.card is not None
        card = zc.card
        self._zones.cards[seat].append(zc)
        game = self._history.game
        phase = game.phase
        if phase is TablePhase.DEAL_OVER and seat is game.forehand and self._zones.only(zc):
            # The next forehand names trumps: the new deal has begun (rule 22). Only once the last deal's cards
            # are gathered: before that, a card put down is one of them (knocked off and put back), not trumps.
            self._do(StartDeal())
            phase = self._history.game.phase
        if phase in (TablePhase.DEAL_OVER, TablePhase.MATCH_OVER):
            # Cards being gathered: nothing to referee. A seat's card of the last trick put back is still that
            # trick's card (as during the play), so that undoing and redoing the deal's end changes nothing.
            deal = self._deal()
            on_table = deal is not None and trick_card(deal, seat, card)
            zc.status = ZoneCardStatus.PLAYED if on_table else ZoneCardStatus.SHOWN
            return
        if phase is TablePhase.TRUMPS:
            forehand = self._history.game.forehand
            if seat is forehand:
                self._do(NameTrump(seat, card.suit, card))  # rule 9: the printed suit (♠Q names spades)
                zc.status = ZoneCardStatus.SHOWN
            else:
                zc.warnings.append(self._warn(report.before_trumps(self._where(), seat, card, forehand)))
            return
        if phase is TablePhase.HAND_SCAN:
            self._scan(seat, zc)
            return
        deal = self._deal()
        assert deal is not None
        if card in deal.played:
            lifted = self._zones.lifted.get(seat)
            if lifted is not None and lifted[0] == card:
                zc.status = ZoneCardStatus.PLAYED  # put back where it belongs
                self._ledger.resolve(lifted[1])
                del self._zones.lifted[seat]
                return
            if swept_and_put_back(deal, seat, card):
                zc.status = ZoneCardStatus.PLAYED  # knocked off a complete trick and put back: still that trick's
                return
            zc.warnings.append(self._warn(report.already_played(self._where(), seat, card, where_played(deal, card))))
            return
        zc.status = ZoneCardStatus.TENTATIVE
        zc.tentative = self._tentative_warnings(seat, card, deal)

    def _scan(self, seat: Seat, zc: LyingCard) -> None:
        assert zc.card is not None
        zc.status = ZoneCardStatus.SHOWN
        try:
            self._do(ScanCard(seat, zc.card))
        except RulesError as err:
            self._warn(report.refused_scan(self._where(), seat, zc.card, err))

    def _tentative_warnings(self, seat: Seat, card: Card, deal: Deal) -> tuple[TableWarning, ...]:
        """What would be wrong if this card stays: shown at once, withdrawn if it turns out to be a show."""
        to_play = deal.to_play
        if to_play is not seat:
            if card.is_matador and deal.can_announce(seat):
                return ()  # most likely a matador shown for an announcement
            return (report.out_of_turn(self._where(), seat, card, to_play, tentative=True),)
        trial = deal.copy()
        try:
            faults = trial.play(seat, card, check=False)
        except IllegalPlay as err:
            return (report.refused_play(self._where(), seat, card, err, tentative=True),)
        return tuple(report.fault(self._where(), f, self.rules.revoke_penalty, tentative=True) for f in faults)

    def _on_lift(self, event: CardLifted, time: float) -> None:
        seat = event.seat
        self._zone_readable(seat)
        zone = self._zones.cards[seat]
        zc = next((c for c in zone if c.matches(event.card, event.uid)), None)
        if zc is None:
            return  # not known to lie there (a reader repeating itself): nothing to do
        if zc.status is ZoneCardStatus.PLAYED and self._in_current_trick(seat, zc.card):
            self._lay_for(seat, because_place=False)  # sweeping: the fourth card, if tentative, was laid
            self._fourth_card_was_swept(time)
        zone.remove(zc)
        self._ledger.resolve_all(zc.warnings)
        if event.misread and zc.status is not ZoneCardStatus.PLAYED:
            self._misread(seat, zc)
        elif zc.status is ZoneCardStatus.TENTATIVE:
            self._show(seat, zc)
        elif zc.status is ZoneCardStatus.PLAYED and self._in_current_trick(seat, zc.card):
            assert zc.card is not None
            wid = self._warn(report.lifted_early(self._where(), seat, zc.card))
            self._zones.lifted[seat] = (zc.card, wid)
        if len(zone) == 1 and zone[0].second:
            rest = zone.pop()
            self._ledger.resolve_all(rest.warnings)
            fresh = LyingCard(rest.card, rest.uid, time, self._zones.next_order())
            self._place_card(seat, fresh)  # the card that was second is alone now: as if just placed

    def _fourth_card_was_swept(self, time: float) -> None:
        """A sweep that began with the fourth card: it was lifted within the tap window, so it counted as a show,
        and now (within the tap window again) another card of its trick is lifted. The sweeper took the fourth card
        first; it was a play. The show is dropped and the card played, closing the trick (docs/table.md)."""
        last = self._history.last
        deal = self._deal()
        if last is None or deal is None:
            return
        play = timing.swept_fourth(self._zones.last_tap, last.action, deal, time, self.config.tap_window)
        if play is None:
            return
        self._history.drop_last(self._ledger)
        try:
            self._do(play)
        except RulesError:  # not his card after all (hand scan): the show stands
            self._do(ShowCard(play.seat, play.card))
            return
        self._trick_closed()

    def _in_current_trick(self, seat: Seat, card: Card | None) -> bool:
        deal = self._deal()
        if deal is None or card is None or not self._history.game.started:
            return False
        trick = deal.current_trick
        return trick is not None and trick.card_of(seat) == card

    def _misread(self, seat: Seat, zc: LyingCard) -> None:
        """The reader took back a card it had reported here: the zone's antenna heard it on the neighbouring zone
        (a card landing between two antennas). Nothing happened at this seat: a tentative card is no show, and
        what its placement did at once (forehand naming trumps, a card of a hand scan) is dropped while it is
        still the last action. A card already played stays played (a play from the wrong seat: undo)."""
        last = self._history.last
        if zc.status is not ZoneCardStatus.SHOWN or last is None:
            return
        action = last.action
        if getattr(action, "seat", None) is seat and getattr(action, "card", None) == zc.card:
            self._history.drop_last(self._ledger)

    def _show(self, seat: Seat, zc: LyingCard) -> None:
        """A tap: the card was shown, not played. Matadors shown before one's first card announce (rule 10)."""
        assert zc.card is not None
        card = zc.card
        deal = self._deal()
        if self._history.game.phase is not TablePhase.PLAY or deal is None:
            return
        try:
            self._do(ShowCard(seat, card))
        except RulesError as err:  # played already, or seen in another hand
            self._warn(report.refused_show(self._where(), seat, card, err))
            return
        self._zones.last_tap = (seat, card, self._time)

    # --- buttons and readers -----------------------------------------------------------------------------------

    def _on_button(self, event: Button) -> None:
        """A button or touch: acted on when it is live now (:class:`~tablepi.table.state.Possible`), refused with
        a warning saying why otherwise. A seatless announce asks for its seat; it never guesses one."""
        name, seat = event.name, event.seat
        if name is ButtonName.UNDO:
            if self._asking is not None:
                self._asking = None  # undo first withdraws the question
                return
            self._undo()
            return
        if name is ButtonName.CONFIRM:
            self._asking = None
            self._confirm()
            return
        if name.announcement is not None:
            self._announce(event)
            return
        if name is ButtonName.CLAIM:
            self._claim(event)
            return
        game = self._history.game
        if name.suit is not None:
            if game.phase is not TablePhase.TRUMPS:
                self._not_now(event, "trumps are named once, by forehand, at the start of the deal (rule 9)")
                return
            self._do(NameTrump(game.forehand, name.suit))
        elif name is ButtonName.NEW_MATCH:
            self._do(NewMatch(seat or game.match.dealer))
            self._zones.lifted.clear()
        elif name is ButtonName.REVANCHE:
            try:
                self._do(Revanche())
            except RulesError as err:
                self._not_now(event, str(err))

    def _confirm(self) -> None:
        """Confirm acknowledges the warnings on screen; with none, it moves the table on where it waits."""
        if self._ledger:
            self._ledger.acknowledge()
            return
        phase = self._history.game.phase
        if phase is TablePhase.HAND_SCAN:
            self._do(EndScan())
        elif phase is TablePhase.DEAL_OVER:
            self._do(StartDeal())

    def _announce(self, event: Button) -> None:
        announcement = event.name.announcement
        assert announcement is not None
        deal = self._deal()
        if self._history.game.phase is not TablePhase.PLAY or deal is None:
            self._not_now(event, f"{announcement.label} is announced after trumps are named (rule 10)")
            return
        seat = event.seat
        if seat is None:
            if self.state.possible.seats_for(event.name):
                self._asking = event.name  # which seat? the screen shows a target at each seat that may
                self._state = None
            else:
                self._not_now(event, f"nobody may announce {announcement.label} now (rule 10)")
            return
        self._asking = None
        if not deal.can_announce(seat):
            self._warn(report.too_late(self._where(), seat, announcement, shown=False))
            return
        try:
            self._do(Announce(seat, announcement))
        except RulesError as err:
            self._warn(report.refused_announcement(self._where(), seat, announcement, err))

    def _claim(self, event: Button) -> None:
        deal = self._deal()
        if self._history.game.phase is not TablePhase.PLAY or deal is None:
            self._not_now(event, "a claim is possible only while tricks are being played (rule 21)")
            return
        # A claim is a team's: without a seat it can only be the one team that may claim (rule 21: at most one
        # holds 21 of the 40 points), so nothing is guessed.
        team = event.seat.team if event.seat is not None else deal.claimable()
        refusal = deal.claim_refusal(team or Team.NS)
        if team is None or refusal is not None:
            self._warn(report.claim_refused(self._where(), team, deal.points(), refusal))
            return
        self._do(Claim(team))

    def _not_now(self, event: Button, why: str) -> None:
        self._warn(report.not_now(self._where(), event.seat, event.name, why))

    def _on_reader(self, event: ReaderStatus) -> None:
        seat = event.seat
        zones = self._zones
        if zones.blind(seat) and event.state not in (ReaderState.OFFLINE, ReaderState.FAULT):
            for zc in zones.cards[seat]:
                if zc.status is ZoneCardStatus.TENTATIVE:
                    zc.placed = self._time  # the reader sees again: the tap window starts now
        zones.readers[seat] = event.state
        self._ledger.resolve_all(zones.reader_warnings[seat])
        zones.reader_warnings[seat] = []
        if event.state in (ReaderState.OFFLINE, ReaderState.FAULT):
            wid = self._warn(report.reader_down(self._where(), seat, event.state, event.detail))
            zones.reader_warnings[seat].append(wid)
        elif event.state is ReaderState.MULTI:
            wid = self._warn(report.two_cards(self._where(), seat, None, event.detail))
            zones.reader_warnings[seat].append(wid)

    def _on_crosstalk(self, event: ReaderCrosstalk) -> None:
        """A zone heard another zone's card (or a garbled tag): tell the owner once, until confirmed. Nothing
        else happens: the reader kept the card where it lies, and a card heard is never a card played."""
        wid = self._crosstalk.get(event.seat)
        if wid is not None and self._ledger.get(wid) is not None:
            return  # still on screen: one warning per zone is enough
        self._crosstalk[event.seat] = self._warn(
            report.crosstalk(self._where(), event.seat, event.card, event.uid, event.holder)
        )

    # --- by hand (docs/table.md, "By hand") ----------------------------------------------------------------

    def _on_hand(self, event: HandEvent) -> None:
        """A gesture made on the screen instead of with cards: journaled like any event, undoable like a play."""
        try:
            if isinstance(event, CardEntered):
                self._enter_card(event)
            elif isinstance(event, TrumpsEntered):
                self._enter_trumps(event)
            elif isinstance(event, DealEntered):
                self._do(EnterDeal(event.entry))
            elif isinstance(event, CorrectionProposed):
                self._do(ProposeCorrection(event.deal, event.entry))
            elif isinstance(event, CorrectionAnswered):
                self._do(AnswerCorrection(event.team, event.accept))
            elif isinstance(event, PlayersSeated):
                self._do(SeatPlayers(event.names))
            else:
                self._do(ChooseDealer(event.seat))
        except RulesError as err:
            seat = getattr(event, "seat", None)
            self._warn(report.hand_refused(self._where(), seat if isinstance(seat, Seat) else None, err,
                                           getattr(event, "card", None)))

    def _enter_card(self, event: CardEntered) -> None:
        """A card by hand for the seat to play: played as if laid (the rules referee it the same), nothing on the
        zone. A card lying tentatively on that zone is laid first: the hand entry is the next card after it."""
        seat, deal = event.seat, self._deal()
        if self._history.game.phase is not TablePhase.PLAY or deal is None:
            raise RulesError("a card is entered by hand while tricks are being played", code=RulesCode.NOT_PLAYING)
        self._lay_for(seat, because_place=True)  # as a card laid: it settles the card before it
        for zc in list(self._zones.cards[seat]):
            if zc.status is ZoneCardStatus.TENTATIVE:
                self._lay(seat, zc)
        if deal.to_play is not seat:
            raise RulesError(f"{seat} enters {event.card.display} by hand, but {deal.to_play} is to play (rule 12)",
                             code=RulesCode.OUT_OF_TURN, seat=seat, card=event.card, rule=12)
        trick_before = len(deal.completed_tricks)
        self._do(PlayCard(seat, event.card, by_hand=True))
        if len(deal.completed_tricks) > trick_before:
            self._trick_closed()

    def _enter_trumps(self, event: TrumpsEntered) -> None:
        """Forehand names trumps by hand. Between deals this begins the next deal first (as his card laid would),
        acknowledging the warnings on screen (as the Confirm that ends the picker always does); nothing changes
        when the rules refuse it (not forehand, trumps already named, the match over)."""
        game = self._history.game
        if event.seat is not game.forehand:
            raise RulesError(f"{event.seat} cannot name trumps: forehand {game.forehand} names trumps (rule 9)",
                             code=RulesCode.NOT_FOREHAND, seat=event.seat, rule=9, holder=game.forehand)
        if game.phase is TablePhase.DEAL_OVER:
            self._do(StartDeal())
            self._ledger.acknowledge()
        self._do(NameTrump(event.seat, event.suit))

    # --- actions and undo --------------------------------------------------------------------------------------

    def _do(self, action: Action) -> Outcome:
        """Apply an action to the game and remember it for undo. RulesError propagates (nothing changed)."""
        outcome, done = self._history.do(action)
        for fault in outcome.faults:
            done.warnings.append(self._warn(self._fault(fault)))
        if outcome.too_late is not None and isinstance(action, ShowCard):
            done.warnings.append(self._warn(report.too_late(self._where(), action.seat, outcome.too_late, True)))
        if isinstance(action, StartDeal | NewMatch | Revanche):
            self._zones.lifted.clear()
        self._reconcile_zones()
        return outcome

    def _fault(self, fault: Fault) -> TableWarning:
        return report.fault(self._where(), fault, self.rules.revoke_penalty)

    def _reconcile_zones(self) -> None:
        """Cards lying on the zones say what the game now makes of them: a card marked played is one of its seat's
        cards in the current deal's tricks. After a new deal or match, or an undo, a played card that no longer is
        becomes a card being gathered (shown); one that is again (an undone deal start) is played again."""
        deal = self._deal()
        for seat in Seat:
            for zc in self._zones.cards[seat]:
                on_table = deal is not None and zc.card is not None and trick_card(deal, seat, zc.card)
                if zc.status is ZoneCardStatus.PLAYED and not on_table:
                    zc.status = ZoneCardStatus.SHOWN
                elif zc.status is ZoneCardStatus.SHOWN and on_table:
                    zc.status = ZoneCardStatus.PLAYED
                elif zc.status is ZoneCardStatus.STRAY and (deal is None or zc.card not in deal.played):
                    for wid in zc.warnings:  # "already played" is no longer true after an undo: lift it, that's all
                        warning = self._ledger.get(wid)
                        if warning is not None and warning.code is WarningCode.CARD_ALREADY_PLAYED:
                            self._ledger.resolve(wid)

    def _undo(self) -> None:
        """Drop the last action and rebuild the game from the others; the zones stay as they physically are."""
        self._expire(float("inf"))
        if not self._history:
            return
        action = self._history.drop_last(self._ledger).action
        if isinstance(action, PlayCard):
            for zc in self._zones.cards[action.seat]:
                if zc.card == action.card and zc.status is ZoneCardStatus.PLAYED:
                    zc.status = ZoneCardStatus.STRAY  # no longer played: to be lifted
            lifted = self._zones.lifted.get(action.seat)
            if lifted is not None and lifted[0] == action.card:
                self._ledger.resolve(lifted[1])
                del self._zones.lifted[action.seat]
        self._reconcile_zones()
