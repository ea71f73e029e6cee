"""One writer per journal: an advisory lock file beside it, naming the process that holds it.

A second ``tablepi run`` on the same journal would interleave sequence numbers with the first; instead it stops
at once with a message naming the other process (``journal.sqlite3 is in use by pid 812: tablepi run ...``).
The lock is ``flock`` on ``journal.sqlite3.lock``: the kernel drops it when the holder dies, even by SIGKILL or a
power cut, so a stale lock never keeps the table from starting. Readers (``export``, ``doctor``) take no lock.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from pathlib import Path

from tablepi.errors import TablepiError
from tablepi.safeinput import clean_text


class JournalBusy(TablepiError, OSError):
    """Another process writes this journal. ``pid`` is that process (0 if it could not be told)."""

    def __init__(self, message: str, pid: int = 0) -> None:
        super().__init__(message)
        self.pid = pid


def lock_path(journal: Path) -> Path:
    return journal.with_name(journal.name + ".lock")


def _describe(pid: int) -> str:
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return ""
    words = [os.path.basename(w) if i == 0 else w for i, w in enumerate(raw.decode(errors="replace").split("\0")) if w]
    return clean_text(" ".join(words))[:120]


class JournalLock:
    """Held from construction until :meth:`close`. Raises :class:`JournalBusy` if another process holds it.

    Where the lock file cannot be created at all (a read-only or full card) the journal is opened unlocked and
    :attr:`held` is False: a storage fault must not stop the table (docs/journal.md).
    """

    def __init__(self, journal: Path) -> None:
        self.path = lock_path(journal)
        self.held = False
        try:
            self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o640)
        except OSError:
            self._fd = -1
            return
        try:
            fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            pid = self._holder()
            os.close(self._fd)
            self._fd = -1
            what = _describe(pid) if pid else ""
            who = f"pid {pid}" + (f": {what}" if what else "") if pid else "another process"
            raise JournalBusy(
                f"{journal}: the journal is in use by {who}; one table per journal (stop it first, "
                f"or give this one another --journal; `tablepi export` reads it meanwhile)", pid) from None
        self.held = True
        with contextlib.suppress(OSError):
            os.ftruncate(self._fd, 0)
            os.pwrite(self._fd, f"{os.getpid()}\n".encode(), 0)

    def _holder(self) -> int:
        try:
            text = os.pread(self._fd, 32, 0).decode("ascii", "replace").strip()
        except OSError:
            return 0
        return int(text) if text.isdigit() else 0

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)  # releases the flock
            self._fd = -1
            self.held = False
