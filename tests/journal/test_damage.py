"""Fault injection: the table starts on every damaged journal, with exactly the intact events.

300 damaged copies of mid-match journals of each kind (cut short, a bad page, flipped bytes, a stale or a foreign
``-wal``, a missing ``-wal``), fixed seed, in-process (tests/journal/damage.py); then a few of each kind through the
real ``tablepi run`` and ``tablepi export``. bench/bench_journal_damage.py runs the same campaign at any size.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import pytest

from tests.journal.damage import KINDS, campaign, damage, make_base, write_files

PER_KIND = 300
ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_300_damaged_journals_of_each_kind_all_start_with_exactly_the_intact_events(tmp_path: Path) -> None:
    shm = Path("/dev/shm")
    with tempfile.TemporaryDirectory(dir=shm if shm.is_dir() and os.access(shm, os.W_OK) else tmp_path) as folder:
        outcomes = campaign(Path(folder), PER_KIND, seed=20261201)  # in RAM: 3,600 fsyncs need not hit a disk
    assert Counter(o.kind for o in outcomes) == {kind: PER_KIND for kind in KINDS}
    failed = [o for o in outcomes if not o.started]
    assert not failed, failed[:5]  # no traceback, no refusal: the table started on every one
    wrong = [o for o in outcomes if not o.exact]
    assert not wrong, wrong[:5]  # nothing invented, reordered or changed: a prefix of the original
    short = [o for o in outcomes if o.recovered < o.expected]
    assert not short, short[:5]  # with one file damaged every event; with two, the copy's intact prefix
    single = [o for o in outcomes if o.complete_expected]
    assert len(single) > 0.9 * len(outcomes)
    assert all(o.recovered == o.expected for o in single)


def _tablepi(*args: str, **kw: object) -> subprocess.Popen[str]:
    env = dict(os.environ, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy", PYTHONPATH=str(ROOT))
    return subprocess.Popen([sys.executable, "-m", "tablepi", *args], env=env, text=True, **kw)  # type: ignore[call-overload]


@pytest.mark.slow
def test_damaged_journals_through_the_real_export_replay_and_run(tmp_path: Path) -> None:
    rng = random.Random(7)
    base = make_base(tmp_path / "base", 3, 90)
    other = make_base(tmp_path / "other", 4, 50)
    for kind in KINDS:
        files, target, expected = damage(base, other, kind, rng)
        folder = tmp_path / kind
        path = write_files(folder, files)
        # export first: it only reads, so the table below still finds the damage
        out = folder / "out.jsonl"
        export = _tablepi("export", "--journal", str(path), str(out), stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE)
        _, err = export.communicate(timeout=60)
        assert "Traceback" not in err and export.returncode in (0, 1), err
        exported = out.read_text().splitlines()
        assert len(exported) - 1 >= expected, (kind, target, err)
        replay = _tablepi("replay", str(path), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        shown, err = replay.communicate(timeout=60)
        assert replay.returncode == 0 and "Traceback" not in err and "Match 1" in shown, (kind, err)
        config = folder / "t.toml"
        config.write_text(f'[table]\njournal = "{path}"\ndecks = []\ncontrol = "{folder / "c.sock"}"\n'
                          '[readers]\nbackend = "sim"\n[controls]\nenabled = false\n', encoding="utf-8")
        run = _tablepi("run", "--headless", "--config", str(config), stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE)
        assert run.stderr is not None
        seen = ""
        deadline = time.monotonic() + 60
        while "table running" not in seen and time.monotonic() < deadline:
            line = run.stderr.readline()
            if not line:
                break
            seen += line
        run.send_signal(signal.SIGTERM)
        rest = run.stderr.read()
        run.wait(timeout=30)
        log = seen + rest
        assert run.returncode == 0 and "Traceback" not in log, (kind, log)
        replayed = int(log.split(" events replayed")[0].rsplit(" ", 1)[-1])
        assert replayed >= expected, (kind, target, log)
        if "recovered after damage" in log:  # the damaged files are kept, with a note
            assert list((folder / "quarantine").glob("*/NOTE.txt")), kind
