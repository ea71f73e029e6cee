"""Which GPIO pins the buttons, seat LEDs and buzzer sit on, and how they behave.

Pin numbers are Broadcom (BCM) GPIO numbers, as gpiozero and the Pi's pinout use them. The defaults keep off
the pins a display HAT and the Pi itself need (see docs/install.md for the table): SPI0 (GPIO 7-11), I2C1
(GPIO 2-3), the HAT ID EEPROM (GPIO 0-1), the UART (GPIO 14-15), and GPIO 17, 18, 24, 25, 27 that common SPI
touch screens use for touch interrupt, backlight, data/command and reset. Any pin may be None: that control is
simply not fitted.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from types import MappingProxyType
from typing import Any

from tablepi.errors import ConfigError, ParseError
from tablepi.rules.seats import Seat

#: GPIO numbers that exist on the 40-pin header of every Pi since the B+.
HEADER_GPIOS = range(0, 28)

DEFAULT_SEAT_LEDS: Mapping[Seat, int] = MappingProxyType({Seat.N: 12, Seat.E: 13, Seat.S: 19, Seat.W: 26})


@dataclass(frozen=True)
class ControlPins:
    """Pins and timings of the table's physical controls (the ``[controls]`` table of the config)."""

    undo: int | None = 5
    confirm: int | None = 6
    menu: int | None = 16
    leds: Mapping[Seat, int] = field(default_factory=lambda: DEFAULT_SEAT_LEDS)
    buzzer: int | None = 20
    #: True for a passive piezo driven with PWM tones (TonalBuzzer); False for an active buzzer (on/off).
    buzzer_tonal: bool = False
    #: Contact bounce window: a second edge within it is ignored (also handed to the pin driver).
    bounce_seconds: float = 0.05
    #: Holding undo this long means "menu" (new match, settings) instead of undo.
    hold_seconds: float = 2.0
    #: Brightness of the LED of the seat whose turn it is (0-1, needs a PWM-capable pin; full if not).
    led_brightness: float = 1.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "leds", MappingProxyType(dict(self.leds)))
        used: dict[int, str] = {}
        for role, pin in self.assignments().items():
            if isinstance(pin, bool) or not isinstance(pin, int) or pin not in HEADER_GPIOS:
                raise ConfigError.setting(f"controls.{role}", f"{pin!r} is not a GPIO number 0-27 (BCM numbering)")
            if pin in used:
                raise ConfigError.setting(f"controls.{role}", f"GPIO{pin} is already used by controls.{used[pin]}")
            used[pin] = role
        for key in self.leds:
            if not isinstance(key, Seat):
                raise ConfigError.setting("controls.leds", f"{key!r} is not a seat (N E S W)")
        if not 0 < self.bounce_seconds < 1:
            raise ConfigError.setting("controls.bounce_seconds", f"{self.bounce_seconds!r} is not between 0 and 1")
        if not 0.3 <= self.hold_seconds <= 10:
            raise ConfigError.setting("controls.hold_seconds", f"{self.hold_seconds!r} is not between 0.3 and 10")
        if not 0 < self.led_brightness <= 1:
            raise ConfigError.setting("controls.led_brightness", f"{self.led_brightness!r} is not in (0, 1]")

    def assignments(self) -> dict[str, int]:
        """Every fitted control as ``{"undo": 5, "leds.N": 12, ...}`` (for checks and for the docs)."""
        roles = {"undo": self.undo, "confirm": self.confirm, "menu": self.menu, "buzzer": self.buzzer}
        roles.update({f"leds.{seat}": pin for seat, pin in self.leds.items()})
        return {role: pin for role, pin in roles.items() if pin is not None}

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> ControlPins:
        """Build from a parsed TOML table; unknown keys and wrong types are named in the error.

        ``leds`` is a table of seat letter to pin (``leds = { N = 12, E = 13, S = 19, W = 26 }``); a pin given
        as ``false`` (TOML has no null) means "not fitted".
        """
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ConfigError.setting("controls",
                                      f"unknown key(s) {', '.join(unknown)} (known: {', '.join(sorted(known))})")
        kwargs: dict[str, Any] = {}
        for key, value in data.items():
            if key == "leds":
                kwargs["leds"] = _parse_leds(value)
            elif key in ("undo", "confirm", "menu", "buzzer"):
                kwargs[key] = None if value is False else value
            elif key == "buzzer_tonal":
                if not isinstance(value, bool):
                    raise ConfigError.setting("controls.buzzer_tonal", f"{value!r} is not true or false")
                kwargs[key] = value
            else:
                if isinstance(value, bool) or not isinstance(value, int | float):
                    raise ConfigError.setting(f"controls.{key}", f"{value!r} is not a number")
                kwargs[key] = float(value)
        return cls(**kwargs)


def _parse_leds(value: object) -> dict[Seat, int]:
    if not isinstance(value, Mapping):
        raise ConfigError.setting("controls.leds", f"{value!r} is not a table of seat = pin")
    leds: dict[Seat, int] = {}
    for key, pin in value.items():
        try:
            seat = Seat.parse(str(key))
        except ParseError as exc:
            raise ConfigError.setting("controls.leds", str(exc)) from None
        if pin is not False:
            leds[seat] = pin
    return leds
