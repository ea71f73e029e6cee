"""One error tree for the whole project.

Every error raised on purpose by tablepi derives from :class:`TablepiError` and also from the built-in
exception a caller would naturally catch (``ValueError`` for bad input, ``OSError`` for hardware), so code
that knows nothing of tablepi still handles it sensibly.

The root and the rules' own errors live in :mod:`tablepi.rules.errors` (the rules import nothing outside
themselves); this module names them with the rest. Every error carries its fields (the key, line, path, code it
is about), so code decides by them and never by reading the message; the message is the one line a person reads.
"""

from __future__ import annotations

from pathlib import Path

from tablepi.rules.errors import (
    ConfigError,
    IllegalPlay,
    ParseError,
    RulesCode,
    RulesError,
    TablepiError,
)

__all__ = [
    "ConfigError",
    "FeedError",
    "IllegalPlay",
    "OutputError",
    "ParseError",
    "ProtocolError",
    "ReaderError",
    "RecordError",
    "RulesCode",
    "RulesError",
    "TablepiError",
]


class RecordError(TablepiError, ValueError):
    """A game record or journal line is malformed. ``problem`` says what is wrong with it, ``line`` names the
    record's line (or the journal's event), ``path`` the file; the message says all three, as known.

    >>> err = RecordError.at(3, "time goes backwards (2.0 after 5.0)")
    >>> str(err), err.line, err.problem
    ('line 3: time goes backwards (2.0 after 5.0)', 3, 'time goes backwards (2.0 after 5.0)')
    >>> str(err.located("match.jsonl"))
    'match.jsonl: line 3: time goes backwards (2.0 after 5.0)'
    """

    def __init__(self, message: str, *, problem: str | None = None, line: int | None = None,
                 path: str | Path | None = None) -> None:
        super().__init__(message)
        self.problem = message if problem is None else problem
        self.line = line
        self.path = None if path is None else str(path)

    @classmethod
    def at(cls, line: int, problem: str) -> RecordError:
        """Line ``line`` of a record does not read: ``line N: problem``."""
        return cls(f"line {line}: {problem}", problem=problem, line=line)

    def located(self, path: str | Path, message: str | None = None) -> RecordError:
        """This error as found in the file ``path``: ``path: message`` (``message``: this error's own)."""
        return RecordError(f"{path}: {self if message is None else message}", problem=self.problem, line=self.line,
                           path=path)


class ReaderError(TablepiError, OSError):
    """A reader backend failed (unplugged, no such port, driver missing). ``backend`` names it when known."""

    def __init__(self, message: str, *, backend: str | None = None) -> None:
        super().__init__(message)
        self.backend = backend


class ProtocolError(TablepiError, ValueError):
    """A line on the reader link broke the protocol (bad checksum, unknown message). ``reason`` is the NAK reason
    the link answers with (tablepi.readers.protocol), ``seq`` the line's sequence number if known."""

    def __init__(self, message: str, reason: str = "SYNTAX", seq: int | None = None) -> None:
        super().__init__(message)
        self.reason = reason
        self.seq = seq


class OutputError(TablepiError, OSError):
    """A file tablepi was asked to write (a record, a frame, a deck) could not be written. ``path`` names it."""

    def __init__(self, message: str, *, path: str | Path | None = None) -> None:
        super().__init__(message)
        self.path = None if path is None else str(path)


class FeedError(TablepiError, ValueError):
    """A feed message (docs/feed.md) that cannot be used: too big, not JSON, a field missing or malformed.
    ``field`` names the message's field that is wrong (None: the message as a whole)."""

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field
