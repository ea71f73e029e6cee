"""The whole stack: a recorded match through the serial backend on a pseudo-terminal, the table, the journal and
the headless screen; the final slate must be the one the rules core computed for the same match."""

from __future__ import annotations

import contextlib
import os
import queue
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tablepi.app.core import TableApp, Touch
from tablepi.app.demo import ZONES, VirtualClock, demo_deck
from tablepi.app.screen import FrameSaver, PygameScreen
from tablepi.config import DisplayConfig
from tablepi.deck import DeckRegistry
from tablepi.journal.journal import JournaledTable, read_journal
from tablepi.journal.record import RecordHeader
from tablepi.readers import ReaderPump, ZoneEvent, open_reader
from tablepi.readers.protocol import HelloQuery
from tablepi.rules import Seat, Team
from tablepi.table import Button, CardLifted, CardPlaced, TableEvent, Tick
from tablepi.table.events import ReaderStatus
from tablepi.table.simulate import simulate_match
from tablepi.table.state import TableConfig, TablePhase
from tests.readers.device import DeviceEmulator
from tests.waits import UNREADABLE, journal_count, journal_state, wait_until

pytestmark = pytest.mark.slow

SEAT_ZONE = {seat: zone for zone, seat in ZONES.items()}


def hellos(device: DeviceEmulator) -> int:
    """How many times a host has said HELLO? to ``device`` (once per start of the serial backend)."""
    return sum(isinstance(m, HelloQuery) for m in device.received)


class Rig:
    """A pty with the device emulator on one side and the real serial backend, pump and app on the other."""

    def __init__(self, tmp: Path, clock: VirtualClock) -> None:
        self.master, self.slave = os.openpty()
        self.device = DeviceEmulator(self.master, heartbeat=None)
        self.clock = clock
        self.deck = demo_deck()
        self.uid_of = {card: uid for uid, card in self.deck.cards.items()}
        # The virtual clock jumps between gestures: a link timeout in virtual seconds would misfire.
        self.reader = open_reader("serial", port=os.ttyname(self.slave), clock=clock, link_timeout=1e9)
        header = RecordHeader(table=TableConfig(), zones=tuple(ZONES.items()))
        self.table = JournaledTable(tmp / "journal.sqlite3", header)
        self.frames = FrameSaver(tmp / "frames")
        screen = PygameScreen(DisplayConfig(language="en"), headless=True, frames=self.frames)
        self.app = TableApp(self.table, DeckRegistry([self.deck]), ZONES, screen=screen, clock=clock)
        self.pump = ReaderPump(self.reader, self.app.put)
        wait_until(lambda: hellos(self.device), "the serial backend to say HELLO?", every=0.005)

    def wait_card_event(self, timeout: float = 30.0) -> None:
        """Feed the app until the reader's next card event has been journaled and applied."""
        while True:
            try:
                item = self.app.inbox.get(timeout=timeout)
            except queue.Empty:
                raise AssertionError("the card never came through the serial link") from None
            self.app.handle(item)
            if isinstance(item, ZoneEvent):
                return

    def advance(self, target: float) -> None:
        while self.clock.now < target - 1e-9:
            self.clock.now = min(target, self.clock.now + 0.1)
            self.app.handle(Tick(self.app.now))

    def act(self, event: TableEvent) -> None:
        self.advance(event.time)
        if isinstance(event, CardPlaced):
            assert event.card is not None
            self.device.place(SEAT_ZONE[event.seat], self.uid_of[event.card])
            self.wait_card_event()
        elif isinstance(event, CardLifted):
            self.device.lift(SEAT_ZONE[event.seat])
            self.wait_card_event()
        elif isinstance(event, Button):
            self.app.handle(Touch(event.name, event.seat))

    def close(self) -> None:
        self.pump.close()
        self.reader.close()
        self.device.close()
        self.app.close()
        for fd in (self.master, self.slave):
            with contextlib.suppress(OSError):
                os.close(fd)


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[Rig]:
    rig = Rig(tmp_path, VirtualClock())
    try:
        yield rig
    finally:
        rig.close()


def test_recorded_match_through_the_serial_link_ends_with_the_rules_slate(rig: Rig) -> None:
    script = simulate_match(3, mistakes=False)
    assert script.match is not None
    for event in script.events:
        rig.act(event)
    rig.advance(rig.clock.now + 2.0)
    state = rig.app.table.state
    expected = script.match.slate
    assert state.phase is TablePhase.MATCH_OVER
    assert state.match.winner is expected.winner
    assert dict(state.match.open_lines) == {team: expected.open_lines(team) for team in Team}
    assert [e.describe() for e in state.match.slate] == [e.describe() for e in expected.history]
    assert state.warnings == ()
    # every card event went through the journal, and the screen drew the key moments
    journaled = rig.app.table.journal.events()
    placed = [e for e in journaled if isinstance(e, CardPlaced)]
    assert len(placed) == sum(isinstance(e, CardPlaced) for e in script.events)
    assert all(e.uid for e in placed), "card events came from tags, not from the script"
    assert any("match_over" in p.name for p in rig.frames.saved)
    assert rig.reader.health().counters.get("dropped", 0) == 0


def test_restart_from_the_journal_resumes_mid_trick(tmp_path: Path) -> None:
    """A power cut mid-trick: a new app on the same journal shows exactly the same state."""
    script = simulate_match(5, mistakes=False)
    clock = VirtualClock()
    rig = Rig(tmp_path, clock)
    try:
        cut = next(i for i, e in enumerate(script.events) if isinstance(e, CardPlaced) and i > 40)
        for event in script.events[: cut + 1]:
            rig.act(event)
        before = rig.app.table.state
        assert before.phase is TablePhase.PLAY
    finally:
        rig.close()
    header = RecordHeader(table=TableConfig(), zones=tuple(ZONES.items()))
    with JournaledTable(tmp_path / "journal.sqlite3", header) as again:
        after = again.state
    assert after.deal.tricks == before.deal.tricks and after.zones == before.zones
    assert after.deal.to_play == before.deal.to_play
    assert after.match.slate == before.match.slate and after.deal.trump == before.deal.trump
    assert Seat.N in {zone.seat for zone in after.zones}


def test_cards_still_lying_after_a_restart_stay_where_they_are(tmp_path: Path) -> None:
    """The device's STATE after a restart brings its places before its ONLINE statuses: the cards it reports are the
    ones lying there, so settling the zones lifts none of them (it once lifted them all: "lifted early")."""
    script = simulate_match(5, mistakes=False)
    clock = VirtualClock()
    rig = Rig(tmp_path, clock)
    header = RecordHeader(table=TableConfig(), zones=tuple(ZONES.items()))
    try:
        cut = next(i for i, e in enumerate(script.events) if isinstance(e, CardPlaced) and i > 40)
        for event in script.events[: cut + 1]:
            rig.act(event)
        rig.advance(clock.now + 2.0)
        before = rig.app.table.state
        lying = {zone.seat: zone.cards for zone in before.zones}
        assert any(lying.values()) and before.warnings == ()
        rig.pump.close()  # the table stops; the device and the cards on it stay
        rig.reader.close()
        rig.app.close()
        table = JournaledTable(tmp_path / "journal.sqlite3", header)
        app = TableApp(table, DeckRegistry([rig.deck]), ZONES, clock=clock)
        reader = open_reader("serial", port=os.ttyname(rig.slave), clock=clock, link_timeout=1e9)
        pump = ReaderPump(reader, app.put)
        try:
            known = len(table.journal.events())

            def snapshot_taken() -> bool:  # the device's STATE, then the four zones' statuses, journaled
                app.step(timeout=0.05)
                return sum(isinstance(e, ReaderStatus) for e in table.journal.events()[known:]) >= 4

            wait_until(snapshot_taken, "the reader's snapshot after the restart", every=0)
            for _ in range(40):  # then 4 s of table time: the zones settle
                clock.now += 0.1
                app.step(timeout=0.0)
            after = app.table.state
            assert after.warnings == (), [w.code.value for w in after.warnings]
            assert {zone.seat: zone.cards for zone in after.zones} == lying
        finally:
            pump.close()
            reader.close()
            app.close()
    finally:
        rig.device.close()
        for fd in (rig.master, rig.slave):
            with contextlib.suppress(OSError):
                os.close(fd)


def test_killed_app_restarts_and_carries_on_without_losing_or_doubling_a_card(tmp_path: Path) -> None:
    """SIGKILL the real `tablepi run` mid-trick; a new process on the same journal and the same reader carries on.

    On restart the reader reports the cards still lying on the zones again (its snapshot): the table must take
    them for what it already knows, not for new cards. Each step waits for what the table journaled (replayed as
    the table does), never for a guessed time: the gestures fall where they should however loaded the machine.
    """
    import signal
    import subprocess
    import sys

    from tablepi.deck import write_deck_file
    from tablepi.rules import Card
    from tablepi.table.state import TableState, ZoneCardStatus

    master, slave = os.openpty()
    device = DeviceEmulator(master, heartbeat=0.5)
    deck = demo_deck()
    uid_of = {card: uid for uid, card in deck.cards.items()}
    write_deck_file(tmp_path / "decks.toml", [deck])
    journal = tmp_path / "journal.sqlite3"
    (tmp_path / "t.toml").write_text(
        f"""
[table]
journal = "{journal}"
decks = ["{tmp_path / 'decks.toml'}"]
tap_seconds = 0.5
[readers]
backend = "serial"
[readers.options]
port = "{os.ttyname(slave)}"
[controls]
enabled = false
""",
        encoding="utf-8",
    )

    def start() -> subprocess.Popen[bytes]:
        """A new `tablepi run`, returned once it has opened the reader and settled its zones: it said HELLO? to
        the device and journaled the four zones' statuses from the device's snapshot."""
        said = hellos(device)
        events = journal_count(journal)
        env = dict(os.environ, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy")
        proc = subprocess.Popen(
            [sys.executable, "-m", "tablepi", "run", "--headless", "--config", str(tmp_path / "t.toml")],
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        )

        def said_hello() -> bool:
            assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else proc.returncode
            return hellos(device) > said

        wait_until(said_hello, "the app to open the reader", 180)
        wait_until(lambda: sum(isinstance(e, ReaderStatus) for e in read_journal(journal).events()[events:]) >= 4,
                   "the four zones' statuses in the journal", 120, every=0.05, ignore=UNREADABLE)
        return proc

    def wait_state(what: str, check: Callable[[TableState], bool]) -> None:
        def seen() -> str:
            try:
                state = journal_state(journal)
            except UNREADABLE as error:
                return f"{what} (the journal: {error})"
            return f"{what} (the table: trump {state.deal.trump}, tricks {[t.plays for t in state.deal.tricks]}, " \
                   f"zones {[z.cards for z in state.zones]})"

        wait_until(lambda: check(journal_state(journal)), seen, 120, every=0.05, ignore=UNREADABLE)

    def settled(state: TableState) -> bool:
        """No card lies tentatively: each one lying is played (its tap window passed) or shown."""
        return all(card.status is not ZoneCardStatus.TENTATIVE for zone in state.zones for card in zone.cards)

    played = [Card.parse(c) for c in ("AS", "KS", "JS", "9S")]  # dealer N: W leads, then S, E, N
    seats = [Seat.W, Seat.S, Seat.E, Seat.N]
    app = start()
    try:
        # W names hearts by a tap of a heart, then W and S play
        device.place(SEAT_ZONE[Seat.W], uid_of[Card.parse("AH")])
        device.lift(SEAT_ZONE[Seat.W])
        wait_state("W's tap of AH to name hearts", lambda s: str(s.deal.trump) == "H" and s.phase is TablePhase.PLAY)
        for seat, card in zip(seats[:2], played[:2], strict=True):
            device.place(SEAT_ZONE[seat], uid_of[card])
        wait_state("W's AS and S's KS played", lambda s: bool(s.deal.tricks) and s.deal.tricks[0].plays == tuple(
            zip(seats[:2], played[:2], strict=True)) and settled(s))
        app.send_signal(signal.SIGKILL)
        app.wait(30)
        app = start()  # its snapshot: W's and S's cards still lying there
        for seat, card in zip(seats[2:], played[2:], strict=True):
            device.place(SEAT_ZONE[seat], uid_of[card])
        wait_state("the trick complete",
                   lambda s: bool(s.deal.tricks) and len(s.deal.tricks[0].plays) == 4 and settled(s))
        app.send_signal(signal.SIGKILL)
        app.wait(30)
        for seat in seats:  # the players sweep the trick while the table is off
            device.lift(SEAT_ZONE[seat])
        app = start()
        wait_state("the four cards taken as swept (the reader reports empty zones)",
                   lambda s: all(zone.is_clear for zone in s.zones))
        device.place(SEAT_ZONE[Seat.W], uid_of[Card.parse("KH")])  # W won and leads trick 2
        wait_state("W's KH played (it lay for the tap window)",
                   lambda s: len(s.deal.tricks) == 2 and s.deal.tricks[1].plays == ((Seat.W, Card.parse("KH")),)
                   and settled(s))
        app.send_signal(signal.SIGTERM)
        _, err = app.communicate(timeout=120)
        assert app.returncode == 0, err.decode()
    finally:
        if app.poll() is None:
            app.kill()
        device.close()
        for fd in (master, slave):
            with contextlib.suppress(OSError):
                os.close(fd)
    header = RecordHeader(table=TableConfig(tap_window=0.5), zones=tuple(ZONES.items()))
    with JournaledTable(journal, header) as table:
        state = table.state
    trick = state.deal.tricks[0]
    assert [(s, str(c)) for s, c in trick.plays] == [(s, str(c)) for s, c in zip(seats, played, strict=True)]
    assert trick.winner is Seat.W
    assert [(s, str(c)) for s, c in state.deal.tricks[1].plays] == [(Seat.W, "KH")]
    assert [z.cards for z in state.zones if z.seat is not Seat.W] == [(), (), ()]
    assert str(state.deal.trump) == "H"
    assert [w.code.value for w in state.warnings] == [], [w.message for w in state.warnings]
