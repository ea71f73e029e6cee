"""The demo: a whole match played by simulated players on simulated reader zones, through the real path.

The players come from :func:`tablepi.table.simulate.simulate_match` (real gestures: taps to name trumps and
announce, lays, sweeps, and now and then a mistake: a phone on a zone, a card out of turn, a revoke). Their hands
act on the *physical* side of a ``sim`` reader — a tag laid on zone 2 — and from there everything is what runs under
a real table: the reader's read path, the deck registry, the adapter, the journal (fsync), the table, the view model
and the pygame renderer.

Time is virtual: the demo's clock moves from one gesture to the next, so a 1.5 s lay is a lay whether the demo runs
at a watchable pace in a window or at full speed headless.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from tablepi.app.core import TableApp, Touch
from tablepi.app.screen import FrameSaver, PygameScreen, WindowClosed
from tablepi.config import DisplayConfig
from tablepi.deck import Deck, DeckRegistry
from tablepi.journal import JournaledTable
from tablepi.readers import Reader, open_reader
from tablepi.record import RecordHeader
from tablepi.rules.cards import DECK, Card
from tablepi.rules.house import HouseRules
from tablepi.rules.seats import Seat, Team
from tablepi.table import Button, CardLifted, CardPlaced, ReaderState, ReaderStatus, TableEvent, TableState, Tick
from tablepi.table.simulate import simulate_match
from tablepi.table.state import TableConfig

ZONES = {0: Seat.N, 1: Seat.E, 2: Seat.S, 3: Seat.W}
NAMES = {Seat.N: "Anna", Seat.E: "Jos", Seat.S: "Marie", Seat.W: "Pit"}

#: The default match: chosen because it shows every feature (announcement, revoke, a stray phone, a claim).
DEFAULT_SEED = 24


def demo_deck() -> Deck:
    """A deck of 24 made-up NTAG213 UIDs (7 bytes, NXP's 04 prefix), one per card, stable across runs."""
    return Deck("demo", {f"04D3{card.index:02X}A1B2C3D4": card for card in DECK})


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
        out = [f"demo: {self.deals} deals, {self.events} table events"]
        state = self.state
        if state is not None:
            for entry in state.slate:
                out.append(f"  deal {entry.number}: {entry.describe()}")
            lines = dict(state.open_lines)
            out.append(f"  slate: N+S {lines[Team.NS]} open, E+W {lines[Team.EW]} open")
            if state.match_winner is not None:
                out.append(f"  match won by {state.match_winner}")
        out.append(f"  warnings: {len(self.warnings)}")
        out.extend(f"    {w}" for w in self.warnings)
        if self.frames:
            out.append(f"  {len(self.frames)} frames written to {self.frames[0].parent}")
        return out


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
    screen_factory: Callable[[DisplayConfig, FrameSaver | None], PygameScreen] | None = None,
) -> DemoSummary:
    """Play the demo match. ``speed`` is how many demo seconds pass per real second in a window (headless: all)."""
    rules = rules or HouseRules()
    config = TableConfig()
    script = simulate_match(seed, rules, Seat.N, config, mistakes=True)
    deck = demo_deck()
    registry = DeckRegistry([deck])
    uid_of = {card: uid for uid, card in deck.cards.items()}
    zone_of = {seat: zone for zone, seat in ZONES.items()}
    display = DisplayConfig(language=language, names=NAMES, fullscreen=fullscreen, size=size)
    frames = FrameSaver(out) if out is not None else None
    make_screen = screen_factory or (lambda d, f: PygameScreen(d, headless=headless, frames=f))
    screen = make_screen(display, frames)
    clock = VirtualClock()
    reader = open_reader("sim", clock=clock)
    with tempfile.TemporaryDirectory(prefix="tablepi-demo-") as scratch:
        path = journal or Path(scratch) / "journal.sqlite3"
        header = RecordHeader(rules, Seat.N, config, tuple(ZONES.items()), tuple(uid_of_items(uid_of)), deck.name)
        table = JournaledTable(path, header)
        app = TableApp(table, registry, ZONES, screen=screen, clock=clock)
        summary = DemoSummary()
        try:
            _drain(reader, app)
            for event in script.events:
                if not _advance(clock, app, reader, event.time, headless, speed):
                    break
                _act(event, reader, app, zone_of, uid_of)
                _drain(reader, app)
            _advance(clock, app, reader, clock.now + 3.0, headless, speed)
        finally:
            state = app.table.state
            summary.deals = sum(len(m.deals) for m in app.table.table.matches)
            summary.events = len(app.table.journal)
            summary.state = state
            summary.warnings = [_warning_line(w) for w in app.table.table.warning_log]
            summary.frames = list(frames.saved) if frames is not None else []
            reader.close()
            app.close()
    return summary


def uid_of_items(uid_of: dict[Card, str]) -> list[tuple[str, Card]]:
    return [(uid, card) for card, uid in uid_of.items()]


def _warning_line(warning: object) -> str:
    w = warning  # TableWarning
    seat = getattr(w, "seat", None)
    code = getattr(getattr(w, "code", None), "value", "?")
    return f"deal {getattr(w, 'deal', 0)} {code} ({seat or '-'}): {getattr(w, 'message', '')}"


def _advance(clock: VirtualClock, app: TableApp, reader: Reader, target: float, headless: bool, speed: float) -> bool:
    """Let demo time pass up to ``target`` in tick-sized steps; False if the window was closed."""
    step = 0.1
    while clock.now < target - 1e-9:
        nxt = min(target, clock.now + step)
        if not headless:
            time.sleep((nxt - clock.now) / speed)
            try:
                for name in app.screen.poll() if app.screen is not None else []:
                    app.handle(Touch(name))
            except WindowClosed:
                return False
        clock.now = nxt
        app.handle(Tick(app.now))
        _drain(reader, app)
    return True


def _act(
    event: TableEvent, reader: Reader, app: TableApp, zone_of: dict[Seat, int], uid_of: dict[Card, str]
) -> None:
    """Do with hands (on the reader) or fingers (on the screen) what the scripted event says happened."""
    sim = reader  # a SimReader: place/lift/unplug/replug
    if isinstance(event, CardPlaced):
        uid = uid_of[event.card] if event.card is not None else event.uid
        sim.place(zone_of[event.seat], uid)  # type: ignore[attr-defined]
    elif isinstance(event, CardLifted):
        sim.lift(zone_of[event.seat])  # type: ignore[attr-defined]
    elif isinstance(event, Button):
        app.handle(Touch(event.name.value, event.seat))
    elif isinstance(event, ReaderStatus):
        if event.state is ReaderState.ONLINE:
            sim.replug(zone_of[event.seat])  # type: ignore[attr-defined]
        else:
            sim.unplug(zone_of[event.seat])  # type: ignore[attr-defined]
    elif isinstance(event, Tick):
        pass  # time passing is done by _advance


def _drain(reader: Reader, app: TableApp) -> None:
    while (item := reader.recv(0)) is not None:
        app.handle(item)
