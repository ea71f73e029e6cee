"""24 emulated hours at the table with failures injected at random (tests/firmware/soak.py): the real
firmware, the serial backend and the table's adapter. Prints cards laid / reported / wrong seat / missed."""

from __future__ import annotations

import pytest

from tests.firmware.soak import Soak

pytestmark = pytest.mark.slow


def test_a_day_of_play_with_failing_readers(capsys: pytest.CaptureFixture[str]) -> None:
    result = Soak(seed=1).play(hours=24, tricks=150)
    with capsys.disabled():
        print("\n" + result.line())
    assert result.hours >= 24
    assert result.laid == 600 and sum(result.failures.values()) > 50
    assert result.wrong_seat == 0  # never a card played from the wrong seat
    assert result.lost == 0 and result.doubled == 0
    # Missed: shows (lifted within the tap window) on a zone whose reader had just gone deaf or been browned
    # out, or that landed between two antennas and were lifted before the firmware moved them to their zone.
    assert result.missed <= result.laid // 100
    assert result.shows_kept >= result.shows - result.missed
