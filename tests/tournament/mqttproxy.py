"""A TCP proxy between MQTT clients and the broker that duplicates and reorders the PUBLISH packets the clients
send: what a flaky network and at-least-once delivery can do to the feed, made to happen on purpose."""

from __future__ import annotations

import contextlib
import random
import socket
import threading


def _read_packet(sock: socket.socket) -> bytes | None:
    """One whole MQTT control packet (fixed header, remaining length, body); None when the peer closed."""
    head = _read_exact(sock, 1)
    if head is None:
        return None
    length, multiplier, raw = 0, 1, b""
    while True:
        byte = _read_exact(sock, 1)
        if byte is None:
            return None
        raw += byte
        length += (byte[0] & 0x7F) * multiplier
        multiplier *= 128
        if not byte[0] & 0x80:
            break
    body = _read_exact(sock, length) if length else b""
    return None if body is None else head + raw + body


def _read_exact(sock: socket.socket, count: int) -> bytes | None:
    data = b""
    while len(data) < count:
        try:
            chunk = sock.recv(count - len(data))
        except OSError:
            return None
        if not chunk:
            return None
        data += chunk
    return data


class MqttProxy:
    """Listens on a free loopback port; every connection is relayed to ``upstream``. Client-to-broker PUBLISH
    packets are sent twice with probability ``duplicate`` and swapped with the next one with ``reorder``."""

    def __init__(self, upstream_port: int, *, duplicate: float = 0.2, reorder: float = 0.2, seed: int = 1) -> None:
        self.upstream_port = upstream_port
        self.duplicate = duplicate
        self.reorder = reorder
        self.rng = random.Random(seed)
        self.lock = threading.Lock()
        self.duplicated = 0
        self.reordered = 0
        self.server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.server.bind(("127.0.0.1", 0))
        self.server.listen(64)
        self.port = int(self.server.getsockname()[1])
        self.sockets: list[socket.socket] = []
        self._closed = False
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while not self._closed:
            try:
                client, _ = self.server.accept()
            except OSError:
                return
            try:
                upstream = socket.create_connection(("127.0.0.1", self.upstream_port))
            except OSError:
                client.close()
                continue
            self.sockets += [client, upstream]
            threading.Thread(target=self._up, args=(client, upstream), daemon=True).start()
            threading.Thread(target=self._down, args=(upstream, client), daemon=True).start()

    def _up(self, client: socket.socket, upstream: socket.socket) -> None:
        held: bytes | None = None
        client.settimeout(0.2)
        try:
            while True:
                try:
                    packet = _read_packet(client)
                except TimeoutError:
                    packet = b""
                if packet is None:
                    break
                if not packet:  # quiet: let a held packet go
                    if held is not None:
                        upstream.sendall(held)
                        held = None
                    continue
                if packet[0] >> 4 != 3:  # not a PUBLISH
                    if held is not None:
                        upstream.sendall(held)
                        held = None
                    upstream.sendall(packet)
                    continue
                with self.lock:
                    dup = self.rng.random() < self.duplicate
                    swap = held is None and self.rng.random() < self.reorder
                if swap:
                    held = packet
                    continue
                upstream.sendall(packet)
                if dup:
                    upstream.sendall(packet)
                    self.duplicated += 1
                if held is not None:
                    upstream.sendall(held)
                    held = None
                    self.reordered += 1
        finally:
            with contextlib.suppress(OSError):
                upstream.shutdown(socket.SHUT_RDWR)

    def _down(self, upstream: socket.socket, client: socket.socket) -> None:
        try:
            while True:
                try:
                    data = upstream.recv(65536)
                except OSError:
                    break
                if not data:
                    break
                client.sendall(data)
        except OSError:
            pass
        finally:
            with contextlib.suppress(OSError):
                client.shutdown(socket.SHUT_RDWR)

    def close(self) -> None:
        self._closed = True
        self.server.close()
        for sock in self.sockets:
            with contextlib.suppress(OSError):
                sock.close()
