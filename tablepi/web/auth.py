"""Logins for tablepi's pages (the tournament's director; any page that needs one): server-side sessions with a
CSRF token each, and a throttle on password guesses.

A session is a random token in an HttpOnly, SameSite=Strict cookie (Secure over TLS); the server keeps what it
means, so ``/logout`` ends it for good (a copied cookie is worth nothing after). Each session has its own CSRF
token, which the pages send back in a header with every action: a page of another site can make the browser send
the cookie, never read the token. Wrong passwords are slowed down per client address and, after
:data:`LOCK_AFTER` within :data:`WINDOW`, locked out for :data:`LOCK_SECONDS`; every one is logged.
"""

from __future__ import annotations

import hmac
import logging
import secrets
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

log = logging.getLogger(__name__)

#: A session unused this long is over (seconds).
IDLE_SECONDS = 12 * 3600
#: Sessions kept at most (the oldest go first): a flood of logins cannot fill the memory.
MAX_SESSIONS = 200
#: A wrong password is answered after this delay (seconds)...
DELAY = 1.0
#: ... and this many within :data:`WINDOW` seconds lock the address out for :data:`LOCK_SECONDS`.
LOCK_AFTER = 5
WINDOW = 600.0
LOCK_SECONDS = 300.0
#: Client addresses whose failures are remembered at most.
MAX_ADDRESSES = 10_000


@dataclass
class Session:
    who: str
    csrf: str
    seen: float


class Sessions:
    """Token -> session, on the server; bounded and idle-limited."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self._all: OrderedDict[str, Session] = OrderedDict()

    def new(self, who: str) -> tuple[str, Session]:
        token = secrets.token_urlsafe(32)
        session = self._all[token] = Session(who, secrets.token_urlsafe(32), self.clock())
        while len(self._all) > MAX_SESSIONS:
            self._all.popitem(last=False)
        return token, session

    def get(self, token: str) -> Session | None:
        session = self._all.get(token) if token else None
        if session is None:
            return None
        if self.clock() - session.seen > IDLE_SECONDS:
            del self._all[token]
            return None
        session.seen = self.clock()
        self._all.move_to_end(token)
        return session

    def end(self, token: str) -> None:
        self._all.pop(token, None)

    @staticmethod
    def csrf_ok(session: Session, sent: str) -> bool:
        return bool(sent) and hmac.compare_digest(session.csrf.encode(), sent.encode())


class Throttle:
    """Wrong passwords per client address: a delay for each, a lockout after :data:`LOCK_AFTER`."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self._failures: OrderedDict[str, list[float]] = OrderedDict()
        self._locked: dict[str, float] = {}

    def locked_for(self, address: str) -> float:
        """Seconds this address must still wait before it may try again (0: it may)."""
        until = self._locked.get(address, 0.0)
        left = until - self.clock()
        if left <= 0:
            self._locked.pop(address, None)
            return 0.0
        return left

    def failed(self, address: str, who: str) -> None:
        now = self.clock()
        times = [t for t in self._failures.pop(address, []) if now - t < WINDOW] + [now]
        self._failures[address] = times
        while len(self._failures) > MAX_ADDRESSES:
            self._failures.popitem(last=False)
        log.warning("login: wrong password for %r from %s (%d in %d minutes)", who[:40], address, len(times),
                    WINDOW // 60)
        if len(times) >= LOCK_AFTER:
            self._locked[address] = now + LOCK_SECONDS
            self._failures.pop(address, None)
            log.warning("login: %s locked out for %d s after %d wrong passwords", address, LOCK_SECONDS, len(times))

    def succeeded(self, address: str) -> None:
        self._failures.pop(address, None)
