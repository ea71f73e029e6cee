"""What the feed told the table, as the loop keeps it for the scene: this round's seating (the tournament's),
whether the match played now counts for that round, the director's announcements and the feed's own warnings, and
the announcement standing in the warning bar until its time is up."""

from __future__ import annotations

from tablepi.display.scene import Announcement, SeatingLine
from tablepi.feed.messages import Seating
from tablepi.notices import Notice

#: How long the director's announcement stays in the warning bar (seconds).
ANNOUNCE_SECONDS = 120.0
#: How many of the feed's notices are kept, newest last.
KEPT_NOTICES = 10


class FeedLines:
    """The feed's seating, its notices (newest last) and the announcement in the bar with the time it stands until
    (on the loop's monotonic clock)."""

    def __init__(self) -> None:
        self.seating: Seating | None = None
        self.played: int | None = None  # the round whose match this table has played already (this one is casual)
        self.notices: list[Notice] = []
        self.announcement: Announcement | None = None

    def tell(self, notice: Notice, now: float) -> str:
        """A notice from the feed: kept, and its text announced in the bar until ``ANNOUNCE_SECONDS`` after ``now``;
        returns the text."""
        self.notices = [*self.notices[-(KEPT_NOTICES - 1):], notice]
        text = str(notice.param("text", ""))
        self.announcement = Announcement(text, now + ANNOUNCE_SECONDS)
        return text

    def expire(self, now: float) -> bool:
        """Whether the announcement's time just ran out (the bar goes back to what it showed before)."""
        if self.announcement is None or now < self.announcement.until:
            return False
        self.announcement = None
        return True

    def scene_seating(self) -> SeatingLine | None:
        seating = self.seating
        if seating is None:
            return None
        return SeatingLine(seating.round, seating.table, seating.names, played=seating.round == self.played)
