"""What ``tablepi run`` loads at start: nothing a table with controls off, or its layout, does not need."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

#: Never loaded by a table on simulated readers with ``[controls] enabled = false``.
NOT_NEEDED = (
    "gpiozero",  # controls are off
    "tablepi.controls.controls",
    "pkg_resources",  # pygame (not -ce) imported it at start: ~110 ms
    "serial",  # the sim backend needs no pyserial
    "smartcard",
    "tablepi.emulator",
    "tablepi.table.simulate",
    "tablepi.app.demo",
    "tablepi.display.video",  # headless: no video driver is chosen
)


def _events(path: Path) -> int:
    try:
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
            return int(db.execute("SELECT COUNT(*) FROM events").fetchone()[0])
    except sqlite3.Error:
        return 0


@pytest.mark.slow
def test_run_with_controls_off_imports_only_what_it_needs(tmp_path: Path) -> None:
    journal = tmp_path / "journal.sqlite3"
    config = tmp_path / "t.toml"
    config.write_text(f'[table]\njournal = "{journal}"\ndecks = []\n[readers]\nbackend = "sim"\n'
                      "[readers.options]\n[controls]\nenabled = false\n", encoding="utf-8")
    env = dict(os.environ, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy")
    env.pop("GPIOZERO_PIN_FACTORY", None)
    proc = subprocess.Popen([sys.executable, "-X", "importtime", "-m", "tablepi", "run", "--headless",
                             "--log-level", "WARNING", "--config", str(config)],
                            env=env, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 30
        while _events(journal) < 4:  # first frame drawn, readers online
            assert proc.poll() is None, "tablepi run stopped early"
            assert time.monotonic() < deadline, "tablepi run did not start within 30 s"
            time.sleep(0.02)
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=10)
    loaded = {line.split("|")[-1].strip() for line in err.splitlines() if line.startswith("import time:")}
    assert "pygame" in loaded and "tablepi.display.render" in loaded
    bad = sorted(m for m in loaded if any(m == n or m.startswith(n + ".") for n in NOT_NEEDED))
    assert bad == []
