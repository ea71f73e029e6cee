"""The running table: one queue in, one thread, journal before screen.

Reader pumps, gpiozero callbacks and the demo's simulated players only ``put`` onto :attr:`TableApp.inbox`
(threads stop at the adapter, STYLE.md 10). :meth:`TableApp.step` takes one item off the queue on the main
thread, turns it into a table event, journals it (fsync) and applies it, then refreshes the screen and the seat
LEDs. When nothing arrives for a short while it feeds a :class:`~tablepi.table.Tick`, so a card tapped and left
becomes a play without anyone touching anything, and keeps the systemd watchdog fed.

After a restart the readers report the cards lying on the zones afresh. A card the table already has on that zone
is taken for what it is (the table ignores a repeated place); a card the table believes lies there but the reader
does not report within :data:`RESYNC_SECONDS` of the zone coming online was taken away while the app was down, and
is lifted (journaled like any event): the table's zones are the truth again.

Table time is seconds since the journal began. The reader backends stamp their events with
``time.monotonic()``; :attr:`TableApp.offset` maps that clock onto table time and is chosen at start so that
time continues from the journal's last event after a restart (the state machine ignores a clock that steps back).
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable, Mapping
from concurrent.futures import Future
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from tablepi.controls.events import ControlEvent
from tablepi.errors import ConfigError
from tablepi.feed.messages import Seating
from tablepi.journal.journal import JournaledTable
from tablepi.notices import Notice, NoticeCode
from tablepi.players import PlayerRegistry, fit_name
from tablepi.readers.events import ZoneCrosstalk, ZoneEvent, ZoneStatus, normalise_uid
from tablepi.rules.deal import Deal
from tablepi.rules.seats import Seat
from tablepi.table import (
    Button,
    ButtonName,
    CardLifted,
    CardPlaced,
    DeckLookup,
    ReaderCrosstalk,
    ReaderState,
    ReaderStatus,
    TableEvent,
    TablePhase,
    TableState,
    Tick,
)
from tablepi.table.adapter import from_zone_crosstalk, from_zone_event, from_zone_status, lifts_for_snapshot
from tablepi.table.events import PlayersSeated, SeatingSource
from tablepi.table.machine import HAND_EVENTS
from tablepi.table.warnings import WarningCode

if TYPE_CHECKING:
    from tablepi.app.console import Console
    from tablepi.app.names import RecentNames
    from tablepi.app.service import Desk, TableFiles
    from tablepi.display.keys import Touched

log = logging.getLogger(__name__)

#: How often, at most, a Tick is fed when the table is idle: tap windows close within this of their end.
TICK_SECONDS = 0.1
#: During a storage fault, how often the journal tries again to save what is pending.
RETRY_SECONDS = 1.0
#: After start, how long a zone's reader has to report the cards lying on it before the table takes any card it
#: still believes there, and the reader does not report, as lifted while the app was down.
RESYNC_SECONDS = 0.5


@dataclass(frozen=True, slots=True)
class Touch:
    """A control touched on the screen, as a value: a button (the table's own name for it), a key of the sheet, the
    header, a seat's card place (:data:`tablepi.display.keys.Touched`)."""

    target: Touched
    seat: Seat | None = None  # who touched, when the screen knows (a seat's corner); else the table infers it


class Screen(Protocol):
    """What the app needs of a display: show a state, and hand back touches."""

    def show(self, state: TableState) -> None: ...

    def poll(self) -> list[tuple[Touched, Seat | None]]: ...

    def close(self) -> None: ...


class Lights(Protocol):
    """What the app needs of the GPIO controls."""

    def show(self, turn: Seat | None, warning_seats: set[Seat], alert: bool) -> None: ...

    def close(self) -> None: ...


class Reviewer(Protocol):
    """Reviews a finished deal off the table's path (tablepi.analysis.worker.ReviewWorker): returns at once."""

    def submit(self, deal: Any, number: int, carried: int = 0) -> Future[Any]: ...

    def close(self) -> None: ...


class Watchdog(Protocol):
    """systemd's notify protocol (tablepi.sdnotify.Notifier): ready once, then a beat at least every second."""

    def ready(self) -> object: ...

    def watchdog(self) -> object: ...

    def stopping(self) -> object: ...


class TableApp:
    """Wires one journaled table to its inputs (readers, buttons, touch) and outputs (screen, LEDs, buzzer)."""

    def __init__(
        self,
        table: JournaledTable,
        deck: DeckLookup,
        seat_of_zone: Mapping[int, Seat],
        screen: Screen | None = None,
        lights: Lights | None = None,
        watchdog: Watchdog | None = None,
        clock: Callable[[], float] = time.monotonic,
        reviewer: Reviewer | None = None,
    ) -> None:
        self.table = table
        self.deck = deck
        self.seat_of_zone = dict(seat_of_zone)
        self.screen = screen
        self.lights = lights
        self.watchdog = watchdog
        self.clock = clock
        self.inbox: queue.Queue[Any] = queue.Queue()
        #: How long after the time it carries a reader event may still arrive (``Reader.report_delay``: a
        #: device that dates its own events sends a lift after its quiet time). Ticks run that far behind
        #: ``now``, so a card is not taken for laid while the lift that makes it a show may still be coming.
        self.report_delay = 0.0
        self.crosstalk: list[ZoneCrosstalk] = []  # the readers' crosstalk notices, newest last (at most 20)
        # Continue the journal's clock: table time = reader time + offset.
        self.offset = table.journal.last_time - clock() + 0.001
        self.events_applied = 0
        self.unhandled = 0
        self._last_beat = 0.0
        self._closed = False
        # Zones not yet settled since start: the UIDs reported lying there (a device's STATE brings its places
        # before the ONLINE statuses, so they count from the start), and when to settle, from the zone's first ONLINE.
        self._settled: set[Seat] = set()
        self._lying: dict[Seat, set[str]] = {}
        self._resync: dict[Seat, float] = {}
        self._logged: set[tuple[int, str, str]] = set()  # warnings already written to the log
        self._last_retry = clock()
        self._notices = table.notices
        start = table.state
        self._recovered_at = (len(table.table.matches), start.deal_number)  # the recovery notice stands till then
        # Shown every state like the screen (the MQTT feed's retained state is one): show() must not block.
        self.observers: list[Any] = []
        self.seating: Seating | None = None  # this round's seating, from the tournament (tablepi.feed)
        self.notices: list[Notice] = []  # the director's announcements and the feed's warnings, newest last
        self.players = PlayerRegistry()
        #: The service's desk (control requests, enrol mode, file reloads); None for a bare app (tests, demo).
        self.desk: Desk | None = None
        #: What the enrol mode asks for now ("Lay ♠A on any zone (1/24)."); empty outside the mode.
        self.mode_text = ""
        #: The screen's hand-entry panels (tablepi.app.console); None without a touch screen.
        self.console: Console | None = None
        #: Names of earlier matches' players (tablepi.app.names), kept when players are seated.
        self.recent_names: RecentNames | None = None
        #: Reviews of finished deals (best play, tablepi.analysis) in a worker; None: no reviews.
        self.reviewer = reviewer
        self.review: Any = None  # the last deal's review once ready
        self.review_open = False  # the Review touch shows it (learner mode shows it anyway)
        self._review_key: tuple[int, int] | None = None  # (match, deal) reviewed or being reviewed
        self._review_pending: Future[Any] | None = None
        self._refresh()

    # --- input -------------------------------------------------------------------------------------------------

    def put(self, item: object) -> None:
        """Thread-safe: what reader pumps, controls and the demo call."""
        self.inbox.put(item)

    @property
    def now(self) -> float:
        """The current table time."""
        return self.clock() + self.offset

    def knows_uid(self, uid: str) -> bool:
        """Whether ``uid`` is a card of an enrolled deck: the readers' ``known`` (garbled reads are no cards)."""
        return self.deck.lookup(uid) is not None

    def to_table_event(self, item: object) -> TableEvent | None:
        """One inbox item as a table event; None (logged) for something the table does not take."""
        if isinstance(item, ZoneCrosstalk):
            self._crosstalk(item)
            return from_zone_crosstalk(item, self.seat_of_zone, self.deck, self.offset)
        if isinstance(item, ZoneEvent) and item.zone in self.seat_of_zone and self.players.lookup(item.uid):
            # A player's own tag tapped on his zone seats him there; it is no card, so its lift is nothing.
            if not item.present:
                return None
            player = self.players.lookup(item.uid)
            assert player is not None
            return PlayersSeated(item.time + self.offset, ((self.seat_of_zone[item.zone], player),),
                                 SeatingSource.TAG, normalise_uid(item.uid))
        if isinstance(item, ZoneEvent):
            event = from_zone_event(item, self.seat_of_zone, self.deck, self.offset)
            if item.present and event.seat not in self._settled:
                self._lying.setdefault(event.seat, set()).add(event.uid)
            return event
        if isinstance(item, ZoneStatus):
            status = from_zone_status(item, self.seat_of_zone, self.offset)
            if status.state is ReaderState.ONLINE and status.seat not in self._settled:
                self._resync.setdefault(status.seat, self.now + RESYNC_SECONDS)
            return status
        if isinstance(item, Touch):
            if self.console is not None and self.console.touch(item.target, self.table.state):
                self._refresh()  # a panel opened, changed or closed (its gesture, if any, was handled)
                return None
            if not isinstance(item.target, ButtonName):
                return None  # the header, a card place, a key: nothing without the hand-entry console
            return Button(self.now, item.target, item.seat)
        if isinstance(item, ControlEvent):
            name = item.name
            if name == "menu":  # the hardware menu button: a new match when one is over, else nothing
                state = self.table.state
                if state.match_winner is None:
                    log.info("menu pressed during a match: ignored (hold it after the match for a new one)")
                    return None
                name = ButtonName.NEW_MATCH.value
            try:
                return Button(self.now, ButtonName(name))
            except ValueError:
                log.warning("unknown button %r ignored", name)
                return None
        if isinstance(item, (CardPlaced, CardLifted, Button, ReaderStatus, ReaderCrosstalk, Tick, *HAND_EVENTS)):
            return item  # already a table event (the demo, a replay, a future remote control)
        log.warning("ignored an inbox item the table does not understand: %r", item)
        return None

    # --- the loop ----------------------------------------------------------------------------------------------

    def handle(self, item: object) -> TableState | None:
        """Journal and apply one inbox item; returns the new state (None if it was not a table event)."""
        if isinstance(item, Seating | Notice):
            self._feed_message(item)
            return None
        if self.desk is not None and self.desk.take(item):
            if self.console is not None and self.console.enrolling is not None:
                self._refresh()  # the enrol mode's sheet says what to lay next
            return None  # a control request, or a card laid for the enrol mode: not the game's
        if isinstance(item, Touch) and item.target is ButtonName.REVIEW:
            self._toggle_review()  # the screen's own business: nothing happens at the table, nothing journaled
            return None
        event = self.to_table_event(item)
        if event is None:
            self.unhandled += 1
            return None
        before = self.table.state
        state = self.table.feed(event)  # journal first (fsync), then the table
        if isinstance(event, PlayersSeated) and self.recent_names is not None:
            self.recent_names.add(name for _, name in event.names)
        self.events_applied += 1
        if state is not before:  # an idle tick changes nothing: no view to build, nothing to draw
            self._refresh()
        return state

    def step(self, timeout: float = TICK_SECONDS) -> bool:
        """Handle what arrived within ``timeout`` (or tick), pass on touches; False once closed."""
        if self._closed:
            return False
        if self.screen is not None:
            for target, seat in self.screen.poll():
                self.handle(Touch(target, seat))
        try:
            item = self.inbox.get(timeout=timeout)
        except queue.Empty:
            item = Tick(self.now - self.report_delay)
        self.handle(item)
        while True:  # drain what queued up meanwhile, in order, before drawing again
            try:
                self.handle(self.inbox.get_nowait())
            except queue.Empty:
                break
        self.settle_zones()
        self._storage()
        self._collect_review()
        if self.desk is not None:
            self.desk.tick()
        self._beat()
        return True

    def _storage(self) -> None:
        """Retry a storage fault about once a second; redraw when the journal's notices change."""
        now = self.clock()
        if self.table.journal.fault is not None and now - self._last_retry >= RETRY_SECONDS:
            self._last_retry = now
            self.table.retry()
        state = self.table.state
        if (len(self.table.table.matches), state.deal_number) != self._recovered_at:
            self.table.dismiss_recovery()  # the deal in progress at the restart is over: the notice has been seen
        if self.table.notices != self._notices:
            self._refresh()

    def settle_zones(self) -> None:
        """Lift what lay on a zone before a restart but is gone now (see the module's docstring)."""
        now = self.now
        for seat, deadline in list(self._resync.items()):
            if now < deadline:
                continue
            del self._resync[seat]
            self._settled.add(seat)
            present = self._lying.pop(seat, set())
            for lift in lifts_for_snapshot(self.table.state, {seat: present}, now):
                if lift.seat is seat:
                    log.info("zone %s: %s was taken away while the table was off", seat, lift.card or lift.uid)
                    self.handle(lift)

    def gesture(self, gesture: object) -> None:
        """A finished hand-entry panel's gesture: as a table event, journaled and applied like any other."""
        from tablepi.app.console import gesture_event
        from tablepi.display.panels import StartEnrol, StopEnrol

        if isinstance(gesture, StartEnrol | StopEnrol):
            if self.desk is None:
                log.warning("enrolment from the screen needs the running service: ignored")
            elif isinstance(gesture, StartEnrol):
                self.desk.begin_here(gesture.kind, gesture.name)
            else:
                self.desk.stop_here()
            self._refresh()
            return

        event = gesture_event(gesture, self.now)
        if event is None:
            log.warning("hand entry %r is not a table event yet: ignored", gesture)
            return
        self.handle(event)

    def use_files(self, files: TableFiles) -> None:
        """Swap in the decks and player tags just read (one assignment each: nothing sees half a deck)."""
        self.deck = files.registry
        self.players = files.players

    def resync(self, present: Mapping[int, set[str]]) -> None:
        """Lift what the table believes lies on a zone but ``present`` (zone -> tag UIDs) says is gone: after
        the enrol mode, during which card events did not reach the table."""
        for zone, uids in present.items():
            seat = self.seat_of_zone.get(zone)
            if seat is None:
                continue
            for lift in lifts_for_snapshot(self.table.state, {seat: uids}, self.now):
                if lift.seat is seat:
                    self.handle(lift)

    def run(self, stop: threading.Event) -> None:
        """Run until ``stop`` is set. Tells systemd when ready and keeps its watchdog fed."""
        if self.watchdog is not None:
            self.watchdog.ready()
        while not stop.is_set() and self.step():
            pass

    def _crosstalk(self, item: ZoneCrosstalk) -> None:
        """A zone heard a card that is not its own: the reader kept the card where it lies; tell the owner."""
        self.crosstalk = [*self.crosstalk[-19:], item]
        seat = self.seat_of_zone.get(item.zone)
        where = f"the card on zone {item.holder}" if item.holder is not None else "a garbled tag"
        log.warning(
            "zone %d (%s) hears %s (%s): the antennas hear each other; space them further apart or lower "
            "the readers' gain (hw/README.md)", item.zone, seat, where, item.uid,
        )

    def _beat(self) -> None:
        now = self.clock()
        if self.watchdog is not None and now - self._last_beat >= 1.0:
            self.watchdog.watchdog()
            self._last_beat = now

    def _feed_message(self, item: Seating | Notice) -> None:
        """A seating or a notice from the feed: kept, logged, and handed to the screen if it can show it
        (``show_seating(seating)`` / ``show_notice(notice)``; the screens' own business how)."""
        if isinstance(item, Seating):
            self.seating = item
            log.info("seating: %s", item.text())
            hook = getattr(self.screen, "show_seating", None)
            if item.names and not self._seated_already(item.names):
                # The tournament's seating seats the players, like names typed at the table (a journaled event).
                self.handle(PlayersSeated(self.now, item.names, SeatingSource.TOURNAMENT))
        else:
            self.notices = [*self.notices[-9:], item]
            log.log(logging.WARNING if item.code is NoticeCode.FEED_PROBLEM else logging.INFO, "notice: %s",
                    item.param("text"))
            hook = getattr(self.screen, "show_notice", None)
        if callable(hook):
            hook(item)

    def _seated_already(self, names: tuple[tuple[Seat, str], ...]) -> bool:
        """Whether the table's names are these already, as the table keeps them (a long name cut): a seating
        retained by the broker and received again after a reconnect or restart adds nothing."""
        seated = dict(self.table.state.names)
        try:
            return all(seated.get(seat) == fit_name(name)[0] for seat, name in names)
        except ConfigError:
            return False  # not a name the table takes: the journal refuses it, and says so

    # --- the review of the last deal (never on the table's path) ----------------------------------------------

    def _start_review(self, state: TableState) -> None:
        """A deal was just scored: hand a copy to the reviewer (returns at once); forget the previous review."""
        if self.reviewer is None or not state.slate:
            return
        key = (len(self.table.table.matches), state.slate[-1].number)
        if key == self._review_key:
            return
        self._review_key = key
        self.review, self.review_open, self._review_pending = None, False, None
        hook = getattr(self.screen, "show_review", None)
        if callable(hook):
            hook(None, False, redraw=False)  # the screen is about to draw the new state anyway
        told = self.table.table.matches[-1].scored_as_told()
        deal = told[-1][1] if told else None
        if not isinstance(deal, Deal) or deal.trump is None or not deal.is_over:
            return  # a deal told by hand has no cards to review (the played deal before it is not this one)
        try:
            number = state.slate[-1].number
            carried = self.table.table.matches[-1].slate.carried_into(number)  # ties before it (tie = "carry")
            self._review_pending = self.reviewer.submit(deal, number, carried)
        except Exception:  # a broken worker must never stop the table
            log.exception("could not start the review of deal %d", key[1])

    def _collect_review(self) -> None:
        pending = self._review_pending
        if pending is None or not pending.done():
            return
        self._review_pending = None
        try:
            self.review = pending.result()
        except Exception:
            log.exception("the review of the last deal failed")
            return
        self._show_review()

    def _toggle_review(self) -> None:
        if self.review is not None:
            self.review_open = not self.review_open
            self._show_review()

    def _show_review(self) -> None:
        hook = getattr(self.screen, "show_review", None)
        if callable(hook):
            hook(self.review, self.review_open)

    def _refresh(self) -> None:
        state = self.table.state
        if state.slate and state.phase in (TablePhase.DEAL_OVER, TablePhase.MATCH_OVER):
            self._start_review(state)
        for observer in self.observers:
            observer.show(state)
        for warning in state.warnings:  # the service's log tells the owner what the table told the players
            key = (warning.deal, warning.code.value, warning.message)
            if key not in self._logged and not warning.tentative:
                self._logged.add(key)
                log.warning("deal %d: %s: %s", warning.deal, warning.code.value, warning.message)
        self._notices = self.table.notices
        if self.screen is not None:
            # The journal's notices (recovered after damage, storage fault) for the warning bar: a screen that
            # has the hook shows them (PygameScreen), a bare one need not.
            hook = getattr(self.screen, "set_journal_notices", None)
            if hook is not None:
                hook(self._notices)
            self.screen.show(state)
        if self.lights is not None:
            warned = {w.seat for w in state.warnings if w.seat is not None}
            offline = any(w.code is WarningCode.READER_OFFLINE for w in state.warnings)
            self.lights.show(state.to_play, warned, alert=offline)

    def close(self) -> None:
        """Stop: tell systemd, close the screen, LEDs, reviewer and journal. Idempotent."""
        if self._closed:
            return
        self._closed = True
        if self.watchdog is not None:
            self.watchdog.stopping()
        for part in (self.screen, self.lights, self.reviewer):
            if part is not None:
                part.close()
        self.table.close()

    def __enter__(self) -> TableApp:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
