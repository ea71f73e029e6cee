"""Wake the open streams of a channel when it changes, instead of every stream looking ten times a second.

:class:`Changes` is told by whoever publishes (:meth:`Changes.changed`, from any thread) and wakes the streams
waiting on that channel (:meth:`Changes.wait`): one callback per event loop and change, which sets the channel's
one :class:`asyncio.Event` that all its waiting streams share (then a fresh one for the next change). A wait has no
timer of its own (``asyncio.wait_for`` made a task and a timer per stream and wake, which cost as much as the
polling it replaced): one timer per event loop wakes every waiting stream each :data:`TICK` seconds, for their
keep-alive comments. Between changes and ticks an idle stream does nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading

#: Seconds between two wakes of every waiting stream (each then sends a keep-alive comment when it is due).
TICK = 5.0


class Changes:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        # per event loop that has streams waiting: channel -> the event they share
        self._waiting: dict[asyncio.AbstractEventLoop, dict[str, asyncio.Event]] = {}
        #: How many times a waiting stream was woken (tests count it: an idle stream is woken only by the tick).
        self.wakeups = 0

    def attach(self) -> None:
        """Make the running loop known before a stream first reads its channel (so no change falls between), and
        start its tick."""
        loop = asyncio.get_running_loop()
        with self._lock:
            if loop in self._waiting:
                return
            self._waiting[loop] = {}
        loop.call_later(TICK, self._tick, loop)

    def _tick(self, loop: asyncio.AbstractEventLoop) -> None:
        with self._lock:
            events = self._waiting.get(loop, {})
            self._waiting[loop] = {}
        for event in events.values():
            event.set()
        loop.call_later(TICK, self._tick, loop)

    def changed(self, channel: str) -> None:
        """``channel`` has changed: wake its streams. Safe from any thread."""
        with self._lock:
            loops = list(self._waiting)
        for loop in loops:
            if loop.is_closed():
                with self._lock:
                    self._waiting.pop(loop, None)
                continue
            with contextlib.suppress(RuntimeError):  # closed between the look and the call
                loop.call_soon_threadsafe(self._fire, loop, channel)

    def wake_all(self) -> None:
        """Wake every waiting stream (the server is stopping: they look at ``stopping`` and end)."""
        with self._lock:
            pairs = [(loop, channel) for loop, events in self._waiting.items() for channel in events]
        for loop, channel in pairs:
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(self._fire, loop, channel)

    def _fire(self, loop: asyncio.AbstractEventLoop, channel: str) -> None:
        with self._lock:
            event = self._waiting.get(loop, {}).pop(channel, None)
        if event is not None:
            event.set()

    async def wait(self, channel: str) -> None:
        """Until ``channel`` changes or the next tick (the caller looks at its channel either way)."""
        loop = asyncio.get_running_loop()
        with self._lock:
            event = self._waiting.setdefault(loop, {}).setdefault(channel, asyncio.Event())
        await event.wait()
        self.wakeups += 1
