"""The running table's loop: one queue in, one thread, journal before screen.

Reader pumps, gpiozero callbacks, the feed, the control socket and the demo's simulated players only ``put`` typed
inputs (:data:`tablepi.app.inputs.Input`) onto :attr:`TableApp.inbox` (threads stop at the adapter, STYLE.md 10).
:meth:`TableApp.step` is the loop, on the main thread: the screen puts the controls touched since the last step on
the queue (:meth:`~tablepi.app.ports.Screen.pump`: a window's events are read on the thread that made it), then the
loop takes what arrived off the queue, routes each input (the feed's lines, the control socket's requests, the enrol
mode, the console's panels, the table), turns what is the game's into a table event, journals it (fsync) and
applies it; then it builds one frozen :class:`~tablepi.display.scene.Scene` and hands it to the screen, which only
draws it, and lights the seat LEDs. When nothing arrives for a short while it feeds a :class:`~tablepi.table.Tick`,
so a card tapped and left becomes a play without anyone touching anything, and keeps the systemd watchdog fed.
Everything around the loop is reached through the ports of :mod:`tablepi.app.ports`, handed in when the app is made
(:mod:`tablepi.app.build`).

What the loop keeps between inputs lives beside it, each in its own module: the zones still to settle after a
restart (:mod:`tablepi.app.resync`), the last deal's review (:mod:`tablepi.app.review`), what the feed told the table
(:mod:`tablepi.app.feedlines`), and the housekeeping of the watchdog, the journal's retries and the log
(:mod:`tablepi.app.upkeep`).

Table time is seconds since the journal began. The reader backends stamp their events with
``time.monotonic()``; :attr:`TableApp.offset` maps that clock onto table time and is chosen at start so that
time continues from the journal's last event after a restart (the state machine ignores a clock that steps back).
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING

from tablepi.app.feedlines import FeedLines
from tablepi.app.inputs import Inbox, Input, Touch
from tablepi.app.ports import (
    Console,
    Desk,
    EnrolEnded,
    Enrolment,
    Files,
    Lights,
    Names,
    Observer,
    Ports,
    Reviewer,
    Screen,
    Watchdog,
)
from tablepi.app.resync import ZoneResync
from tablepi.app.review import ReviewKeeper
from tablepi.app.upkeep import Upkeep
from tablepi.controls.events import ControlEvent
from tablepi.display.scene import Scene
from tablepi.errors import ConfigError
from tablepi.feed.messages import Seating
from tablepi.journal.journal import JournaledTable
from tablepi.notices import Notice, NoticeCode
from tablepi.players import PlayerRegistry, fit_name
from tablepi.readers.events import ZoneCrosstalk, ZoneEvent, ZoneStatus, normalise_uid
from tablepi.rules.seats import Seat
from tablepi.service_socket import ControlCancel, ControlRequest
from tablepi.table import (
    Button,
    ButtonName,
    DeckLookup,
    ReaderState,
    TableEvent,
    TablePhase,
    TableState,
    Tick,
)
from tablepi.table.adapter import from_zone_crosstalk, from_zone_event, from_zone_status, lifts_for_snapshot
from tablepi.table.events import PlayersSeated, SeatingSource
from tablepi.table.warnings import WarningCode

if TYPE_CHECKING:
    from tablepi.analysis.review import DealReview
    from tablepi.display.panels import Gesture

log = logging.getLogger(__name__)

#: How often, at most, a Tick is fed when the table is idle: tap windows close within this of their end.
TICK_SECONDS = 0.1

__all__ = ["TableApp", "Touch"]  # Touch: the screen's input, where the app's users have always found it


class TableApp:
    """The loop of one journaled table, its inputs (readers, buttons, touch, feed, control socket) and outputs
    (screen, LEDs, feed, enrolment) reached through the ports handed in."""

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
        *,
        console: Console | None = None,
        files: Files | None = None,
        enrolment: Enrolment | None = None,
        desk: Desk | None = None,
        names: Names | None = None,
        observers: Iterable[Observer] = (),
        players: PlayerRegistry | None = None,
        inbox: Inbox | None = None,
        report_delay: float = 0.0,
    ) -> None:
        self.table = table
        self.seat_of_zone = dict(seat_of_zone)
        self.ports = Ports(screen, lights, watchdog, reviewer, tuple(observers), console, files, enrolment, desk,
                           names)
        self.clock = clock
        #: The loop's one queue: reader pumps, controls, the feed, the control socket and the demo put onto it.
        self.inbox: Inbox = inbox if inbox is not None else Inbox()
        #: How long after the time it carries a reader event may still arrive (``Reader.report_delay``: a
        #: device that dates its own events sends a lift after its quiet time). Ticks run that far behind
        #: ``now``, so a card is not taken for laid while the lift that makes it a show may still be coming.
        self.report_delay = report_delay
        # The decks and player tags in use (from the files when the table has them).
        self.deck = files.registry if files is not None else deck
        self.players = files.players if files is not None else (players or PlayerRegistry())
        # Continue the journal's clock: table time = reader time + offset.
        self.offset = table.journal.last_time - clock() + 0.001
        self._zones = ZoneResync()
        self._review = ReviewKeeper(reviewer)
        self._feed = FeedLines()
        self._upkeep = Upkeep(table, clock())
        self._refresh()

    # --- what the outside sees ---------------------------------------------------------------------------------

    def put(self, item: Input) -> None:
        """Thread-safe: what reader pumps, controls and the demo call."""
        self.inbox.put(item)

    @property
    def now(self) -> float:
        """The current table time."""
        return self.clock() + self.offset

    @property
    def screen(self) -> Screen | None:
        return self.ports.screen

    @property
    def console(self) -> Console | None:
        return self.ports.console

    @property
    def review(self) -> DealReview | None:
        """The last deal's review, once ready."""
        return self._review.review

    @property
    def review_open(self) -> bool:
        return self._review.open

    @property
    def seating(self) -> Seating | None:
        """This round's seating, from the tournament (tablepi.feed)."""
        return self._feed.seating

    @property
    def round_played(self) -> int | None:
        """The round whose match this table played before the one played now (which does not count for it)."""
        return self._feed.played

    @property
    def notices(self) -> list[Notice]:
        """The director's announcements and the feed's warnings, newest last."""
        return self._feed.notices

    # --- routing -----------------------------------------------------------------------------------------------

    def to_table_event(self, item: Input) -> TableEvent | None:
        """One input as a table event; None (logged) for something the table does not take."""
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
            if item.present:
                self._zones.placed(event.seat, event.uid)
            return event
        if isinstance(item, ZoneStatus):
            status = from_zone_status(item, self.seat_of_zone, self.offset)
            if status.state is ReaderState.ONLINE:
                self._zones.online(status.seat, self.now)
            return status
        if isinstance(item, ControlEvent | Touch):
            return self._press(item)
        if isinstance(item, Seating | Notice | ControlRequest | ControlCancel):
            log.warning("ignored an input the table does not take: %r", item)
            return None
        return item  # already a table event (the demo, a replay, a crash test)

    def _press(self, item: ControlEvent | Touch) -> TableEvent | None:
        """A button pressed (GPIO) or a control touched: the console's, or a button of the table's."""
        if isinstance(item, Touch):
            console = self.ports.console
            if console is not None and console.touch(item.target, self.table.state):
                for gesture in console.take():
                    self.gesture(gesture)
                self._refresh()  # a panel opened, changed or closed (its gesture, if any, was handled)
                return None
            if not isinstance(item.target, ButtonName):
                return None  # the header, a card place, a key: nothing without the hand-entry console
            return Button(self.now, item.target, item.seat)
        name = item.name
        if name == "menu":  # the hardware menu button: a new match when one is over, else nothing
            if self.table.state.match.winner is None:
                log.info("menu pressed during a match: ignored (hold it after the match for a new one)")
                return None
            name = ButtonName.NEW_MATCH.value
        try:
            return Button(self.now, ButtonName(name))
        except ValueError:
            log.warning("unknown button %r ignored", name)
            return None

    def handle(self, item: Input) -> TableState | None:
        """Route one input; journal and apply it if it is the table's. Returns the new state (None if it was not a
        table event)."""
        if isinstance(item, Seating | Notice):
            self._feed_line(item)
            return None
        if isinstance(item, ControlRequest | ControlCancel):
            self._control(item)
            return None
        enrolment = self.ports.enrolment
        if enrolment is not None and enrolment.running and isinstance(item, ZoneEvent | ZoneStatus):
            self._enrol_ended(enrolment.feed(item))
            self._draw()  # the enrol mode's sheet says what to lay next
            if isinstance(item, ZoneEvent):
                return None  # a card laid for the enrol mode: not the game's
        if isinstance(item, Touch) and item.target is ButtonName.REVIEW:
            if self._review.toggle():  # the screen's own business: nothing happens at the table, nothing journaled
                self._draw()
            return None
        event = self.to_table_event(item)
        if event is None:
            return None
        return self.feed(event)

    def feed(self, event: TableEvent) -> TableState:
        """Journal (fsync) and apply one table event, then show the state if it changed."""
        before = self.table.state
        state = self.table.feed(event)  # journal first (fsync), then the table
        if isinstance(event, PlayersSeated) and self.ports.names is not None:
            self.ports.names.add(name for _, name in event.names)
        if state is not before:  # an idle tick changes nothing: no scene to build, nothing to draw
            self._refresh()
        return state

    def _control(self, item: ControlRequest | ControlCancel) -> None:
        """A request on the control socket, or its client hanging up."""
        if isinstance(item, ControlCancel):
            if self.ports.enrolment is not None:
                self._enrol_ended(self.ports.enrolment.cancel(item.request))
                self._draw()  # the enrol mode's last word, if it ended
            return
        desk = self.ports.desk
        if desk is None:
            item.finish(ok=False, error="this table answers no requests")
            return
        self._enrol_ended(desk.answer(item, self.press))
        self._draw()  # the enrol mode may have begun or ended: its sheet

    def press(self, name: ButtonName) -> TableState:
        """A button of the table's pressed by a client of the control socket: journaled and applied like a touch."""
        self.feed(Button(self.now, name, None))
        return self.table.state

    # --- the loop ----------------------------------------------------------------------------------------------

    def step(self, timeout: float = TICK_SECONDS) -> bool:
        """Handle what arrived within ``timeout`` (or tick), the screen's touches with the rest; False once
        closed."""
        if self._upkeep.closed:
            return False
        if self.ports.screen is not None:
            self.ports.screen.pump(self.inbox.put)  # the touches since the last step, onto the queue
        try:
            item: Input = self.inbox.get(timeout=timeout)
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
        if self._review.collect():
            self._draw()
        self._files()
        if self.ports.enrolment is not None:
            self._enrol_ended(self.ports.enrolment.tick())
        self._announcement_expiry()
        self._upkeep.beat(self.ports.watchdog, self.clock())
        return True

    def run(self, stop: threading.Event) -> None:
        """Run until ``stop`` is set. Tells systemd when ready and keeps its watchdog fed."""
        if self.ports.watchdog is not None:
            self.ports.watchdog.ready()
        while not stop.is_set() and self.step():
            pass

    def _storage(self) -> None:
        """Retry a storage fault about once a second; redraw when the journal's notices change."""
        if self._upkeep.storage(self.table, self.clock()):
            self._refresh()

    def settle_zones(self) -> None:
        """Lift what lay on a zone before a restart but is gone now (:mod:`tablepi.app.resync`)."""
        now = self.now
        for seat, present in self._zones.due(now):
            for lift in lifts_for_snapshot(self.table.state, {seat: present}, now):
                if lift.seat is seat:
                    log.info("zone %s: %s was taken away while the table was off", seat, lift.card or lift.uid)
                    self.handle(lift)

    def _files(self) -> None:
        """The decks and player tags just read, if the files changed (one assignment each: nothing sees half a
        deck)."""
        files = self.ports.files
        if files is not None and files.poll():
            self._use_files(files)

    def _use_files(self, files: Files) -> None:
        self.deck = files.registry
        self.players = files.players

    def gesture(self, gesture: Gesture) -> None:
        """A finished hand-entry panel's gesture: as a table event, journaled and applied like any other."""
        from tablepi.app.console import gesture_event
        from tablepi.display.panels import StartEnrol, StopEnrol

        if isinstance(gesture, StartEnrol | StopEnrol):
            enrolment = self.ports.enrolment
            if enrolment is None:
                log.warning("enrolment from the screen needs the running service: ignored")
            elif isinstance(gesture, StartEnrol):
                enrolment.begin_here(gesture.kind, gesture.name, self.table.state)
            else:
                self._enrol_ended(enrolment.stop_here())
            self._refresh()
            return

        event = gesture_event(gesture, self.now)
        if event is None:
            log.warning("hand entry %r is not a table event yet: ignored", gesture)
            return
        self.handle(event)

    def _enrol_ended(self, ended: EnrolEnded | None) -> None:
        """The enrol mode ended: the files it wrote are in use at once, and what was lifted meanwhile is lifted."""
        if ended is None:
            return
        if ended.wrote and self.ports.files is not None:
            self._use_files(self.ports.files)
        try:
            self.resync(ended.present)
        except ConfigError:
            log.exception("could not lift the cards taken away during the enrol mode")

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

    def _crosstalk(self, item: ZoneCrosstalk) -> None:
        """A zone heard a card that is not its own: the reader kept the card where it lies; tell the owner."""
        seat = self.seat_of_zone.get(item.zone)
        where = f"the card on zone {item.holder}" if item.holder is not None else "a garbled tag"
        log.warning(
            "zone %d (%s) hears %s (%s): the antennas hear each other; space them further apart or lower "
            "the readers' gain (hw/README.md)", item.zone, seat, where, item.uid,
        )

    def _feed_line(self, item: Seating | Notice) -> None:
        """A seating or a notice from the feed: kept, logged, and shown in the warning bar."""
        if isinstance(item, Seating):
            self._feed.seating = item
            log.info("seating: %s", item.text())
            if self.ports.console is not None:
                self.ports.console.offer_roster(item.roster)
            kept = self.table.in_round  # the round (and its length) the journal has in force
            journaled = kept is not None and (kept.round, kept.round_deals) == (item.round, item.deals)
            if item.names and not (self._seated_already(item.names) and journaled):
                # The tournament's seating seats the players, like names typed at the table (a journaled event),
                # and its round is journaled with it: which round each event was journaled under is the journal's.
                self.handle(PlayersSeated(self.now, item.names, SeatingSource.TOURNAMENT, round=item.round,
                                          round_deals=item.deals))
        elif item.code is NoticeCode.ROUND_PLAYED:
            number = item.param("round", 0)
            self._feed.played = number if isinstance(number, int) and number > 0 else None
            if self._feed.played is not None:
                log.info("the match of round %d was played before: this one does not count for it", number)
        else:
            text = self._feed.tell(item, self.clock())
            log.log(logging.WARNING if item.code is NoticeCode.FEED_PROBLEM else logging.INFO, "notice: %s", text)
        self._draw()

    def _announcement_expiry(self) -> None:
        """The announcement's time is up: the bar goes back to what it showed before."""
        if self._feed.expire(self.clock()):
            self._draw()

    def _seated_already(self, names: tuple[tuple[Seat, str], ...]) -> bool:
        """Whether the table's names are these already, as the table keeps them (a long name cut): a seating
        retained by the broker and received again after a reconnect or restart adds nothing."""
        seated = dict(self.table.state.names)
        try:
            return all(seated.get(seat) == fit_name(name)[0] for seat, name in names)
        except ConfigError:
            return False  # not a name the table takes: the journal refuses it, and says so

    # --- the scene ---------------------------------------------------------------------------------------------

    def scene(self) -> Scene | None:
        """What the screen shows now, as one frozen value (None: no screen)."""
        screen = self.ports.screen
        return None if screen is None else self._scene(self.table.state, screen)

    def _scene(self, state: TableState, screen: Screen) -> Scene:
        """The scene of ``state`` in the screen's settings (language, orientation, configured names)."""
        settings = screen.settings
        console = self.ports.console
        return Scene(
            state, settings, self._review.review, self._review.open, tuple(self._upkeep.notices),
            self._feed.announcement, self._feed.scene_seating(), None if console is None else console.phone,
            None if console is None else console.scene(state, settings), self.clock(),
        )

    def _refresh(self) -> None:
        """Something players can see changed: the observers, the log, the screen and the LEDs are told."""
        state = self.table.state
        if state.match.slate and state.phase in (TablePhase.DEAL_OVER, TablePhase.MATCH_OVER):
            self._review.start(self.table, state)
        for observer in self.ports.observers:
            observer.show(state)
        self._upkeep.log_warnings(state)
        self._upkeep.notices = self.table.notices
        self._draw()
        if self.ports.lights is not None:
            warned = {w.seat for w in state.warnings if w.seat is not None}
            offline = any(w.code is WarningCode.READER_OFFLINE for w in state.warnings)
            self.ports.lights.show(state.deal.to_play, warned, alert=offline)

    def _draw(self) -> None:
        """Build the scene and hand it to the screen (which draws only when something players see changed)."""
        scene = self.scene()
        if scene is not None and self.ports.screen is not None:
            self.ports.screen.show(scene)

    def close(self) -> None:
        """Stop: tell systemd, close the screen, LEDs, reviewer and journal. Idempotent."""
        if self._upkeep.closed:
            return
        self._upkeep.closed = True
        if self.ports.watchdog is not None:
            self.ports.watchdog.stopping()
        for part in (self.ports.screen, self.ports.lights, self.ports.reviewer):
            if part is not None:
                part.close()
        self.table.close()

    def __enter__(self) -> TableApp:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
