"""The table's feed against a real broker: refusals are known, the outbox survives a table restart, doctor."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from tablepi.app.doctor import Status, check_feed
from tablepi.config import Config
from tablepi.feed.broker import Mosquitto
from tablepi.feed.outbox import Cursor
from tablepi.notices import Notice, NoticeCode
from tests.tournament.conftest import table_feed
from tests.tournament.simulate import SimulatedTable
from tests.waits import wait_until

pytestmark = pytest.mark.slow


def test_a_publish_the_acl_refuses_is_not_acknowledged_and_the_table_is_told(broker: Mosquitto,
                                                                                tmp_path: Path) -> None:
    # Table 1's credentials, but configured as table 2: the ACL refuses its events (MQTT v5 PUBACK 135).
    wrong = replace(table_feed(broker, "1"), table="2", username="table-1")
    table = SimulatedTable("2", tmp_path / "t", wrong).connect()
    try:
        table.new_match(5)
        for _ in range(20):
            table.step()
        assert table.feed is not None
        wait_until(lambda: table.feed is not None and table.feed.health.refused > 0, "a refusal")
        assert "Not authorized" in table.feed.health.problem
        table.drain()
        assert any(isinstance(n, Notice) and n.code is NoticeCode.FEED_PROBLEM for n in table.app.notices)
        assert table.feed.backlog > 0  # still in the outbox: nothing was taken for delivered
    finally:
        table.close()
    cursor = Cursor.load(tmp_path / "t" / "feed-cursor.json")
    assert all(j.acked < 1 for j in cursor.journals.values())


def test_after_a_table_restart_only_the_unacknowledged_rest_is_sent(broker: Mosquitto, tmp_path: Path) -> None:
    feed = table_feed(broker, "1")
    table = SimulatedTable("1", tmp_path / "t", feed).connect()
    table.new_match(3)
    for _ in range(40):
        table.step()
    assert table.feed is not None and table.feed.wait_sent(10)
    first, sent = table.feed.health.published, len(table.journaled.journal)
    table.disconnect()
    for _ in range(40):  # played with the network down
        table.step()
    journaled = len(table.journaled.journal)
    table.close()
    again = SimulatedTable("1", tmp_path / "t", feed)  # the table restarts: journal and cursor from disk
    try:
        assert len(again.journaled.journal) == journaled
        again.connect()
        assert again.feed is not None and again.feed.wait_sent(10)
        assert again.feed.health.published == journaled - sent  # what was acknowledged before is not sent again
        assert first == sent + 1  # (the header went first)
        assert journaled > sent
    finally:
        again.close()


def test_doctor_checks_the_connection_and_the_rights(broker: Mosquitto) -> None:
    good = Config(feed=table_feed(broker, "1"))
    findings = list(check_feed(good))
    assert [f.status for f in findings] == [Status.OK, Status.OK, Status.OK], findings
    bad_password = Config(feed=replace(table_feed(broker, "1"), password="nope"))
    (finding,) = check_feed(bad_password)
    assert finding.status is Status.FAIL and "username and password" in finding.fix
    other_table = Config(feed=replace(table_feed(broker, "1"), table="3", username="table-1"))
    assert [f.status for f in check_feed(other_table)] == [Status.OK, Status.FAIL, Status.OK]
    off = Config()
    assert [f.status for f in check_feed(off)] == [Status.OK]
