"""sd_notify against a real AF_UNIX datagram socket, as systemd would listen."""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from tablepi.sdnotify import Notifier, NotifyError


@pytest.fixture
def listener() -> Iterator[tuple[socket.socket, str]]:
    # A short directory: AF_UNIX paths are limited to about 107 bytes.
    import tempfile

    with tempfile.TemporaryDirectory(prefix="sdn") as tmp:
        path = str(Path(tmp) / "notify")
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        sock.bind(path)
        sock.settimeout(2)
        try:
            yield sock, path
        finally:
            sock.close()


def received(sock: socket.socket) -> str:
    return sock.recv(4096).decode()


def test_ready_watchdog_status_stopping_arrive_as_datagrams(listener: tuple[socket.socket, str]) -> None:
    sock, path = listener
    with Notifier(env={"NOTIFY_SOCKET": path}) as n:
        assert n.enabled
        assert n.ready("4 readers, journal replayed")
        assert received(sock) == "READY=1\nSTATUS=4 readers, journal replayed"
        assert n.watchdog()
        assert received(sock) == "WATCHDOG=1"
        assert n.status("trick 3 of 6")
        assert received(sock) == "STATUS=trick 3 of 6"
        assert n.stopping()
        assert received(sock) == "STOPPING=1"


def test_abstract_namespace_socket() -> None:
    name = f"tablepi-test-{os.getpid()}"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(b"\0" + name.encode())
    sock.settimeout(2)
    try:
        with Notifier(env={"NOTIFY_SOCKET": "@" + name}) as n:
            assert n.ready()
            assert received(sock) == "READY=1"
    finally:
        sock.close()


def test_without_notify_socket_everything_is_a_quiet_no_op() -> None:
    n = Notifier(env={})
    assert not n.enabled
    assert n.watchdog_interval is None
    assert not n.ready()
    assert not n.watchdog()
    n.close()
    n.close()


def test_vanished_socket_does_not_raise(tmp_path: Path) -> None:
    n = Notifier(env={"NOTIFY_SOCKET": str(tmp_path / "gone")})
    assert n.enabled
    assert not n.watchdog()
    n.close()


def test_close_is_idempotent_and_notifier_reopens(listener: tuple[socket.socket, str]) -> None:
    sock, path = listener
    n = Notifier(env={"NOTIFY_SOCKET": path})
    assert n.watchdog()
    n.close()
    n.close()
    assert n.watchdog()
    assert received(sock) == "WATCHDOG=1"
    assert received(sock) == "WATCHDOG=1"
    n.close()


def test_relative_notify_socket_is_a_configuration_error() -> None:
    with pytest.raises(NotifyError, match="NOTIFY_SOCKET"):
        Notifier(env={"NOTIFY_SOCKET": "relative/path"})
    assert issubclass(NotifyError, OSError)


def test_multiline_value_is_refused(listener: tuple[socket.socket, str]) -> None:
    _, path = listener
    with Notifier(env={"NOTIFY_SOCKET": path}) as n, pytest.raises(ValueError, match="one line"):
        n.status("two\nlines")


def test_watchdog_interval_is_half_of_watchdog_usec_for_this_process() -> None:
    assert Notifier(env={"WATCHDOG_USEC": "30000000"}).watchdog_interval == 15.0
    mine = {"WATCHDOG_USEC": "10000000", "WATCHDOG_PID": str(os.getpid())}
    assert Notifier(env=mine).watchdog_interval == 5.0
    other = {"WATCHDOG_USEC": "10000000", "WATCHDOG_PID": str(os.getpid() + 1)}
    assert Notifier(env=other).watchdog_interval is None
    with pytest.raises(NotifyError, match="WATCHDOG_USEC"):
        Notifier(env={"WATCHDOG_USEC": "soon"})
