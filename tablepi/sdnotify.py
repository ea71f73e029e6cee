"""Tell systemd how the service is doing: the ``sd_notify`` datagram protocol, standard library only.

The unit runs with ``Type=notify`` and ``WatchdogSec=``: systemd counts the service as started only when it
says ``READY=1`` (so units ordered after it wait for a working table, not a starting process) and restarts it
when the main loop stops sending ``WATCHDOG=1`` (a hung loop is worse than a restart: the journal replays the
match). The protocol is one datagram of ``KEY=value`` lines to the AF_UNIX socket named in ``$NOTIFY_SOCKET``;
a name starting with ``@`` is in the abstract namespace. Outside systemd the variable is unset and every call
is a no-op, so the app needs no special case for running by hand or in tests.

>>> Notifier(env={}).ready()
False
"""

from __future__ import annotations

import os
import socket
from collections.abc import Mapping

from tablepi.errors import TablepiError


class NotifyError(TablepiError, OSError):
    """``$NOTIFY_SOCKET`` names something that cannot be a notify socket."""


class Notifier:
    """A connection-less sender of service state to systemd.

    ``env`` defaults to ``os.environ``; tests pass a mapping. Sending never raises for a socket that has gone
    away (systemd restarting is not the app's problem) but a malformed ``$NOTIFY_SOCKET`` raises at once, when
    the notifier is made, because it is a configuration mistake.
    """

    def __init__(self, env: Mapping[str, str] | None = None) -> None:
        env = os.environ if env is None else env
        self._address = _address(env.get("NOTIFY_SOCKET", ""))
        self._watchdog_usec = _watchdog_usec(env)
        self._sock: socket.socket | None = None

    @property
    def enabled(self) -> bool:
        """True when running under a service manager that listens."""
        return self._address is not None

    @property
    def watchdog_interval(self) -> float | None:
        """Seconds between ``WATCHDOG=1`` pings: half the unit's ``WatchdogSec``, None if no watchdog."""
        return None if self._watchdog_usec is None else self._watchdog_usec / 2_000_000

    def notify(self, **fields: str | int) -> bool:
        """Send ``KEY=value`` lines (keys upper-cased); True if a service manager received them."""
        if self._address is None:
            return False
        for key, value in fields.items():
            if "\n" in str(value):
                raise ValueError(f"sd_notify field {key} must be one line, got {value!r}")
        payload = "\n".join(f"{key.upper()}={value}" for key, value in fields.items()).encode()
        if self._sock is None:
            self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC)
        try:
            self._sock.sendto(payload, self._address)
        except OSError:
            return False
        return True

    def ready(self, status: str | None = None) -> bool:
        """The table is up: readers opened, journal replayed, first frame drawn."""
        return self.notify(READY=1, **({"STATUS": status} if status else {}))

    def watchdog(self) -> bool:
        """The main loop is alive; call it at least every :attr:`watchdog_interval` seconds."""
        return self.notify(WATCHDOG=1)

    def status(self, text: str) -> bool:
        """A one-line status shown by ``systemctl status tablepi``."""
        return self.notify(STATUS=text)

    def stopping(self) -> bool:
        """Shutting down on purpose (so a slow shutdown is not mistaken for a hang)."""
        return self.notify(STOPPING=1)

    def close(self) -> None:
        """Release the socket; idempotent."""
        if self._sock is not None:
            self._sock.close()
            self._sock = None

    def __enter__(self) -> Notifier:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _address(value: str) -> str | bytes | None:
    if not value:
        return None
    if value.startswith("@"):
        # Abstract namespace: a leading NUL byte instead of the "@".
        return b"\0" + value[1:].encode()
    if value.startswith("/"):
        return value
    raise NotifyError(f"NOTIFY_SOCKET must be an absolute path or start with '@', got {value!r}")


def _watchdog_usec(env: Mapping[str, str]) -> int | None:
    """``$WATCHDOG_USEC`` if it is meant for this process (``$WATCHDOG_PID`` unset or ours)."""
    usec = env.get("WATCHDOG_USEC", "")
    pid = env.get("WATCHDOG_PID", "")
    if not usec:
        return None
    if pid and pid != str(os.getpid()):
        return None
    try:
        value = int(usec)
    except ValueError:
        raise NotifyError(f"WATCHDOG_USEC must be a whole number of microseconds, got {usec!r}") from None
    return value if value > 0 else None
