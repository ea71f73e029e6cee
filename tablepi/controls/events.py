"""What a player's button press means to the table: a named control event."""

from __future__ import annotations

from dataclasses import dataclass

from tablepi.errors import ParseError

#: The control events buttons can produce. "menu" also comes from holding undo (new match, settings).
CONTROL_EVENT_NAMES = frozenset({"undo", "confirm", "menu"})


@dataclass(frozen=True, slots=True)
class ControlEvent:
    """One button gesture, put on the app's queue from a GPIO callback thread.

    It carries no time: the app stamps events when it takes them off the queue, on its own clock, like every
    other table event.
    """

    name: str

    def __post_init__(self) -> None:
        if self.name not in CONTROL_EVENT_NAMES:
            raise ParseError(
                f"not a control event: {self.name!r} (expected one of {', '.join(sorted(CONTROL_EVENT_NAMES))})"
            )

    def __str__(self) -> str:
        return self.name
