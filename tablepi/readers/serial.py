"""The ``serial`` backend: the host side of the reader line protocol (docs/protocol.md) over pyserial.

The port is found by a stable name, never by ``/dev/ttyACM0`` (which changes on replug): the udev symlink
``/dev/tablepi-reader`` (systemd/ installs the rule), else ``/dev/serial/by-id/*tablepi*``, else a ``port``
given in the configuration. The link is supervised by the loop of :class:`~tablepi.readers.link.LinkedReader`
through this module's hooks:

- open the port, send ``HELLO?``; the ``HELLO`` + ``STATE`` answer turns into ONLINE statuses and zone
  snapshots, which the base class diffs against what consumers were told (nothing lost or doubled);
- a read error, or no line for ``link_timeout`` seconds, means the cable is out: every zone goes OFFLINE (the
  cards believed on the zones stay believed), and the port is reopened with backoff 0.2 s doubling to 5 s;
- bad lines are dropped and counted; a sequence gap asks for ``STATE?`` so the snapshot repairs what was lost;
- a v2 device dates PLACE and LIFT with its own uptime (the card's first and last answer): the host maps that
  clock onto its own with the heartbeats (the smallest ``arrival - uptime`` of the last few ``HB`` lines: the
  one that waited least on the way) and stamps the events with when they happened, so the 200 ms the device
  waits before it believes a card is gone does not lengthen every tap. A v1 device's events, and any before
  the first heartbeat, are stamped on arrival.

Host commands (:meth:`ping`, :meth:`led`, :meth:`beep`, :meth:`rescan`) may be called from any thread; they
return a :class:`Command` whose ``wait()`` learns the ``ACK``/``NAK`` once a pump is reading the reader.
"""

from __future__ import annotations

import collections
import contextlib
import glob
import logging
import os
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import serial

from tablepi.errors import ConfigError, ReaderError
from tablepi.readers import protocol as p
from tablepi.readers.base import Clock
from tablepi.readers.events import (
    ZONES,
    TableSnapshot,
    ZoneCrosstalk,
    ZoneEvent,
    ZoneSnapshot,
    ZoneState,
    ZoneStatus,
)
from tablepi.readers.link import LinkedReader, LinkRefused, refused_open

log = logging.getLogger(__name__)

#: Where the udev rule puts the reader, then the by-id names that survive replug, in order of preference.
DEFAULT_PORTS: tuple[str, ...] = (
    "/dev/tablepi-reader",
    "/dev/serial/by-id/*tablepi*",
    "/dev/serial/by-id/usb-MicroPython*",
)
#: Answers still awaited are forgotten beyond this many (a device that never answers must not grow memory).
_MAX_PENDING_COMMANDS = 64

#: How long one blocking read waits before the supervisor looks at the clock again.
_READ_SLICE = 0.02
#: Heartbeats (one a second) whose arrival times map the device's clock onto the host's.
_CLOCK_SAMPLES = 8
#: A device-dated event is never dated earlier than this before its arrival (a clock gone wrong is bounded).
_MAX_EVENT_AGE = 2.0


def find_port(candidates: Sequence[str] = DEFAULT_PORTS) -> str | None:
    """The first existing path among ``candidates`` (glob patterns allowed), or ``None``."""
    for pattern in candidates:
        matches = sorted(glob.glob(pattern)) if any(c in pattern for c in "*?[") else [pattern]
        for path in matches:
            if os.path.exists(path):
                return path
    return None


@dataclass
class Command:
    """A host command in flight: its sequence number and, once answered, ``ACK`` or ``NAK <reason>``."""

    seq: int
    message: p.Message
    answer: str | None = None
    _done: threading.Event = field(default_factory=threading.Event, repr=False)

    def wait(self, timeout: float = 1.0) -> bool:
        """True on ACK, False on NAK or a link lost meanwhile; :class:`ReaderError` if no answer in ``timeout``.

        The answer arrives through ``recv()``: call this from another thread than the one reading the reader.
        """
        if not self._done.wait(timeout):
            raise ReaderError(f"reader did not answer {p.message_type(self.message)} (seq {self.seq}) in {timeout} s",
                              backend="serial")
        return self.answer == "ACK"


@dataclass
class _Link:
    """The open port and the host's side of what is written on it.

    ``lock`` guards ``port``, ``broken``, ``tx_seq`` and ``commands``: host commands come from any thread.
    """

    lock: threading.Lock = field(default_factory=threading.Lock)
    port: Any = None
    path: str | None = None
    broken: str | None = None  # set by a writer thread that hit an I/O error
    tx_seq: int = 0
    commands: dict[int, Command] = field(default_factory=dict)  # sent, the answer still awaited


@dataclass
class _Sync:
    """Where the device's line stands since the port was opened: the handshake and the sequence numbers."""

    last_rx: float = 0.0  # when the last line arrived
    last_hello: float = 0.0  # when HELLO? was last sent
    hello_seen: bool = False
    proto_ok: bool = True  # the device speaks a protocol this host speaks
    rx_seq: int | None = None  # the last sequence number received


class _LineFramer:
    """Cuts the bytes read from the port into lines; a line longer than ``p.MAX_LINE`` is dropped whole."""

    def __init__(self, on_overlong: Callable[[], None]) -> None:
        self._on_overlong = on_overlong
        self._buf = bytearray()
        self._discarding = False  # the rest of an overlong line is still coming

    def clear(self) -> None:
        self._buf.clear()
        self._discarding = False

    def feed(self, data: bytes) -> Iterator[bytes]:
        """The lines ``data`` completes, one at a time (the caller handles each before the next is cut)."""
        self._buf += data
        while True:
            end = self._buf.find(b"\n")
            if end < 0:
                if len(self._buf) > p.MAX_LINE:
                    self._on_overlong()
                    self._buf.clear()
                    self._discarding = True
                return
            line = bytes(self._buf[: end + 1])
            del self._buf[: end + 1]
            if self._discarding:
                self._discarding = False
                continue
            if len(line) > p.MAX_LINE:
                self._on_overlong()
                continue
            yield line


class SerialReader(LinkedReader):
    """Protocol v2 (or v1) device on a serial port. Options: see docs/readers.md."""

    backend = "serial"
    #: A v2 device sends a LIFT after its 200 ms quiet time and a re-check of the reader, dated at the card's
    #: last answer: events arrive up to this long after the time they carry (docs/protocol.md).
    report_delay = 0.35
    link_name = "reader link"
    link_failed_counter = "open_failed"
    link_lost_detail = "reader link down"

    def __init__(
        self,
        *,
        port: str | Sequence[str] | None = None,
        baudrate: int = 115200,
        zones: int = ZONES,
        debounce: float = 0.0,
        link_timeout: float = 3.0,
        hello_interval: float = 1.0,
        backoff_initial: float = 0.2,
        backoff_max: float = 5.0,
        clock: Clock = time.monotonic,
        serial_factory: Callable[..., Any] | None = None,
        device_times: bool = True,
    ) -> None:
        super().__init__(
            zones=zones, debounce=debounce, backoff_initial=backoff_initial, backoff_max=backoff_max, clock=clock
        )
        if zones != p.ZONE_COUNT:
            raise ConfigError(f"serial reader option 'zones' must be {p.ZONE_COUNT} (protocol v1), not {zones}")
        if port is None:
            self._candidates: tuple[str, ...] = DEFAULT_PORTS
        elif isinstance(port, str) and port:
            self._candidates = (port,)
        elif isinstance(port, Sequence) and port and all(isinstance(x, str) and x for x in port):
            self._candidates = tuple(port)
        else:
            raise ConfigError(f"serial reader option 'port' must be a path or a list of paths, not {port!r}")
        if not isinstance(link_timeout, int | float) or link_timeout <= 0:
            raise ConfigError(f"serial reader option 'link_timeout' must be seconds > 0, not {link_timeout!r}")
        self.baudrate = baudrate
        self.device_times = bool(device_times)  # False: a host clock that is not real time (the demo's)
        self.link_timeout = float(link_timeout)
        self.hello_interval = float(hello_interval)
        self._factory = serial_factory or serial.Serial
        self._link = _Link()
        self._framer = _LineFramer(lambda: self._count("overlong_line"))
        self._sync = _Sync()
        self.proto: int | None = None  # the protocol version of the device's last HELLO
        self._clock_samples: collections.deque[float] = collections.deque(maxlen=_CLOCK_SAMPLES)
        self._zone_state: list[ZoneState | None] = [None] * zones  # None: nothing said about the zone yet
        self.firmware: str | None = None
        self.device_stats: p.Heartbeat | None = None

    # --- host commands -------------------------------------------------------------------------------

    def ping(self) -> Command:
        return self.send(p.Ping())

    def led(self, zone: int, mode: str) -> Command:
        """Zone LED ``ON``, ``OFF`` or ``FLASH``."""
        return self.send(p.Led(zone, mode.upper()))

    def beep(self, ms: int) -> Command:
        return self.send(p.Beep(ms))

    def rescan(self) -> Command:
        """Make the device forget and re-read every zone; its ``STATE`` answer is diffed like a reconnect."""
        return self.send(p.Rescan())

    def send(self, msg: p.Message) -> Command:
        """Send a host message now; :class:`ReaderError` if the link is down (the caller may retry later)."""
        with self._link.lock:
            if self._link.port is None or self._link.broken:
                raise ReaderError(f"reader link is down; {p.message_type(msg)} not sent", backend="serial")
            seq = self._link.tx_seq
            line = p.encode_line(seq, msg)  # validates before anything is written or counted
            command = Command(seq, msg)
            self._link.commands[seq] = command
            while len(self._link.commands) > _MAX_PENDING_COMMANDS:
                stale = self._link.commands.pop(next(iter(self._link.commands)))
                stale.answer = "LOST"
                stale._done.set()
            self._link.tx_seq = p.next_seq(seq)
            try:
                self._link.port.write(line)
            except (serial.SerialException, OSError) as err:
                self._link.commands.pop(seq, None)
                self._link.broken = f"write failed: {err}"
                raise ReaderError(f"reader link failed while sending {p.message_type(msg)}: {err}",
                                  backend="serial") from err
        return command

    # --- Reader hooks --------------------------------------------------------------------------------

    def _link_is_up(self) -> bool:
        return self._link.port is not None

    def _link_ok(self, now: float) -> bool:
        self._supervise(now)
        return self._link.port is not None

    def _pump_link(self, timeout: float) -> None:
        self._read_some()  # waits one read slice at most, so the supervisor looks at the clock often

    def _close_internal(self) -> None:
        super()._close_internal()
        with self._link.lock:
            port, self._link.port = self._link.port, None
        if port is not None:
            with contextlib.suppress(serial.SerialException, OSError):  # closing a vanished device
                port.close()

    def _health_detail(self) -> str:
        stats = self.device_stats
        dev = f"; device errors {stats.errors}, scans/s {list(stats.rates)}" if stats else ""
        link = self._link
        return f"port {link.path or 'none'} ({'up' if link.port else 'down'}), firmware {self.firmware}{dev}"

    # --- link supervision ----------------------------------------------------------------------------

    def _link_up(self) -> str | LinkRefused | None:
        path = find_port(self._candidates)
        if path is None:
            return f"no reader port among {', '.join(self._candidates)}"
        try:
            port = self._factory(port=path, baudrate=self.baudrate, timeout=_READ_SLICE, write_timeout=1.0)
        except (serial.SerialException, OSError, ValueError) as err:
            return refused_open(path, err)
        with self._link.lock:
            self._link.port = port
            self._link.broken = None
        self._link.path = path
        self._framer.clear()
        now = self._now()
        self._sync = _Sync(last_rx=now)
        self._count("connects")
        log.info("reader port %s open; asking for HELLO", path)
        self._say_hello(now)
        return None

    def _say_hello(self, now: float) -> None:
        self._sync.last_hello = now
        try:
            self.send(p.HelloQuery())
        except ReaderError as err:
            self._link_lost(str(err))

    def _supervise(self, now: float) -> None:
        if self._link.broken:
            self._link_lost(self._link.broken)
        elif now - self._sync.last_rx > self.link_timeout:
            self._link_lost(f"no line from the reader for {self.link_timeout:g} s")
        elif not self._sync.hello_seen and now - self._sync.last_hello >= self.hello_interval:
            self._count("hello_retries")
            self._say_hello(now)

    def _link_down(self, why: str) -> None:
        with self._link.lock:
            port, self._link.port = self._link.port, None
            self._link.broken = None
        if port is not None:
            with contextlib.suppress(serial.SerialException, OSError):  # closing a vanished device
                port.close()
        with self._link.lock:
            lost, self._link.commands = list(self._link.commands.values()), {}
        for command in lost:
            command.answer = "LOST"
            command._done.set()

    def _read_some(self) -> None:
        port = self._link.port
        try:
            data = port.read(1)
            if data:
                waiting = port.in_waiting
                if waiting:
                    data += port.read(waiting)
        except (serial.SerialException, OSError, TypeError, AttributeError) as err:
            # TypeError/AttributeError: pyserial on a port closed by another thread mid-read.
            if not self._closed:
                self._link_lost(f"read failed: {err}")
            return
        if data:
            self._feed(data)

    def _feed(self, data: bytes) -> None:
        for line in self._framer.feed(data):
            self._on_line(line)

    # --- messages ------------------------------------------------------------------------------------

    def _on_line(self, line: bytes) -> None:
        now = self._now()
        self._sync.last_rx = now
        try:
            seq, msg = p.parse_line(line)
        except p.ProtocolError as err:
            self._count("bad_lines")
            self._count(f"bad_lines_{err.reason.lower()}")
            log.debug("reader line dropped: %s", err)
            return
        if isinstance(msg, p.Hello):
            self._on_hello(msg)
        elif not self._sync.hello_seen:
            self._count("before_hello")  # the STATE after our HELLO? covers it
            return
        elif self._sync.rx_seq is not None and seq != p.next_seq(self._sync.rx_seq):
            self._count("seq_gaps")
            log.info("reader sequence gap (%s after %s); asking for STATE", seq, self._sync.rx_seq)
            self._ask_state()
        self._sync.rx_seq = seq
        if not isinstance(msg, p.Hello) and self._sync.proto_ok:
            self._dispatch(msg, now)

    def _on_hello(self, hello: p.Hello) -> None:
        self._sync.hello_seen = True
        self.firmware = hello.firmware
        self.proto = hello.proto
        self._clock_samples.clear()  # a HELLO may be a restarted device: its uptime began again
        self._sync.proto_ok = hello.proto in p.SUPPORTED_VERSIONS
        if not self._sync.proto_ok:
            self._count("unsupported_protocol")
            versions = " and ".join(str(v) for v in sorted(p.SUPPORTED_VERSIONS))
            log.error("reader speaks protocol %d; this host speaks %s", hello.proto, versions)
            now = self._now()
            for zone in range(self.zones):
                self._set_state(zone, ZoneState.FAULT, f"reader protocol {hello.proto} not supported", now)
        elif hello.zones != self.zones:
            log.warning("reader reports %d zones; configured %d", hello.zones, self.zones)

    def _dispatch(self, msg: p.Message, now: float) -> None:
        match msg:
            case p.State(fields):
                self._on_state(fields, now)
            case p.Place(zone, uid, time_ms):
                self._set_state(zone, ZoneState.ONLINE, "one tag", now)
                self._items.append(ZoneEvent(zone, uid, True, self._dated(time_ms, now)))
            case p.Lift(zone, None):
                self._set_state(zone, ZoneState.ONLINE, "zone clear", now)
            case p.Lift(zone, str(uid), time_ms):
                self._items.append(ZoneEvent(zone, uid, False, self._dated(time_ms, now)))
            case p.Cross(zone, uid, holder):
                self._items.append(ZoneCrosstalk(zone, uid, holder, now))
            case p.Multi(zone):
                self._items.append(ZoneSnapshot(zone, None, now))
                self._set_state(zone, ZoneState.MULTI, "two or more tags", now)
            case p.Fault(zone, code):
                # Keep believing the zone's card: the OK that ends the fault brings a STATE to settle it.
                self._set_state(zone, ZoneState.FAULT, code, now)
            case p.Ok(zone):
                self._set_state(zone, ZoneState.ONLINE, "reader recovered", now)
                self._ask_state()
            case p.Heartbeat(uptime_ms):
                self.device_stats = msg
                self._clock_samples.append(now - uptime_ms / 1000)
            case p.Ack(host_seq) | p.Nak(int(host_seq), _):
                with self._link.lock:
                    command = self._link.commands.pop(host_seq, None)
                if command is not None:
                    command.answer = "ACK" if isinstance(msg, p.Ack) else f"NAK {msg.reason}"
                    command._done.set()
                if isinstance(msg, p.Nak):
                    self._count("naks")
            case p.Nak(None, _):
                self._count("naks")
            case p.Unknown():
                self._count("unknown_messages")
            case _:
                self._count("unexpected_messages")

    def _dated(self, time_ms: int | None, now: float) -> float:
        """The host time of a device time (v2), or ``now`` when there is none or no heartbeat to map it yet.

        Never later than the arrival, nor more than ``_MAX_EVENT_AGE`` before it.
        """
        if not self.device_times:
            return now
        if time_ms is None or not self._clock_samples:
            if time_ms is not None:
                self._count("undated_events")
            return now
        when = time_ms / 1000 + min(self._clock_samples)
        return min(now, max(when, now - _MAX_EVENT_AGE))

    def _on_state(self, fields: tuple[str, ...], now: float) -> None:
        fields = fields[: self.zones]
        self._items.append(
            TableSnapshot(
                tuple(
                    ZoneSnapshot(zone, None if value in (p.State.EMPTY, p.State.MULTI) else value, now)
                    for zone, value in enumerate(fields)
                    if value != p.State.FAULT
                )
            )
        )
        for zone, value in enumerate(fields):
            if value == p.State.FAULT:
                self._set_state(zone, ZoneState.FAULT, "reported in STATE", now)
            elif value == p.State.MULTI:
                self._set_state(zone, ZoneState.MULTI, "two or more tags", now)
            else:
                self._set_state(zone, ZoneState.ONLINE, "", now)

    def _ask_state(self) -> None:
        try:
            self.send(p.StateQuery())
        except ReaderError as err:
            log.debug("could not ask for STATE: %s", err)

    def _set_state(self, zone: int, state: ZoneState, detail: str, now: float) -> None:
        if self._zone_state[zone] is not state:
            self._zone_state[zone] = state
            self._items.append(ZoneStatus(zone, state, detail, now))
