"""The running table as a service: its control requests answered.

:class:`Desk` answers :class:`~tablepi.service_socket.ControlRequest` on the loop's thread: ``status`` (what the table
really uses, for ``tablepi doctor``), ``enroll_deck`` / ``enroll_player`` (the enrol mode,
:mod:`tablepi.app.enrolment`), ``cancel`` and ``new_match``. The loop hands it each request through its
:class:`~tablepi.app.ports.Desk` port, with a way to press one of the table's buttons; the desk holds the table
(for its state), the files and the enrol mode, never the app.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from tablepi.app.enrolment import Enroller
from tablepi.app.ports import EnrolEnded
from tablepi.app.reloads import TableFiles
from tablepi.errors import TablepiError
from tablepi.journal.journal import JournaledTable
from tablepi.service_socket import ControlRequest
from tablepi.table import ButtonName, TableState


class Desk:
    """Answers control requests, on the loop's thread."""

    def __init__(
        self,
        table: JournaledTable,
        files: TableFiles,
        enroller: Enroller,
        info: dict[str, Any] | None = None,
        reader_refused: Callable[[], dict[str, str] | None] = lambda: None,
    ) -> None:
        self.table = table
        self.files = files
        self.enroller = enroller
        self.info = dict(info or {})
        #: Why the reader's port is refused to the service now, if it is ({"why", "fix"}).
        self.reader_refused = reader_refused

    def answer(self, request: ControlRequest, press: Callable[[ButtonName], TableState]) -> EnrolEnded | None:
        """Answer ``request``; what the enrol mode left, if a ``cancel`` ended it."""
        try:
            if request.op == "status":
                request.finish(**self.status())
            elif request.op in ("enroll_deck", "enroll_player"):
                self.enroller.begin(request, self.table.state)
            elif request.op == "cancel":
                ended = self.enroller.stop()
                request.finish()
                return ended
            elif request.op == "new_match":
                self._new_match(request, press)
            else:
                request.finish(ok=False, error=f"unknown request {request.op!r}")
        except TablepiError as err:
            request.finish(ok=False, error=str(err))
        return None

    def _new_match(self, request: ControlRequest, press: Callable[[ButtonName], TableState]) -> None:
        """The *new match* button, pressed from the control socket (a table without a screen): offered when the
        table offers it on its screen (the match is over), then journaled and applied like a touch."""
        mode = self.enroller.mode
        if mode is not None:
            request.finish(ok=False, error=f"the table is enrolling {mode.session.what}; finish or cancel that "
                                           "first")
            return
        state = self.table.state
        if not state.live(ButtonName.NEW_MATCH):  # what the screen offers: after a match is over
            request.finish(ok=False, error=f"match {state.match.number} is not over (deal {state.deal.number}, "
                                           f"{state.phase.value}): a new match begins after it")
            return
        state = press(ButtonName.NEW_MATCH)
        request.finish(match=state.match.number, say=f"match {state.match.number} begun")

    def status(self) -> dict[str, Any]:
        state = self.table.state
        mode = self.enroller.mode
        return {
            **self.info,
            "pid": os.getpid(),
            "journal": str(self.table.path),
            **self.files.status(),
            "zones": {zone.seat.value: zone.reader.value for zone in state.zones},
            "reader_refused": self.reader_refused(),
            "match": state.match.number,
            "deal": state.deal.number,
            "phase": state.phase.value,
            "mode": None if mode is None else f"enrolling {mode.session.what}",
        }

