"""A minimal MFRC522 + one NTAG213 for the MicroPython unix port, written to allocate nothing per access.

The full emulator (tablepi.emulator) is CPython; this fake implements just what the firmware uses — the SPI
byte protocol, FIFO, CommandReg (Idle, CalcCRC, Transmit, Transceive, SoftReset), ComIrqReg/DivIrqReg, the
timer as "no answer", and a single tag with REQA/WUPA/anticollision/select/HLTA — so that heap_lock() can
prove the firmware's scan loop allocates nothing.
"""

# ruff: noqa: SIM102  (MicroPython test code: explicit comparisons allocate nothing)

_ATQA = b"\x44\x00"


def _crc_a(buf, n, out):
    crc = 0x6363
    for i in range(n):
        b = buf[i] ^ (crc & 0xFF)
        b = (b ^ (b << 4)) & 0xFF
        crc = ((crc >> 8) ^ (b << 8) ^ (b << 3) ^ (b >> 4)) & 0xFFFF
    out[0] = crc & 0xFF
    out[1] = crc >> 8


class FakeChip:
    def __init__(self):
        self.regs = bytearray(64)
        self.fifo = bytearray(64)
        self.n = 0
        self.rd = 0
        self.card = False
        self.absent = False  # no module on this chip select: nothing drives MISO (reads 0x00)
        # Failure modes (tests/firmware/mp/run_failures.py), the emulator's in miniature:
        self.deaf = False  # hears no tag until a reset
        self.hang_reset = False  # the next SoftReset never completes (PowerDown stays set) until hard_reset()
        self.stuck = False
        self.freeze = False  # a reception that never ends (a stack of cards)
        self.garble = False  # every read of the tag comes out with other wrong bits (valid BCC)
        self.faint = False  # the tag lies on a neighbour's antenna: heard (cleanly) only from 43 dB RxGain up
        self.slide = 0  # reads left of a card still sliding in: silent and garbled by turns, then clean
        self._gbuf = bytearray(7)
        self.reads = 0
        self._uid = bytearray(7)
        self.state = 0  # 0 idle, 1 ready, 2 active, 3 halt
        self.level = 0
        self.levels = (bytearray(5), bytearray(5))
        self.sak = (bytearray(3), bytearray(3))
        self._crc = bytearray(2)
        self.reset()

    def set_uid(self, uid):
        for i in range(7):
            self._uid[i] = uid[i]
        self._levels(uid)

    def _levels(self, uid):
        a, b = self.levels
        a[0] = 0x88
        a[1] = uid[0]
        a[2] = uid[1]
        a[3] = uid[2]
        a[4] = a[0] ^ a[1] ^ a[2] ^ a[3]
        for i in range(4):
            b[i] = uid[3 + i]
        b[4] = b[0] ^ b[1] ^ b[2] ^ b[3]
        for i, v in ((0, 0x04), (1, 0x00)):
            self.sak[i][0] = v
            _crc_a(self.sak[i], 1, self._crc)
            self.sak[i][1] = self._crc[0]
            self.sak[i][2] = self._crc[1]

    def hard_reset(self):
        self.stuck = False
        self.hang_reset = False
        self.deaf = False
        self.reset()

    def reset(self):
        for i in range(64):
            self.regs[i] = 0
        self.regs[0x01] = 0x20
        self.regs[0x37] = 0x92
        self.regs[0x14] = 0x80
        self.n = 0

    def read(self, reg):
        if reg == 0x09:
            if self.rd < self.n:
                v = self.fifo[self.rd]
                self.rd += 1
                return v
            return 0
        if reg == 0x0A:
            return self.n - self.rd
        return self.regs[reg]

    def write(self, reg, v):
        if reg == 0x09:
            self.fifo[self.n] = v
            self.n += 1
        elif reg == 0x0A:
            if v & 0x80:
                self.n = 0
                self.rd = 0
        elif reg == 0x04 or reg == 0x05:
            if v & 0x80:
                self.regs[reg] |= v & 0x7F
            else:
                self.regs[reg] &= ~v & 0x7F
        elif self.stuck:
            return
        elif reg == 0x01:
            cmd = v & 0x0F
            self.regs[1] = v
            if cmd == 0x0F:
                self.reset()
                self.deaf = False
                if self.hang_reset:
                    self.stuck = True
                    self.regs[1] = 0x30
            elif cmd == 0x03:
                _crc_a(self.fifo, self.n, self._crc)
                self.regs[0x22] = self._crc[0]
                self.regs[0x21] = self._crc[1]
                self.n = 0
                self.regs[0x05] |= 0x04
            elif cmd == 0x04:
                if self.fifo[0] == 0x50 and self.state == 2:
                    self.state = 3
                self.n = 0
                self.regs[0x04] |= 0x50
        elif reg == 0x0D:
            self.regs[reg] = v
            if v & 0x80 and self.regs[1] & 0x0F == 0x0C:
                self.transceive()
        else:
            self.regs[reg] = v

    def answer(self, data, n):
        for i in range(n):
            self.fifo[i] = data[i]
        self.n = n
        self.rd = 0
        self.regs[0x04] |= 0x20

    def silence(self):
        self.n = 0
        self.rd = 0
        self.regs[0x04] |= 0x01

    def transceive(self):
        cmd = self.fifo[0]
        n = self.n
        if not self.card or self.deaf or (self.faint and self.regs[0x26] & 0x70 < 0x60):
            return self.silence()
        if self.freeze:
            self.n = 0
            return  # no RxIRq, no TimerIRq: only Idle stops it
        if n == 1 and self.slide and (cmd == 0x52 or (cmd == 0x26 and self.state == 0)):
            self.slide -= 1
            if self.slide & 1:
                return self.silence()
            for i in range(7):
                self._gbuf[i] = self._uid[i]
            self._gbuf[4] ^= 1 << (self.slide % 8)  # a complete read of wrong bits (BCC right)
            self._levels(self._gbuf if self.slide else self._uid)
        if n == 1 and self.garble and (cmd == 0x52 or (cmd == 0x26 and self.state == 0)):
            self.reads += 1
            self._uid[3] ^= 1 << (self.reads % 8)  # other wrong bits on every read
            self._uid[5] ^= 1 << ((self.reads + 3) % 8)
            self._levels(self._uid)
        if n == 1 and (cmd == 0x52 or (cmd == 0x26 and self.state == 0)):
            if self.state == 0 or self.state == 3:
                self.state = 1
                self.level = 0
                return self.answer(_ATQA, 2)
        if self.state == 1 and (cmd == 0x93 or cmd == 0x95):
            lv = 0 if cmd == 0x93 else 1
            if lv == self.level and n == 2:
                return self.answer(self.levels[lv], 5)
            if lv == self.level and n == 9:
                if lv == 1:
                    self.state = 2
                else:
                    self.level = 1
                return self.answer(self.sak[lv], 3)
        if self.state == 1 or self.state == 2:
            self.state = 0
        return self.silence()


class FakeBus:
    """machine.SPI-like bus shared by several FakeChips, one selected by its FakeCS."""

    def __init__(self, chips):
        self.chips = chips
        self.sel = -1
        self.mode = 0  # 0 address next, 1 read, 2 write
        self.addr = 0
        self.accesses = 0

    def _x(self, b):
        if self.sel < 0:
            return 0
        chip = self.chips[self.sel]
        if chip.absent:
            return 0
        if self.mode == 0:
            self.addr = (b >> 1) & 0x3F
            self.mode = 1 if b & 0x80 else 2
            return 0
        if self.mode == 1:
            v = chip.read(self.addr)
            self.addr = (b >> 1) & 0x3F
            return v
        chip.write(self.addr, b)
        return 0

    def write(self, buf):
        for i in range(len(buf)):
            self._x(buf[i])

    def readinto(self, buf, w=0):
        for i in range(len(buf)):
            buf[i] = self._x(w)

    def write_readinto(self, wb, rb):
        for i in range(len(wb)):
            rb[i] = self._x(wb[i])


class FakeCS:
    def __init__(self, bus, index):
        self.bus = bus
        self.index = index

    def __call__(self, v=None):
        if v == 0:
            self.bus.sel = self.index
            self.bus.mode = 0
            self.bus.accesses += 1
        elif v == 1 and self.bus.sel == self.index:
            self.bus.sel = -1
        return 0


class Pin:
    def __init__(self):
        self.v = 0

    def __call__(self, v=None):
        if v is not None:
            self.v = v
        return self.v
