"""The scene: everything the screen shows at one moment, as one frozen value.

The app's loop builds a :class:`Scene` whenever something players can see changed (the table's published state,
the review of the last deal, the journal's and the tournament's lines, the open hand-entry panel) and hands it to
the screen; :func:`tablepi.display.viewmodel.build_view` turns it into a View, the one place that decides what is
shown. Nothing here is mutable and nothing patches a View afterwards: the same scene always gives an equal View,
so the display redraws only when a scene shows something new.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from tablepi.display.panels import Panel
from tablepi.display.view import PhoneCode
from tablepi.notices import Notice
from tablepi.rules.seats import Seat
from tablepi.table.state import TableState

if TYPE_CHECKING:
    from tablepi.analysis.review import DealReview
    from tablepi.display.viewmodel import ViewSettings


@dataclass(frozen=True, slots=True)
class SeatingLine:
    """This round's seating from the tournament, for the bar until the match's first trumps are named;
    ``played``: the table's match of this round was begun before, so the match starting now does not count."""

    round: int
    table: str
    names: tuple[tuple[Seat, str], ...]
    played: bool = False


@dataclass(frozen=True, slots=True)
class Announcement:
    """The director's announcement (or the feed's own warning), for the bar until ``until`` (the loop's clock)."""

    text: str
    until: float


@dataclass(frozen=True, slots=True)
class Note:
    """The console's line for the bar until the next touch: players just seated by their tags (or by the
    tournament), the correction of deal ``refused`` refused, or the one of deal ``aside`` set aside unanswered. A
    value: the screen says it in its language."""

    seated: tuple[tuple[Seat, str], ...] = ()
    refused: int | None = None
    aside: int | None = None


@dataclass(frozen=True, slots=True)
class ConsoleScene:
    """The hand-entry console's part of a scene: the open panel (or the enrol mode's sheet, an ``Enrolling``),
    and the console's line for a free bar."""

    panel: Panel | None = None  # None: no panel open, the header's labelled Menu button opens one
    note: Note | None = None  # a player just seated by his tag (or by the tournament), a refused correction
    no_deck: bool = False  # no deck is enrolled at all: the bar says how to enrol one


@dataclass(frozen=True, slots=True)
class Scene:
    """What the screen shows now. ``state`` None: the table has no state yet (the idle screen)."""

    state: TableState | None
    settings: ViewSettings
    review: DealReview | None = None  # the last deal's best-play review once ready
    review_open: bool = False  # the Review touch opened it (learner mode shows it anyway)
    notices: tuple[Notice, ...] = ()  # the journal's notices (recovered after damage, storage fault)
    announcement: Announcement | None = None
    seating: SeatingLine | None = None
    phone: PhoneCode | None = None  # the QR code of the table's pages, on the slate between deals
    console: ConsoleScene | None = None  # None: no hand entry on this screen
    time: float = 0.0  # when the scene was built (the loop's clock): the announcement stands until its ``until``
