"""ControlPins: defaults that keep off a display HAT's pins, and config errors that name the key."""

from __future__ import annotations

import pytest

from tablepi.controls import DEFAULT_SEAT_LEDS, ControlEvent, ControlPins
from tablepi.errors import ConfigError, ParseError
from tablepi.rules.seats import Seat

# SPI0, I2C1, HAT ID EEPROM, UART, and what common SPI touch screens use (touch IRQ, backlight, DC, reset).
DISPLAY_AND_SYSTEM_PINS = {0, 1, 2, 3, 7, 8, 9, 10, 11, 14, 15, 17, 18, 24, 25, 27}


def test_defaults_fit_every_seat_and_avoid_display_hat_pins() -> None:
    pins = ControlPins()
    assert set(pins.leds) == set(Seat)
    used = set(pins.assignments().values())
    assert len(used) == 3 + 4 + 1
    assert not used & DISPLAY_AND_SYSTEM_PINS


def test_from_mapping_reads_a_toml_table() -> None:
    pins = ControlPins.from_mapping(
        {
            "undo": 22,
            "menu": False,
            "leds": {"n": 12, "E": 13, "S": False, "W": 26},
            "buzzer_tonal": True,
            "hold_seconds": 3,
        }
    )
    assert pins.undo == 22
    assert pins.menu is None
    assert pins.confirm == ControlPins().confirm
    assert dict(pins.leds) == {Seat.N: 12, Seat.E: 13, Seat.W: 26}
    assert pins.buzzer_tonal is True
    assert pins.hold_seconds == 3.0


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"undo": 28}, r"controls\.undo: 28 is not a GPIO number"),
        ({"undo": "five"}, r"controls\.undo: 'five'"),
        ({"undo": True}, r"controls\.undo"),
        ({"confirm": 5}, r"controls\.confirm: GPIO5 is already used by controls\.undo"),
        ({"leds": {"N": 6}}, r"controls\.leds\.N: GPIO6 is already used by controls\.confirm"),
        ({"leds": {"X": 21}}, r"controls\.leds: not a seat: 'X'"),
        ({"leds": [21]}, r"controls\.leds: \[21\] is not a table"),
        ({"buzer": 21}, r"unknown key\(s\) buzer"),
        ({"buzzer_tonal": "yes"}, r"controls\.buzzer_tonal"),
        ({"hold_seconds": "2"}, r"controls\.hold_seconds: '2' is not a number"),
        ({"hold_seconds": 0.1}, r"controls\.hold_seconds: 0\.1 is not between"),
        ({"bounce_seconds": 0}, r"controls\.bounce_seconds"),
        ({"led_brightness": 1.5}, r"controls\.led_brightness"),
    ],
)
def test_bad_config_names_the_key(data: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        ControlPins.from_mapping(data)


def test_leds_mapping_is_frozen() -> None:
    pins = ControlPins(leds={Seat.N: 12})
    with pytest.raises(TypeError):
        pins.leds[Seat.E] = 13  # type: ignore[index]
    assert DEFAULT_SEAT_LEDS[Seat.N] == 12


def test_control_event_names_are_checked() -> None:
    assert str(ControlEvent("undo")) == "undo"
    with pytest.raises(ParseError, match=r"'redo'.*confirm, menu, undo"):
        ControlEvent("redo")
