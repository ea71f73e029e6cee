"""Controls on gpiozero's MockFactory: buttons only enqueue, LEDs and buzzer follow show()."""

from __future__ import annotations

import itertools
import queue
import threading
import time
from typing import Any

import pytest
from gpiozero import Button
from gpiozero.pins.mock import MockFactory

from tablepi.controls import WARNING_BLINK, ControlEvent, ControlPins, Controls, Sound
from tablepi.errors import ConfigError
from tablepi.rules.seats import Seat
from tests.waits import wait_until

PINS = ControlPins()


def pin(factory: MockFactory, number: int | None) -> Any:
    assert number is not None
    return factory.pin(number)


def led(factory: MockFactory, seat: Seat) -> Any:
    return factory.pin(PINS.leds[seat])


def press(factory: MockFactory, number: int | None) -> None:
    pin(factory, number).drive_low()


def release(factory: MockFactory, number: int | None) -> None:
    pin(factory, number).drive_high()


def drain(q: queue.Queue[ControlEvent]) -> list[str]:
    """Names of the events queued so far."""
    names = []
    while True:
        try:
            names.append(q.get_nowait().name)
        except queue.Empty:
            return names


def on_pulses(p: Any) -> int:
    """How many times a pin went from off to on (its recorded history)."""
    values = [bool(s.state) for s in p.states]
    return sum(1 for a, b in itertools.pairwise(values) if b and not a)


# ---------------------------------------------------------------- buttons


def test_confirm_and_menu_fire_on_press(pwm_factory: MockFactory, events: queue.Queue[ControlEvent]) -> None:
    with Controls(PINS, events.put, pin_factory=pwm_factory):
        press(pwm_factory, PINS.confirm)
        assert drain(events) == ["confirm"]
        release(pwm_factory, PINS.confirm)
        press(pwm_factory, PINS.menu)
        release(pwm_factory, PINS.menu)
        assert drain(events) == ["menu"]


def test_callbacks_only_enqueue_from_the_gpio_thread(
    pwm_factory: MockFactory, events: queue.Queue[ControlEvent]
) -> None:
    threads: list[str] = []

    def put(event: ControlEvent) -> None:
        threads.append(threading.current_thread().name)
        events.put(event)

    with Controls(PINS, put, pin_factory=pwm_factory):
        press(pwm_factory, PINS.confirm)
    assert events.get_nowait() == ControlEvent("confirm")
    assert len(threads) == 1


def test_short_undo_fires_on_release_not_on_press(pwm_factory: MockFactory, events: queue.Queue[ControlEvent]) -> None:
    with Controls(PINS, events.put, pin_factory=pwm_factory):
        press(pwm_factory, PINS.undo)
        assert drain(events) == []
        release(pwm_factory, PINS.undo)
        assert drain(events) == ["undo"]


def test_holding_undo_means_menu_and_no_undo(pwm_factory: MockFactory, events: queue.Queue[ControlEvent]) -> None:
    pins = ControlPins(hold_seconds=0.3)
    with Controls(pins, events.put, pin_factory=pwm_factory):
        press(pwm_factory, pins.undo)
        # "menu" comes while the button is still down, so the player sees the menu open as he holds.
        assert events.get(timeout=3) == ControlEvent("menu")
        release(pwm_factory, pins.undo)
        time.sleep(0.05)  # a window, not a wait (the release is handled as the pin changes): no undo comes
        assert drain(events) == []
        # The next short press is an undo again.
        press(pwm_factory, pins.undo)
        release(pwm_factory, pins.undo)
        assert drain(events) == ["undo"]


def test_contact_bounce_is_one_press(pwm_factory: MockFactory, events: queue.Queue[ControlEvent]) -> None:
    pins = ControlPins(bounce_seconds=0.5)
    with Controls(pins, events.put, pin_factory=pwm_factory):
        for _ in range(3):  # a chattering contact: three closures within microseconds
            press(pwm_factory, pins.confirm)
            release(pwm_factory, pins.confirm)
            press(pwm_factory, pins.undo)
            release(pwm_factory, pins.undo)
        assert sorted(drain(events)) == ["confirm", "undo"]
        time.sleep(0.55)  # the bounce time passes (it is what is tested): the next closure is a press again
        press(pwm_factory, pins.confirm)
        press(pwm_factory, pins.undo)
        release(pwm_factory, pins.undo)
        assert sorted(drain(events)) == ["confirm", "undo"]


def test_unfitted_buttons_are_skipped(pwm_factory: MockFactory, events: queue.Queue[ControlEvent]) -> None:
    pins = ControlPins(menu=None, confirm=None, buzzer=None, leds={})
    with Controls(pins, events.put, pin_factory=pwm_factory) as controls:
        controls.show(Seat.N, {Seat.S}, alert=True)
        assert controls.wait_sound(0)
        press(pwm_factory, pins.undo)
        release(pwm_factory, pins.undo)
    assert drain(events) == ["undo"]
    # The confirm and menu pins were never claimed.
    Button(PINS.confirm, pin_factory=pwm_factory).close()


# ---------------------------------------------------------------- LEDs


def test_turn_led_follows_the_turn(pwm_factory: MockFactory, events: queue.Queue[ControlEvent]) -> None:
    pins = ControlPins(led_brightness=0.6)
    with Controls(pins, events.put, pin_factory=pwm_factory) as controls:
        controls.show(Seat.N)
        assert [led(pwm_factory, s).state for s in Seat] == [0.6, 0, 0, 0]
        controls.show(Seat.W)
        assert [led(pwm_factory, s).state for s in Seat] == [0, 0, 0, 0.6]
        controls.show(None)
        assert [led(pwm_factory, s).state for s in Seat] == [0, 0, 0, 0]


def test_warning_seat_flashes_while_turn_stays_lit(pwm_factory: MockFactory, events: queue.Queue[ControlEvent]) -> None:
    with Controls(PINS, events.put, pin_factory=pwm_factory) as controls:
        controls.show(Seat.E, {Seat.S})
        wait_until(lambda: on_pulses(led(pwm_factory, Seat.S)) >= 2, "S's LED to flash twice")
        assert led(pwm_factory, Seat.E).state == 1
        assert on_pulses(led(pwm_factory, Seat.N)) == 0
        # The warning is resolved: the flashing stops and the LED goes dark.
        controls.show(Seat.E)
        led(pwm_factory, Seat.S).clear_states()
        time.sleep(sum(WARNING_BLINK) * 2)  # a window of two flashes, not a wait: nothing may happen in it
        assert led(pwm_factory, Seat.S).state == 0
        assert on_pulses(led(pwm_factory, Seat.S)) == 0


def test_a_warning_at_the_seat_to_play_flashes_it(pwm_factory: MockFactory, events: queue.Queue[ControlEvent]) -> None:
    with Controls(PINS, events.put, pin_factory=pwm_factory) as controls:
        controls.show(Seat.N, {Seat.N})
        wait_until(lambda: on_pulses(led(pwm_factory, Seat.N)) >= 2, "N's LED to flash twice")


def test_show_is_idempotent(pwm_factory: MockFactory, events: queue.Queue[ControlEvent]) -> None:
    with Controls(PINS, events.put, pin_factory=pwm_factory) as controls:
        controls.show(Seat.S, {Seat.W})
        assert controls.wait_sound(3)
        buzzer = pin(pwm_factory, PINS.buzzer)
        for p in [*(led(pwm_factory, s) for s in Seat), buzzer]:
            p.clear_states()
        for _ in range(50):
            controls.show(Seat.S, {Seat.W})
        assert controls.wait_sound(3)
        assert len(led(pwm_factory, Seat.S).states) == 1  # no change at all
        assert len(led(pwm_factory, Seat.N).states) == 1
        assert on_pulses(buzzer) == 0  # the same warning does not sound twice
        wait_until(lambda: on_pulses(led(pwm_factory, Seat.W)) >= 1, "W's LED to flash on")  # in its own rhythm


def test_leds_without_pwm_fall_back_to_on_off(plain_factory: MockFactory, events: queue.Queue[ControlEvent]) -> None:
    with Controls(PINS, events.put, pin_factory=plain_factory) as controls:
        controls.show(Seat.E)
        assert plain_factory.pin(PINS.leds[Seat.E]).state is True
        assert plain_factory.pin(PINS.leds[Seat.N]).state is False


# ---------------------------------------------------------------- buzzer


def test_new_warning_sounds_illegal_pattern(pwm_factory: MockFactory, events: queue.Queue[ControlEvent]) -> None:
    with Controls(PINS, events.put, pin_factory=pwm_factory) as controls:
        buzzer = pin(pwm_factory, PINS.buzzer)
        controls.show(Seat.N, {Seat.N})
        assert controls.wait_sound(3)
        assert on_pulses(buzzer) == 3
        assert not buzzer.state
        # Another seat also gets a warning: that is new trouble, it sounds again.
        buzzer.clear_states()
        controls.show(Seat.N, {Seat.N, Seat.E})
        assert controls.wait_sound(3)
        assert on_pulses(buzzer) == 3
        # One warning cleared: nothing new, silence.
        buzzer.clear_states()
        controls.show(Seat.N, {Seat.E})
        assert controls.wait_sound(3)
        assert on_pulses(buzzer) == 0


def test_alert_sounds_attention_pattern_once(pwm_factory: MockFactory, events: queue.Queue[ControlEvent]) -> None:
    with Controls(PINS, events.put, pin_factory=pwm_factory) as controls:
        buzzer = pin(pwm_factory, PINS.buzzer)
        controls.show(Seat.N, alert=True)
        assert controls.wait_sound(3)
        assert on_pulses(buzzer) == 2
        buzzer.clear_states()
        controls.show(Seat.E, alert=True)
        assert controls.wait_sound(3)
        assert on_pulses(buzzer) == 0
        controls.show(Seat.E, alert=False)
        controls.show(Seat.E, alert=True)
        assert controls.wait_sound(3)
        assert on_pulses(buzzer) == 2


def test_illegal_play_wins_over_attention(pwm_factory: MockFactory, events: queue.Queue[ControlEvent]) -> None:
    with Controls(PINS, events.put, pin_factory=pwm_factory) as controls:
        buzzer = pin(pwm_factory, PINS.buzzer)
        controls.show(Seat.N, alert=True)
        controls.show(Seat.N, {Seat.W}, alert=True)  # cuts the attention tones short
        assert controls.wait_sound(3)
        values = [bool(s.state) for s in buzzer.states]
        assert values[-6:] == [True, False, True, False, True, False]


def test_patterns_sound_different() -> None:
    assert Sound.ILLEGAL.steps != Sound.ATTENTION.steps
    assert sum(1 for f, _ in Sound.ILLEGAL.steps if f) == 3
    assert sum(1 for f, _ in Sound.ATTENTION.steps if f) == 2
    assert Sound.ILLEGAL.duration < 1 and Sound.ATTENTION.duration < 1.5


def test_tonal_buzzer_plays_the_pattern_frequencies(
    pwm_factory: MockFactory, events: queue.Queue[ControlEvent]
) -> None:
    pins = ControlPins(buzzer_tonal=True)
    with Controls(pins, events.put, pin_factory=pwm_factory) as controls:
        buzzer = pin(pwm_factory, pins.buzzer)
        buzzer.frequencies.clear()  # the PWM carrier set when the device was made
        controls.sound(Sound.ATTENTION)
        assert controls.wait_sound(3)
        tones = [f for f in buzzer.frequencies if f is not None]
        assert tones == pytest.approx([784.0, 784.0])
        controls.sound(Sound.ILLEGAL)
        assert controls.wait_sound(3)
        tones = [f for f in buzzer.frequencies if f is not None]
        assert tones[2:] == pytest.approx([1568.0] * 3)
        assert buzzer.frequency is None  # silent at the end


def test_tonal_buzzer_needs_pwm_and_says_so(plain_factory: MockFactory, events: queue.Queue[ControlEvent]) -> None:
    pins = ControlPins(buzzer_tonal=True)
    with pytest.raises(ConfigError, match=r"controls\.buzzer_tonal: GPIO20 cannot do PWM"):
        Controls(pins, events.put, pin_factory=plain_factory)
    # Every pin claimed before the failure was released again.
    with Controls(ControlPins(), events.put, pin_factory=plain_factory):
        pass


# ---------------------------------------------------------------- lifetime


def test_close_is_idempotent_darkens_and_releases(pwm_factory: MockFactory, events: queue.Queue[ControlEvent]) -> None:
    controls = Controls(PINS, events.put, pin_factory=pwm_factory)
    controls.show(Seat.N, {Seat.S}, alert=True)
    controls.close()
    controls.close()
    assert controls.closed
    assert controls.wait_sound(0)
    assert not pin(pwm_factory, PINS.buzzer).state
    controls.show(Seat.E)  # after close: ignored, no error
    # All pins are free again: a new set of controls can claim them.
    with Controls(PINS, events.put, pin_factory=pwm_factory) as again:
        press(pwm_factory, PINS.confirm)
        again.show(Seat.E)
        assert led(pwm_factory, Seat.E).state == 1
    assert drain(events) == ["confirm"]
