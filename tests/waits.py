"""Waiting in tests for what can be observed, never for a guessed time.

A test that sleeps "long enough" for a process, a thread, a broker or a window fails on a loaded machine and
wastes time on an idle one. :func:`wait_until` polls the condition itself (a journal count, a line, a file, a
socket answering, a frame drawn, a state reached) until it holds, with a deadline generous enough for a machine
under heavy load, and fails naming what it waited for.
"""

from __future__ import annotations

import sqlite3
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from tablepi.errors import RecordError
from tablepi.journal.journal import read_journal
from tablepi.table.machine import Table
from tablepi.table.state import TableState

T = TypeVar("T")


def wait_until(
    check: Callable[[], T | None],
    what: str | Callable[[], str],
    timeout: float = 30.0,
    every: float = 0.02,
    ignore: tuple[type[BaseException], ...] = (),
    error: type[AssertionError] = AssertionError,
) -> T:
    """Call ``check`` until it returns something true, and return that.

    ``what`` names the condition (or makes the words when the wait fails, e.g. with the last value seen);
    exceptions of the types in ``ignore`` count as "not yet" (a file being written, a socket not yet listening),
    and the last one is named if the wait fails. ``every`` seconds pass between two calls (0: ``check`` blocks
    by itself, e.g. a receive with a timeout). Fails with ``error`` (an :class:`AssertionError`, or a kind of
    it the caller reports in its own way) after ``timeout`` seconds.
    """
    deadline = time.monotonic() + timeout
    last: BaseException | None = None
    while True:
        try:
            value = check()
        except ignore as problem:
            last, value = problem, None
        if value:
            return value
        if time.monotonic() >= deadline:
            words = what() if callable(what) else what
            raise error(f"gave up after {timeout:g} s waiting for {words}"
                        + (f" (last error: {last!r})" if last is not None else ""))
        if every:
            time.sleep(every)


def stack_of(thread: threading.Thread) -> list[str]:
    """The names of the functions ``thread`` is in now, innermost first (empty before it starts and after it
    ends): a test waits for a thread to be blocked where it means to wake it, e.g. ``"wait" == stack_of(t)[0]``."""
    frame = sys._current_frames().get(thread.ident) if thread.ident is not None else None
    names = []
    while frame is not None:
        names.append(frame.f_code.co_name)
        frame = frame.f_back
    return names


# --- what a test observes of a running table ---------------------------------------------------------------------


def journal_count(path: Path) -> int:
    """How many events the journal at ``path`` holds (0 while it does not exist yet), read only: a running table
    writes it meanwhile."""
    try:
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
            return int(db.execute("SELECT COUNT(*) FROM events").fetchone()[0])
    except sqlite3.Error:
        return 0


def journal_state(path: Path) -> TableState:
    """The state of the table whose journal is at ``path``, replayed from it read only (no lock: the running table
    writes it). Raises what a journal being written or archived may raise (:data:`UNREADABLE`)."""
    view = read_journal(path)
    header = view.header
    return Table.replay(view.events(), header.house_rules, header.dealer, header.table).state


#: What reading a journal may raise while a running table writes it, or archives it as a new match begins.
UNREADABLE: tuple[type[BaseException], ...] = (sqlite3.Error, OSError, RecordError)
