"""The failure modes of tests/firmware/test_failures.py on the MicroPython unix port, against fakechip.

argv: the firmware directory, the fakechip directory. One '# NAME RESULT...' line per scenario. Timings are
shortened: health check, re-initialisation and quiet time in tens of ms. The loop runs on a clock of its own
that moves a millisecond per step (and as the firmware sleeps): on real time, a loaded machine ran too few
steps in a scenario's time, or left gaps longer than the quiet time between two steps.
"""

import sys

sys.path.insert(0, sys.argv[1])
sys.path.insert(0, sys.argv[2])

import app
import config
import fakechip

UID = b"\x04\xa1\xb2\xc3\xd4\xe5\xf6"
config.HEARTBEAT_MS = 3_600_000
config.HEALTH_MS = 20
config.REINIT_MS = 20
config.REMOVE_QUIET_MS = 60
config.FAULT_RETRY_MS = 50
config.HARD_RESET_MS = 0
config.RST_LOW_MS = 1
config.RST_WAIT_MS = 1
config.RESET_MS = 1


class Clock:
    """ticks_ms / ticks_add / ticks_diff / sleep_ms as the firmware uses them, on a millisecond count that
    moves only when told (the counts stay far from the ticks' wrap)."""

    def __init__(self):
        self.now = 0

    def ticks_ms(self):
        return self.now

    def ticks_add(self, ticks, delta):
        return ticks + delta

    def ticks_diff(self, new, old):
        return new - old

    def sleep_ms(self, ms):
        self.now += ms


clock = Clock()


def say(*words):
    sys.stdout.buffer.write(("# " + " ".join(str(w) for w in words) + "\n").encode())


class Port:
    def __init__(self):
        self.lines = []

    def readinto(self, buf):
        return 0

    def write(self, data):
        self.lines.append(data.decode().split(" ", 1)[1].rsplit(" *", 1)[0])


class Rst:
    """NRSTPD of every fake chip: high after low is a hard reset."""

    def __init__(self, chips):
        self.chips = chips
        self.v = 1

    def __call__(self, v=None):
        if v is not None:
            if v and not self.v:
                for c in self.chips:
                    c.hard_reset()
            self.v = v
        return self.v


def board():
    chips = [fakechip.FakeChip() for _ in range(4)]
    bus = fakechip.FakeBus(chips)
    cs = [fakechip.FakeCS(bus, i) for i in range(4)]
    port = Port()
    leds = [fakechip.Pin() for _ in range(4)]
    a = app.App(config, bus, cs, leds, fakechip.Pin(), port, clock, None, Rst(chips))
    a.start()
    return chips, a, port


def run(a, ms):
    """``ms`` milliseconds of the loop: a step each."""
    for _ in range(ms):
        a.step()
        clock.now += 1


def kinds(port, since=0):
    return ",".join(line.split(" ")[0] + line.split(" ")[1] for line in port.lines[since:]) or "none"


# deaf under a resting card: no LIFT, the reader hears again
chips, a, port = board()
chips[1].set_uid(UID)
chips[1].card = True
run(a, 100)
n = len(port.lines)
chips[1].deaf = True
run(a, 400)
say("deaf", kinds(port, n), "state1", a.scanner.zones[1].state, "still_deaf", chips[1].deaf)

# a soft reset that hangs: the brown-out's repair meets it, a hard reset ends it
chips, a, port = board()
chips[2].hang_reset = True
chips[2].regs[0x2A] = 0  # TModeReg lost: a brown-out
run(a, 300)
chips[2].set_uid(UID)
chips[2].card = True
n = len(port.lines)
run(a, 200)
say("hang", kinds(port, n), "stuck", chips[2].stuck, "hard", a.scanner.hard_resets)

# a gain that drifted under a resting card: repaired silently
chips, a, port = board()
chips[0].set_uid(UID)
chips[0].card = True
run(a, 100)
n = len(port.lines)
chips[0].regs[0x26] = 0x00
run(a, 300)
say("drift", kinds(port, n), "gain", hex(chips[0].regs[0x26]), "state0", a.scanner.zones[0].state)

# a stack that freezes the receiver: MULTI, not FAULT
chips, a, port = board()
chips[3].set_uid(UID)
chips[3].card = True
chips[3].freeze = True
run(a, 300)
say("stack", kinds(port), "state3", a.scanner.zones[3].state)

# a tag heard garbled on every read: never a PLACE
chips, a, port = board()
chips[0].set_uid(UID)
chips[0].garble = True
chips[0].card = True
run(a, 400)
say("garble", kinds(port), "reads", chips[0].reads)

# a card on zone 1 heard cleanly by zone 0's antenna too (crosstalk), zone 0 scanned first: placed on 1 only
chips, a, port = board()
chips[0].set_uid(UID)
chips[0].faint = True
chips[1].set_uid(UID)
chips[0].card = True
chips[1].card = True
n = len(port.lines)
run(a, 300)
say("cross", kinds(port, n), "gain0", hex(chips[0].regs[0x26]), "gain1", hex(chips[1].regs[0x26]))

# a card sliding in: silent and garbled reads first, then clean ones: one PLACE, with its own UID
chips, a, port = board()
chips[2].set_uid(UID)
chips[2].slide = 12
chips[2].card = True
n = len(port.lines)
run(a, 300)
uid = port.lines[-1].split(" ")[2] if len(port.lines) > n else "-"
say("slide", kinds(port, n), "uid", uid, "left", chips[2].slide)

