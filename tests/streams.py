"""Reading a server-sent event stream over a raw socket, as a page's browser holds it open (the pages' and the
tournament's stream tests)."""

from __future__ import annotations

import socket


def read_event(sock: socket.socket, data: bytearray) -> str:
    """The next ``data:`` event on an open stream (its HTTP head and keep-alive comments skipped); ``data`` keeps
    what was received past it, for the next call."""
    while True:
        for part in bytes(data).split(b"\n\n")[:-1]:
            del data[:len(part) + 2]
            lines = [line for line in part.decode().split("\r\n")[-1].split("\n") if line.startswith("data: ")]
            if lines:
                return lines[-1][len("data: "):]
        chunk = sock.recv(65536)
        if not chunk:
            raise AssertionError("the stream closed")
        data += chunk
