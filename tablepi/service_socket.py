"""The running table's control channel: a Unix socket through which ``tablepi enroll`` and ``tablepi doctor`` talk to
the service, so that nothing but the service ever opens the reader. (The table's physical buttons, LEDs and buzzer
are :mod:`tablepi.controls`.)

The socket lives in the service's runtime directory (``table.control``, by default ``/run/tablepi/control.sock``;
systemd makes ``/run/tablepi`` with ``RuntimeDirectory=``). It is made ``0660``: only the service's user and
group may connect, and the server also refuses a peer whose uid is neither its own nor root's.

The protocol is JSON Lines. The client sends one request object, ``{"op": "status"}``, ``{"op": "new_match"}`` (the
table's *new match* button, for a table without a screen: ``tablepi match``) or ``{"op": "enroll_deck",
"name": "red"}``, and reads reply objects until one has ``"end": true``::

    -> {"op": "enroll_deck", "name": "red", "timeout": 600}
    <- {"say": "Lay ♠A on any zone (1/24)."}
    ...
    <- {"end": true, "ok": true, "say": "Deck 'red' complete: 24 cards saved to /var/lib/tablepi/decks.toml."}

A client that hangs up cancels its request (an enrolment stops, nothing written). Connection threads only parse,
queue a :class:`ControlRequest` on the app's inbox and write back what the main thread answers (threads stop at
the adapter, STYLE.md 10).
"""

from __future__ import annotations

import contextlib
import enum
import errno
import json
import logging
import os
import queue
import select
import socket
import struct
import threading
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tablepi.errors import ConfigError, TablepiError

log = logging.getLogger(__name__)

#: Requests the service answers.
OPS = ("status", "enroll_deck", "enroll_player", "cancel", "new_match")
#: A request line longer than this is refused (a request is a few dozen bytes).
MAX_REQUEST = 4096
#: How long a client may take to send its request line.
REQUEST_SECONDS = 5.0


class Unreachable(enum.Enum):
    """Why a client could not reach the running table."""

    NOT_RUNNING = "not_running"  # no socket, or nobody listens on it: no table service runs
    NO_PERMISSION = "no_permission"  # the table runs, but this user may not use its socket


class ControlUnavailable(ConfigError):
    """The control socket cannot be made here (no runtime folder, no permission): the table runs without it."""


class ServiceUnreachable(TablepiError, OSError):
    """No running table answers on the control socket; :attr:`reason` says why, :attr:`path` where."""

    def __init__(self, path: Path, reason: Unreachable, detail: str = "") -> None:
        self.path = path
        self.reason = reason
        self.detail = detail
        super().__init__(f"{path}: {reason.value}{': ' + detail if detail else ''}")


@dataclass
class ControlRequest:
    """A request from a client, to be answered on the main thread with :meth:`reply` and :meth:`finish`."""

    op: str
    args: Mapping[str, Any]
    replies: queue.Queue[dict[str, Any]] = field(default_factory=queue.Queue)
    cancelled: threading.Event = field(default_factory=threading.Event)
    finished: bool = False

    def reply(self, **fields: Any) -> None:
        if not self.finished:
            self.replies.put(dict(fields))

    def finish(self, ok: bool = True, **fields: Any) -> None:
        if not self.finished:
            self.finished = True
            self.replies.put({**fields, "end": True, "ok": ok})


@dataclass(frozen=True, slots=True)
class ControlCancel:
    """The client of ``request`` hung up (queued by its connection thread)."""

    request: ControlRequest


class ControlServer:
    """Listens on ``path`` until :meth:`close`; every request goes to ``put`` (the app's inbox)."""

    def __init__(self, path: str | Path, put: Callable[[ControlRequest | ControlCancel], None]) -> None:
        self.path = Path(path)
        self._put = put
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        _claim(self.path)
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            old = os.umask(0o117)  # the socket is born 0660, never briefly open to others
            try:
                sock.bind(str(self.path))
            finally:
                os.umask(old)
            os.chmod(self.path, 0o660)
            sock.listen(4)
        except OSError as err:
            sock.close()
            raise ControlUnavailable(f"table.control: cannot listen on {self.path}: {err.strerror or err}") from None
        sock.settimeout(0.2)
        self._sock = sock
        self._accepter = threading.Thread(target=self._accept, name="control-accept", daemon=True)
        self._accepter.start()

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._sock.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            if not _peer_allowed(conn):
                with contextlib.suppress(OSError):
                    conn.sendall(_line({"end": True, "ok": False, "error": "not allowed"}))
                conn.close()
                continue
            thread = threading.Thread(target=self._serve, args=(conn,), name="control-conn", daemon=True)
            self._threads = [t for t in self._threads if t.is_alive()] + [thread]
            thread.start()

    def _serve(self, conn: socket.socket) -> None:
        with conn:
            try:
                request = self._read_request(conn)
            except (OSError, ValueError) as err:
                with contextlib.suppress(OSError):
                    conn.sendall(_line({"end": True, "ok": False, "error": f"bad request: {err}"}))
                return
            self._put(request)
            while True:
                try:
                    reply = request.replies.get(timeout=0.2)
                except queue.Empty:
                    if self._stop.is_set() or _hung_up(conn):
                        request.cancelled.set()
                        self._put(ControlCancel(request))
                        return
                    continue
                try:
                    conn.sendall(_line(reply))
                except OSError:
                    request.cancelled.set()
                    self._put(ControlCancel(request))
                    return
                if reply.get("end"):
                    return

    def _read_request(self, conn: socket.socket) -> ControlRequest:
        conn.settimeout(REQUEST_SECONDS)
        data = b""
        while b"\n" not in data:
            chunk = conn.recv(1024)
            if not chunk:
                raise ValueError("the client hung up before its request")
            data += chunk
            if len(data) > MAX_REQUEST:
                raise ValueError("request too long")
        conn.settimeout(None)
        obj = json.loads(data.split(b"\n", 1)[0].decode("utf-8"))
        if not isinstance(obj, dict) or obj.get("op") not in OPS:
            raise ValueError(f"expected {{\"op\": one of {', '.join(OPS)}}}")
        return ControlRequest(str(obj["op"]), {k: v for k, v in obj.items() if k != "op"})

    def close(self) -> None:
        """Stop listening and remove the socket. Idempotent."""
        if self._stop.is_set():
            return
        self._stop.set()
        self._sock.close()
        self._accepter.join(1.0)
        for thread in self._threads:
            thread.join(1.0)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.path)


def _claim(path: Path) -> None:
    """Make room for the socket: refuse if a table already listens there, remove a dead one's socket."""
    if not path.parent.is_dir():
        raise ControlUnavailable(
            f"table.control: folder {path.parent} does not exist (the service makes it with RuntimeDirectory=; "
            f"or set table.control to a writable place)"
        )
    if not os.path.lexists(path):
        return
    try:
        with contextlib.closing(connect(path, timeout=1.0)):
            pass
    except ServiceUnreachable as err:
        if err.reason is Unreachable.NO_PERMISSION:
            raise ControlUnavailable(f"table.control: {path} belongs to someone else: {err.detail}") from None
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)  # left by a table that died: nobody listens on it
        return
    raise ConfigError.setting("table.control", f"another table already runs on {path}; one reader, one table")


def _peer_allowed(conn: socket.socket) -> bool:
    """The peer's uid is ours or root's (the socket's mode already keeps strangers out; this is the second lock)."""
    try:
        creds = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    except OSError:
        return True  # no SO_PEERCRED here: the socket's mode is the lock
    _pid, uid, gid = struct.unpack("3i", creds)
    return uid in (0, os.geteuid()) or gid == os.getegid()


def _hung_up(conn: socket.socket) -> bool:
    readable, _, _ = select.select([conn], [], [], 0)
    if not readable:
        return False
    try:
        return conn.recv(1, socket.MSG_PEEK) == b""
    except OSError:
        return True


def _line(obj: Mapping[str, Any]) -> bytes:
    return (json.dumps(obj, ensure_ascii=False) + "\n").encode("utf-8")


# --- the client side ------------------------------------------------------------------------------------------


def connect(path: str | Path, timeout: float = 5.0) -> socket.socket:
    """A connection to the running table; :class:`ServiceUnreachable` says why there is none."""
    path = Path(path)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(timeout)
    try:
        sock.connect(str(path))
    except (FileNotFoundError, ConnectionRefusedError, NotADirectoryError) as err:
        sock.close()
        raise ServiceUnreachable(path, Unreachable.NOT_RUNNING, err.strerror or "") from None
    except PermissionError as err:
        sock.close()
        raise ServiceUnreachable(path, Unreachable.NO_PERMISSION, err.strerror or "") from None
    except OSError as err:
        sock.close()
        if err.errno in (errno.ECONNREFUSED, errno.ENOENT):
            raise ServiceUnreachable(path, Unreachable.NOT_RUNNING, err.strerror or "") from None
        raise ServiceUnreachable(path, Unreachable.NOT_RUNNING, str(err)) from None
    return sock


def request(path: str | Path, op: str, *, wait: float | None = 10.0, **args: Any) -> Iterator[dict[str, Any]]:
    """Send one request and yield the replies, the last one (``"end": true``) included.

    ``wait`` bounds each wait for a reply (None: as long as the table takes, as enrolment does).
    """
    sock = connect(path, timeout=5.0)
    with sock:
        sock.sendall(_line({"op": op, **args}))
        sock.settimeout(wait)
        with sock.makefile("r", encoding="utf-8") as lines:
            for text in lines:
                reply = json.loads(text)
                if not isinstance(reply, dict):
                    continue
                yield reply
                if reply.get("end"):
                    return
    raise ServiceUnreachable(Path(path), Unreachable.NOT_RUNNING, "the table hung up before it answered")


def ask(path: str | Path, op: str = "status", wait: float = 5.0, **args: Any) -> dict[str, Any]:
    """The last reply of a request that ends at once (``status``)."""
    last: dict[str, Any] = {}
    for reply in request(path, op, wait=wait, **args):
        last = reply
    return last
