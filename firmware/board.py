"""The USB serial port of the board as the application sees it: non-blocking reads, plain writes.

The REPL must never be entered because of a byte on the link: Ctrl-C is disabled (kbd_intr(-1)) and stdin is
read as raw bytes through select.poll, so a stray 0x03 or a line of Python is just data for the protocol
parser. ``ipoll`` is used because it allocates nothing per call, unlike ``poll``.
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
        self._one = bytearray(1)
        self.closed = False  # stdin reached its end (only on the unix port: USB never ends)

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
        self._out.write(data)
