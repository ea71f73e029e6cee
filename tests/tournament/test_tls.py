"""The feed over TLS: a real mosquitto TLS listener on a loopback port, certificates made for the test (openssl).

A table that trusts the broker's CA publishes over TLS and the server (over TLS too) rebuilds its match; a table
given another CA is refused, and says so in one line; ``tablepi doctor`` tells the two apart.
"""

from __future__ import annotations

import logging
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from tablepi.app.doctor import Status, check_feed
from tablepi.config import Config
from tablepi.feed.broker import Mosquitto, TlsListener, free_port
from tablepi.feed.config import FeedConfig
from tablepi.notices import Notice, NoticeCode
from tests.tournament.conftest import TABLES, Tournament, table_feed, tournament_config
from tests.tournament.simulate import SimulatedTable, standings_from_journals
from tests.waits import wait_until

pytestmark = pytest.mark.slow

CUP = """
[tournament]
name = "TLS cup"
format = "pairs"
round = "deals"
deals = 1
rounds = 1
pairs = [["Anna", "Jos"], ["Marie", "Pit"]]
"""


def _openssl(*args: str | Path, cwd: Path) -> None:
    subprocess.run(["openssl", *map(str, args)], cwd=cwd, check=True, capture_output=True, timeout=30)


def make_ca(directory: Path, name: str) -> Path:
    """A self-signed CA (EC P-256: quick to make); returns its certificate (the key is beside it)."""
    directory.mkdir(parents=True, exist_ok=True)
    _openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
             "-keyout", f"{name}.key", "-out", f"{name}.pem", "-days", "2", "-subj", f"/CN=tablepi test {name}",
             cwd=directory)
    return directory / f"{name}.pem"


def make_broker_cert(directory: Path, ca: Path) -> tuple[Path, Path]:
    """The broker's certificate for 127.0.0.1 (and localhost), signed by ``ca``; (certificate, key)."""
    (directory / "broker.ext").write_text("subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\n"
                                          "extendedKeyUsage=serverAuth\n")
    _openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout",
             "broker.key", "-out", "broker.csr", "-subj", "/CN=127.0.0.1", cwd=directory)
    _openssl("x509", "-req", "-in", "broker.csr", "-CA", ca, "-CAkey", ca.with_suffix(".key"), "-CAcreateserial",
             "-out", "broker.pem", "-days", "2", "-extfile", "broker.ext", cwd=directory)
    return directory / "broker.pem", directory / "broker.key"


@pytest.fixture
def certs(tmp_path: Path) -> tuple[Path, Path, Path, Path]:
    """(the broker's CA, another CA, the broker's certificate, its key)."""
    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed (scripts/setup.sh installs it)")
    directory = tmp_path / "certs"
    ca = make_ca(directory, "ca")
    other = make_ca(directory, "other-ca")
    cert, key = make_broker_cert(directory, ca)
    return ca, other, cert, key


@pytest.fixture
def tls_broker(tmp_path: Path, certs: tuple[Path, Path, Path, Path]) -> Iterator[Mosquitto]:
    _, _, cert, key = certs
    broker = Mosquitto.for_tables(tmp_path / "broker", TABLES)
    broker.tls = TlsListener(free_port(), cert, key)
    with broker:
        yield broker


def tls_feed(broker: Mosquitto, table: str, ca: Path) -> FeedConfig:
    assert broker.tls is not None
    return replace(table_feed(broker, table), tls=True, ca_file=ca, port=broker.tls.port)


def test_a_table_publishes_over_tls_and_the_server_rebuilds_its_deal(
        tls_broker: Mosquitto, certs: tuple[Path, Path, Path, Path], tmp_path: Path) -> None:
    ca = certs[0]
    config = tournament_config(tls_broker, tmp_path, CUP)
    assert tls_broker.tls is not None
    config = replace(config, broker=replace(config.broker, tls=True, ca_file=ca, port=tls_broker.tls.port))
    t = Tournament(tls_broker, tmp_path, config)
    try:
        for name, table in list(t.tables.items()):  # the tables too: over TLS only
            table.close()
            t.tables[name] = SimulatedTable(name, tmp_path / f"tls-{name}", tls_feed(tls_broker, name, ca)).connect()
        t.start_round(1)  # the seating reached the table over TLS
        t.play_all()
        t.settle()
        expected = standings_from_journals(t.config, t.server.rounds, t.tables.values(), t.server.byes)
        assert [(s.name, s.total) for s in t.server.standings()] == [(s.name, s.total) for s in expected]
        assert any(s.total.points for s in expected)
    finally:
        t.close()
    assert [f.status for f in check_feed(Config(feed=tls_feed(tls_broker, "1", ca)))] == [Status.OK] * 3


def test_a_table_with_another_ca_is_refused_in_one_clear_line(
        tls_broker: Mosquitto, certs: tuple[Path, Path, Path, Path], tmp_path: Path,
        caplog: pytest.LogCaptureFixture) -> None:
    other = certs[1]
    table = SimulatedTable("1", tmp_path / "t", tls_feed(tls_broker, "1", other))
    with caplog.at_level(logging.WARNING, logger="tablepi.feed"):
        table.connect()
        try:
            table.new_match(4)
            for _ in range(20):
                table.step()
            assert table.feed is not None
            wait_until(lambda: table.feed is not None and "not trusted" in table.feed.health.problem, "the TLS refusal")
            wait_until(lambda: False if table.feed is None else table.feed.backlog > 0, "a backlog")
            failed: list[object] = []  # paho retries every second meanwhile: the line is not repeated
            client = table.feed.client
            report = client.on_connect_fail
            client.on_connect_fail = lambda *args: (failed.append(args), report(*args))
            wait_until(lambda: len(failed) >= 2, "paho to try twice more")
            assert table.feed.health.acknowledged == 0 and not table.feed.connected
            table.drain()
            assert any(isinstance(n, Notice) and n.code is NoticeCode.FEED_PROBLEM
                       and "not trusted" in str(n.param("text")) for n in table.app.notices)
        finally:
            table.close()
    lines = [r.getMessage() for r in caplog.records if r.name.startswith("tablepi.feed")
             and r.levelno >= logging.WARNING]
    assert len(lines) == 1, lines
    assert "certificate verify failed" in lines[0] and "feed.ca_file" in lines[0]
    (finding,) = check_feed(Config(feed=tls_feed(tls_broker, "1", other)))
    assert finding.status is Status.FAIL and "not trusted" in finding.what and "ca_file" in finding.fix
