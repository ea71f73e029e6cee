"""Reading files a person or a damaged card may have mangled: bounded parsing and values cut for messages.

Every reader of a file (records, configuration, deck files, journals) parses through here, so hostile input —
deep nesting, enormous numbers, lone surrogates, a 50 MB field, a byte-order mark — ends as one
:class:`~tablepi.errors.TablepiError` line naming the file, the line and the problem, never a traceback.

>>> shown("x" * 500)[:20], len(shown("x" * 500)) < 100
("'xxxxxxxxxxxxxxxxxxx", True)
>>> check_json({"a": [1, 2, {"b": "ok"}]})
>>> check_json(10**30)
Traceback (most recent call last):
...
ValueError: a number too large (31 digits)
"""

from __future__ import annotations

import json
import re
import reprlib
import tomllib
from typing import Any

#: Deepest nesting a record line, a config or a deck file may have (real ones need 3).
MAX_DEPTH = 16
#: Largest integer magnitude accepted anywhere (times, zone numbers, line counts need far less).
MAX_INT = 2**53
#: Longest text value accepted (a detail, a name, a deck name).
MAX_TEXT = 10_000
#: Longest line of a record or journal copy read at all.
MAX_LINE = 1_000_000

_REPR = reprlib.Repr()
_REPR.maxstring = 60
_REPR.maxother = 60
_REPR.maxlong = 40
_REPR.maxlevel = 3
_REPR.maxdict = 6
_REPR.maxlist = 6


def shown(value: object) -> str:
    """``repr(value)`` cut to a readable size on one line (messages must never echo a 50 MB field whole)."""
    try:
        text = _REPR.repr(value)
    except (RecursionError, ValueError, MemoryError):
        text = f"<{type(value).__name__}>"
    text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text if len(text) <= 80 else text[:77] + "..."


def clean_text(text: str) -> str:
    """One line, printable anywhere: newlines and lone surrogates escaped, length cut."""
    safe = text.encode("utf-8", "backslashreplace").decode("utf-8").replace("\r", "\\r").replace("\n", "\\n")
    return safe if len(safe) <= 300 else safe[:297] + "..."


def check_json(value: object, depth: int = 0) -> None:
    """Raise ValueError (a short reason) if ``value`` nests too deep, holds a huge number or invalid text."""
    stack: list[tuple[object, int]] = [(value, depth)]
    while stack:
        item, level = stack.pop()
        if level > MAX_DEPTH:
            raise ValueError(f"nested deeper than {MAX_DEPTH} levels")
        if isinstance(item, bool) or item is None:
            continue
        if isinstance(item, int):
            if abs(item) > MAX_INT:
                raise ValueError(f"a number too large ({len(str(abs(item)))} digits)")
        elif isinstance(item, float):
            if item != item or item in (float("inf"), float("-inf")):
                raise ValueError("a number that is not finite")
        elif isinstance(item, str):
            _check_text(item)
        elif isinstance(item, dict):
            for key, sub in item.items():
                _check_text(key)
                stack.append((sub, level + 1))
        elif isinstance(item, list | tuple):
            stack.extend((sub, level + 1) for sub in item)
        else:  # datetimes from TOML and the like: harmless
            continue


def _check_text(text: object) -> None:
    if not isinstance(text, str):
        return
    if len(text) > MAX_TEXT:
        raise ValueError(f"a text of {len(text)} characters (at most {MAX_TEXT})")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError(f"invalid text {shown(text)} (a lone surrogate)") from None


def _no_constant(name: str) -> float:
    raise ValueError(f"{name} is not a number JSON allows")


def load_json(text: str) -> Any:
    """``json.loads`` for one line of a file: bounded, checked, and every failure a ValueError with a short reason.

    A BOM at the start is accepted (files saved by Windows editors carry one).
    """
    if len(text) > MAX_LINE:
        raise ValueError(f"a line of {len(text)} characters (at most {MAX_LINE})")
    text = text.removeprefix("\ufeff")
    try:
        value = json.loads(text, parse_constant=_no_constant)
    except json.JSONDecodeError as err:
        raise ValueError(f"not JSON ({err.msg} at column {err.colno})") from None
    except RecursionError:
        raise ValueError(f"nested deeper than {MAX_DEPTH} levels") from None
    except (ValueError, OverflowError) as err:  # int digits limit, huge exponents
        raise ValueError(clean_text(str(err))) from None
    check_json(value)
    return value


def load_toml(text: str) -> dict[str, Any]:
    """``tomllib.loads``, bounded and checked; a BOM at the start is accepted. Failures are ValueError."""
    text = text.removeprefix("\ufeff")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise ValueError(f"not valid TOML: {clean_text(str(err))}") from None
    except RecursionError:
        raise ValueError(f"not valid TOML: nested deeper than {MAX_DEPTH} levels") from None
    except (ValueError, OverflowError, MemoryError) as err:
        raise ValueError(f"not valid TOML: {clean_text(str(err))}") from None
    check_json(data)
    return data


def line_of(text: str, table: str | None, key: str) -> int | None:
    """Best-effort line number of ``key`` in the TOML table ``[table]`` (``None``: top level) of ``text``, for
    error messages; None when it is not found. A key of ``decks`` is also found as its own ``[decks.key]`` table.

    >>> line_of("a = 1\\n[table]\\n# c\\njournal = 'j'\\n", "table", "journal")
    4
    """
    current: str | None = None
    header = re.compile(r"^\s*\[\s*([^\]]+?)\s*\]\s*(#.*)?$")
    for number, raw in enumerate(text.splitlines(), start=1):
        m = header.match(raw)
        if m:
            current = ".".join(part.strip().strip("\"'") for part in m.group(1).split("."))
            if table == "decks" and current == f"decks.{key}":
                return number
            continue
        if current == table and re.match(rf"^\s*[\"']?{re.escape(key)}[\"']?\s*=", raw):
            return number
    return None
