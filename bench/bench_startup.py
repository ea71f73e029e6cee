"""The service's own share of boot, natively: from ``tablepi run``'s process start to READY=1 (sent after the
first frame is drawn), in CPU seconds and wall seconds, beside a bare Python start in the same run.

In the appliance (tests/appliance, bench/bench_appliance_boot.py) the same span is measured in the guest under
TCG, software emulation, where interpreted Python runs far slower than the guest's kernel and systemd do; this
bench tells what the service itself costs on real hardware. CPU seconds (user + system of the table's process,
read from /proc at READY=1) hardly move with the machine's load; wall seconds do. The review worker, a second
process started at the same time, is reported apart (on a Pi's four cores it runs beside the table).

    python bench/bench_startup.py [--runs 7]

Each run: a fresh journal, the sim reader, SDL's dummy video driver (the frame is drawn into memory: no display
flip, no KMS, no EGL), a notify socket of its own. Leaves out: the display driver's own start (KMS, EGL) and the
first flip, the kernel's page cache (the second run onwards finds the files cached, as a Pi does after its first
boot), and Python compiling the sources (the installed package has its .pyc files, as pip writes them).
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a process so far (/proc/PID/stat fields 14 and 15)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def children_cpu(pid: int) -> float:
    total = 0.0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            total += (int(fields[11]) + int(fields[12])) / TICK
    return total


def environment() -> dict[str, str]:
    env = dict(os.environ, SDL_VIDEODRIVER="dummy", PYTHONPATH=str(ROOT))
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # as installed: the .pyc files are there
    return env


def one_run(work: Path) -> tuple[float, float, float]:
    """(wall seconds to READY=1, the table's CPU seconds by then, its children's CPU seconds by then)."""
    config = work / "tablepi.toml"
    config.write_text(f'[table]\njournal = "{work}/journal.sqlite3"\n[readers]\nbackend = "sim"\n'
                      "[display]\nfullscreen = false\n")
    notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    notify.bind(str(work / "notify"))
    notify.settimeout(300)
    env = environment()
    env["NOTIFY_SOCKET"] = str(work / "notify")
    with (work / "stderr").open("w") as err:
        started = time.monotonic()
        process = subprocess.Popen([sys.executable, "-m", "tablepi", "run", "--config", str(config)], cwd=work,
                                   env=env, stdout=subprocess.DEVNULL, stderr=err)
        try:
            while b"READY=1" not in notify.recv(4096):
                pass
            wall = time.monotonic() - started
            return wall, cpu_seconds(process.pid), children_cpu(process.pid)
        finally:
            process.terminate()
            process.wait(60)
            notify.close()


def bare_python() -> tuple[float, float]:
    """(wall, CPU) of ``python -c pass``: the interpreter's own start, the floor under any Python service."""
    started = time.monotonic()
    before = os.times()
    subprocess.run([sys.executable, "-c", "pass"], env=environment(), check=True)
    after = os.times()
    return time.monotonic() - started, (after.children_user - before.children_user
                                        + after.children_system - before.children_system)


def spread(values: list[float]) -> str:
    return f"{min(values):.2f} / {statistics.median(values):.2f} / {max(values):.2f}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    print(f"load before: {os.getloadavg()[0]:.1f} (1-minute average), {os.cpu_count()} cores")
    walls, cpus, kids, bare_walls, bare_cpus = [], [], [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        for n in range(args.runs):  # interleaved, so both see the same moments of a noisy machine
            work = Path(tmp) / f"run{n}"
            work.mkdir()
            wall, cpu, kid = one_run(work)
            walls.append(wall)
            cpus.append(cpu)
            kids.append(kid)
            bare_wall, bare_cpu = bare_python()
            bare_walls.append(bare_wall)
            bare_cpus.append(bare_cpu)
    print(f"runs: {args.runs}; min / median / max")
    print(f"  tablepi run, start to READY=1 (first frame): wall {spread(walls)} s, CPU {spread(cpus)} s")
    print(f"  its review worker by then (a second process): CPU {spread(kids)} s")
    print(f"  python -c pass: wall {spread(bare_walls)} s, CPU {spread(bare_cpus)} s")
    ratio = statistics.median(cpus) / max(statistics.median(bare_cpus), 1e-3)
    print(f"  the service's CPU to its first frame / a bare interpreter's start: {ratio:.1f}x (medians)")
    print(f"load after: {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
