"""The ``sim`` backend: a reader driven like hardware, for tests, the demo and a table without readers.

Like python-can's ``VirtualBus`` or gpiozero's ``MockPin.drive_low()``, you act on the *physical* side and the
reader reports it through the same base class as the real backends::

    reader = open_reader("sim")
    reader.place(2, "04A1B2C3D4E5F6")     # a card laid on zone 2
    reader.unplug()                       # every zone goes OFFLINE; the table keeps what it believed
    reader.lift(2)                        # ...the card is taken while the cable is out (nothing reported)
    reader.replug()                       # zones come back; the lift is reported now, once

It can also be driven without code ("by a script, a game record, or keys"):

- ``script``: timed steps (or text lines ``"0.5 place 2 04A1B2C3D4E5F6"``, seconds from open) replay a scene;
- ``stdin=true``: a person types ``place 2 04A1B2C3D4E5F6`` / ``lift 2`` / ``unplug`` lines, to try a table by
  hand; ``typed_uid`` turns a typed word that is not a UID (a card such as ``QS``) into one.

Like every reader it stops at :class:`~tablepi.readers.events.ZoneEvent`: it knows tags and zones, not cards,
decks or records. The app side (:mod:`tablepi.app.simdrive`) turns a game record (``record=PATH``) into a script
and passes the deck's lookup as ``typed_uid``. The backend is selected by name like every other, never as a
silent fallback.
"""

from __future__ import annotations

import queue
import sys
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TextIO

from tablepi.errors import ConfigError, ParseError, TablepiError
from tablepi.readers.base import Clock, Reader
from tablepi.readers.events import ZONES, ZoneEvent, ZoneSnapshot, ZoneState, ZoneStatus, normalise_uid


@dataclass(frozen=True, slots=True)
class ScriptStep:
    """At ``at`` seconds after the reader opened, do ``action`` (a SimReader method name) on ``zone``."""

    at: float
    action: str
    zone: int | None = None
    uid: str | None = None

    ACTIONS = ("place", "lift", "unplug", "replug", "fault", "recover", "multi")

    @classmethod
    def parse(cls, line: str) -> ScriptStep:
        """``"1.5 place 2 04A1B2C3D4E5F6"``, ``"3 lift 2"``, ``"4 unplug"``: seconds, action, zone, uid."""
        parts = line.split()
        if len(parts) < 2 or parts[1] not in cls.ACTIONS:
            raise ConfigError(f"sim script line {line!r}: expected 'SECONDS ACTION [ZONE [UID]]'")
        try:
            at = float(parts[0])
            zone = int(parts[2]) if len(parts) > 2 else None
        except ValueError:
            raise ConfigError(f"sim script line {line!r}: seconds and zone must be numbers") from None
        uid = parts[3] if len(parts) > 3 else None
        if parts[1] == "place" and uid is None:
            raise ConfigError(f"sim script line {line!r}: place needs a zone and a UID")
        return cls(at, parts[1], zone, uid)


class SimReader(Reader):
    """A reader of ``zones`` zones whose cards you place and lift by calling methods (any thread)."""

    backend = "sim"

    def __init__(
        self,
        *,
        zones: int = ZONES,
        debounce: float = 0.0,
        script: Iterable[ScriptStep | str] | None = None,
        stdin: bool | str = False,
        stdin_stream: TextIO | None = None,
        typed_uid: Callable[[str], str] | None = None,
        online: bool = True,
        clock: Clock = time.monotonic,
    ) -> None:
        steps = [s if isinstance(s, ScriptStep) else ScriptStep.parse(s) for s in (script or ())]
        self._typed_uid = typed_uid or normalise_uid
        for step in steps:
            if step.zone is not None and not (isinstance(step.zone, int) and 0 <= step.zone < zones):
                raise ConfigError(f"sim script step {step}: the reader has zones 0..{zones - 1}")
        read_keys = _flag(stdin, "stdin") or stdin_stream is not None
        super().__init__(zones=zones, debounce=debounce, clock=clock)
        self._inbox: queue.Queue[ZoneEvent | ZoneStatus | ZoneSnapshot] = queue.Queue()
        self._truth: list[str | None] = [None] * zones
        self._up: list[bool] = [False] * zones
        self._faulty: list[bool] = [False] * zones
        self._multi: list[bool] = [False] * zones
        self._sim_lock = threading.Lock()
        self._stop_script = threading.Event()
        self._script_thread: threading.Thread | None = None
        if online:
            self.replug()
        if steps:
            self._script_thread = threading.Thread(
                target=self._run_script,
                args=(sorted(steps, key=lambda s: s.at),),
                name="sim-script",
                daemon=True,
            )
            self._script_thread.start()
        if read_keys:
            # Never joined: a read from a terminal cannot be interrupted. The thread is a daemon, stops at the
            # end of input, and does nothing once the reader is closed.
            threading.Thread(
                target=self._read_keys,
                args=(stdin_stream if stdin_stream is not None else sys.stdin,),
                name="sim-stdin",
                daemon=True,
            ).start()

    # --- the physical side ------------------------------------------------------------------------

    @property
    def truth(self) -> tuple[str | None, ...]:
        """What physically lies on each zone (the reader may not have reported it yet)."""
        with self._sim_lock:
            return tuple(self._truth)

    def place(self, zone: int, uid: str) -> None:
        """Lay the card with tag ``uid`` on ``zone`` (replacing whatever lay there)."""
        uid = normalise_uid(uid)
        with self._sim_lock:
            self._check_zone(zone)
            self._truth[zone] = uid
            if self._multi[zone]:
                self._multi[zone] = False
                self._report(zone, ZoneStatus(zone, ZoneState.ONLINE, "one tag left", self._now()))
            self._report(zone, ZoneEvent(zone, uid, True, self._now()))

    def lift(self, zone: int, uid: str | None = None) -> None:
        """Take the card off ``zone`` (``uid``, if given, must be the one lying there)."""
        with self._sim_lock:
            self._check_zone(zone)
            there = self._truth[zone]
            if uid is not None and there != normalise_uid(uid):
                raise ParseError(f"sim zone {zone} holds {there or 'nothing'}, not {uid}")
            self._truth[zone] = None
            if self._multi[zone]:
                self._multi[zone] = False
                self._report(zone, ZoneStatus(zone, ZoneState.ONLINE, "zone empty again", self._now()))
            elif there is not None:
                self._report(zone, ZoneEvent(zone, there, False, self._now()))

    def multi(self, zone: int) -> None:
        """Lay a second tag on ``zone``: the zone reports MULTI and no card until a place or a lift."""
        with self._sim_lock:
            self._check_zone(zone)
            self._multi[zone] = True
            self._truth[zone] = None
            self._report(zone, ZoneSnapshot(zone, None, self._now()))
            self._report(zone, ZoneStatus(zone, ZoneState.MULTI, "two or more tags", self._now()))

    def unplug(self, zone: int | None = None) -> None:
        """Pull the cable of ``zone`` (``None``: all zones): OFFLINE, and nothing reported until
        :meth:`replug`."""
        with self._sim_lock:
            for z in self._zones(zone):
                self._inbox.put(ZoneStatus(z, ZoneState.OFFLINE, "unplugged", self._now()))
                self._up[z] = False

    def replug(self, zone: int | None = None) -> None:
        """Plug back in: the zone reports what lies on it now (a snapshot), then ONLINE."""
        with self._sim_lock:
            for z in self._zones(zone):
                self._up[z] = True
                self._resync(z, "plugged in")

    def fault(self, zone: int, detail: str = "TIMEOUT") -> None:
        """The zone's reader chip stops answering: FAULT until :meth:`recover`."""
        with self._sim_lock:
            self._check_zone(zone)
            self._faulty[zone] = True
            self._inbox.put(ZoneStatus(zone, ZoneState.FAULT, detail, self._now()))

    def recover(self, zone: int) -> None:
        """The zone's reader works again: snapshot, then ONLINE."""
        with self._sim_lock:
            self._check_zone(zone)
            self._faulty[zone] = False
            self._resync(zone, "reader recovered")

    # --- Reader hooks -----------------------------------------------------------------------------

    def _recv_internal(self, timeout: float) -> ZoneEvent | ZoneStatus | ZoneSnapshot | None:
        try:
            return self._inbox.get(timeout=timeout) if timeout > 0 else self._inbox.get_nowait()
        except queue.Empty:
            return None

    def _close_internal(self) -> None:
        self._stop_script.set()
        if self._script_thread is not None and self._script_thread is not threading.current_thread():
            self._script_thread.join(1.0)

    # --- helpers ----------------------------------------------------------------------------------

    def _report(self, zone: int, item: ZoneEvent | ZoneStatus | ZoneSnapshot) -> None:
        if self._up[zone] and not self._faulty[zone]:
            self._inbox.put(item)

    def _resync(self, zone: int, detail: str) -> None:
        if not self._up[zone] or self._faulty[zone]:
            return
        now = self._now()
        self._inbox.put(ZoneSnapshot(zone, self._truth[zone], now))
        state = ZoneState.MULTI if self._multi[zone] else ZoneState.ONLINE
        self._inbox.put(ZoneStatus(zone, state, detail, now))

    def _check_zone(self, zone: int) -> None:
        if not isinstance(zone, int) or not 0 <= zone < self.zones:
            raise ParseError(f"sim reader has zones 0..{self.zones - 1}, not {zone!r}")

    def _zones(self, zone: int | None) -> range:
        if zone is None:
            return range(self.zones)
        self._check_zone(zone)
        return range(zone, zone + 1)

    def _run_script(self, steps: list[ScriptStep]) -> None:
        start = self._now()
        for step in steps:
            if self._stop_script.wait(max(0.0, start + step.at - self._now())):
                return
            args: list[object] = [a for a in (step.zone, step.uid) if a is not None]
            getattr(self, step.action)(*args)

    def _read_keys(self, stream: TextIO) -> None:
        for number, line in enumerate(stream, start=1):
            if self._stop_script.is_set():
                return
            try:
                self.key_line(line)
            except TablepiError as err:
                print(f"sim stdin line {number} {line.strip()!r}: {err}", file=sys.stderr, flush=True)

    def key_line(self, line: str) -> None:
        """Do one typed command (see :data:`KEY_HELP`); a bad line is a ParseError saying what was expected."""
        parts = line.split("#", 1)[0].split()
        if not parts:
            return
        action, args = parts[0].lower(), parts[1:]
        if action not in KEY_ACTIONS:
            raise ParseError(f"unknown command {parts[0]!r}; expected {KEY_HELP}")
        if action == "place":
            if len(args) != 2:
                raise ParseError(f"expected 'place ZONE UID|CARD', e.g. 'place 2 QS'; {KEY_HELP}")
            self.place(_zone(args[0]), self._typed_uid(args[1]))
        elif action in ("lift", "multi"):
            if len(args) != 1:
                raise ParseError(f"expected '{action} ZONE'; {KEY_HELP}")
            getattr(self, action)(_zone(args[0]))
        else:
            if len(args) > 1:
                raise ParseError(f"expected '{action} [ZONE]'; {KEY_HELP}")
            getattr(self, action)(_zone(args[0]) if args else None)


#: The commands the ``stdin`` driver understands.
KEY_ACTIONS = ("place", "lift", "unplug", "replug", "multi")
KEY_HELP = "place ZONE UID|CARD, lift ZONE, unplug [ZONE], replug [ZONE], multi ZONE"

def _zone(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise ParseError(f"zone must be a number, not {text!r}") from None


def _flag(value: object, name: str) -> bool:
    """A yes/no option, from TOML (a bool) or a command line (text)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "yes", "1", "on", "false", "no", "0", "off", ""):
        return value.strip().lower() in ("true", "yes", "1", "on")
    raise ConfigError(f"sim option {name}: expected true or false, got {value!r}")
