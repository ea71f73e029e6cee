"""One QEMU guest for the appliance test: a qcow2 overlay on the cached system, a KMS screen (virtio-gpu), a USB
tablet (the touch screen), a USB serial adapter wired to the firmware emulator on this side, the guest agent
(commands inside the guest), QMP (screen, touch, plugging, the power) and the serial console (a file).

Every wait is bounded and says what it waited for when it gives up (:class:`GuestError`).
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import random
import shutil
import socket
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from tests.waits import wait_until

T = TypeVar("T")

#: The screen QEMU gives the guest (virtio-gpu's mode): the Pi's 7" panel.
SCREEN = (800, 480)
#: QMP's absolute pointer range (both axes).
ABS_MAX = 0x7FFF


def _die_with_parent() -> None:
    """In QEMU's process before it starts: the kernel kills it when the test that started it dies (a test killed
    hard would otherwise leave a guest running on the machine, as one did for 13 minutes)."""
    import ctypes
    import signal

    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


class GuestError(AssertionError):
    """What the guest did not do, in words (an assertion: the appliance test failed there)."""


def wait_for(what: str, check: Callable[[], T | None], timeout: float, every: float = 1.0) -> T:
    """``check()`` until it returns something true (an error talking to the guest counts as "not yet");
    :class:`GuestError` naming ``what`` after ``timeout`` s."""
    return wait_until(check, what, timeout, every, ignore=(OSError, GuestError, ValueError), error=GuestError)


class Qmp:
    """The QEMU machine protocol on a unix socket: one command at a time, events skipped."""

    def __init__(self, path: Path, timeout: float = 30.0) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(timeout)
        self.sock.connect(str(path))
        self.file = self.sock.makefile("rwb", buffering=0)
        self._line()  # the greeting
        self.execute("qmp_capabilities")

    def _line(self) -> dict[str, Any]:
        line = self.file.readline()
        if not line:
            raise GuestError("QMP closed the connection (QEMU exited?)")
        return dict(json.loads(line))

    def execute(self, command: str, **arguments: Any) -> Any:
        request: dict[str, Any] = {"execute": command}
        if arguments:
            request["arguments"] = arguments
        self.file.write(json.dumps(request).encode() + b"\n")
        while True:
            answer = self._line()
            if "event" in answer:
                continue
            if "error" in answer:
                raise GuestError(f"QMP {command} failed: {answer['error'].get('desc')}")
            return answer.get("return")

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.sock.close()


class Agent:
    """The QEMU guest agent (qemu-guest-agent in the guest) on a unix socket: run commands, read their output."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.sock: socket.socket | None = None
        self.buf = b""

    def _connect(self) -> socket.socket:
        if self.sock is None:
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            sock.connect(str(self.path))
            self.sock = sock
            self.buf = b""
        return self.sock

    def reset(self) -> None:
        if self.sock is not None:
            with contextlib.suppress(OSError):
                self.sock.close()
        self.sock = None

    def _read_json(self, timeout: float) -> dict[str, Any]:
        sock = self._connect()
        deadline = time.monotonic() + timeout
        while b"\n" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no answer from the guest agent")
            sock.settimeout(left)
            data = sock.recv(65536)
            if not data:
                self.reset()
                raise ConnectionError("the guest agent's socket closed")
            self.buf += data
        line, _, self.buf = self.buf.partition(b"\n")
        line = line.lstrip(b"\xff").strip()
        return dict(json.loads(line)) if line else {}

    def sync(self, timeout: float = 5.0) -> bool:
        """Resynchronise after a (re)boot: the agent answers our own id, older answers are dropped."""
        token = random.randrange(1, 2**31)
        sock = self._connect()
        sock.sendall(b"\xff" + json.dumps({"execute": "guest-sync-delimited", "arguments": {"id": token}}).encode()
                     + b"\n")
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            answer = self._read_json(deadline - time.monotonic())
            if answer.get("return") == token:
                return True
        return False

    def call(self, command: str, timeout: float = 30.0, **arguments: Any) -> Any:
        request: dict[str, Any] = {"execute": command}
        if arguments:
            request["arguments"] = arguments
        self._connect().sendall(json.dumps(request).encode() + b"\n")
        answer = self._read_json(timeout)
        if "error" in answer:
            raise GuestError(f"guest agent {command}: {answer['error'].get('desc')}")
        return answer.get("return")


@dataclass
class Result:
    rc: int
    out: str
    err: str

    def __str__(self) -> str:
        return f"exit {self.rc}\n--- stdout\n{self.out[-4000:]}\n--- stderr\n{self.err[-4000:]}"


class Guest:
    """The machine: boot, run commands, look at the screen, touch it, plug the reader, pull the power."""

    def __init__(self, arch: str, base: Path, share: Path, run: Path, reader_pty: str, console: Path) -> None:
        self.arch = arch
        self.base = base
        self.share = share
        self.run = run
        self.reader_pty = reader_pty
        self.console = console
        self.disk = run / "disk.qcow2"
        self.proc: subprocess.Popen[bytes] | None = None
        self.qmp: Qmp | None = None
        self.agent: Agent | None = None
        self.boots = 0

    # --- power ------------------------------------------------------------------------------------------------

    def command(self) -> list[str]:
        kernel, initrd = self.base / "vmlinuz", self.base / "initrd.img"
        common = [
            "-accel", "tcg,thread=multi", "-smp", "2", "-m", "1536", "-nodefaults", "-no-user-config",
            "-display", "none", "-nic", "none",
            "-kernel", str(kernel), "-initrd", str(initrd),
            "-drive", f"file={self.disk},if=none,id=root,format=qcow2,cache=unsafe",
            "-device", "virtio-blk-pci,drive=root",
            "-device", f"virtio-gpu-pci,xres={SCREEN[0]},yres={SCREEN[1]}",
            "-device", "qemu-xhci,id=xhci",
            "-device", "usb-tablet,bus=xhci.0",
            "-chardev", f"serial,id=reader,path={self.reader_pty}",
            "-device", "usb-serial,chardev=reader,id=reader0,bus=xhci.0",
            "-device", "virtio-serial-pci",
            "-chardev", f"socket,id=qga,path={self.run / 'qga.sock'},server=on,wait=off",
            "-device", "virtserialport,chardev=qga,name=org.qemu.guest_agent.0",
            "-fsdev", f"local,id=share,path={self.share},security_model=none,readonly=on",
            "-device", "virtio-9p-pci,fsdev=share,mount_tag=share",
            "-qmp", f"unix:{self.run / 'qmp.sock'},server=on,wait=off",
            "-chardev", f"file,id=console,path={self.console},append=on",
        ]
        if self.arch == "arm64":
            return ["qemu-system-aarch64", "-M", "virt", "-cpu", "cortex-a72", *common,
                    "-serial", "chardev:console",
                    "-append", "root=/dev/vda rw console=ttyAMA0 net.ifnames=0 systemd.show_status=false"]
        # no_timer_check: the kernel's check that the IO-APIC timer ticks fails when software emulation is starved
        # by a busy host ("IO-APIC + timer doesn't work!", a panic at 0.06 s, seen at load 25 on 2 cores).
        return ["qemu-system-x86_64", "-M", "q35", "-cpu", "max", *common, "-serial", "chardev:console",
                "-append", "root=/dev/vda rw console=ttyS0 net.ifnames=0 systemd.show_status=false no_timer_check"]

    def power_on(self, timeout: float = 300.0) -> float:
        """Start QEMU and wait until the guest agent answers; the seconds that took."""
        if not self.disk.exists():
            subprocess.run(["qemu-img", "create", "-q", "-f", "qcow2", "-b", str(self.base / "base.raw"),
                            "-F", "raw", str(self.disk)], check=True, timeout=60)
        for name in ("qmp.sock", "qga.sock"):
            with contextlib.suppress(FileNotFoundError):
                (self.run / name).unlink()
        started = time.monotonic()
        log = (self.run / "qemu.log").open("ab")
        self.proc = subprocess.Popen(self.command(), stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                                     preexec_fn=_die_with_parent)
        self.boots += 1
        self.qmp = wait_for("QEMU's QMP socket", self._connect_qmp, 30, every=0.2)
        self.agent = Agent(self.run / "qga.sock")
        self.wait_agent(timeout)
        return time.monotonic() - started

    def _connect_qmp(self) -> Qmp | None:
        self._check_alive()
        if not (self.run / "qmp.sock").exists():
            return None
        return Qmp(self.run / "qmp.sock")

    def _check_alive(self) -> None:
        if self.proc is not None and self.proc.poll() is not None:
            raise GuestError(f"QEMU exited ({self.proc.returncode}): "
                             f"{(self.run / 'qemu.log').read_text(errors='replace')[-2000:]}")

    def wait_agent(self, timeout: float) -> None:
        agent = self.agent
        assert agent is not None

        def answers() -> bool:
            self._check_alive()
            try:
                return agent.sync(5.0)
            except (OSError, ValueError):
                agent.reset()
                return False

        wait_for("the guest to boot (its agent to answer)", answers, timeout, every=2.0)

    def pull_the_power(self) -> None:
        """QMP ``quit``: QEMU stops at once, the guest is not told (as pulling the plug)."""
        assert self.qmp is not None
        with contextlib.suppress(GuestError, OSError):
            self.qmp.execute("quit")
        self._reap(30)

    def reboot(self, timeout: float = 300.0) -> float:
        """``systemctl reboot`` inside; waits for the new boot's agent (a different boot id)."""
        old = self.sh("cat /proc/sys/kernel/random/boot_id").out.strip()
        started = time.monotonic()
        assert self.agent is not None
        # Started, not awaited: the reboot stops the agent, often before it could report the command's exit (the
        # status call then times out). The new boot id below is the proof that it rebooted.
        with contextlib.suppress(OSError, GuestError):
            self.agent.call("guest-exec", path="/bin/systemctl", arg=["--no-block", "reboot"])
        self.agent.reset()

        def new_boot() -> bool:
            self._check_alive()
            try:
                if not self.agent or not self.agent.sync(5.0):
                    return False
                return self.sh("cat /proc/sys/kernel/random/boot_id", timeout=20).out.strip() != old
            except (OSError, ValueError, GuestError):
                if self.agent:
                    self.agent.reset()
                return False

        wait_for("the guest to come back after a reboot", new_boot, timeout, every=3.0)
        return time.monotonic() - started

    def stop(self) -> None:
        """Power off (never leave QEMU running): quit through QMP, else kill."""
        if self.proc is None:
            return
        if self.proc.poll() is None and self.qmp is not None:
            with contextlib.suppress(GuestError, OSError):
                self.qmp.execute("quit")
        self._reap(15)

    def _reap(self, timeout: float) -> None:
        if self.qmp is not None:
            self.qmp.close()
        if self.agent is not None:
            self.agent.reset()
        self.qmp = self.agent = None
        if self.proc is None:
            return
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(15)
        self.proc = None

    # --- inside the guest -------------------------------------------------------------------------------------

    def sh(self, script: str, timeout: float = 120.0, check: bool = True) -> Result:
        """Run ``script`` with /bin/sh as root in the guest; its exit code and output."""
        agent = self.agent
        if agent is None:
            raise GuestError("the guest is not running")
        pid = agent.call("guest-exec", path="/bin/sh", arg=["-c", script], **{"capture-output": True})["pid"]
        status = wait_until(lambda: (answer := agent.call("guest-exec-status", pid=pid)).get("exited") and answer,
                            f"{script!r} to finish in the guest", timeout, every=0.5, error=GuestError)
        result = Result(int(status.get("exitcode", -1)), _b64(status.get("out-data")), _b64(status.get("err-data")))
        if check and result.rc != 0:
            raise GuestError(f"in the guest: {script!r} failed: {result}")
        return result

    def boot_figures(self) -> dict[str, float]:
        """Seconds since the kernel started: the guest's own boot (basic.target: all of the system before the
        services; multi-user.target waits for tablepi, which it wants), tablepi's start and its first frame
        (READY=1 is sent after the first frame is drawn), the service's own share, and the first frame relative
        to the guest's own boot (emulation speed varies with the machine and its load; the ratio less)."""
        def mono(unit: str, prop: str) -> float:
            return int(self.sh(f"systemctl show {unit} -p {prop} --value").out.strip() or 0) / 1e6

        ready = mono("tablepi.service", "ActiveEnterTimestampMonotonic")
        started = mono("tablepi.service", "ExecMainStartTimestampMonotonic")
        boot = mono("basic.target", "ActiveEnterTimestampMonotonic")
        return {"boot_to_basic_target": round(boot, 1), "boot_to_first_frame": round(ready, 1),
                "service_start_to_first_frame": round(ready - started, 1),
                "first_frame_over_boot": round(ready / boot, 2) if boot else 0.0}

    def read(self, path: str) -> bytes:
        """A file of the guest, whole (base64 through the agent)."""
        return base64.b64decode(self.sh(f"base64 -w0 {path}", timeout=60).out)

    # --- screen, touch, reader ------------------------------------------------------------------------------

    def screendump(self, out: Path) -> Path:
        """The guest's screen as QEMU shows it, saved as PPM at ``out``."""
        assert self.qmp is not None
        out.parent.mkdir(parents=True, exist_ok=True)
        self.qmp.execute("screendump", filename=str(out))
        return out

    def touch(self, x: float, y: float, hold: float = 0.15) -> None:
        """A tap at pixel (x, y): the tablet moves there, then presses and, ``hold`` s later, lifts. Press and lift
        go in separate commands: sent together, the USB tablet's next report carries only the final state (the
        button up), and the guest never sees the press."""
        assert self.qmp is not None
        ax = round(x * ABS_MAX / (SCREEN[0] - 1))
        ay = round(y * ABS_MAX / (SCREEN[1] - 1))
        self.qmp.execute("input-send-event", events=[
            {"type": "abs", "data": {"axis": "x", "value": ax}},
            {"type": "abs", "data": {"axis": "y", "value": ay}}])
        time.sleep(0.1)  # the tablet's next report carries the move alone (nothing on the host tells when it went)
        self.qmp.execute("input-send-event", events=[{"type": "btn", "data": {"down": True, "button": "left"}}])
        time.sleep(hold)  # a finger rests this long: the gesture itself
        self.qmp.execute("input-send-event", events=[{"type": "btn", "data": {"down": False, "button": "left"}}])

    def unplug_reader(self) -> None:
        assert self.qmp is not None
        self.qmp.execute("device_del", id="reader0")

    def plug_reader(self) -> None:
        assert self.qmp is not None
        self.qmp.execute("device_add", driver="usb-serial", chardev="reader", id="reader0", bus="xhci.0")


def _b64(data: str | None) -> str:
    return base64.b64decode(data).decode(errors="replace") if data else ""


def read_ppm(path: Path) -> tuple[tuple[int, int], bytes]:
    """(size, RGB bytes) of a binary PPM (P6, maxval 255) as QEMU's screendump writes it."""
    data = path.read_bytes()
    fields: list[bytes] = []
    pos = 0
    while len(fields) < 4:
        while data[pos:pos + 1].isspace():
            pos += 1
        if data[pos:pos + 1] == b"#":
            pos = data.index(b"\n", pos) + 1
            continue
        end = pos
        while not data[end:end + 1].isspace():
            end += 1
        fields.append(data[pos:end])
        pos = end
    if fields[0] != b"P6" or fields[3] != b"255":
        raise ValueError(f"{path}: not a P6 PPM with maxval 255")
    size = (int(fields[1]), int(fields[2]))
    pixels = data[pos + 1:pos + 1 + size[0] * size[1] * 3]
    return size, pixels


def tools_missing(arch: str) -> list[str]:
    qemu = "qemu-system-aarch64" if arch == "arm64" else "qemu-system-x86_64"
    return [tool for tool in (qemu, "qemu-img") if shutil.which(tool) is None]


def environment() -> dict[str, str]:
    """The appliance's settings from scripts/appliance.sh (arch, the cached system, the bundle)."""
    return {key: os.environ.get(f"TABLEPI_APPLIANCE_{key.upper()}", "") for key in ("arch", "base", "bundle", "keep")}
