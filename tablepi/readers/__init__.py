"""Reader zones behind one interface: hardware in, :class:`ZoneEvent` / :class:`ZoneStatus` out.

Backends are chosen by name from the configuration and imported only when asked for, so a missing optional
driver (pyscard for ``pcsc``) breaks only its own backend, with an error that says what to install:

>>> with open_reader("sim") as reader:
...     reader.place(1, "04A1B2C3D4E5F6")
...     [str(e) for e in iter(lambda: reader.recv(0.05), None) if isinstance(e, ZoneEvent)]
['zone 1: +04A1B2C3D4E5F6 @...']
"""

from __future__ import annotations

from tablepi.readers.base import Reader, ReaderHealth
from tablepi.readers.events import ZONES, ReaderEvent, ZoneEvent, ZoneState, ZoneStatus, normalise_uid
from tablepi.readers.pump import ReaderPump
from tablepi.readers.registry import BACKENDS, open_reader, reader_class

__all__ = [
    "BACKENDS",
    "ZONES",
    "Reader",
    "ReaderEvent",
    "ReaderHealth",
    "ReaderPump",
    "ZoneEvent",
    "ZoneState",
    "ZoneStatus",
    "normalise_uid",
    "open_reader",
    "reader_class",
]
