"""The zones settled after a restart: the table's zones are the truth again once each reader has reported.

After a restart the readers report the cards lying on the zones afresh. A card the table already has on that zone
is taken for what it is (the table ignores a repeated place); a card the table believes lies there but the reader
does not report within :data:`RESYNC_SECONDS` of the zone coming online was taken away while the app was down, and
the loop lifts it (journaled like any event, :meth:`tablepi.app.core.TableApp.settle_zones`).
"""

from __future__ import annotations

from tablepi.rules.seats import Seat

#: After start, how long a zone's reader has to report the cards lying on it before the table takes any card it
#: still believes there, and the reader does not report, as lifted while the app was down.
RESYNC_SECONDS = 0.5


class ZoneResync:
    """Zones not yet settled since start: the UIDs reported lying there (a device's STATE brings its places before
    the ONLINE statuses, so they count from the start), and when to settle, from the zone's first ONLINE."""

    def __init__(self) -> None:
        self._settled: set[Seat] = set()
        self._lying: dict[Seat, set[str]] = {}
        self._due: dict[Seat, float] = {}

    def placed(self, seat: Seat, uid: str) -> None:
        if seat not in self._settled:
            self._lying.setdefault(seat, set()).add(uid)

    def online(self, seat: Seat, now: float) -> None:
        if seat not in self._settled:
            self._due.setdefault(seat, now + RESYNC_SECONDS)

    def due(self, now: float) -> list[tuple[Seat, set[str]]]:
        """The zones to settle now, each with the UIDs its reader reported lying there."""
        out = []
        for seat, deadline in list(self._due.items()):
            if now < deadline:
                continue
            del self._due[seat]
            self._settled.add(seat)
            out.append((seat, self._lying.pop(seat, set())))
        return out
