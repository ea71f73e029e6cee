"""The ports of the app's loop: what it needs of each part around it, as protocols it owns.

:mod:`tablepi.app.build` makes the real parts (the pygame screen, the GPIO lights, the review worker, systemd's
notifier, the enrol mode, the deck and player files, the control socket's desk) and hands them to
:class:`~tablepi.app.core.TableApp` in one :class:`Ports`; tests and the demo hand in doubles or nothing. The loop
never reaches past these methods, and nothing is assigned into the app after it was made.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from tablepi.display.scene import Scene
from tablepi.players import PlayerRegistry
from tablepi.readers.events import ZoneEvent, ZoneStatus
from tablepi.rules.deal import Deal
from tablepi.rules.seats import Seat
from tablepi.service_socket import ControlRequest
from tablepi.table import ButtonName, DeckLookup, TableState

if TYPE_CHECKING:
    from tablepi.analysis.review import DealReview
    from tablepi.app.inputs import Input
    from tablepi.display.keys import Touched
    from tablepi.display.panels import EnrolKind, Gesture
    from tablepi.display.scene import ConsoleScene
    from tablepi.display.view import PhoneCode
    from tablepi.display.viewmodel import ViewSettings


class Screen(Protocol):
    """What the loop needs of a display: its settings (language, orientation, configured names) for the scene,
    draw a scene, and put the controls touched since the last call on the loop's queue (``pump``, on the loop's
    thread: a window's events are read where it was made) as :class:`~tablepi.app.inputs.Touch` inputs."""

    @property
    def settings(self) -> ViewSettings: ...

    def show(self, scene: Scene) -> None: ...

    def pump(self, put: Callable[[Input], None]) -> None: ...

    def close(self) -> None: ...


class Lights(Protocol):
    """What the loop needs of the GPIO controls: light the seat to play, flash the warned ones, sound trouble."""

    def show(self, turn: Seat | None, warning_seats: set[Seat], alert: bool) -> None: ...

    def close(self) -> None: ...


class Reviewer(Protocol):
    """Reviews a finished deal off the table's path (tablepi.analysis.worker.ReviewWorker): returns at once."""

    def submit(self, deal: Deal, number: int, carried: int = 0) -> Future[DealReview]: ...

    def close(self) -> None: ...


class Watchdog(Protocol):
    """systemd's notify protocol (tablepi.sdnotify.Notifier): ready once, then a beat at least every second."""

    def ready(self) -> object: ...

    def watchdog(self) -> object: ...

    def stopping(self) -> object: ...


class Observer(Protocol):
    """Shown every state like the screen (the MQTT feed's retained state): ``show`` must not block."""

    def show(self, state: TableState) -> None: ...


class Files(Protocol):
    """The deck and player files the table uses (tablepi.app.reloads.TableFiles), read again when they change."""

    @property
    def registry(self) -> DeckLookup: ...

    @property
    def players(self) -> PlayerRegistry: ...

    def poll(self, force: bool = False) -> bool: ...


@dataclass(frozen=True, slots=True)
class EnrolEnded:
    """The enrol mode ended: what lay on each zone then (zone -> tag UIDs; cards lifted meanwhile are lifted on the
    table too), and whether it wrote a file (the decks and players are then read again)."""

    present: dict[int, set[str]]
    wrote: bool


class Enrolment(Protocol):
    """The enrol mode (tablepi.app.enrolment.Enroller): while it runs, the readers' card events are its."""

    @property
    def running(self) -> bool: ...

    def feed(self, item: ZoneEvent | ZoneStatus) -> EnrolEnded | None: ...

    def begin_here(self, kind: EnrolKind, name: str, state: TableState) -> None: ...

    def stop_here(self) -> EnrolEnded | None: ...

    def cancel(self, request: ControlRequest) -> EnrolEnded | None: ...

    def tick(self) -> EnrolEnded | None: ...


class Desk(Protocol):
    """Answers the control socket's requests (tablepi.app.service.Desk); ``press`` presses a button of the table's
    (journaled and applied by the loop) and returns the state after it."""

    def answer(self, request: ControlRequest, press: Callable[[ButtonName], TableState]) -> EnrolEnded | None: ...


class Console(Protocol):
    """The screen's hand-entry panels (tablepi.app.console.Console): a touch of the console's own controls changes
    them and may finish gestures, which the loop takes and turns into table events; its part of each scene; the
    tournament's roster for the name keyboard; the QR code of the table's pages, if it serves them."""

    @property
    def phone(self) -> PhoneCode | None: ...

    def touch(self, touched: Touched, state: TableState) -> bool: ...

    def take(self) -> list[Gesture]: ...

    def offer_roster(self, roster: Sequence[str]) -> None: ...

    def scene(self, state: TableState, settings: ViewSettings) -> ConsoleScene: ...


class Names(Protocol):
    """Names of earlier matches' players (tablepi.app.names.RecentNames), kept when players are seated."""

    def add(self, names: Iterable[str]) -> None: ...


@dataclass(frozen=True, slots=True)
class Ports:
    """Every part the loop talks to; None (or empty): this table has none (a bare app in a test, the demo)."""

    screen: Screen | None = None
    lights: Lights | None = None
    watchdog: Watchdog | None = None
    reviewer: Reviewer | None = None
    observers: tuple[Observer, ...] = ()
    console: Console | None = None
    files: Files | None = None
    enrolment: Enrolment | None = None
    desk: Desk | None = None
    names: Names | None = None
