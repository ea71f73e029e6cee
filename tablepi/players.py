"""Player tags: a keyring NFC tag per regular player, so that tapping it on a zone seats him there.

A player file is TOML (read with the standard library, written by ``tablepi enroll --player NAME``), one line per
tag, the name first because that is what a person looks for::

    # tablepi player tags
    format = 1

    [players]
    Jang = "04A1B2C3D4E5F6"
    "Marie-Thérèse" = "04A1B2C3D4E5F7"

A name holds one tag (enrolling a name again replaces its tag), a tag one name, and no player tag may be a card of
a deck: a tag that could be a card and a player would make a seat change out of a play. Errors are
:class:`~tablepi.errors.ConfigError` naming the file and the name to fix.

>>> reg = PlayerRegistry({"04A1B2C3D4E5F6": "Jang"})
>>> reg.lookup("04:a1:b2:c3:d4:e5:f6")
'Jang'
>>> reg.lookup("DEADBEEF") is None
True
"""

from __future__ import annotations

import contextlib
import unicodedata
from collections.abc import Iterator, Mapping
from pathlib import Path
from types import MappingProxyType

from tablepi.deck import atomic_write_text
from tablepi.errors import ConfigError, ParseError
from tablepi.readers.events import normalise_uid
from tablepi.safeinput import clean_text, load_toml, shown

#: Version of the player file format written here.
FORMAT = 1
#: The longest name a table keeps, the one bound for every way a player is named (typed, tag, tournament, records):
#: generous for real names ("Marie-Christine Weber-Schmitt" is 29). A longer name reaching the table is cut to
#: this length and marked with :data:`CUT_MARK` (:func:`fit_name`); the record reader refuses longer ones.
MAX_NAME = 40
#: The last character of a name the table had to cut.
CUT_MARK = "\u2026"

_HEADER = """\
# tablepi player tags: the NFC tag UID of each regular player's keyring tag.
# Written by `tablepi enroll --player NAME`; safe to edit by hand (name = "UID").
"""


def _control(name: str) -> bool:
    """A control character, or a line or paragraph separator: a name is one line."""
    return any(unicodedata.category(ch)[0] == "C" or unicodedata.category(ch) in ("Zl", "Zp") for ch in name)


def check_name(name: object) -> str:
    """A player's name as the table keeps it: trimmed, 1 to :data:`MAX_NAME` printable characters on one line.
    A newline, a tab or any other control character is refused, never joined into the name.

    >>> check_name("  Jang ")
    'Jang'
    """
    if not isinstance(name, str):
        raise ConfigError(f"a player's name must be text, not {shown(name)}")
    if _control(name):
        raise ConfigError(f"player name {shown(name)} holds a control character (a name is one line)")
    text = " ".join(name.split())
    if not text:
        raise ConfigError("a player's name cannot be empty")
    if len(text) > MAX_NAME:
        raise ConfigError(f"player name {shown(text)} is longer than {MAX_NAME} characters")
    return text


def fit_name(name: object) -> tuple[str, bool]:
    """A name from outside (the tournament, a config, the keyboard) as the table can keep it: trimmed, and cut to
    :data:`MAX_NAME` with :data:`CUT_MARK` when longer; ``(name, cut)``. A name :func:`check_name` refuses for
    any other reason (a control character, empty) raises ConfigError.

    >>> fit_name("Marie-Christine Weber-Schmitt von und zu Luxemburg")
    ('Marie-Christine Weber-Schmitt von und z\u2026', True)
    """
    if isinstance(name, str) and not _control(name):
        text = " ".join(name.split())
        if len(text) > MAX_NAME:
            return text[: MAX_NAME - 1].rstrip() + CUT_MARK, True
    return check_name(name), False


class PlayerRegistry:
    """Tag UID -> player name, both ways unique."""

    def __init__(self, tags: Mapping[str, str] | None = None, *, source: Path | None = None) -> None:
        self.source = source
        self._by_uid: dict[str, str] = {}
        by_name: dict[str, str] = {}
        for uid, name in (tags or {}).items():
            uid, name = normalise_uid(uid), check_name(name)
            if uid in self._by_uid:
                raise ConfigError(f"player tag {uid} is given twice")
            if name.casefold() in by_name:
                raise ConfigError(f"player {shown(name)} has two tags, {by_name[name.casefold()]} and {uid}")
            self._by_uid[uid] = name
            by_name[name.casefold()] = uid

    def lookup(self, uid: str) -> str | None:
        """The name of the player whose tag is ``uid``, or None."""
        found = self._by_uid.get(uid)
        if found is None:
            with contextlib.suppress(ParseError):
                found = self._by_uid.get(normalise_uid(uid))
        return found

    def uid_of(self, name: str) -> str | None:
        folded = name.casefold()
        return next((uid for uid, known in self._by_uid.items() if known.casefold() == folded), None)

    def with_player(self, uid: str, name: str) -> PlayerRegistry:
        """A registry where ``name`` holds tag ``uid``: his old tag, and the tag's old owner, are dropped."""
        uid, name = normalise_uid(uid), check_name(name)
        kept = {u: n for u, n in self._by_uid.items() if u != uid and n.casefold() != name.casefold()}
        return PlayerRegistry({**kept, uid: name}, source=self.source)

    @property
    def tags(self) -> Mapping[str, str]:
        return MappingProxyType(self._by_uid)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(sorted(self._by_uid.values(), key=str.casefold))

    def __contains__(self, uid: object) -> bool:
        return isinstance(uid, str) and self.lookup(uid) is not None

    def __len__(self) -> int:
        return len(self._by_uid)

    def __iter__(self) -> Iterator[str]:
        return iter(self._by_uid)


def load_players_file(path: str | Path) -> PlayerRegistry:
    """The player tags of one file; a missing file is an empty registry (no player enrolled yet)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return PlayerRegistry(source=path)
    except UnicodeDecodeError as err:
        raise ConfigError(f"{path}: not UTF-8 text (byte {err.start}: {err.reason})", path=str(path)) from None
    except OSError as err:
        raise ConfigError(f"{path}: cannot read the player file: {err}", path=str(path)) from None
    try:
        data = load_toml(text)  # a BOM is accepted; hostile nesting, numbers and text are one-line errors
    except ValueError as err:
        raise ConfigError(clean_text(f"{path}: not a valid player file: {err}"), path=str(path)) from None
    try:
        return _parse_players(path, data)
    except ConfigError as err:
        raise ConfigError(clean_text(str(err))) from None


def _parse_players(path: Path, data: dict[str, object]) -> PlayerRegistry:
    unknown = sorted(set(data) - {"format", "players"})
    if unknown:
        raise ConfigError(f"{path}: unknown key {shown(unknown[0])}", path=str(path))
    fmt = data.get("format", FORMAT)
    if type(fmt) is not int or fmt != FORMAT:
        raise ConfigError(f"{path}: player file format {shown(fmt)} (this tablepi reads {FORMAT})", path=str(path))
    players = data.get("players", {})
    if not isinstance(players, dict):
        raise ConfigError(f"{path}: [players] must be a table of name = \"UID\"", path=str(path))
    tags: dict[str, str] = {}
    for name, uid in players.items():
        if not isinstance(uid, str):
            raise ConfigError(f"{path}: players.{name}: expected a tag UID in quotes, got {shown(uid)}",
                              key=f"players.{name}", path=str(path))
        try:
            normal = normalise_uid(uid)
        except ParseError as err:
            raise ConfigError(f"{path}: players.{name}: {err}", key=f"players.{name}", path=str(path)) from None
        if normal in tags:
            raise ConfigError(f"{path}: players.{name}: tag {normal} is already {shown(tags[normal])}'s",
                              key=f"players.{name}", path=str(path))
        tags[normal] = name
    try:
        return PlayerRegistry(tags, source=path)
    except ConfigError as err:
        raise ConfigError(f"{path}: {err}", path=str(path)) from None


def render_players_file(registry: PlayerRegistry) -> str:
    lines = [_HEADER, f"format = {FORMAT}", "", "[players]"]
    for uid, name in sorted(registry.tags.items(), key=lambda item: item[1].casefold()):
        lines.append(f'{_toml_key(name)} = "{uid}"')
    return "\n".join(lines) + "\n"


def write_players_file(path: str | Path, registry: PlayerRegistry) -> None:
    """Write ``registry`` to ``path`` atomically (the old file or the new one, never half)."""
    atomic_write_text(Path(path), render_players_file(registry))


def _toml_key(name: str) -> str:
    if all(ch.isascii() and (ch.isalnum() or ch in "_-") for ch in name):
        return name
    return '"' + name.replace("\\", "\\\\").replace('"', '\\"') + '"'
