"""Running the pages: uvicorn on a socket of our own (a kernel-chosen port in tests), in a thread or in front."""

from __future__ import annotations

import asyncio
import socket
import threading
from collections.abc import Callable
from typing import Any

import uvicorn

from tablepi.changes import Changes
from tablepi.tournament.config import WebConfig
from tablepi.tournament.server import TournamentServer
from tablepi.web.app import make_app
from tablepi.web.guard import Guard

#: Connections beyond the open streams that are still served (pages, actions, the director while the house is full).
SPARE_CONNECTIONS = 200


def raise_file_limit(wanted: int) -> int:
    """Let this process hold ``wanted`` open files if its hard limit allows (every open page is a socket; the
    default soft limit of 1024 ends in accept() errors). Returns the soft limit now."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if target > soft:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        soft = target
    return soft


def server_socket(host: str, port: int) -> socket.socket:
    """A socket bound to ``host:port`` (0: a kernel-chosen port) for the pages; raises OSError if it cannot be had."""
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        # Every answer goes out at once: without it a response written in two parts (head, then body) waits for
        # the client's delayed acknowledgement, 40 ms on Linux, on every request of a kept-alive connection.
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.bind((host, port))
    except OSError:
        sock.close()
        raise
    return sock


class _Uvicorn(uvicorn.Server):
    """uvicorn's server, waking the waiting streams as it begins to shut down (SIGTERM, SIGINT or close())."""

    def __init__(self, config: uvicorn.Config, wake: Callable[[], None]) -> None:
        super().__init__(config)
        self._wake = wake

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        self._wake()
        await super().shutdown(sockets)


class WebServer:
    """uvicorn serving :func:`~tablepi.web.app.make_app` of ``server`` (or the app ``app(stopping)`` makes: the
    table's own pages, tablepi.book.pages, whose streams wait on ``changes``) on ``host:port``, or on ``sock``
    (from :func:`server_socket`, bound by the process that started this one); :attr:`port` is where it listens."""

    def __init__(self, server: TournamentServer | None, host: str = "127.0.0.1", port: int = 0, *,
                 app: Callable[[Callable[[], bool]], Any] | None = None, changes: Changes | None = None,
                 sock: socket.socket | None = None) -> None:
        self._closing = False
        self._changes = changes if changes is not None or server is None else server.hub.changes
        self.sock = server_socket(host, port) if sock is None else sock
        bound = self.sock.getsockname()
        self.host, self.port = str(bound[0]), int(bound[1])
        if app is not None:
            made = app(self._stopping)
        else:
            assert server is not None
            made = make_app(server, stopping=self._stopping)
        web = server.config.web if server is not None else WebConfig()
        self.tls = web.tls
        # Every app served here gets the shared guard (bounded bodies, origin checks, security headers). Every
        # open page holds a connection: the streams' own limit answers politely (503, Retry-After) before
        # uvicorn's, which only keeps the process inside its file limit (systemd: LimitNOFILE=).
        config = uvicorn.Config(Guard(made), log_level="warning", timeout_graceful_shutdown=2, lifespan="off",
                                access_log=False, limit_concurrency=web.max_streams + SPARE_CONNECTIONS,
                                backlog=2048,
                                ssl_certfile=None if web.certfile is None else str(web.certfile),
                                ssl_keyfile=None if web.keyfile is None else str(web.keyfile))
        self.uvicorn = _Uvicorn(config, self._wake_streams)
        self._thread: threading.Thread | None = None

    def _wake_streams(self) -> None:
        """Streams waiting on a channel look at :meth:`_stopping` now and end (not at their next keep-alive)."""
        if self._changes is not None:
            self._changes.wake_all()

    def _stopping(self) -> bool:
        """Open streams end when the server stops (close(), or SIGTERM/SIGINT handled by uvicorn)."""
        return self._closing or self.uvicorn.should_exit

    @property
    def url(self) -> str:
        return f"{'https' if self.tls else 'http'}://{self.host}:{self.port}"

    def serve_forever(self) -> None:
        """Serve on this thread until :meth:`close` (or SIGINT/SIGTERM, which uvicorn handles)."""
        asyncio.run(self.uvicorn.serve(sockets=[self.sock]))

    def start(self) -> WebServer:
        """Serve on a thread of its own."""
        self._thread = threading.Thread(target=self.serve_forever, name="web", daemon=True)
        self._thread.start()
        for _ in range(500):
            if self.uvicorn.started:
                break
            threading.Event().wait(0.01)
        return self

    def close(self) -> None:
        self._closing = True
        self.uvicorn.should_exit = True
        self._wake_streams()
        if self._thread is not None:
            self._thread.join(10.0)
        self.sock.close()
