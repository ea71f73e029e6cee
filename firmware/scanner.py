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
* RC522 modules that run for hours are reported to fail silently: they go deaf while still answering register
  reads, a soft reset never completes, or single setup registers drift. So every setup register is compared
  with what was written once per HEALTH_MS (a drift is repaired with a hard reset through NRSTPD, which all
  four modules share, and a re-initialisation); an empty zone's reader is re-initialised every REINIT_MS
  anyway; and before a resting card is reported lifted its reader is re-initialised and asked once more, so a
  reader that went deaf under a card costs no LIFT/PLACE. Every wait on the chip is bounded.
* A UID that is new to a zone is reported only when two reads in a row return it identically: a neighbour's
  tag heard faintly, or a card still sliding in, can give a complete, valid-looking frame with wrong bits
  (no CRC covers the anticollision answer), but not the same wrong bits twice.
* A Transceive whose reception never ends while the chip is otherwise well (its CRC coprocessor still
  finishes) is what a stack of three cards does to the receiver: that is MULTI, not a reader FAULT.
* Events carry the time of the answers they stand for (``ticks_ms``): a PLACE the first answer on the zone,
  a LIFT the last answer of the card; the app sends them as uptime so the host dates gestures when they
  happened, not when the quiet time let the line out.

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
_SEEN_NOTHING = const(0)  # no answer at all
_SEEN_SAME = const(1)  # the zone's own tag answered
_SEEN_OTHER = const(2)  # exactly one tag, not the zone's own, read twice identically: UID in the reader's buffer
_SEEN_MANY = const(3)  # a collision: two or more tags (or a reception that never ended: a stack)
_SEEN_HUNG = const(4)  # the reader stopped answering
_SEEN_NOISE = const(5)  # something answered, but no UID was read twice identically

# An EMPTY zone dates its next PLACE from the first answer heard, at most this long before the read.
_HEARD_MAX_MS = const(100)

# Recheck stages of a PRESENT zone whose card went quiet (see _judge).
_RECHECK_NONE = const(0)
_RECHECK_RESET = const(1)  # the reader is being re-initialised
_RECHECK_LOOK = const(2)  # re-initialised: looking again until recheck_until


class Zone:
    """The state of one reader zone, updated in place by the scanner."""

    def __init__(self, index: int, reader: object) -> None:
        self.index = index
        self.reader = reader
        self.state = FAULT  # until start() has run the self-test
        self.code = "SELFTEST"  # FAULT code while state is FAULT
        self.uid = bytearray(10)
        self.uid_len = 0
        self.cand = bytearray(10)  # first of the two reads that must agree before a new UID is believed
        self.last_seen = 0  # ticks_ms of the last answer of what is reported (tag or collision)
        self.heard = False  # EMPTY: something answered since the zone was last silent
        self.heard_at = 0  # ticks_ms of that first answer: the time of the next PLACE
        self.verify_at = 0  # ticks_ms when the resting tag's UID is read again in full
        self.health_at = 0  # ticks_ms of the next reader health check
        self.reinit_at = 0  # ticks_ms of the next proactive re-initialisation (EMPTY zones)
        self.retry_at = 0  # ticks_ms of the next re-initialisation while FAULT
        self.resetting = False  # a soft reset was started; setup() is due at reset_done
        self.reset_done = 0
        self.recheck = _RECHECK_NONE
        self.recheck_until = 0
        self.scans = 0  # scans since boot (FAULT retries excluded)


class Scanner:
    """Scans the zones one at a time; reports changes to ``sink``.

    The sink has ``place(zone, uid, n, t)``, ``lift(zone, uid, n, t)`` (n = 0: the end of a MULTI, uid "-";
    t: ticks_ms of the answer the event stands for), ``multi(zone)``, ``fault(zone, code)`` and ``ok(zone)``.
    ``clock`` has ticks_ms / ticks_add / ticks_diff (the ``time`` module on the board). ``hard_reset`` pulses
    the modules' shared NRSTPD (None: not wired); it is used at most once per ``hard_every_ms``.
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
        reinit_ms: int = 2000,
        recheck_ms: int = 10,
        reset_ms: int = 5,
        hard_reset: object = None,
        hard_every_ms: int = 10_000,
    ) -> None:
        self.zones = [Zone(i, r) for i, r in enumerate(readers)]
        self._clock = clock
        self._sink = sink
        self._quiet = quiet_ms
        self._verify = verify_ms
        self._health = health_ms
        self._retry = retry_ms
        self._reinit = reinit_ms
        self._recheck = recheck_ms
        self._reset_ms = reset_ms
        self._hard_reset = hard_reset
        self._hard_every = hard_every_ms
        self._hard_at = 0
        self._hard_done = False
        self.scans = 0
        self.hard_resets = 0  # hard resets since boot (for tests and the log)
        self.reinits = 0  # soft re-initialisations of working readers (proactive and before a LIFT)

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
            if (z.state == FAULT or z.resetting) and not self._init(z, now, z.code):
                continue
            z.state = EMPTY
            z.uid_len = 0
            z.recheck = _RECHECK_NONE
            seen = self._full(z)
            if seen == _SEEN_HUNG:
                self._fault(z, now, "TIMEOUT", False)
            elif seen == _SEEN_MANY:
                z.state = MULTI
                z.last_seen = now
            elif seen == _SEEN_OTHER:
                self._take_uid(z, now)

    def _init(self, z: Zone, now: int, code: str, hard: bool = False) -> bool:
        """(Re-)initialise a reader, by a hard reset first if ``hard``; a soft reset that hangs gets one."""
        ok = hard and self._hard(z, now)
        if not ok:
            st = z.reader.init()
            ok = st == OK or (st == HUNG and self._hard(z, now))
        z.resetting = False
        z.recheck = _RECHECK_NONE
        if ok:
            z.state = EMPTY
            z.uid_len = 0
            z.heard = False
            z.health_at = self._clock.ticks_add(now, self._health)
            z.reinit_at = self._clock.ticks_add(now, self._reinit)
            return True
        z.state = FAULT
        z.code = code
        z.retry_at = self._clock.ticks_add(now, self._retry)
        return False

    def _hard(self, z: Zone, now: int) -> bool:
        """Hard-reset every module (NRSTPD is shared) and set each up again; True if ``z`` works after it.

        The other zones keep their state: their cards lost power for the reset and answer REQA afresh, which
        the scan reads as the same card. A module that does not come back is reported FAULT RESET.
        """
        clock = self._clock
        if self._hard_reset is None or (self._hard_done and clock.ticks_diff(now, self._hard_at) < 0):
            return False
        self._hard_done = True
        self._hard_reset()
        self.hard_resets += 1
        now = clock.ticks_ms()
        self._hard_at = clock.ticks_add(now, self._hard_every)
        for o in self.zones:
            o.resetting = False
            o.recheck = _RECHECK_NONE
            if o is z or o.state == FAULT:
                continue  # z is set up below; a faulty zone at its own retry time
            if o.reader.init() == OK:
                o.health_at = clock.ticks_add(now, self._health)
                o.reinit_at = clock.ticks_add(now, self._reinit)
            else:
                self._fault(o, now, "RESET")
        return z.reader.init() == OK

    def _fault(self, z: Zone, now: int, code: str, report: bool = True) -> None:
        z.state = FAULT
        z.code = code
        z.uid_len = 0
        z.resetting = False
        z.recheck = _RECHECK_NONE
        z.retry_at = self._clock.ticks_add(now, self._retry)
        if report:
            self._sink.fault(z.index, code)

    def _begin_reset(self, z: Zone, now: int) -> None:
        """Start a soft reset of a working reader; the zone is skipped until its setup() is due."""
        z.reader.soft_reset()
        z.resetting = True
        z.reset_done = self._clock.ticks_add(now, self._reset_ms)
        z.reinit_at = self._clock.ticks_add(now, self._reinit)
        self.reinits += 1

    def _finish_reset(self, z: Zone, now: int) -> bool:
        """Set the reader up after its soft reset; False (reported) if it did not come back."""
        z.resetting = False
        st = z.reader.setup()
        if st != OK and not (st == HUNG and self._hard(z, now)) and z.reader.init() != OK:
            self._fault(z, now, "RESET")
            return False
        if z.recheck == _RECHECK_RESET:
            z.recheck = _RECHECK_LOOK
            z.recheck_until = self._clock.ticks_add(now, self._recheck)
        return True

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
        if z.resetting and (clock.ticks_diff(now, z.reset_done) < 0 or not self._finish_reset(z, now)):
            return  # still resetting, or it did not come back
        if clock.ticks_diff(now, z.health_at) >= 0:
            z.health_at = clock.ticks_add(now, self._health)
            if self._unhealthy(z, now):
                return
        if z.state == EMPTY and not z.heard and clock.ticks_diff(now, z.reinit_at) >= 0:
            self._begin_reset(z, now)  # proactive: a reader that went deaf hears again
            return
        seen = self._look(z, now)
        if seen == _SEEN_HUNG:
            self._hung(z, now)
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
            if self._init(z, now, "RESET", True):
                self._sink.ok(z.index)
            return True
        return False

    def _hung(self, z: Zone, now: int) -> None:
        """A command never ended: a chip that lost its setup, a dead one, or a receiver frozen by a stack."""
        if self._unhealthy(z, now):
            return
        if z.reader.crc_selftest() == OK:
            self._judge(z, _SEEN_MANY, now)  # the chip works; the air did not settle: cards stacked
        else:
            self._fault(z, now, "TIMEOUT")

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
        if st == NONE:
            return _SEEN_NOTHING
        if st != OK and st != COLL:
            return _SEEN_NOISE
        st = self._read(r)
        if st != _SEEN_OTHER:
            return st
        if z.state == PRESENT and self._is_own(z):
            z.verify_at = self._clock.ticks_add(self._clock.ticks_ms(), self._verify)
            return _SEEN_SAME
        return self._confirm(z)

    def _read(self, r: object) -> int:
        """read_uid + HLTA after a wake-up: OTHER with a UID in r.uid (not yet confirmed), or what else."""
        st = r.read_uid()
        if st == HUNG:
            return _SEEN_HUNG
        if st == COLL:
            return _SEEN_HUNG if r.halt() == HUNG else _SEEN_MANY
        if st != OK:
            return _SEEN_NOISE
        return _SEEN_HUNG if r.halt() == HUNG else _SEEN_OTHER

    def _confirm(self, z: Zone) -> int:
        """A UID new to the zone: read it once more; OTHER only if both reads agree to the bit."""
        r = z.reader
        n = r.uid_len
        for i in range(n):
            z.cand[i] = r.uid[i]
        st = r.wupa()
        if st == HUNG:
            return _SEEN_HUNG
        if st != OK and st != COLL:
            return _SEEN_NOISE
        st = self._read(r)
        if st != _SEEN_OTHER:
            return st
        if r.uid_len != n:
            return _SEEN_NOISE
        for i in range(n):
            if r.uid[i] != z.cand[i]:
                return _SEEN_NOISE
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
        z.heard = False
        z.recheck = _RECHECK_NONE
        z.verify_at = self._clock.ticks_add(now, self._verify)

    # --- debouncing ------------------------------------------------------------------------------
    def _judge(self, z: Zone, seen: int, now: int) -> None:
        """Turn one observation into at most two events, with the quiet time applied to every removal."""
        sink = self._sink
        clock = self._clock
        quiet_over = clock.ticks_diff(now, z.last_seen) >= self._quiet
        if seen == _SEEN_SAME:
            z.last_seen = now
            z.recheck = _RECHECK_NONE
        elif seen == _SEEN_NOTHING or seen == _SEEN_NOISE:
            if z.state == EMPTY:
                if seen == _SEEN_NOTHING:
                    z.heard = False
                elif not z.heard or clock.ticks_diff(now, z.heard_at) > _HEARD_MAX_MS:
                    z.heard = True
                    z.heard_at = now
            elif quiet_over:
                if z.state == PRESENT and z.recheck == _RECHECK_NONE:
                    # Before believing the card is gone: make sure the reader itself still hears.
                    z.recheck = _RECHECK_RESET
                    self._begin_reset(z, now)
                    return
                if z.recheck == _RECHECK_LOOK and clock.ticks_diff(now, z.recheck_until) < 0:
                    return  # re-initialised; the card (if it is there) is still powering up
                sink.lift(z.index, z.uid, z.uid_len if z.state == PRESENT else 0, z.last_seen)
                z.state = EMPTY
                z.uid_len = 0
                z.heard = False
                z.recheck = _RECHECK_NONE
        elif seen == _SEEN_MANY:
            z.last_seen = now
            z.recheck = _RECHECK_NONE
            if z.state != MULTI:
                z.state = MULTI
                z.uid_len = 0
                sink.multi(z.index)
        elif z.state == EMPTY or quiet_over:
            # One tag, and whatever was reported before has been silent for the quiet time.
            t = now
            if z.state == PRESENT:
                sink.lift(z.index, z.uid, z.uid_len, z.last_seen)
            elif z.state == EMPTY and z.heard:
                t = z.heard_at
            self._take_uid(z, now)
            sink.place(z.index, z.uid, z.uid_len, t)
        elif z.state == PRESENT:
            # Another tag while ours answered a moment ago: both lie there.
            z.state = MULTI
            z.uid_len = 0
            z.last_seen = now
            z.recheck = _RECHECK_NONE
            sink.multi(z.index)
