"""The reader application: the main loop that ties the scanner, the link, LEDs, buzzer and watchdog together.

Everything board-specific is passed in — the SPI bus, the pins, the serial port, the clock, the watchdog — so
main.py builds the real objects on the Pico and the emulator runner builds emulated ones around the very same
loop. One ``step()`` scans one zone, then serves the port and the timers, then feeds the watchdog: a command
from the host waits at most one zone scan, and a hang anywhere stops the feeding and resets the board.
"""

# ruff: noqa: UP031  (%-formatting: what MicroPython formats cheapest)

import link
import mfrc522
import scanner

_HEX = "0123456789ABCDEF"


def uid_hex(uid: bytearray, n: int) -> str:
    """A UID as the protocol writes it: upper-case hex, two digits per byte; "-" for none."""
    if n == 0:
        return "-"
    out = []
    for i in range(n):
        out.append(_HEX[uid[i] >> 4])
        out.append(_HEX[uid[i] & 0x0F])
    return "".join(out)


class App:
    """The firmware. ``port`` has ``readinto(buf) -> n`` (never blocks, 0 when nothing came) and
    ``write(bytes)``; ``clock`` has ticks_ms / ticks_add / ticks_diff / sleep_ms; ``wdt`` has ``feed()`` or is None;
    ``rst_pin`` drives NRSTPD of all modules (None: the scanner never hard-resets)."""

    def __init__(
        self,
        cfg: object,
        spi: object,
        cs_pins: list,
        led_pins: list,
        buzzer_pin: object,
        port: object,
        clock: object,
        wdt: object = None,
        rst_pin: object = None,
    ) -> None:
        self._cfg = cfg
        self._port = port
        self._clock = clock
        self._wdt = wdt
        self._leds = led_pins
        self._buzzer = buzzer_pin
        self._rst = rst_pin
        self.zones = cfg.ZONES
        readers = [
            mfrc522.MFRC522(
                spi,
                cs,
                cfg.CHIP_VERSIONS,
                cfg.TIMEOUT_TICKS,
                cfg.POLL_LIMIT,
                cfg.RX_GAIN,
                clock.sleep_ms,
                cfg.RESET_MS,
                cfg.NEAR_GAIN,
            )
            for cs in cs_pins
        ]
        self.readers = readers
        self.link = link.Link(self, self, self.zones)  # lines go out through write(): it feeds the watchdog
        self.scanner = scanner.Scanner(
            readers,
            clock,
            self,
            cfg.REMOVE_QUIET_MS,
            cfg.VERIFY_MS,
            cfg.HEALTH_MS,
            cfg.FAULT_RETRY_MS,
            cfg.REINIT_MS,
            cfg.RECHECK_MS,
            cfg.RESET_MS,
            self.hard_reset if rst_pin is not None else None,
            cfg.HARD_RESET_MS,
        )
        self._inbuf = bytearray(64)
        self._next = 0
        self._led_on = [0] * self.zones  # what the host asked for (LED ON / OFF)
        self._led_flash = [False] * self.zones
        self._led_until = [0] * self.zones
        self._beeping = False
        self._beep_until = 0
        now = clock.ticks_ms()
        self._last_tick = now
        # Uptime as seconds + milliseconds: one count of milliseconds would pass the Pico's small-int limit
        # (2**30) after 12.4 days and then allocate a big int on every step.
        self.uptime_s = 0
        self.uptime_rem_ms = 0
        self._hb_at = clock.ticks_add(now, cfg.HEARTBEAT_MS)
        self._hb_prev = now
        self._hb_scans = [0] * self.zones

    # --- main loop --------------------------------------------------------------------------------------
    def start(self) -> None:
        """Self-test the readers, then HELLO, STATE and a FAULT line for every reader that failed."""
        for pin in self._leds:
            pin(0)
        if self._buzzer is not None:
            self._buzzer(0)
        self.scanner.start()
        self.hello()
        for z in self.scanner.zones:
            if z.state == scanner.FAULT:
                self.link.send("FAULT %d %s" % (z.index, z.code))

    def run(self) -> None:
        """The board's endless loop."""
        self.start()
        while True:
            self.step()

    def step(self) -> None:
        """Scan the next zone, serve the port and the timers, feed the watchdog."""
        self.scanner.scan(self._next)
        self._next = (self._next + 1) % self.zones
        n = self._port.readinto(self._inbuf)
        if n:
            self.link.feed(self._inbuf, n)
        self._timers()
        if self._wdt is not None:
            self._wdt.feed()

    def write(self, data: bytes) -> None:
        """The link's output: feed the watchdog, then write the line.

        A USB write can wait up to 0.5 s per 64 bytes when the host holds the port open without reading; a
        step that sends several lines (boot: HELLO, STATE and a FAULT per reader; RESCAN; HB and events)
        must not add those waits up to the watchdog's timeout.
        """
        if self._wdt is not None:
            self._wdt.feed()
        self._port.write(data)

    def hard_reset(self) -> None:
        """Pulse NRSTPD of every module (one pin for all four) and wait for their oscillators.

        The scanner sets the chips up again afterwards. About 50 ms in which no zone is scanned: a last
        resort, used at most once per HARD_RESET_MS; the watchdog is fed on both sides of the wait.
        """
        cfg = self._cfg
        if self._wdt is not None:
            self._wdt.feed()
        self._rst(0)
        self._clock.sleep_ms(cfg.RST_LOW_MS)
        self._rst(1)
        self._clock.sleep_ms(cfg.RST_WAIT_MS)
        if self._wdt is not None:
            self._wdt.feed()

    def uptime_at(self, ticks: int) -> int:
        """The uptime in ms at ``ticks`` (a ticks_ms value near now): what v2 PLACE / LIFT lines carry.

        Only called when an event is sent (a line is formatted then anyway), so the big int it may be after
        12 days costs nothing in the scan loop.
        """
        since = self._clock.ticks_diff(ticks, self._last_tick)
        return self.uptime_s * 1000 + self.uptime_rem_ms + since

    def _timers(self) -> None:
        clock = self._clock
        now = clock.ticks_ms()
        ms = self.uptime_rem_ms + clock.ticks_diff(now, self._last_tick)
        self._last_tick = now
        if ms >= 1000:
            self.uptime_s += ms // 1000
            ms %= 1000
        self.uptime_rem_ms = ms
        for i in range(self.zones):
            if self._led_flash[i] and clock.ticks_diff(now, self._led_until[i]) >= 0:
                self._led_flash[i] = False
                self._leds[i](self._led_on[i])
        if self._beeping and clock.ticks_diff(now, self._beep_until) >= 0:
            self._beeping = False
            self._buzzer(0)
        if clock.ticks_diff(now, self._hb_at) >= 0:
            self._heartbeat(now)

    def _heartbeat(self, now: int) -> None:
        clock = self._clock
        elapsed = clock.ticks_diff(now, self._hb_prev) or 1
        self._hb_prev = now
        self._hb_at = clock.ticks_add(now, self._cfg.HEARTBEAT_MS)
        rates = []
        for z in self.scanner.zones:
            done = (z.scans - self._hb_scans[z.index]) & scanner.COUNT_MASK  # the counters wrap
            rates.append(str(done * 1000 // elapsed))
            self._hb_scans[z.index] = z.scans
        uptime = self.uptime_s * 1000 + self.uptime_rem_ms
        self.link.send("HB %d %d %d %s" % (uptime, self.scanner.scans, self.link.errors, " ".join(rates)))

    def _flash(self, zone: int) -> None:
        self._led_flash[zone] = True
        self._led_until[zone] = self._clock.ticks_add(self._clock.ticks_ms(), self._cfg.LED_FLASH_MS)
        self._leds[zone](1 - self._led_on[zone])

    # --- events from the scanner ----------------------------------------------------------------------
    def place(self, zone: int, uid: bytearray, n: int, t: int) -> None:
        """PLACE ZONE UID T: T is the uptime of the first answer of the card (protocol v2)."""
        self.link.send("PLACE %d %s %d" % (zone, uid_hex(uid, n), self.uptime_at(t)))
        self._flash(zone)

    def lift(self, zone: int, uid: bytearray, n: int, t: int) -> None:
        """LIFT ZONE UID T: T is the uptime of the last answer of the card (protocol v2)."""
        self.link.send("LIFT %d %s %d" % (zone, uid_hex(uid, n), self.uptime_at(t)))

    def multi(self, zone: int) -> None:
        self.link.send("MULTI %d" % zone)

    def cross(self, zone: int, uid: bytearray, n: int, holder: int) -> None:
        """CROSS ZONE UID HOLDER (v2): the zone hears the card that lies on HOLDER (antenna crosstalk)."""
        self.link.send("CROSS %d %s %d" % (zone, uid_hex(uid, n), holder))

    def fault(self, zone: int, code: str) -> None:
        self.link.send("FAULT %d %s" % (zone, code))

    def ok(self, zone: int) -> None:
        self.link.send("OK %d" % zone)

    # --- commands from the host -----------------------------------------------------------------------
    def hello(self) -> None:
        cfg = self._cfg
        self.link.send_hello(cfg.PROTO, cfg.FIRMWARE, self.zones)
        self.state()

    def state(self) -> None:
        fields = []
        for z in self.scanner.zones:
            if z.state == scanner.PRESENT:
                fields.append(uid_hex(z.uid, z.uid_len))
            elif z.state == scanner.MULTI:
                fields.append("MULTI")
            elif z.state == scanner.FAULT:
                fields.append("FAULT")
            else:
                fields.append("-")
        self.link.send("STATE " + " ".join(fields))

    def led(self, zone: int, mode: str) -> None:
        if mode == "FLASH":
            self._flash(zone)
            return
        self._led_on[zone] = 1 if mode == "ON" else 0
        if not self._led_flash[zone]:
            self._leds[zone](self._led_on[zone])

    def beep(self, ms: int) -> None:
        if self._buzzer is None:
            return  # no buzzer fitted: the command is still acknowledged
        self._buzzer(1)
        self._beeping = True
        self._beep_until = self._clock.ticks_add(self._clock.ticks_ms(), ms)

    def rescan(self) -> None:
        self.scanner.rescan()
        self.state()
