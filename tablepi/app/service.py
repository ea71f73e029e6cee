"""The running table as a service: its deck and player files kept fresh, its control requests answered, and its
enrol mode.

- :class:`TableFiles` watches the deck and player files. A file changed on disk (``tablepi enroll`` writing it,
  an owner editing it) is read again and swapped in whole; a file that does not read is one line in the log and
  the old decks stay in use. Only a change that has stood still for one poll is read, so a file being written by
  an editor is read once, when written.
- :class:`Desk` answers :class:`~tablepi.service_socket.ControlRequest` on the main thread: ``status`` (what the table
  really uses, for ``tablepi doctor``) and ``enroll_deck`` / ``enroll_player``, which put the table in its
  **enrol mode**: the reader's card events go to the enrolment session instead of the game until it is done,
  timed out or cancelled. Zone health still reaches the table. Cards lifted meanwhile are lifted on the table
  too when the mode ends; a card laid meanwhile is not played (lay it again).
"""

from __future__ import annotations

import contextlib
import enum
import logging
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tablepi.deck import DeckRegistry, load_deck_file
from tablepi.display.panels import Enrolling
from tablepi.enroll import DeckEnrolment, Enrolment, PlayerEnrolment
from tablepi.errors import ConfigError, TablepiError
from tablepi.players import PlayerRegistry, load_players_file
from tablepi.readers.events import ZoneEvent, ZoneStatus
from tablepi.service_socket import ControlCancel, ControlRequest
from tablepi.table import Button, ButtonName

if TYPE_CHECKING:
    from tablepi.app.core import TableApp

log = logging.getLogger(__name__)

#: How often the deck and player files are looked at (a stat each).
POLL_SECONDS = 0.5
#: How long an enrolment may wait for the next card before the mode ends by itself.
ENROL_SECONDS = 600.0


class EnrolEnd(enum.Enum):
    """How an enrol mode ended: what :meth:`Desk._end` decides on; the value is only the words of the reply."""

    SAVED = "saved"
    CANCELLED_BY_CLIENT = "cancelled by the client"
    CANCELLED = "cancelled"
    TIMED_OUT = "timed out; nothing written"
    STOPPED_HERE = "stopped on the screen"
    NOT_SAVED = "could not save"


_Signature = tuple[tuple[str, tuple[int, int, int] | None], ...]


def _signature(paths: Sequence[Path]) -> _Signature:
    out: list[tuple[str, tuple[int, int, int] | None]] = []
    for path in paths:
        try:
            st = os.stat(path)
            out.append((str(path), (st.st_mtime_ns, st.st_size, st.st_ino)))
        except OSError:
            out.append((str(path), None))
    return tuple(out)


def load_decks(paths: Sequence[Path]) -> tuple[DeckRegistry, list[str]]:
    """The deck registry from the configured files. A missing file is not fatal (the table runs and every card
    is an unknown tag until ``tablepi enroll`` wrote it); a broken or conflicting one is a ConfigError."""
    decks = []
    problems: list[str] = []
    for path in paths:
        if not path.exists():
            problems.append(f"deck file {path} does not exist yet: run `tablepi enroll` to tag a deck")
            continue
        decks.extend(load_deck_file(path))
    return DeckRegistry(decks), problems


class TableFiles:
    """The decks and player tags the running table uses, reloaded atomically when their files change."""

    def __init__(
        self,
        deck_paths: Sequence[Path],
        players_path: Path | None = None,
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.deck_paths = tuple(deck_paths)
        self.players_path = players_path
        self.clock = clock
        self.registry, self.problems = load_decks(self.deck_paths)
        self.players = self._read_players(startup=True)
        self.loaded_at = time.time()
        self.reloads = 0
        self._decks_sig = _signature(self.deck_paths)
        self._players_sig = self._player_signature()
        self._pending: tuple[_Signature, _Signature] | None = None
        self._warned: set[tuple[_Signature, _Signature]] = set()
        self._next = clock() + POLL_SECONDS

    def _player_signature(self) -> _Signature:
        return _signature([self.players_path]) if self.players_path is not None else ()

    def _read_players(self, startup: bool = False) -> PlayerRegistry:
        if self.players_path is None:
            return PlayerRegistry()
        try:
            return load_players_file(self.players_path)
        except ConfigError as err:
            if not startup:
                raise
            log.warning("player tags not used: %s", err)
            self.problems.append(str(err))
            return PlayerRegistry(source=self.players_path)

    def poll(self, force: bool = False) -> bool:
        """Look at the files (at most every :data:`POLL_SECONDS`, unless ``force``); True if anything new was
        swapped in. A change is read once it has stood still for one poll, or at once with ``force``."""
        now = self.clock()
        if not force and now < self._next:
            return False
        self._next = now + POLL_SECONDS
        seen = (_signature(self.deck_paths), self._player_signature())
        if seen == (self._decks_sig, self._players_sig):
            self._pending = None
            return False
        if not force and seen != self._pending:
            self._pending = seen  # changed since the last look: perhaps still being written
            return False
        self._pending = None
        return self._reload(seen)

    def _reload(self, seen: tuple[_Signature, _Signature]) -> bool:
        changed = False
        if seen[0] != self._decks_sig:
            try:
                registry, problems = load_decks(self.deck_paths)
            except (ConfigError, OSError) as err:
                if seen not in self._warned:
                    self._warned.add(seen)
                    log.warning("deck file not reloaded, the table keeps its decks: %s", err)
            else:
                self.registry, self.problems = registry, problems
                self._decks_sig = seen[0]
                changed = True
                names = ", ".join(f"{name!r}" for name in registry.decks) or "none"
                log.info("deck files reloaded: decks %s", names)
        if seen[1] != self._players_sig:
            try:
                players = self._read_players()
            except ConfigError as err:
                if seen not in self._warned:
                    self._warned.add(seen)
                    log.warning("player file not reloaded, the table keeps its player tags: %s", err)
            else:
                self.players = players
                self._players_sig = seen[1]
                changed = True
                log.info("player tags reloaded: %d players", len(players))
        if changed:
            self.reloads += 1
            self.loaded_at = time.time()
        return changed

    def status(self) -> dict[str, Any]:
        return {
            "decks": [
                {"name": deck.name, "cards": len(deck.cards), "source": str(deck.source) if deck.source else None}
                for deck in self.registry.decks.values()
            ],
            "deck_files": [str(p) for p in self.deck_paths],
            "problems": list(self.problems),
            "players": {"file": str(self.players_path) if self.players_path else None, "count": len(self.players),
                        "names": list(self.players.names)},
            "loaded_at": self.loaded_at,
            "reloads": self.reloads,
        }


@dataclass
class EnrolMode:
    """The table is enrolling: which session, for which client, until when, and what lies on the zones."""

    session: Enrolment
    request: ControlRequest
    deadline: float
    present: dict[int, set[str]]


class Desk:
    """Answers control requests and runs the enrol mode, on the app's thread."""

    def __init__(self, app: TableApp, files: TableFiles, info: dict[str, Any] | None = None) -> None:
        self.app = app
        self.files = files
        self.info = dict(info or {})
        self.mode: EnrolMode | None = None
        #: Why the reader's port is refused to the service now, if it is ({"why", "fix"}; set by app.build).
        self.reader_refused: Callable[[], dict[str, str] | None] = lambda: None
        self._screen = ("deck", "")  # what the screen's enrol sheet names (kind, name)
        if app.console is not None:
            app.console.can_enrol = True

    # --- what the app hands over ------------------------------------------------------------------------------

    def take(self, item: object) -> bool:
        """Whether ``item`` is the desk's (a request, a hang-up, a card event during the enrol mode)."""
        if isinstance(item, ControlRequest):
            self._answer(item)
            return True
        if isinstance(item, ControlCancel):
            if self.mode is not None and self.mode.request is item.request:
                self._end(EnrolEnd.CANCELLED_BY_CLIENT)
            return True
        mode = self.mode
        if mode is None:
            return False
        if isinstance(item, ZoneEvent):
            uids = mode.present.setdefault(item.zone, set())
            (uids.add if item.present else uids.discard)(item.uid)
            self._feed(item)
            return True
        if isinstance(item, ZoneStatus):
            self._feed(item)
            return False  # the table must know its zones' health all the same
        return False

    def tick(self) -> None:
        """Files that changed are swapped in; an enrolment past its deadline ends."""
        if self.files.poll():
            self.app.use_files(self.files)
        mode = self.mode
        if mode is not None and (mode.request.cancelled.is_set() or self.app.clock() >= mode.deadline):
            self._end(EnrolEnd.TIMED_OUT if not mode.request.cancelled.is_set() else EnrolEnd.CANCELLED)

    # --- requests ---------------------------------------------------------------------------------------------

    def _answer(self, request: ControlRequest) -> None:
        try:
            if request.op == "status":
                request.finish(**self.status())
            elif request.op in ("enroll_deck", "enroll_player"):
                self._begin(request)
            elif request.op == "cancel":
                if self.mode is not None:
                    self._end(EnrolEnd.CANCELLED)
                request.finish()
            elif request.op == "new_match":
                self._new_match(request)
            else:
                request.finish(ok=False, error=f"unknown request {request.op!r}")
        except TablepiError as err:
            request.finish(ok=False, error=str(err))

    def _new_match(self, request: ControlRequest) -> None:
        """The *new match* button, pressed from the control socket (a table without a screen): offered when the
        table offers it on its screen (the match is over), then journaled and applied like a touch."""
        if self.mode is not None:
            request.finish(ok=False, error=f"the table is enrolling {self.mode.session.what}; finish or cancel that "
                                           "first")
            return
        state = self.app.table.state
        if not state.live(ButtonName.NEW_MATCH):  # what the screen offers: after a match is over
            request.finish(ok=False, error=f"match {state.match_number} is not over (deal {state.deal_number}, "
                                           f"{state.phase.value}): a new match begins after it")
            return
        self.app.handle(Button(self.app.now, ButtonName.NEW_MATCH, None))
        state = self.app.table.state
        request.finish(match=state.match_number, say=f"match {state.match_number} begun")

    def status(self) -> dict[str, Any]:
        state = self.app.table.state
        mode = self.mode
        return {
            **self.info,
            "pid": os.getpid(),
            "journal": str(self.app.table.path),
            **self.files.status(),
            "zones": {zone.seat.value: zone.reader.value for zone in state.zones},
            "reader_refused": self.reader_refused(),
            "match": state.match_number,
            "deal": state.deal_number,
            "phase": state.phase.value,
            "mode": None if mode is None else f"enrolling {mode.session.what}",
        }

    def _begin(self, request: ControlRequest) -> None:
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
        present = self._lying_now()
        self.mode = EnrolMode(session, request, self.app.clock() + seconds, present)
        log.info("enrol mode: %s", session.what)
        for line in session.start():
            self._say(line)
        self._show()

    def begin_here(self, kind: str, name: str) -> None:
        """The enrol mode from the screen's enrol menu (``kind`` ``deck`` or ``player``): as a request of the
        table's own, its lines on the screen. A name or file the enrolment refuses is the sheet's last word."""
        request = ControlRequest("enroll_deck" if kind == "deck" else "enroll_player", {"name": name})
        self._screen = (kind, name)
        try:
            self._begin(request)
        except (TablepiError, OSError) as err:
            log.warning("enrolment from the screen refused: %s", err)
            self._show(None, over=True, error=str(err))
            return
        if self.mode is None or self.mode.request is not request:  # refused (another enrolment runs)
            error = request.replies.get_nowait().get("error", "") if not request.replies.empty() else ""
            self._show(None, over=True, error=str(error))

    def stop_here(self) -> None:
        """Stop on the screen: the enrolment ends, nothing written."""
        if self.mode is not None:
            self._end(EnrolEnd.STOPPED_HERE)

    def _show(self, session: Enrolment | None = None, over: bool = False, error: str = "") -> None:
        """The enrol mode on the table's screen (the console's sheet), in the screen's language."""
        console = self.app.console
        if console is None:
            return
        session = session or (self.mode.session if self.mode is not None else None)
        said: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = ()
        if session is not None:
            self._screen = ("deck" if isinstance(session, DeckEnrolment) else "player", session.name)
            said = tuple((key, tuple((k, str(v)) for k, v in fields.items())) for key, fields in session.said)
        kind, name = self._screen
        console.enrolling = Enrolling(kind, name, said, over=over, error=error)

    def _lying_now(self) -> dict[int, set[str]]:
        zone_of = {seat: zone for zone, seat in self.app.seat_of_zone.items()}
        state = self.app.table.state
        return {zone_of[z.seat]: {c.uid for c in z.cards if c.uid} for z in state.zones if z.seat in zone_of}

    # --- the enrol mode ---------------------------------------------------------------------------------------

    def _feed(self, item: ZoneEvent | ZoneStatus) -> None:
        mode = self.mode
        assert mode is not None
        try:
            lines = mode.session.feed(item)
        except (TablepiError, OSError) as err:
            self._end(EnrolEnd.NOT_SAVED, f"{err}")
            return
        for line in lines:
            self._say(line)
        if mode.session.done:
            self._end(EnrolEnd.SAVED)
        elif lines:
            self._show()

    def _say(self, line: str) -> None:
        log.info("enrol: %s", line)
        if self.mode is not None:
            self.mode.request.reply(say=line)
        self.app.mode_text = line

    def _end(self, end: EnrolEnd, detail: str = "") -> None:
        ok = end is EnrolEnd.SAVED
        why = f"{end.value}: {detail}" if detail else end.value
        mode = self.mode
        if mode is None:
            return
        self.mode = None
        self.app.mode_text = ""
        session = mode.session
        if self.app.console is not None:
            self.app.console.enrolling = None
            if end is not EnrolEnd.STOPPED_HERE:
                self._show(session, over=True, error="" if ok else why)
        if ok:
            self.files.poll(force=True)
            self.app.use_files(self.files)
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
        with contextlib.suppress(TablepiError):
            self.app.resync(mode.present)
