"""One error tree for the whole project.

Every error raised on purpose by tablepi derives from :class:`TablepiError` and also from the built-in
exception a caller would naturally catch (``ValueError`` for bad input, ``OSError`` for hardware), so code
that knows nothing of tablepi still handles it sensibly.
"""

from __future__ import annotations


class TablepiError(Exception):
    """Base of every error tablepi raises on purpose."""


class ParseError(TablepiError, ValueError):
    """Text (a card, a seat, a record line, a config value) could not be understood."""


class RulesError(TablepiError, ValueError):
    """Something contradicts the rules of Konter a Matt (RULES.md)."""


class IllegalPlay(RulesError):
    """A card was played that the rules forbid at this moment."""


class ConfigError(TablepiError, ValueError):
    """A configuration file or house-rule setting is wrong; the message names the key (and file)."""


class RecordError(TablepiError, ValueError):
    """A game record or journal line is malformed; the message names the line."""


class ReaderError(TablepiError, OSError):
    """A reader backend failed (unplugged, no such port, driver missing)."""


class ProtocolError(TablepiError, ValueError):
    """A line on the reader link broke the protocol (bad checksum, unknown message)."""


class OutputError(TablepiError, OSError):
    """A file tablepi was asked to write (a record, a frame, a deck) could not be written; names the path."""
