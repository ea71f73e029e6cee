"""What the table tells the players beside the game's warnings: typed codes with parameters, the one Notice.

The journal raises notices about the table itself (a recovery after damage, a storage fault, a gesture it refused,
a name it cut); the screen translates them (tablepi.display.texts ``NOTICE_TEMPLATES``). The feed hands over the
tournament director's announcements and its own problems (``ANNOUNCEMENT``, ``FEED_PROBLEM``: their ``text`` is
shown as it came). All of them go to the warning bar whenever no game warning needs it.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass


class NoticeCode(enum.Enum):
    #: The journal was damaged and rebuilt. ``events``: how many were recovered; ``complete``: one copy held all.
    JOURNAL_RECOVERED = "journal_recovered"
    #: The storage refuses writes (full or failing card). ``unsaved``: events held only in memory.
    STORAGE_FAULT = "storage_fault"
    #: A gesture the journal could not keep exactly (it would not replay), so the table did not make it. ``why``.
    GESTURE_REFUSED = "gesture_refused"
    #: A player's name longer than the table keeps was cut. ``name``: the name as kept (ending in the cut mark).
    NAME_CUT = "name_cut"
    #: A seating refused: a name on two lines, or holding a control character. ``seat``.
    NAME_REFUSED = "name_refused"
    #: The tournament director's announcement to every table, from the feed. ``text``: as the director wrote it.
    ANNOUNCEMENT = "announcement"
    #: The feed's own problem the players should know of (the broker refused a publish, its certificate is not
    #: trusted). ``text``: the problem, in English, as the log says it.
    FEED_PROBLEM = "feed_problem"
    #: The table's match of the round in force was begun in an earlier journal (players play on under the same
    #: seating): the match played now does not count for the round (docs/tournament.md). ``round``: that round;
    #: 0 when the match played now is the round's again (a new seating).
    ROUND_PLAYED = "round_played"


@dataclass(frozen=True, slots=True)
class Notice:
    code: NoticeCode
    params: tuple[tuple[str, object], ...] = ()

    def param(self, key: str, default: object = None) -> object:
        for name, value in self.params:
            if name == key:
                return value
        return default
