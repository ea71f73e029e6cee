"""24 emulated hours at the table with failures injected at random (tests/firmware/soak.py): the real
firmware, the serial backend and the table's adapter. Prints cards laid / reported / wrong seat / missed."""

from __future__ import annotations

import os

import pytest

from tests.firmware.soak import Soak

pytestmark = pytest.mark.slow


def seeds() -> list[int]:
    """Seed 1 in CI; ``TABLEPI_SOAK_SEEDS=1,2,3`` plays more days (about a minute each)."""
    return [int(s) for s in os.environ.get("TABLEPI_SOAK_SEEDS", "1").split(",") if s.strip()]


@pytest.mark.parametrize("seed", seeds())
def test_a_day_of_play_with_failing_readers(seed: int, capsys: pytest.CaptureFixture[str]) -> None:
    result = Soak(seed=seed).play(hours=24, tricks=150)
    with capsys.disabled():
        print("\n" + result.line())
    assert result.hours >= 24
    assert result.laid == 600 and sum(result.failures.values()) > 50
    assert result.reported == result.laid
    assert result.wrong_seat == 0  # never a card played from the wrong seat
    assert result.missed == 0  # every card laid is reported on its own zone, shows included
    assert result.lost == 0 and result.doubled == 0
    assert result.shows_kept == result.shows  # every show reaches the host shorter than the tap window
