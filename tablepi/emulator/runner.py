"""Run the real firmware sources against four emulated MFRC522 and speak the line protocol on a pty.

This is the board without the board: firmware/app.py, scanner.py, link.py and mfrc522.py run unchanged in
a thread of this process, the emulated chips sleep the air time of each command (so the scan loop runs at
about the Pico's pace and not at 100 % CPU), and the protocol goes out through a file descriptor — the
master side of a pseudo-terminal whose slave path the serial reader backend opens like /dev/ttyACM0.
Tags are laid and lifted with :meth:`FirmwareRunner.place` / :meth:`lift`; readers fail with :meth:`fail`.

    with FirmwareRunner.on_pty() as board:
        print(board.path)            # give this to the serial backend: port=board.path
        board.place(2, Ntag213("04A1B2C3D4E5F6"))

As a program (``python -m tablepi.emulator.runner``) it prints the pty path and takes commands on stdin:
``place ZONE UID``, ``lift ZONE [UID]``, ``fail ZONE absent|version|hung``, ``repair ZONE``, ``glitch ZONE``,
``quit``.

A firmware exception is handled like the Pico's watchdog would: logged, counted in ``resets``, and the
firmware starts afresh (HELLO with sequence 0 again).
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import sys
import threading
import time
import tty
from pathlib import Path
from types import SimpleNamespace, TracebackType
from typing import Self

from tablepi.emulator.board import EmulatedBoard, WallClock
from tablepi.emulator.firmware import load_firmware
from tablepi.emulator.tags import Iso14443aTag, Ntag213
from tablepi.errors import ConfigError, ParseError

log = logging.getLogger(__name__)


class FdPort:
    """The firmware's serial port on a file descriptor: non-blocking reads, writes that never block.

    Like USB CDC with no host listening, a line that cannot be written at once is dropped (and counted):
    the firmware must never stall because nobody reads.
    """

    def __init__(self, fd: int) -> None:
        self.fd = fd
        os.set_blocking(fd, False)
        self.dropped_lines = 0

    def readinto(self, buf: bytearray) -> int:
        try:
            data = os.read(self.fd, len(buf))
        except BlockingIOError:
            return 0
        except OSError as err:
            if err.errno == errno.EIO:  # pty with nobody on the other side
                return 0
            raise
        buf[: len(data)] = data
        return len(data)

    def write(self, data: bytes) -> None:
        try:
            written = os.write(self.fd, data)
        except (BlockingIOError, OSError) as err:
            if isinstance(err, BlockingIOError) or err.errno == errno.EIO:
                self.dropped_lines += 1
                return
            raise
        if written != len(data):
            self.dropped_lines += 1  # a partial line: the host's CRC check drops it


def _config(fw: SimpleNamespace, overrides: dict[str, object]) -> SimpleNamespace:
    cfg = SimpleNamespace(**{k: getattr(fw.config, k) for k in dir(fw.config) if k.isupper()})
    for key, value in overrides.items():
        if not hasattr(cfg, key):
            raise ConfigError(f"firmware config has no setting {key!r}")
        setattr(cfg, key, value)
    return cfg


class FirmwareRunner:
    """The firmware on an emulated board, talking on ``fd``. ``config`` overrides firmware/config.py."""

    def __init__(
        self,
        fd: int,
        *,
        firmware_dir: Path | str | None = None,
        config: dict[str, object] | None = None,
    ) -> None:
        self.fw = load_firmware(firmware_dir)
        self.cfg = _config(self.fw, config or {})
        self.clock = WallClock()
        self.board = EmulatedBoard(self.clock, zones=self.cfg.ZONES, realtime=True)
        self.port = FdPort(fd)
        self.path: str | None = None
        self.resets = 0
        self._own_fds: list[int] = []
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._closed = False
        self.app = self._new_app()

    @classmethod
    def on_pty(cls, **kwargs: object) -> FirmwareRunner:
        """A runner on a new pseudo-terminal; ``path`` is the slave side for the host to open."""
        master, slave = os.openpty()
        tty.setraw(slave)  # no echo, no newline translation before the host configures the port
        runner = cls(master, **kwargs)  # type: ignore[arg-type]
        runner.path = os.ttyname(slave)
        runner._own_fds = [master, slave]  # the slave stays open so the master never sees EIO
        return runner

    def _new_app(self) -> object:
        b = self.board
        return self.fw.app.App(self.cfg, b.bus, b.cs_pins, b.led_pins, b.buzzer, self.port, self.clock, b.wdt)

    # --- the physical world ---------------------------------------------------------------------------
    def place(self, zone: int, tag: Iso14443aTag | str) -> Iso14443aTag:
        """Lay a tag (or a new NTAG213 with this UID) on a zone; returns the tag."""
        if isinstance(tag, str):
            tag = Ntag213(tag) if len(tag) == 14 else Iso14443aTag(tag)
        self._chip(zone).place(tag)
        return tag

    def lift(self, zone: int, tag: Iso14443aTag | str | None = None) -> None:
        """Take a tag (by object or UID) or every tag off a zone."""
        chip = self._chip(zone)
        if isinstance(tag, str):
            matches = [t for t in chip.tags if t.uid_hex == tag.upper()]
            if not matches:
                raise ParseError(f"no tag {tag} lies on zone {zone}")
            tag = matches[0]
        chip.lift(tag)

    def fail(self, zone: int, mode: str, version: int = 0x00) -> None:
        self._chip(zone).fail(mode, version)

    def repair(self, zone: int) -> None:
        self._chip(zone).repair()

    def glitch(self, zone: int) -> None:
        self._chip(zone).power_glitch()

    def _chip(self, zone: int):  # type: ignore[no-untyped-def]
        if not isinstance(zone, int) or not 0 <= zone < len(self.board.chips):
            raise ParseError(f"no zone {zone!r} (zones are 0..{len(self.board.chips) - 1})")
        return self.board.chips[zone]

    # --- running --------------------------------------------------------------------------------------
    def own_time(self) -> float:
        """Seconds of the firmware's own time so far: its thread's CPU time, the air time the chips slept and
        the waits it asked for. Time spent waiting for a CPU (a loaded machine) is not in it, so a scan rate
        over it depends on the firmware and the emulator, not on what else this computer runs."""
        thread = self._thread
        if thread is None or thread.ident is None:
            return 0.0
        cpu = time.clock_gettime(time.pthread_getcpuclockid(thread.ident))
        return cpu + self.board.air_time_us / 1e6 + self.clock.slept_ms / 1000

    def start(self) -> Self:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="firmware", daemon=True)
            self._thread.start()
        return self

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self.app.start()  # type: ignore[attr-defined]
                while not self._stop.is_set():
                    self.app.step()  # type: ignore[attr-defined]
            except Exception:
                if self._stop.is_set():
                    return
                log.exception("firmware crashed; restarting it as the watchdog would")
                self.resets += 1
                self._stop.wait(self.cfg.WDT_MS / 1000)
                self.app = self._new_app()

    def close(self) -> None:
        """Stop the firmware thread and close the pty; safe to call twice."""
        if self._closed:
            return
        self._closed = True
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        for fd in self._own_fds:
            with contextlib.suppress(OSError):
                os.close(fd)
        self._own_fds = []

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


def _command(runner: FirmwareRunner, line: str) -> bool:
    """One stdin command of the program; False to quit."""
    words = line.split()
    if not words:
        return True
    verb, args = words[0].lower(), words[1:]
    if verb in ("quit", "exit"):
        return False
    try:
        zone = int(args[0])
        if verb == "place" and len(args) == 2:
            runner.place(zone, args[1])
        elif verb == "lift" and len(args) in (1, 2):
            runner.lift(zone, args[1] if len(args) == 2 else None)
        elif verb == "fail" and len(args) == 2:
            runner.fail(zone, args[1])
        elif verb == "repair" and len(args) == 1:
            runner.repair(zone)
        elif verb == "glitch" and len(args) == 1:
            runner.glitch(zone)
        else:
            raise ParseError(f"unknown command: {line.strip()!r}")
    except (IndexError, ValueError) as err:
        print(f"? {err or 'expected: place Z UID | lift Z [UID] | fail Z MODE | repair Z | glitch Z'}")
    return True


def main(argv: list[str] | None = None) -> int:
    """Print the pty path, then obey commands on stdin until EOF or ``quit``."""
    logging.basicConfig(level=logging.INFO)
    with FirmwareRunner.on_pty() as runner:
        print(runner.path, flush=True)
        for line in sys.stdin:
            if not _command(runner, line):
                break
    return 0


if __name__ == "__main__":
    sys.exit(main())
