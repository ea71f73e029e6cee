"""Which search the solver runs: the compiled kernel when it was built, else the pure-Python one.

Both implement the same algorithm and give identical values (a test runs them side by side). Set the environment
variable ``TABLEPI_ANALYSIS_KERNEL=python`` to force the pure-Python search.

The compiled search runs without the interpreter lock while it judges a position's layouts, so the single-dummy
judgement shares a position's layouts among threads, one a core (:func:`search_threads`; at most
:data:`MAX_THREADS`; ``TABLEPI_ANALYSIS_THREADS=N`` sets it). The review runs in the worker process at the lowest CPU
priority (:mod:`tablepi.analysis.worker`), so the table's own process still comes first on every core.
"""

from __future__ import annotations

import importlib
import os
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from tablepi.analysis.solver import PySearch, Search
from tablepi.analysis.tables import Tables

_kernel: Any
try:
    _kernel = importlib.import_module("tablepi.analysis._kernel")
except ImportError:  # not built (no compiler at install): the pure-Python search does the same, slower
    _kernel = None


#: The most threads a judgement uses (a Raspberry Pi 4 or 5 has four cores).
MAX_THREADS = 4
_pools: dict[int, ThreadPoolExecutor] = {}


def compiled_available() -> bool:
    return _kernel is not None


def _use_compiled(compiled: bool | None) -> bool:
    if compiled is None:
        return _kernel is not None and os.environ.get("TABLEPI_ANALYSIS_KERNEL", "") != "python"
    return compiled


def search_threads(compiled: bool | None = None) -> int:
    """How many threads search a position's layouts: ``TABLEPI_ANALYSIS_THREADS`` if set, else one a core this
    process may run on, at most :data:`MAX_THREADS`; always one for the pure-Python search (it holds the lock)."""
    if not _use_compiled(compiled):
        return 1
    setting = os.environ.get("TABLEPI_ANALYSIS_THREADS", "")
    if setting.isdigit() and int(setting) > 0:
        return min(int(setting), 64)
    return max(1, min(MAX_THREADS, len(os.sched_getaffinity(0))))


def shared_pool(threads: int) -> ThreadPoolExecutor:
    """The process's pool of ``threads`` search threads, made on first use and kept (idle threads cost nothing)."""
    pool = _pools.get(threads)
    if pool is None:
        pool = _pools[threads] = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="search")
    return pool


def new_search(tables: Tables, compiled: bool | None = None, small: bool = False, full: bool = False) -> Search:
    """A fresh search with an empty transposition table. ``compiled=None``: the kernel if built and not disabled.
    ``small``: a small table (for the many tiny searches of a late position; the default one is 4 MB). ``full``: the
    table keyed on the four hands, valid across layouts of the unseen cards (2**16 entries of 20 bytes, 1.3 MB: one
    that stays in the processor's cache is faster here than a larger one)."""
    if _use_compiled(compiled):
        if _kernel is None:
            raise RuntimeError("the compiled analysis kernel is not built (reinstall with a C compiler)")
        search: Search = _kernel.Search(tables.suit_mask, tables.points, 12 if small else (16 if full else 19),
                                        full=full)
        return search
    return PySearch(tables, full=full)


