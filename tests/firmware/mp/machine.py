"""A stand-in for the rp2 port's ``machine`` module, so firmware/main.py itself runs on the unix port.

It accepts exactly the call shapes of MicroPython 1.2x on the RP2040 and refuses what the port refuses:
SPI pins outside the SPI block (the port's "bad SCK pin" rule), a WDT timeout over 8388 ms, Pin modes and
pulls the port does not have. Behind it sit four fakechip MFRC522 on one bus, selected by the CS pins of
config. The watchdog ends the run (SystemExit) after FEEDS feeds and reports the longest gap between them.
"""

import sys
import time

import config
import fakechip

SERVICE_LEVEL = 1  # what the service pin reads (1: no jumper)
FEEDS = 300
CRASH_AFTER = -1  # SPI writes before the bus raises OSError (a failure inside the loop); -1: never
CHIPS = [fakechip.FakeChip() for _ in range(4)]
BUS = fakechip.FakeBus(CHIPS)
_CS = {pin: i for i, pin in enumerate(config.PIN_CS)}


def say(*words):
    sys.stdout.buffer.write(("# " + " ".join(str(w) for w in words) + "\n").encode())


class Pin:
    IN = 0
    OUT = 1
    OPEN_DRAIN = 2
    PULL_UP = 1
    PULL_DOWN = 2

    def __init__(self, id, mode=-1, pull=-1, *, value=None, alt=-1):
        if not isinstance(id, int) or not 0 <= id <= 29:
            raise ValueError("invalid pin")
        if mode not in (-1, Pin.IN, Pin.OUT, Pin.OPEN_DRAIN):
            raise ValueError("invalid pin mode")
        if pull not in (-1, None, Pin.PULL_UP, Pin.PULL_DOWN):
            raise ValueError("invalid pull")
        self.id = id
        self.mode = mode
        self.pull = pull
        self._v = 0
        if value is not None:
            self.value(value)

    def value(self, v=None):
        if v is None:
            if self.id == config.PIN_SERVICE and self.mode == Pin.IN:
                return SERVICE_LEVEL if self.pull == Pin.PULL_UP else 0
            return self._v
        self._v = 1 if v else 0
        index = _CS.get(self.id)
        if index is not None and self.mode == Pin.OUT:
            if self._v == 0:
                BUS.sel = index
                BUS.mode = 0
            elif BUS.sel == index:
                BUS.sel = -1
        return None

    def __call__(self, v=None):
        return self.value(v)


def _spi_pin(spi_id, pin, low_bits, name):
    if pin.id & 3 != low_bits or (pin.id & 8) >> 3 != spi_id:
        raise ValueError("bad " + name + " pin")


class SPI:
    def __init__(
        self, id, baudrate=1000000, *, polarity=0, phase=0, bits=8, firstbit=0, sck=None, mosi=None, miso=None
    ):
        if id not in (0, 1):
            raise ValueError("SPI(" + str(id) + ") doesn't exist")
        _spi_pin(id, sck, 2, "SCK")
        _spi_pin(id, mosi, 3, "MOSI")
        _spi_pin(id, miso, 0, "MISO")
        if not 0 < baudrate <= 10_000_000:  # the MFRC522's limit, not the port's
            raise ValueError("baudrate beyond the MFRC522's 10 MHz")
        if (polarity, phase, bits, firstbit) != (0, 0, 8, 0):
            raise ValueError("the MFRC522 needs SPI mode 0, 8 bits, MSB first")
        say("spi", id, baudrate)

    def write(self, buf):
        global CRASH_AFTER
        if CRASH_AFTER == 0:
            raise OSError(5)
        CRASH_AFTER -= 1
        BUS.write(buf)

    def readinto(self, buf, write=0):
        BUS.readinto(buf, write)

    def write_readinto(self, wbuf, rbuf):
        BUS.write_readinto(wbuf, rbuf)


class WDT:
    def __init__(self, id=0, timeout=5000):
        if not 1 <= timeout <= 8388:  # rp2040: "the maximum timeout is 8388 ms"
            raise ValueError("timeout out of range")
        self.timeout = timeout
        self.feeds = 0
        self.last = time.ticks_ms()
        self.gap = 0
        say("wdt", timeout)

    def feed(self):
        now = time.ticks_ms()
        self.gap = max(self.gap, time.ticks_diff(now, self.last))
        self.last = now
        self.feeds += 1
        if self.feeds >= FEEDS:
            say("fed", self.feeds, "longest-gap-ms", self.gap)
            raise SystemExit(0)


def reset():
    say("machine.reset")
    raise SystemExit(3)
