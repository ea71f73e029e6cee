"""MFRC522 driver for the tablepi reader: ISO 14443A presence checks and UID reads, nothing else.

Written for this job rather than borrowed: the scan loop calls it hundreds of times a second, so every buffer
is allocated once here, results are small-int status codes instead of exceptions, and a command that gets no
answer ends on the chip's own timer (TimerIRq) after about a millisecond instead of a software sleep.
The SPI bus and the chip-select pin are passed in (machine.SPI / machine.Pin on the board, the emulator in
tests); the same source runs under MicroPython and CPython.
"""

try:
    from micropython import const
except ImportError:  # CPython (tests, emulator runner)

    def const(value: int) -> int:
        return value


# --- status codes returned by every command (public: the scanner uses them) ----------------------------
OK = const(0)  # an answer arrived without error
NONE = const(1)  # no answer before the chip's timer ran out: no tag (or none in the wanted state)
COLL = const(2)  # answers collided: more than one tag
ERR = const(3)  # an answer arrived but was damaged (parity, protocol, CRC, BCC, wrong length)
HUNG = const(4)  # the chip never signalled the end of the command: it is not working
SELFTEST = const(5)  # init: VersionReg is not a known MFRC522 or compatible (or the setup did not read back)
RESET = const(6)  # check: the chip lost its setup (brown-out or reset): it must be initialised again

# --- registers (datasheet section 9) ------------------------------------------------------------------
_CommandReg = const(0x01)  # starts and stops command execution; bit 4 PowerDown
_ComIrqReg = const(0x04)  # interrupt request bits (Set1 in bit 7 sets, else clears the marked bits)
_DivIrqReg = const(0x05)  # more interrupt request bits (CRCIRq)
_ErrorReg = const(0x06)  # error bits of the last command
_FIFODataReg = const(0x09)  # input and output of the 64-byte FIFO buffer
_FIFOLevelReg = const(0x0A)  # number of bytes in the FIFO; bit 7 FlushBuffer
_ControlReg = const(0x0C)  # RxLastBits: valid bits in the last received byte
_BitFramingReg = const(0x0D)  # StartSend, RxAlign, TxLastBits (7 for the short REQA/WUPA frame)
_CollReg = const(0x0E)  # first collision position; bit 7 ValuesAfterColl
_ModeReg = const(0x11)  # general modes: CRC preset
_TxControlReg = const(0x14)  # antenna driver pins TX1/TX2 on or off
_TxASKReg = const(0x15)  # modulation: Force100ASK, required by ISO 14443A
_CRCResultRegH = const(0x21)  # CRC coprocessor result, high byte
_CRCResultRegL = const(0x22)  # CRC coprocessor result, low byte
_RFCfgReg = const(0x26)  # receiver gain
_TModeReg = const(0x2A)  # timer mode: TAuto starts the timer at the end of every transmission
_TPrescalerReg = const(0x2B)  # timer prescaler, low 8 bits
_TReloadRegH = const(0x2C)  # timer reload value, high byte
_TReloadRegL = const(0x2D)  # timer reload value, low byte
_VersionReg = const(0x37)  # chip version: 0x91 (v1.0), 0x92 (v2.0); compatible clones: 0x88, 0x89, 0xB2, 0x12

# --- commands (CommandReg) --------------------------------------------------------------------------------
_CMD_IDLE = const(0x00)  # stop whatever runs
_CMD_CALCCRC = const(0x03)  # run the CRC coprocessor over the FIFO
_CMD_TRANSMIT = const(0x04)  # send the FIFO, expect nothing back
_CMD_TRANSCEIVE = const(0x0C)  # send the FIFO on StartSend, then receive into it
_CMD_SOFTRESET = const(0x0F)  # reset every register to its default

# --- register bits ----------------------------------------------------------------------------------------
_POWERDOWN = const(0x10)  # CommandReg: set while the chip restarts after a soft reset
_IRQ_RX = const(0x20)  # ComIrqReg RxIRq: a frame was received
_IRQ_IDLE = const(0x10)  # ComIrqReg IdleIRq: a command ended by itself
_IRQ_TIMER = const(0x01)  # ComIrqReg TimerIRq: the timer ran out (no answer)
_IRQ_CLEAR_ALL = const(0x7F)  # ComIrqReg: Set1 = 0 clears every marked bit
_DIV_CRC = const(0x04)  # DivIrqReg CRCIRq: the CRC coprocessor is done
_ERR_DAMAGED = const(0x17)  # ErrorReg BufferOvfl | CRCErr | ParityErr | ProtocolErr
_ERR_COLL = const(0x08)  # ErrorReg CollErr: a bit collision was detected
_FLUSH = const(0x80)  # FIFOLevelReg FlushBuffer
_START_SEND = const(0x80)  # BitFramingReg StartSend
_ANTENNA = const(0x03)  # TxControlReg Tx1RFEn | Tx2RFEn
_MODE_MASK = const(0xAB)  # ModeReg bits that are not reserved: MSBFirst, TxWaitRF, PolMFin, CRCPreset
_RXGAIN_MASK = const(0x70)  # RFCfgReg RxGain (bits 6..4; the others are reserved)
_VALUES_AFTER_COLL = const(0x80)  # CollReg ValuesAfterColl

# --- setup values ------------------------------------------------------------------------------------------
_TMODE = const(0x80)  # TAuto, prescaler high nibble 0
_TPRESCALER = const(0xA9)  # 13.56 MHz / (2 * 169 + 1) = 40 kHz: one timer tick is 25 us
_MODE = const(0x3D)  # TxWaitRF, MFIN active high, CRC preset 0x6363 (ISO 14443A CRC_A)
_FORCE_100ASK = const(0x40)  # TxASKReg

# --- ISO 14443A -------------------------------------------------------------------------------------------
_REQA = const(0x26)  # wakes tags in IDLE only
_WUPA = const(0x52)  # wakes tags in IDLE and HALT
_SEL_CL1 = const(0x93)  # anticollision / select, cascade level 1 (2 and 3 follow in steps of 2)
_NVB_ANTICOLL = const(0x20)  # number of valid bits: only SEL and NVB, every tag sends its whole level
_NVB_SELECT = const(0x70)  # number of valid bits: the whole level follows (then CRC_A)
_CASCADE_TAG = const(0x88)  # first byte of a level that is not the last one
_SAK_CASCADE = const(0x04)  # SAK bit: the UID is not complete yet


class MFRC522:
    """One MFRC522 on a shared SPI bus, selected by its own chip-select pin.

    After ``reqa()`` or ``wupa()`` returned OK (or COLL), ``read_uid()`` runs anticollision and select over
    the cascade levels and leaves the UID in ``uid[:uid_len]``. ``halt()`` puts the selected tag to sleep so
    that it answers WUPA but no longer REQA: a resting tag is then told apart from a newly arrived one.
    """

    def __init__(
        self,
        spi: object,
        cs: object,
        versions: tuple = (0x91, 0x92, 0x88, 0x89, 0xB2, 0x12),
        timeout_ticks: int = 40,
        poll_limit: int = 500,
        rx_gain: int = 0x70,
        sleep_ms: object = None,
        reset_ms: int = 5,
        near_gain: int = 0x50,
    ) -> None:
        self._spi = spi
        self._sleep_ms = sleep_ms  # time.sleep_ms on the board: SoftReset needs a real wait
        self._reset_ms = reset_ms
        self._cs = cs
        self._versions = versions
        self._timeout_ticks = timeout_ticks
        self._poll_limit = poll_limit
        self._rx_gain = rx_gain
        self._near_gain = near_gain if near_gain < rx_gain else rx_gain
        self.version = 0  # VersionReg read by the last init()
        self.uid = bytearray(10)  # UID of the last read_uid(), uid_len bytes valid
        self.uid_len = 0
        self.sak = 0  # SAK of the last complete select
        # Every buffer the commands need, allocated once: exact sizes, so no slice is ever taken.
        self._reg = bytearray(2)  # address byte + data byte of a register access
        self._reg_rx = bytearray(2)
        self._addr = bytearray(1)  # address byte of a FIFO burst
        self._short = bytearray(1)  # REQA / WUPA
        self._hlta = bytearray(b"\x50\x00\x57\xcd")  # HLTA with its constant CRC_A
        self._anticoll = bytearray(2)  # SEL NVB
        self._select = bytearray(9)  # SEL NVB UID0..3 BCC CRC_A
        self._crc_select = bytearray(7)  # the part of the select frame its CRC covers
        self._crc_sak = bytearray(1)
        self._crc = bytearray(2)  # last CalcCRC result, low byte first
        self._fifo = (bytearray(0), bytearray(1), bytearray(2), bytearray(3), bytearray(4), bytearray(5))
        cs(1)

    # --- register access ---------------------------------------------------------------------------------
    def read(self, reg: int) -> int:
        """Read one register: address byte with bit 7 set and the register in bits 6..1, then 0x00."""
        b = self._reg
        b[0] = 0x80 | (reg << 1)
        b[1] = 0
        self._cs(0)
        self._spi.write_readinto(b, self._reg_rx)
        self._cs(1)
        return self._reg_rx[1]

    def write(self, reg: int, value: int) -> None:
        """Write one register: address byte with bit 7 clear, then the value."""
        b = self._reg
        b[0] = reg << 1
        b[1] = value
        self._cs(0)
        self._spi.write(b)
        self._cs(1)

    def _write_fifo(self, data: bytearray) -> None:
        """Push a whole buffer into the FIFO in one SPI transaction."""
        self._addr[0] = _FIFODataReg << 1
        self._cs(0)
        self._spi.write(self._addr)
        self._spi.write(data)
        self._cs(1)

    def _read_fifo(self, n: int) -> bytearray:
        """Pop n (at most 5) bytes from the FIFO in one transaction: the address byte is repeated per byte."""
        buf = self._fifo[n]
        self._addr[0] = 0x80 | (_FIFODataReg << 1)
        self._cs(0)
        self._spi.write(self._addr)
        self._spi.readinto(buf, self._addr[0])
        self._cs(1)
        return buf

    # --- life cycle ----------------------------------------------------------------------------------------
    def init(self) -> int:
        """Soft-reset and set up the chip; OK, SELFTEST (unknown version, setup not kept) or HUNG.

        The datasheet gives no duration for SoftReset and the chip does not reliably flag it, so the driver
        sleeps ``reset_ms`` first (public drivers wait 50 ms; the oscillator keeps running through a soft
        reset, so a few ms are plenty) and only then waits for PowerDown to clear (a wake-up from power-down).
        Registers written too early are lost — the read-back at the end catches that as SELFTEST.
        The scan loop splits the two halves (``soft_reset()`` now, ``setup()`` a scan round later) so that
        re-initialising one zone never stalls the others.
        """
        self.soft_reset()
        if self._sleep_ms is not None:
            self._sleep_ms(self._reset_ms)
        return self.setup()

    def soft_reset(self) -> None:
        """Start a SoftReset (every register back to its default, the field off); ``setup()`` follows."""
        self._cs(1)
        self.write(_CommandReg, _CMD_SOFTRESET)

    def setup(self) -> int:
        """The second half of ``init()``: wait (bounded) for PowerDown to clear, check the version, set up.

        HUNG when PowerDown never clears: a soft reset that did not complete (seen on real modules; only a
        hard reset through NRSTPD brings such a chip back).
        """
        n = self._poll_limit
        while n and self.read(_CommandReg) & _POWERDOWN:
            n -= 1
        if not n:
            return HUNG
        self.version = self.read(_VersionReg)
        if self.version not in self._versions:
            return SELFTEST
        ticks = self._timeout_ticks
        self.write(_TModeReg, _TMODE)
        self.write(_TPrescalerReg, _TPRESCALER)
        self.write(_TReloadRegH, ticks >> 8)
        self.write(_TReloadRegL, ticks & 0xFF)
        self.write(_TxASKReg, _FORCE_100ASK)
        self.write(_ModeReg, _MODE)
        self.write(_RFCfgReg, self._rx_gain)
        self.write(_CollReg, 0x00)  # ValuesAfterColl = 0: bits after a collision read as 0
        self.antenna(True)
        if self.read(_TReloadRegL) != ticks & 0xFF or self.read(_TModeReg) != _TMODE:
            return SELFTEST
        return OK

    def check(self) -> int:
        """Health check between scans: OK, HUNG (version gone: not answering) or RESET (setup drifted).

        Every setup register is compared with what ``setup()`` wrote (reserved bits masked), and the antenna
        must be on: a brown-out puts them all back to their defaults, and modules that run for days are
        reported to lose single settings (the gain, the antenna) while still answering on the bus — the
        chip then simply stops seeing cards. Nine register reads: cheap enough for once a second per zone.
        """
        if self.read(_VersionReg) != self.version:
            return HUNG
        ticks = self._timeout_ticks
        if (
            self.read(_TModeReg) != _TMODE
            or self.read(_TPrescalerReg) != _TPRESCALER
            or self.read(_TReloadRegH) != ticks >> 8
            or self.read(_TReloadRegL) != ticks & 0xFF
            or self.read(_TxASKReg) & _FORCE_100ASK != _FORCE_100ASK
            or self.read(_ModeReg) & _MODE_MASK != _MODE & _MODE_MASK
            or self.read(_RFCfgReg) & _RXGAIN_MASK != self._rx_gain & _RXGAIN_MASK
            or self.read(_CollReg) & _VALUES_AFTER_COLL
            or self.read(_TxControlReg) & _ANTENNA != _ANTENNA
        ):
            return RESET
        return OK

    def crc_selftest(self) -> int:
        """Run the CRC coprocessor once: OK if it finishes (the chip itself works), HUNG if not.

        Tells a chip that hangs (nothing ends) from an air interface that froze under a stack of cards
        (a Transceive whose reception never ends while the rest of the chip is fine).
        """
        self._crc_sak[0] = 0
        return self._calc_crc(self._crc_sak)

    def near(self, on: bool) -> None:
        """Lower the receiver gain for a near read (``near_gain``), or set the scanning gain back.

        A card lying on this antenna still answers at the lower gain; a neighbour's card, heard faintly through
        crosstalk, falls out of reach first. The scanner asks at the near gain only when two zones read the
        same UID, and always sets the gain back: the health check would otherwise take it for a drift.
        """
        self.write(_RFCfgReg, self._near_gain if on else self._rx_gain)

    def antenna(self, on: bool) -> None:
        """Switch the 13.56 MHz field; tags lose their state (HALT included) while it is off."""
        value = self.read(_TxControlReg)
        self.write(_TxControlReg, value | _ANTENNA if on else value & ~_ANTENNA)

    # --- commands ---------------------------------------------------------------------------------------
    def _start(self, frame: bytearray, command: int, tx_last_bits: int) -> None:
        """Load the FIFO and start ``command``.

        BitFramingReg is written *before* the command, with StartSend clear: Transmit starts sending the
        moment CommandReg is written, with the TxLastBits of that moment (HLTA after a 7-bit WUPA would
        otherwise go out as 31 bits), and a StartSend left set by the last Transceive could start the next
        one before its framing is right.
        """
        self.write(_CommandReg, _CMD_IDLE)
        self.write(_ComIrqReg, _IRQ_CLEAR_ALL)
        self.write(_FIFOLevelReg, _FLUSH)
        self._write_fifo(frame)
        self.write(_BitFramingReg, tx_last_bits)
        self.write(_CommandReg, command)

    def _wait(self, done: int) -> int:
        """Poll ComIrqReg until done or TimerIRq; then classify the answer by ErrorReg."""
        n = self._poll_limit
        while n:
            irq = self.read(_ComIrqReg)
            if irq & done:
                break
            if irq & _IRQ_TIMER:
                return NONE
            n -= 1
        if not n:
            self.write(_CommandReg, _CMD_IDLE)  # stop it: a reception that never ends must not run on
            return HUNG
        err = self.read(_ErrorReg)
        if err & _ERR_COLL:
            return COLL
        if err & _ERR_DAMAGED:
            return ERR
        return OK

    def _transceive(self, frame: bytearray, tx_last_bits: int) -> int:
        self._start(frame, _CMD_TRANSCEIVE, tx_last_bits)
        self.write(_BitFramingReg, _START_SEND | tx_last_bits)
        return self._wait(_IRQ_RX | _IRQ_IDLE)

    def reqa(self) -> int:
        """REQA (7-bit short frame): only tags in IDLE answer, i.e. ones not yet read and halted."""
        self._short[0] = _REQA
        return self._transceive(self._short, 7)

    def wupa(self) -> int:
        """WUPA (7-bit short frame): tags in IDLE and HALT answer: is anything on the antenna at all?"""
        self._short[0] = _WUPA
        return self._transceive(self._short, 7)

    def halt(self) -> int:
        """HLTA with the Transmit command: a tag never answers HLTA, so waiting for a timeout is wasted."""
        self._start(self._hlta, _CMD_TRANSMIT, 0)
        return self._wait(_IRQ_IDLE)

    def _calc_crc(self, data: bytearray) -> int:
        """CRC_A of data by the chip's coprocessor into self._crc (low byte first, as sent)."""
        self.write(_CommandReg, _CMD_IDLE)
        self.write(_DivIrqReg, _DIV_CRC)  # Set2 = 0: clear CRCIRq
        self.write(_FIFOLevelReg, _FLUSH)
        self._write_fifo(data)
        self.write(_CommandReg, _CMD_CALCCRC)
        n = self._poll_limit
        while n and not self.read(_DivIrqReg) & _DIV_CRC:
            n -= 1
        self.write(_CommandReg, _CMD_IDLE)
        if not n:
            return HUNG
        self._crc[0] = self.read(_CRCResultRegL)
        self._crc[1] = self.read(_CRCResultRegH)
        return OK

    def read_uid(self) -> int:
        """Anticollision and select through the cascade levels of the tag(s) woken by REQA/WUPA.

        Returns OK with ``uid[:uid_len]`` (4, 7 or 10 bytes) and the tag selected, COLL when more than
        one tag answers at any level, NONE when the tag went away, ERR for a damaged answer, HUNG.
        """
        self.uid_len = 0
        sel = _SEL_CL1
        n = 0
        while sel <= _SEL_CL1 + 4:
            ac = self._anticoll
            ac[0] = sel
            ac[1] = _NVB_ANTICOLL
            st = self._transceive(ac, 0)
            if st != OK:
                return st
            if self.read(_FIFOLevelReg) & 0x7F != 5:
                return ERR
            r = self._read_fifo(5)
            if r[0] ^ r[1] ^ r[2] ^ r[3] != r[4]:
                return ERR  # BCC wrong
            s = self._select
            c = self._crc_select
            s[0] = c[0] = sel
            s[1] = c[1] = _NVB_SELECT
            for i in range(5):
                s[2 + i] = c[2 + i] = r[i]
            st = self._calc_crc(c)
            if st != OK:
                return st
            s[7] = self._crc[0]
            s[8] = self._crc[1]
            st = self._transceive(s, 0)
            if st != OK:
                return st
            if self.read(_FIFOLevelReg) & 0x7F != 3:
                return ERR
            a = self._read_fifo(3)
            sak = a[0]
            sak_crc0 = a[1]
            sak_crc1 = a[2]
            self._crc_sak[0] = sak
            st = self._calc_crc(self._crc_sak)
            if st != OK:
                return st
            if self._crc[0] != sak_crc0 or self._crc[1] != sak_crc1:
                return ERR
            if sak & _SAK_CASCADE:
                if s[2] != _CASCADE_TAG:
                    return ERR
                for i in range(3):
                    self.uid[n + i] = s[3 + i]
                n += 3
                sel += 2
                continue
            for i in range(4):
                self.uid[n + i] = s[2 + i]
            self.uid_len = n + 4
            self.sak = sak
            return OK
        return ERR
