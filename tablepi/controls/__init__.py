"""Physical controls of the table: buttons in, seat LEDs and buzzer out (gpiozero, pin factory passed in)."""

from tablepi.controls.controls import WARNING_BLINK, Controls
from tablepi.controls.events import CONTROL_EVENT_NAMES, ControlEvent
from tablepi.controls.pins import DEFAULT_SEAT_LEDS, ControlPins
from tablepi.controls.sounds import Sound

__all__ = [
    "CONTROL_EVENT_NAMES",
    "DEFAULT_SEAT_LEDS",
    "WARNING_BLINK",
    "ControlEvent",
    "ControlPins",
    "Controls",
    "Sound",
]
