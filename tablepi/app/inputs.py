"""What reaches the app's loop: one union of typed values, put on one queue by the threads at the adapters.

- the readers' zone events, statuses and crosstalk notices (:mod:`tablepi.readers.events`, via the reader pump);
- a button pressed on the GPIO controls (:class:`~tablepi.controls.events.ControlEvent`), or a control touched
  on the screen with the seat it acts for (:class:`Touch`);
- a line from the feed: the tournament's seating, the director's announcement or the feed's own warning;
- a request on the control socket, or its client hanging up;
- a table event made elsewhere (the demo's simulated players, a replay, a crash test) that the loop journals and
  applies as it is.

"""

from __future__ import annotations

import queue
from dataclasses import dataclass

from tablepi.controls.events import ControlEvent
from tablepi.display.keys import Touched
from tablepi.feed.messages import Seating
from tablepi.notices import Notice
from tablepi.readers.events import ZoneCrosstalk, ZoneEvent, ZoneStatus
from tablepi.rules.seats import Seat
from tablepi.service_socket import ControlCancel, ControlRequest
from tablepi.table import TableEvent


@dataclass(frozen=True, slots=True)
class Touch:
    """A control touched on the screen, as a value: a button (the table's own name for it), a key of the sheet, the
    header, a seat's card place (:data:`tablepi.display.keys.Touched`); and the seat it acts for when the screen
    knows (a seat's corner), else the table infers it."""

    target: Touched
    seat: Seat | None = None


#: A reader's report about its zones.
ReaderInput = ZoneEvent | ZoneStatus | ZoneCrosstalk
#: What a person pressed: a button of the controls, a control on the screen.
PressInput = ControlEvent | Touch
#: A line of the feed (the tournament server, the broker).
FeedInput = Seating | Notice
#: A client of the control socket.
ControlInput = ControlRequest | ControlCancel
#: Everything the loop takes.
Input = ReaderInput | PressInput | FeedInput | ControlInput | TableEvent


#: The loop's one queue: ``put`` from any thread (reader pumps, controls, the feed, the control socket, the demo),
#: taken only on the loop's thread.
Inbox = queue.Queue[Input]
