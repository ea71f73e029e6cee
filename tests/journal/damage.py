"""Damaged journals on purpose: the fault-injection campaign of tests/journal/test_damage.py and
bench/bench_journal_damage.py.

A *base* is what a power cut leaves of a journal in the middle of a match: the files exactly as they lie on the
card while the table runs (main file, ``-wal``, ``-shm``, the ``.events`` copy), taken with the connection still
open. Each *case* copies a base into a fresh folder and damages it one way:

- ``cut``: one file (main, -wal or copy; sometimes the copy *and* the -wal) cut short at a random offset;
- ``bad_page``: one 4 KiB page of one file overwritten with random bytes or zeros;
- ``flipped``: 1 to 8 random bytes of one file with one bit flipped;
- ``stale_wal``: the -wal replaced by this journal's own -wal from before a checkpoint;
- ``foreign_wal``: the -wal replaced by another journal's;
- ``missing_wal``: the -wal (and -shm) gone.

:func:`check_case` opens the damaged journal as the table does and returns what it found; the caller asserts.
With one file damaged the other copy is whole, so the table must come back with every event; with two, with an
exact prefix of them at least as long as the intact lines of the copy.
"""

from __future__ import annotations

import random
import shutil
from dataclasses import dataclass
from pathlib import Path

from tablepi.journal.eventlog import copy_path
from tablepi.journal.journal import JournaledTable
from tablepi.journal.record import RecordHeader, event_to_line
from tablepi.journal.salvage import shm_path, wal_path
from tablepi.table import Table, TableEvent
from tablepi.table.simulate import simulate_match

KINDS = ("cut", "bad_page", "flipped", "stale_wal", "foreign_wal", "missing_wal")
FILES = ("main", "wal", "copy")


@dataclass
class Base:
    header: RecordHeader
    events: list[TableEvent]
    files: dict[str, bytes]  # main, wal, shm, copy: as a power cut leaves them
    early_wal: bytes  # this journal's -wal before the checkpoint (for stale_wal)
    states: list[object]  # the uninterrupted table's state after each prefix of events


@dataclass
class Outcome:
    kind: str
    target: str
    started: bool
    recovered: int
    expected: int  # every event (one file damaged) or the copy's intact prefix (two)
    exact: bool  # recovered events == the original's first `recovered`, nothing invented or reordered
    complete_expected: bool
    error: str = ""


def script(seed: int) -> tuple[RecordHeader, list[TableEvent]]:
    """A match with mistakes, without the ticks that change nothing (never journaled)."""
    sim = simulate_match(seed, mistakes=True)
    table = Table(sim.rules, sim.dealer, sim.config)
    events: list[TableEvent] = []
    for event in sim.events:
        if table.would_change(event):
            table.apply(event)
            events.append(event)
    return RecordHeader(sim.rules, sim.dealer, sim.config), events


def _snapshot(path: Path) -> dict[str, bytes]:
    files = {"main": path, "wal": wal_path(path), "shm": shm_path(path), "copy": copy_path(path)}
    return {name: p.read_bytes() for name, p in files.items() if p.exists()}


def make_base(folder: Path, seed: int, length: int) -> Base:
    """Play ``length`` events of a match into a journal, checkpointing a third of the way, and snapshot it live."""
    header, events = script(seed)
    events = events[:length]
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "journal.sqlite3"
    with JournaledTable(path, header) as table:
        third = len(events) // 3
        for event in events[:third]:
            table.feed(event)
        early_wal = wal_path(path).read_bytes()
        table.journal._conn().execute("PRAGMA wal_checkpoint(TRUNCATE)")
        for event in events[third:]:
            table.feed(event)
        files = _snapshot(path)  # the power cut: the files as they are, the connection still open
    table = Table(header.house_rules, header.dealer, header.table)
    states: list[object] = [table.state]
    states.extend(table.apply(event) for event in events)
    return Base(header, events, files, early_wal, states)


def write_files(folder: Path, files: dict[str, bytes]) -> Path:
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    path = folder / "journal.sqlite3"
    names = {"main": path, "wal": wal_path(path), "shm": shm_path(path), "copy": copy_path(path)}
    for name, data in files.items():
        names[name].write_bytes(data)
    return path


def _copy_intact_prefix(copy: bytes, damaged_from: int) -> int:
    """How many events of the copy lie wholly before byte ``damaged_from`` (its line 0 is the header)."""
    lines = copy[:damaged_from].split(b"\n")
    whole = len(lines) - 1  # the last piece is cut (or empty)
    return max(0, whole - 1)


def damage(base: Base, other: Base, kind: str, rng: random.Random) -> tuple[dict[str, bytes], str, int]:
    """A damaged copy of ``base``'s files; returns (files, what was damaged, events that must come back)."""
    files = dict(base.files)
    every = len(base.events)
    if kind == "stale_wal":
        files["wal"] = base.early_wal
        return files, "wal", every
    if kind == "foreign_wal":
        files["wal"] = other.files["wal"]
        files["shm"] = other.files.get("shm", b"")
        return files, "wal", every
    if kind == "missing_wal":
        files.pop("wal", None)
        if rng.random() < 0.5:
            files.pop("shm", None)
        return files, "wal", every
    targets = [rng.choice(FILES)]
    if kind == "cut" and rng.random() < 0.25:
        targets = ["copy", "wal"]  # two files at once: only the copy's intact prefix is owed
    expected = every
    for target in targets:
        data = bytearray(files.get(target, b""))
        if not data:
            continue
        if kind == "cut":
            at = rng.randrange(len(data))
            del data[at:]
            first = at
        elif kind == "bad_page":
            pages = max(1, len(data) // 4096)
            page = rng.randrange(pages)
            chunk = bytes(4096) if rng.random() < 0.3 else rng.randbytes(4096)
            data[page * 4096: page * 4096 + 4096] = chunk[: len(data) - page * 4096]
            first = page * 4096
        else:
            spots = [rng.randrange(len(data)) for _ in range(rng.randint(1, 8))]
            for spot in spots:
                data[spot] ^= 1 << rng.randrange(8)
            first = min(spots)
        files[target] = bytes(data)
        if len(targets) == 2 and target == "copy":
            expected = _copy_intact_prefix(base.files["copy"], first)
    return files, "+".join(targets), expected


def check_case(folder: Path, base: Base, other: Base, kind: str, rng: random.Random) -> Outcome:
    """Damage, then start the table on it as the app does; report what came back."""
    files, target, expected = damage(base, other, kind, rng)
    path = write_files(folder, files)
    original = [event_to_line(e) for e in base.events]
    try:
        with JournaledTable(path, base.header) as table:
            got = [line for _, line in table.journal.lines()]
            ok_state = len(got) < len(base.states) and table.state == base.states[len(got)]
    except Exception as err:  # the campaign counts these: the test asserts there are none
        return Outcome(kind, target, False, 0, expected, False, expected == len(original),
                       f"{type(err).__name__}: {err}")
    exact = got == original[: len(got)] and ok_state
    return Outcome(kind, target, True, len(got), expected, exact, expected == len(original))


def campaign(folder: Path, per_kind: int, seed: int, bases: int = 3) -> list[Outcome]:
    """``per_kind`` damaged journals of every kind, from ``bases`` mid-match journals; fixed ``seed``."""
    rng = random.Random(seed)
    made = [make_base(folder / f"base{i}", seed + i, rng.randint(40, 120)) for i in range(bases + 1)]
    originals, foreign = made[:-1], made[-1]
    outcomes: list[Outcome] = []
    for kind in KINDS:
        for number in range(per_kind):
            base = originals[number % len(originals)]
            other = foreign if kind != "foreign_wal" or number % 2 else originals[(number + 1) % len(originals)]
            outcomes.append(check_case(folder / "case", base, other, kind, rng))
    return outcomes
