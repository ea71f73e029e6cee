"""The table's pages in a process of their own, so that the phones never slow the table down.

Served from a thread of the table's own process, 200 phones on the live page slowed a card's way to the screen
(its p50 x1.6-3.2): every event woke all the open streams, whose answers are Python work in uvicorn and Starlette
(5-6 ms of CPU an event for 200 streams, more than the table's own loop spent), and each time the table's loop let
go of the interpreter lock (the journal's fsync above all) it had to wait until the web thread gave it back, up to
the interpreter's switch interval (5 ms). The stream's text was already made once per change; what is left is
each stream's own answer, and no trimming of it would make that wait go away: another process has its own
interpreter and lock.

So the table's process keeps only the book keeper (it follows the journal and writes the book, as before) and a
thread that sends the keeper's live view down a pipe: the newest only, so a pages process that falls behind makes
views coalesce and never makes the keeper (let alone the table) wait. The pages process (:func:`_serve`, started
with ``spawn``: a fresh interpreter) opens the book itself (SQLite takes turns; the pages only read it), serves the
pages exactly as before (:mod:`tablepi.book.pages`, uvicorn) at a lower CPU priority than the table, and takes
nothing from the pages back: the pipe carries live views one way, towards the pages.

The socket is bound (and listening) in the table's process before the pages process starts, so a port in use is
the table's error at once and a phone that comes early waits in the backlog. The pages process ends when its pipe
closes: when the table closes it, and when the table's process is gone however it went (``kill -9`` included: the
kernel closes the table's end), so a killed table leaves no pages process behind.
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import os
import signal
import socket
import threading
from dataclasses import dataclass
from multiprocessing.connection import Connection
from pathlib import Path

from tablepi.book.config import BookConfig
from tablepi.book.fill import LiveView
from tablepi.web.serve import server_socket

log = logging.getLogger(__name__)

#: The pages' CPU priority (``nice``): the table's own process runs first when both want a core.
NICE = 10
#: Connections waiting to be accepted (uvicorn's own, as the pages process listens on).
BACKLOG = 2048
#: Seconds the pages process is given to end by itself when the table closes it, before it is stopped.
STOP_WAIT = 5.0


@dataclass(frozen=True)
class Site:
    """What the pages process needs to serve the pages: the book, its settings, the archive (the players'
    game records) and the language."""

    book: Path
    players: BookConfig
    archive: Path | None
    language: str


class PagesProcess:
    """The pages served by a process of their own on ``host:port`` (0: a kernel-chosen port, :attr:`port`; raises
    OSError if it cannot be had); :meth:`show` hands it the keeper's live view (from any thread, never waiting);
    ``close()`` is idempotent."""

    def __init__(self, site: Site, host: str, port: int) -> None:
        sock = server_socket(host, port)
        try:
            sock.listen(BACKLOG)  # a phone that comes before the pages process is ready waits here
        except OSError:
            sock.close()
            raise
        self.port = int(sock.getsockname()[1])
        context = multiprocessing.get_context("spawn")  # a fresh interpreter, whatever threads the table runs
        self._conn, theirs = context.Pipe()
        self._process = context.Process(target=_serve, args=(theirs, site, sock), name="tablepi-pages", daemon=True)
        self._process.start()
        theirs.close()
        sock.close()  # the pages process has its own copy
        self._wake = threading.Condition()
        self._newest: LiveView | None = None
        self._closed = False
        self._sender = threading.Thread(target=self._send, name="pages-feed", daemon=True)
        self._sender.start()

    @property
    def pid(self) -> int | None:
        return self._process.pid

    def show(self, live: LiveView) -> None:
        """The table now, for the phones: the pages process gets it soon (or a newer one instead)."""
        with self._wake:
            self._newest = live
            self._wake.notify()

    def _send(self) -> None:
        while True:
            with self._wake:
                while self._newest is None and not self._closed:
                    self._wake.wait()
                if self._closed:
                    return
                live, self._newest = self._newest, None
            try:
                self._conn.send(live)
            except (OSError, ValueError) as error:  # the pages process is gone: the table plays on without it
                log.error("the players' pages have stopped (%s); the table plays on", error)
                return

    def close(self) -> None:
        """Close the pipe (the pages process ends by itself) and wait for it; stop it if it does not end."""
        with self._wake:
            if self._closed:
                return
            self._closed = True
            self._wake.notify()
        self._sender.join(STOP_WAIT)
        self._conn.close()
        self._process.join(STOP_WAIT)
        if self._process.is_alive():
            self._process.kill()
            self._process.join(STOP_WAIT)


def _serve(conn: Connection, site: Site, sock: socket.socket) -> None:
    """In the pages process: serve the pages until the pipe from the table closes."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C in a terminal reaches both: the table closes the pipe
    with contextlib.suppress(OSError):
        os.nice(NICE)
    from tablepi.book.export import archive_lookup
    from tablepi.book.pages import LiveBoard, Pages, make_pages
    from tablepi.book.store import Book
    from tablepi.web.serve import WebServer

    board = LiveBoard()
    with Book(site.book, day_starts=site.players.day_starts) as book:
        pages = Pages(book, site.players, board.now, board.changes, lambda: archive_lookup(site.archive))
        web = WebServer(None, sock=sock, app=lambda stopping: make_pages(pages, site.language, stopping=stopping),
                        changes=board.changes).start()
        try:
            while True:
                board.show(conn.recv())
        except (EOFError, OSError):  # the table closed the pipe, or its process is gone
            pass
        finally:
            web.close()
