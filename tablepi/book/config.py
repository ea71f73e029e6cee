"""``[players]`` (the book) and ``[web]`` (the table's own pages) of the table's configuration file."""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tablepi.errors import ConfigError
from tablepi.safeinput import shown

_BOOK_KEYS = {"book", "min_deals", "min_together", "day_starts", "seasons", "review"}
_WEB_KEYS = {"enabled", "host", "port", "address"}


@dataclass(frozen=True)
class BookConfig:
    """Where the book is and how its figures are made (docs/players.md)."""

    path: Path | None = None  # None: players.sqlite3 beside the journal
    min_deals: int = 60  # deals rated before a player is on the leaderboard
    min_together: int = 20  # deals together before a best partner / toughest opponent is named
    day_starts: int = 6  # a match ended before this hour counts to the evening before
    seasons: Mapping[str, tuple[str, str]] = field(default_factory=dict)  # name -> (first, last evening)
    review: bool = True  # review each finished deal's cards (best play) for the book

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any], base: Path) -> BookConfig:
        from tablepi.book.stats import check_date

        unknown = sorted(set(data) - _BOOK_KEYS)
        if unknown:
            raise ConfigError.setting(f"players.{unknown[0]}",
                                      f"unknown setting (known: {', '.join(sorted(_BOOK_KEYS))})")
        path = data.get("book")
        if path is not None and not isinstance(path, str):
            raise ConfigError.setting("players.book", f"expected a file name, got {shown(path)}")
        seasons_in = data.get("seasons", {})
        if not isinstance(seasons_in, Mapping):
            raise ConfigError.setting("players.seasons", f"expected a table of name = [\"first day\", \"last day\"], "
                              f"got {shown(seasons_in)}")
        seasons: dict[str, tuple[str, str]] = {}
        for name, span in seasons_in.items():
            if not isinstance(span, list) or len(span) != 2:
                raise ConfigError.setting(f"players.seasons.{name}", f"expected [\"YYYY-MM-DD\", \"YYYY-MM-DD\"], "
                                  f"got {shown(span)}")
            first = check_date(span[0], f"players.seasons.{name}")
            last = check_date(span[1], f"players.seasons.{name}")
            if last < first:
                raise ConfigError.setting(f"players.seasons.{name}", f"ends ({last}) before it begins ({first})")
            seasons[str(name)] = (first, last)
        review = data.get("review", True)
        if not isinstance(review, bool):
            raise ConfigError.setting("players.review", f"expected true or false, got {shown(review)}")
        return cls(
            path=None if path is None else (base / path),
            min_deals=_number(data, "min_deals", 60, 0, 100_000),
            min_together=_number(data, "min_together", 20, 1, 100_000),
            day_starts=_number(data, "day_starts", 6, 0, 12),
            seasons=seasons,
            review=review,
        )


@dataclass(frozen=True)
class WebConfig:
    """The table's own pages on the bar's network: off unless ``enabled = true``."""

    enabled: bool = False
    host: str = "0.0.0.0"
    port: int = 8080
    address: str = ""  # the address phones open (the QR code); "": http://<this machine's address>:<port>/

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> WebConfig:
        unknown = sorted(set(data) - _WEB_KEYS)
        if unknown:
            raise ConfigError.setting(f"web.{unknown[0]}", f"unknown setting (known: {', '.join(sorted(_WEB_KEYS))})")
        enabled = data.get("enabled", False)
        if not isinstance(enabled, bool):
            raise ConfigError.setting("web.enabled", f"expected true or false, got {shown(enabled)}")
        host = data.get("host", "0.0.0.0")
        try:
            ipaddress.ip_address(host)
        except ValueError:
            raise ConfigError.setting("web.host", f"expected an IP address to listen on, got {shown(host)}") from None
        address = data.get("address", "")
        if not isinstance(address, str) or (address and not address.startswith(("http://", "https://"))):
            raise ConfigError.setting("web.address", f"expected an address such as \"http://table7.local:8080/\", "
                              f"got {shown(address)}")
        return cls(enabled=enabled, host=str(host), port=_number(data, "port", 8080, 1, 65535), address=address)


def _number(data: Mapping[str, Any], key: str, default: int, low: int, high: int) -> int:
    value = data.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        section = "web" if key == "port" else "players"
        raise ConfigError.setting(f"{section}.{key}",
                                  f"expected a whole number from {low} to {high}, got {shown(value)}")
    return value


def page_address(web: WebConfig) -> str:
    """What phones open (and the QR code says): ``[web] address``, else this machine's address on the bar's
    network (the interface a packet out would leave by; no packet is sent) and the port."""
    import socket

    if web.address:
        return web.address if web.address.endswith("/") else web.address + "/"
    host = web.host
    if host in ("0.0.0.0", "::"):
        probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        try:
            probe.connect(("192.0.2.1", 9))  # TEST-NET-1: never routed anywhere, only picks the interface
            host = probe.getsockname()[0]
        except OSError:
            host = "127.0.0.1"
        finally:
            probe.close()
    if ":" in host:
        host = f"[{host}]"
    return f"http://{host}:{web.port}/"
