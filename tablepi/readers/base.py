"""The one reader interface: ``recv()`` written once here, one private hook per backend.

Like python-can's ``BusABC.recv``/``_recv_internal``, the public read path lives in :class:`Reader` and does
everything that must be the same for every kind of hardware:

- **consistency**: per zone the stream alternates place(uid) / lift(same uid). A place on a zone that
  still holds another card first emits that card's lift; duplicate places and lifts of cards not there are
  dropped (counted).
- **snapshots**: a backend that learns the whole truth about a zone (reconnect, ``STATE`` line) returns a
  :class:`ZoneSnapshot`; the base diffs it against what consumers were told, so nothing is lost or doubled.
- **debounce**: with ``debounce > 0`` a lift is held that long; if the same card comes back on the same
  zone in that window (RF flicker, a card nudged) neither the lift nor the re-place is reported.
- **health**: zone states (ONLINE/OFFLINE/FAULT/MULTI) are reported only on change; counters of everything
  dropped or repaired are kept for :meth:`Reader.health` and the log.
- **one card, one place**: a tag reported on a zone while it is believed on another is a neighbour's antenna
  hearing it (crosstalk): it stays where it was first, the other zone's report becomes a
  :class:`~tablepi.readers.events.ZoneCrosstalk` and that zone's later lift of it is dropped. With ``known``
  set (the app passes "is this UID in an enrolled deck?"; the readers know no deck), an unknown UID reported on
  a zone that holds a known card is a garbled read, not a second card: the known card stays, the unknown one
  is a ZoneCrosstalk with no holder. A lift of a known card is held ``garble_window`` seconds for that, since
  the device sends ``LIFT`` of the old card and ``PLACE`` of the new one back to back.
- **a card between two antennas**: a device that gave a card to one zone and then moves it to the neighbour
  sends that zone's ``LIFT`` and the neighbour's ``PLACE`` back to back, the PLACE dated (v2) from when the
  neighbour first heard it. Dated before the lift, the card was heard on both at once: the lift is marked
  ``misread`` (the first zone never had it), so the table takes it for no gesture there, not a show.

A backend implements :meth:`Reader._recv_internal` (wait up to ``timeout`` for one item) and optionally
:meth:`Reader._close_internal`.
"""

from __future__ import annotations

import abc
import collections
import dataclasses
import logging
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from types import TracebackType
from typing import ClassVar, Self

from tablepi.errors import ConfigError, ReaderError
from tablepi.readers.events import (
    ZONES,
    BackendItem,
    ReaderEvent,
    TableSnapshot,
    ZoneCrosstalk,
    ZoneEvent,
    ZoneSnapshot,
    ZoneState,
    ZoneStatus,
)

log = logging.getLogger(__name__)

#: Longest single wait handed to a backend hook, so ``recv(None)`` notices ``close()`` promptly.
_MAX_HOOK_WAIT = 0.25

Clock = Callable[[], float]


@dataclass(frozen=True, slots=True)
class ReaderHealth:
    """A snapshot of a reader's health for the log, the screen and the tests."""

    backend: str
    states: tuple[ZoneState, ...]
    present: tuple[str | None, ...]
    counters: Mapping[str, int] = field(default_factory=dict)
    detail: str = ""

    @property
    def all_online(self) -> bool:
        return all(s is ZoneState.ONLINE for s in self.states)


@dataclass(slots=True)
class _PendingLift:
    event: ZoneEvent
    due: float


@dataclass(slots=True)
class _ZoneBelief:
    """Per zone, what the consumers were told and what is held back from them."""

    told: list[str | None]  # the card each zone holds, as told (None: empty)
    states: list[ZoneState]
    reported: list[bool]  # a zone's first status always goes out: the table starts knowing nothing
    pending: dict[int, _PendingLift]  # lifts held back (debounce, garble window)
    ghost: list[str | None]  # a tag the zone reports but is not believed to hold

    @classmethod
    def empty(cls, zones: int) -> _ZoneBelief:
        return cls([None] * zones, [ZoneState.OFFLINE] * zones, [False] * zones, {}, [None] * zones)


class Reader(abc.ABC):
    """Base of every reader backend. Use :func:`tablepi.readers.open_reader` to make one by name."""

    #: Name under which the backend is registered (``serial``, ``pcsc``, ``sim``).
    backend: ClassVar[str] = "?"
    #: How long after the time it carries an event may still arrive (a device that dates its own events
    #: sends a lift only after its quiet time): a consumer must not decide "it stayed" before that.
    report_delay: ClassVar[float] = 0.0
    #: How long a lift of a known card is held for a garbled read that may follow it (only with ``known``).
    garble_window: ClassVar[float] = 0.06

    def __init__(self, *, zones: int = ZONES, debounce: float = 0.0, clock: Clock = time.monotonic) -> None:
        if not isinstance(zones, int) or zones < 1:
            raise ConfigError(f"reader option 'zones' must be a positive integer, not {zones!r}")
        if not isinstance(debounce, int | float) or debounce < 0:
            raise ConfigError(f"reader option 'debounce' must be seconds >= 0, not {debounce!r}")
        self.zones = zones
        self.debounce = float(debounce)
        self._clock = clock
        self._belief = _ZoneBelief.empty(zones)
        #: "Is this UID an enrolled card?" (set by the app; None: every UID is taken for a card).
        self.known: Callable[[str], bool] | None = None
        self._out: collections.deque[ReaderEvent] = collections.deque()
        self._counters: collections.Counter[str] = collections.Counter()
        self._lock = threading.Lock()
        self._closed = False
        self._close_lock = threading.Lock()

    # --- public API -------------------------------------------------------------------------------

    def recv(self, timeout: float | None = None) -> ReaderEvent | None:
        """Wait up to ``timeout`` seconds (``None``: forever) for the next event; ``None`` if none came.

        Raises :class:`ReaderError` once the reader is closed, so a pump thread knows to stop.
        """
        deadline = None if timeout is None else self._clock() + max(0.0, timeout)
        while True:
            if self._closed:
                raise ReaderError(f"{self.backend} reader is closed", backend=self.backend)
            with self._lock:
                self._flush_due_lifts(self._clock())
                if self._out:
                    return self._out.popleft()
            now = self._clock()
            wait = _MAX_HOOK_WAIT if deadline is None else max(0.0, min(_MAX_HOOK_WAIT, deadline - now))
            if self._belief.pending:
                wait = min(wait, max(0.0, min(p.due for p in self._belief.pending.values()) - now))
            item = self._recv_internal(wait)
            if item is not None:
                with self._lock:
                    self._accept(item)
            elif deadline is not None and self._clock() >= deadline:
                with self._lock:
                    self._flush_due_lifts(self._clock())
                    return self._out.popleft() if self._out else None

    def __iter__(self) -> Iterator[ReaderEvent]:
        """Yield events until the reader is closed."""
        while not self._closed:
            try:
                event = self.recv(_MAX_HOOK_WAIT)
            except ReaderError:
                if self._closed:
                    return
                raise
            if event is not None:
                yield event

    @property
    def present(self) -> tuple[str | None, ...]:
        """The card each zone holds, as told to consumers so far (``None``: empty)."""
        with self._lock:
            return tuple(self._belief.told)

    @property
    def states(self) -> tuple[ZoneState, ...]:
        with self._lock:
            return tuple(self._belief.states)

    @property
    def closed(self) -> bool:
        return self._closed

    def health(self) -> ReaderHealth:
        """States, present cards and counters (lines dropped, duplicates, reconnects...) right now."""
        with self._lock:
            return ReaderHealth(
                backend=self.backend,
                states=tuple(self._belief.states),
                present=tuple(self._belief.told),
                counters=dict(self._counters),
                detail=self._health_detail(),
            )

    def close(self) -> None:
        """Release the hardware. Safe to call twice and from another thread than ``recv``."""
        with self._close_lock:
            if self._closed:
                return
            self._closed = True
        try:
            self._close_internal()
        finally:
            log.debug("%s reader closed; counters %s", self.backend, dict(self._counters))

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    # --- backend hooks ----------------------------------------------------------------------------

    @abc.abstractmethod
    def _recv_internal(
        self, timeout: float
    ) -> BackendItem | None:
        """Wait at most ``timeout`` seconds for one item from the hardware; ``None`` if nothing came.

        Must not raise for hardware trouble: report it as a ZoneStatus (OFFLINE, FAULT) and recover.
        """

    def _close_internal(self) -> None:  # noqa: B027 - optional hook
        """Release the backend's resources; called once."""

    def _health_detail(self) -> str:
        """One line about the backend's link (port, reader names) for :meth:`health`."""
        return ""

    def _count(self, name: str, n: int = 1) -> None:
        """Count something noteworthy (a bad line, a reconnect); visible in :meth:`health`."""
        self._counters[name] += n

    def _now(self) -> float:
        return self._clock()

    # --- the normalising core ---------------------------------------------------------------------

    def _accept(self, item: BackendItem) -> None:
        if isinstance(item, TableSnapshot):
            for snap in item.zones:
                if snap.uid != self._belief.told[snap.zone] and self._belief.told[snap.zone] is not None:
                    self._accept(ZoneSnapshot(snap.zone, None, snap.time))  # first lift what is no longer there
            for snap in item.zones:
                self._accept(snap)
            return
        zone = item.zone
        if not isinstance(zone, int) or not 0 <= zone < self.zones:
            self._count("bad_zone")
            log.warning(
                "%s reader reported zone %r outside 0..%d; ignored", self.backend, zone, self.zones - 1
            )
            return
        if isinstance(item, ZoneStatus):
            self._accept_status(item)
        elif isinstance(item, ZoneCrosstalk):  # the device arbitrated itself (protocol v2 CROSS)
            self._count("crosstalk")
            self._emit(item)
        elif isinstance(item, ZoneSnapshot):
            self._accept_snapshot(item)
        elif item.present:
            self._accept_place(item)
        else:
            self._accept_lift(item)

    def _accept_status(self, status: ZoneStatus) -> None:
        if self._belief.states[status.zone] is status.state and self._belief.reported[status.zone]:
            self._count("repeated_status")
            return
        self._belief.states[status.zone] = status.state
        self._belief.reported[status.zone] = True
        level = logging.INFO if status.state is ZoneState.ONLINE else logging.WARNING
        log.log(level, "%s reader: %s", self.backend, status)
        self._emit(status)

    def _accept_place(self, event: ZoneEvent) -> None:
        zone = event.zone
        if self._belief.ghost[zone] == event.uid:
            self._count("crosstalk_repeated")  # still the misreading this zone reported before
            return
        holder = next((z for z, uid in enumerate(self._belief.told) if uid == event.uid and z != zone), None)
        leaving = self._belief.pending.get(holder) if holder is not None else None
        if leaving is not None and leaving.event.uid == event.uid:
            # The card's lift there is only being held (debounce, garble window): it moved. Lift, then place.
            del self._belief.pending[holder]  # type: ignore[arg-type]
            lift = leaving.event
            if event.time <= lift.time:
                # Heard here before it was last heard there (device times): the card lay between the two
                # antennas and the device gave it to this zone. The other zone never had it: a misread there.
                lift = dataclasses.replace(lift, misread=True)
                self._count("misread_moved")
            self._emit_lift(lift)
            holder = None
        if holder is not None:
            self._crosstalk(event, holder)
            return
        pending = self._belief.pending.get(zone)
        held = pending.event.uid if pending is not None else self._belief.told[zone]
        if held is not None and self._garbled(held, event.uid):
            self._belief.pending.pop(zone, None)  # the known card stays: its lift was the garbled read's doing
            self._crosstalk(event, None)
            return
        pending = self._belief.pending.pop(zone, None)
        if pending is not None:
            if pending.event.uid == event.uid:
                self._count("debounced")
                log.debug("%s reader: bounce of %s on zone %d ignored", self.backend, event.uid, zone)
                return
            self._emit_lift(pending.event)
        self._belief.ghost[zone] = None
        told = self._belief.told[zone]
        if told == event.uid:
            self._count("duplicate_place")
            return
        if told is not None:
            self._count("implicit_lift")
            self._emit_lift(ZoneEvent(zone, told, False, event.time))
        self._belief.told[zone] = event.uid
        self._emit(event)

    def _accept_lift(self, event: ZoneEvent) -> None:
        zone = event.zone
        if self._belief.ghost[zone] == event.uid:
            self._belief.ghost[zone] = None
            self._count("crosstalk_lift")
            return
        if self._belief.told[zone] != event.uid or zone in self._belief.pending:
            self._count("stray_lift")
            return
        hold = self.debounce
        if self.known is not None and self.known(event.uid):
            hold = max(hold, self.garble_window)
        if hold > 0:
            self._belief.pending[zone] = _PendingLift(event, self._clock() + hold)
        else:
            self._emit_lift(event)

    def _garbled(self, held: str, uid: str) -> bool:
        """An unknown UID where a known card lies: a misreading (only decidable with ``known``)."""
        known = self.known
        return known is not None and uid != held and known(held) and not known(uid)

    def _crosstalk(self, event: ZoneEvent, holder: int | None) -> None:
        zone = event.zone
        self._belief.ghost[zone] = event.uid
        self._count("crosstalk" if holder is not None else "garbled_read")
        where = f"it lies on zone {holder}" if holder is not None else f"zone {zone} holds {self._belief.told[zone]}"
        log.warning(
            "%s reader: zone %d reports %s, but %s: crosstalk between antennas (space them or lower the gain)",
            self.backend, zone, event.uid, where,
        )
        self._emit(ZoneCrosstalk(zone, event.uid, holder, event.time))

    def _accept_snapshot(self, snap: ZoneSnapshot) -> None:
        zone = snap.zone
        if snap.uid != self._belief.ghost[zone] or snap.uid not in self._belief.told:
            # The zone no longer reports its misreading, or the card it heard lies nowhere else now: it lies here.
            self._belief.ghost[zone] = None
        if snap.uid is not None:
            self._accept_place(ZoneEvent(zone, snap.uid, True, snap.time))
            return
        pending = self._belief.pending.pop(zone, None)
        if pending is not None:
            self._emit_lift(pending.event)
        told = self._belief.told[zone]
        if told is not None:
            self._count("snapshot_lift")
            self._emit_lift(ZoneEvent(zone, told, False, snap.time))

    def _flush_due_lifts(self, now: float) -> None:
        for zone, pending in list(self._belief.pending.items()):
            if pending.due <= now:
                del self._belief.pending[zone]
                self._emit_lift(pending.event)

    def _emit_lift(self, event: ZoneEvent) -> None:
        self._belief.told[event.zone] = None
        self._emit(event)

    def _emit(self, event: ReaderEvent) -> None:
        self._out.append(event)
        if isinstance(event, ZoneEvent):
            log.debug("%s reader: %s", self.backend, event)
