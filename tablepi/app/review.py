"""The review of the last deal (best play, :mod:`tablepi.analysis`) as the loop keeps it: started when a deal is
scored, computed by the :class:`~tablepi.app.ports.Reviewer` off the table's path, collected when ready, and shown
or hidden by the Review touch (the screen's own business: nothing is journaled)."""

from __future__ import annotations

import logging
from concurrent.futures import Future
from typing import TYPE_CHECKING

from tablepi.app.ports import Reviewer
from tablepi.journal.journal import JournaledTable
from tablepi.rules.deal import Deal
from tablepi.table import TableState

if TYPE_CHECKING:
    from tablepi.analysis.review import DealReview

log = logging.getLogger(__name__)


class ReviewKeeper:
    """The review of the last deal, computed in a worker off the table's path."""

    def __init__(self, reviewer: Reviewer | None) -> None:
        self.reviewer = reviewer
        self.review: DealReview | None = None  # the last deal's review once ready
        self.open = False  # the Review touch shows it (learner mode shows it anyway)
        self._key: tuple[int, int] | None = None  # (match, deal) reviewed or being reviewed
        self._pending: Future[DealReview] | None = None

    def start(self, table: JournaledTable, state: TableState) -> None:
        """A deal was just scored: hand a copy to the reviewer (returns at once); forget the previous review."""
        if self.reviewer is None or not state.match.slate:
            return
        key = (len(table.table.matches), state.match.slate[-1].number)
        if key == self._key:
            return
        self._key = key
        self.review, self.open, self._pending = None, False, None
        told = table.table.matches[-1].scored_as_told()
        deal = told[-1][1] if told else None
        if not isinstance(deal, Deal) or deal.trump is None or not deal.is_over:
            return  # a deal told by hand has no cards to review (the played deal before it is not this one)
        try:
            number = state.match.slate[-1].number
            carried = table.table.matches[-1].slate.carried_into(number)  # ties before it (tie = "carry")
            self._pending = self.reviewer.submit(deal, number, carried)
        except Exception:  # a broken worker must never stop the table
            log.exception("could not start the review of deal %d", key[1])

    def collect(self) -> bool:
        """Whether a review just became ready."""
        pending = self._pending
        if pending is None or not pending.done():
            return False
        self._pending = None
        try:
            self.review = pending.result()
        except Exception:
            log.exception("the review of the last deal failed")
            return False
        return True

    def toggle(self) -> bool:
        """The Review touch: whether it showed or hid a review."""
        if self.review is None:
            return False
        self.open = not self.open
        return True
