"""A scripted table of four, playing on the real `tablepi run` window through the real serial path.

- The board: the real firmware sources on four emulated MFRC522 (tablepi.emulator.runner.FirmwareRunner), speaking
  the line protocol on a pseudo-terminal that `tablepi run` opens with its serial backend, as /dev/ttyACM0.
- The screen: the app's own window on an X server (Xvfb), touched with ``xdotool`` at the place the app drew the
  control. The robot never knows a coordinate: it reads the hit-map the app writes for each frame it draws
  (``TABLEPI_HITMAP``, tablepi.app.screen) and touches the centre of the control it wants, turned as the panel is
  mounted, no sooner than half a second after its last touch (a person's pace; tablepi.display.touch.SETTLE).
- The players: each deal is dealt from a seeded shuffle; the robot's own rules (count.py: whose turn it is, the
  legal cards of RULES.md 13-15, the trick's winner, written from RULES.md on the cards' text, nothing of
  tablepi.rules) give every seat a legal card in turn, chosen at random, which the robot lays on that seat's zone
  and leaves until the table has taken it; the four lift their cards to sweep a trick. The table's rules are
  checked, not mirrored: a card the table refused, or a turn it saw otherwise, stops the evening.
- The score: each trick's winner and card points are the robot's own, checked against the table's trick; after
  every deal the slate the table journaled is compared with :class:`Scorer`, this file's own count of RULES.md
  23-28 from those tricks and points (or, for a deal by hand, from what the players told), and who names trumps
  next with rule 22 (the last deal's trump-namer deals).
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tablepi.app.demo import ZONES, demo_deck
from tablepi.deck import write_deck_file
from tablepi.emulator.runner import FirmwareRunner
from tablepi.rules import Card, Seat, Suit, Team
from tablepi.rules.cards import DECK
from tablepi.table.state import TablePhase, TableState
from tests.waits import UNREADABLE, journal_state, wait_until

from . import count

SEAT_ZONE = {seat: zone for zone, seat in ZONES.items()}
PACE = 0.8  # seconds between two touches: more than tablepi.display.touch.SETTLE, with the app's own delay


def wait(what: str, check: Callable[[], Any], timeout: float = 30.0) -> Any:
    """:func:`tests.waits.wait_until`, named as the robot's steps read: what, then the check."""
    return wait_until(check, what, timeout, every=0.05)


@dataclass
class Scorer:
    """RULES.md 23-28 counted here, from each deal's facts: the open lines per team and the match's winner."""

    start: int
    open: dict[Team, int] = field(default_factory=dict)
    winner: Team | None = None
    named: Seat | None = None  # who named trumps in the last deal scored: he deals next (rule 22)

    def __post_init__(self) -> None:
        self.open = {Team.NS: self.start, Team.EW: self.start}

    @property
    def next_forehand(self) -> Seat | None:
        """Who names trumps next by rule 22 (the seat after the next dealer), once a deal of the match is scored."""
        return None if self.named is None else Seat(count.after(self.named.value))

    def deal(self, trump_team: Team, points: dict[Team, int], tricks: dict[Team, int], matt: bool = False,
             konter: bool = False, named: Seat | None = None) -> None:
        assert self.winner is None, "a deal after the match was won"
        self.named = named
        announced = int(matt) + int(konter)
        if points[Team.NS] == points[Team.EW]:  # 20-20: the trump team has 1 + announcements added
            self.open[trump_team] += 1 + announced
            return
        won = Team.NS if points[Team.NS] > points[Team.EW] else Team.EW
        stake = 1 + announced + (1 if tricks[won] == 6 else 0)
        self.open[won] = max(0, self.open[won] - stake)
        if won is not trump_team:
            self.open[trump_team] += stake
        if self.open[won] == 0:
            self.winner = won


class Robot:
    """The app, its board and its screen, and the fingers and hands of four players."""

    def __init__(self, tmp: Path, display: str, panel: tuple[int, int], language: str, rotation: int = 0,
                 start_lines: int = 6) -> None:
        self.tmp, self.display, self.panel, self.rotation = tmp, display, panel, rotation
        self.deck = demo_deck()
        self.uid = {card: uid for uid, card in self.deck.cards.items()}
        write_deck_file(tmp / "decks.toml", [self.deck])
        self.journal = tmp / "journal.sqlite3"
        self.hitmap_path = tmp / "hitmap.json"
        self.board = FirmwareRunner.on_pty().start()
        assert self.board.path is not None
        (tmp / "t.toml").write_text(
            f'[table]\njournal = "{self.journal}"\ndecks = ["{tmp / "decks.toml"}"]\ntap_seconds = 0.5\n'
            f'players = "{tmp / "players.toml"}"\n'
            f"[house_rules]\nstart_lines = {start_lines}\n"
            f'[readers]\nbackend = "serial"\n[readers.options]\nport = "{self.board.path}"\n'
            f'[controls]\nenabled = false\n[display]\nlanguage = "{language}"\nfullscreen = false\n'
            f"size = [{panel[0]}, {panel[1]}]\nrotation = {rotation}\n", encoding="utf-8")
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("SDL_")}
        self.env.update(DISPLAY=display, SDL_AUDIODRIVER="dummy", PYGAME_HIDE_SUPPORT_PROMPT="1",
                        TABLEPI_HITMAP=str(self.hitmap_path))
        self.proc: subprocess.Popen[bytes] | None = None
        self.window = ""
        self.touches = 0  # every touch made, for the counts of docs/by-hand.md
        self.fixed_preset = False  # the last deal by hand had to change the form's trump-namer
        self._last_touch = 0.0
        self.lying: dict[Seat, list[Card]] = {seat: [] for seat in Seat}
        self.start()

    # --- the app ----------------------------------------------------------------------------------------------

    def start(self) -> None:
        self.hitmap_path.unlink(missing_ok=True)
        log = (self.tmp / "run.log").open("a")
        self.proc = subprocess.Popen([sys.executable, "-m", "tablepi", "run", "--config", str(self.tmp / "t.toml")],
                                     env=self.env, stdout=log, stderr=subprocess.STDOUT)
        wait("the app's first frame", lambda: self._alive() and self.hitmap_path.exists(), 60)
        self.window = wait("the window", lambda: subprocess.run(
            ["xdotool", "search", "--pid", str(self.proc.pid)], capture_output=True, text=True,  # type: ignore[union-attr]
            timeout=5, env=self.env).stdout.split()[:1], 30)[0]
        self._last_touch = time.monotonic()  # a person's first touch comes after the screen is up, not with it

    def readers_online(self) -> None:
        wait("every reader online", lambda: all(z.reader.value == "online" for z in self.state().zones), 30)

    def _alive(self) -> bool:
        assert self.proc is not None and self.proc.poll() is None, (self.tmp / "run.log").read_text()
        return True

    def power_cut(self) -> None:
        """The plug pulled: SIGKILL, then the table switched on again on the same journal and board."""
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)
        self.start()

    def close(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        self.board.close()

    def state(self) -> TableState:
        # (read only: the running table writes it; as a new match begins, it is being archived)
        return wait_until(lambda: journal_state(self.journal), "the journal to be readable", 10, every=0.1,
                          ignore=UNREADABLE)

    # --- the screen ---------------------------------------------------------------------------------------------

    def frame(self) -> dict[str, Any]:
        return wait_until(lambda: json.loads(self.hitmap_path.read_text(encoding="utf-8")),  # type: ignore[no-any-return]
                          "a hit-map", 10, every=0.05, ignore=(OSError, ValueError))

    def control(self, name: str, seat: Seat | None = None) -> dict[str, Any] | None:
        for control in self.frame()["controls"]:
            if control["name"] == name and control["live"] and (seat is None or control["seat"] == seat.value):
                return control  # type: ignore[no-any-return]
        return None

    def live(self, name: str, seat: Seat | None = None) -> bool:
        return self.control(name, seat) is not None

    def selected(self, name: str) -> bool:
        """Whether the key ``name`` is drawn chosen (a row of choices: the trump seat, the winners...)."""
        control = self.control(name)
        return control is not None and bool(control["selected"])

    def touch(self, name: str, seat: Seat | None = None, timeout: float = 15.0, redraw: bool = True) -> None:
        """Touch the live control ``name`` (for ``seat``) where the screen drew it, at a person's pace; then wait
        for the screen to answer (``redraw``: a touch that changes what is drawn)."""
        control = wait(f"{name} on the screen", lambda: self.control(name, seat), timeout)
        seq = self.frame()["seq"]
        x, y, w, h = control["rect"]
        cx, cy = x + w // 2, y + h // 2
        pw, ph = self.panel
        px, py = {0: (cx, cy), 90: (pw - cy, cx), 180: (pw - cx, ph - cy), 270: (cy, ph - cx)}[self.rotation]
        time.sleep(max(0.0, self._last_touch + PACE - time.monotonic()))
        subprocess.run(["xdotool", "mousemove", "--window", self.window, str(px), str(py), "click", "1"],
                       env=self.env, check=True, timeout=10)
        self._last_touch = time.monotonic()
        self.touches += 1
        if redraw:
            wait(f"the screen to answer {name}", lambda: self.frame()["seq"] != seq, 10)

    def key(self, key: str, redraw: bool = True) -> None:
        self.touch(f"key:{key}", redraw=redraw)

    def sheet(self) -> str | None:
        return self.frame()["sheet"]  # type: ignore[no-any-return]

    def type_name(self, name: str) -> int:
        """Type ``name`` on the keyboard (⇧ for a capital where the keyboard has none up); the touches it took."""
        before = self.touches
        for ch in name:
            if ch == " ":
                self.key("space")
                continue
            other = ch.swapcase()
            if not self.live(f"key:char:{ch}") and other != ch and self.live(f"key:char:{other}"):
                self.key("shift")
                wait(f"{ch} on the keyboard", lambda c=ch: self.live(f"key:char:{c}"), 5)
            self.key(f"char:{ch}")
        return self.touches - before

    # --- the hands ----------------------------------------------------------------------------------------------

    def place(self, seat: Seat, card: Card) -> None:
        self.board.place(SEAT_ZONE[seat], self.uid[card])
        self.lying[seat].append(card)

    def lift_all(self) -> None:
        for seat, cards in self.lying.items():
            for card in cards:
                self.board.lift(SEAT_ZONE[seat], self.uid[card])
            cards.clear()


def shuffled_hands(rng: random.Random) -> dict[Seat, list[Card]]:
    cards = list(DECK)
    rng.shuffle(cards)
    return {seat: sorted(cards[i * 6:(i + 1) * 6], key=DECK.index) for i, seat in enumerate(Seat)}


def own_play(hands: dict[Seat, list[Card]], forehand: Seat, trump: Suit) -> count.Play:
    """The deal as the robot's own rules play it (count.Play), on the cards' text."""
    return count.Play({seat.value: [str(card) for card in cards] for seat, cards in hands.items()}, forehand.value,
                      trump.value)


CARD = {str(card): card for card in DECK}


def next_forehand(state: TableState) -> Seat:
    """Who names trumps in the deal to come (between deals: the seat after the next dealer, rule 22)."""
    return state.deal.next_forehand if state.phase is TablePhase.DEAL_OVER else state.deal.forehand


def trump_of(hands: dict[Seat, list[Card]], forehand: Seat) -> Suit:
    return hands[forehand][0].suit
