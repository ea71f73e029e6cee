"""A small virtual contactless card for the vpcd driver: a TCP client that answers GET DATA (UID) like an NTAG.

vpcd frames every message in both directions as a 2-byte big-endian length and a payload. A 1-byte payload is
a control code (0 power off, 1 power on, 2 reset, 4 send the ATR); anything longer is a command APDU. Connecting
is inserting the card, closing the socket is removing it.
"""

from __future__ import annotations

import contextlib
import socket
import struct
import threading

#: ATR of an NTAG/Ultralight as an ACR122U reports it.
NTAG_ATR = bytes.fromhex("3B8F8001804F0CA0000003060300030000000068")
VPCD_PORT = 35963


class VirtualCard:
    """Card with tag ``uid`` (hex) inserted into vpcd slot ``slot`` while connected."""

    def __init__(self, uid: str, slot: int, host: str = "127.0.0.1") -> None:
        self.uid = bytes.fromhex(uid)
        self.slot = slot
        self.apdus: list[bytes] = []
        self._sock = socket.create_connection((host, VPCD_PORT + slot), timeout=5)
        self._sock.settimeout(None)
        self._thread = threading.Thread(target=self._serve, name=f"vcard-{slot}", daemon=True)
        self._thread.start()

    def _recv_exact(self, n: int) -> bytes:
        data = b""
        while len(data) < n:
            chunk = self._sock.recv(n - len(data))
            if not chunk:
                raise ConnectionError("vpcd closed the connection")
            data += chunk
        return data

    def _send(self, payload: bytes) -> None:
        self._sock.sendall(struct.pack(">H", len(payload)) + payload)

    def _serve(self) -> None:
        with contextlib.suppress(OSError, ConnectionError):
            while True:
                (length,) = struct.unpack(">H", self._recv_exact(2))
                payload = self._recv_exact(length)
                if length == 1:
                    if payload[0] == 4:
                        self._send(NTAG_ATR)
                    continue
                self.apdus.append(payload)
                if payload[:5] == bytes.fromhex("FFCA000000"):
                    self._send(self.uid + b"\x90\x00")
                else:
                    self._send(b"\x6d\x00")

    def remove(self) -> None:
        """Take the card off the reader."""
        with contextlib.suppress(OSError):
            self._sock.shutdown(socket.SHUT_RDWR)
        self._sock.close()
        self._thread.join(2)
