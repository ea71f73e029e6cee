"""The table's physical controls: three buttons, one LED per seat, a buzzer (gpiozero).

Threads stop here. gpiozero calls button handlers on its own threads (the pin driver's edge thread, the hold
timer); those handlers only turn an edge into a :class:`ControlEvent` and hand it to ``put`` (normally the app
queue's ``put``). The outputs go the other way: the core calls :meth:`Controls.show` with the current state
on every change, and only outputs that differ from what is lit now are touched, so calling it often is free
and an LED blinking for a warning keeps its rhythm.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable
from typing import Any

from gpiozero import LED, PWMLED, Button, Buzzer, TonalBuzzer
from gpiozero.exc import PinPWMUnsupported
from gpiozero.tones import Tone

from tablepi.controls.events import ControlEvent
from tablepi.controls.pins import ControlPins
from tablepi.controls.sounds import Sound, SoundPlayer
from tablepi.errors import ConfigError
from tablepi.rules.seats import Seat

#: Blink rhythm of a seat LED that shows a warning (seconds on, seconds off).
WARNING_BLINK = (0.15, 0.15)

_OFF, _ON, _FLASH = "off", "on", "flash"


class Controls:
    """Buttons, seat LEDs and buzzer on the pins of ``pins``.

    ``pin_factory`` is a gpiozero pin factory (None: gpiozero's default, chosen by ``GPIOZERO_PIN_FACTORY``);
    the app passes the real one, tests a ``MockFactory``. ``put`` is called from gpiozero threads with each
    :class:`ControlEvent`; it must be thread-safe and quick (``queue.Queue.put``).

    Gestures: undo pressed and released -> "undo"; undo held ``pins.hold_seconds`` -> "menu" (and no undo on
    release); confirm pressed -> "confirm"; menu pressed -> "menu". A second press within
    ``pins.bounce_seconds`` of the last edge of the same button is contact bounce and ignored.
    """

    def __init__(
        self,
        pins: ControlPins,
        put: Callable[[ControlEvent], None],
        pin_factory: Any = None,
    ) -> None:
        self._pins = pins
        self._put = put
        self._factory = pin_factory
        self._devices: list[Any] = []
        self._closed = False
        self._lock = threading.Lock()
        self._leds: dict[Seat, LED | PWMLED] = {}
        self._led_state: dict[Seat, str] = {}
        self._warnings: frozenset[Seat] = frozenset()
        self._alert = False
        self._player: SoundPlayer | None = None
        try:
            self._make_buttons()
            self._make_leds()
            self._make_buzzer()
        except BaseException:
            self.close()
            raise

    # ------------------------------------------------------------------ outputs
    def show(self, turn: Seat | None, warning_seats: Iterable[Seat] = (), alert: bool = False) -> None:
        """Light the seat whose turn it is, flash seats with a warning, sound the buzzer on new trouble.

        Idempotent: the same arguments twice change nothing. The buzzer sounds on a change for the worse
        only: ``ILLEGAL`` when a seat newly has a warning, ``ATTENTION`` when ``alert`` becomes true.
        """
        warnings = frozenset(warning_seats)
        with self._lock:
            if self._closed:
                return
            for seat, led in self._leds.items():
                want = _FLASH if seat in warnings else _ON if seat == turn else _OFF
                if self._led_state.get(seat) != want:
                    self._drive(led, want)
                    self._led_state[seat] = want
            new_warning = bool(warnings - self._warnings)
            new_alert = alert and not self._alert
            self._warnings, self._alert = warnings, alert
            if self._player is not None:
                if new_warning:
                    self._player.play(Sound.ILLEGAL)
                elif new_alert:
                    self._player.play(Sound.ATTENTION)

    def sound(self, sound: Sound) -> None:
        """Sound a pattern now, whatever the state (for a test button in the menu)."""
        with self._lock:
            if not self._closed and self._player is not None:
                self._player.play(sound)

    def wait_sound(self, timeout: float | None = None) -> bool:
        """Wait until the buzzer pattern playing now is over; True if silent."""
        return True if self._player is None else self._player.wait(timeout)

    def _drive(self, led: LED | PWMLED, want: str) -> None:
        if want == _FLASH:
            led.blink(*WARNING_BLINK)
        elif want == _ON:
            led.value = self._pins.led_brightness if isinstance(led, PWMLED) else 1
        else:
            led.off()

    # ------------------------------------------------------------------ inputs
    def _make_buttons(self) -> None:
        if self._pins.undo is not None:
            undo = self._button(self._pins.undo, hold=True)
            gesture = _UndoGesture(self._emit, self._pins.bounce_seconds)
            undo.when_pressed = gesture.pressed
            undo.when_held = gesture.held
            undo.when_released = gesture.released
        for pin, name in ((self._pins.confirm, "confirm"), (self._pins.menu, "menu")):
            if pin is not None:
                press = _Press(self._emit, name, self._pins.bounce_seconds)
                self._button(pin, hold=False).when_pressed = press.pressed

    def _button(self, pin: int, *, hold: bool) -> Button:
        # Wired from the GPIO to ground: internal pull-up, active low.
        button = Button(
            pin,
            pull_up=True,
            bounce_time=self._pins.bounce_seconds,
            hold_time=self._pins.hold_seconds if hold else 1.0,
            pin_factory=self._factory,
        )
        self._devices.append(button)
        return button

    def _emit(self, name: str) -> None:
        if not self._closed:
            self._put(ControlEvent(name))

    # ------------------------------------------------------------------ devices
    def _make_leds(self) -> None:
        for seat, pin in self._pins.leds.items():
            led: LED | PWMLED
            try:
                led = PWMLED(pin, pin_factory=self._factory)
            except PinPWMUnsupported:
                # Plain on/off still tells whose turn it is; only the dimming is lost.
                led = LED(pin, pin_factory=self._factory)
            self._devices.append(led)
            self._leds[seat] = led
            self._led_state[seat] = _OFF

    def _make_buzzer(self) -> None:
        pin = self._pins.buzzer
        if pin is None:
            return
        sounder: _Tonal | _OnOff
        if self._pins.buzzer_tonal:
            try:
                tonal = TonalBuzzer(pin, mid_tone=Tone("G5"), octaves=2, pin_factory=self._factory)
            except PinPWMUnsupported:
                raise ConfigError(
                    f"controls.buzzer_tonal: GPIO{pin} cannot do PWM with this pin driver; "
                    "use an active buzzer (buzzer_tonal = false) or another pin"
                ) from None
            self._devices.append(tonal)
            sounder = _Tonal(tonal)
        else:
            buzzer = Buzzer(pin, pin_factory=self._factory)
            self._devices.append(buzzer)
            sounder = _OnOff(buzzer)
        self._player = SoundPlayer(sounder)

    # ------------------------------------------------------------------ lifetime
    @property
    def closed(self) -> bool:
        return self._closed

    def close(self) -> None:
        """Silence, darken and release every pin; idempotent."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            if self._player is not None:
                self._player.stop()
            for device in reversed(self._devices):
                device.close()
            self._devices.clear()
            self._leds.clear()

    def __enter__(self) -> Controls:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class _Press:
    """A press of a one-gesture button, with a bounce guard."""

    def __init__(self, emit: Callable[[str], None], name: str, bounce: float) -> None:
        self._emit, self._name, self._bounce = emit, name, bounce
        self._last = -float("inf")

    def pressed(self) -> None:
        now = time.monotonic()
        if now - self._last >= self._bounce:
            self._emit(self._name)
        self._last = now


class _UndoGesture:
    """Undo on release after a short press; "menu" as soon as the button has been held long enough.

    Undo fires on release, not on press, because only the release tells a short press from a hold.
    """

    def __init__(self, emit: Callable[[str], None], bounce: float) -> None:
        self._emit, self._bounce = emit, bounce
        self._lock = threading.Lock()
        self._last_edge = -float("inf")
        self._down = False
        self._held = False

    def pressed(self) -> None:
        with self._lock:
            now = time.monotonic()
            bounced = now - self._last_edge < self._bounce
            self._last_edge = now
            if not bounced:
                self._down, self._held = True, False

    def held(self) -> None:
        with self._lock:
            if not self._down or self._held:
                return
            self._held = True
        self._emit("menu")

    def released(self) -> None:
        with self._lock:
            self._last_edge = time.monotonic()
            short = self._down and not self._held
            self._down = self._held = False
        if short:
            self._emit("undo")


class _Tonal:
    def __init__(self, buzzer: TonalBuzzer) -> None:
        self._buzzer = buzzer

    def sound(self, frequency: float | None) -> None:
        self._buzzer.play(Tone(frequency=frequency))

    def silence(self) -> None:
        self._buzzer.stop()


class _OnOff:
    def __init__(self, buzzer: Buzzer) -> None:
        self._buzzer = buzzer

    def sound(self, frequency: float | None) -> None:
        self._buzzer.on()

    def silence(self) -> None:
        self._buzzer.off()
