"""Per-seat touch targets: every seat that may act gets its own, at its own place, and a touch there names it.

Every designed layout, every screen orientation (which seat is at the bottom), and every number of targets per
seat (0 to 3: Matt, Konter, Konter a Matt): each seat's targets are drawn inside the table, clear of every card,
every name and each other, and a touch at a target's centre is that target, for that seat.
"""

from __future__ import annotations

import itertools

import pytest

from tablepi.display.layout import PANELS, button_at, layout_for
from tablepi.display.view import Action, Button, ScreenKind, SeatView, View
from tablepi.rules import Seat

ANNOUNCE = (Action.ANNOUNCE_MATT, Action.ANNOUNCE_KONTER, Action.ANNOUNCE_KONTER_A_MATT)


def _overlap(a, b) -> bool:  # type: ignore[no-untyped-def]
    return a.x < b.right and b.x < a.right and a.y < b.bottom and b.y < a.bottom


@pytest.mark.parametrize("family", list(PANELS))
def test_every_seat_gets_its_targets_clear_of_everything_and_touches_name_it(family: str) -> None:
    size = PANELS[family].size
    layout = layout_for(size)
    for bottom in Seat:
        slots = layout.slots(bottom)
        for counts in itertools.product((0, 1, 3), repeat=4):
            seats = tuple(
                SeatView(seat, seat.value, targets=tuple(Button(a, a.value, seat=seat) for a in ANNOUNCE[:n]))
                for seat, n in zip(Seat, counts, strict=True)
            )
            view = View(ScreenKind.DEAL, bottom_seat=bottom, seats=seats)
            placed = layout.target_rects(view)
            assert len(placed) == sum(counts), (family, bottom, counts)
            rects = [rect for _, rect in placed]
            for i, (button, rect) in enumerate(placed):
                t = layout.table
                assert t.x <= rect.x and rect.right <= t.right and t.y <= rect.y and rect.bottom <= t.bottom
                assert not any(_overlap(rect, other) for other in rects[i + 1:])
                assert not any(_overlap(rect, slot.card) for slot in slots.values())
                hit = button_at(view, size, rect.center)
                assert hit is not None and hit[0] is button and hit[0].seat is button.seat
