"""Boot entry on the Pico: build the real hardware objects and run the reader application.

Nothing here is tested off the board except by compiling it; keep it to object construction. To get the
REPL back for maintenance (mpremote), hold the service pin (config.PIN_SERVICE) low while the board starts:
the application then does not start and the watchdog is never armed.
"""

import time

import app
import board
import config
from machine import SPI, WDT, Pin


def main() -> None:
    service = Pin(config.PIN_SERVICE, Pin.IN, Pin.PULL_UP)
    if service.value() == 0:
        print("tablepi reader: service pin low, application not started")
        return
    rst = Pin(config.PIN_RST, Pin.OUT, value=0)  # hard reset of all four MFRC522
    time.sleep_ms(2)
    rst(1)
    time.sleep_ms(50)  # oscillator start-up after NRSTPD goes high
    cs_pins = [Pin(n, Pin.OUT, value=1) for n in config.PIN_CS]
    spi = SPI(
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
    wdt = WDT(timeout=config.WDT_MS)
    application = app.App(config, spi, cs_pins, leds, buzzer, board.UsbPort(), time, wdt)
    application.run()


main()
