"""House rules: the settings where tables and sources differ (RULES.md 2, 21, 23, 27; revoke penalty).

One frozen, validated value. It is built from a mapping (a TOML table, a record header) with errors that name the
key, and written back to the same mapping so a game record carries the rules it was played under.

>>> HouseRules.from_mapping({"direction": "clockwise", "start_lines": 7}).to_mapping()["start_lines"]
7
>>> HouseRules.from_mapping({"tie": "sometimes"})
Traceback (most recent call last):
...
tablepi.rules.errors.ConfigError: house_rules.tie: 'sometimes' is not one of 'standard', 'plus_one', 'carry'
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tablepi.rules.errors import ConfigError
from tablepi.rules.seats import Direction


class TieRule(enum.Enum):
    """What a 20-20 tie does to the slate (RULES.md 27)."""

    STANDARD = "standard"  # the trump team gets 1 + announcements lines added
    PLUS_ONE = "plus_one"  # the trump team gets exactly 1 line added
    CARRY = "carry"  # nothing now; the tie's stake is added to the next decided deal's stake


class RevokePenalty(enum.Enum):
    """What a proven revoke (RULES.md 18) costs."""

    WARN = "warn"  # the table warns; the deal goes on and is scored as played
    LOSE_DEAL = "lose_deal"  # the deal ends at once, lost by the revoking team (stake: 1 + announcements)


@dataclass(frozen=True, slots=True)
class HouseRules:
    """The house rules of one table. Defaults are the rules as RULES.md states them."""

    direction: Direction = Direction.ANTICLOCKWISE
    start_lines: int = 9
    tie: TieRule = TieRule.STANDARD
    revoke_penalty: RevokePenalty = RevokePenalty.WARN
    claims: bool = True

    def __post_init__(self) -> None:
        _check_start_lines(self.start_lines, "house_rules.start_lines")

    @classmethod
    def from_mapping(cls, mapping: Mapping[str, Any], where: str = "house_rules") -> HouseRules:
        """Validate a mapping of house rules; unknown keys and bad values raise ConfigError naming the key."""
        if not isinstance(mapping, Mapping):
            raise ConfigError.setting(where, f"expected a table of settings, got {type(mapping).__name__}")
        known = {"direction", "start_lines", "tie", "revoke_penalty", "claims"}
        unknown = sorted(set(mapping) - known)
        if unknown:
            raise ConfigError.setting(where, f"unknown setting {unknown[0]!r} (known: {', '.join(sorted(known))})")
        values: dict[str, Any] = {}
        enums: dict[str, type[enum.Enum]] = {
            "direction": Direction,
            "tie": TieRule,
            "revoke_penalty": RevokePenalty,
        }
        for key, kind in enums.items():
            if key in mapping:
                values[key] = _enum_value(kind, mapping[key], f"{where}.{key}")
        if "start_lines" in mapping:
            values["start_lines"] = _check_start_lines(mapping["start_lines"], f"{where}.start_lines")
        if "claims" in mapping:
            if not isinstance(mapping["claims"], bool):
                raise ConfigError.setting(f"{where}.claims", f"expected true or false, got {mapping['claims']!r}")
            values["claims"] = mapping["claims"]
        return cls(**values)

    def to_mapping(self) -> dict[str, Any]:
        """The rules as plain values, the inverse of :meth:`from_mapping`."""
        return {
            "direction": self.direction.value,
            "start_lines": self.start_lines,
            "tie": self.tie.value,
            "revoke_penalty": self.revoke_penalty.value,
            "claims": self.claims,
        }


def _check_start_lines(lines: object, key: str) -> int:
    if not isinstance(lines, int) or isinstance(lines, bool):
        raise ConfigError.setting(key, f"expected a whole number, got {lines!r}")
    if not 1 <= lines <= 99:
        raise ConfigError.setting(key, f"{lines} is outside 1..99")
    return lines


def _enum_value(kind: type[enum.Enum], value: object, key: str) -> Any:
    try:
        return kind(value)
    except ValueError:
        choices = ", ".join(repr(member.value) for member in kind)
        raise ConfigError.setting(key, f"{value!r} is not one of {choices}") from None
