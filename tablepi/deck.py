"""Deck files: which RFID tag is stuck on which card, for one or more physical decks.

A deck file is TOML (read with the standard library, written by ``tablepi enroll``), one table per deck, one
line per card, the card first because that is how a person checks it against the cards in hand::

    # tablepi deck file
    format = 1

    [decks.red]
    AS = "04A1B2C3D4E5F6"
    KS = "04A1B2C3D4E5F7"
    # ... all 24 cards of the pack

    [decks.blue]
    AS = "0499887766554433"

Cards are written as :class:`~tablepi.rules.cards.Card` text (``AS``, ``TS`` or ``10S``, ``QH``); UIDs as hex
(``04:a1:...`` is accepted and normalised). Every deck must hold each of the 24 cards exactly once, and no UID may
appear twice, within a deck or across decks and files: a tag that could be two cards would break the game.
Errors are :class:`ConfigError` naming the file and the line (or the key) to fix.

>>> reg = DeckRegistry([Deck("red", {"04A1B2C3D4E5F6": Card.parse("QS")})], complete=False)
>>> reg.lookup("04A1B2C3D4E5F6")
('red', Card.parse('QS'))
>>> reg.lookup("DEADBEEF") is None
True
"""

from __future__ import annotations

import contextlib
import os
import re
import tempfile
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType

from tablepi.errors import ConfigError, ParseError
from tablepi.readers.events import normalise_uid
from tablepi.rules.cards import DECK, Card
from tablepi.safeinput import clean_text, line_of, load_toml, shown

#: Version of the deck file format written here.
FORMAT = 1

_HEADER = """\
# tablepi deck file: the RFID tag UID of every card, one table per physical deck.
# Written by `tablepi enroll`; safe to edit by hand (card = "UID"). See docs/readers.md.
"""


@dataclass(frozen=True)
class Deck:
    """One physical deck: ``cards`` maps each tag UID to its card."""

    name: str
    cards: Mapping[str, Card]
    source: Path | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "cards", MappingProxyType(dict(self.cards)))

    def uid_of(self, card: Card) -> str | None:
        """The tag UID enrolled for ``card`` (``None`` if it has none)."""
        return next((uid for uid, c in self.cards.items() if c == card), None)

    @property
    def missing(self) -> tuple[Card, ...]:
        """Cards of the pack this deck has no tag for, in pack order."""
        have = set(self.cards.values())
        return tuple(c for c in DECK if c not in have)


class DeckRegistry:
    """All decks the table knows, for turning a tag UID into ``(deck name, card)``.

    ``complete=True`` (the default, and always when loading files) demands every deck holds all 24 cards.
    """

    def __init__(self, decks: Iterable[Deck] = (), *, complete: bool = True) -> None:
        self._decks: dict[str, Deck] = {}
        self._by_uid: dict[str, tuple[str, Card]] = {}
        for deck in decks:
            self._add(deck, complete)

    def _add(self, deck: Deck, complete: bool) -> None:
        where = f" in {deck.source}" if deck.source else ""
        if deck.name in self._decks:
            other = self._decks[deck.name].source
            raise ConfigError(f"deck {deck.name!r}{where} is defined twice (also in {other or 'another file'})")
        seen_cards: dict[Card, str] = {}
        for uid, card in deck.cards.items():
            if card in seen_cards:
                raise ConfigError(f"deck {deck.name!r}{where}: card {card} has two tags, {seen_cards[card]} and {uid}")
            seen_cards[card] = uid
            if uid in self._by_uid:
                other_name, other_card = self._by_uid[uid]
                raise ConfigError(
                    f"deck {deck.name!r}{where}: tag {uid} of {card} is already {other_card} of deck {other_name!r}"
                )
        if complete and deck.missing:
            missing = " ".join(str(c) for c in deck.missing)
            raise ConfigError(f"deck {deck.name!r}{where} lacks {len(deck.missing)} card(s): {missing}")
        self._decks[deck.name] = deck
        for uid, card in deck.cards.items():
            self._by_uid[uid] = (deck.name, card)

    @classmethod
    def load(cls, *paths: str | Path) -> DeckRegistry:
        """Read deck files; a missing, broken or conflicting file is a ConfigError naming it."""
        decks: list[Deck] = []
        for path in paths:
            decks.extend(load_deck_file(path))
        return cls(decks)

    def lookup(self, uid: str) -> tuple[str, Card] | None:
        """``(deck name, card)`` of the tag ``uid``, or ``None`` for a tag no deck knows."""
        found = self._by_uid.get(uid)
        if found is None:
            with contextlib.suppress(ParseError):
                found = self._by_uid.get(normalise_uid(uid))
        return found

    @property
    def decks(self) -> Mapping[str, Deck]:
        return MappingProxyType(self._decks)

    def __contains__(self, uid: object) -> bool:
        return isinstance(uid, str) and self.lookup(uid) is not None

    def __len__(self) -> int:
        return len(self._by_uid)

    def __iter__(self) -> Iterator[str]:
        return iter(self._by_uid)


def virtual_deck(name: str = "demo") -> Deck:
    """A deck of 24 made-up NTAG213 UIDs (7 bytes, NXP's 04 prefix), one per card, the same on every run.

    The demo, the ``sim`` reader's game records and keys, and a table tried by hand without tags all use it, so
    a UID typed or recorded once means the same card everywhere. The UIDs are invented: load this deck only on a
    table without real tags, since a real tag could by chance carry one of them.
    """
    return Deck(name, {f"04D3{card.index:02X}A1B2C3D4": card for card in DECK})


# --- reading --------------------------------------------------------------------------------------------------


def load_deck_file(path: str | Path) -> list[Deck]:
    """The decks of one deck file, each checked on its own (complete, no card or UID twice)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"{path}: deck file not found (enrol a deck with `tablepi enroll`)", path=str(path)) from None
    except UnicodeDecodeError as err:
        raise ConfigError(f"{path}: not UTF-8 text (byte {err.start}: {err.reason})", path=str(path)) from None
    except OSError as err:
        raise ConfigError(f"{path}: cannot read deck file: {err}", path=str(path)) from None
    try:
        data = load_toml(text)  # a BOM is accepted
    except ValueError as err:
        raise ConfigError(clean_text(f"{path}: not a valid deck file: {err}"), path=str(path)) from None
    try:
        return _parse_decks(path, text, data)
    except ConfigError as err:
        raise ConfigError(clean_text(str(err))) from None


def _parse_decks(path: Path, text: str, data: dict[str, object]) -> list[Deck]:
    unknown = sorted(set(data) - {"format", "decks"})
    if unknown:
        raise ConfigError(f"{path}:{_line_of(text, None, unknown[0])}: unknown key {shown(unknown[0])}", path=str(path))
    fmt = data.get("format", FORMAT)
    if type(fmt) is not int or fmt != FORMAT:  # `format = true` is not format 1
        where = _line_of(text, None, "format")
        raise ConfigError(f"{path}:{where}: deck file format {shown(fmt)} (this tablepi reads {FORMAT})",
                          path=str(path))
    tables = data.get("decks", {})
    if not isinstance(tables, dict) or not tables:
        raise ConfigError(f"{path}: no decks (expected tables such as [decks.red])", path=str(path))
    decks = []
    for name, entries in tables.items():
        decks.append(_parse_deck(path, text, name, entries))
    DeckRegistry(decks)  # cross-check the decks of this file against each other
    return decks


def _parse_deck(path: Path, text: str, name: str, entries: object) -> Deck:
    if not isinstance(entries, dict):
        raise ConfigError(f"{path}:{_line_of(text, 'decks', name)}: decks.{name} must be a table of card = \"UID\"",
                          path=str(path))
    cards: dict[str, Card] = {}
    key_of: dict[Card, str] = {}
    for key, value in entries.items():
        line = _line_of(text, f"decks.{name}", key)
        try:
            card = Card.parse(key)
        except ParseError as err:
            raise ConfigError(f"{path}:{line}: decks.{name}.{key}: {err}",
                              key=f"decks.{name}.{key}", path=str(path)) from None
        if card in key_of:
            raise ConfigError(
                f"{path}:{line}: decks.{name}: card {card} given twice ({shown(key_of[card])} and {shown(key)})")
        if not isinstance(value, str):
            raise ConfigError(f'{path}:{line}: decks.{name}.{key}: expected a tag UID in quotes, got {shown(value)}')
        try:
            uid = normalise_uid(value)
        except ParseError as err:
            raise ConfigError(f"{path}:{line}: decks.{name}.{key}: {err}",
                              key=f"decks.{name}.{key}", path=str(path)) from None
        if uid in cards:
            raise ConfigError(
                f"{path}:{line}: decks.{name}.{key}: tag {uid} is already card {cards[uid]} of this deck"
            )
        cards[uid] = card
        key_of[card] = key
    deck = Deck(name, cards, source=path)
    if deck.missing:
        missing = " ".join(str(c) for c in deck.missing)
        where = _line_of(text, "decks", name)
        raise ConfigError(f"{path}:{where}: deck {name!r} lacks {len(deck.missing)} card(s): {missing}", path=str(path))
    return deck


def _line_of(text: str, table: str | None, key: str) -> str:
    """The line of ``key`` in ``[table]`` for a message: its number, or the key's name when it is not found."""
    line = line_of(text, table, key)
    return str(line) if line is not None else f"key {table + '.' if table else ''}{key}"


# --- writing --------------------------------------------------------------------------------------------------


def render_deck_file(decks: Iterable[Deck]) -> str:
    """The text of a deck file holding ``decks``; cards in pack order, so files diff well."""
    lines = [_HEADER, f"format = {FORMAT}"]
    for deck in decks:
        lines.append("")
        lines.append(f"[decks.{_toml_key(deck.name)}]")
        by_card = {card: uid for uid, card in deck.cards.items()}
        ordered = [c for c in DECK if c in by_card] + [c for c in by_card if c not in DECK]
        for card in ordered:
            lines.append(f'{card} = "{by_card[card]}"  # {card.display}')
    return "\n".join(lines) + "\n"


def _toml_key(name: str) -> str:
    if re.fullmatch(r"[A-Za-z0-9_-]+", name):
        return name
    return '"' + name.replace("\\", "\\\\").replace('"', '\\"') + '"'


def write_deck_file(path: str | Path, decks: Iterable[Deck]) -> None:
    """Write ``decks`` to ``path`` atomically: a power cut leaves the old file or the new one, never half.

    The text goes to a temporary file in the same directory, is flushed and fsynced, renamed over ``path``,
    and the directory is fsynced so the rename itself is durable.
    """
    decks = list(decks)
    DeckRegistry(decks)  # refuse to write what could not be read back
    atomic_write_text(Path(path), render_deck_file(decks))


def atomic_write_text(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` so that a power cut, or a table reading it meanwhile, sees the old file or the new
    one, never half (the running table reloads deck and player files when they change)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    dir_fd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


# --- command line ---------------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    """``python -m tablepi.deck --virtual OUT``: write the virtual deck as a deck file, to try a table by hand."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m tablepi.deck", description=main.__doc__)
    parser.add_argument("--virtual", metavar="OUT", required=True, help="deck file to write the virtual deck to")
    parser.add_argument("--name", default="demo", help="name of the deck in the file (default: demo)")
    args = parser.parse_args(argv)
    write_deck_file(args.virtual, [virtual_deck(args.name)])
    print(f"wrote virtual deck {args.name!r} (24 cards) to {args.virtual}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
