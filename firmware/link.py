"""The device side of the reader line protocol (docs/protocol.md, version 1).

Output lines get the device's sequence number and a CRC-16/CCITT-FALSE; input is collected byte by byte into
a preallocated line buffer and never evaluated: a line is only ever compared against the six commands the
protocol knows. Anything else — a bad checksum, a line too long, bytes that are not printable ASCII, unknown
commands, bad fields — is answered with NAK, counted in ``errors`` (reported in every HB) and forgotten.
"""

# ruff: noqa: UP031  (%-formatting: what MicroPython formats cheapest)

try:
    from micropython import const
except ImportError:  # CPython

    def const(value: int) -> int:
        return value


MAX_LINE = const(120)  # bytes per line including "\n" (and any "\r")
_NL = const(0x0A)
_CR = const(0x0D)
_SEQ_MOD = const(65536)


def _make_table() -> list:
    table = []
    for i in range(256):
        crc = i << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) & 0xFFFF if crc & 0x8000 else (crc << 1) & 0xFFFF
        table.append(crc)
    return table


_TABLE = _make_table()


def crc16(data: bytes, n: int = -1) -> int:
    """CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF) of the first n bytes; crc16(b"123456789") == 0x29B1."""
    if n < 0:
        n = len(data)
    crc = 0xFFFF
    table = _TABLE
    for i in range(n):
        crc = ((crc << 8) & 0xFFFF) ^ table[((crc >> 8) ^ data[i]) & 0xFF]
    return crc


def _number(token: str, low: int, high: int) -> int:
    """A plain decimal in [low, high], or -1 (no sign, no spaces, at most 5 digits)."""
    if not token or len(token) > 5 or not token.isdigit():
        return -1
    value = int(token)
    return value if low <= value <= high else -1


class Link:
    """Framing, sequence numbers and command dispatch for one serial port.

    ``out`` has ``write(bytes)``. ``handler`` (the application) has ``hello()``, ``state()``,
    ``led(zone, mode)``, ``beep(ms)`` and ``rescan()``; ``zones`` bounds the LED zone argument.
    """

    def __init__(self, out: object, handler: object, zones: int = 4) -> None:
        self._out = out
        self._handler = handler
        self._zones = zones
        self.seq = 0  # sequence number of the next line sent
        self.errors = 0  # input lines dropped (NAK'd)
        self._line = bytearray(MAX_LINE)
        self._len = 0
        self._overflow = False

    # --- output ---------------------------------------------------------------------------------------
    def send(self, body: str) -> None:
        """Send one line: ``SEQ BODY *CRC``."""
        head = "%d %s" % (self.seq, body)
        self._out.write(("%s *%04X\n" % (head, crc16(head.encode()))).encode())
        self.seq = (self.seq + 1) % _SEQ_MOD

    def send_hello(self, proto: int, firmware: str, zones: int) -> None:
        """HELLO always carries sequence number 0: the host resets its expectation on it."""
        self.seq = 0
        self.send("HELLO %d %s %d" % (proto, firmware, zones))

    def ack(self, host_seq: int) -> None:
        self.send("ACK %d" % host_seq)

    def nak(self, host_seq: int, reason: str) -> None:
        self.errors += 1
        self.send("NAK %s %s" % ("-" if host_seq < 0 else str(host_seq), reason))

    # --- input ----------------------------------------------------------------------------------------
    def feed(self, data: bytearray, n: int) -> None:
        """Take n received bytes; every complete line is handled at once."""
        line = self._line
        for i in range(n):
            b = data[i]
            if b == _NL:
                if self._overflow:
                    self._overflow = False
                    self._len = 0
                    self.nak(-1, "CRC")
                else:
                    length = self._len
                    self._len = 0
                    self._handle(line, length)
            elif self._len < MAX_LINE - 1:
                line[self._len] = b
                self._len += 1
            else:
                self._overflow = True

    def _handle(self, line: bytearray, n: int) -> None:
        if n and line[n - 1] == _CR:
            n -= 1
        if n == 0:
            return  # an empty line (a terminal's Enter) is not an error
        for i in range(n):
            if not 0x20 <= line[i] <= 0x7E:
                self.nak(-1, "CRC")
                return
        text = bytes(line[:n]).decode()
        star = text.rfind(" *")
        body = text[:star] if star >= 0 else text
        host_seq = _number(body.split(" ", 1)[0], 0, _SEQ_MOD - 1)
        crc_text = text[star + 2 :] if star >= 0 else ""
        if len(crc_text) != 4 or not all(c in "0123456789ABCDEFabcdef" for c in crc_text):
            self.nak(host_seq, "CRC")
            return
        if int(crc_text, 16) != crc16(line, star):
            self.nak(host_seq, "CRC")
            return
        fields = body.split(" ")
        if host_seq < 0 or len(fields) < 2:
            self.nak(host_seq, "SYNTAX")
            return
        self._dispatch(host_seq, fields[1], fields[2:])

    def _dispatch(self, seq: int, kind: str, args: list) -> None:
        h = self._handler
        if kind not in ("HELLO?", "STATE?", "PING", "LED", "BEEP", "RESCAN"):
            self.nak(seq, "UNKNOWN")
        elif kind == "LED":
            if len(args) != 2 or args[1] not in ("ON", "OFF", "FLASH") or not args[0].isdigit():
                self.nak(seq, "SYNTAX")
                return
            zone = _number(args[0], 0, self._zones - 1)
            if zone < 0:
                self.nak(seq, "RANGE")
                return
            h.led(zone, args[1])
            self.ack(seq)
        elif kind == "BEEP":
            if len(args) != 1 or not args[0].isdigit():
                self.nak(seq, "SYNTAX")
                return
            ms = _number(args[0], 1, 2000)
            if ms < 0:
                self.nak(seq, "RANGE")
                return
            h.beep(ms)
            self.ack(seq)
        elif args:
            self.nak(seq, "SYNTAX")  # the other commands take no fields
        elif kind == "HELLO?":
            h.hello()
        elif kind == "STATE?":
            h.state()
        elif kind == "PING":
            self.ack(seq)
        else:  # RESCAN
            self.ack(seq)
            h.rescan()
