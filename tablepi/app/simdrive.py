"""Driving the ``sim`` reader from what only the app knows: game records, decks and cards.

Readers stop at :class:`~tablepi.readers.events.ZoneEvent` (tags on zones); the sim backend imports neither the
table, the rules nor the record format. This module is the app side of its ``record=`` and ``stdin=`` options:
a game record becomes a timed script, a typed card (``QS``) its tag in :func:`tablepi.deck.virtual_deck`.
:func:`open_configured_reader` is how the app opens any configured backend.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tablepi.deck import virtual_deck
from tablepi.errors import ConfigError, ParseError, TablepiError
from tablepi.journal.record import load_record
from tablepi.readers import Reader, normalise_uid, open_reader
from tablepi.readers.sim import ScriptStep
from tablepi.rules.cards import Card
from tablepi.table.events import CardLifted, CardPlaced

#: Default zone of each seat when a record's header names none (the configuration's default too).
DEFAULT_ZONES: Mapping[str, int] = {"N": 0, "E": 1, "S": 2, "W": 3}


def open_configured_reader(backend: str, options: Mapping[str, Any]) -> Reader:
    """The reader ``backend`` with its configured ``options``; for ``sim``, ``record=`` and ``speed=`` become its
    script and typed cards are understood (see :func:`sim_options`)."""
    return open_reader(backend, **(sim_options(options) if backend == "sim" else dict(options)))


def sim_options(options: Mapping[str, Any]) -> dict[str, Any]:
    """The sim backend's options with the app's part resolved: ``record=PATH`` (and ``speed``) appended to the
    ``script``, and ``typed_uid`` set to :func:`uid_of_text` unless given."""
    out = dict(options)
    record = out.pop("record", None)
    speed = out.pop("speed", 1.0)
    if record is not None:
        out["script"] = [*out.get("script", ()), *record_script(record, speed=speed)]
    out.setdefault("typed_uid", uid_of_text)
    return out


def uid_of_text(text: str) -> str:
    """A typed card (``QS``, ``10H``, ``♠Q``) as its :func:`~tablepi.deck.virtual_deck` tag, or a typed UID."""
    try:
        card = Card.parse(text)
    except ParseError:
        try:
            return normalise_uid(text)
        except ParseError:
            raise ParseError(
                f"{text!r} is neither a card (QS, 10H, ♠Q) nor a tag UID (8, 14 or 20 hex digits)"
            ) from None
    uid = virtual_deck().uid_of(card)
    assert uid is not None  # the virtual deck holds every card
    return uid


def record_script(path: str | Path, *, speed: float = 1.0) -> list[ScriptStep]:
    """The place/lift events of the game record at ``path`` as timed sim steps.

    Seconds are the record's times divided by ``speed``; a seat becomes its zone through the header's ``zones``
    (default N=0, E=1, S=2, W=3); an event keeps its recorded UID, else its card gets the UID of the header's
    deck, else of the virtual deck. Buttons, ticks and reader states are not things a reader sees: skipped.
    """
    if isinstance(speed, bool) or not isinstance(speed, int | float) or not speed > 0 or speed == float("inf"):
        raise ConfigError(f"sim option speed: expected a factor above 0 (1.0 = as recorded), got {speed!r}")
    try:
        record = load_record(path)
    except TablepiError as err:
        raise ConfigError(f"sim option record: {err}") from None
    header = record.header
    zone_of = {seat.value: zone for zone, seat in header.zones} if header.zones else dict(DEFAULT_ZONES)
    uid_of = {card: uid for uid, card in header.deck}
    virtual = {card: uid for uid, card in virtual_deck().cards.items()}
    steps: list[ScriptStep] = []
    for event in record.events:
        if not isinstance(event, CardPlaced | CardLifted):
            continue
        zone = zone_of.get(event.seat.value)
        if zone is None:
            raise ConfigError(f"sim option record: {path}: seat {event.seat.value} has no zone in the header's zones")
        at = event.time / speed
        if isinstance(event, CardLifted):
            steps.append(ScriptStep(at, "lift", zone))
            continue
        uid = event.uid
        if not uid and event.card is not None:
            uid = uid_of.get(event.card) or virtual[event.card]
        try:
            uid = normalise_uid(uid)
        except ParseError as err:
            where = f"{path}: place at {event.time}s on seat {event.seat.value}"
            raise ConfigError(f"sim option record: {where}: {err}") from None
        steps.append(ScriptStep(at, "place", zone, uid))
    return steps
