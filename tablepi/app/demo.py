"""The demo: a whole match played by simulated players on simulated reader zones, through the real path.

The players come from :func:`tablepi.table.simulate.simulate_match` (real gestures: taps to name trumps and
announce, lays, sweeps, and now and then a mistake: a phone on a zone, a card out of turn, a revoke). Their hands
act on the *physical* side of the readers — a tag laid on zone 2 — and from there everything is what runs under a
real table: the reader's read path, the deck registry, the adapter, the journal (fsync), the table, the view model
and the pygame renderer.

Two sets of readers:

- ``via="sim"``: the ``sim`` backend (instant; the default);
- ``via="firmware"``: the real firmware sources running against four emulated MFRC522 chips with NTAG213 tags
  (:mod:`tablepi.emulator`), speaking the line protocol over a pseudo-terminal to the real ``serial`` backend — the
  whole hidden build without the hardware. Slower: every card waits for the firmware's scan, and every lift for its
  quiet time.

Time is virtual: the demo's clock moves from one gesture to the next, so a 1.5 s lay is a lay whether the demo runs
at a watchable pace in a window or at full speed headless.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tablepi.app.core import TableApp, Touch
from tablepi.app.screen import FrameSaver, PygameScreen, WindowClosed
from tablepi.config import DisplayConfig
from tablepi.deck import DeckRegistry, virtual_deck
from tablepi.errors import ConfigError
from tablepi.journal.journal import JournaledTable
from tablepi.journal.record import RecordHeader
from tablepi.readers import Reader, open_reader
from tablepi.rules.cards import Card
from tablepi.rules.house import HouseRules
from tablepi.rules.seats import Seat, Team
from tablepi.table import Button, CardLifted, CardPlaced, TableEvent, TableState, Tick
from tablepi.table.simulate import simulate_match
from tablepi.table.state import TableConfig
from tablepi.table.warnings import TableWarning

ZONES = {0: Seat.N, 1: Seat.E, 2: Seat.S, 3: Seat.W}
NAMES = {Seat.N: "Anna", Seat.E: "Jos", Seat.S: "Marie", Seat.W: "Pit"}

#: The default match: chosen because it shows every feature (announcement, revoke, a stray phone, a claim).
DEFAULT_SEED = 24


#: The demo's deck; kept under its old name (it moved to :func:`tablepi.deck.virtual_deck`).
demo_deck = virtual_deck


class VirtualClock:
    """A clock the demo moves by hand: readers, app and table all read it."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


@dataclass
class DemoSummary:
    deals: int = 0
    events: int = 0
    frames: list[Path] = field(default_factory=list)
    state: TableState | None = None
    warnings: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        """The summary printed at the end of the demo."""
        out = [f"demo: {self.deals} deal{'s' if self.deals != 1 else ''}, {self.events} table events"]
        state = self.state
        if state is not None:
            for entry in state.match.slate:
                out.append(f"  deal {entry.number}: {entry.describe()}")
            lines = dict(state.match.open_lines)
            out.append(f"  slate: N+S {lines[Team.NS]} open, E+W {lines[Team.EW]} open")
            if state.match.winner is not None:
                out.append(f"  match won by {state.match.winner}")
        out.append(f"  warnings: {len(self.warnings)}")
        out.extend(f"    {w}" for w in self.warnings)
        if self.frames:
            out.append(f"  {len(self.frames)} frames written to {self.frames[0].parent}")
        return out


class SimHands:
    """Players' hands on the ``sim`` backend's zones."""

    def __init__(self, clock: VirtualClock) -> None:
        self.reader: Reader = open_reader("sim", clock=clock)

    def place(self, zone: int, uid: str) -> None:
        self.reader.place(zone, uid)  # type: ignore[attr-defined]

    def lift(self, zone: int) -> None:
        self.reader.lift(zone)  # type: ignore[attr-defined]

    def settle(self, app: TableApp) -> None:
        """Hand the app everything the readers have reported."""
        while (item := self.reader.recv(0)) is not None:
            app.handle(item)

    def close(self) -> None:
        self.reader.close()


class FirmwareHands(SimHands):
    """Players' hands on emulated MFRC522 readers run by the real firmware, read through the serial backend."""

    def __init__(self, clock: VirtualClock) -> None:
        from tablepi.emulator.runner import FirmwareRunner

        self.board = FirmwareRunner.on_pty().start()
        assert self.board.path is not None
        # Demo time is virtual and jumps between gestures: the link's silence timeout must not count it, and the
        # device's own (real-time) clock cannot date events on it.
        self.reader = open_reader(
            "serial", port=self.board.path, clock=clock, link_timeout=1e9, device_times=False
        )
        self._expect = 0

    def place(self, zone: int, uid: str) -> None:
        self.board.place(zone, uid)
        self._expect += 1

    def lift(self, zone: int) -> None:
        self.board.lift(zone)
        self._expect += 1

    def settle(self, app: TableApp) -> None:
        """Wait (real time) until the firmware has reported what the hands did, then hand it all to the app."""
        from tablepi.readers import ZoneEvent

        deadline = time.monotonic() + 5.0
        while self._expect > 0 and time.monotonic() < deadline:
            item = self.reader.recv(0.05)
            if item is not None:
                app.handle(item)
                if isinstance(item, ZoneEvent):
                    self._expect -= 1
        self._expect = 0
        super().settle(app)

    def start(self, app: TableApp) -> None:
        """Wait until the firmware said HELLO and all four zones are online."""
        from tablepi.readers import ZoneStatus

        online: set[int] = set()
        deadline = time.monotonic() + 10.0
        while len(online) < 4 and time.monotonic() < deadline:
            item = self.reader.recv(0.05)
            if item is not None:
                app.handle(item)
                if isinstance(item, ZoneStatus) and item.state.value == "online":
                    online.add(item.zone)

    def close(self) -> None:
        self.reader.close()
        self.board.close()


def run_demo(
    *,
    headless: bool,
    out: Path | None = None,
    seed: int = DEFAULT_SEED,
    speed: float = 1.0,
    journal: Path | None = None,
    language: str = "en",
    size: tuple[int, int] = (800, 480),
    fullscreen: bool = False,
    rules: HouseRules | None = None,
    via: str = "sim",
    deals: int | None = None,
    screen_factory: Callable[[DisplayConfig, FrameSaver | None], PygameScreen] | None = None,
) -> DemoSummary:
    """Play the demo match. ``speed`` is how many demo seconds pass per real second in a window (headless: all).

    ``via`` picks the readers (``"sim"`` or ``"firmware"``); ``deals`` stops after that many deals.
    """
    if via not in ("sim", "firmware"):
        raise ConfigError(f"demo readers {via!r}: expected 'sim' or 'firmware'")
    rules = rules or HouseRules()
    config = TableConfig()
    script = simulate_match(seed, rules, Seat.N, config, mistakes=True)
    events = script.events if deals is None else _first_deals(script.events, deals)
    deck = demo_deck()
    registry = DeckRegistry([deck])
    uid_of = {card: uid for uid, card in deck.cards.items()}
    zone_of = {seat: zone for zone, seat in ZONES.items()}
    display = DisplayConfig(language=language, names=NAMES, fullscreen=fullscreen, size=size)
    frames = FrameSaver(out) if out is not None else None
    make_screen = screen_factory or (lambda d, f: PygameScreen(d, headless=headless, frames=f))
    screen = make_screen(display, frames)
    clock = VirtualClock()
    hands = FirmwareHands(clock) if via == "firmware" else SimHands(clock)
    with tempfile.TemporaryDirectory(prefix="tablepi-demo-") as scratch:
        path = journal or Path(scratch) / "journal.sqlite3"
        header = RecordHeader(rules, Seat.N, config, tuple(ZONES.items()), tuple(deck.cards.items()), deck.name)
        table = JournaledTable(path, header)
        app = TableApp(table, registry, ZONES, screen=screen, clock=clock)
        summary = DemoSummary()
        try:
            if isinstance(hands, FirmwareHands):
                hands.start(app)
            hands.settle(app)
            watch = Watch(screen.events)
            for event in events:
                if not _advance(clock, app, hands, event.time, headless, speed, watch):
                    break
                _act(event, hands, app, zone_of, uid_of)
                hands.settle(app)
            else:
                _advance(clock, app, hands, clock.now + 3.0, headless, speed, watch)
        finally:
            state = app.table.state
            summary.deals = sum(len(m.deals) for m in app.table.table.matches)
            summary.events = len(app.table.journal)
            summary.state = state
            summary.warnings = [_warning_line(w) for w in app.table.table.warning_log]
            summary.frames = list(frames.saved) if frames is not None else []
            hands.close()
            app.close()
    return summary


def _warning_line(warning: TableWarning) -> str:
    return f"deal {warning.deal} {warning.code.value} ({warning.seat or '-'}): {warning.message}"


def _first_deals(events: list[TableEvent], deals: int) -> list[TableEvent]:
    """The events up to the end of deal ``deals``: the last sweep before forehand names the next trumps."""
    from tablepi.table import Table

    table = Table()
    for index, event in enumerate(events):
        state = table.apply(event)
        if state.deal.number > deals:
            return events[:index]
    return events


class Watch:
    """The windowed demo is watched, not played: a touch (or click) pauses and resumes it, Esc or q ends it, and
    nothing on the screen reaches the table (an Undo touched on a scripted match once made it loop on "♥9 was
    already played")."""

    def __init__(self, events: Callable[[], list[Any]] = list) -> None:
        self.events = events  # the window's events since the last call (PygameScreen.events)
        self.paused = False
        self.ended = False

    def feed(self, events: list[Any]) -> None:
        import pygame

        for event in events:
            if event.type == pygame.KEYDOWN and event.key in (pygame.K_ESCAPE, pygame.K_q):
                self.ended = True
            elif event.type == pygame.FINGERDOWN or (
                    event.type == pygame.MOUSEBUTTONDOWN and not getattr(event, "touch", False)):
                self.paused = not self.paused


def _watch(watch: Watch) -> bool:
    """Look at the window's events (and wait while paused); False once the demo should end."""
    events = watch.events
    try:
        watch.feed(events())
        while watch.paused and not watch.ended:
            time.sleep(0.05)
            watch.feed(events())
    except WindowClosed:
        return False
    return not watch.ended


def _advance(clock: VirtualClock, app: TableApp, hands: SimHands, target: float, headless: bool, speed: float,
             watch: Watch | None = None) -> bool:
    """Let demo time pass up to ``target`` in tick-sized steps; False if the window was closed or Esc / q."""
    step = 0.1
    watch = watch or Watch()
    while clock.now < target - 1e-9:
        nxt = min(target, clock.now + step)
        if not headless:
            time.sleep((nxt - clock.now) / speed)
            if not _watch(watch):
                return False
        clock.now = nxt
        app.handle(Tick(app.now))
        hands.settle(app)
    return True


def _act(
    event: TableEvent, hands: SimHands, app: TableApp, zone_of: dict[Seat, int], uid_of: dict[Card, str]
) -> None:
    """Do with hands (on the readers) or fingers (on the screen) what the scripted event says happened."""
    if isinstance(event, CardPlaced):
        hands.place(zone_of[event.seat], uid_of[event.card] if event.card is not None else event.uid)
    elif isinstance(event, CardLifted):
        hands.lift(zone_of[event.seat])
    elif isinstance(event, Button):
        app.handle(Touch(event.name, event.seat))
    # Ticks are time passing, which _advance does; the scripted players never unplug a reader.
