"""Fixtures for the firmware tests: the firmware loaded from source, and the App on an emulated board."""

from __future__ import annotations

import os
from types import SimpleNamespace

import pytest

from tablepi.emulator.firmware import load_firmware
from tests.firmware.firmware_rig import Rig


@pytest.fixture
def fw() -> SimpleNamespace:
    """The firmware under test: firmware/ of this tree, or TABLEPI_FIRMWARE_DIR (to show that a test fails on
    an older firmware: ``git show REV:firmware/x.py`` into a folder)."""
    return load_firmware(os.environ.get("TABLEPI_FIRMWARE_DIR") or None)


@pytest.fixture
def rig(fw: SimpleNamespace) -> Rig:
    return Rig(fw)
