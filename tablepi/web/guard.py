"""What every page tablepi serves gets, whoever's pages they are (the tournament's, the players' book): bounded
request bodies, no request with side effects from another origin, security headers, and a bounded number of open
streams with a polite refusal beyond it.

:class:`Guard` is ASGI middleware around any Starlette app; :class:`StreamSlots` counts the server-sent-event
streams an app holds open. A bar's Wi-Fi is a hostile neighbourhood: anyone on it can post 300 MB to a login form,
open a thousand streams, or host a page that posts to the director's actions from another port of the same host.
"""

from __future__ import annotations

import contextlib
import logging
import urllib.parse
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

log = logging.getLogger(__name__)

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

#: The largest request body read at all (a login form, a director's action: well under a kilobyte).
MAX_BODY = 16 * 1024
#: Methods that change nothing: never checked for their origin.
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
#: Sent with every response. The pages' own scripts and styles are inline or from this server; nothing may frame
#: them (a click on the director's buttons from another page), nothing is sniffed into a script.
SECURITY_HEADERS: tuple[tuple[bytes, bytes], ...] = (
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"same-origin"),
    (b"x-frame-options", b"DENY"),
    (b"content-security-policy",
     b"default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; "
     b"img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'"),
)


class _TooLarge(Exception):
    pass


def own_origin(scope: Scope) -> str:
    """``scheme://host[:port]`` as the client reached this server (its Host header), default ports left out."""
    scheme = str(scope.get("scheme", "http"))
    host = ""
    for name, value in scope.get("headers", ()):
        if name == b"host":
            host = value.decode("latin-1").strip().lower()
            break
    default = ":443" if scheme == "https" else ":80"
    return f"{scheme}://{host.removesuffix(default)}"


def same_origin(origin: str, scope: Scope) -> bool:
    """Whether ``origin`` (an Origin header, or a Referer's) is this server as the client reached it."""
    parts = urllib.parse.urlsplit(origin.strip().lower())
    default = ":443" if parts.scheme == "https" else ":80"
    return bool(parts.scheme) and f"{parts.scheme}://{parts.netloc.removesuffix(default)}" == own_origin(scope)


class Guard:
    """ASGI middleware: every response gets :data:`SECURITY_HEADERS`; a request with side effects (POST...) is
    refused (403) when its Origin — or, without one, its Referer — is another site or port; a body longer than
    ``max_body`` is refused (413) before it is read whole."""

    def __init__(self, app: ASGIApp, *, max_body: int = MAX_BODY) -> None:
        self.app = app
        self.max_body = max_body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {name.decode("latin-1"): value.decode("latin-1") for name, value in scope.get("headers", ())}
        if scope["method"] not in SAFE_METHODS:
            claimed = headers.get("origin") or headers.get("referer")
            if claimed is not None and not same_origin(claimed, scope):
                log.warning("refused a %s to %s from another origin (%s), client %s", scope["method"],
                            scope.get("path"), claimed[:80], _client(scope))
                await _plain(send, 403, "refused: this request comes from another site")
                return
            length = headers.get("content-length", "")
            if length and (not length.isdigit() or int(length) > self.max_body):
                await _plain(send, 413, f"refused: a request body is at most {self.max_body} bytes")
                return

        started = refused = False

        async def sending(message: Message) -> None:
            nonlocal started
            if refused:
                return  # the 413 went out already; the app's own answer to the cut-off body is dropped
            if message["type"] == "http.response.start":
                started = True
                message["headers"] = [*message.get("headers", ()), *SECURITY_HEADERS]
            await send(message)

        total = 0

        async def receiving() -> Message:
            nonlocal total, refused
            message = await receive()
            if message["type"] == "http.request":
                total += len(message.get("body", b""))
                if total > self.max_body:
                    if not started:
                        refused = True
                        await _plain(send, 413, f"refused: a request body is at most {self.max_body} bytes")
                    raise _TooLarge
            return message

        with contextlib.suppress(_TooLarge):
            await self.app(scope, receiving, sending)


class StreamSlots:
    """At most ``limit`` open streams (or other long answers, ``what`` they are: the players' exports); beyond,
    the caller answers 503 with ``Retry-After`` (the pages' script tries again after it, so a full house costs a
    viewer a short wait, never a broken page)."""

    def __init__(self, limit: int, retry_after: int = 20, what: str = "streams") -> None:
        self.limit = limit
        self.retry_after = retry_after
        self.what = what
        self.open = 0
        self.refused = 0

    def take(self) -> bool:
        if self.open >= self.limit:
            self.refused += 1
            if self.refused == 1 or self.refused % 100 == 0:
                log.warning("%d %s open, the limit: refused %d so far (they retry in %d s)", self.open, self.what,
                            self.refused, self.retry_after)
            return False
        self.open += 1
        return True

    def give_back(self) -> None:
        self.open -= 1


def _client(scope: Scope) -> str:
    client = scope.get("client")
    return str(client[0]) if client else "?"


async def _plain(send: Send, status: int, text: str, headers: tuple[tuple[bytes, bytes], ...] = ()) -> None:
    body = (text + "\n").encode("utf-8")
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"text/plain; charset=utf-8"),
                            (b"content-length", str(len(body)).encode()), *headers, *SECURITY_HEADERS]})
    await send({"type": "http.response.body", "body": body})
