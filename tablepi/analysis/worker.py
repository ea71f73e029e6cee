"""Reviews off the table's path: a worker process that reviews finished deals while the table goes on.

The table must never wait for a review (a card laid reaches the screen at once). The review of a deal, single-dummy
judgement included, takes about a second with the compiled kernel (several on a Raspberry Pi), so it runs in a
separate process at the lowest CPU priority: no shared interpreter lock, another core on a multi-core Pi, and on a
busy one the table first. The caller polls the returned
future (the app does it on its own loop, STYLE.md 10) and draws the review when it is done.

>>> from tablepi.rules import Deal, Seat, Suit
>>> with ReviewWorker() as worker:
...     deal = Deal(Seat.N)
...     deal.choose_trump(Suit.CLUBS)
...     worker.submit(deal, 1).result().known
False
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import threading
import time
from concurrent.futures import Future, ProcessPoolExecutor
from types import TracebackType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tablepi.analysis.review import DealReview
    from tablepi.rules.deal import Deal


def _review(deal: Deal, number: int, carried: int) -> DealReview:
    # imported here, in the worker process: the table's own process never loads the solver
    from tablepi.analysis.kernel import compiled_available
    from tablepi.analysis.review import review_deal

    # The single-dummy judgement takes about a second a deal with the compiled kernel and minutes without it (the
    # reviews would pile up behind the table): without the kernel the screen gets the double-dummy review.
    return review_deal(deal, number, single=compiled_available(), carried=carried)


def _ready() -> bool:
    """In the worker, at start: load the analysis there, while the table does other things."""
    import tablepi.analysis.review  # noqa: F401

    return True


def _in_worker(parent: int) -> None:
    """In the worker, at start: the lowest CPU priority, so the table's own process always runs first when both
    want a core (a Pi Zero 2 has four; a busy one, or a single-core board, must still never wait for a review);
    and a watch on the table's process, so a table that is killed (kill -9, a crash) leaves no worker behind."""
    with contextlib.suppress(OSError):
        os.nice(19)
    threading.Thread(target=_watch_parent, args=(parent,), name="parent-watch", daemon=True).start()


def _watch_parent(parent: int) -> None:
    """End this worker when the table's process is gone: it is then no longer our parent (the orphan is given to
    init or a subreaper). ProcessPoolExecutor's own check only runs when it is handed work."""
    while os.getppid() == parent:
        time.sleep(PARENT_POLL)
    os._exit(0)


#: How often the worker looks whether the table's process is still there (seconds).
PARENT_POLL = 0.5


class ReviewWorker:
    """One worker process, started on first use; ``close()`` is idempotent."""

    def __init__(self) -> None:
        self._pool: ProcessPoolExecutor | None = None
        self._closed = False

    def start(self) -> Future[bool]:
        """Start the worker process now (it imports the analysis while the table does other things)."""
        return self._executor().submit(_ready)

    def submit(self, deal: Deal, number: int, carried: int = 0) -> Future[DealReview]:
        """Start reviewing a copy of ``deal`` (deal ``number`` of its match, ``carried`` lines carried into it from
        ties under ``tie = "carry"``); returns at once."""
        return self._executor().submit(_review, deal.copy(), number, carried)

    def _executor(self) -> ProcessPoolExecutor:
        if self._closed:
            raise RuntimeError("the review worker is closed")
        if self._pool is None:
            # spawn: a fresh interpreter, safe whatever threads the app runs (fork would copy them mid-state)
            self._pool = ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"),
                                             initializer=_in_worker, initargs=(os.getpid(),))
        return self._pool

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None
        self._closed = True

    def __enter__(self) -> ReviewWorker:
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self.close()
