"""The loop's housekeeping between inputs: the systemd watchdog's beat, the journal's retries after a storage fault
and its notices last shown, the recovery notice's end, and the table's warnings written once to the service's log.
"""

from __future__ import annotations

import logging

from tablepi.app.ports import Watchdog
from tablepi.journal.journal import JournaledTable
from tablepi.table import TableState

log = logging.getLogger(__name__)

#: During a storage fault, how often the journal tries again to save what is pending.
RETRY_SECONDS = 1.0
#: How often, at most, the systemd watchdog is fed (it wants a beat well within its timeout).
BEAT_SECONDS = 1.0


class Upkeep:
    """The watchdog's last beat, the journal's last retry, the journal's notices last shown, the deal the recovery
    notice stands till, the warnings already logged; and whether the loop is closed."""

    def __init__(self, table: JournaledTable, now: float) -> None:
        self.last_beat = 0.0
        self.last_retry = now
        self.notices = table.notices
        start = table.state
        self.recovered_at = (len(table.table.matches), start.deal.number)  # the recovery notice stands till then
        self.logged: set[tuple[int, str, str]] = set()  # warnings already written to the log
        self.closed = False

    def storage(self, table: JournaledTable, now: float) -> bool:
        """Retry a storage fault about once a second; end the recovery notice once the deal in progress at the
        restart is over. Whether the journal's notices changed since they were last shown."""
        if table.journal.fault is not None and now - self.last_retry >= RETRY_SECONDS:
            self.last_retry = now
            table.retry()
        if (len(table.table.matches), table.state.deal.number) != self.recovered_at:
            table.dismiss_recovery()  # the deal in progress at the restart is over: the notice has been seen
        return table.notices != self.notices

    def beat(self, watchdog: Watchdog | None, now: float) -> None:
        """Feed the watchdog about once a second."""
        if watchdog is not None and now - self.last_beat >= BEAT_SECONDS:
            watchdog.watchdog()
            self.last_beat = now

    def log_warnings(self, state: TableState) -> None:
        """The service's log tells the owner what the table told the players, each warning once (a tentative one
        only once it stands)."""
        for warning in state.warnings:
            key = (warning.deal, warning.code.value, warning.message)
            if key not in self.logged and not warning.tentative:
                self.logged.add(key)
                log.warning("deal %d: %s: %s", warning.deal, warning.code.value, warning.message)
