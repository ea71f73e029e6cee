"""A reader device that speaks protocol v2 (or v1) over a file descriptor: the firmware's behaviour, on the host.

It stands where the Pico would be: at the other end of a pseudo-terminal (the tests and bench/bench_readers.py;
the demo without hardware runs the real firmware on :mod:`tablepi.emulator` instead). It keeps the *physical
truth* of the four zones, answers host commands like the firmware does (docs/protocol.md) and can misbehave on
purpose: lose a line, corrupt a checksum, send garbage, stop in the middle of a line. A cable pull is
:meth:`detach` and a replug :meth:`attach` of a new descriptor; the zones' truth survives, like tags lying on a
table while the cable is out.

    master, slave = os.openpty()           # the host opens os.ttyname(slave) with the serial backend
    dev = DeviceEmulator(master)
    dev.place(2, "04A1B2C3D4E5F6")

A thread reads the host's lines; every other method may be called from any thread.
"""

from __future__ import annotations

import contextlib
import os
import select
import threading
import time
import tty
from types import TracebackType
from typing import Self

from tablepi.readers import protocol as p


class DeviceEmulator:
    """Protocol device on descriptor ``fd`` (raw mode is set here); ``heartbeat`` seconds between ``HB``.

    ``proto`` 2 dates PLACE and LIFT with the device's uptime (``ago_ms`` before now: the card's first or
    last answer); ``proto`` 1 sends them without a time, as old firmware does.
    """

    def __init__(
        self,
        fd: int | None = None,
        *,
        heartbeat: float | None = 1.0,
        firmware: str = "tablepi-emu/1.0",
        proto: int = p.PROTO_VERSION,
    ) -> None:
        self.firmware = firmware
        self.proto = proto
        self.heartbeat = heartbeat
        self.zones: list[str] = [p.State.EMPTY] * p.ZONE_COUNT
        self.received: list[p.Message] = []  # good host messages, in order
        self.bad_lines = 0
        self.leds: dict[int, str] = {}
        self._seq = 0
        self._fd: int | None = None
        self._talking = False  # the host has spoken on this attachment (it flushes input on open)
        self._lock = threading.RLock()
        self._stop = threading.Event()
        self._uptime0 = time.monotonic()
        self._thread: threading.Thread | None = None
        self._hb_thread: threading.Thread | None = None
        if fd is not None:
            self.attach(fd)

    # --- the cable -----------------------------------------------------------------------------------

    def attach(self, fd: int) -> None:
        """Connect to the host through ``fd`` (a pty side). The device speaks once the host has spoken."""
        self.detach()
        with contextlib.suppress(OSError):
            tty.setraw(fd)
        with self._lock:
            self._fd = fd
            self._talking = False
        self._stop.clear()
        self._thread = threading.Thread(target=self._read_loop, args=(fd,), name="emulator-rx", daemon=True)
        self._thread.start()
        if self.heartbeat and (self._hb_thread is None or not self._hb_thread.is_alive()):
            self._hb_thread = threading.Thread(target=self._hb_loop, name="emulator-hb", daemon=True)
            self._hb_thread.start()

    def detach(self) -> None:
        """Pull the cable: close the descriptor; the zones keep their truth."""
        with self._lock:
            fd, self._fd = self._fd, None
            self._talking = False
        self._stop.set()
        if fd is not None:
            with contextlib.suppress(OSError):
                os.close(fd)
        for thread in (self._thread, self._hb_thread):
            if thread is not None and thread is not threading.current_thread():
                thread.join(1.0)
        self._thread = self._hb_thread = None

    close = detach

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.detach()

    # --- the physical side ---------------------------------------------------------------------------

    def uptime_ms(self) -> int:
        return int((time.monotonic() - self._uptime0) * 1000)

    def _when(self, ago_ms: int) -> int | None:
        return max(0, self.uptime_ms() - ago_ms) if self.proto >= 2 else None

    def place(self, zone: int, uid: str, *, lose: bool = False, corrupt: bool = False, ago_ms: int = 0) -> None:
        """A tag arrives on ``zone``. ``lose``: the line is lost; ``corrupt``: it goes out with a bad CRC;
        ``ago_ms``: its first answer was that long ago (v2 time field)."""
        with self._lock:
            self.zones[zone] = uid
            self._send(p.Place(zone, uid, self._when(ago_ms)), lose=lose, corrupt=corrupt)

    def lift(self, zone: int, *, lose: bool = False, corrupt: bool = False, ago_ms: int = 0) -> None:
        """The tag leaves ``zone`` (ends a MULTI if there was one); its last answer was ``ago_ms`` ago."""
        with self._lock:
            there = self.zones[zone]
            self.zones[zone] = p.State.EMPTY
            if there == p.State.MULTI:
                self._send(p.Lift(zone, None, self._when(ago_ms)), lose=lose, corrupt=corrupt)
            elif there not in (p.State.EMPTY, p.State.FAULT):
                self._send(p.Lift(zone, there, self._when(ago_ms)), lose=lose, corrupt=corrupt)

    def multi(self, zone: int) -> None:
        with self._lock:
            self.zones[zone] = p.State.MULTI
            self._send(p.Multi(zone))

    def fault(self, zone: int, code: str = "TIMEOUT") -> None:
        with self._lock:
            self.zones[zone] = p.State.FAULT
            self._send(p.Fault(zone, code))

    def recover(self, zone: int, uid: str | None = None) -> None:
        """The zone's reader passes its self-test again (``OK``), with ``uid`` lying on it (``PLACE``)."""
        with self._lock:
            self.zones[zone] = p.State.EMPTY
            self._send(p.Ok(zone))
            if uid is not None:
                self.place(zone, uid)

    def send_raw(self, data: bytes) -> None:
        """Write bytes as they are: garbage, half lines, lines with made-up sequence numbers."""
        with self._lock:
            self._write(data)

    def send(self, msg: p.Message, *, lose: bool = False, corrupt: bool = False) -> None:
        """Send any message with the next sequence number."""
        with self._lock:
            self._send(msg, lose=lose, corrupt=corrupt)

    def encode(self, msg: p.Message) -> bytes:
        """The line ``msg`` would go out as, consuming its sequence number; write it later with send_raw."""
        with self._lock:
            line = p.encode_line(self._seq, msg)
            self._seq = p.next_seq(self._seq)
            return line

    def reboot(self) -> None:
        """The device restarts: sequence numbers start again at 0 with an unsolicited HELLO and STATE."""
        with self._lock:
            self._seq = 0
            self._hello()

    # --- protocol ------------------------------------------------------------------------------------

    def _send(self, msg: p.Message, *, lose: bool = False, corrupt: bool = False) -> None:
        line = p.encode_line(self._seq, msg)
        self._seq = p.next_seq(self._seq)
        if lose:
            return
        if corrupt:
            bad = b"0000" if not line.endswith(b"*0000\n") else b"FFFF"
            line = line[:-5] + bad + b"\n"
        self._write(line)

    def _write(self, data: bytes) -> None:
        fd = self._fd
        if fd is None or not self._talking:
            return
        with contextlib.suppress(OSError):  # a pulled cable: the bytes go nowhere, like on the board
            os.write(fd, data)

    def _hello(self) -> None:
        self._send(p.Hello(self.proto, self.firmware, p.ZONE_COUNT))
        self._send(p.State(tuple(self.zones)))

    def _read_loop(self, fd: int) -> None:
        buf = b""
        while not self._stop.is_set():
            try:
                ready, _, _ = select.select([fd], [], [], 0.05)
                if not ready:
                    continue
                chunk = os.read(fd, 512)
            except (OSError, ValueError):
                return
            if not chunk:
                return
            buf += chunk
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                self._on_line(line)

    def _on_line(self, line: bytes) -> None:
        with self._lock:
            self._talking = True
            try:
                seq, msg = p.parse_line(line)
            except p.ProtocolError as err:
                self.bad_lines += 1
                self._send(p.Nak(err.seq, err.reason))
                return
            self.received.append(msg)
            match msg:
                case p.HelloQuery():
                    self._hello()
                case p.StateQuery():
                    self._send(p.State(tuple(self.zones)))
                case p.Ping() | p.Beep():
                    self._send(p.Ack(seq))
                case p.Led(zone, mode):
                    self.leds[zone] = mode
                    self._send(p.Ack(seq))
                case p.Rescan():
                    self._send(p.Ack(seq))
                    self._send(p.State(tuple(self.zones)))
                case _:
                    self._send(p.Nak(seq, "UNKNOWN"))

    def _hb_loop(self) -> None:
        assert self.heartbeat is not None
        while not self._stop.wait(self.heartbeat):
            with self._lock:
                uptime = self.uptime_ms()
                self._send(p.Heartbeat(uptime, uptime // 10, self.bad_lines, (100, 100, 100, 100)))
