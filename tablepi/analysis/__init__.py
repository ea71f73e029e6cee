"""Best-play analysis of Konter a Matt deals: an exact solver with all four hands known, and the review of a played
deal (where the points were lost), like the hand records bridge clubs hand out.

Pure and standard-library only (a test checks it); the compiled kernel ``_kernel`` is optional and gives the same
answers as the pure-Python search. Legal plays, trick winners and card points come from :mod:`tablepi.rules`.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tablepi.analysis.kernel import compiled_available
    from tablepi.analysis.review import (
        ClaimReview,
        DealReview,
        Effect,
        PlayReview,
        dealt_hands,
        review_deal,
        review_plays,
    )
    from tablepi.analysis.solve import TOTAL_POINTS, Forced, Solver

# The names are loaded on first use (PEP 562), so that importing a part of the package (the review worker, which the
# running table starts at start-up) does not load the solver into the table's own process.
_HOMES = {
    "compiled_available": "kernel",
    "ClaimReview": "review", "DealReview": "review", "Effect": "review", "PlayReview": "review",
    "dealt_hands": "review", "review_deal": "review", "review_plays": "review",
    "TOTAL_POINTS": "solve", "Forced": "solve", "Solver": "solve",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value


__all__ = [
    "TOTAL_POINTS",
    "ClaimReview",
    "DealReview",
    "Effect",
    "Forced",
    "PlayReview",
    "Solver",
    "compiled_available",
    "dealt_hands",
    "review_deal",
    "review_plays",
]
