"""The rules' own error vocabulary, and the root of tablepi's one error tree.

The rules import nothing outside the standard library, so the errors they raise live here, with the base every
tablepi error derives from; :mod:`tablepi.errors` builds the rest of the tree on them and names them all. Each
error also derives from the built-in a caller would naturally catch (``ValueError`` for bad input), and carries
its fields, so that code decides by them and never by reading a message (STYLE.md 16).
"""

from __future__ import annotations

import enum
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # for the annotations only
    from tablepi.rules.cards import Card
    from tablepi.rules.seats import Seat


class TablepiError(Exception):
    """Base of every error tablepi raises on purpose (the whole tree: :mod:`tablepi.errors`)."""


class ParseError(TablepiError, ValueError):
    """Text (a card, a seat, a record line, a config value) could not be understood."""


class ConfigError(TablepiError, ValueError):
    """A configuration file or setting is wrong. The message names the file, line and key, as known; the
    fields say the same for code to read: ``key`` the setting (``table.decks[0]``, ``[feed]``, a reader option),
    ``path`` the file (or the words for text that came from none), ``line`` its line there.

    >>> err = ConfigError.setting("house_rules.lines", "100 is outside 1..99")
    >>> err.key, str(err)
    ('house_rules.lines', 'house_rules.lines: 100 is outside 1..99')
    >>> located = err.located("t.toml", 12)
    >>> located.key, located.path, located.line, str(located)
    ('house_rules.lines', 't.toml', 12, 't.toml: line 12: house_rules.lines: 100 is outside 1..99')
    """

    def __init__(self, message: str, *, key: str | None = None, path: str | None = None,
                 line: int | None = None) -> None:
        super().__init__(message)
        self.key = key
        self.path = path
        self.line = line

    @classmethod
    def setting(cls, key: str, problem: str) -> ConfigError:
        """The setting ``key`` is wrong: ``key: problem``."""
        return cls(f"{key}: {problem}", key=key)

    def located(self, path: str, line: int | None = None) -> ConfigError:
        """This error as found in the file ``path`` (at ``line`` when known): ``path: line N: message``."""
        where = f"{path}: line {line}: " if line is not None else f"{path}: "
        return ConfigError(where + str(self), key=self.key, path=path, line=line)


class RulesCode(enum.Enum):
    """Why the rules refused something: what callers decide on, never the message (STYLE.md 16)."""

    TRUMPS_NAMED = "trumps_named"  # rule 9: trumps are named once per deal
    NOT_FOREHAND = "not_forehand"  # rule 9: only forehand names trumps
    NOT_PLAYING = "not_playing"  # no deal is being played now (before trumps, after the deal)
    TOO_LATE = "too_late"  # rule 10: an announcement after one's first card
    ALREADY_ANNOUNCED = "already_announced"  # rule 10: Matt and Konter count once per deal
    HELD_ELSEWHERE = "held_elsewhere"  # rule 10: a queen known to be in another hand
    NOT_SHOWN = "not_shown"  # rules 10-11: an announcement checked against shown cards
    NOT_IN_HAND = "not_in_hand"  # a card that is not in the (known) hand
    ALREADY_PLAYED = "already_played"  # rule 3: each card once per deal
    OUT_OF_TURN = "out_of_turn"  # rule 12
    REVOKE = "revoke"  # rules 13, 15, 18
    SCANNED_BY_OTHER = "scanned_by_other"  # rule 8: one card, one hand
    SEVENTH_CARD = "seventh_card"  # rule 8: six cards a hand
    BAD_HANDS = "bad_hands"  # rule 8: hands given to a deal are not four hands of six different cards
    NO_SCAN = "no_scan"  # hand-scan mode: no scan now
    CLAIMS_OFF = "claims_off"  # house rule claims = false
    CLAIM_MID_TRICK = "claim_mid_trick"  # rule 21: a claim comes between tricks
    CLAIM_POINTS = "claim_points"  # rule 21: a claim needs 21 points
    DEAL_IN_PROGRESS = "deal_in_progress"  # a deal is already being played
    MATCH_OVER = "match_over"  # rules 28-29: the match is over
    MATCH_NOT_OVER = "match_not_over"  # rule 29: a revanche follows a finished match
    NOT_OVER = "not_over"  # a result before the deal is over
    BAD_ENTRY = "bad_entry"  # rules 10, 19-21: a deal told by hand that no deal can be
    NO_SUCH_DEAL = "no_such_deal"  # a correction of a deal that was not scored
    NO_PROPOSAL = "no_proposal"  # an answer with no correction proposed
    NOT_BEFORE_PLAY = "not_before_play"  # the first dealer is chosen before the match's first trumps
    NAME_TWICE = "name_twice"  # one seating names the same player at two seats


class RulesError(TablepiError, ValueError):
    """Something contradicts the rules of Konter a Matt (RULES.md).

    It carries its fields, so that a caller decides by ``code`` and reads ``seat``, ``card``, ``trick`` and
    ``rule`` (the RULES.md number) instead of parsing the English message:

    >>> err = RulesError("N plays ♠Q out of turn", code=RulesCode.OUT_OF_TURN, rule=12)
    >>> err.code, err.rule, str(err)
    (<RulesCode.OUT_OF_TURN: 'out_of_turn'>, 12, 'N plays ♠Q out of turn')
    """

    def __init__(
        self,
        message: str,
        *,
        code: RulesCode | None = None,
        seat: Seat | None = None,
        card: Card | None = None,
        trick: int | None = None,
        rule: int | None = None,
        holder: Seat | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.seat = seat
        self.card = card
        self.trick = trick
        self.rule = rule
        self.holder = holder  # where a card is known to be, when that is why (HELD_ELSEWHERE, SCANNED_BY_OTHER)


class IllegalPlay(RulesError):
    """A card was played that the rules forbid at this moment."""
