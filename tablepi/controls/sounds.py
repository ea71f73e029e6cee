"""Buzzer patterns and the small player that sounds them without blocking the core.

Two warnings must be told apart by ear across a noisy bar without looking at the screen:

* ``ILLEGAL`` - three short high beeps: "that card may not be played", at once, like a referee's whistle.
* ``ATTENTION`` - two long lower tones: "look at the screen" (a prompt is waiting: choose trumps, confirm a
  claim, a reader is unplugged).

A pattern is a sequence of (frequency in Hz or None for silence, seconds). An active buzzer ignores the
frequency and is simply on or off.
"""

from __future__ import annotations

import enum
import threading
from collections.abc import Sequence
from typing import Protocol

Step = tuple[float | None, float]


class Sound(enum.Enum):
    """A warning pattern; its value is the sequence of steps."""

    ILLEGAL = ((1568.0, 0.08), (None, 0.06), (1568.0, 0.08), (None, 0.06), (1568.0, 0.08))
    ATTENTION = ((784.0, 0.35), (None, 0.2), (784.0, 0.35))

    @property
    def steps(self) -> Sequence[Step]:
        steps: Sequence[Step] = self.value
        return steps

    @property
    def duration(self) -> float:
        """Seconds the pattern takes."""
        return sum(seconds for _, seconds in self.steps)


class Sounder(Protocol):
    """What the player needs of a buzzer: a tone (or plain on) and silence."""

    def sound(self, frequency: float | None) -> None: ...

    def silence(self) -> None: ...


class SoundPlayer:
    """Plays one pattern at a time on its own thread; a new pattern cuts the one playing short.

    The thread only drives the buzzer pin (like gpiozero's own ``blink``); it never touches table state.
    """

    def __init__(self, sounder: Sounder) -> None:
        self._sounder = sounder
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def play(self, sound: Sound) -> None:
        with self._lock:
            self._halt()
            stop = self._stop = threading.Event()
            self._thread = threading.Thread(
                target=self._run, args=(sound.steps, stop), name=f"tablepi-buzzer-{sound.name}", daemon=True
            )
            self._thread.start()

    def wait(self, timeout: float | None = None) -> bool:
        """Wait until the current pattern is over; True if nothing is playing any more."""
        thread = self._thread
        if thread is None:
            return True
        thread.join(timeout)
        return not thread.is_alive()

    @property
    def playing(self) -> bool:
        thread = self._thread
        return thread is not None and thread.is_alive()

    def stop(self) -> None:
        """Silence at once; idempotent."""
        with self._lock:
            self._halt()

    def _halt(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None

    def _run(self, steps: Sequence[Step], stop: threading.Event) -> None:
        try:
            for frequency, seconds in steps:
                if frequency is None:
                    self._sounder.silence()
                else:
                    self._sounder.sound(frequency)
                if stop.wait(seconds):
                    break
        finally:
            self._sounder.silence()
