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

from tablepi.journal.journal import Journal
from tablepi.journal.record import RecordHeader, write_record
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
    stats = _kill_and_resume(tmp_path, header, events, KILLS, random.Random(20261129))
    assert stats["mid_trick"] >= 5  # the kills did land in the middle of tricks


def _by_hand_script() -> tuple[RecordHeader, list[TableEvent]]:
    """A match in which E's reader dies at trick 2 of deal 3 and his cards are entered by hand to the end, the
    players seated by touch and by tag first, and a correction of deal 1 proposed, accepted by one team, refused
    by the other."""
    from tablepi.rules import Seat, Team
    from tablepi.rules.entry import DealEntry
    from tablepi.table.events import CorrectionAnswered, CorrectionProposed, PlayersSeated, SeatingSource
    from tests.table.test_by_hand import kill_reader

    sim = simulate_match(3, claims=False)
    played = kill_reader(sim.events, sim, Seat.E)
    seated: list[TableEvent] = [
        PlayersSeated(0.1, ((Seat.N, "Jang"), (Seat.E, "Marie")), SeatingSource.TOUCH),
        PlayersSeated(0.2, ((Seat.S, "Guillaume"),), SeatingSource.TAG, "04AB12CD34EF56"),
    ]
    end = played[-1].time
    after: list[TableEvent] = [
        CorrectionProposed(end + 1, 1, DealEntry(Seat.W, Team.NS, 30)),
        CorrectionAnswered(end + 2, Team.NS, True),
        CorrectionAnswered(end + 3, Team.EW, False),
    ]
    table = Table(sim.rules, sim.dealer, sim.config)
    events: list[TableEvent] = []
    for event in (*seated, *played, *after):
        if table.would_change(event):
            table.apply(event)
            events.append(event)
    return RecordHeader(sim.rules, sim.dealer, sim.config), events


@pytest.mark.slow
def test_sigkill_right_after_gestures_by_hand_loses_and_doubles_nothing(tmp_path: Path) -> None:
    """Power cuts mid manual entry: each kill falls just after a gesture by hand (a card entered, a seating, a
    deal told, a correction or an answer) was acknowledged, the moment the screen showed it."""
    from tablepi.table.events import DealEntered
    from tablepi.table.machine import HAND_EVENTS
    from tests.table.test_by_hand import entries_of

    header, events = _by_hand_script()
    hand = [i + 1 for i, e in enumerate(events) if isinstance(e, HAND_EVENTS)]
    assert len(hand) >= 12
    (tmp_path / "played").mkdir()
    stats = _kill_and_resume(tmp_path / "played", header, events, 14, random.Random(20261201), targets=hand)
    assert stats["after_hand"] >= 14  # every kill left the journal ending on its gesture by hand
    # A match told entirely by hand, as on a chalk slate.
    sim = simulate_match(1)
    assert sim.match is not None
    told: list[TableEvent] = [DealEntered(5.0 * (i + 1), e) for i, e in enumerate(entries_of(sim.match))]
    (tmp_path / "told").mkdir()
    stats = _kill_and_resume(tmp_path / "told", RecordHeader(sim.rules, sim.dealer, sim.config), told,
                             min(6, len(told) - 1), random.Random(7), targets=list(range(1, len(told) + 1)))
    assert stats["after_hand"] >= min(6, len(told) - 1)


def _kill_and_resume(tmp_path: Path, header: RecordHeader, events: list[TableEvent], kills_wanted: int,
                     rng: random.Random, targets: list[int] | None = None) -> dict[str, int]:
    """Run the child on the record, SIGKILL it ``kills_wanted`` times (after a random number of events, or after
    the next of ``targets``, event numbers counted from 1), check the journal after each kill, then let it end.

    With ``targets`` the child is paced: it waits after each acknowledgement until told to go on, as a table
    waits for the next gesture, so each kill falls exactly after its target was acknowledged whatever the
    machine's load. Without, it runs free and a kill may fall anywhere, mid-write included."""
    from tablepi.table.machine import HAND_EVENTS

    record = tmp_path / "match.jsonl"
    with open(record, "w", encoding="utf-8") as out:
        write_record(out, header, events)
    # The uninterrupted run: the state after every prefix of the script.
    table = Table(header.house_rules, header.dealer, header.table)
    expected = [table.state]
    for event in events:
        expected.append(table.apply(event))
    journal = tmp_path / "journal.sqlite3"
    env = dict(os.environ)
    root = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
    journaled = 0
    kills = 0
    stats = {"mid_trick": 0, "after_hand": 0}
    spread = max(2, 2 * len(events) // kills_wanted)
    while True:
        paced = targets is not None
        proc = subprocess.Popen(
            [sys.executable, str(CHILD), str(journal), str(record), *(["paced"] if paced else [])],
            stdin=subprocess.PIPE if paced else subprocess.DEVNULL, stdout=subprocess.PIPE, text=True, env=env,
        )
        assert proc.stdout is not None
        first = proc.stdout.readline().split()
        assert first[0] == "start", first
        assert int(first[1]) == journaled  # the restart found exactly what the last run left
        acked = journaled
        if kills < kills_wanted:
            later = [t for t in targets or () if t > journaled]
            if later:
                target = later[min(len(later) - 1, rng.randint(0, 1))]
            else:
                target = min(len(events), journaled + rng.randint(1, spread))
            for line in proc.stdout:
                if line.startswith("ack"):
                    acked = int(line.split()[1])
                    if acked >= target:
                        break
                    if proc.stdin is not None:
                        proc.stdin.write("\n")
                        proc.stdin.flush()
            os.kill(proc.pid, signal.SIGKILL)
            for line in proc.stdout:  # acknowledgements already written before the kill count too
                if line.startswith("ack"):
                    acked = int(line.split()[1])
            proc.wait(timeout=10)
            proc.stdout.close()
            if proc.stdin is not None:
                proc.stdin.close()
            assert proc.returncode == -signal.SIGKILL or acked == len(events)
            kills += 1
        else:
            if proc.stdin is not None:
                proc.stdin.close()  # no more pacing: the rest of the match at once
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
        if resumed.deal.current_trick is not None:
            stats["mid_trick"] += 1
        if got and isinstance(got[-1], HAND_EVENTS):
            stats["after_hand"] += 1
        journaled = count
        if kills >= kills_wanted and count == len(events):
            break
    assert kills == kills_wanted
    return stats
