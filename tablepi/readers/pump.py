"""The thread that stops at the adapter: it only moves reader events onto a queue.

The core of tablepi runs on one thread and reads one ``queue.Queue``; a :class:`ReaderPump` is the only thing
that touches the reader from another thread (python-can ``Notifier``, pyserial ``ReaderThread``).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from types import TracebackType
from typing import Self

from tablepi.errors import ReaderError
from tablepi.readers.base import Reader
from tablepi.readers.events import ReaderEvent

log = logging.getLogger(__name__)


class ReaderPump:
    """Run ``put(event)`` for every event of ``reader`` on a daemon thread, from construction until
    :meth:`close`.

    ``put`` is typically ``queue.Queue.put``. The pump never decides anything. An unexpected exception
    from the
    reader is logged and the pump goes on after a short pause (a pub table must not freeze over one bad read);
    a closed reader ends the pump.
    """

    def __init__(
        self,
        reader: Reader,
        put: Callable[[ReaderEvent], object],
        *,
        poll: float = 0.1,
        close_reader: bool = False,
        name: str | None = None,
    ) -> None:
        self.reader = reader
        self._put = put
        self._poll = poll
        self._close_reader = close_reader
        self._stop = threading.Event()
        self.errors = 0
        self._thread = threading.Thread(
            target=self._run, name=name or f"reader-pump-{reader.backend}", daemon=True
        )
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                event = self.reader.recv(self._poll)
            except ReaderError:
                if self.reader.closed:
                    return
                self.errors += 1
                log.exception("reader %s failed; pump continues", self.reader.backend)
                self._stop.wait(0.2)
                continue
            except Exception:
                self.errors += 1
                log.exception("unexpected error in reader %s; pump continues", self.reader.backend)
                self._stop.wait(0.2)
                continue
            if event is not None:
                self._put(event)

    @property
    def running(self) -> bool:
        return self._thread.is_alive()

    def close(self, timeout: float = 2.0) -> None:
        """Stop the thread (and close the reader if asked to at construction). Idempotent."""
        self._stop.set()
        if self._close_reader:
            self.reader.close()
        if self._thread is not threading.current_thread():
            self._thread.join(timeout)

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()
