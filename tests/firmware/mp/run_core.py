"""Run the firmware core on the MicroPython unix port against fakechip; report as '# ' lines on stdout.

Protocol lines the firmware writes go to stdout as well (through board.UsbPort, like USB CDC on the Pico);
host commands come from stdin. argv: the firmware directory.
"""

import sys

sys.path.insert(0, sys.argv[1])
sys.path.insert(0, sys.argv[2])

import time

import app
import board
import config
import fakechip
import mfrc522
import micropython

UID = b"\x04\xa1\xb2\xc3\xd4\xe5\xf6"


def say(*words):
    sys.stdout.buffer.write(("# " + " ".join(str(w) for w in words) + "\n").encode())


chips = [fakechip.FakeChip() for _ in range(4)]
bus = fakechip.FakeBus(chips)
cs = [fakechip.FakeCS(bus, i) for i in range(4)]

# 1. the driver alone reads a 7-byte UID
drv = mfrc522.MFRC522(bus, cs[0])
chips[0].set_uid(UID)
chips[0].card = True
say("init", drv.init(), "version", hex(drv.version))
say("wupa", drv.wupa(), "read", drv.read_uid(), "uid", bytes(drv.uid[: drv.uid_len]).hex())
drv.halt()
say("after-halt reqa", drv.reqa(), "wupa", drv.wupa())
chips[0].card = False

# 2. the application: boot, a card on zone 1, commands from stdin
port = board.UsbPort()
leds = [fakechip.Pin() for _ in range(4)]
application = app.App(config, bus, cs, leds, fakechip.Pin(), port, time, None)
application.start()
chips[1].set_uid(UID)
chips[1].card = True
for _ in range(40):
    application.step()

# 3. the scan loop allocates nothing: empty zones and a resting card, with the heap locked
scanner = application.scanner
failed = 0
micropython.heap_lock()
try:
    for _ in range(300):
        for z in range(4):
            scanner.scan(z)
except MemoryError:
    failed = 1
micropython.heap_unlock()
say("heap", "allocated" if failed else "none", "scans", scanner.scans, "state1", scanner.zones[1].state)

# 4. commands on stdin until it ends
t0 = time.ticks_ms()
while not port.closed and time.ticks_diff(time.ticks_ms(), t0) < 3000:
    application.step()
for _ in range(8):
    application.step()
say("done", "errors", application.link.errors)
