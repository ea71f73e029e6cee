"""A reader behind a link that may be down: the supervision loop written once for every such backend.

The serial reader's cable and the PC/SC daemon fail the same way: the link cannot be made, or it breaks while in
use. :class:`LinkedReader` owns what must then happen identically, so a new backend cannot get it subtly wrong:

- **retry with backoff**: an attempt that fails waits ``backoff_initial`` seconds, doubling up to
  ``backoff_max``; a link that was up and breaks is retried after ``backoff_initial`` again;
- **offline once**: every zone is reported OFFLINE when the link breaks or cannot be made (the base class
  passes a state on only when it changes, so consumers hear it once, not at every retry);
- **the queue**: the backend appends what the hardware said to ``self._items``; :meth:`_recv_internal` hands
  it to the base one item at a time, never waiting longer than asked;
- **close wakes**: a ``recv`` sleeping until the next attempt returns as soon as another thread closes.

A backend implements small hooks: :meth:`_link_is_up`, :meth:`_link_up` (try to make the link),
:meth:`_link_down` (release what is left of it), :meth:`_link_ok` (supervise it) and :meth:`_pump_link` (wait for
and queue what the hardware says). It calls :meth:`_link_lost` when it finds the link broken.

A failed attempt is normal while a reader is unplugged (logged at DEBUG, the zones say OFFLINE). A link that is
there but *refused* (:class:`LinkRefused`: the port exists and the system will not let the service open it) is
not: no cable helps, so it is logged as a WARNING naming the fix, once per reason.
"""

from __future__ import annotations

import abc
import collections
import errno
import logging
import threading
import time
from dataclasses import dataclass
from typing import ClassVar

from tablepi.errors import ConfigError
from tablepi.readers.base import Clock, Reader
from tablepi.readers.events import (
    ZONES,
    BackendItem,
    ZoneState,
    ZoneStatus,
)

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class LinkRefused:
    """A link that is there but may not be used: ``why`` is the zones' OFFLINE detail, ``fix`` what to do."""

    why: str
    fix: str


def refused_open(path: str, err: BaseException) -> str | LinkRefused:
    """Why opening ``path`` failed: a :class:`LinkRefused` for a permission error (EPERM, EACCES), else the text.

    EPERM on a device node is the service's device policy (the unit's ``DeviceAllow=char-...`` is resolved when
    the service starts; a driver loaded after that stays forbidden); EACCES is the node's owner and mode.
    """
    why = f"cannot open {path}: {err}"
    code = getattr(err, "errno", None)
    if code == errno.EPERM:
        return LinkRefused(why, "the service's device policy forbids the port: its driver was loaded after the "
                                "service started. sudo systemctl restart tablepi; for good: sudo bash "
                                "systemd/install.sh (it loads the serial drivers at boot, "
                                "/etc/modules-load.d/tablepi.conf)")
    if code == errno.EACCES:
        return LinkRefused(why, f"{path} is not readable and writable by the service's user: it needs group "
                                "dialout and the udev rule (sudo bash systemd/install.sh; ls -l "
                                f"{path} shows the owner)")
    return why


class LinkedReader(Reader):
    """Base of backends whose hardware sits behind a link that may be down (a cable, a daemon)."""

    #: What the log calls the link ("reader link", "pcscd").
    link_name: ClassVar[str] = "link"
    #: Counter bumped at every failed attempt to make the link (visible in :meth:`Reader.health`).
    link_failed_counter: ClassVar[str] = "link_failed"
    #: Detail of the OFFLINE status every zone gets when a link that was up breaks.
    link_lost_detail: ClassVar[str] = "link lost"

    def __init__(
        self,
        *,
        zones: int = ZONES,
        debounce: float = 0.0,
        backoff_initial: float = 0.2,
        backoff_max: float = 5.0,
        clock: Clock = time.monotonic,
    ) -> None:
        super().__init__(zones=zones, debounce=debounce, clock=clock)
        if not isinstance(backoff_initial, int | float) or backoff_initial <= 0:
            raise ConfigError(
                f"{self.backend} reader option 'backoff_initial' must be seconds > 0, not {backoff_initial!r}"
            )
        if not isinstance(backoff_max, int | float):
            raise ConfigError(f"{self.backend} reader option 'backoff_max' must be seconds, not {backoff_max!r}")
        self.backoff_initial = float(backoff_initial)
        self.backoff_max = float(max(backoff_max, backoff_initial))
        self._items: collections.deque[BackendItem] = collections.deque()
        self._wake = threading.Event()
        self._next_attempt = clock()
        self._backoff = self.backoff_initial
        self._refused: LinkRefused | None = None  # the refusal last warned about

    @property
    def refused(self) -> LinkRefused | None:
        """The refusal the last attempt to make the link met, if it was one (``tablepi doctor`` shows its fix)."""
        return self._refused

    # --- the loop ------------------------------------------------------------------------------------

    def _recv_internal(self, timeout: float) -> BackendItem | None:
        deadline = self._now() + timeout
        while True:
            if self._items:
                return self._items.popleft()
            if self._closed:
                return None
            now = self._now()
            if not self._link_is_up():
                if now >= self._next_attempt:
                    self._attempt()
                    continue
                wait = min(deadline, self._next_attempt) - now
                if wait > 0:
                    self._wake.wait(wait)
            else:
                if not self._link_ok(now):
                    continue  # supervision changed something (link dropped, readers relisted): look again
                self._pump_link(max(0.0, deadline - now))
            if not self._items and self._now() >= deadline:
                return None

    def _close_internal(self) -> None:
        """Wake a ``recv`` sleeping until the next attempt; a backend extends this to release its link."""
        self._wake.set()

    def _attempt(self) -> None:
        failed = self._link_up()
        if failed is None:
            self._refused = None
            return
        self._count(self.link_failed_counter)
        if isinstance(failed, LinkRefused):
            why = failed.why
            if failed != self._refused:
                log.warning("%s: %s; fix: %s", self.link_name, why, failed.fix)
            self._refused = failed
        else:
            why = failed
            self._refused = None
        log.debug("%s: %s; retry in %.1f s", self.link_name, why, self._backoff)
        now = self._now()
        for zone in range(self.zones):  # the base passes it on once, not at every retry
            self._set_state(zone, ZoneState.OFFLINE, why, now)
        self._next_attempt = now + self._backoff
        self._backoff = min(self._backoff * 2, self.backoff_max)

    def _link_lost(self, why: str) -> None:
        """The backend found its link broken: release it, every zone OFFLINE, retry after ``backoff_initial``."""
        self._link_down(why)
        self._count("disconnects")
        log.warning("%s down (%s); zones offline, reconnecting", self.link_name, why)
        now = self._now()
        for zone in range(self.zones):
            self._set_state(zone, ZoneState.OFFLINE, self.link_lost_detail, now)
        self._backoff = self.backoff_initial
        self._next_attempt = now + self._backoff
        self._backoff = min(self._backoff * 2, self.backoff_max)

    def _set_state(self, zone: int, state: ZoneState, detail: str, now: float) -> None:
        """Queue a zone state; the base class passes on only changes."""
        self._items.append(ZoneStatus(zone, state, detail, now))

    # --- backend hooks -------------------------------------------------------------------------------

    @abc.abstractmethod
    def _link_is_up(self) -> bool:
        """Whether the link is made (the port is open, the context established)."""

    @abc.abstractmethod
    def _link_up(self) -> str | LinkRefused | None:
        """Try once to make the link; ``None`` if made, else why not (the zones' OFFLINE detail), as a
        :class:`LinkRefused` when the link is there but may not be used (:func:`refused_open`).

        Count and log the success here; the failure is counted, logged and retried by the caller.
        """

    @abc.abstractmethod
    def _link_down(self, why: str) -> None:
        """Release what is left of a broken link and forget what depended on it; called by :meth:`_link_lost`."""

    def _link_ok(self, now: float) -> bool:
        """Supervise the link that is up; ``False`` if that changed something (then the loop looks again)."""
        return True

    @abc.abstractmethod
    def _pump_link(self, timeout: float) -> None:
        """Wait at most about ``timeout`` seconds for the hardware; queue what it said in ``self._items``."""
