"""hw/pinmap.json is the one source of the pin map: firmware/config.py and hw/wiring.md must agree with it."""

from __future__ import annotations

import json
import re
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parents[2]


def pinmap() -> dict:
    return json.loads((ROOT / "hw" / "pinmap.json").read_text())


def wiring_table() -> dict[str, int]:
    """Signal -> GP number from the pin map table of hw/wiring.md."""
    rows = {}
    for line in (ROOT / "hw" / "wiring.md").read_text().splitlines():
        m = re.match(r"\|\s*([^|]+?)\s*\|\s*GP(\d+)\s*\|", line)
        if m:
            rows[m.group(1)] = int(m.group(2))
    return rows


def expected_signals(pm: dict) -> dict[str, int]:
    signals = {
        "SPI0 SCK": pm["spi"]["sck"],
        "SPI0 MOSI": pm["spi"]["mosi"],
        "SPI0 MISO": pm["spi"]["miso"],
        "RST": pm["rst"],
        "BUZZER": pm["buzzer"],
        "SERVICE": pm["service"],
    }
    for zone in pm["zones"]:
        signals[f"CS zone {zone['zone']}"] = zone["cs"]
        signals[f"LED zone {zone['zone']}"] = zone["led"]
    return signals


def test_firmware_config_matches_pinmap(fw: SimpleNamespace) -> None:
    pm = pinmap()
    c = fw.config
    assert pm["spi"]["id"] == c.SPI_ID
    assert (pm["spi"]["sck"], pm["spi"]["mosi"], pm["spi"]["miso"]) == (c.PIN_SCK, c.PIN_MOSI, c.PIN_MISO)
    assert pm["rst"] == c.PIN_RST
    assert pm["buzzer"] == c.PIN_BUZZER
    assert pm["service"] == c.PIN_SERVICE
    zones = sorted(pm["zones"], key=lambda z: z["zone"])
    assert [z["zone"] for z in zones] == list(range(c.ZONES))
    assert tuple(z["cs"] for z in zones) == c.PIN_CS
    assert tuple(z["led"] for z in zones) == c.PIN_LED


def test_wiring_table_matches_pinmap() -> None:
    assert wiring_table() == expected_signals(pinmap())


def test_no_pin_is_used_twice_and_all_exist_on_the_pico() -> None:
    pins = list(expected_signals(pinmap()).values())
    assert len(pins) == len(set(pins))
    assert all(0 <= p <= 28 and p not in (23, 24, 25) for p in pins)  # GP23-25 are on-board only


def test_spi_pins_belong_to_the_spi_block() -> None:
    pm = pinmap()["spi"]
    # RP2040 SPI0: SCK on GP2/6/18/22, TX on GP3/7/19/23, RX on GP0/4/16/20; SPI1 other sets.
    spi0 = {"sck": {2, 6, 18, 22}, "mosi": {3, 7, 19, 23}, "miso": {0, 4, 16, 20}}
    spi1 = {"sck": {10, 14, 26}, "mosi": {11, 15, 27}, "miso": {8, 12, 24, 28}}
    block = spi0 if pm["id"] == 0 else spi1
    for signal, allowed in block.items():
        assert pm[signal] in allowed, signal
