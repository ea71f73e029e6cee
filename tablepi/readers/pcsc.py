"""The ``pcsc`` backend: four USB PC/SC contactless readers (ACR122U and alike), one per zone, via pyscard.

Each zone is bound to the reader whose PC/SC name contains the zone's configured substring (``readers`` option,
zone 0 first), so replugging a reader into another USB port keeps its seat. The backend waits in
``SCardGetStatusChange`` (on the thread that calls ``recv``, never longer than asked), reads a new card's UID
with ``GET DATA`` (``FF CA 00 00 00``) and reports what lies on the reader as a zone snapshot; the base class
turns that into places and lifts, so a card changed between two polls is a lift then a place.

A reader that disappears makes its zone OFFLINE; a daemon that stops makes every zone OFFLINE and the context
is re-established with backoff; when a reader returns, its current card is reported (nothing lost or doubled).

Needs the optional extra ``pcsc`` (``pip install 'tablepi[pcsc]'``) and a running ``pcscd``.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Mapping, Sequence
from typing import Any

from smartcard import scard  # the optional dependency: importing this module fails cleanly without it

from tablepi.errors import ConfigError
from tablepi.readers.base import Clock
from tablepi.readers.events import ZONES, ZoneSnapshot, ZoneState, normalise_uid
from tablepi.readers.link import LinkedReader

log = logging.getLogger(__name__)

#: GET DATA, UID of the card in the field (PC/SC part 3 pseudo-APDU for contactless readers).
GET_UID = [0xFF, 0xCA, 0x00, 0x00, 0x00]
#: The PC/SC pseudo-reader that reports readers being plugged and unplugged.
PNP_READER = "\\\\?PnP?\\Notification"

_SERVICE_GONE = {
    scard.SCARD_E_NO_SERVICE,
    scard.SCARD_E_SERVICE_STOPPED,
    scard.SCARD_E_INVALID_HANDLE,
    scard.SCARD_F_COMM_ERROR,
}
_READERS_CHANGED = {scard.SCARD_E_UNKNOWN_READER, scard.SCARD_E_READER_UNAVAILABLE}


def _err(hresult: int) -> str:
    return f"{scard.SCardGetErrorMessage(hresult)} (0x{hresult & 0xFFFFFFFF:08X})"


class PcscReader(LinkedReader):
    """Zones on PC/SC readers. Options: see docs/readers.md."""

    backend = "pcsc"
    link_name = "pcscd"
    link_failed_counter = "connect_failed"
    link_lost_detail = "PC/SC service lost"

    def __init__(
        self,
        *,
        readers: Sequence[str] | Mapping[int, str],
        zones: int = ZONES,
        debounce: float = 0.15,
        backoff_initial: float = 0.2,
        backoff_max: float = 5.0,
        relist_interval: float = 1.0,
        clock: Clock = time.monotonic,
    ) -> None:
        super().__init__(
            zones=zones, debounce=debounce, backoff_initial=backoff_initial, backoff_max=backoff_max, clock=clock
        )
        self.patterns = self._parse_patterns(readers, zones)
        self.relist_interval = float(relist_interval)
        self._ctx: Any = None
        self._io = threading.Lock()  # held around every PC/SC call that uses the context
        self._zone_reader: list[str | None] = [None] * zones
        self._reader_state: dict[str, int] = {}
        self._pnp = True
        self._next_relist = clock()

    @staticmethod
    def _parse_patterns(readers: Sequence[str] | Mapping[int, str], zones: int) -> tuple[str | None, ...]:
        if isinstance(readers, Mapping):
            pairs = list(readers.items())
        elif isinstance(readers, Sequence) and not isinstance(readers, str):
            pairs = list(enumerate(readers))
        else:
            raise ConfigError(f"pcsc reader option 'readers' must list a reader name per zone, not {readers!r}")
        patterns: list[str | None] = [None] * zones
        for key, pattern in pairs:
            # TOML tables have string keys: { 0 = "ACR122U" } arrives as {"0": "ACR122U"}.
            zone = int(key) if isinstance(key, str) and key.isdigit() else key
            if not isinstance(zone, int) or isinstance(zone, bool) or not 0 <= zone < zones:
                raise ConfigError(f"pcsc reader option 'readers': zone {zone!r} is not in 0..{zones - 1}")
            if not isinstance(pattern, str) or not pattern:
                raise ConfigError(f"pcsc reader option 'readers': zone {zone} needs a reader name, not {pattern!r}")
            patterns[zone] = pattern
        for i, a in enumerate(patterns):
            for b in patterns[i + 1 :]:
                if a is not None and b is not None and (a in b or b in a):
                    raise ConfigError(
                        f"pcsc reader option 'readers': {a!r} and {b!r} would match the same reader; "
                        "make each name part unique"
                    )
        return tuple(patterns)

    # --- Reader hooks --------------------------------------------------------------------------------

    def _link_is_up(self) -> bool:
        return self._ctx is not None

    def _link_ok(self, now: float) -> bool:
        if now >= self._next_relist and None in self._zone_reader:
            self._relist()
            return False
        return True

    def _pump_link(self, timeout: float) -> None:
        self._wait_for_change(timeout)

    def _close_internal(self) -> None:
        super()._close_internal()
        ctx = self._ctx
        if ctx is not None:
            scard.SCardCancel(ctx)  # wakes a recv blocked in SCardGetStatusChange
        with self._io:
            self._release()

    def _health_detail(self) -> str:
        bound = ", ".join(f"{z}={name or '-'}" for z, name in enumerate(self._zone_reader))
        return f"pcscd {'connected' if self._ctx is not None else 'not connected'}; readers {bound}"

    # --- context and readers -------------------------------------------------------------------------

    def _link_up(self) -> str | None:
        with self._io:
            hresult, ctx = scard.SCardEstablishContext(scard.SCARD_SCOPE_USER)
        if hresult != scard.SCARD_S_SUCCESS:
            return f"pcscd not reachable: {_err(hresult)}"
        self._ctx = ctx
        self._count("connects")
        log.info("connected to pcscd")
        self._relist()
        return None

    def _release(self) -> None:
        ctx, self._ctx = self._ctx, None
        if ctx is not None:
            scard.SCardReleaseContext(ctx)

    def _link_down(self, why: str) -> None:
        with self._io:
            self._release()
        for zone, name in enumerate(self._zone_reader):  # every zone unbound; the link reports it OFFLINE
            self._zone_reader[zone] = None
            if name is not None:
                self._reader_state.pop(name, None)

    def _relist(self) -> None:
        """Bind zones to the readers present now; read the card of every newly bound reader."""
        self._next_relist = self._now() + self.relist_interval
        with self._io:
            hresult, names = scard.SCardListReaders(self._ctx, [])
        if hresult == scard.SCARD_E_NO_READERS_AVAILABLE:
            names = []
        elif hresult != scard.SCARD_S_SUCCESS:
            if hresult in _SERVICE_GONE:
                self._link_lost(_err(hresult))
            else:
                self._count("list_failed")
            return
        now = self._now()
        for zone, pattern in enumerate(self.patterns):
            if pattern is None:
                continue
            matches = sorted(n for n in names if pattern in n)
            if len(matches) > 1:
                self._count("ambiguous_reader")
                log.warning("zone %d: %d readers match %r: %s; using the first", zone, len(matches), pattern, matches)
            name = matches[0] if matches else None
            if name != self._zone_reader[zone]:
                self._unbind(zone, "reader unplugged" if name is None else "", now)
                if name is not None:
                    self._bind(zone, name, now)

    def _bind(self, zone: int, name: str, now: float) -> None:
        log.info("zone %d bound to reader %r", zone, name)
        self._zone_reader[zone] = name
        self._reader_state[name] = scard.SCARD_STATE_UNAWARE  # the next wait reports its state at once
        self._count("readers_bound")

    def _unbind(self, zone: int, detail: str, now: float) -> None:
        name = self._zone_reader[zone]
        self._zone_reader[zone] = None
        if name is not None:
            self._reader_state.pop(name, None)
        self._set_state(zone, ZoneState.OFFLINE, detail or "no reader", now)

    # --- waiting for cards ---------------------------------------------------------------------------

    def _wait_for_change(self, timeout: float) -> None:
        watched = [(name, self._reader_state[name]) for name in self._zone_reader if name is not None]
        if self._pnp:
            watched.append((PNP_READER, self._reader_state.get(PNP_READER, scard.SCARD_STATE_UNAWARE)))
        if not watched:
            self._wake.wait(min(timeout, self.relist_interval))
            return
        with self._io:
            if self._ctx is None:
                return
            hresult, states = scard.SCardGetStatusChange(self._ctx, int(timeout * 1000), watched)
        if hresult in (scard.SCARD_E_TIMEOUT, scard.SCARD_E_CANCELLED):
            return
        if hresult in _SERVICE_GONE:
            self._link_lost(_err(hresult))
            return
        if hresult in _READERS_CHANGED:
            self._relist()
            return
        if hresult != scard.SCARD_S_SUCCESS:
            self._count("wait_failed")
            log.warning("SCardGetStatusChange failed: %s", _err(hresult))
            self._wake.wait(min(timeout, 0.2))
            return
        now = self._now()
        for name, event_state, _atr in states:
            if not event_state & scard.SCARD_STATE_CHANGED:
                continue
            self._reader_state[name] = event_state & ~scard.SCARD_STATE_CHANGED
            if name == PNP_READER:
                if event_state & scard.SCARD_STATE_UNKNOWN:
                    self._pnp = False  # this PC/SC has no plug-and-play notification; relisting covers it
                self._relist()
                continue
            self._on_reader_state(name, event_state, now)

    def _on_reader_state(self, name: str, event_state: int, now: float) -> None:
        if name not in self._zone_reader:
            return
        zone = self._zone_reader.index(name)
        if event_state & (scard.SCARD_STATE_UNKNOWN | scard.SCARD_STATE_IGNORE | scard.SCARD_STATE_UNAVAILABLE):
            self._unbind(zone, "reader unplugged", now)
            self._next_relist = now
            return
        if event_state & scard.SCARD_STATE_PRESENT:
            if event_state & scard.SCARD_STATE_MUTE:
                self._count("mute_cards")
                self._set_state(zone, ZoneState.FAULT, "card does not answer", now)
                return
            uid = self._read_uid(name)
            if uid is None:
                return  # counted; the card's removal or the next change will tell
            self._items.append(ZoneSnapshot(zone, uid, now))
            self._set_state(zone, ZoneState.ONLINE, "", now)
        elif event_state & scard.SCARD_STATE_EMPTY:
            self._items.append(ZoneSnapshot(zone, None, now))
            self._set_state(zone, ZoneState.ONLINE, "", now)

    def _read_uid(self, name: str) -> str | None:
        with self._io:
            if self._ctx is None:
                return None
            hresult, card, protocol = scard.SCardConnect(
                self._ctx, name, scard.SCARD_SHARE_SHARED, scard.SCARD_PROTOCOL_T0 | scard.SCARD_PROTOCOL_T1
            )
            if hresult != scard.SCARD_S_SUCCESS:
                self._count("connect_card_failed")
                log.debug("reader %r: cannot connect to the card: %s", name, _err(hresult))
                return None
            try:
                hresult, response = scard.SCardTransmit(card, protocol, GET_UID)
            finally:
                scard.SCardDisconnect(card, scard.SCARD_LEAVE_CARD)
        if hresult != scard.SCARD_S_SUCCESS or len(response) < 2 or response[-2:] != [0x90, 0x00]:
            self._count("uid_failed")
            log.info("reader %r: the card did not give its UID (%s, %s)", name, _err(hresult), response)
            return None
        try:
            return normalise_uid(bytes(response[:-2]).hex())
        except ValueError:
            self._count("uid_failed")
            log.info("reader %r: UID of unexpected length %s", name, bytes(response[:-2]).hex())
            return None
