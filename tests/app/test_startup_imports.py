"""What ``tablepi run`` loads at start: nothing a table with controls off, or its layout, does not need."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.waits import journal_count, wait_until

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
        def started() -> bool:
            assert proc.poll() is None, "tablepi run stopped early"
            return journal_count(journal) >= 4

        wait_until(started, "tablepi run to start (first frame drawn, readers online)", 90)
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=10)
    loaded = {line.split("|")[-1].strip() for line in err.splitlines() if line.startswith("import time:")}
    assert "pygame" in loaded and "tablepi.display.render" in loaded
    bad = sorted(m for m in loaded if any(m == n or m.startswith(n + ".") for n in NOT_NEEDED))
    assert bad == []
