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
CROSS = const(4)  # the zone hears, faintly, the card another zone holds (crosstalk): reported once, no events

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

# An EMPTY zone dates its next PLACE from the first answer heard, at most this long before the read (a card
# slides in within it; an older answer was a neighbour's tag heard faintly, not this card).
_HEARD_MAX_MS = const(30)
# A zone that heard a neighbour's card (crosstalk) checks its own card by a full UID read on every scan for
# this long after: there, "something answers WUPA" may be the neighbour's card, not its own.
_NOISY_MS = const(60_000)

# A UID confirmed on a zone while another zone hears something too (a card landing between two antennas) is
# placed only after this many scans in a row confirmed it, and two more than the other zone's run of it.
_CLAIM_STREAK = const(3)
# A CROSS zone that heard the card on each of its last 6 scans while the holder missed it on this many of its
# last 6 or more has the card: it landed between the antennas and was placed on the wrong one (the landing race).
_HIST = const(0x3F)  # the last 6 scans
_SWAP_MISSES = const(2)
# RESCAN reads every zone once: two zones that read the same UID each read it this many times more.
_CONTEST_READS = const(3)
# A CROSS zone that hears the card cleanly asks for it at the near gain (MFRC522.near), and the holder too:
# if only the CROSS zone reads it there, the card lies on its antenna (it landed between two antennas and the
# neighbour's faint read was confirmed first). Each asks _NEAR_READS times; a CROSS zone does so every
# _NEAR_FAST_MS in the first _NEAR_FOR_MS after it began to hear the card (the landing race), then every
# _NEAR_SLOW_MS (a card pushed across later).
_NEAR_READS = const(2)
_NEAR_FAST_MS = const(50)
_NEAR_FOR_MS = const(1000)
_NEAR_SLOW_MS = const(1000)

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
        self.holder = -1  # CROSS: the zone that holds the card this one hears
        self.last = bytearray(10)  # the UID of the last confirmed read of a new UID, last_len bytes
        self.last_len = 0
        self.streak = 0  # scans in a row that confirmed ``last``
        self.hist = 0  # PRESENT / CROSS: one bit per scan of the last 6, set when the card answered
        self.since = 0  # CROSS: ticks_ms when the zone began to hear the card (the time of a PLACE if it moves)
        self.near_at = 0  # CROSS: ticks_ms of the next near read (see _NEAR_READS)
        self.near = False  # the last confirmed new UID was read at the near gain too (see _confirm)
        self.noisy = False  # it heard a neighbour's card lately: presence by full reads until noisy_until
        self.noisy_until = 0
        self.scans = 0  # scans since boot (FAULT retries excluded)


class Scanner:
    """Scans the zones one at a time; reports changes to ``sink``.

    The sink has ``place(zone, uid, n, t)``, ``lift(zone, uid, n, t)`` (n = 0: the end of a MULTI, uid "-";
    t: ticks_ms of the answer the event stands for), ``multi(zone)``, ``cross(zone, uid, n, holder)``,
    ``fault(zone, code)`` and ``ok(zone)``.
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
        self.repairs = 0  # readers whose setup had drifted, repaired without a word to the host

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
                self._rescan_claim(z, now)

    def _rescan_claim(self, z: Zone, now: int) -> None:
        """RESCAN read a UID on z: z has it, unless a zone rescanned before has the same (no events)."""
        n = z.reader.uid_len
        for o in self.zones:
            if o is z:
                return self._take_cand(z, z.cand, n, now)
            if o.state == PRESENT and self._same(o.uid, o.uid_len, z.cand, n):
                if self._contest(z, o, n) > 0:
                    self._take_cand(z, z.cand, n, now)
                    o.state = EMPTY
                    self._cross(o, z, now)
                else:
                    self._cross(z, o, now)
                return None
        return None

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
            self._repair(z, now)
            return True
        return False

    def _repair(self, z: Zone, now: int) -> None:
        """Setup registers drifted (or a brown-out reset them): hard reset and set-up, the zone's state kept.

        Nothing is reported when that works at once (it takes ~60 ms): a FAULT would blind the host's zone
        and restart its tap window, and the card on the zone is still there (it answers afresh, or goes and
        is lifted, dated, after its quiet time). Counted in ``repairs``. FAULT RESET if the chip stays wrong.
        """
        state = z.state
        n = z.uid_len
        seen = z.last_seen
        holder = z.holder
        if not self._init(z, now, "RESET", True):
            self._fault(z, now, "RESET")
            return
        self.repairs += 1
        if state != EMPTY and state != FAULT:
            z.state = state
            z.uid_len = n
            z.last_seen = seen
            z.holder = holder

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
        clock = self._clock
        if z.noisy and clock.ticks_diff(now, z.noisy_until) >= 0:
            z.noisy = False
        if (z.state != PRESENT and z.state != CROSS) or z.noisy or clock.ticks_diff(now, z.verify_at) >= 0:
            return self._full(z)
        r = z.reader
        st = r.reqa()
        if st == HUNG:
            return _SEEN_HUNG
        if st == NONE:
            # Nothing new. Is the resting (halted) tag still there? WUPA wakes it, HLTA puts it back.
            st = self._wake(r)
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

    def _wake(self, r: object) -> int:
        """WUPA, once more if nothing answered: a neighbouring reader may have left the tag half-way through
        its own read (READY), and a tag in READY drops back to IDLE / HALT on a WUPA instead of answering."""
        st = r.wupa()
        return r.wupa() if st == NONE else st

    def _full(self, z: Zone) -> int:
        """WUPA and a full UID read: every tag on the zone takes part, halted or not."""
        r = z.reader
        # An empty zone asks once (a second WUPA would double the idle scan), unless neighbours' reads are about.
        st = self._wake(r) if z.state != EMPTY or z.noisy else r.wupa()
        if st == HUNG:
            return _SEEN_HUNG
        if st == NONE:
            return _SEEN_NOTHING
        if st != OK and st != COLL:
            return _SEEN_NOISE
        st = self._read(r)
        if st != _SEEN_OTHER:
            return st
        if (z.state == PRESENT or z.state == CROSS) and self._is_own(z):
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
        """A UID new to the zone: read it once more; OTHER only if both reads agree to the bit.

        The second read is made at the near gain (MFRC522.near) first: a card lying on z's antenna still
        answers there, and ``z.near`` says it did. Only if that read does not agree is it made again at the
        scanning gain (a neighbour's card heard faintly, a card still sliding in, a top too thick for the near
        gain): ``z.near`` is then False and _claim is more careful.
        """
        r = z.reader
        n = r.uid_len
        for i in range(n):
            z.cand[i] = r.uid[i]
        r.near(True)
        st = self._again(z, n)
        r.near(False)
        z.near = st == _SEEN_OTHER
        if st == _SEEN_OTHER or st == _SEEN_SAME or st == _SEEN_HUNG:
            return st
        return self._again(z, n)

    def _again(self, z: Zone, n: int) -> int:
        """The second read of _confirm: OTHER if it returns z.cand[:n] again."""
        r = z.reader
        st = r.wupa()
        if st == HUNG:
            return _SEEN_HUNG
        if st != OK and st != COLL:
            return _SEEN_NOISE
        st = self._read(r)
        if st != _SEEN_OTHER:
            return st
        if (z.state == PRESENT or z.state == CROSS) and self._is_own(z):
            # The zone's own tag answered this time: the first read was a neighbour's tag that answered the
            # WUPA while ours, left READY by a neighbour reader's read, dropped back to HALT instead.
            z.verify_at = self._clock.ticks_add(self._clock.ticks_ms(), self._verify)
            return _SEEN_SAME
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

    # --- debouncing ------------------------------------------------------------------------------
    def _judge(self, z: Zone, seen: int, now: int) -> None:
        """Turn one observation into at most two events, with the quiet time applied to every removal."""
        sink = self._sink
        clock = self._clock
        quiet_over = clock.ticks_diff(now, z.last_seen) >= self._quiet
        if seen == _SEEN_SAME:
            z.last_seen = now
            z.recheck = _RECHECK_NONE
            z.hist = ((z.hist << 1) | 1) & _HIST
            if z.state == CROSS and (
                (z.hist == _HIST and self._misses(self.zones[z.holder]) >= _SWAP_MISSES) or self._nearer(z, now)
            ):
                self._swap(z, now)
            elif z.state == CROSS:
                h = self.zones[z.holder]
                if h.state != PRESENT or not self._same(h.uid, h.uid_len, z.uid, z.uid_len):
                    # The holder let the card go and z still hears it: it lies here now (it was moved).
                    n = z.uid_len
                    for i in range(n):
                        z.cand[i] = z.uid[i]
                    z.state = EMPTY
                    z.uid_len = 0
                    z.streak = _CLAIM_STREAK  # it has heard the card cleanly all along
                    z.near = False
                    self._claim(z, now, now, n)
        elif seen == _SEEN_NOTHING or seen == _SEEN_NOISE:
            z.streak = 0
            z.hist = (z.hist << 1) & _HIST
            if z.state == EMPTY:
                if seen == _SEEN_NOTHING:
                    if z.heard:
                        self._noisy(z, now)  # answers that came to nothing: a neighbour's card, heard faintly
                    z.heard = False
                elif not z.heard or clock.ticks_diff(now, z.heard_at) > _HEARD_MAX_MS:
                    z.heard = True
                    z.heard_at = now
            elif quiet_over:
                if z.state == CROSS:
                    z.state = EMPTY  # the neighbour's card is no longer heard: nothing to tell
                    z.uid_len = 0
                    z.heard = False
                    return
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
        elif self._holder(z) is not None:
            # The UID read twice lies on another zone: its antenna is heard here (crosstalk), not a card here.
            self._noisy(z, now)
            h = self._holder(z)
            if z.state == EMPTY or (z.state == CROSS and not self._same(z.uid, z.uid_len, h.uid, h.uid_len)):
                self._cross(z, h, now)  # (a CROSS zone follows the card it hears now)
        elif z.state == PRESENT and not quiet_over:
            # Another tag while ours answered a moment ago: both lie there.
            z.state = MULTI
            z.uid_len = 0
            z.last_seen = now
            z.recheck = _RECHECK_NONE
            sink.multi(z.index)
        elif z.state != MULTI or quiet_over:
            # One tag, and whatever was reported before has been silent for the quiet time.
            n = z.reader.uid_len
            if self._same(z.cand, n, z.last, z.last_len):
                z.streak = z.streak + 1 if z.streak < 100 else z.streak
            else:
                for i in range(n):
                    z.last[i] = z.cand[i]
                z.last_len = n
                z.streak = 1
            fresh = z.heard and clock.ticks_diff(now, z.heard_at) <= _HEARD_MAX_MS
            t = z.heard_at if z.state == EMPTY and fresh else now
            if z.state == PRESENT:
                sink.lift(z.index, z.uid, z.uid_len, z.last_seen)
            z.state = EMPTY
            z.uid_len = 0
            self._claim(z, now, t, z.reader.uid_len)

    # --- one card, one place ------------------------------------------------------------------------
    def _claim(self, z: Zone, now: int, t: int, n: int) -> None:
        """z read a UID new to it twice (in z.cand): PLACE it, unless another zone has the better claim.

        A neighbour's antenna can hear a card faintly and cleanly (crosstalk). If another zone holds the same
        UID, the card stays there and z only tracks it (CROSS, reported once). Otherwise z asks once at the near
        gain (MFRC522.near): a card on z's own antenna answers there, a neighbour's heard faintly does not.
        Read near, the card is placed at once unless another zone that heard something in its last scan (a
        card landing between two antennas, heard by both) reads it near too. Not read near (a card still
        sliding in, or a table top too thick for the near gain), z waits until ``_CLAIM_STREAK`` scans in a
        row confirmed the UID, and two more than the other zone's run of it: the zone the card lies on reads
        it on every scan once it rests, a neighbour only now and then.
        """
        near = z.near
        if not near and z.streak < _CLAIM_STREAK:
            # Not on this antenna (yet): a card must answer it scan after scan first.
            z.heard = True
            z.heard_at = t
            return
        for o in self.zones:
            if o is z or o.state == FAULT or o.resetting:
                continue
            if o.state == PRESENT and self._same(o.uid, o.uid_len, z.cand, n):
                self._cross(z, o, now)
                return
            if o.state != EMPTY and not (o.state == CROSS and o.holder == z.index):
                continue  # its own card captures its receiver, or it tracks another zone's card
            rival = o.streak if self._same(o.last, o.last_len, z.cand, n) else 0
            if (o.heard and z.streak < _CLAIM_STREAK) or (rival and z.streak < rival + 2):
                if near and not self._near_answer(o):
                    continue  # it lies on z's antenna, not on o's
                z.heard = True  # not yet: the next scans decide, the PLACE still dated from the first answer
                z.heard_at = t
                return
        self._take_cand(z, z.cand, n, now)
        self._sink.place(z.index, z.uid, n, t)

    def _holder(self, z: Zone) -> object:
        """The other zone that holds the UID z just read twice (in z.cand), or None."""
        n = z.reader.uid_len
        for o in self.zones:
            if o is not z and o.state == PRESENT and self._same(o.uid, o.uid_len, z.cand, n):
                return o
        return None

    def _noisy(self, z: Zone, now: int) -> None:
        z.noisy = True
        z.noisy_until = self._clock.ticks_add(now, _NOISY_MS)

    def _misses(self, h: Zone) -> int:
        """Scans of the last 6 in which the holder's card did not answer (6 if it holds nothing)."""
        if h.state != PRESENT:
            return 6
        misses = 0
        bits = h.hist
        for _ in range(6):
            if not bits & 1:
                misses += 1
            bits >>= 1
        return misses

    def _nearer(self, z: Zone, now: int) -> bool:
        """CROSS z, hearing its card: is the card on z's antenna rather than the holder's? (near reads)"""
        clock = self._clock
        if clock.ticks_diff(now, z.near_at) < 0:
            return False
        fast = clock.ticks_diff(now, z.since) < _NEAR_FOR_MS
        z.near_at = clock.ticks_add(now, _NEAR_FAST_MS if fast else _NEAR_SLOW_MS)
        h = self.zones[z.holder]
        if h.state != PRESENT or not self._same(h.uid, h.uid_len, z.uid, z.uid_len):
            return False
        if self._near_reads(z, z.uid, z.uid_len) < _NEAR_READS:
            return False
        return self._near_reads(h, z.uid, z.uid_len) == 0

    def _near_answer(self, z: Zone) -> bool:
        """Does a tag answer WUPA at the near gain on z? (one command: the cheap check before a PLACE)

        z has just read a UID twice, and a tag of its own would capture its receiver: an answer at the near
        gain is that card lying on z's antenna; silence, a card heard from a neighbour's (or still sliding in).
        """
        r = z.reader
        r.near(True)
        st = r.wupa()
        if st == OK or st == COLL:
            r.halt()  # it answered from HALT or IDLE: back to sleep, as every read leaves it
        r.near(False)
        return st == OK or st == COLL

    def _near_reads(self, z: Zone, uid: bytearray, n: int) -> int:
        """How many of _NEAR_READS reads at the near gain return ``uid`` on z (the gain set back after)."""
        r = z.reader
        r.near(True)
        hits = 0
        for _ in range(_NEAR_READS):
            hits += self._reads(z, uid, n)
        r.near(False)
        return hits

    def _swap(self, z: Zone, now: int) -> None:
        """The card z tracked as CROSS lies on z: the holder only heard it faintly. Move it, dated."""
        h = self.zones[z.holder]
        self._sink.lift(h.index, h.uid, h.uid_len, h.last_seen)
        n = z.uid_len
        for i in range(n):
            z.cand[i] = z.uid[i]
        self._take_cand(z, z.cand, n, now)
        self._sink.place(z.index, z.uid, n, z.since)
        self._cross(h, z, now)

    def _contest(self, z: Zone, o: Zone, n: int) -> int:
        """Who reads z.cand better: 1 z, -1 o, 0 neither clearly (each reads it ``_CONTEST_READS`` times)."""
        hz = 0
        ho = 0
        for _ in range(_CONTEST_READS):
            hz += self._reads(z, z.cand, n)
            ho += self._reads(o, z.cand, n)
        if hz >= ho + 2:
            return 1
        if ho >= hz + 2:
            return -1
        return 0

    def _reads(self, z: Zone, uid: bytearray, n: int) -> int:
        """1 if z's reader reads ``uid`` now (WUPA, full read, HLTA), else 0."""
        r = z.reader
        st = r.wupa()
        if st != OK and st != COLL:
            return 0
        if self._read(r) != _SEEN_OTHER:
            return 0
        return 1 if self._same(r.uid, r.uid_len, uid, n) else 0

    def _same(self, a: bytearray, na: int, b: bytearray, nb: int) -> bool:
        if na != nb:
            return False
        for i in range(na):
            if a[i] != b[i]:
                return False
        return True

    def _take_cand(self, z: Zone, uid: bytearray, n: int, now: int) -> None:
        for i in range(n):
            z.uid[i] = uid[i]
        z.uid_len = n
        z.state = PRESENT
        z.last_seen = now
        z.heard = False
        z.recheck = _RECHECK_NONE
        z.hist = _HIST
        z.verify_at = self._clock.ticks_add(now, self._verify)

    def _cross(self, z: Zone, holder: Zone, now: int) -> None:
        """z hears the card ``holder`` has: track it silently (no PLACE, no LIFT), tell the host once."""
        n = holder.uid_len
        for i in range(n):
            z.uid[i] = holder.uid[i]
        z.uid_len = n
        z.state = CROSS
        z.holder = holder.index
        z.hist = 1
        z.since = now
        z.near_at = now
        z.last_seen = now
        z.heard = False
        z.recheck = _RECHECK_NONE
        z.verify_at = self._clock.ticks_add(now, self._verify)
        self._noisy(z, now)
        self._noisy(holder, now)  # the holder checks by full reads too: a faint holder's garbles count as misses
        self._sink.cross(z.index, z.uid, n, holder.index)
