"""Building the real table from a configuration: the only place that makes hardware objects (STYLE.md 9).

:func:`open_table` returns a :class:`RunningTable`: the app plus the reader pump and controls it owns, closed in
the right order (inputs first, so nothing arrives at a closed journal).
"""

from __future__ import annotations

import contextlib
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tablepi.app.core import TableApp
from tablepi.app.service import Desk, TableFiles
from tablepi.config import Config
from tablepi.errors import ConfigError, TablepiError
from tablepi.journal.journal import JournaledTable
from tablepi.journal.record import RecordHeader
from tablepi.readers.link import LinkedReader, LinkRefused
from tablepi.rules.seats import Seat
from tablepi.table.state import TableConfig

log = logging.getLogger(__name__)


def journal_header(config: Config) -> RecordHeader:
    """The header a new journal starts with: the house rules and table settings of this configuration."""
    table = TableConfig(tap_window=config.tap_seconds, hand_scan=config.hand_scan)
    return RecordHeader(config.house_rules, Seat.N, table, tuple(sorted(config.readers.zones.items())))


@dataclass
class RunningTable:
    app: TableApp
    parts: list[Any] = field(default_factory=list)  # pump, controls: closed before the app

    def close(self) -> None:
        for part in self.parts:
            with contextlib.suppress(Exception):
                part.close()
        self.parts.clear()
        self.app.close()


def open_table(
    config: Config, *, headless: bool = False, journal: Path | None = None, control: bool = True
) -> RunningTable:
    """Make the readers, deck, journal, screen, controls, control socket and watchdog of ``config`` and wire them
    together. The control socket comes first: a second table on the same configuration stops there, before it
    opens (and fights over) the reader."""
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
    parts: list[Any] = []
    try:
        screen, screen_info = _open_screen(config, headless)
        app = TableApp(table, files.registry, config.readers.zones, screen=screen, watchdog=Notifier(),
                       reviewer=_reviewer())
    except BaseException:
        table.close()
        raise
    app.use_files(files)
    info = {"config": str(config.source) if config.source else None, "reader": config.readers.backend,
            "screen": screen_info}
    add_console(app, config.display.language, path)
    app.desk = Desk(app, files, info)  # after the console: its menu then offers the enrol mode
    running = RunningTable(app, parts)
    try:
        server = _open_control(config, app) if control else None
        if server is not None:
            parts.append(server)
        try:
            reader = open_configured_reader(config.readers.backend, config.readers.options)
        except ConfigError as error:
            raise ConfigError.setting("readers", str(error)) from None
        reader.known = app.knows_uid  # an unknown UID where a known card lies is a garbled read
        if isinstance(reader, LinkedReader):
            app.desk.reader_refused = lambda: _refusal(reader.refused)
        app.report_delay = reader.report_delay
        parts.append(ReaderPump(reader, app.put, close_reader=True))
        if config.controls_enabled:
            lights = _open_controls(config, app)
            if lights is not None:
                app.lights = lights
                parts.append(lights)
        if config.feed.enabled:
            parts.append(open_feed(config, app))
        parts.extend(open_book(config, app, path))
    except BaseException:
        running.close()
        raise
    return running


def _refusal(refused: LinkRefused | None) -> dict[str, str] | None:
    return None if refused is None else {"why": refused.why, "fix": refused.fix}


def open_feed(config: Config, app: TableApp) -> Any:
    """The MQTT feed of ``app``'s journal, started; seatings and notices go to the app's inbox."""
    try:
        from tablepi.feed.publisher import FeedPublisher
    except ImportError as error:
        raise ConfigError.setting("feed", f"enabled, but the MQTT client is missing ({error}): "
                          "pip install 'tablepi[feed]'") from None
    feed = FeedPublisher(config.feed, app.table, on_message=app.put)
    app.observers.append(feed)
    feed.show(app.table.state)
    if feed.seating is not None:
        app.put(feed.seating)
    return feed.start()


def open_book(config: Config, app: TableApp, journal: Path) -> list[Any]:
    """The players' book, kept by the journal's listener (docs/players.md), and with ``[web] enabled`` the
    table's own pages. Returned in the order to close them (the pages first)."""
    from tablepi.book.fill import BookKeeper, default_book_path
    from tablepi.book.store import Book

    book = Book(config.book.path or default_book_path(journal), day_starts=config.book.day_starts)
    reviewer = None
    if app.reviewer is not None:
        worker = app.reviewer

        def reviewer(deal: Any, number: int, carried: int) -> Any:  # in the review worker process, waited for
            return worker.submit(deal, number, carried).result()

    keeper = BookKeeper(book, app.table, config.feed.table or "1", review=config.book.review,
                        reviewer=reviewer).start()
    parts: list[Any] = []
    if config.web.enabled:
        from tablepi.book.config import page_address

        try:
            from tablepi.book.pages import open_pages
        except ImportError as error:  # the web stack is not installed here: the table plays on without pages
            log.error("web: enabled, but the web server is missing (%s): pip install 'tablepi[tournament]'", error)
            parts.extend([keeper, book])
            return parts
        try:
            parts.append(open_pages(book, config.book, keeper.live_now, keeper.changes, config.display.language,
                                    config.web.host, config.web.port))
        except OSError as error:
            log.error("web: cannot serve the pages on %s:%d (%s); the table plays on without them",
                      config.web.host, config.web.port, error)
        else:
            from tablepi.book.qr import phone_code

            address = page_address(config.web)
            code = phone_code(address)
            if app.screen is not None and hasattr(app.screen, "phone"):
                app.screen.phone = code  # the slate shows it between deals
            if app.console is not None:
                app.console.phone = code  # menu → On your phone
                app.console.opt_in = keeper.opt_in  # the name keyboard's "My name on the phones"
            log.info("the players' pages are on %s", address)
    parts.extend([keeper, book])
    return parts


def add_console(app: TableApp, language: str, journal: Path) -> None:
    """The screen's hand-entry panels in ``language``; earlier players' names kept beside the journal
    (names.txt)."""
    from tablepi.app.console import Console
    from tablepi.app.names import RecentNames

    recent = RecentNames(journal.parent / "names.txt")
    app.recent_names = recent
    console = Console(app.gesture, language, earlier=lambda: recent.names,
                      known=lambda: (*app.players.names, *(app.seating.roster if app.seating else ())))
    from tablepi.deck import DeckRegistry

    console.no_deck = lambda: isinstance(app.deck, DeckRegistry) and len(app.deck) == 0
    app.console = console
    if app.screen is not None and hasattr(app.screen, "console"):
        app.screen.console = console


def _open_control(config: Config, app: TableApp) -> Any:
    """The control socket. Another table already on it stops this one (ConfigError); a socket that cannot be made
    here is logged, and the table runs without it (``tablepi enroll`` then cannot reach it and says so)."""
    from tablepi.service_socket import ControlServer, ControlUnavailable

    try:
        server = ControlServer(config.control, app.put)
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


def _open_controls(config: Config, app: TableApp) -> Any:
    """The GPIO buttons, LEDs and buzzer; None (logged) where this computer has no GPIO."""
    from tablepi.controls import Controls
    from tablepi.controls.pins import ControlPins

    pins = ControlPins.from_mapping(config.controls)
    try:
        return Controls(pins, app.put)
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
