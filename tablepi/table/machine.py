"""The table state machine: physical gestures in, an immutable :class:`TableState` and warnings out.

It keeps two layers (docs/table.md):

- the **zones**: what lies on each seat's zone, from every place and lift, never undone (a lifted card cannot be
  un-lifted);
- the **game**: logical actions (trumps named, a card shown, a card played, a claim...) folded into the rules
  core's :class:`~tablepi.rules.slate.Match`. Undo drops the last action and folds the rest again.

"Tap to show, lay to play": a card placed during the play is *tentative* (flagged at once if it would be
illegal). It becomes a **show** if it is lifted within ``tap_window`` seconds, and a **play** as soon as an event
arrives at or after ``placed + tap_window`` (a :class:`~tablepi.table.events.Tick` or anything else), or the next
seat lays its card, or a card of the trick is swept. Only event times are used, so a replay is exact.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from tablepi.errors import IllegalPlay, RulesError
from tablepi.rules.cards import Card
from tablepi.rules.deal import Announcement, Deal, Fault, FaultCode
from tablepi.rules.house import HouseRules, RevokePenalty
from tablepi.rules.seats import Seat, Team
from tablepi.rules.slate import Match
from tablepi.table.events import Button, ButtonName, CardLifted, CardPlaced, ReaderState, ReaderStatus, TableEvent, Tick
from tablepi.table.game import (
    Action,
    Announce,
    Claim,
    EndScan,
    Game,
    NameTrump,
    NewMatch,
    Outcome,
    PlayCard,
    Revanche,
    ScanCard,
    ShowCard,
    StartDeal,
    claimable_team,
)
from tablepi.table.state import (
    Prompt,
    TableConfig,
    TablePhase,
    TableState,
    TrickView,
    Zone,
    ZoneCard,
    ZoneCardStatus,
)
from tablepi.table.warnings import TableWarning, WarningCode

_TWO_CARDS = "two_cards"
_BLIND = (ReaderState.OFFLINE, ReaderState.FAULT)  # a zone whose reader sees nothing


@dataclass(slots=True)
class _Card:
    """A card lying on a zone (mutable inside the machine; exported as a frozen ZoneCard)."""

    card: Card | None
    uid: str
    placed: float
    order: int
    status: ZoneCardStatus = ZoneCardStatus.STRAY
    reason: str = ""
    warnings: list[int] = field(default_factory=list)
    tentative: tuple[TableWarning, ...] = ()

    def matches(self, card: Card | None, uid: str) -> bool:
        """Whether a reported tag is this one: by UID when both are known (the same card of a second deck is
        another tag), else by card (records written with cards only)."""
        if uid and self.uid:
            return self.uid == uid
        if card is not None and self.card is not None:
            return self.card == card
        return False


@dataclass(slots=True)
class _Done:
    """An action the game accepted, with the warnings it raised (dropped again if the action is undone)."""

    action: Action
    warnings: list[int] = field(default_factory=list)


class Table:
    """The referee. Feed it events with :meth:`apply`; read :attr:`state`.

    >>> from tablepi.rules import Card, Seat
    >>> table = Table(dealer=Seat.N)
    >>> table.state.prompt.code, table.state.prompt.seat          # anticlockwise: W is forehand
    ('name_trumps', <Seat.W: 'W'>)
    >>> _ = table.apply(CardPlaced(0.0, Seat.W, Card.parse("AH")))
    >>> table.state.trump
    <Suit.HEARTS: 'H'>
    """

    def __init__(
        self, rules: HouseRules | None = None, dealer: Seat = Seat.N, config: TableConfig | None = None
    ) -> None:
        self.rules = rules or HouseRules()
        self.config = config or TableConfig()
        self.first_dealer = dealer
        self._game = Game(self.rules, dealer, self.config.hand_scan)
        self._done: list[_Done] = []
        self._zones: dict[Seat, list[_Card]] = {seat: [] for seat in Seat}
        self._readers: dict[Seat, ReaderState] = dict.fromkeys(Seat, ReaderState.ONLINE)
        self._reader_warnings: dict[Seat, list[int]] = {seat: [] for seat in Seat}
        self._active: dict[int, TableWarning] = {}
        self._log: dict[int, TableWarning] = {}
        self._lifted: dict[Seat, tuple[Card, int]] = {}  # a played card lifted before its trick was complete
        self._last_tap: tuple[Seat, Card, float] | None = None  # the last show: who, what, when it was lifted
        self._deck = self.config.deck
        self._next_id = 0
        self._order = 0
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
    ) -> Table:
        """A table that has seen ``events``: state = replay(events)."""
        table = cls(rules, dealer, config)
        for event in events:
            table.apply(event)
        return table

    # --- public reading ----------------------------------------------------------------------------------------

    @property
    def state(self) -> TableState:
        if self._state is None:
            self._state = self._build_state()
        return self._state

    @property
    def matches(self) -> tuple[Match, ...]:
        """Every match played at this table so far, the current one last (for records and reports)."""
        return tuple(self._game.matches)

    @property
    def warning_log(self) -> tuple[TableWarning, ...]:
        """Every warning raised so far, in order (acknowledged and resolved ones included, undone ones not)."""
        return tuple(self._log.values())

    @property
    def last_action(self) -> Action | None:
        """The action the next undo drops (a play, a show, trumps named...), None when there is nothing to undo.

        A tentative card is not an action yet: undo first lays it (docs/table.md), so then it is the one dropped.
        """
        return self._done[-1].action if self._done else None

    def would_change(self, event: TableEvent) -> bool:
        """Whether ``event`` changes the state. Only a :class:`Tick` may not: it matters when a tentative card's
        tap window has run out. The journal skips ticks that change nothing."""
        if not isinstance(event, Tick):
            return True
        return any(self._due(seat, card, event.time) for seat, card in self._pending())

    # --- events ------------------------------------------------------------------------------------------------

    def apply(self, event: TableEvent) -> TableState:
        """Consume one event and return the new state. Never raises for anything that happens at a table."""
        time = max(float(event.time), self._time)  # a clock that steps back is treated as standing still
        self._time = time
        self._events += 1
        self._state = None
        self._expire(time)
        if isinstance(event, CardPlaced):
            self._on_place(event, time)
        elif isinstance(event, CardLifted):
            self._on_lift(event, time)
        elif isinstance(event, Button):
            self._on_button(event)
        elif isinstance(event, ReaderStatus):
            self._on_reader(event)
        elif not isinstance(event, Tick):
            raise TypeError(f"not a table event: {event!r}")
        return self.state

    # --- timing: tentative cards -------------------------------------------------------------------------------

    def _pending(self) -> list[tuple[Seat, _Card]]:
        found = [(seat, c) for seat in Seat for c in self._zones[seat] if c.status is ZoneCardStatus.TENTATIVE]
        found.sort(key=lambda item: item[1].order)
        return found

    def _expire(self, time: float) -> None:
        """Every tentative card that has lain for the whole tap window is laid (played).

        In the order of play first: when two players lay at once, the readers may report the second card before
        the first; the seat to play is settled first, then the next, and only then the rest, oldest first.
        """
        while True:
            due = [(seat, card) for seat, card in self._pending() if self._due(seat, card, time)]
            if not due:
                return
            to_play = self._to_play()
            self._lay(*next(((seat, card) for seat, card in due if seat is to_play), due[0]))

    def _due(self, seat: Seat, card: _Card, time: float) -> bool:
        """Whether a tentative card has lain for the whole tap window. Time does not decide a card on a zone whose
        reader is offline (it may have been lifted unseen); its window starts again when the reader is back.
        Undo (``time`` infinite) lays every tentative card."""
        if time != float("inf") and self._readers[seat] in _BLIND:
            return False
        return card.placed + self.config.tap_window <= time

    def _lay_for(self, seat: Seat, because_place: bool) -> None:
        """A gesture that only makes sense if the player to move laid his tentative card: lay it now.

        ``because_place``: ``seat`` placed a card; it settles the card of the seat before it ("the next seat's
        card follows"). Otherwise a card of the current trick is being swept: the trick must be complete.
        """
        to_play = self._to_play()
        if to_play is None or to_play is seat:
            return
        if because_place and self.rules.direction.next(to_play) is not seat:
            return
        if not because_place:
            trick = self._game.deal.current_trick if self._game.deal is not None else None
            if trick is None or len(trick.plays) != 3:
                return  # a played card lifted from a trick his card would not complete: lifted early, not a sweep
        for card in self._zones[to_play]:
            if card.status is ZoneCardStatus.TENTATIVE:
                self._lay(to_play, card)
                return

    def _lay(self, seat: Seat, zc: _Card) -> None:
        """A tentative card stayed: it is a play, or a stray out-of-turn card."""
        zc.tentative = ()
        deal = self._game.deal
        assert zc.card is not None
        if self._game.phase is not TablePhase.PLAY or deal is None:
            zc.status = ZoneCardStatus.STRAY
            return
        card = zc.card
        if card in deal.played:
            zc.status = ZoneCardStatus.STRAY
            zc.warnings.append(self._warn_already_played(seat, card, deal))
            return
        to_play = deal.to_play
        if to_play is not seat:
            zc.status = ZoneCardStatus.STRAY
            zc.warnings.append(self._warn_out_of_turn(seat, card, to_play))
            return
        trick_before = len(deal.completed_tricks)
        try:
            self._do(PlayCard(seat, card))
        except RulesError as err:  # IllegalPlay: not in the scanned hand
            zc.status = ZoneCardStatus.STRAY
            zc.warnings.append(
                self._warn(WarningCode.ILLEGAL_PLAY, None, seat, str(err), (("card", str(card)),))
            )
            return
        zc.status = ZoneCardStatus.PLAYED
        if len(deal.completed_tricks) > trick_before:
            self._trick_closed()

    def _trick_closed(self) -> None:
        """The fourth card closed the trick: a card lifted early no longer needs to come back."""
        for _, wid in self._lifted.values():
            self._resolve(wid)
        self._lifted.clear()

    # --- places and lifts --------------------------------------------------------------------------------------

    def _zone_readable(self, seat: Seat) -> None:
        """A place or lift on a zone the reader called MULTI means one tag is readable again."""
        if self._readers[seat] is ReaderState.MULTI:
            self._readers[seat] = ReaderState.ONLINE
            for wid in self._reader_warnings[seat]:
                self._resolve(wid)
            self._reader_warnings[seat] = []

    def _on_place(self, event: CardPlaced, time: float) -> None:
        seat = event.seat
        self._zone_readable(seat)
        if any(c.matches(event.card, event.uid) for c in self._zones[seat]):
            return  # the same tag reported again (a reader reconnecting, the app restarting): already known
        self._lay_for(seat, because_place=True)
        zc = _Card(event.card, event.uid, time, self._tick_order())
        zone = self._zones[seat]
        if event.card is None:
            zc.warnings.append(
                self._warn(
                    WarningCode.UNKNOWN_TAG, 3, seat,
                    f"A tag that is not a card of the deck lies on {seat}'s zone ({event.uid or 'no uid'})",
                    (("uid", event.uid), ("reason", "unknown")),
                )
            )
            zone.append(zc)
            return
        if event.deck:
            if self._deck is None:
                self._deck = event.deck
            elif event.deck != self._deck:
                zc.warnings.append(
                    self._warn(
                        WarningCode.UNKNOWN_TAG, 3, seat,
                        f"{event.card.display} on {seat}'s zone belongs to deck {event.deck!r}, "
                        f"not to the deck in play {self._deck!r}",
                        (("uid", event.uid), ("card", str(event.card)), ("deck", event.deck),
                         ("reason", "other_deck")),
                    )
                )
                zone.append(zc)
                return
        if zone:
            zc.reason = _TWO_CARDS
            zc.warnings.append(
                self._warn(
                    WarningCode.TWO_CARDS_ON_ZONE, None, seat,
                    f"Two cards lie on {seat}'s zone: take {event.card.display} off (one card per zone)",
                    (("card", str(event.card)),),
                )
            )
            zone.append(zc)
            return
        self._place_card(seat, zc)

    def _place_card(self, seat: Seat, zc: _Card) -> None:
        """A known card of the deck arrives on an otherwise clear zone: what it means depends on the phase."""
        assert zc.card is not None
        card = zc.card
        self._zones[seat].append(zc)
        phase = self._game.phase
        if phase is TablePhase.DEAL_OVER and seat is self._game.forehand and self._others_clear(zc):
            # The next forehand names trumps: the new deal has begun (rule 22). Only once the last deal's cards
            # are gathered: before that, a card put down is one of them (knocked off and put back), not trumps.
            self._do(StartDeal())
            phase = self._game.phase
        if phase in (TablePhase.DEAL_OVER, TablePhase.MATCH_OVER):
            # Cards being gathered: nothing to referee. A seat's card of the last trick put back is still that
            # trick's card (as during the play), so that undoing and redoing the deal's end changes nothing.
            deal = self._game.deal
            on_table = deal is not None and _trick_card(deal, seat, card)
            zc.status = ZoneCardStatus.PLAYED if on_table else ZoneCardStatus.SHOWN
            return
        if phase is TablePhase.TRUMPS:
            forehand = self._game.forehand
            if seat is forehand:
                self._do(NameTrump(seat, card.suit, card))  # rule 9: the printed suit (♠Q names spades)
                zc.status = ZoneCardStatus.SHOWN
            else:
                zc.warnings.append(
                    self._warn(
                        WarningCode.OUT_OF_TURN, 9, seat,
                        f"{seat} lays {card.display}, but forehand {forehand} names trumps first (rule 9)",
                        (("card", str(card)), ("expected", forehand.value)),
                    )
                )
            return
        if phase is TablePhase.HAND_SCAN:
            self._scan(seat, zc)
            return
        deal = self._game.deal
        assert deal is not None
        if card in deal.played:
            lifted = self._lifted.get(seat)
            if lifted is not None and lifted[0] == card:
                zc.status = ZoneCardStatus.PLAYED  # put back where it belongs
                self._resolve(lifted[1])
                del self._lifted[seat]
                return
            if _swept_and_put_back(deal, seat, card):
                zc.status = ZoneCardStatus.PLAYED  # knocked off a complete trick and put back: still that trick's
                return
            zc.warnings.append(self._warn_already_played(seat, card, deal))
            return
        zc.status = ZoneCardStatus.TENTATIVE
        zc.tentative = self._tentative_warnings(seat, card, deal)

    def _others_clear(self, zc: _Card) -> bool:
        return all(lying is zc for seat in Seat for lying in self._zones[seat])

    def _scan(self, seat: Seat, zc: _Card) -> None:
        assert zc.card is not None
        zc.status = ZoneCardStatus.SHOWN
        try:
            self._do(ScanCard(seat, zc.card))
        except RulesError as err:
            code = WarningCode.TOO_MANY_CARDS if "seventh" in str(err) else WarningCode.CARD_IN_TWO_HANDS
            self._warn(code, 8, seat, str(err), (("card", str(zc.card)),))

    def _tentative_warnings(self, seat: Seat, card: Card, deal: Deal) -> tuple[TableWarning, ...]:
        """What would be wrong if this card stays: shown at once, withdrawn if it turns out to be a show."""
        to_play = deal.to_play
        if to_play is not seat:
            if card.is_matador and deal.can_announce(seat):
                return ()  # most likely a matador shown for an announcement
            return (self._make(WarningCode.OUT_OF_TURN, 12, seat, self._out_of_turn_text(seat, card, to_play),
                               (("card", str(card)), ("expected", _seat_text(to_play))), tentative=True),)
        trial = deal.copy()
        try:
            faults = trial.play(seat, card, check=False)
        except IllegalPlay as err:
            return (self._make(WarningCode.ILLEGAL_PLAY, None, seat, str(err), (("card", str(card)),),
                               tentative=True),)
        return tuple(self._fault_warning(fault, tentative=True) for fault in faults)

    def _on_lift(self, event: CardLifted, time: float) -> None:
        seat = event.seat
        self._zone_readable(seat)
        zone = self._zones[seat]
        zc = next((c for c in zone if c.matches(event.card, event.uid)), None)
        if zc is None:
            return  # not known to lie there (a reader repeating itself): nothing to do
        if zc.status is ZoneCardStatus.PLAYED and self._in_current_trick(seat, zc.card):
            self._lay_for(seat, because_place=False)  # sweeping: the fourth card, if tentative, was laid
            self._fourth_card_was_swept(time)
        zone.remove(zc)
        for wid in zc.warnings:
            self._resolve(wid)
        if zc.status is ZoneCardStatus.TENTATIVE:
            self._show(seat, zc)
        elif zc.status is ZoneCardStatus.PLAYED and self._in_current_trick(seat, zc.card):
            assert zc.card is not None
            wid = self._warn(
                WarningCode.LIFTED_EARLY, None, seat,
                f"{seat} lifted {zc.card.display} before the trick was complete: put it back",
                (("card", str(zc.card)),),
            )
            self._lifted[seat] = (zc.card, wid)
        if len(zone) == 1 and zone[0].reason == _TWO_CARDS:
            rest = zone.pop()
            for wid in rest.warnings:
                self._resolve(wid)
            fresh = _Card(rest.card, rest.uid, time, self._tick_order())
            self._place_card(seat, fresh)  # the card that was second is alone now: as if just placed

    def _fourth_card_was_swept(self, time: float) -> None:
        """A sweep that began with the fourth card: it was lifted within the tap window, so it counted as a show,
        and now (within the tap window again) another card of its trick is lifted. The sweeper took the fourth card
        first; it was a play. The show is dropped and the card played, closing the trick (docs/table.md)."""
        tap = self._last_tap
        deal = self._game.deal
        trick = deal.current_trick if deal is not None else None
        if tap is None or deal is None or trick is None or len(trick.plays) != 3 or not self._done:
            return
        seat, card, lifted = tap
        show = self._done[-1].action
        if seat is not deal.to_play or time > lifted + self.config.tap_window or show != ShowCard(seat, card):
            return
        if card.is_matador and deal.can_announce(seat):
            return  # a queen shown before his first card is an announcement (rule 10), whatever follows
        self._drop_last()
        try:
            self._do(PlayCard(seat, card))
        except RulesError:  # not his card after all (hand scan): the show stands
            self._do(ShowCard(seat, card))
            return
        self._trick_closed()

    def _in_current_trick(self, seat: Seat, card: Card | None) -> bool:
        deal = self._game.deal
        if deal is None or card is None or not self._game.started:
            return False
        trick = deal.current_trick
        return trick is not None and trick.card_of(seat) == card

    def _show(self, seat: Seat, zc: _Card) -> None:
        """A tap: the card was shown, not played. Matadors shown before one's first card announce (rule 10)."""
        assert zc.card is not None
        card = zc.card
        deal = self._game.deal
        if self._game.phase is not TablePhase.PLAY or deal is None:
            return
        holder = deal.holder(card)
        if holder is not None and holder is not seat:
            code = WarningCode.QUEEN_SHOWN_BY_OTHER_SEAT if card.is_matador else WarningCode.CARD_IN_TWO_HANDS
            rule = 11 if card.is_matador else 8
            self._warn(code, rule, seat, f"{seat} shows {card.display}, which {holder} showed or holds (rule {rule})",
                       (("card", str(card)), ("holder", holder.value)))
            return
        try:
            self._do(ShowCard(seat, card))
        except RulesError as err:
            self._warn(WarningCode.CARD_ALREADY_PLAYED, 3, seat, str(err), (("card", str(card)),))
            return
        self._last_tap = (seat, card, self._time)

    # --- buttons and readers -----------------------------------------------------------------------------------

    def _on_button(self, event: Button) -> None:
        name = event.name
        game = self._game
        if name is ButtonName.UNDO:
            self._undo()
        elif name is ButtonName.CONFIRM:
            self._confirm()
        elif name.suit is not None:
            if game.phase is not TablePhase.TRUMPS:
                self._not_now(event, "trumps are named once, by forehand, at the start of the deal (rule 9)")
                return
            self._do(NameTrump(game.forehand, name.suit))
        elif name.announcement is not None:
            self._announce_by_touch(event)
        elif name is ButtonName.CLAIM:
            self._claim(event)
        elif name is ButtonName.NEW_MATCH:
            self._do(NewMatch(event.seat or game.match.dealer))
            self._lifted.clear()
        elif name is ButtonName.REVANCHE:
            try:
                self._do(Revanche())
            except RulesError as err:
                self._not_now(event, str(err))

    def _confirm(self) -> None:
        """Confirm acknowledges the warnings on screen; with none, it moves the table on where it waits."""
        if self._active:
            self._active.clear()
            return
        phase = self._game.phase
        try:
            if phase is TablePhase.HAND_SCAN:
                self._do(EndScan())
            elif phase is TablePhase.DEAL_OVER:
                self._do(StartDeal())
        except RulesError:  # pragma: no cover - the phase was checked
            pass

    def _announce_by_touch(self, event: Button) -> None:
        announcement = event.name.announcement
        assert announcement is not None
        deal = self._game.deal
        if self._game.phase is not TablePhase.PLAY or deal is None:
            self._not_now(event, f"{announcement.label} is announced after trumps are named (rule 10)")
            return
        seat = event.seat
        if seat is None:
            to_play = deal.to_play
            seat = to_play if to_play is not None and deal.can_announce(to_play) else None
        if seat is None:
            self._not_now(
                event, f"{announcement.label} is announced by the player to play, before his first card (rule 10)"
            )
            return
        if not deal.can_announce(seat):
            self._warn(
                WarningCode.ANNOUNCEMENT_TOO_LATE, 10, seat,
                f"{seat} announces {announcement.label} too late: only before his first card (rule 10)",
                (("announcement", announcement.value),),
            )
            return
        try:
            self._do(Announce(seat, announcement))
        except RulesError as err:
            self._warn(WarningCode.ANNOUNCEMENT_WITHOUT_CARDS, 11, seat, str(err),
                       (("announcement", announcement.value),))

    def _claim(self, event: Button) -> None:
        deal = self._game.deal
        if self._game.phase is not TablePhase.PLAY or deal is None:
            self._not_now(event, "a claim is possible only while tricks are being played (rule 21)")
            return
        team = event.seat.team if event.seat is not None else claimable_team(deal)
        if team is None:
            points = deal.points()
            self._warn(
                WarningCode.CLAIM_REFUSED, 21, None,
                f"no team can claim: NS have {points[Team.NS]}, EW {points[Team.EW]}; a claim needs 21 (rule 21)",
                (("ns", str(points[Team.NS])), ("ew", str(points[Team.EW]))),
            )
            return
        try:
            self._do(Claim(team))
        except RulesError as err:
            self._warn(WarningCode.CLAIM_REFUSED, 21, event.seat, str(err), (("team", team.value),))

    def _not_now(self, event: Button, why: str) -> None:
        self._warn(WarningCode.NOT_NOW, None, event.seat, f"{event.name.value}: {why}",
                   (("button", event.name.value),))

    def _on_reader(self, event: ReaderStatus) -> None:
        seat = event.seat
        if self._readers[seat] in _BLIND and event.state not in _BLIND:
            for zc in self._zones[seat]:
                if zc.status is ZoneCardStatus.TENTATIVE:
                    zc.placed = self._time  # the reader sees again: the tap window starts now
        self._readers[seat] = event.state
        for wid in self._reader_warnings[seat]:
            self._resolve(wid)
        self._reader_warnings[seat] = []
        detail = f" ({event.detail})" if event.detail else ""
        if event.state in (ReaderState.OFFLINE, ReaderState.FAULT):
            wid = self._warn(
                WarningCode.READER_OFFLINE, None, seat,
                f"The reader of {seat}'s zone is {event.state.value}{detail}: use the touch screen or check it",
                (("state", event.state.value), ("detail", event.detail)),
            )
            self._reader_warnings[seat].append(wid)
        elif event.state is ReaderState.MULTI:
            wid = self._warn(
                WarningCode.TWO_CARDS_ON_ZONE, None, seat,
                f"Two cards lie on {seat}'s zone{detail}: one card per zone",
                (("detail", event.detail),),
            )
            self._reader_warnings[seat].append(wid)

    # --- actions and undo --------------------------------------------------------------------------------------

    def _do(self, action: Action) -> Outcome:
        """Apply an action to the game and remember it for undo. RulesError propagates (nothing changed)."""
        outcome = self._game.apply(action)
        done = _Done(action)
        self._done.append(done)
        for fault in outcome.faults:
            done.warnings.append(self._add(self._fault_warning(fault)))
        if outcome.too_late is not None and isinstance(action, ShowCard):
            done.warnings.append(
                self._warn(
                    WarningCode.ANNOUNCEMENT_TOO_LATE, 10, action.seat,
                    f"{action.seat} shows {outcome.too_late.label} after his first card: it does not count (rule 10)",
                    (("announcement", outcome.too_late.value),),
                )
            )
        if isinstance(action, StartDeal | NewMatch | Revanche):
            self._lifted.clear()
        self._reconcile_zones()
        return outcome

    def _reconcile_zones(self) -> None:
        """Cards lying on the zones say what the game now makes of them: a card marked played is one of its seat's
        cards in the current deal's tricks. After a new deal or match, or an undo, a played card that no longer is
        becomes a card being gathered (shown); one that is again (an undone deal start) is played again."""
        deal = self._game.deal
        for seat in Seat:
            for zc in self._zones[seat]:
                on_table = deal is not None and zc.card is not None and _trick_card(deal, seat, zc.card)
                if zc.status is ZoneCardStatus.PLAYED and not on_table:
                    zc.status = ZoneCardStatus.SHOWN
                elif zc.status is ZoneCardStatus.SHOWN and on_table:
                    zc.status = ZoneCardStatus.PLAYED
                elif zc.status is ZoneCardStatus.STRAY and (deal is None or zc.card not in deal.played):
                    for wid in zc.warnings:  # "already played" is no longer true after an undo: lift it, that's all
                        warning = self._active.get(wid)
                        if warning is not None and warning.code is WarningCode.CARD_ALREADY_PLAYED:
                            self._resolve(wid)

    def _drop_last(self) -> _Done:
        """Forget the last action and its warnings; rebuild the game from the actions before it."""
        done = self._done.pop()
        for wid in done.warnings:
            self._active.pop(wid, None)
            self._log.pop(wid, None)
        self._game = Game.replay(self.rules, self.first_dealer, self.config.hand_scan, (d.action for d in self._done))
        return done

    def _undo(self) -> None:
        """Drop the last action and rebuild the game from the others; the zones stay as they physically are."""
        self._expire(float("inf"))
        if not self._done:
            return
        action = self._drop_last().action
        if isinstance(action, PlayCard):
            for zc in self._zones[action.seat]:
                if zc.card == action.card and zc.status is ZoneCardStatus.PLAYED:
                    zc.status = ZoneCardStatus.STRAY  # no longer played: to be lifted
            lifted = self._lifted.get(action.seat)
            if lifted is not None and lifted[0] == action.card:
                self._resolve(lifted[1])
                del self._lifted[action.seat]
        self._reconcile_zones()

    # --- warnings ----------------------------------------------------------------------------------------------

    def _make(
        self,
        code: WarningCode,
        rule: int | None,
        seat: Seat | None,
        message: str,
        params: tuple[tuple[str, str], ...] = (),
        *,
        trick: int | None = None,
        tentative: bool = False,
    ) -> TableWarning:
        deal = self._game.deal
        if trick is None and deal is not None and self._game.started and deal.trump is not None:
            trick = deal.trick_number
        return TableWarning(code, rule, seat, trick, message, params, self._game.deal_number, tentative)

    def _warn(
        self,
        code: WarningCode,
        rule: int | None,
        seat: Seat | None,
        message: str,
        params: tuple[tuple[str, str], ...] = (),
    ) -> int:
        return self._add(self._make(code, rule, seat, message, params))

    def _add(self, warning: TableWarning) -> int:
        wid = self._next_id
        self._next_id += 1
        self._active[wid] = warning
        self._log[wid] = warning
        return wid

    def _resolve(self, wid: int) -> None:
        self._active.pop(wid, None)

    def _fault_warning(self, fault: Fault, tentative: bool = False) -> TableWarning:
        params: list[tuple[str, str]] = [("card", str(fault.card))]
        if fault.proof is not None:
            params.append(("proof", str(fault.proof)))
        message = fault.message
        if fault.code is FaultCode.REVOKE:
            code = WarningCode.REVOKE
            if self.rules.revoke_penalty is RevokePenalty.LOSE_DEAL:
                message += f"; {fault.seat.team} lose the deal"
                params.append(("penalty", "lose_deal"))
        elif fault.card.is_matador:
            code = WarningCode.QUEEN_SHOWN_BY_OTHER_SEAT
        else:  # any other card shown by one seat and played by another: one of them misread or misplayed
            code = WarningCode.CARD_IN_TWO_HANDS
        return self._make(code, fault.rule, fault.seat, message, tuple(params), trick=fault.trick,
                          tentative=tentative)

    def _warn_out_of_turn(self, seat: Seat, card: Card, to_play: Seat | None) -> int:
        return self._warn(WarningCode.OUT_OF_TURN, 12, seat, self._out_of_turn_text(seat, card, to_play),
                          (("card", str(card)), ("expected", _seat_text(to_play))))

    def _out_of_turn_text(self, seat: Seat, card: Card, to_play: Seat | None) -> str:
        if to_play is None:
            return f"{seat} lays {card.display}, but no card is to be played now: take it back"
        return f"{seat} lays {card.display} out of turn: {to_play} is to play (rule 12)"

    def _warn_already_played(self, seat: Seat, card: Card, deal: Deal) -> int:
        where = next(
            ((number, play.seat) for number, trick in enumerate(deal.tricks, 1) for play in trick.plays
             if play.card == card),
            None,
        )
        when = f" by {where[1]} in trick {where[0]}" if where is not None else ""
        params: tuple[tuple[str, str], ...] = (("card", str(card)),)
        if where is not None:
            params += (("played_by", where[1].value), ("played_in", str(where[0])))
        return self._warn(
            WarningCode.CARD_ALREADY_PLAYED, 3, seat,
            f"{card.display} on {seat}'s zone was already played{when} in this deal (a misread, or a second deck)",
            params,
        )

    # --- helpers -----------------------------------------------------------------------------------------------

    def _tick_order(self) -> int:
        self._order += 1
        return self._order

    def _to_play(self) -> Seat | None:
        deal = self._game.deal
        if self._game.phase is not TablePhase.PLAY or deal is None:
            return None
        return deal.to_play

    # --- the snapshot ------------------------------------------------------------------------------------------

    def _build_state(self) -> TableState:
        game = self._game
        deal = game.deal
        match = game.match
        phase = game.phase
        if deal is not None:
            dealer, forehand = deal.dealer, deal.forehand
        else:
            dealer, forehand = game.dealer, game.forehand
        tricks: tuple[TrickView, ...] = ()
        announcements: tuple[tuple[Seat, Announcement], ...] = ()
        points = {Team.NS: 0, Team.EW: 0}
        won = {Team.NS: 0, Team.EW: 0}
        shown: list[tuple[Seat, tuple[Card, ...]]] = []
        trump = game.pending_trump
        to_play = None
        trick_number = 1
        if deal is not None:
            tricks = tuple(
                TrickView(i + 1, t.leader, tuple((p.seat, p.card) for p in t.plays), t.winner, t.points)
                for i, t in enumerate(deal.tricks)
            )
            announcements = tuple(deal.announcements)
            points = deal.points()
            won = deal.tricks_won()
            shown = [(seat, tuple(sorted(deal.known[seat], key=lambda c: c.index))) for seat in Seat]
            trump = deal.trump
            to_play = deal.to_play if phase is TablePhase.PLAY else None
            trick_number = deal.trick_number
        zones = tuple(
            Zone(
                seat,
                tuple(ZoneCard(c.card, c.uid, c.status, c.placed) for c in self._zones[seat]),
                self._readers[seat],
            )
            for seat in Seat
        )
        warnings = list(self._active.values())
        for _, card in self._pending():
            warnings.extend(card.tentative)
        history = tuple(match.slate.history)
        return TableState(
            time=self._time,
            events=self._events,
            phase=phase,
            prompt=self._prompt(phase),
            match_number=len(game.matches),
            deal_number=game.deal_number,
            dealer=dealer,
            forehand=forehand,
            trump=trump,
            to_play=to_play,
            trick_number=trick_number,
            tricks=tricks,
            announcements=announcements,
            shown=tuple(shown),
            scanned=tuple((seat, len(game.scan.get(seat, ()))) for seat in Seat),
            points=tuple(points.items()),
            tricks_won=tuple(won.items()),
            zones=zones,
            warnings=tuple(warnings),
            open_lines=tuple((team, match.slate.open_lines(team)) for team in Team),
            lines=tuple((team, match.slate.lines(team)) for team in Team),
            slate=history,
            last_result=history[-1].result if history else None,
            match_winner=match.winner,
            can_undo=bool(self._done),
            config=self.config,
        )

    def _prompt(self, phase: TablePhase) -> Prompt:
        """The one gesture the table waits for, most urgent first (docs/table.md)."""
        game = self._game
        for seat in Seat:
            for zc in self._zones[seat]:
                if zc.status is ZoneCardStatus.STRAY:
                    what = str(zc.card) if zc.card is not None else zc.uid
                    return Prompt("lift_card", seat, (("card", what),))
        for seat, (card, _) in self._lifted.items():
            return Prompt("put_back", seat, (("card", str(card)),))
        lying = any(c.status is not ZoneCardStatus.TENTATIVE for seat in Seat for c in self._zones[seat])
        if phase is TablePhase.TRUMPS:
            return Prompt("name_trumps", game.forehand)
        if phase is TablePhase.HAND_SCAN:
            for seat in self.rules.direction.order_from(game.forehand):
                count = len(game.scan[seat])
                if count < 6:
                    return Prompt("scan_hand", seat, (("count", str(count)),))
        if phase is TablePhase.MATCH_OVER:
            winner = game.match.winner
            return Prompt("match_over", None, (("winner", winner.value if winner else ""),))
        deal = game.deal
        last_winner = deal.tricks[-1].winner if deal is not None and deal.tricks else None
        if phase is TablePhase.DEAL_OVER:
            if lying:
                return Prompt("sweep", last_winner)
            return Prompt("next_deal", game.dealer, (("forehand", game.forehand.value),))
        assert deal is not None
        to_play = deal.to_play
        assert to_play is not None
        trick = deal.current_trick
        blocking = [c for c in self._zones[to_play] if c.status is not ZoneCardStatus.TENTATIVE]
        if trick is None and blocking:
            if deal.tricks:
                return Prompt("sweep", to_play, (("trick", str(len(deal.tricks))),))
            return Prompt("lift_card", to_play, (("card", str(blocking[0].card)),))
        lead = "yes" if trick is None else "no"
        return Prompt("play", to_play, (("trick", str(deal.trick_number)), ("lead", lead)))


def _trick_card(deal: Deal, seat: Seat, card: Card) -> bool:
    """Whether ``card`` lying on ``seat``'s zone is a card of a trick still on the table: the seat's card in the
    trick being played, or in the last complete trick before it has played to the next."""
    trick = deal.current_trick
    return (trick is not None and trick.card_of(seat) == card) or _swept_and_put_back(deal, seat, card)


def _swept_and_put_back(deal: Deal, seat: Seat, card: Card) -> bool:
    """``seat`` puts back its own card of the last complete trick before playing to the next one: a card knocked off
    (or a sweep begun and thought better of), not a card played again."""
    complete = deal.completed_tricks
    if not complete or complete[-1].card_of(seat) != card:
        return False
    trick = deal.current_trick
    return trick is None or trick.card_of(seat) is None


def _seat_text(seat: Seat | None) -> str:
    return "" if seat is None else seat.value
