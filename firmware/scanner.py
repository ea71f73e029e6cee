"""Zone scanning: turns cheap presence checks into PLACE / LIFT / MULTI / FAULT / OK, without flapping.

Why the scan looks the way it does:

* A tag that has been read is put to sleep with HLTA. Asleep, it ignores REQA but answers WUPA. So a scan of
  an occupied zone is REQA (does a *new* tag answer? usually nobody does and the chip's timer ends the wait
  after ~1 ms) and WUPA + HLTA (is the resting tag still there? it answers within ~0.3 ms). The full
  anticollision + select UID read (~5 commands) runs only when something changed, and every VERIFY_MS as
  a safety net for a swap nobody saw.
* All four readers keep their field on; only one talks at a time (scans are staggered zone by zone) so a
  reader never transmits while a neighbour listens. Switching fields off between scans would wake every tag
  fresh (a tag's HALT state is lost without power) and cost the start-up time of the tag each scan.
* A tag is reported lifted only after REMOVE_QUIET_MS without an answer: a card at the edge of the field
  that misses a few answers stays "present". A different tag answering while the old one was heard within
  the quiet time means two tags (MULTI), never a LIFT/PLACE flicker.
* A reader that fails its self-test, stops answering (a command never ends) or loses its setup is reported
  (FAULT) and re-initialised every FAULT_RETRY_MS; when it passes again it is reported OK.

Nothing is allocated per scan: zone state lives in preallocated objects and buffers, results are small ints.
"""

# ruff: noqa: SIM109, SIM110  (explicit loops and comparisons allocate nothing on MicroPython (no generator, no tuple))

try:
    from micropython import const
except ImportError:  # CPython

    def const(value: int) -> int:
        return value


from mfrc522 import COLL, HUNG, NONE, OK, RESET

# --- zone states ------------------------------------------------------------------------------------
EMPTY = const(0)  # nothing on the zone
PRESENT = const(1)  # one tag, uid[:uid_len], reported with PLACE
MULTI = const(2)  # two or more tags answer
FAULT = const(3)  # the reader is not working

# Scan counters wrap here: the Pico's small ints end at 2**30, and a big int would be allocated on every scan
# after about a month of uptime. HB's SCANS field therefore counts modulo 2**30.
COUNT_MASK = const(0x3FFFFFFF)

# --- what one scan saw ----------------------------------------------------------------------------------
_SEEN_NOTHING = const(0)  # no valid answer
_SEEN_SAME = const(1)  # the zone's own tag answered
_SEEN_OTHER = const(2)  # exactly one tag, not the zone's own: its UID is in the reader's uid buffer
_SEEN_MANY = const(3)  # a collision: two or more tags
_SEEN_HUNG = const(4)  # the reader stopped answering


class Zone:
    """The state of one reader zone, updated in place by the scanner."""

    def __init__(self, index: int, reader: object) -> None:
        self.index = index
        self.reader = reader
        self.state = FAULT  # until start() has run the self-test
        self.code = "SELFTEST"  # FAULT code while state is FAULT
        self.uid = bytearray(10)
        self.uid_len = 0
        self.last_seen = 0  # ticks_ms of the last answer of what is reported (tag or collision)
        self.verify_at = 0  # ticks_ms when the resting tag's UID is read again in full
        self.health_at = 0  # ticks_ms of the next reader health check
        self.retry_at = 0  # ticks_ms of the next re-initialisation while FAULT
        self.scans = 0  # scans since boot (FAULT retries excluded)


class Scanner:
    """Scans the zones one at a time; reports changes to ``sink``.

    The sink has ``place(zone, uid, n)``, ``lift(zone, uid, n)`` (n = 0: the end of a MULTI, uid "-"),
    ``multi(zone)``, ``fault(zone, code)`` and ``ok(zone)``. ``clock`` has ticks_ms / ticks_add /
    ticks_diff (the ``time`` module on the board).
    """

    def __init__(
        self,
        readers: list,
        clock: object,
        sink: object,
        quiet_ms: int = 200,
        verify_ms: int = 1000,
        health_ms: int = 1000,
        retry_ms: int = 1000,
    ) -> None:
        self.zones = [Zone(i, r) for i, r in enumerate(readers)]
        self._clock = clock
        self._sink = sink
        self._quiet = quiet_ms
        self._verify = verify_ms
        self._health = health_ms
        self._retry = retry_ms
        self.scans = 0

    # --- life cycle -------------------------------------------------------------------------------
    def start(self) -> None:
        """Self-test every reader. Nothing is reported: the caller's STATE (and FAULT lines) say it."""
        now = self._clock.ticks_ms()
        for z in self.zones:
            self._init(z, now, "SELFTEST")

    def rescan(self) -> None:
        """Forget every zone and read each afresh (no quiet time, no events): the STATE after it is new."""
        now = self._clock.ticks_ms()
        for z in self.zones:
            if z.state == FAULT and not self._init(z, now, z.code):
                continue
            z.state = EMPTY
            z.uid_len = 0
            seen = self._full(z)
            if seen == _SEEN_HUNG:
                self._fault(z, now, "TIMEOUT", False)
            elif seen == _SEEN_MANY:
                z.state = MULTI
                z.last_seen = now
            elif seen == _SEEN_OTHER:
                self._take_uid(z, now)

    def _init(self, z: Zone, now: int, code: str) -> bool:
        if z.reader.init() == OK:
            z.state = EMPTY
            z.uid_len = 0
            z.health_at = self._clock.ticks_add(now, self._health)
            return True
        z.state = FAULT
        z.code = code
        z.retry_at = self._clock.ticks_add(now, self._retry)
        return False

    def _fault(self, z: Zone, now: int, code: str, report: bool = True) -> None:
        z.state = FAULT
        z.code = code
        z.uid_len = 0
        z.retry_at = self._clock.ticks_add(now, self._retry)
        if report:
            self._sink.fault(z.index, code)

    # --- one scan ---------------------------------------------------------------------------------------
    def scan(self, index: int) -> None:
        """Scan one zone once and report what changed."""
        z = self.zones[index]
        clock = self._clock
        now = clock.ticks_ms()
        if z.state == FAULT:
            if clock.ticks_diff(now, z.retry_at) >= 0 and self._init(z, now, z.code):
                self._sink.ok(index)
            return
        z.scans = (z.scans + 1) & COUNT_MASK
        self.scans = (self.scans + 1) & COUNT_MASK
        if clock.ticks_diff(now, z.health_at) >= 0:
            z.health_at = clock.ticks_add(now, self._health)
            if self._unhealthy(z, now):
                return
        seen = self._look(z, now)
        if seen == _SEEN_HUNG:
            # A command never ended: a chip that lost its setup (its timer is off after a reset) or a dead one.
            if not self._unhealthy(z, now):
                self._fault(z, now, "TIMEOUT")
        else:
            self._judge(z, seen, now)

    def _unhealthy(self, z: Zone, now: int) -> bool:
        """Check the reader; report and handle what is wrong. True if the scan must not go on."""
        st = z.reader.check()
        if st == HUNG:
            self._fault(z, now, "TIMEOUT")
            return True
        if st == RESET:
            self._fault(z, now, "RESET")
            if self._init(z, now, "RESET"):
                self._sink.ok(z.index)
            return True
        return False

    def _look(self, z: Zone, now: int) -> int:
        """What is on the zone now, at the least cost for the zone's state."""
        if z.state != PRESENT or self._clock.ticks_diff(now, z.verify_at) >= 0:
            return self._full(z)
        r = z.reader
        st = r.reqa()
        if st == HUNG:
            return _SEEN_HUNG
        if st == NONE:
            # Nothing new. Is the resting (halted) tag still there? WUPA wakes it, HLTA puts it back.
            st = r.wupa()
            if st == HUNG:
                return _SEEN_HUNG
            if st == OK or st == COLL:
                return _SEEN_HUNG if r.halt() == HUNG else _SEEN_SAME
            return _SEEN_NOTHING
        # A tag that was not halted answered REQA: a new one, or ours after losing power for a moment.
        st = r.read_uid()
        if st == HUNG:
            return _SEEN_HUNG
        if st == COLL:
            return _SEEN_HUNG if r.halt() == HUNG else _SEEN_MANY
        if st == OK:
            if r.halt() == HUNG:
                return _SEEN_HUNG
            if self._is_own(z):
                z.verify_at = self._clock.ticks_add(now, self._verify)
                return _SEEN_SAME
        # Someone else (or an unreadable answer): wake everything and look at the whole zone.
        return self._full(z)

    def _full(self, z: Zone) -> int:
        """WUPA and a full UID read: every tag on the zone takes part, halted or not."""
        r = z.reader
        st = r.wupa()
        if st == HUNG:
            return _SEEN_HUNG
        if st != OK and st != COLL:
            return _SEEN_NOTHING
        st = r.read_uid()
        if st == HUNG:
            return _SEEN_HUNG
        if st == COLL:
            return _SEEN_HUNG if r.halt() == HUNG else _SEEN_MANY
        if st != OK:
            return _SEEN_NOTHING
        if r.halt() == HUNG:
            return _SEEN_HUNG
        if z.state == PRESENT and self._is_own(z):
            z.verify_at = self._clock.ticks_add(self._clock.ticks_ms(), self._verify)
            return _SEEN_SAME
        return _SEEN_OTHER

    def _is_own(self, z: Zone) -> bool:
        r = z.reader
        n = r.uid_len
        if n != z.uid_len:
            return False
        for i in range(n):
            if r.uid[i] != z.uid[i]:
                return False
        return True

    def _take_uid(self, z: Zone, now: int) -> None:
        r = z.reader
        n = r.uid_len
        for i in range(n):
            z.uid[i] = r.uid[i]
        z.uid_len = n
        z.state = PRESENT
        z.last_seen = now
        z.verify_at = self._clock.ticks_add(now, self._verify)

    # --- debouncing ------------------------------------------------------------------------------
    def _judge(self, z: Zone, seen: int, now: int) -> None:
        """Turn one observation into at most two events, with the quiet time applied to every removal."""
        sink = self._sink
        quiet_over = self._clock.ticks_diff(now, z.last_seen) >= self._quiet
        if seen == _SEEN_SAME:
            z.last_seen = now
        elif seen == _SEEN_NOTHING:
            if z.state != EMPTY and quiet_over:
                sink.lift(z.index, z.uid, z.uid_len if z.state == PRESENT else 0)
                z.state = EMPTY
                z.uid_len = 0
        elif seen == _SEEN_MANY:
            z.last_seen = now
            if z.state != MULTI:
                z.state = MULTI
                z.uid_len = 0
                sink.multi(z.index)
        elif z.state == EMPTY or quiet_over:
            # One tag, and whatever was reported before has been silent for the quiet time.
            if z.state == PRESENT:
                sink.lift(z.index, z.uid, z.uid_len)
            self._take_uid(z, now)
            sink.place(z.index, z.uid, z.uid_len)
        elif z.state == PRESENT:
            # Another tag while ours answered a moment ago: both lie there.
            z.state = MULTI
            z.uid_len = 0
            z.last_seen = now
            sink.multi(z.index)
