"""The table's enrol mode: the reader's card events go to an enrolment session instead of the game until it is
done, timed out or cancelled.

It begins on a control request (``tablepi enroll`` talking to the running table, answered by
:class:`~tablepi.app.service.Desk`) or from the screen's enrol menu. Zone health still reaches the table. What lies
on each zone is followed meanwhile: when the mode ends the loop lifts on the table the cards lifted meanwhile (a
card laid meanwhile is not played: lay it again), and reads the deck and player files again if one was written.
The app's loop uses this module through its :class:`~tablepi.app.ports.Enrolment` port; it knows nothing of the
app.
"""

from __future__ import annotations

import enum
import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from tablepi.app.ports import EnrolEnded
from tablepi.app.reloads import TableFiles
from tablepi.deck import DeckRegistry
from tablepi.display.panels import EnrolKind, Enrolling
from tablepi.enroll import DeckEnrolment, Enrolment, PlayerEnrolment
from tablepi.errors import ConfigError, TablepiError
from tablepi.readers.events import ZoneEvent, ZoneStatus
from tablepi.rules.seats import Seat
from tablepi.service_socket import ControlRequest
from tablepi.table import TableState

log = logging.getLogger(__name__)

#: How long an enrolment may wait for the next card before the mode ends by itself.
ENROL_SECONDS = 600.0


class EnrolEnd(enum.Enum):
    """How an enrol mode ended: what :meth:`Enroller._end` decides on; the value is only the words of the reply."""

    SAVED = "saved"
    CANCELLED_BY_CLIENT = "cancelled by the client"
    CANCELLED = "cancelled"
    TIMED_OUT = "timed out; nothing written"
    STOPPED_HERE = "stopped on the screen"  # the players saw it stop: no last word on the screen
    NOT_SAVED = "could not save"


@dataclass
class EnrolMode:
    """The table is enrolling: which session, for which client, until when, and what lies on the zones."""

    session: Enrolment
    request: ControlRequest
    deadline: float
    present: dict[int, set[str]]


class Enroller:
    """Runs the enrol mode on the loop's thread; ``show`` puts its sheet on the screen (the console's)."""

    def __init__(
        self,
        files: TableFiles,
        seat_of_zone: Mapping[int, Seat],
        show: Callable[[Enrolling | None], None] = lambda sheet: None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.files = files
        self.seat_of_zone = dict(seat_of_zone)
        self.show = show
        self.clock = clock
        self.mode: EnrolMode | None = None
        #: What the enrol mode asks for now ("Lay ♠A on any zone (1/24)."); empty outside the mode.
        self.text = ""
        self._screen = (EnrolKind.DECK, "")  # what the screen's enrol sheet names (kind, name)

    @property
    def running(self) -> bool:
        return self.mode is not None

    # --- beginning ----------------------------------------------------------------------------------------------

    def begin(self, request: ControlRequest, state: TableState) -> None:
        """The enrol mode for ``request`` (``enroll_deck`` / ``enroll_player``) at a table in ``state``. A request
        while one runs is refused (answered); ConfigError for a request this table cannot take."""
        if self.mode is not None:
            request.finish(ok=False, error=f"the table is enrolling {self.mode.session.what} already; "
                                           "finish or cancel that first")
            return
        args = request.args
        name = args.get("name")
        session: Enrolment
        if request.op == "enroll_deck":
            out = Path(args["out"]) if isinstance(args.get("out"), str) else self.files.deck_paths[0]
            others = DeckRegistry([d for d in self.files.registry.decks.values() if d.source != out])
            session = DeckEnrolment(str(name) if name is not None else "", out, others=others,
                                    players=self.files.players)
        else:
            if self.files.players_path is None:
                raise ConfigError("this table has no player file (table.players)")
            session = PlayerEnrolment(str(name) if name is not None else "", self.files.players_path,
                                      decks=self.files.registry)
        timeout = args.get("timeout")
        seconds = float(timeout) if isinstance(timeout, int | float) and timeout > 0 else ENROL_SECONDS
        self.mode = EnrolMode(session, request, self.clock() + seconds, self._lying(state))
        log.info("enrol mode: %s", session.what)
        for line in session.start():
            self._say(line)
        self._show()

    def begin_here(self, kind: EnrolKind, name: str, state: TableState) -> None:
        """The enrol mode from the screen's enrol menu (a deck or a player's tag): as a request of the table's own,
        its lines on the screen. A name or file the enrolment refuses is the sheet's last word."""
        request = ControlRequest("enroll_deck" if kind is EnrolKind.DECK else "enroll_player", {"name": name})
        self._screen = (kind, name)
        try:
            self.begin(request, state)
        except (TablepiError, OSError) as err:
            log.warning("enrolment from the screen refused: %s", err)
            self._show(None, over=True, error=str(err))
            return
        if self.mode is None or self.mode.request is not request:  # refused (another enrolment runs)
            error = request.replies.get_nowait().get("error", "") if not request.replies.empty() else ""
            self._show(None, over=True, error=str(error))

    def _lying(self, state: TableState) -> dict[int, set[str]]:
        """Zone -> the tag UIDs the table believes lie on it now."""
        zone_of = {seat: zone for zone, seat in self.seat_of_zone.items()}
        return {zone_of[z.seat]: {c.uid for c in z.cards if c.uid} for z in state.zones if z.seat in zone_of}

    # --- ending -------------------------------------------------------------------------------------------------

    def stop_here(self) -> EnrolEnded | None:
        """Stop on the screen: the enrolment ends, nothing written."""
        return self._end(EnrolEnd.STOPPED_HERE)

    def stop(self) -> EnrolEnded | None:
        """Stopped by a ``cancel`` request."""
        return self._end(EnrolEnd.CANCELLED)

    def cancel(self, request: ControlRequest) -> EnrolEnded | None:
        """The client of ``request`` hung up: its enrolment ends, nothing written."""
        if self.mode is not None and self.mode.request is request:
            return self._end(EnrolEnd.CANCELLED_BY_CLIENT)
        return None

    def tick(self) -> EnrolEnded | None:
        """An enrolment past its deadline (or whose client cancelled) ends."""
        mode = self.mode
        if mode is None:
            return None
        if mode.request.cancelled.is_set():
            return self._end(EnrolEnd.CANCELLED)
        if self.clock() >= mode.deadline:
            return self._end(EnrolEnd.TIMED_OUT)
        return None

    # --- the mode -----------------------------------------------------------------------------------------------

    def feed(self, item: ZoneEvent | ZoneStatus) -> EnrolEnded | None:
        """A reader's event during the mode: the session's (a card's place or lift is followed, too)."""
        mode = self.mode
        assert mode is not None
        if isinstance(item, ZoneEvent):
            uids = mode.present.setdefault(item.zone, set())
            (uids.add if item.present else uids.discard)(item.uid)
        try:
            lines = mode.session.feed(item)
        except (TablepiError, OSError) as err:
            return self._end(EnrolEnd.NOT_SAVED, str(err))
        for line in lines:
            self._say(line)
        if mode.session.done:
            return self._end(EnrolEnd.SAVED)
        if lines:
            self._show()
        return None

    def _show(self, session: Enrolment | None = None, over: bool = False, error: str = "") -> None:
        """The enrol mode on the table's screen (the console's sheet), in the screen's language."""
        session = session or (self.mode.session if self.mode is not None else None)
        said: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = ()
        if session is not None:
            self._screen = (EnrolKind.DECK if isinstance(session, DeckEnrolment) else EnrolKind.PLAYER, session.name)
            said = tuple((key, tuple((k, str(v)) for k, v in fields.items())) for key, fields in session.said)
        kind, name = self._screen
        self.show(Enrolling(kind, name, said, over=over, error=error))

    def _say(self, line: str) -> None:
        log.info("enrol: %s", line)
        if self.mode is not None:
            self.mode.request.reply(say=line)
        self.text = line

    def _end(self, end: EnrolEnd, detail: str = "") -> EnrolEnded | None:
        """The mode ends, saved or not (``detail``: what went wrong, for the reply)."""
        saved = end is EnrolEnd.SAVED
        why = f"{end.value}: {detail}" if detail else end.value
        mode = self.mode
        if mode is None:
            return None
        self.mode = None
        self.text = ""
        session = mode.session
        self.show(None)
        if end is not EnrolEnd.STOPPED_HERE:
            self._show(session, over=True, error="" if saved else why)
        if saved:
            self.files.poll(force=True)
            if isinstance(session, DeckEnrolment) and session.deck is not None:
                mode.request.finish(deck=session.deck.name, cards=len(session.deck.cards),
                                    file=str(session.out_path))
            elif isinstance(session, PlayerEnrolment):
                mode.request.finish(player=session.name, uid=session.uid, file=str(session.out_path))
            else:  # pragma: no cover - a session is done only with a result
                mode.request.finish()
        else:
            log.info("enrol mode ended: %s", why)
            mode.request.finish(ok=False, error=f"enrolment of {session.what} {why}")
        return EnrolEnded(mode.present, wrote=saved)
