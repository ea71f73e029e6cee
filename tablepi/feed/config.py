"""``[feed]``: where the table's events go (off unless ``enabled = true``)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tablepi.errors import ConfigError

#: A table id or user name: safe inside an MQTT topic (no wildcards, no slash) and in a file name.
NAME = re.compile(r"[A-Za-z0-9_-]{1,32}")
#: The topic prefix every message lives under; the version is part of it (docs/feed.md).
DEFAULT_PREFIX = "tablepi/v1"

_KNOWN = {"enabled", "host", "port", "table", "username", "password", "password_file", "tls", "ca_file",
          "prefix", "keepalive", "cursor"}


@dataclass(frozen=True)
class FeedConfig:
    """How a table (or the tournament server) reaches the broker.

    ``username`` defaults to ``table-<table>``; ``password_file`` (read when connecting) keeps the secret out of a
    world-readable config. ``cursor`` is the outbox cursor file; None: ``feed-cursor.json`` beside the journal.
    """

    enabled: bool = False
    host: str = "localhost"
    port: int = 1883
    table: str = ""
    username: str = ""
    password: str = ""
    password_file: Path | None = None
    tls: bool = False
    ca_file: Path | None = None
    prefix: str = DEFAULT_PREFIX
    keepalive: int = 30
    cursor: Path | None = None
    section: str = "feed"  # where in which file these settings were given (errors name it: ``broker.password_file``)

    @property
    def user(self) -> str:
        return self.username or f"table-{self.table}"

    def secret(self) -> str:
        """The password: ``password``, or the first line of ``password_file``."""
        if self.password_file is not None:
            try:
                return self.password_file.read_text(encoding="utf-8").splitlines()[0].strip()
            except (OSError, IndexError, UnicodeDecodeError) as error:
                raise ConfigError.setting(f"{self.section}.password_file",
                                          f"cannot read {self.password_file}: {error}") from None
        return self.password

    @classmethod
    def from_mapping(cls, mapping: Mapping[str, Any], base: Path, where: str = "feed") -> FeedConfig:
        unknown = sorted(set(mapping) - _KNOWN)
        if unknown:
            raise ConfigError.setting(f"{where}.{unknown[0]}", f"unknown setting (known: {', '.join(sorted(_KNOWN))})")
        enabled = mapping.get("enabled", False)
        if not isinstance(enabled, bool):
            raise ConfigError.setting(f"{where}.enabled", f"expected true or false, got {enabled!r}")
        tls = mapping.get("tls", False)
        if not isinstance(tls, bool):
            raise ConfigError.setting(f"{where}.tls", f"expected true or false, got {tls!r}")
        host = mapping.get("host", "localhost")
        if not isinstance(host, str) or not host or any(c.isspace() for c in host):
            raise ConfigError.setting(f"{where}.host", f"expected a host name or address, got {host!r}")
        port = mapping.get("port", 8883 if tls else 1883)
        if isinstance(port, bool) or not isinstance(port, int) or not 1 <= port <= 65535:
            raise ConfigError.setting(f"{where}.port", f"expected a port number 1-65535, got {port!r}")
        keepalive = mapping.get("keepalive", 30)
        if isinstance(keepalive, bool) or not isinstance(keepalive, int) or not 5 <= keepalive <= 3600:
            raise ConfigError.setting(f"{where}.keepalive", f"expected seconds between 5 and 3600, got {keepalive!r}")
        table = mapping.get("table", "")
        if not isinstance(table, str) or (table and not NAME.fullmatch(table)):
            raise ConfigError.setting(f"{where}.table", f"expected a table id of letters, digits, - or _ (at most 32), "
                              f"got {table!r}")
        if enabled and not table:
            raise ConfigError.setting(f"{where}.table", "the feed needs this table's id (e.g. table = \"7\")")
        username = mapping.get("username", "")
        if not isinstance(username, str) or (username and not NAME.fullmatch(username)):
            raise ConfigError.setting(f"{where}.username", f"expected letters, digits, - or _, got {username!r}")
        password = mapping.get("password", "")
        if not isinstance(password, str):
            raise ConfigError.setting(f"{where}.password", f"expected text, got {password!r}")
        prefix = mapping.get("prefix", DEFAULT_PREFIX)
        if (not isinstance(prefix, str) or not prefix or prefix.startswith("/") or prefix.endswith("/")
                or any(c in prefix for c in "#+ ")):
            raise ConfigError.setting(f"{where}.prefix",
                                      f"expected a topic prefix like {DEFAULT_PREFIX!r}, got {prefix!r}")
        return cls(
            enabled=enabled, host=host, port=port, table=table, username=username, password=password,
            password_file=_path(mapping.get("password_file"), f"{where}.password_file", base),
            tls=tls, ca_file=_path(mapping.get("ca_file"), f"{where}.ca_file", base), prefix=prefix,
            keepalive=keepalive, cursor=_path(mapping.get("cursor"), f"{where}.cursor", base), section=where,
        )


def _path(value: object, key: str, base: Path) -> Path | None:
    if value is None:
        return None
    if not isinstance(value, str) or not value:
        raise ConfigError.setting(key, f"expected a file name, got {value!r}")
    path = Path(value).expanduser()
    return path if path.is_absolute() else base / path
