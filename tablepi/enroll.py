"""Enrolment: teach the table which tag is on which card, by laying the 24 cards one by one.

This is the logic behind ``tablepi enroll``; the command line only builds the reader and prints what
:func:`enroll` says. The person holding the deck never types anything:

1. The table asks for each card of the pack in turn (``Lay ♠A on any zone``), in pack order.
2. A tag that already belongs to another deck, or that was already enrolled as another card in this session,
   is refused with a message saying which card it is; nothing changes.
3. **Undo**: laying the card just enrolled *again* (after lifting it) takes it back, and the table asks for
   that card again. That is how a wrong card is corrected: lay it a second time, then lay the right one.
4. After the 24th unique tag the deck is written to the deck file atomically (other decks in the file are kept;
   a deck of the same name is replaced), and the new :class:`~tablepi.deck.Deck` is returned.

Stopping early (``stop`` event, ``timeout``) raises :class:`EnrolmentCancelled` and writes nothing.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from tablepi.deck import Deck, DeckRegistry, load_deck_file, write_deck_file
from tablepi.errors import ConfigError, TablepiError
from tablepi.readers.base import Reader
from tablepi.readers.events import ZoneEvent, ZoneState, ZoneStatus
from tablepi.rules.cards import DECK, Card

#: What :func:`enroll` says, by key; pass ``messages=`` to translate. Fields: ``card`` (as printed, ``♠A``),
#: ``n`` (1..24), ``total``, ``deck``, ``other`` (a card), ``zone``, ``detail``, ``path``.
MESSAGES: Mapping[str, str] = {
    "ask": "Lay {card} on any zone ({n}/{total}).",
    "ok": "{card} enrolled.",
    "other_deck": "This tag is already {other} of deck '{deck}'. Lay {card}.",
    "already": "This tag is already enrolled as {other}. Lay {card}.",
    "undo": "Took back {other}.",
    "zone": "Zone {zone}: {detail}.",
    "done": "Deck '{deck}' complete: {total} cards saved to {path}.",
}


class EnrolmentCancelled(TablepiError, RuntimeError):
    """Enrolment stopped before every card had a tag; nothing was written."""


def enroll(
    reader: Reader,
    deck_name: str,
    out_path: str | Path,
    say: Callable[[str], None],
    *,
    others: DeckRegistry | None = None,
    cards: Sequence[Card] = DECK,
    stop: threading.Event | None = None,
    timeout: float | None = None,
    messages: Mapping[str, str] = MESSAGES,
    clock: Callable[[], float] = time.monotonic,
) -> Deck:
    """Enrol deck ``deck_name`` from cards laid on ``reader``; write it into ``out_path``; return it.

    ``others`` are decks from other files whose tags must be refused too (decks already in ``out_path``, except
    one named ``deck_name``, are always refused). ``timeout`` bounds the whole session in seconds.
    """
    if not isinstance(deck_name, str) or not deck_name.strip():
        raise ConfigError(f"deck name must be a non-empty name, not {deck_name!r}")
    out_path = Path(out_path)
    kept = [d for d in (load_deck_file(out_path) if out_path.exists() else []) if d.name != deck_name]
    refused = DeckRegistry([*kept, *(d for d in (others.decks.values() if others else ()) if d.name != deck_name)])
    text = {**MESSAGES, **messages}
    session = _Session(list(cards))
    deadline = None if timeout is None else clock() + timeout

    def tell(key: str, **fields: object) -> None:
        values: dict[str, object] = {"total": len(session.wanted), "deck": deck_name, "path": out_path}
        say(text[key].format_map({**values, **fields}))

    tell("ask", card=session.current.display, n=1)
    while not session.done:
        if stop is not None and stop.is_set():
            raise EnrolmentCancelled(f"enrolment of deck {deck_name!r} stopped; nothing written")
        if deadline is not None and clock() >= deadline:
            raise EnrolmentCancelled(f"enrolment of deck {deck_name!r} timed out; nothing written")
        event = reader.recv(0.1)
        if isinstance(event, ZoneStatus):
            if event.state is not ZoneState.ONLINE:
                tell("zone", zone=event.zone, detail=event.detail or event.state.value)
            continue
        if not isinstance(event, ZoneEvent):
            continue
        if not event.present:
            session.lifted(event)
            continue
        session.placed(event)
        known = refused.lookup(event.uid)
        if known is not None:
            tell("other_deck", other=known[1].display, deck=known[0], card=session.current.display)
            continue
        if event.uid in session.on_zones_elsewhere(event):
            continue  # the same tag read on two zones at once: one card, not an undo
        enrolled = session.card_of(event.uid)
        if enrolled is not None:
            if session.is_last(event.uid):
                session.undo()
                tell("undo", other=enrolled.display)
                tell("ask", card=session.current.display, n=session.position + 1)
            else:
                tell("already", other=enrolled.display, card=session.current.display)
            continue
        card = session.current
        session.enrol(event.uid)
        tell("ok", card=card.display)
        if not session.done:
            tell("ask", card=session.current.display, n=session.position + 1)

    deck = Deck(deck_name, session.result(), source=out_path)
    write_deck_file(out_path, [*kept, deck])
    tell("done")
    return deck


class _Session:
    """The cards still wanted and the tags enrolled so far, in order (the last one can be undone)."""

    def __init__(self, wanted: list[Card]) -> None:
        if not wanted or len(set(wanted)) != len(wanted):
            raise ConfigError("enrolment needs a list of distinct cards")
        self.wanted = wanted
        self._uids: list[str] = []  # _uids[i] is the tag of wanted[i]
        self._zones: dict[int, str] = {}

    @property
    def position(self) -> int:
        return len(self._uids)

    @property
    def done(self) -> bool:
        return len(self._uids) == len(self.wanted)

    @property
    def current(self) -> Card:
        return self.wanted[len(self._uids)]

    def card_of(self, uid: str) -> Card | None:
        return self.wanted[self._uids.index(uid)] if uid in self._uids else None

    def is_last(self, uid: str) -> bool:
        return bool(self._uids) and self._uids[-1] == uid

    def enrol(self, uid: str) -> None:
        self._uids.append(uid)

    def undo(self) -> None:
        self._uids.pop()

    def placed(self, event: ZoneEvent) -> None:
        self._zones[event.zone] = event.uid

    def lifted(self, event: ZoneEvent) -> None:
        if self._zones.get(event.zone) == event.uid:
            del self._zones[event.zone]

    def on_zones_elsewhere(self, event: ZoneEvent) -> set[str]:
        return {uid for zone, uid in self._zones.items() if zone != event.zone}

    def result(self) -> dict[str, Card]:
        return dict(zip(self._uids, self.wanted, strict=True))
