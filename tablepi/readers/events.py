"""What a reader reports: a card arriving on or leaving a zone, and a zone's health.

These are the only values that cross from the reader backends into the rest of tablepi. The table layer turns
them into its own table events, so they stay small, immutable and free of hardware detail:

>>> ev = ZoneEvent(zone=2, uid="04A1B2C3D4E5F6", present=True, time=12.5)
>>> str(ev)
'zone 2: +04A1B2C3D4E5F6 @12.500'
>>> ZoneStatus(zone=1, state=ZoneState.MULTI, detail="2 tags", time=3.0).state.name
'MULTI'

``time`` is on the host's ``time.monotonic()`` clock (seconds): when the change happened as near as the backend
can tell (a protocol v2 device dates its events itself), else when the host learned of it. Durations between two
events (how long a card lay on a zone: tap or lay) are what the table needs, and a monotonic clock never jumps.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass

from tablepi.errors import ParseError

#: Number of zones (one per seat) the table has.
ZONES = 4

_UID_RE = re.compile(r"[0-9A-F]{8}|[0-9A-F]{14}|[0-9A-F]{20}")


def normalise_uid(text: str) -> str:
    """Return a tag UID in canonical form: upper-case hex of 4, 7 or 10 bytes, no separators.

    Accepts lower case and ``:``/space/``-`` separators as printed by phone apps and reader tools, so a
    UID copied
    by hand into a deck file still matches what the readers report.

    >>> normalise_uid("04:a1:b2:c3:d4:e5:f6")
    '04A1B2C3D4E5F6'
    """
    if not isinstance(text, str):
        raise ParseError(f"not a tag UID: {text!r} (expected hex text such as 04A1B2C3D4E5F6)")
    compact = re.sub(r"[\s:\-]", "", text).upper()
    if not _UID_RE.fullmatch(compact):
        raise ParseError(f"not a tag UID: {text!r} (expected 8, 14 or 20 hex digits such as 04A1B2C3D4E5F6)")
    return compact


class ZoneState(enum.Enum):
    """Health of one zone, as shown on screen next to its seat."""

    #: The zone's reader works; its ZoneEvents can be trusted.
    ONLINE = "online"
    #: No contact with the zone's reader (cable out, reader unplugged, daemon gone). The host keeps
    #: believing the
    #: card it last saw there until the reader is back and reports what lies on the zone now.
    OFFLINE = "offline"
    #: The reader is connected but reports an error (chip not answering, self-test failed).
    FAULT = "fault"
    #: Two or more tags answer on the zone; no card can be read until only one remains.
    MULTI = "multi"


@dataclass(frozen=True, slots=True)
class ZoneEvent:
    """A card (tag ``uid``) arrived on (``present=True``) or left (``present=False``) zone ``zone``.

    Per zone the stream alternates: a place of a uid, then the lift of that same uid, then the next place. The
    reader base class guarantees this whatever the backend does (duplicates dropped, implicit lifts added).
    """

    zone: int
    uid: str
    present: bool
    time: float
    #: A lift of a card that never lay on this zone: its antenna heard the card lying on another zone, which
    #: the reader now reports it on (a card landing between two antennas). Not a gesture at this seat.
    misread: bool = False

    def __str__(self) -> str:
        sign = "+" if self.present else "-"
        extra = " (misread)" if self.misread else ""
        return f"zone {self.zone}: {sign}{self.uid} @{self.time:.3f}{extra}"


@dataclass(frozen=True, slots=True)
class ZoneStatus:
    """Zone ``zone`` changed health to ``state``; ``detail`` says why in words for the log and the screen."""

    zone: int
    state: ZoneState
    detail: str
    time: float

    def __str__(self) -> str:
        extra = f" ({self.detail})" if self.detail else ""
        return f"zone {self.zone}: {self.state.name}{extra} @{self.time:.3f}"


@dataclass(frozen=True, slots=True)
class ZoneCrosstalk:
    """Zone ``zone`` reported tag ``uid`` that is not believed to lie there: not a card, a misreading.

    ``holder`` is the zone that had the card first (the card is one card in one place: it stays there), or
    ``None`` when ``uid`` is an unknown tag read on a zone holding a known card (a garbled read). Both mean
    the antennas hear each other: space them further apart or lower the readers' gain (hw/README.md).
    """

    zone: int
    uid: str
    holder: int | None
    time: float

    def __str__(self) -> str:
        where = f"zone {self.holder}'s card" if self.holder is not None else "a garbled read"
        return f"zone {self.zone}: crosstalk {self.uid} ({where}) @{self.time:.3f}"


#: Everything ``Reader.recv()`` can return.
ReaderEvent = ZoneEvent | ZoneStatus | ZoneCrosstalk


@dataclass(frozen=True, slots=True)
class ZoneSnapshot:
    """Backend-internal: zone ``zone`` holds ``uid`` now (``None``: nothing).

    A backend returns this from its hook when it learns the *whole* truth about a zone (the serial ``STATE``
    line, a PC/SC reader coming back) rather than a change. The base class diffs it against what it has
    told its
    consumers and emits only the difference, so a card is neither lost nor reported twice across a reconnect.
    It never leaves the reader.
    """

    zone: int
    uid: str | None
    time: float


@dataclass(frozen=True, slots=True)
class TableSnapshot:
    """Backend-internal: the whole truth about every zone at once (the serial ``STATE`` line).

    The base class applies it in two passes, every card that is no longer where it was told first, then what
    lies where: a card that moved between zones while lines were lost is lifted where it was before it is
    placed where it lies, not taken for a neighbour's crosstalk. It never leaves the reader.
    """

    zones: tuple[ZoneSnapshot, ...]


#: Everything a backend's hook hands the base reader (``Reader._recv_internal``): events, and the snapshots the base
#: class diffs into events.
BackendItem = ZoneEvent | ZoneStatus | ZoneCrosstalk | ZoneSnapshot | TableSnapshot
