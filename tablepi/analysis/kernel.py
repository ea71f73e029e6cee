"""Which search the solver runs: the compiled kernel when it was built, else the pure-Python one.

Both implement the same algorithm and give identical values (a test runs them side by side). Set the environment
variable ``TABLEPI_ANALYSIS_KERNEL=python`` to force the pure-Python search.
"""

from __future__ import annotations

import importlib
import os
from typing import Any

from tablepi.analysis.solver import PySearch, Search
from tablepi.analysis.tables import Tables

_kernel: Any
try:
    _kernel = importlib.import_module("tablepi.analysis._kernel")
except ImportError:  # not built (no compiler at install): the pure-Python search does the same, slower
    _kernel = None


def compiled_available() -> bool:
    return _kernel is not None


def new_search(tables: Tables, compiled: bool | None = None, small: bool = False, full: bool = False) -> Search:
    """A fresh search with an empty transposition table. ``compiled=None``: the kernel if built and not disabled.
    ``small``: a small table (for the many tiny searches of a late position; the default one is 4 MB). ``full``: the
    table keyed on the four hands, valid across layouts of the unseen cards (2**16 entries of 20 bytes, 1.3 MB: one
    that stays in the processor's cache is faster here than a larger one)."""
    if compiled is None:
        compiled = _kernel is not None and os.environ.get("TABLEPI_ANALYSIS_KERNEL", "") != "python"
    if compiled:
        if _kernel is None:
            raise RuntimeError("the compiled analysis kernel is not built (reinstall with a C compiler)")
        search: Search = _kernel.Search(tables.suit_mask, tables.points, 12 if small else (16 if full else 19),
                                        full=full)
        return search
    return PySearch(tables, full=full)


