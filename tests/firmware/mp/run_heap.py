"""The whole loop step under heap_lock() on the MicroPython unix port, including after weeks of uptime.

stdin is a pipe the test never writes to (and closes at the end), so ``board.UsbPort`` polls the real stdin
as on the board and finds nothing; stdout is a pipe as well. argv: the firmware directory, the fakechip
directory. Results are '# ' lines on stdout.
"""

import sys

sys.path.insert(0, sys.argv[1])
sys.path.insert(0, sys.argv[2])

import io
import time

import app
import board
import config
import fakechip
import micropython

UID = b"\x04\xa1\xb2\xc3\xd4\xe5\xf6"


def say(*words):
    sys.stdout.buffer.write(("# " + " ".join(str(w) for w in words) + "\n").encode())


# 1. a line is dropped, not waited for, when the port cannot take it (a host that does not read)
class Stalled(io.IOBase):
    def __init__(self):
        self.writable = False
        self.data = bytearray()

    def ioctl(self, req, arg):
        if req == 3:  # MP_STREAM_POLL
            return arg & 4 if self.writable else 0  # POLLOUT only when there is room
        return -1

    def write(self, data):
        self.data.extend(data)
        return len(data)


out = Stalled()
port = board.UsbPort(None, out)
port.write(b"0 HB *0000\n")
say("stalled dropped", port.dropped, "written", len(out.data))
out.writable = True
port.write(b"1 HB *0000\n")
say("free dropped", port.dropped, "written", len(out.data))

# 2. the application with a card resting on zone 1; no HB while the heap is locked (HB allocates, once a second)
config.HEARTBEAT_MS = 3_600_000
# Every health check, proactive re-initialisation of the empty zones (soft reset, then set-up a scan round
# later) happens many times within the locked steps: they must allocate nothing either.
config.HEALTH_MS = 1
config.REINIT_MS = 2
config.RESET_MS = 0
chips = [fakechip.FakeChip() for _ in range(4)]
bus = fakechip.FakeBus(chips)
cs = [fakechip.FakeCS(bus, i) for i in range(4)]
leds = [fakechip.Pin() for _ in range(4)]
application = app.App(config, bus, cs, leds, fakechip.Pin(), board.UsbPort(), time, None)
application.start()
chips[1].set_uid(UID)
chips[1].card = True
for _ in range(40):
    application.step()


def locked_steps(label, n, reinits=0, seconds=60):
    """``n`` steps with the heap locked, and on (still locked) until the scanner has re-initialised an empty
    zone ``reinits`` times, within ``seconds``: re-initialisations fall due on the clock (every REINIT_MS), so how
    many come within a number of steps depends on how the machine schedules this process. Comparing and
    subtracting small ints allocates nothing: the waiting itself stays inside the lock."""
    first = application.scanner.reinits
    started = time.ticks_ms()
    done = 0
    allocated = False
    micropython.heap_lock()
    try:
        while done < n or (application.scanner.reinits - first < reinits
                           and time.ticks_diff(time.ticks_ms(), started) < seconds * 1000):
            application.step()
            done += 1
    except MemoryError:
        allocated = True
    micropython.heap_unlock()
    state = application.scanner.zones[1].state
    say(label, "allocated" if allocated else "none", "steps", min(done, n), "state1", state)
    return application.scanner.reinits - first


say("reinits", locked_steps("heap", 1200, reinits=50))


# 3. the same after weeks: counters at the port's small-int limit (2**30 on the Pico, 2**62 here) must wrap or
#    be split, never become big ints that are allocated on every step
def small_int_limit():
    k = 20
    while True:
        micropython.heap_lock()
        try:
            big = (1 << k) + 1 > 0  # noqa: F841  (allocates once 1 << k is no longer a small int)
            fits = True
        except MemoryError:
            fits = False
        micropython.heap_unlock()
        if not fits:
            return 1 << k
        k += 1


limit = small_int_limit()
start = limit - 5
application.uptime_s = start // 1000
application.uptime_rem_ms = start % 1000
application.scanner.scans = start
for z in application.scanner.zones:
    z.scans = start
say("limit", "2**" + str(len(bin(limit)) - 3))
locked_steps("heap-weeks", 400)
