"""Best-play analysis of Konter a Matt deals: an exact solver with all four hands known, and the review of a played
deal (where the points were lost), like the hand records bridge clubs hand out.

Pure and standard-library only (a test checks it); the compiled kernel ``_kernel`` is optional and gives the same
answers as the pure-Python search. Legal plays, trick winners and card points come from :mod:`tablepi.rules`.
"""

from tablepi.analysis.kernel import compiled_available
from tablepi.analysis.review import ClaimReview, DealReview, Effect, PlayReview, dealt_hands, review_deal, review_plays
from tablepi.analysis.solve import TOTAL_POINTS, Forced, Solver

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
