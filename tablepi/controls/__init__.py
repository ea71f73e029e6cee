"""Physical controls of the table: buttons in, seat LEDs and buzzer out (gpiozero, pin factory passed in). (The
socket through which commands reach the running service is :mod:`tablepi.service_socket`.)

:class:`Controls` (and with it gpiozero) is imported only when asked for: the app imports the control events and
pins to read its configuration, and a table with ``[controls] enabled = false`` never loads gpiozero.
"""

from typing import TYPE_CHECKING, Any

from tablepi.controls.events import CONTROL_EVENT_NAMES, ControlEvent
from tablepi.controls.pins import DEFAULT_SEAT_LEDS, ControlPins
from tablepi.controls.sounds import Sound

if TYPE_CHECKING:
    from tablepi.controls.controls import WARNING_BLINK, Controls

__all__ = [
    "CONTROL_EVENT_NAMES",
    "DEFAULT_SEAT_LEDS",
    "WARNING_BLINK",
    "ControlEvent",
    "ControlPins",
    "Controls",
    "Sound",
]


def __getattr__(name: str) -> Any:
    if name in ("Controls", "WARNING_BLINK"):
        from tablepi.controls import controls

        return getattr(controls, name)
    raise AttributeError(f"module 'tablepi.controls' has no attribute {name!r}")
