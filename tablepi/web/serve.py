"""Running the pages: uvicorn on a socket of our own (a kernel-chosen port in tests), in a thread or in front."""

from __future__ import annotations

import asyncio
import socket
import threading
from collections.abc import Callable
from typing import Any

import uvicorn

from tablepi.tournament.server import TournamentServer
from tablepi.web.app import make_app


class WebServer:
    """uvicorn serving :func:`~tablepi.web.app.make_app` of ``server`` (or the app ``app(stopping)`` makes: the
    table's own pages, tablepi.book.pages); :attr:`port` is where it listens."""

    def __init__(self, server: TournamentServer | None, host: str = "127.0.0.1", port: int = 0, *,
                 app: Callable[[Callable[[], bool]], Any] | None = None) -> None:
        self._closing = False
        self.sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind((host, port))
        self.host = host
        self.port = int(self.sock.getsockname()[1])
        if app is not None:
            made = app(self._stopping)
        else:
            assert server is not None
            made = make_app(server, stopping=self._stopping)
        config = uvicorn.Config(made, log_level="warning", timeout_graceful_shutdown=2, lifespan="off",
                                access_log=False)
        self.uvicorn = uvicorn.Server(config)
        self._thread: threading.Thread | None = None

    def _stopping(self) -> bool:
        """Open streams end when the server stops (close(), or SIGTERM/SIGINT handled by uvicorn)."""
        return self._closing or self.uvicorn.should_exit

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

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
        if self._thread is not None:
            self._thread.join(10.0)
        self.sock.close()
