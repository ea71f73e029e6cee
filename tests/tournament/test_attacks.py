"""The tournament attacked the way a mischievous player can: one table's broker password (it sits on the Pi under
the table) and the bar's network. A real mosquitto on the shipped configuration, the real tables' code path, the
real server. After each attack the standings equal those computed from the tables' own journals, and the
director's dashboard says what happened."""

from __future__ import annotations

import json
import os
import signal
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from paho.mqtt.client import Client
from paho.mqtt.enums import CallbackAPIVersion, MQTTProtocolVersion

from tablepi.app.feedlines import FeedLines
from tablepi.config import DisplayConfig
from tablepi.display.scene import Scene
from tablepi.display.viewmodel import build_view
from tablepi.errors import ConfigError
from tablepi.feed.broker import Mosquitto, table_user
from tablepi.feed.messages import MAX_PAYLOAD, Seating
from tablepi.feed.outbox import read_journal_file
from tablepi.journal.record import RecordHeader, event_to_line
from tablepi.players import MAX_NAME, check_name
from tablepi.rules.house import HouseRules
from tablepi.rules.seats import Seat
from tablepi.table import TablePhase
from tablepi.table.simulate import simulate_match
from tablepi.table.state import TableConfig
from tablepi.tournament.config import parse_tournament_config
from tablepi.tournament.server import TournamentError, TournamentServer
from tablepi.tournament.standings import Score
from tablepi.web.serve import WebServer
from tests.tournament.conftest import Tournament, table_feed
from tests.tournament.mqttproxy import MqttProxy
from tests.tournament.simulate import SimulatedTable, standings_from_journals
from tests.tournament.test_director import get, login, post
from tests.waits import wait_until

CUP = """
[tournament]
name = "Attack cup"
format = "pairs"
round = "deals"
deals = 2
rounds = 3
pairs = [["Anna", "Jos"], ["Marie", "Pit"], ["Lis", "Ben"], ["Tom", "Eva"]]
"""


def scores(ranked: list[Any]) -> list[tuple[str, int, int, int]]:
    return [(s.name, s.total.match_points, s.total.lines, s.total.points) for s in ranked]


def check(t: Tournament) -> None:
    """Nothing lost, nothing forged: the server's standings are the tables' own journals'."""
    t.settle()
    expected = scores(standings_from_journals(t.config, t.server.rounds, t.tables.values(), t.server.byes))
    assert scores(t.server.standings()) == expected
    assert any(row[3] > 0 for row in expected)


class Attacker:
    """Table 1's credentials in the wrong hands: any client id, any payload, on table 1's topics."""

    def __init__(self, broker: Mosquitto, client_id: str = "mischief", table: str = "1") -> None:
        self.table = table
        self.client = Client(CallbackAPIVersion.VERSION2, client_id=client_id, protocol=MQTTProtocolVersion.MQTTv5)
        self.client.username_pw_set(table_user(table), broker.passwords[table_user(table)])
        self.client.connect("127.0.0.1", broker.port)
        self.client.loop_start()
        wait_until(self.client.is_connected, "the attacker to connect")

    def send(self, payload: bytes, kind: str = "events") -> None:
        """Publish until the broker has it (the broker drops this client whenever table 1 itself reconnects:
        one password, one session; both come back)."""
        def published() -> bool:
            if not self.client.is_connected():
                return False
            info = self.client.publish(f"tablepi/v1/tables/{self.table}/{kind}", payload, qos=1)
            try:  # both raise when the broker dropped this client meanwhile: then publish again
                info.wait_for_publish(5)
                return info.is_published()
            except (RuntimeError, ValueError):
                return False

        wait_until(published, "the attacker's message to reach the broker", every=0.05)

    def send_json(self, obj: dict[str, Any], kind: str = "events") -> None:
        self.send(json.dumps(obj).encode(), kind)

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


@pytest.fixture
def attacker(broker: Mosquitto) -> Iterator[Callable[..., Attacker]]:
    made: list[Attacker] = []

    def make(client_id: str = "mischief", table: str = "1") -> Attacker:
        made.append(Attacker(broker, client_id, table))
        return made[-1]

    yield make
    for one in made:
        one.close()


def forged_journal(jid: str, table: str, number: int, seed: int) -> list[dict[str, Any]]:
    """A complete, valid journal of a whole match, made up: what a table's password can publish."""
    script = simulate_match(seed)
    header = RecordHeader(HouseRules(), Seat.N, TableConfig())
    out: list[dict[str, Any]] = [{"v": 1, "kind": "header", "table": table, "journal": jid, "seq": 0, "index": 99,
                                  "round": number, "header": header.to_json()}]
    out += [{"v": 1, "kind": "event", "table": table, "journal": jid, "seq": seq, "round": number,
             "event": json.loads(event_to_line(event))} for seq, event in enumerate(script.events, start=1)]
    return out


def crash(broker: Mosquitto) -> None:
    """kill -9 the broker, with what it saved too, and start it again: what it held for the server is gone. (It
    saves every 10 s: on a loaded machine the tables' play takes longer, and a crash that lost nothing would test
    nothing.) The server subscribes again when it connects; the tables send their status again."""
    assert broker.process is not None
    os.kill(broker.process.pid, signal.SIGKILL)
    broker.process.wait()
    broker.process = None
    for saved in broker.directory.rglob("mosquitto.db"):
        saved.unlink()
    broker.start()


def dashboard(t: Tournament) -> dict[str, Any]:
    with t.server.lock:
        return t.server.dashboard()


# --- names: what the tournament sends, the table can journal --------------------------------------------------


def test_the_config_refuses_a_name_the_table_could_not_journal() -> None:
    assert check_name("Marie-Christine Weber") == "Marie-Christine Weber"  # an ordinary name (21) is taken
    long = "Marie-Christine Weber-Schmitt von und zu Luxemburg"
    assert len(long) > MAX_NAME
    with pytest.raises(ConfigError, match=rf"tournament.pairs\[0\]\[0\]: player name .* longer than {MAX_NAME}"):
        parse_tournament_config(f'[tournament]\npairs = [["{long}", "Jos"], ["A", "B"]]\n')
    with pytest.raises(ConfigError, match=r"tournament.players\[2\]"):
        parse_tournament_config(f'[tournament]\nformat = "individuals"\nplayers = ["A", "B", "{long}", "C"]\n')


def test_a_seating_keeps_only_names_the_journal_reads_back() -> None:
    """An older server (or the cursor file of one) may still hold a long name: it is cut to the bound the table's
    record reader checks, and a name it could never read makes the seating no seating at all."""
    long = "Marie-Christine Weber-Schmitt von und zu Luxemburg"
    seating = Seating.from_json({"round": 1, "table": "1", "seats": {"N": long + "  ", "S": "Jos"},
                                 "roster": [long, "Jos", "bad\x07name"]})
    for _, name in seating.names:
        assert check_name(name) == name
    assert seating.name(Seat.N) == "Marie-Christine Weber-Schmitt von und z\u2026"  # cut and marked
    assert seating.roster == ("Marie-Christine Weber-Schmitt von und z\u2026", "Jos")
    with pytest.raises(ValueError, match="control character"):
        Seating.from_json({"round": 1, "table": "1", "seats": {"N": "a\x00b"}})


# --- poison ---------------------------------------------------------------------------------------------------


@pytest.mark.slow
def test_poison_messages_are_quarantined_and_every_other_table_goes_on(
        make_tournament: Callable[..., Tournament], attacker: Callable[..., Attacker]) -> None:
    t = make_tournament(CUP)
    t.start_round(1)
    mischief = attacker()
    deep = b'{"v":1,"table":"1","journal":"x","seq":1,"event":' + b"[" * 30000 + b"]" * 30000 + b"}"
    assert len(deep) < MAX_PAYLOAD
    poison = [deep, b"\xff\xfe not text", b"[1, 2]", b'{"v": 1, "table": "2", "journal": "j", "seq": 1}',
              b'{"v": 1, "table": "1", "journal": "j", "seq": 1e400, "event": {}}',
              b'{"v": 1, "table": "1", "journal": "j", "seq": 1, "event": {"type": "place", "t": 1e308}}']
    for _ in range(120):  # more than the broker's in-flight window: nothing may wait for an acknowledgement
        for payload in poison:
            mischief.send(payload)
    mischief.send(b'{"v": 1, "table": "1", "online": 7}', "status")
    t.play_all()
    check(t)
    board = dashboard(t)
    assert board["quarantined"] >= 120 * 4
    reasons = " ".join(q["reason"] for q in board["quarantine"])
    assert "nested deeper" in reasons or "speaks for table" in reasons
    assert all(len(q["head"]) <= 300 for q in board["quarantine"])
    # and after a restart the server still receives everything (nothing is stuck in the broker for it)
    t.server.close()
    t.server = TournamentServer(t.config).start()
    t.start_round(2)
    t.play_all()
    check(t)


@pytest.mark.slow
def test_a_message_bigger_than_the_limit_is_refused_by_the_broker(
        make_tournament: Callable[..., Tournament], attacker: Callable[..., Attacker], broker: Mosquitto) -> None:
    t = make_tournament(CUP)
    t.start_round(1)
    mischief = attacker()
    dropped: list[object] = []
    mischief.client.on_disconnect = lambda *args: dropped.append(args)
    info = mischief.client.publish("tablepi/v1/tables/1/events", b"x" * (MAX_PAYLOAD * 4), qos=1)
    wait_until(lambda: dropped, "the broker to drop the client that sent it")
    t.play_all()
    check(t)
    assert t.server.counts.quarantined == 0 or all(q["size"] <= MAX_PAYLOAD for q in dashboard(t)["quarantine"])
    assert "message_size_limit" in (broker.directory / "mosquitto.conf").read_text()
    del info


# --- the server's session -------------------------------------------------------------------------------------


@pytest.mark.slow
def test_a_tables_password_cannot_take_over_the_servers_session(
        make_tournament: Callable[..., Tournament], attacker: Callable[..., Attacker]) -> None:
    t = make_tournament(CUP)
    t.start_round(1)
    for table in t.tables.values():
        table.play(until=table.clock.now + 120)
    # The id the server used before, and the id it uses now: neither is the attacker's to take.
    thieves = [attacker("tablepi-tournament-tournament"), attacker(t.server.broker.client._client_id.decode())]
    for table in t.tables.values():
        table.play(until=table.clock.now + 120)
    t.play_all()
    check(t)
    for thief in thieves:
        thief.close()
    log = (t.broker.directory / "mosquitto.log").read_text()
    assert "as tournament (" in log and "as tablepi-tournament" not in log  # ids are the users' names


@pytest.mark.slow
def test_a_tables_password_cannot_make_another_table_flap(
        make_tournament: Callable[..., Tournament], attacker: Callable[..., Attacker]) -> None:
    t = make_tournament(CUP)
    t.start_round(1)
    thief = attacker("tablepi-table-2")  # table 2's client id with table 1's password
    connected: list[object] = []
    thief.client.on_connect = lambda *args: connected.append(args)
    for n in range(1, 4):
        thief.client.reconnect()
        wait_until(lambda n=n: len(connected) >= n, "the thief to be connected again")  # type: ignore[misc]
    t.play_all()
    feed = t.tables["2"].feed
    assert feed is not None and feed.connected
    check(t)


# --- forged results -------------------------------------------------------------------------------------------


def seated_at(t: Tournament, table: str, number: int) -> set[str]:
    ts = next(ts for ts in t.server.rounds[number - 1] if ts.table == table)
    return {name for names in ts.team_map().values() for name in names}


def check_disputed(t: Tournament, disputed: set[tuple[str, int]]) -> None:
    """The standings are the tables' own journals', but a disputed round counts nothing for anyone who sat there
    (nothing forged counted, nothing real counted silently either)."""
    t.settle()
    from_journals = {s.name: s for s in standings_from_journals(t.config, t.server.rounds, t.tables.values(),
                                                                t.server.byes)}
    for s in t.server.standings():
        for number in range(1, len(t.server.rounds) + 1):
            if any(s.name in seated_at(t, table, n) for table, n in disputed if n == number):
                assert s.rounds[number] == Score(), (s.name, number)
            else:
                assert s.rounds[number] == from_journals[s.name].rounds[number], (s.name, number)
    assert {(d["table"], d["round"]) for d in t.server.disputed()} == disputed


def pick_the_tables_own(t: Tournament, web: WebServer, table: str) -> None:
    """The director, on the dashboard: of the held matches of each disputed round at ``table``, counts the one of
    the table's own journal (the test knows it from the table; the director from the times it arrived over)."""
    cookie = login(web, "Carla")
    own = t.tables[table].journal_ids()
    for h in t.server.held():
        if h["table"] == table and h["journal"] in own and "journals for table" in h["reason"]:
            assert post(web, cookie, "assign", {"table": table, "journal": h["journal"], "match": h["match"],
                                                "round": h["round"], "why": "the table's own journal"}) == (
                200, "journal assigned")


@pytest.mark.slow
def test_a_journal_forged_before_the_tables_first_trumps_never_wins_the_round(
        make_tournament: Callable[..., Tournament], attacker: Callable[..., Attacker]) -> None:
    """The attack the server once lost: a whole match for table 1's current round published before table 1 names
    its first trumps. The round is disputed — nothing of it counted, the dashboard and the standings say so —
    until the director picks the table's own journal; a restarted server keeps the choice."""
    t = make_tournament(CUP)
    t.start_round(1)  # the tables have their seating; none has named trumps yet
    mischief = attacker()
    for message in forged_journal("f" * 32, "1", 1, 11):
        mischief.send_json(message)
    wait_until(lambda: t.server.feeds.get("1") is not None and "f" * 32 in t.server.feeds["1"].journals
               and t.server.feeds["1"].journals["f" * 32].matches != [], "the forged journal to arrive first")
    t.play_all()
    check_disputed(t, {("1", 1)})
    board = dashboard(t)
    assert "disputed" in next(r for r in board["tables"] if r["table"] == "1")["attention"]
    held = {h["journal"]: h for h in board["held"]}
    assert "2 journals for table 1 round 1" in held["f" * 32]["reason"]
    real = t.tables["1"].journaled.journal.id
    assert "2 journals for table 1 round 1" in held[real]["reason"] and held[real]["deals"] > 0
    assert [d["table"] for d in json.loads(t.server.hub.get("standings")[1])["disputed"]] == ["1"]
    assert "1" in t.server.unfinished()
    web = WebServer(t.server).start()
    try:
        status, page = get(web, "/print")
        assert status == 200 and "round 1 disputed: the director decides" in page
        pick_the_tables_own(t, web, "1")
    finally:
        web.close()
    check(t)
    assert [(h["journal"], h["reason"]) for h in t.server.held()] == [
        ("f" * 32, f"table 1's round 1 is journal {real[:12]} match 1")]
    t.server.close()
    again = TournamentServer(t.config)
    try:
        assert scores(again.standings()) == scores(t.server.standings()) and again.disputed() == []
    finally:
        again.close()


@pytest.mark.slow
def test_a_forged_journal_is_held_for_the_director_never_counted(
        make_tournament: Callable[..., Tournament], attacker: Callable[..., Attacker]) -> None:
    """Forgeries after the table's own match: a second claim on a round disputes it all the same (the server
    cannot tell which came from the table); the director picks, and the next round waits for that."""
    t = make_tournament(CUP)
    t.start_round(1)
    t.play_all()
    check(t)
    mischief = attacker()
    web = WebServer(t.server).start()
    try:
        # a complete match for round 1 (already played there) and for round 3 (not started); one for a round the
        # table was not seated in, by another table's name, is refused by the ACL
        for jid, number in (("f" * 32, 1), ("e" * 32, 3)):
            for message in forged_journal(jid, "1", number, 11):
                mischief.send_json(message)
        wait_until(lambda: len(t.server.held()) >= 3, "the forged journals to be held")
        check_disputed(t, {("1", 1)})
        with pytest.raises(TournamentError, match="not finished at table"):
            t.start_round(2)
        pick_the_tables_own(t, web, "1")
        check(t)
        t.start_round(2)
        t.play_all()
        for message in forged_journal("d" * 32, "1", 2, 12):  # round 2 once played there
            mischief.send_json(message)
        # a second, different event under the real journal's own id
        real = t.tables["1"].journaled.journal.id
        mischief.send_json({"v": 1, "kind": "event", "table": "1", "journal": real, "seq": 3, "round": 2,
                            "event": {"type": "button", "t": 1.0, "name": "undo"}})
        wait_until(lambda: len(t.server.held()) >= 4, "the forged journals to be held")
        check_disputed(t, {("1", 2)})
        held = {h["journal"][:1]: h for h in t.server.held()}
        assert "has not started" in held["e"]["reason"]
        assert "table 1's round 1 is journal" in held["f"]["reason"] and held["f"]["deals"] > 0
        assert "2 journals for table 1 round 2" in held["d"]["reason"]
        board = dashboard(t)
        row = next(r for r in board["tables"] if r["table"] == "1")
        assert "conflict" in row["attention"] and row["conflicts"] == 1 and "disputed" in row["attention"]
        assert any("two senders" in q["reason"] for q in board["quarantine"])
        pick_the_tables_own(t, web, "1")
    finally:
        web.close()
    check(t)
    assert {h["journal"][:1] for h in t.server.held()} == {"e", "f", "d"}
    assert [a["what"] for a in t.server.audit].count("assign") == 2


# --- lost events ----------------------------------------------------------------------------------------------


@pytest.mark.slow
def test_a_broker_crash_with_the_server_down_loses_nothing(
        make_tournament: Callable[..., Tournament], broker: Mosquitto) -> None:
    """The broker acknowledges events to the tables and crashes before it saved them for the server's session:
    the server sees the gap (or the tail the tables' status names), asks, and the tables resend from their
    journals."""
    t = make_tournament(CUP)
    t.start_round(1)
    for table in t.tables.values():
        table.play(until=table.clock.now + 90)
    t.settle()
    t.server.close()
    for table in t.tables.values():
        table.play(until=table.clock.now + 90)
        assert table.feed is not None and table.feed.wait_sent(20)
    crash(broker)
    t.server = TournamentServer(t.config).start()
    t.play_all()
    check(t)
    assert sum(table.feed.outbox.resent for table in t.tables.values() if table.feed is not None) > 0
    assert not any(row["gaps"] for row in dashboard(t)["tables"])


@pytest.mark.slow
def test_a_broker_crash_with_the_server_down_loses_nothing_of_a_match_archived_since(
        make_tournament: Callable[..., Tournament], broker: Mosquitto) -> None:
    """The same crash after the tables began their next match: what the broker lost is the tail of a match they
    have archived since. Their status names the last seq of their earlier journals too, so the server sees the
    tail is missing, asks, and they send it again from their archives."""
    t = make_tournament(CUP)
    t.start_round(1)
    for table in t.tables.values():
        table.play(until=table.clock.now + 60)
    t.settle()
    t.server.close()
    archived: dict[str, tuple[str, int]] = {}
    for table in t.tables.values():
        table.play(until=table.clock.now + 90)
        table.new_match(int(table.name) + 7)  # the first match goes to the archive
        table.play(until=table.clock.now + 30)
        found = read_journal_file(table.journal_files()[-2], 0)
        assert found is not None
        archived[table.name] = (found[0], found[2][-1][0])
        assert table.feed is not None and table.feed.wait_sent(20)
    crash(broker)
    t.server = TournamentServer(t.config).start()

    def complete() -> bool:
        with t.server.lock:
            for name, (jid, last) in archived.items():
                feed = t.server.feeds.get(name)
                if feed is None or jid not in feed.journals or feed.journals[jid].applied != last:
                    return False
            return True

    wait_until(complete, "the archived matches' lost tails, sent again", 90)
    # Each table's second match, begun under the same seating in a journal of its own, claims no round: the table
    # claimed round 1 with its first, and that one counts.
    check(t)
    assert not t.server.disputed()
    assert not any(row["gaps"] for row in dashboard(t)["tables"])


def play_a_deal(table: SimulatedTable) -> None:
    """The table's scripted players play until a deal is scored and its cards are off the zones."""
    while table.playing and not table.journaled.state.match.slate:
        table.step()
    table.finish_deal()
    assert table.journaled.state.match.slate


@pytest.mark.slow
def test_a_table_that_plays_on_under_the_same_seating_claims_its_round_once(
        make_tournament: Callable[..., Tournament], broker: Mosquitto) -> None:
    """Players finish their round's match and play on while the next round is drawn: a new match, in a journal of
    its own with the archive, under the same seating. The table claimed the round with its first match; the next
    ones are casual, also after the table restarts in the middle of one. The round is not disputed, its first
    match counts, and the next round is drawn without the director."""
    t = make_tournament(CUP)
    t.start_round(1)
    t.play_all()
    table = t.tables["1"]
    assert table.journaled.state.phase is TablePhase.MATCH_OVER
    table.new_match(77)  # the players play on
    play_a_deal(table)
    t.settle()
    assert table.feed is not None
    check(t)
    assert not t.server.disputed()
    wait_until(lambda: (table.drain() or True) and table.app.round_played == 1,  # type: ignore[func-returns-value]
               "the table to say its match does not count")
    rows = {row["table"]: row for row in dashboard(t)["tables"]}
    assert "casual" in rows["1"]["attention"] and "casual" not in rows["2"]["attention"]
    # restarted in the middle of its second match, the table plays a third: a casual one too
    table.close()
    table = t.tables["1"] = SimulatedTable("1", table.directory, table_feed(broker, "1")).connect()
    table.matches = 2
    wait_until(lambda: (table.drain() or True) and table.app.round_played == 1,  # type: ignore[func-returns-value]
               "the restarted table to say so too")
    table.new_match(78)
    lines = FeedLines()
    lines.seating, lines.played = table.app.seating, table.app.round_played
    settings = DisplayConfig(language="en")
    banner = build_view(Scene(table.journaled.state, settings, seating=lines.scene_seating())).warning
    assert banner is not None
    assert banner.text == "Round 1 — table 1: the round's match is played; this match does not count"
    play_a_deal(table)
    assert len(table.journal_ids()) == 3
    check(t)
    assert not t.server.disputed()
    assert not t.server.unfinished()
    held = [h for h in t.server.held() if h["table"] == "1"]
    assert not held, held
    t.start_round(2)  # no director needed
    wait_until(lambda: (table.drain() or True) and table.app.round_played is None,  # type: ignore[func-returns-value]
               "the table to count its match of the new round")
    t.play_all()
    check(t)
    assert not t.server.disputed()
    assert not any("casual" in row["attention"] for row in dashboard(t)["tables"])


@pytest.mark.slow
def test_a_lost_cursor_file_resends_the_archive_too(make_tournament: Callable[..., Tournament], broker: Mosquitto,
                                                    tmp_path: Path) -> None:
    """The network goes in the middle of table 1's match; the match ends and is archived as the next begins;
    the table restarts and its cursor file is lost. The rebuilt cursor sends the archived match as well as the
    current one, and the server completes the round."""
    t = make_tournament(CUP)
    proxy = MqttProxy(broker.port, duplicate=0.0, reorder=0.0)
    try:
        t.tables["1"].close()
        table = t.tables["1"] = SimulatedTable("1", tmp_path / "proxied-1",
                                               replace(table_feed(broker, "1"), port=proxy.port)).connect()
        t.start_round(1)
        table.play(until=table.clock.now + 120)
        assert table.feed is not None and table.feed.wait_sent(20)
        proxy.close()  # the network goes
        table.play()
        for other in t.tables.values():
            other.play()
        table.new_match(4242)  # the round's match goes to the archive
        table.play(until=table.clock.now + 30)
        reference = scores(standings_from_journals(t.config, t.server.rounds, t.tables.values(), t.server.byes))
        table.close()
    finally:
        proxy.close()
    (table.directory / "feed-cursor.json").unlink()
    t.tables["1"] = SimulatedTable("1", table.directory, table_feed(broker, "1")).connect()
    wait_until(lambda: scores(t.server.standings()) == reference, "the archived match to reach the server")
    assert any(row[3] > 0 for row in reference)


@pytest.mark.slow
def test_a_lost_cursor_file_does_not_claim_the_round_again(make_tournament: Callable[..., Tournament],
                                                           broker: Mosquitto) -> None:
    """The players finish their round's match and begin a revanche; the table restarts and its cursor file is
    lost (deleted, a damaged card). Which match claimed the round is in the journals themselves (the round of the
    seating is journaled with it), so the rebuilt cursor decides as the lost one would have: the revanche and the
    matches after it are casual, the round is not disputed, and the standings equal the journals."""
    t = make_tournament(CUP)
    t.start_round(1)
    t.play_all()
    table = t.tables["1"]
    table.new_match(77)  # the revanche
    play_a_deal(table)
    t.settle()
    table.close()
    (table.directory / "feed-cursor.json").unlink()
    table = t.tables["1"] = SimulatedTable("1", table.directory, table_feed(broker, "1")).connect()
    table.matches = 2
    table.new_match(78)  # the players play on: the revanche is left, a third match begins
    play_a_deal(table)
    assert len(table.journal_ids()) == 3
    t.settle()
    assert not t.server.disputed()
    assert not [h for h in t.server.held() if h["table"] == "1"]
    check(t)
    wait_until(lambda: (table.drain() or True) and table.app.round_played == 1,  # type: ignore[func-returns-value]
               "the restarted table to say its match does not count")
    t.start_round(2)  # no director needed
    t.play_all()
    check(t)
    assert not t.server.disputed()


@pytest.mark.slow
def test_a_round_match_abandoned_unfinished_is_never_counted_silently(make_tournament: Callable[..., Tournament],
                                                                      broker: Mosquitto) -> None:
    """The players begin their round's match, abandon it after a deal (*New match* before the round's two deals
    were played) and play it again. The abandoned match is not the round's played: the table claims the round
    again with the next one (its screen does not say "does not count"), and the server holds both for the director
    with a reason that says which was left unfinished, at which deal — never counting either silently. The
    director counts the one played to its end; the standings then equal the journals."""
    t = make_tournament(CUP)
    t.start_round(1)
    table = t.tables["1"]
    play_a_deal(table)
    table.new_match(55)  # abandoned after one deal of the round's two
    t.play_all()
    t.settle()
    first, second = [found[0] for path in table.journal_files() if (found := read_journal_file(path, 0))]
    table.drain()
    assert table.app.round_played is None  # the replayed match counts for the round, as far as the table knows
    check_disputed(t, {("1", 1)})
    held = {h["journal"]: h for h in t.server.held() if h["table"] == "1"}
    assert set(held) == {first, second}
    left = f"journal {first[:12]} was left unfinished at deal 2 (1 scored) before journal {second[:12]} began"
    assert all(left in h["reason"] and "2 journals for table 1 round 1" in h["reason"] for h in held.values())
    web = WebServer(t.server).start()
    try:
        cookie = login(web, "Carla")
        assert post(web, cookie, "assign", {"table": "1", "journal": second, "match": held[second]["match"],
                                            "round": 1, "why": "the first was abandoned"}) == (200, "journal assigned")
    finally:
        web.close()
    check(t)
    assert not t.server.disputed()
    assert [h["journal"] for h in t.server.held() if h["table"] == "1"] == [first]
    assert table.app.seating is not None and table.app.seating.deals == 2  # the round's length, journaled with it
