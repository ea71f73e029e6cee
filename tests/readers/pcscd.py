"""A real pcscd with the vpcd virtual reader driver: four reader slots for the pcsc backend tests.

Two reader.conf entries give four slots (vpcd has two per entry, TCP 35963 + slot); the second entry loads a
copy of the driver because the driver keeps its sockets in a global array.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
from pathlib import Path

import pytest

from tests.waits import wait_until

DRIVER_DIRS = ("/usr/lib/pcsc/drivers/serial", "/usr/lib64/pcsc/drivers/serial", "/usr/local/lib/pcsc/drivers/serial")
SOCKET = Path("/run/pcscd/pcscd.comm")
#: Reader names pcscd gives the four slots, in slot order (slot n listens on TCP 35963 + n).
SLOT_READERS = ("tablepi zones A 00 00", "tablepi zones A 00 01", "tablepi zones B 00 00", "tablepi zones B 00 01")


def missing(what: str) -> None:
    """Fail in CI (a missing part must not pass silently there), skip on a developer's machine."""
    if os.environ.get("CI") == "true":
        pytest.fail(f"pcsc tests need {what}", pytrace=False)
    pytest.skip(f"pcsc tests need {what}")


def _running_pcscd() -> int | None:
    """The pid of a live pcscd named in its pid file (a stale file or a reused pid does not count)."""
    pid_file = Path("/run/pcscd/pcscd.pid")
    try:
        pid = int(pid_file.read_text().split()[0])
        comm = Path(f"/proc/{pid}/comm").read_text().strip()
    except (OSError, ValueError, IndexError):
        return None
    return pid if comm == "pcscd" else None


class Pcscd:
    """pcscd in the foreground on our own reader.conf.d; :meth:`stop` / :meth:`start` simulate a daemon crash."""

    def __init__(self, directory: Path) -> None:
        exe = shutil.which("pcscd") or next((p for p in ("/usr/sbin/pcscd",) if os.path.exists(p)), None)
        if exe is None:
            missing("pcscd (apt install pcscd)")
        driver = next((Path(d) / "libifdvpcd.so" for d in DRIVER_DIRS if (Path(d) / "libifdvpcd.so").exists()), None)
        if driver is None:
            missing("the vpcd driver (apt install vsmartcard-vpcd)")
        self.exe = str(exe)
        conf = directory / "reader.conf.d"
        conf.mkdir(parents=True, exist_ok=True)
        copy = directory / "libifdvpcd-second.so"
        shutil.copy(driver, copy)
        (conf / "tablepi-vpcd").write_text(
            f'FRIENDLYNAME "tablepi zones A"\nDEVICENAME /dev/null:0x8C7B\nLIBPATH {driver}\nCHANNELID 0x8C7B\n\n'
            f'FRIENDLYNAME "tablepi zones B"\nDEVICENAME /dev/null:0x8C7D\nLIBPATH {copy}\nCHANNELID 0x8C7D\n'
        )
        self.conf = conf
        self.proc: subprocess.Popen[bytes] | None = None
        self.log = directory / "pcscd.log"
        self._stop_system_pcscd()

    @staticmethod
    def _stop_system_pcscd() -> None:
        if shutil.which("systemctl"):
            subprocess.run(
                ["systemctl", "stop", "pcscd.socket", "pcscd.service"], capture_output=True, check=False, timeout=20
            )
        pid = _running_pcscd()
        if pid is not None:
            pytest.fail(
                f"another pcscd (pid {pid}) is running (a system one, or another test run's); the pcsc tests "
                "start their own and need the PC/SC socket and the vpcd ports to themselves",
                pytrace=False,
            )

    def start(self) -> None:
        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen([self.exe, "--foreground", "-c", str(self.conf)], stdout=log, stderr=log)
        proc = self.proc

        def started() -> bool:
            if proc.poll() is not None:
                pytest.fail(f"pcscd stopped; log:\n{self.log.read_text()[-2000:]}", pytrace=False)
            return SOCKET.exists() and _vpcd_listening()

        wait_until(started, lambda: f"pcscd to start; log:\n{self.log.read_text()[-2000:]}")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        self.proc = None
        with contextlib.suppress(AssertionError):  # (a pcscd killed leaves it behind)
            wait_until(lambda: not SOCKET.exists(), f"pcscd to remove {SOCKET}", 5)


def _vpcd_listening() -> bool:
    """True once vpcd listens on all four ports (read from /proc: a probe connection would be taken for a card)."""
    wanted = {f"{35963 + slot:04X}" for slot in range(4)}
    found: set[str] = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            if len(fields) > 3 and fields[3] == "0A":  # LISTEN
                found.add(fields[1].rsplit(":", 1)[1])
    return wanted <= found
