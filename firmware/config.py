"""Reader firmware configuration: every pin and timing in one place.

The pin block must equal hw/pinmap.json, and the table in hw/wiring.md shows the same data; a test compares all
three, so the build guide and the firmware cannot drift apart. Timings are in milliseconds unless the name
says otherwise; docs/firmware.md explains how each one trades speed against robustness.
"""

# --- pins (GP numbers) — must match hw/pinmap.json -------------------------------------------------
SPI_ID = 0  # hardware SPI block shared by all four readers
PIN_SCK = 18  # SPI0 SCK
PIN_MOSI = 19  # SPI0 TX
PIN_MISO = 16  # SPI0 RX
PIN_RST = 26  # NRSTPD of all four MFRC522 modules, tied together
PIN_BUZZER = 15  # active buzzer via transistor (optional; -1 if not fitted)
PIN_SERVICE = 14  # jumper to GND at boot: do not start the application (REPL for maintenance)
PIN_CS = (17, 20, 21, 22)  # chip select (SDA on the modules) of zones 0..3
PIN_LED = (10, 11, 12, 13)  # one LED per zone, active high

# --- SPI ---------------------------------------------------------------------------------------------
SPI_BAUDRATE = 4_000_000  # MFRC522 allows 10 MHz; 4 MHz is safe with ~30 cm of ribbon per module

# --- chip --------------------------------------------------------------------------------------------
# VersionReg values accepted by the self-test: NXP MFRC522 v1.0 / v2.0 (0x91, 0x92), the register-compatible
# Fudan FM17522 family found on many RC522 boards (0x88, 0x89, 0xB2) and the common unbranded copy (0x12).
# 0x00 / 0xFF (nothing on MISO, or MISO stuck) and anything else fail; the read-back of the timer setup after
# init is the real test that the chip answers on the bus. hw/README.md (pitfalls: cloned chips) explains.
CHIP_VERSIONS = (0x91, 0x92, 0x88, 0x89, 0xB2, 0x12)
RX_GAIN = 0x70  # RFCfgReg RxGain: 0x70 = 48 dB, the maximum (short range antennas under a table top)
NEAR_GAIN = 0x50  # RxGain of a near read (38 dB) when two zones read one card: its own antenna still hears it
TIMEOUT_TICKS = 40  # chip timer reload, 25 us per tick: 40 = 1 ms without an answer ends a command
POLL_LIMIT = 500  # ComIrqReg reads before a command counts as hung (chip not answering: FAULT TIMEOUT)
RESET_MS = 5  # wait after SoftReset before the chip is set up (the datasheet gives no figure)
RST_LOW_MS = 2  # hard reset: NRSTPD (PIN_RST, shared by all four modules) held low this long
RST_WAIT_MS = 50  # hard reset: oscillator start-up after NRSTPD goes high, before the chips are set up
HARD_RESET_MS = 1000  # at most one hard reset this often (it resets all four modules: a last resort)

# --- scanning ----------------------------------------------------------------------------------------
ZONES = 4
REMOVE_QUIET_MS = 200  # a tag is lifted only after this long without an answer (no flapping)
VERIFY_MS = 1000  # a resting tag's full UID is read again at least this often (catches a swap nobody saw)
HEALTH_MS = 1000  # each reader's VersionReg and timer setup are checked this often
FAULT_RETRY_MS = 1000  # a faulty reader is re-initialised this often until it passes its self-test
REINIT_MS = 250  # an empty zone's reader is re-initialised this often (modules go deaf after hours of use)
RECHECK_MS = 8  # before a LIFT the reader is re-initialised, then looked at again this long (tag power-up: <= 5 ms)

# --- outputs -----------------------------------------------------------------------------------------
LED_FLASH_MS = 80  # zone LED flash on a good read (and for the host's LED FLASH)
HEARTBEAT_MS = 1000  # HB line period (the host declares the link dead after 3 s of silence)
WDT_MS = 3000  # hardware watchdog; the loop feeds it every zone scan (RP2040 maximum is 8388 ms)

# --- identity ----------------------------------------------------------------------------------------
PROTO = 2  # docs/protocol.md: v2 dates PLACE and LIFT with the device's uptime
FIRMWARE = "tablepi-fw/1.1.0"
# USB strings the board announces (boot.py); systemd/99-tablepi-reader.rules matches the product string, so the
# Pi gives /dev/tablepi-reader to this firmware only, never to any other Pico or MicroPython board.
USB_MANUFACTURER = "tablepi"
USB_PRODUCT = "tablepi reader"
