"""Fixtures for the firmware tests: the firmware loaded from source, and the App on an emulated board."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from tablepi.emulator.firmware import load_firmware
from tests.firmware.firmware_rig import Rig


@pytest.fixture
def fw() -> SimpleNamespace:
    return load_firmware()


@pytest.fixture
def rig(fw: SimpleNamespace) -> Rig:
    return Rig(fw)
