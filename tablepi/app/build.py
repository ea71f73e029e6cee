"""Building the real table from a configuration: the only place that makes hardware objects (STYLE.md 9).

:func:`open_table` returns a :class:`RunningTable`: the app plus the reader pump and controls it owns, closed in
the right order (inputs first, so nothing arrives at a closed journal).
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tablepi.app.console import Console
from tablepi.app.core import TableApp
from tablepi.app.enrolment import Enroller
from tablepi.app.inputs import Inbox
from tablepi.app.names import RecentNames
from tablepi.app.ports import Lights, Observer, Reviewer, Screen, Watchdog
from tablepi.app.reloads import TableFiles
from tablepi.app.service import Desk
from tablepi.config import Config
from tablepi.display.view import PhoneCode
from tablepi.errors import ConfigError, TablepiError
from tablepi.journal.journal import JournaledTable
from tablepi.journal.record import RecordHeader
from tablepi.readers.link import LinkedReader, LinkRefused
from tablepi.rules.seats import Seat
from tablepi.table.state import TableConfig

if TYPE_CHECKING:
    from tablepi.book.process import PagesProcess

log = logging.getLogger(__name__)


def journal_header(config: Config) -> RecordHeader:
    """The header a new journal starts with: the house rules and table settings of this configuration."""
    table = TableConfig(tap_window=config.tap_seconds, hand_scan=config.hand_scan)
    return RecordHeader(config.house_rules, Seat.N, table, tuple(sorted(config.readers.zones.items())))


@dataclass
class RunningTable:
    app: TableApp
    parts: list[Any] = field(default_factory=list)  # pump, controls, feed, book: closed before the app

    def close(self) -> None:
        for part in self.parts:
            with contextlib.suppress(Exception):
                part.close()
        self.parts.clear()
        self.app.close()


def open_table(
    config: Config, *, headless: bool = False, journal: Path | None = None, control: bool = True
) -> RunningTable:
    """Make the readers, deck, journal, screen, controls, control socket and watchdog of ``config``, each wired to
    the loop's one queue, and the app last with every part it talks to handed in. The control socket comes first:
    a second table on the same configuration stops there, before it opens (and fights over) the reader."""
    from tablepi.app.simdrive import open_configured_reader
    from tablepi.readers import ReaderPump
    from tablepi.sdnotify import Notifier

    files = TableFiles(config.decks, config.players)
    for problem in files.problems:
        log.warning("%s", problem)
    path = journal or config.journal
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise ConfigError.setting("table.journal", f"cannot create {path.parent}: {error}") from None
    # One match per journal file; finished matches go to archive/ beside it (start-up replays one match).
    table = JournaledTable(path, journal_header(config), archive=path.parent / "archive", keep=config.keep_matches)
    if table.journal.recovery.damaged:
        log.warning("journal %s recovered after damage: %s (damaged files in %s)", path,
                    table.journal.recovery.summary(), path.parent / "quarantine")
    if table.journal.fault is not None:
        log.error("journal %s: storage fault at start (%s): the table runs, %d events wait to be saved", path,
                  table.journal.fault, table.journal.unsaved)
    inbox = Inbox()
    parts: list[Any] = []  # closed in this order if the table does not come up, the app's own parts last
    own: list[Any] = [table]
    try:
        screen, screen_info = _open_screen(config, headless)
        own.insert(0, screen)
        reviewer = _reviewer()
        own.insert(0, reviewer)
        server = _open_control(config, inbox) if control else None
        if server is not None:
            parts.append(server)
        try:
            reader = open_configured_reader(config.readers.backend, config.readers.options)
        except ConfigError as error:
            raise ConfigError.setting("readers", str(error)) from None
        reader.known = files.knows  # an unknown UID where a known card lies is a garbled read
        parts.append(ReaderPump(reader, inbox.put, close_reader=True))
        lights = _open_controls(config, inbox) if config.controls.enabled else None
        if lights is not None:
            parts.append(lights)
        feed = open_feed(config, table, inbox) if config.feed.enabled else None
        if feed is not None:
            parts.append(feed)
        book, phone, opt_in = open_book(config, table, reviewer, path)
        parts.extend(book)
        info = {"config": str(config.source) if config.source else None, "reader": config.readers.backend,
                "screen": screen_info}
        refused = (lambda: _refusal(reader.refused)) if isinstance(reader, LinkedReader) else (lambda: None)
        app = service_app(table, files, config.readers.zones, path, config.display.language, screen=screen,
                          lights=lights, watchdog=Notifier(), reviewer=reviewer,
                          observers=() if feed is None else (feed,), inbox=inbox, report_delay=reader.report_delay,
                          info=info, reader_refused=refused, phone=phone, opt_in=opt_in)
    except BaseException:
        for part in [*parts, *own]:
            with contextlib.suppress(Exception):
                part.close()
        raise
    return RunningTable(app, parts)


def _refusal(refused: LinkRefused | None) -> dict[str, str] | None:
    return None if refused is None else {"why": refused.why, "fix": refused.fix}


def open_feed(config: Config, table: JournaledTable, inbox: Inbox) -> Any:
    """The MQTT feed of ``table``'s journal, started; seatings and notices go to the loop's queue."""
    try:
        from tablepi.feed.publisher import FeedPublisher
    except ImportError as error:
        raise ConfigError.setting("feed", f"enabled, but the MQTT client is missing ({error}): "
                          "pip install 'tablepi[feed]'") from None
    feed = FeedPublisher(config.feed, table, on_message=inbox.put)
    feed.show(table.state)
    if feed.seating is not None:
        inbox.put(feed.seating)
    return feed.start()


def open_book(
    config: Config, table: JournaledTable, worker: Reviewer | None, journal: Path
) -> tuple[list[Any], PhoneCode | None, Callable[[str], None] | None]:
    """The players' book, kept by the journal's listener (docs/players.md), and with ``[web] enabled`` the
    table's own pages. Returned: the parts in the order to close them (the pages first), the QR code of the pages
    (None: not served) and the players' opt-in to be named on them."""
    from tablepi.book.fill import BookKeeper, default_book_path
    from tablepi.book.store import Book

    book = Book(config.book.path or default_book_path(journal), day_starts=config.book.day_starts)
    reviewer = None
    if worker is not None:
        def reviewer(deal: Any, number: int, carried: int) -> Any:  # in the review worker process, waited for
            return worker.submit(deal, number, carried).result()

    pages = open_pages(config, book.path, table.archive) if config.web.enabled else None
    try:
        keeper = BookKeeper(book, table, config.feed.table or "1", review=config.book.review, reviewer=reviewer,
                            show=(lambda live: None) if pages is None else pages.show).start()
    except BaseException:
        if pages is not None:
            pages.close()
        book.close()
        raise
    parts: list[Any] = []
    code = None
    if pages is not None:
        from tablepi.book.config import page_address
        from tablepi.book.qr import phone_code

        parts.append(pages)
        address = page_address(config.web)
        code = phone_code(address)  # the slate shows it between deals, the menu's "On your phone"
        log.info("the players' pages are on %s", address)
    parts.extend([keeper, book])
    return parts, code, keeper.opt_in if code is not None else None


def open_pages(config: Config, book: Path, archive: Path | None) -> PagesProcess | None:
    """The table's own pages, served by a process of their own (tablepi.book.process); None if they cannot be
    served (the table plays on without them)."""
    try:
        from tablepi.book.process import PagesProcess, Site
    except ImportError as error:  # the web stack is not installed here
        log.error("web: enabled, but the web server is missing (%s): pip install 'tablepi[tournament]'", error)
        return None
    try:
        return PagesProcess(Site(book, config.book, archive, config.display.language), config.web.host,
                            config.web.port)
    except OSError as error:
        log.error("web: cannot serve the pages on %s:%d (%s); the table plays on without them",
                  config.web.host, config.web.port, error)
        return None


def service_app(
    table: JournaledTable,
    files: TableFiles,
    zones: Mapping[int, Seat],
    journal: Path,
    language: str,
    *,
    screen: Screen | None = None,
    lights: Lights | None = None,
    watchdog: Watchdog | None = None,
    reviewer: Reviewer | None = None,
    observers: tuple[Observer, ...] = (),
    inbox: Inbox | None = None,
    report_delay: float = 0.0,
    clock: Callable[[], float] = time.monotonic,
    info: dict[str, Any] | None = None,
    reader_refused: Callable[[], dict[str, str] | None] = lambda: None,
    phone: PhoneCode | None = None,
    opt_in: Callable[[str], None] | None = None,
) -> TableApp:
    """The app of the running service: its hand-entry console, the enrol mode on its reader and screen, the desk
    that answers its control socket, the deck and player files it reloads; every part handed in."""
    console, names = make_console(language, journal, files, can_enrol=True, phone=phone, opt_in=opt_in)
    enroller = Enroller(files, zones, console.show_enrolment, clock=clock)
    desk = Desk(table, files, enroller, info, reader_refused=reader_refused)
    return TableApp(table, files.registry, zones, screen=screen, lights=lights, watchdog=watchdog, clock=clock,
                    reviewer=reviewer, console=console, files=files, enrolment=enroller, desk=desk, names=names,
                    observers=observers, inbox=inbox, report_delay=report_delay)


def make_console(
    language: str,
    journal: Path,
    files: TableFiles | None = None,
    *,
    can_enrol: bool = False,
    phone: PhoneCode | None = None,
    opt_in: Callable[[str], None] | None = None,
) -> tuple[Console, RecentNames]:
    """The screen's hand-entry panels in ``language``, and the earlier players' names kept beside the journal
    (names.txt) that its keyboard offers first (then the player tags' names and the tournament's roster)."""
    recent = RecentNames(journal.parent / "names.txt")

    def no_deck() -> bool:
        return files is not None and len(files.registry) == 0

    console = Console(None, language, earlier=lambda: recent.names,
                      known=lambda: files.players.names if files is not None else (), can_enrol=can_enrol,
                      phone=phone, opt_in=opt_in, no_deck=no_deck)
    return console, recent


def _open_control(config: Config, inbox: Inbox) -> Any:
    """The control socket. Another table already on it stops this one (ConfigError); a socket that cannot be made
    here is logged, and the table runs without it (``tablepi enroll`` then cannot reach it and says so)."""
    from tablepi.service_socket import ControlServer, ControlUnavailable

    try:
        server = ControlServer(config.control, inbox.put)
    except ControlUnavailable as error:
        log.warning("no control socket: %s; `tablepi enroll` and `doctor` cannot reach this table", error)
        return None
    log.info("control socket %s: `tablepi enroll` and `tablepi doctor` talk to this table", config.control)
    return server


def _open_screen(config: Config, headless: bool) -> tuple[Any, dict[str, Any]]:
    """The screen, and what the control socket's status says about it (``tablepi doctor`` asks the running table
    instead of opening the screen it holds); without one (unplugged, no driver) the table still referees,
    journals and lights the LEDs."""
    import os

    from tablepi.app.screen import PygameScreen

    try:
        screen = PygameScreen(config.display, headless=headless)
    except Exception as error:  # pygame.error: no video device; the table must not stop for it
        if headless:
            raise
        log.error("no screen (%s): running without one; `tablepi doctor` says how to fix it", error)
        errors = getattr(error, "errors", None)  # video.NoScreen: each driver's refusal
        return PygameScreen(config.display, headless=True), {
            "driver": None, "error": str(error), "errors": dict(errors) if isinstance(errors, dict) else {}}
    return screen, {"driver": None if headless else screen.driver, "size": list(screen.size),
                    "renderer": os.environ.get("SDL_RENDER_DRIVER")}


def _open_controls(config: Config, inbox: Inbox) -> Any:
    """The GPIO buttons, LEDs and buzzer; None (logged) where this computer has no GPIO."""
    from tablepi.controls import Controls
    from tablepi.controls.pins import ControlPins

    pins = ControlPins.from_mapping(config.controls.pins)
    try:
        return Controls(pins, inbox.put)
    except TablepiError:
        raise
    except Exception as error:  # gpiozero: no pin factory on this machine (not a Pi), pins busy
        log.warning("controls disabled: cannot use the GPIO pins here: %s", error)
        return None


def _reviewer() -> Any:
    """The best-play reviews of finished deals, in a worker process started now (not at the end of the first deal,
    where starting it would cost the table a moment)."""
    from tablepi.analysis.worker import ReviewWorker

    worker = ReviewWorker()
    worker.start()
    return worker
