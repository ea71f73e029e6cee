"""Benchmark of the whole program: startup, idle CPU and memory (issue: under 80 MB RSS, near-zero idle CPU).

Run: ``.venv/bin/python bench/bench_app.py``. It measures real processes, as the Pi would run them:

- ``tablepi run --headless`` on simulated readers with nobody playing: time from the process start until its first
  frame is drawn and its readers' first events are journaled (an upper bound of "startup to first frame"), then
  its CPU use over an idle stretch, and its peak RSS;
- ``tablepi demo --headless``: a whole match at full speed, its wall time and peak RSS.

A placed card through the app's loop to its frame is ``bench/bench_loop.py``.

``--before REV`` also builds a virtualenv of that older revision (``git archive``; pip resolves its own
dependencies, so a revision that asked for ``pygame`` gets the pygame wheel), and one of the working tree installed
the same way (not editable, as the Pi installs it), and times the start-ups in the same run, interleaved, ``--runs``
times each: the figures and their ratio compare the two revisions *with their own
display stacks*, on this machine, headless (``SDL_VIDEODRIVER=dummy``; no KMS here).
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

IDLE_SECONDS = 10.0
TICKS = os.sysconf("SC_CLK_TCK")


def journal_events(path: Path) -> int:
    if not path.exists():
        return 0
    try:
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
            return int(db.execute("SELECT COUNT(*) FROM events").fetchone()[0])
    except sqlite3.Error:
        return 0


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS  # utime + stime


def peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def env() -> dict[str, str]:
    return dict(os.environ, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy", PYGAME_HIDE_SUPPORT_PROMPT="1")


def start_once(scratch: Path, python: str, tag: str) -> tuple[float, float]:
    """One ``tablepi run --headless`` start: (seconds to first frame and readers online, peak RSS in MB)."""
    config = scratch / f"{tag}.toml"
    journal = scratch / f"{tag}-journal.sqlite3"
    config.write_text(
        f'[table]\njournal = "{journal}"\ndecks = []\n[readers]\nbackend = "sim"\n[readers.options]\n'
        "[controls]\nenabled = false\n",
        encoding="utf-8",
    )
    start = time.monotonic()
    proc = subprocess.Popen(
        [python, "-m", "tablepi", "run", "--headless", "--log-level", "WARNING", "--config", str(config)],
        env=env(), cwd=scratch,
    )
    try:
        while journal_events(journal) < 4:
            if proc.poll() is not None:
                raise SystemExit(f"tablepi run stopped early with exit code {proc.returncode}")
            time.sleep(0.005)
        first_frame = time.monotonic() - start
        time.sleep(0.3)
        rss = peak_rss_mb(proc.pid)
    finally:
        proc.terminate()
        proc.wait(10)
    return first_frame, rss


def spread(values: list[float], unit: str, scale: float = 1.0) -> str:
    v = [x * scale for x in values]
    return f"min {min(v):.0f} / median {statistics.median(v):.0f} / max {max(v):.0f} {unit}"


def installed(rev: str | None, scratch: Path) -> str:
    """A virtualenv with revision ``rev`` of this checkout (``None``: the working tree as it is, uncommitted changes
    too) installed from a clean copy as the Pi installs it (not editable: an editable install's import hook alone
    costs this machine 150-200 ms per start); its python."""
    name = rev or "checkout"
    src, venv = scratch / f"src-{name}", scratch / f"venv-{name}"
    src.mkdir()
    root = Path(__file__).resolve().parents[1]
    if rev is None:
        files = subprocess.run(["git", "-C", str(root), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                               check=True, capture_output=True).stdout
        archive = subprocess.run(["tar", "-c", "-C", str(root), "--null", "--ignore-failed-read", "-T", "-"],
                                 input=files, check=True, capture_output=True).stdout
    else:
        archive = subprocess.run(["git", "-C", str(root), "archive", rev], check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(src)], input=archive, check=True)
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    subprocess.run([str(venv / "bin/python"), "-m", "pip", "install", "-q", "--disable-pip-version-check", str(src)],
                   check=True)
    return str(venv / "bin/python")


def bench_start(scratch: Path, runs: int, before: list[str]) -> None:
    pythons: dict[str, str] = {}
    for rev in before:
        print(f"building a virtualenv of {rev} (its own pyproject.toml decides pygame or pygame-ce)...")
        pythons[f"revision {rev}"] = installed(rev, scratch)
    if before:
        print("building a virtualenv of this checkout, installed the same way...")
        pythons["this checkout"] = installed(None, scratch)
    else:
        pythons["this checkout"] = sys.executable
    results: dict[str, tuple[list[float], list[float]]] = {name: ([], []) for name in pythons}
    for i in range(runs):
        for name, python in pythons.items():
            t, rss = start_once(scratch, python, f"run{i}-{len(results[name][0])}-{abs(hash(name))}")
            results[name][0].append(t)
            results[name][1].append(rss)
    for name, python in pythons.items():
        stack = subprocess.run([python, "-c", "import importlib.metadata as m\nfor d in ('pygame', 'pygame-ce'):\n"
                                "  try: print(d, m.version(d))\n  except m.PackageNotFoundError: pass"],
                               capture_output=True, text=True).stdout.split()
        times, rss = results[name]
        print(f"tablepi run, {name} [{' '.join(stack)}], {runs} runs: start to first frame and readers online "
              f"{spread(times, 'ms', 1000)}; peak RSS {spread(rss, 'MB')}")
    if before:
        t0, r0 = (statistics.median(v) for v in results[f"revision {before[0]}"])
        for name, (times, rss) in results.items():
            print(f"{name} / revision {before[0]} (medians): start {statistics.median(times) / t0:.2f}x, "
                  f"peak RSS {statistics.median(rss) / r0:.2f}x")


def bench_idle(scratch: Path) -> None:
    config = scratch / "idle.toml"
    journal = scratch / "idle-journal.sqlite3"
    config.write_text(
        f'[table]\njournal = "{journal}"\ndecks = []\n[readers]\nbackend = "sim"\n[readers.options]\n'
        "[controls]\nenabled = false\n",
        encoding="utf-8",
    )
    proc = subprocess.Popen(
        [sys.executable, "-m", "tablepi", "run", "--headless", "--log-level", "WARNING", "--config", str(config)],
        env=env(),
    )
    try:
        while journal_events(journal) < 4:
            if proc.poll() is not None:
                raise SystemExit(f"tablepi run stopped early with exit code {proc.returncode}")
            time.sleep(0.005)
        time.sleep(1.0)  # let start-up work settle
        cpu0, t0 = cpu_seconds(proc.pid), time.monotonic()
        time.sleep(IDLE_SECONDS)
        cpu1, t1 = cpu_seconds(proc.pid), time.monotonic()
    finally:
        proc.terminate()
        proc.wait(10)
    print(f"tablepi run: idle CPU over {IDLE_SECONDS:.0f} s: {100 * (cpu1 - cpu0) / (t1 - t0):.2f} % of one core")


def bench_demo(scratch: Path) -> None:
    start = time.monotonic()
    proc = subprocess.Popen(
        [sys.executable, "-m", "tablepi", "demo", "--headless", "--out", str(scratch / "frames")],
        env=env(), stdout=subprocess.DEVNULL,
    )
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    wall = time.monotonic() - start
    frames = len(list((scratch / "frames").glob("*.png")))
    print(f"tablepi demo --headless: whole match in {wall:.2f} s, {frames} frames, "
          f"peak RSS {usage.ru_maxrss / 1024:.1f} MB (exit {proc.returncode})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", metavar="REV", action="append", default=[],
                        help="also time this older revision, in the same run (repeat for several)")
    parser.add_argument("--runs", type=int, default=5, help="start-ups per revision (default 5)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="tablepi-bench-") as scratch:
        bench_start(Path(scratch), args.runs, args.before)
        bench_idle(Path(scratch))
        bench_demo(Path(scratch))


if __name__ == "__main__":
    main()
