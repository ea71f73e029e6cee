"""GPIO test doubles for the controls tests: gpiozero's own MockFactory, reset after every test."""

from __future__ import annotations

import queue
from collections.abc import Iterator
from typing import Any

import pytest
from gpiozero.pins.mock import MockFactory, MockPin, MockPWMPin

from tablepi.controls import ControlEvent


class RecordingPWMPin(MockPWMPin):
    """A PWM mock pin that also remembers every frequency it was set to (tones of a TonalBuzzer)."""

    def __init__(self, factory: Any, info: Any) -> None:
        super().__init__(factory, info)
        self.frequencies: list[float | None] = []

    def _set_frequency(self, value: float | None) -> None:
        super()._set_frequency(value)
        self.frequencies.append(value)


@pytest.fixture
def pwm_factory() -> Iterator[MockFactory]:
    """Pins that can do PWM, as lgpio's are on a real Pi."""
    factory = MockFactory(pin_class=RecordingPWMPin)
    yield factory
    factory.reset()
    factory.close()


@pytest.fixture
def plain_factory() -> Iterator[MockFactory]:
    """Pins without PWM (some pin drivers)."""
    factory = MockFactory(pin_class=MockPin)
    yield factory
    factory.reset()
    factory.close()


@pytest.fixture
def events() -> queue.Queue[ControlEvent]:
    return queue.Queue()
