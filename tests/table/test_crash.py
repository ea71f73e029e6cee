"""Power cuts: a scripted match killed with SIGKILL at 50 random points loses and doubles nothing.

After each kill the journal is read back: it holds exactly the events the process acknowledged (or one more, if
the kill fell between the fsync and the acknowledgement), in order, and replaying it gives the very state the
uninterrupted run had at that event — a card lying mid-trick included. Then the process is started again and
resumes from the journal, until the match is done.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tablepi.journal import Journal
from tablepi.record import RecordHeader, write_record
from tablepi.table import Table, TableEvent
from tablepi.table.simulate import simulate_match

CHILD = Path(__file__).with_name("crash_child.py")
KILLS = 50


def _script() -> tuple[RecordHeader, list[TableEvent]]:
    """A whole match with mistakes, without the ticks that change nothing (those are never journaled)."""
    sim = simulate_match(2, mistakes=True)
    table = Table(sim.rules, sim.dealer, sim.config)
    events: list[TableEvent] = []
    for event in sim.events:
        if table.would_change(event):
            table.apply(event)
            events.append(event)
    return RecordHeader(sim.rules, sim.dealer, sim.config), events


@pytest.mark.slow
def test_sigkill_at_50_random_points_loses_and_doubles_nothing(tmp_path: Path) -> None:
    header, events = _script()
    record = tmp_path / "match.jsonl"
    with open(record, "w", encoding="utf-8") as out:
        write_record(out, header, events)
    # The uninterrupted run: the state after every prefix of the script.
    table = Table(header.house_rules, header.dealer, header.table)
    expected = [table.state]
    for event in events:
        expected.append(table.apply(event))
    journal = tmp_path / "journal.sqlite3"
    rng = random.Random(20261129)
    env = dict(os.environ)
    root = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
    journaled = 0
    kills = 0
    mid_trick = 0
    spread = max(2, 2 * len(events) // KILLS)
    while True:
        proc = subprocess.Popen(
            [sys.executable, str(CHILD), str(journal), str(record)],
            stdout=subprocess.PIPE, text=True, env=env,
        )
        assert proc.stdout is not None
        first = proc.stdout.readline().split()
        assert first[0] == "start", first
        assert int(first[1]) == journaled  # the restart found exactly what the last run left
        acked = journaled
        if kills < KILLS:
            target = min(len(events), journaled + rng.randint(1, spread))
            for line in proc.stdout:
                if line.startswith("ack"):
                    acked = int(line.split()[1])
                    if acked >= target:
                        break
            os.kill(proc.pid, signal.SIGKILL)
            for line in proc.stdout:  # acknowledgements already written before the kill count too
                if line.startswith("ack"):
                    acked = int(line.split()[1])
            proc.wait(timeout=10)
            proc.stdout.close()
            assert proc.returncode == -signal.SIGKILL or acked == len(events)
            kills += 1
        else:
            rest = proc.stdout.read()
            proc.stdout.close()
            assert proc.wait(timeout=60) == 0
            acked = len(events)
            assert rest.rstrip().endswith("done")
        with Journal(journal) as stored:
            got = stored.events()
        count = len(got)
        assert acked <= count <= acked + 1, (acked, count)  # nothing acknowledged is lost
        assert got == events[:count]  # nothing doubled, nothing reordered
        resumed = Table.replay(got, header.house_rules, header.dealer, header.table).state
        assert resumed == expected[count]
        if resumed.current_trick is not None:
            mid_trick += 1
        journaled = count
        if kills >= KILLS and count == len(events):
            break
    assert kills == KILLS
    assert mid_trick >= 5  # the kills did land in the middle of tricks
