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

A player's keyring tag is enrolled the same way (:class:`PlayerEnrolment`): the first tag laid that is no card of
a deck becomes his, in the player file (:mod:`tablepi.players`).

Both are step-driven sessions (:meth:`DeckEnrolment.feed` takes one reader event and returns what to say), so
that the running table can host them as its enrol mode and nothing but the table opens the reader.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Protocol

from tablepi.deck import Deck, DeckRegistry, load_deck_file, write_deck_file
from tablepi.errors import ConfigError, TablepiError
from tablepi.players import PlayerRegistry, check_name, load_players_file, write_players_file
from tablepi.readers.events import ReaderEvent, ZoneEvent, ZoneState, ZoneStatus, normalise_uid
from tablepi.rules.cards import DECK, Card

#: What :func:`enroll` says, by key; pass ``messages=`` to translate. Fields: ``card`` (as printed, ``♠A``),
#: ``n`` (1..24), ``total``, ``deck``, ``other`` (a card, or a player), ``zone``, ``detail``, ``path``, ``player``.
MESSAGES: Mapping[str, str] = {
    "ask": "Lay {card} on any zone ({n}/{total}).",
    "ok": "{card} enrolled.",
    "other_deck": "This tag is already {other} of deck '{deck}'. Lay {card}.",
    "already": "This tag is already enrolled as {other}. Lay {card}.",
    "undo": "Took back {other}.",
    "zone": "Zone {zone}: {detail}.",
    "done": "Deck '{deck}' complete: {total} cards saved to {path}.",
    "player_tag": "This tag is {player}'s player tag, not a card. Lay {card}.",
    "player_ask": "Lay {player}'s player tag on any zone.",
    "player_card": "This tag is {other} of deck '{deck}', not a player tag. Lay {player}'s tag.",
    "player_was": "This tag was {other}'s; it is {player}'s now.",
    "player_done": "Player tag of {player} saved to {path}.",
}


class EnrolmentCancelled(TablepiError, RuntimeError):
    """Enrolment stopped before every card had a tag; nothing was written."""


class EventSource(Protocol):
    """Where enrolment reads the zones from: a :class:`~tablepi.readers.base.Reader` (``tablepi enroll`` without
    a running table), or the running table's own reader events handed on (the enrol mode of the service)."""

    def recv(self, timeout: float | None = None) -> ReaderEvent | None: ...


class DeckEnrolment:
    """One deck being enrolled, fed one reader event at a time; every method returns what to say.

    The loop of :func:`enroll` drives it from a reader; the running table drives it from its inbox, so that no
    second program opens the reader. When the last card is enrolled :meth:`feed` writes the deck file (atomically:
    a table watching the file sees the old one or the new one) and :attr:`deck` is set.
    """

    def __init__(
        self,
        deck_name: str,
        out_path: str | Path,
        *,
        others: DeckRegistry | None = None,
        cards: Sequence[Card] = DECK,
        messages: Mapping[str, str] = MESSAGES,
        players: PlayerRegistry | None = None,
    ) -> None:
        if not isinstance(deck_name, str) or not deck_name.strip():
            raise ConfigError(f"deck name must be a non-empty name, not {deck_name!r}")
        self.name = deck_name
        self.out_path = Path(out_path)
        self._kept = [d for d in (load_deck_file(self.out_path) if self.out_path.exists() else [])
                      if d.name != deck_name]
        others_kept = (d for d in (others.decks.values() if others else ()) if d.name != deck_name)
        self._refused = DeckRegistry([*self._kept, *others_kept])
        self._players = players or PlayerRegistry()
        self._text = {**MESSAGES, **messages}
        self._session = _Session(list(cards))
        self.deck: Deck | None = None
        #: The last two things said, as (MESSAGES key, fields): the screen says them in its own language.
        self.said: tuple[tuple[str, dict[str, object]], ...] = ()

    @property
    def done(self) -> bool:
        return self.deck is not None

    @property
    def what(self) -> str:
        return f"deck {self.name!r}"

    def _say(self, key: str, **fields: object) -> str:
        values: dict[str, object] = {"total": len(self._session.wanted), "deck": self.name, "path": self.out_path}
        return _said(self, self._text, key, {**values, **fields})

    def start(self) -> list[str]:
        return [self._say("ask", card=self._session.current.display, n=1)]

    def feed(self, event: object) -> list[str]:
        session = self._session
        if self.done:
            return []
        if isinstance(event, ZoneStatus):
            if event.state is not ZoneState.ONLINE:
                return [self._say("zone", zone=event.zone, detail=event.detail or event.state.value)]
            return []
        if not isinstance(event, ZoneEvent):
            return []
        if not event.present:
            session.lifted(event)
            return []
        session.placed(event)
        known = self._refused.lookup(event.uid)
        if known is not None:
            return [self._say("other_deck", other=known[1].display, deck=known[0], card=session.current.display)]
        player = self._players.lookup(event.uid)
        if player is not None:
            return [self._say("player_tag", player=player, card=session.current.display)]
        if event.uid in session.on_zones_elsewhere(event):
            return []  # the same tag read on two zones at once: one card, not an undo
        enrolled = session.card_of(event.uid)
        if enrolled is not None:
            if session.is_last(event.uid):
                session.undo()
                return [self._say("undo", other=enrolled.display),
                        self._say("ask", card=session.current.display, n=session.position + 1)]
            return [self._say("already", other=enrolled.display, card=session.current.display)]
        card = session.current
        session.enrol(event.uid)
        said = [self._say("ok", card=card.display)]
        if not session.done:
            said.append(self._say("ask", card=session.current.display, n=session.position + 1))
            return said
        deck = Deck(self.name, session.result(), source=self.out_path)
        write_deck_file(self.out_path, [*self._kept, deck])
        self.deck = deck
        said.append(self._say("done"))
        return said


class PlayerEnrolment:
    """One player's keyring tag being enrolled: the first tag laid that is no card becomes his.

    Enrolling a name again replaces his tag; a tag that was another player's becomes this one's (said so).
    """

    def __init__(
        self,
        name: str,
        out_path: str | Path,
        *,
        decks: DeckRegistry | None = None,
        messages: Mapping[str, str] = MESSAGES,
    ) -> None:
        self.name = check_name(name)
        self.out_path = Path(out_path)
        self._decks = decks or DeckRegistry()
        self._registry = load_players_file(self.out_path)
        self._text = {**MESSAGES, **messages}
        self.uid: str | None = None
        self.said: tuple[tuple[str, dict[str, object]], ...] = ()  # as DeckEnrolment.said

    @property
    def done(self) -> bool:
        return self.uid is not None

    @property
    def what(self) -> str:
        return f"the player tag of {self.name!r}"

    def _say(self, key: str, **fields: object) -> str:
        return _said(self, self._text, key, {"player": self.name, "path": self.out_path, **fields})

    def start(self) -> list[str]:
        return [self._say("player_ask")]

    def feed(self, event: object) -> list[str]:
        if self.done:
            return []
        if isinstance(event, ZoneStatus):
            if event.state is not ZoneState.ONLINE:
                return [self._say("zone", zone=event.zone, detail=event.detail or event.state.value)]
            return []
        if not isinstance(event, ZoneEvent) or not event.present:
            return []
        known = self._decks.lookup(event.uid)
        if known is not None:
            return [self._say("player_card", other=known[1].display, deck=known[0])]
        said = []
        before = self._registry.lookup(event.uid)
        if before is not None and before.casefold() != self.name.casefold():
            said.append(self._say("player_was", other=before))
        write_players_file(self.out_path, self._registry.with_player(event.uid, self.name))
        self.uid = normalise_uid(event.uid)
        said.append(self._say("player_done"))
        return said


Enrolment = DeckEnrolment | PlayerEnrolment


def _said(session: Enrolment, text: Mapping[str, str], key: str, fields: dict[str, object]) -> str:
    """The line for ``key`` (kept with its fields in ``session.said``, the last two)."""
    values = {name: str(value) if isinstance(value, Path) else value for name, value in fields.items()}
    session.said = (*session.said[-1:], (key, values))
    return text[key].format_map(values)


def run_enrolment(
    session: Enrolment,
    reader: EventSource,
    say: Callable[[str], None],
    *,
    stop: threading.Event | None = None,
    timeout: float | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> None:
    """Drive ``session`` from ``reader`` until it is done; EnrolmentCancelled (nothing written) if stopped."""
    deadline = None if timeout is None else clock() + timeout
    for line in session.start():
        say(line)
    while not session.done:
        if stop is not None and stop.is_set():
            raise EnrolmentCancelled(f"enrolment of {session.what} stopped; nothing written")
        if deadline is not None and clock() >= deadline:
            raise EnrolmentCancelled(f"enrolment of {session.what} timed out; nothing written")
        for line in session.feed(reader.recv(0.1)):
            say(line)


def enroll(
    reader: EventSource,
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
    players: PlayerRegistry | None = None,
) -> Deck:
    """Enrol deck ``deck_name`` from cards laid on ``reader``; write it into ``out_path``; return it.

    ``others`` are decks from other files whose tags must be refused too (decks already in ``out_path``, except
    one named ``deck_name``, are always refused), and so are ``players``' tags. ``timeout`` bounds the whole
    session in seconds.
    """
    session = DeckEnrolment(deck_name, out_path, others=others, cards=cards, messages=messages, players=players)
    run_enrolment(session, reader, say, stop=stop, timeout=timeout, clock=clock)
    assert session.deck is not None
    return session.deck


def enroll_player(
    reader: EventSource,
    name: str,
    out_path: str | Path,
    say: Callable[[str], None],
    *,
    decks: DeckRegistry | None = None,
    stop: threading.Event | None = None,
    timeout: float | None = None,
    messages: Mapping[str, str] = MESSAGES,
    clock: Callable[[], float] = time.monotonic,
) -> str:
    """Enrol ``name``'s player tag from the first non-card tag laid on ``reader``; returns its UID."""
    session = PlayerEnrolment(name, out_path, decks=decks, messages=messages)
    run_enrolment(session, reader, say, stop=stop, timeout=timeout, clock=clock)
    assert session.uid is not None
    return session.uid


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
