"""Boot entry on the Pico: build the real hardware objects and run the reader application.

Nothing here is tested off the board except by compiling it; keep it to object construction. The order is
deliberate:

1. The service pin is read first, before the application is even imported: holding it low (the service
   jumper, config.PIN_SERVICE to GND) while the board starts leaves the REPL to mpremote, the watchdog is
   never armed. Without the jumper the application ignores Ctrl-C, so this is the way in for updates.
2. The MFRC522 are hard-reset through NRSTPD, then the watchdog is armed and the application runs. Nothing
   waits for the host: until it opens the port, USB output goes into a small buffer that keeps the newest
   bytes, and the host asks for HELLO itself.
3. An exception out of the loop (a bug, or a MemoryError after heap fragmentation) resets the board at once:
   it comes back with a HELLO and the host rebuilds its picture from the STATE after it. Falling through to
   the REPL instead would feed the host's commands to the Python prompt until the watchdog fired.
"""

import sys
import time

import config
import machine
from machine import Pin


def service_jumper_fitted() -> bool:
    """The service pin reads low at boot (pull-up on; a moment to settle through the jumper wire)."""
    pin = Pin(config.PIN_SERVICE, Pin.IN, Pin.PULL_UP)
    time.sleep_ms(2)
    return pin.value() == 0


def main() -> None:
    if service_jumper_fitted():
        print("tablepi reader: service jumper fitted, application not started (REPL for maintenance)")
        return
    import app
    import board

    rst = Pin(config.PIN_RST, Pin.OUT, value=0)  # hard reset of all four MFRC522
    time.sleep_ms(2)
    rst(1)
    time.sleep_ms(50)  # oscillator start-up after NRSTPD goes high
    cs_pins = [Pin(n, Pin.OUT, value=1) for n in config.PIN_CS]
    spi = machine.SPI(
        config.SPI_ID,
        baudrate=config.SPI_BAUDRATE,
        polarity=0,
        phase=0,
        sck=Pin(config.PIN_SCK),
        mosi=Pin(config.PIN_MOSI),
        miso=Pin(config.PIN_MISO),
    )
    leds = [Pin(n, Pin.OUT, value=0) for n in config.PIN_LED]
    buzzer = Pin(config.PIN_BUZZER, Pin.OUT, value=0) if config.PIN_BUZZER >= 0 else None
    wdt = machine.WDT(timeout=config.WDT_MS)
    application = app.App(config, spi, cs_pins, leds, buzzer, board.UsbPort(), time, wdt, rst)
    try:
        application.run()
    except Exception as exc:  # any failure: start again from a clean board
        sys.print_exception(exc)  # a few garbled lines for the host (dropped by CRC), readable in picocom
        time.sleep_ms(100)
        machine.reset()


main()
