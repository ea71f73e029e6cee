"""Seats, teams and the direction of play (RULES.md 1-2)."""

from __future__ import annotations

import enum

from tablepi.rules.errors import ParseError


class Seat(enum.Enum):
    """The four seats, named by compass point. Partners sit opposite (RULES.md 1)."""

    # Members are singletons: identity hashing (in C) keeps dict look-ups in the rules hot path cheap.
    __hash__ = object.__hash__

    N = "N"
    E = "E"
    S = "S"
    W = "W"

    @classmethod
    def parse(cls, text: str) -> Seat:
        try:
            return cls(text.strip().upper())
        except (ValueError, AttributeError):
            raise ParseError(f"not a seat: {text!r} (expected one of N E S W)") from None

    @property
    def partner(self) -> Seat:
        """The seat opposite (RULES.md 1)."""
        return _PARTNER[self]

    @property
    def team(self) -> Team:
        return Team.NS if self in (Seat.N, Seat.S) else Team.EW

    def __str__(self) -> str:
        return self.value


_PARTNER = {Seat.N: Seat.S, Seat.S: Seat.N, Seat.E: Seat.W, Seat.W: Seat.E}


class Team(enum.Enum):
    """The two partnerships: N+S and E+W (RULES.md 1)."""

    # Members are singletons: identity hashing (in C) keeps dict look-ups in the rules hot path cheap.
    __hash__ = object.__hash__

    NS = "NS"
    EW = "EW"

    @property
    def seats(self) -> tuple[Seat, Seat]:
        return (Seat.N, Seat.S) if self is Team.NS else (Seat.E, Seat.W)

    @property
    def other(self) -> Team:
        return Team.EW if self is Team.NS else Team.NS

    @classmethod
    def parse(cls, text: str) -> Team:
        key = text.strip().upper().replace("+", "")
        try:
            return cls({"SN": "NS", "WE": "EW"}.get(key, key))
        except ValueError:
            raise ParseError(f"not a team: {text!r} (expected NS or EW)") from None

    def __str__(self) -> str:
        return self.value


class Direction(enum.Enum):
    """Direction of play (RULES.md 2). Anticlockwise is N → W → S → E; clockwise N → E → S → W."""

    ANTICLOCKWISE = "anticlockwise"
    CLOCKWISE = "clockwise"

    def next(self, seat: Seat) -> Seat:
        """The seat that plays after ``seat``."""
        order = _ANTICLOCKWISE if self is Direction.ANTICLOCKWISE else _CLOCKWISE
        return order[(order.index(seat) + 1) % 4]

    def order_from(self, seat: Seat) -> tuple[Seat, Seat, Seat, Seat]:
        """The four seats in playing order, starting with ``seat``."""
        s1 = self.next(seat)
        s2 = self.next(s1)
        return (seat, s1, s2, self.next(s2))


_ANTICLOCKWISE = (Seat.N, Seat.W, Seat.S, Seat.E)
_CLOCKWISE = (Seat.N, Seat.E, Seat.S, Seat.W)
