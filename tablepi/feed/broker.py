"""The broker's side: mosquitto configuration for a tournament, and a mosquitto process for tests and benchmarks.

:func:`write_broker_config` writes what docs/feed.md ships: each table its own user and password, an ACL that lets a
table publish only to its own topics (and read its seating and the announcements), one user for the tournament
server, no anonymous access, persistence on (a restarted broker still holds what the server has not received).
The password file is written here in mosquitto's own format (PBKDF2-SHA512, ``$7$``), so a tournament can be set
up on a machine without ``mosquitto_passwd``.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import os
import secrets
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from tablepi.errors import ConfigError
from tablepi.feed.config import DEFAULT_PREFIX, NAME
from tablepi.feed.messages import MAX_PAYLOAD

#: The tournament server's broker user.
SERVER_USER = "tournament"


def password_line(user: str, password: str, iterations: int = 101) -> str:
    """One line of a mosquitto 2 password file (what ``mosquitto_passwd -b`` writes)."""
    salt = secrets.token_bytes(12)
    digest = hashlib.pbkdf2_hmac("sha512", password.encode("utf-8"), salt, iterations)
    return f"{user}:$7${iterations}${base64.b64encode(salt).decode()}${base64.b64encode(digest).decode()}"


def table_user(table: str) -> str:
    return f"table-{table}"


def acl_text(tables: Iterable[str], prefix: str = DEFAULT_PREFIX, server_user: str = SERVER_USER) -> str:
    """The ACL: the server reads every table and writes seatings and announcements; a table writes only its own
    topics. Retained topics are readwrite for their writer (mosquitto checks read access on retained delivery)."""
    out = [
        "# tablepi tournament ACL (docs/feed.md). A table may publish only to its own topics.",
        f"user {server_user}",
        f"topic read {prefix}/tables/+/events",
        f"topic read {prefix}/tables/+/state",
        f"topic read {prefix}/tables/+/status",
        f"topic readwrite {prefix}/tables/+/seating",
        f"topic write {prefix}/tables/+/resend",
        f"topic readwrite {prefix}/announce",
        "",
    ]
    for table in tables:
        if not NAME.fullmatch(table):
            raise ConfigError(f"table id {table!r}: expected letters, digits, - or _")
        base = f"{prefix}/tables/{table}"
        out += [
            f"user {table_user(table)}",
            f"topic write {base}/events",
            f"topic readwrite {base}/state",
            f"topic readwrite {base}/status",
            f"topic write {base}/doctor",
            f"topic read {base}/seating",
            f"topic read {base}/resend",
            f"topic read {prefix}/announce",
            "",
        ]
    return "\n".join(out)


def write_broker_config(
    directory: Path,
    passwords: Mapping[str, str],
    tables: Iterable[str],
    *,
    port: int = 1883,
    bind: str = "0.0.0.0",
    prefix: str = DEFAULT_PREFIX,
    as_root: bool = False,
    tls: TlsListener | None = None,
    owner: str | None = None,
) -> Path:
    """Write ``mosquitto.conf``, ``passwd`` and ``acl`` into ``directory``; returns the conf file.

    ``passwords`` maps broker user names (``tournament``, ``table-7``...) to passwords. ``as_root`` adds
    ``user root`` (a broker started as root otherwise switches to the user mosquitto, which cannot read a private
    temporary folder: tests only). ``tls`` adds a second listener with TLS (the same users and ACL). ``owner``:
    the user the broker runs as (``mosquitto`` when it is started as root), given the password file and the
    persistence folder — root writes them, mosquitto reads them after dropping root.
    """
    directory.mkdir(parents=True, exist_ok=True)
    data = directory / "data"
    data.mkdir(exist_ok=True)
    (directory / "passwd").write_text("".join(password_line(u, p) + "\n" for u, p in passwords.items()))
    os.chmod(directory / "passwd", 0o600)
    (directory / "acl").write_text(acl_text(list(tables), prefix))
    if owner is not None:
        for path in (directory / "passwd", directory / "acl", data):
            shutil.chown(path, owner, owner)
    lines = [
        "# tablepi tournament broker (docs/feed.md)",
        *(["user root"] if as_root else []),
        "per_listener_settings false",
        # Nothing a table sends is larger (docs/feed.md): a bigger message is refused by the broker, never stored.
        f"message_size_limit {MAX_PAYLOAD}",
        f"listener {port} {bind}",
        # A client's id is its user name (a listener's setting): one table's password cannot take over another's
        # session, nor the tournament server's (docs/feed.md, "Client ids").
        "use_username_as_clientid true",
        *([] if tls is None else [f"listener {tls.port} {bind}", "use_username_as_clientid true",
                                  f"certfile {tls.certfile}", f"keyfile {tls.keyfile}", "tls_version tlsv1.2"]),
        "allow_anonymous false",
        f"password_file {directory / 'passwd'}",
        f"acl_file {directory / 'acl'}",
        "persistence true",
        f"persistence_location {data}/",
        "autosave_interval 10",
        # The server's persistent session holds what arrives while it is down; 1000 (the default) is a few
        # minutes of a big tournament.
        "max_queued_messages 1000000",
        "max_inflight_messages 100",
        f"log_dest file {directory / 'mosquitto.log'}",
        "log_type error",
        "log_type warning",
        "log_type notice",
    ]
    conf = directory / "mosquitto.conf"
    conf.write_text("\n".join(lines) + "\n")
    return conf


@dataclass(frozen=True)
class TlsListener:
    """A TLS listener: the port, the broker's certificate (with its chain) and its private key (PEM files)."""

    port: int
    certfile: Path
    keyfile: Path


def free_port() -> int:
    """A port the kernel says is free on the loopback interface now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _listens(port: int) -> bool:
    with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
        return True
    return False


@dataclass
class Mosquitto:
    """A real mosquitto on a loopback port with per-table users, an ACL and persistence (tests, benchmarks)."""

    directory: Path
    passwords: dict[str, str]
    tables: tuple[str, ...]
    port: int = 0
    process: subprocess.Popen[bytes] | None = None
    tls: TlsListener | None = None  # a second listener with TLS (tests of the tables' TLS)

    @classmethod
    def for_tables(cls, directory: Path, tables: Iterable[str]) -> Mosquitto:
        tables = tuple(tables)
        passwords = {SERVER_USER: secrets.token_hex(8)}
        passwords.update({table_user(t): secrets.token_hex(8) for t in tables})
        return cls(directory, passwords, tables, free_port())

    def start(self) -> Mosquitto:
        binary = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
        conf = write_broker_config(self.directory, self.passwords, self.tables, port=self.port, bind="127.0.0.1",
                                   as_root=os.geteuid() == 0, tls=self.tls)
        self.process = subprocess.Popen([binary, "-c", str(conf)], stdout=subprocess.DEVNULL,
                                        stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 10.0
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                log = (self.directory / "mosquitto.log")
                raise RuntimeError(f"mosquitto exited: {log.read_text() if log.exists() else ''}")
            if all(_listens(port) for port in (self.port, *([] if self.tls is None else [self.tls.port]))):
                return self
            time.sleep(0.02)
        raise RuntimeError("mosquitto did not listen within 10 s")

    def stop(self) -> None:
        """Stop it the polite way (SIGTERM: it saves its persistence file first)."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None

    def restart(self) -> None:
        self.stop()
        self.start()

    def __enter__(self) -> Mosquitto:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
