"""The USB serial port of the board as the application sees it: reads and writes that never wait long.

Reading: the REPL must never be entered because of a byte on the link. Ctrl-C is disabled (kbd_intr(-1)) and
stdin is read as raw bytes (``sys.stdin.buffer``: the text stream would turn \\r into \\n) one at a time, only
while ``select.poll`` says one is there, so a stray 0x03 or a line of Python is just data for the protocol
parser. ``ipoll`` is used because it allocates nothing per call, unlike ``poll``.

Writing: on the rp2 port a write to USB CDC while the host has the port open (DTR set) but does not read waits
up to 500 ms per 64 bytes for room, then drops the rest; with the port closed it goes into a small buffer
that keeps the newest bytes (what the host gets when it opens the port: it ignores lines before the HELLO
that answers its ``HELLO?``). So a line is written only when poll reports the port writable; otherwise it is
dropped and counted — its sequence number is used all the same, so the host sees the gap and asks for
``STATE?``. A host that reads a little now and then can still make one write wait; the application feeds the
watchdog before every line for that reason.
"""

import select
import sys

import micropython


class UsbPort:
    """stdin / stdout of MicroPython (USB CDC on the Pico) with the ``readinto`` / ``write`` of the app."""

    def __init__(self, stdin: object = None, stdout: object = None) -> None:
        micropython.kbd_intr(-1)
        stdin = stdin if stdin is not None else sys.stdin
        self._in = stdin.buffer if hasattr(stdin, "buffer") else stdin
        out = stdout if stdout is not None else sys.stdout
        self._out = out.buffer if hasattr(out, "buffer") else out
        self._poll = select.poll()
        self._poll.register(stdin, select.POLLIN)
        self._out_poll = select.poll()
        self._out_poll.register(out, select.POLLOUT)
        self._one = bytearray(1)
        self.closed = False  # stdin reached its end (only on the unix port: USB never ends)
        self.dropped = 0  # lines not written because the host was not reading

    def readinto(self, buf: bytearray) -> int:
        """Read what has arrived, at most len(buf) bytes, without waiting."""
        n = 0
        size = len(buf)
        while n < size and not self.closed:
            ready = False
            for _obj, event in self._poll.ipoll(0):
                if event & select.POLLIN:
                    ready = True
                elif event & (select.POLLHUP | select.POLLERR):
                    self.closed = True
            if not ready:
                break
            if not self._in.readinto(self._one):
                self.closed = True
                break
            buf[n] = self._one[0]
            n += 1
        return n

    def write(self, data: bytes) -> None:
        """Write one line if the port can take it now; else drop it (counted in ``dropped``)."""
        for _obj, event in self._out_poll.ipoll(0):
            if event & select.POLLOUT:
                self._out.write(data)
                return
        self.dropped += 1
