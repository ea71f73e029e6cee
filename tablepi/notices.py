"""What the table tells the players about itself, beside the game's warnings: typed codes with parameters.

The journal raises these (a recovery after damage, a storage fault); the screen translates them
(tablepi.display.texts ``NOTICE_TEMPLATES``) and shows them in the warning bar whenever no game warning needs it.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass


class NoticeCode(enum.Enum):
    #: The journal was damaged and rebuilt. ``events``: how many were recovered; ``complete``: one copy held all.
    JOURNAL_RECOVERED = "journal_recovered"
    #: The storage refuses writes (full or failing card). ``unsaved``: events held only in memory.
    STORAGE_FAULT = "storage_fault"


@dataclass(frozen=True, slots=True)
class Notice:
    code: NoticeCode
    params: tuple[tuple[str, object], ...] = ()

    def param(self, key: str, default: object = None) -> object:
        for name, value in self.params:
            if name == key:
                return value
        return default
