"""The tournament's pure parts: replay in any order, standings, seating, configuration."""

from __future__ import annotations

import json
import random
import time

import pytest

from tablepi.errors import ConfigError
from tablepi.feed.replay import TableFeed
from tablepi.journal.record import RecordHeader, event_to_line
from tablepi.rules.house import HouseRules
from tablepi.rules.seats import Seat, Team
from tablepi.table import Table
from tablepi.table.simulate import simulate_match
from tablepi.table.state import TableConfig
from tablepi.tournament.config import Pair, RoundLength, parse_tournament_config
from tablepi.tournament.seating import (
    History,
    first_round_pairs,
    first_round_players,
    swiss_pairs,
    swiss_players,
)
from tablepi.tournament.standings import Adjustment, Score, TableRound, standings, table_scores


def feed_messages(seed: int) -> tuple[list[dict[str, object]], Table]:
    script = simulate_match(seed, mistakes=True)
    header = RecordHeader(HouseRules(), Seat.N, TableConfig())
    messages: list[dict[str, object]] = [
        {"v": 1, "kind": "header", "table": "1", "journal": "j1", "seq": 0, "index": 1, "round": 1,
         "header": header.to_json()}]
    for seq, event in enumerate(script.events, start=1):
        messages.append({"v": 1, "kind": "event", "table": "1", "journal": "j1", "seq": seq, "round": 1,
                         "event": json.loads(event_to_line(event))})
    return messages, Table.replay(script.events)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_replay_in_any_order_with_duplicates_equals_the_table(seed: int) -> None:
    messages, table = feed_messages(seed)
    rng = random.Random(seed)
    delivered = messages + rng.sample(messages, len(messages) // 3)  # a third delivered twice
    rng.shuffle(delivered)
    feed = TableFeed("1")
    for message in delivered:
        feed.receive(message, 0.0)
    journal = feed.journals["j1"]
    assert journal.waiting == 0 and journal.applied == len(messages) - 1
    assert journal.state == table.state
    (match,) = journal.matches
    assert match.slate == table.state.match.slate and match.over and match.round == 1


def test_a_gap_holds_what_follows_until_it_is_filled() -> None:
    messages, _ = feed_messages(1)
    feed = TableFeed("1")
    for message in messages[:10] + messages[11:30]:
        feed.receive(message, 0.0)
    journal = feed.journals["j1"]
    assert journal.applied == 9 and journal.waiting == 19
    feed.receive(messages[10], 0.0)
    assert journal.applied == 29 and journal.waiting == 0


def _entry_table(seed: int) -> Table:
    return Table.replay(simulate_match(seed).events)


def test_scores_of_a_partie_and_of_a_fixed_number_of_deals() -> None:
    state = _entry_table(4).state
    played = TableRound(1, "1", {Team.NS: ("A",), Team.EW: ("B",)}, state.match.slate, 9, True)
    scores, complete = table_scores(played, RoundLength.PARTIE, 0)
    assert complete
    winner = state.match.winner
    assert winner is not None
    assert scores[winner].match_points == 2 and scores[winner.other].match_points == 0
    assert scores[winner].lines == -scores[winner.other].lines > 0
    assert scores[Team.NS].points == sum(e.result.points[Team.NS] for e in state.match.slate)  # claims end early
    two, complete = table_scores(played, RoundLength.DEALS, 2)
    assert complete and two[Team.EW].points == sum(e.result.points[Team.EW] for e in state.match.slate[:2])
    unfinished = TableRound(1, "1", {Team.NS: ("A",), Team.EW: ("B",)}, state.match.slate[:1], 9, False)
    partial, complete = table_scores(unfinished, RoundLength.DEALS, 2)
    assert not complete and partial[Team.NS].match_points == partial[Team.EW].match_points == 0


def test_ranking_ties_drop_worst_and_corrections() -> None:
    s = _entry_table(4).state
    r1 = TableRound(1, "1", {Team.NS: ("A",), Team.EW: ("B",)}, s.match.slate, 9, True)
    r2 = TableRound(2, "1", {Team.NS: ("B",), Team.EW: ("A",)}, s.match.slate, 9, True)
    ranked = standings(["A", "B"], [r1, r2], RoundLength.PARTIE, 0)
    assert [x.rank for x in ranked] == [1, 1]  # each won once with the same slate: equal
    dropped = standings(["A", "B"], [r1, r2], RoundLength.PARTIE, 0, drop_worst=True)
    assert all(x.dropped is not None for x in dropped)
    assert all(x.total.match_points == 2 for x in dropped)
    fixed = standings(["A", "B"], [r1, r2], RoundLength.PARTIE, 0, adjustments=[Adjustment("B", 1, Score(1, 0, 0))])
    assert [x.name for x in fixed] == ["B", "A"] and fixed[0].rank == 1 and fixed[1].rank == 2


def test_first_round_is_seeded_and_swiss_avoids_rematches() -> None:
    pairs = [Pair(f"P{i}", (f"a{i}", f"b{i}")) for i in range(8)]
    tables = ["1", "2", "3", "4"]
    one = first_round_pairs(pairs, tables, 9)
    assert one == first_round_pairs(pairs, tables, 9) != first_round_pairs(pairs, tables, 10)
    rounds = [one]
    for _ in range(3):
        ranked = sorted(pairs, key=lambda p: p.name)
        rounds.append(swiss_pairs(ranked, tables, History.of(rounds)))
    met = [frozenset(x for team in ts.team_map().values() for x in team) for seating in rounds for ts in seating]
    assert len(met) == len(set(met))  # nobody met the same pair twice in four rounds of eight pairs
    for ts in rounds[-1]:
        assert {name for _, name in ts.seats} == {p for pair in pairs if pair.name in
                                                 (ts.team_map()[Team.NS] + ts.team_map()[Team.EW])
                                                 for p in pair.players}


def test_individuals_get_new_partners_each_round() -> None:
    players = [f"p{i}" for i in range(16)]
    tables = ["1", "2", "3", "4"]
    rounds = [first_round_players(players, tables, 3)]
    for _ in range(3):
        rounds.append(swiss_players(players, tables, History.of(rounds)))
    partners = [frozenset(team) for seating in rounds for ts in seating for team in ts.team_map().values()]
    assert len(partners) == len(set(partners))
    for seating in rounds:
        seated = [name for ts in seating for _, name in ts.seats]
        assert sorted(seated) == sorted(players)


def test_tournament_config_errors_name_the_key() -> None:
    ok = parse_tournament_config('[tournament]\nformat = "individuals"\nplayers = ["a", "b", "c", "d"]\n')
    assert ok.table_ids() == ("1",) and ok.per_table == 4
    with pytest.raises(ConfigError, match="do not fill one table"):
        parse_tournament_config('[tournament]\nformat = "individuals"\nplayers = ["a", "b", "c"]\n')
    with pytest.raises(ConfigError, match=r"tournament\.round"):
        parse_tournament_config('[tournament]\nround = "forever"\npairs = [["a", "b"], ["c", "d"]]\n')
    with pytest.raises(ConfigError, match="listed twice"):
        parse_tournament_config('[tournament]\npairs = [["a", "b"], ["a", "d"]]\n')
    with pytest.raises(ConfigError, match=r"broker\.port"):
        parse_tournament_config('[tournament]\npairs = [["a", "b"], ["c", "d"]]\n[broker]\nport = 0\n')


def test_feed_config_refuses_topic_breaking_ids() -> None:
    from pathlib import Path

    from tablepi.feed.config import FeedConfig

    with pytest.raises(ConfigError, match=r"feed\.table"):
        FeedConfig.from_mapping({"enabled": True, "table": "7/#"}, Path("."))
    with pytest.raises(ConfigError, match=r"feed\.table"):
        FeedConfig.from_mapping({"enabled": True}, Path("."))
    assert FeedConfig.from_mapping({"enabled": True, "table": "7", "tls": True}, Path(".")).port == 8883


@pytest.mark.parametrize("seed", [4, 5])
def test_the_incremental_replay_sees_what_the_whole_snapshot_says_after_every_event(seed: int) -> None:
    """The server applies events one by one without building the table's snapshot: after every event its match
    (slate, over, begun) is what the snapshot of a table that applied the same events says."""
    messages, _ = feed_messages(seed)
    feed = TableFeed("1")
    reference = Table()
    header = RecordHeader(HouseRules(), Seat.N, TableConfig())
    from tablepi.journal.record import parse_event

    previous = 0.0
    feed.receive(messages[0], 0.0)
    for seq, message in enumerate(messages[1:], start=1):
        feed.receive(message, 0.0)
        event = parse_event(message["event"], header, seq, previous)
        previous = event.time
        state = reference.apply(event)
        match = feed.journals["j1"].matches[state.match.number - 1]
        assert (match.slate, match.over) == (state.match.slate, state.match.winner is not None)
        if state.deal.trump is not None:
            assert match.started
        assert feed.journals["j1"].table is not None and feed.journals["j1"].table.trump == state.deal.trump


def test_the_server_keeps_each_tables_scores_until_the_table_changes(tmp_path: object) -> None:
    """Standings from the server's kept scores equal those computed afresh, batch after batch, in any order."""
    from pathlib import Path

    from tablepi.tournament.server import TournamentServer

    assert isinstance(tmp_path, Path)
    config = parse_tournament_config(
        '[tournament]\nformat = "pairs"\nround = "deals"\ndeals = 3\nrounds = 1\n'
        'pairs = [["A", "B"], ["C", "D"], ["E", "F"], ["G", "H"]]\n[broker]\npassword = "x"\n',
        tmp_path / "t.toml")
    server = TournamentServer(config)
    try:
        server.start_next_round("test")
        items = []
        for table, seed in (("1", 6), ("2", 7)):
            for message in feed_messages(seed)[0]:
                body = dict(message, table=table, journal=f"j{table}")
                items.append((f"tablepi/v1/tables/{table}/events", json.dumps(body).encode(), 0, 1, time.time()))
        rng = random.Random(3)
        rng.shuffle(items)
        for start in range(0, len(items), 97):
            server.receive(items[start:start + 97])
            kept = [(s.name, s.total) for s in server.standings()]
            server._scored.clear()
            assert kept == [(s.name, s.total) for s in server.standings()]
        assert any(s.total.points for s in server.standings())
    finally:
        server.close()


def _server(tmp_path: object, rounds: int = 2) -> object:
    from pathlib import Path

    from tablepi.tournament.server import TournamentServer

    assert isinstance(tmp_path, Path)
    config = parse_tournament_config(
        f'[tournament]\nformat = "pairs"\nround = "deals"\ndeals = 3\nrounds = {rounds}\n'
        'pairs = [["A", "B"], ["C", "D"], ["E", "F"], ["G", "H"]]\n[broker]\npassword = "x"\n', tmp_path / "t.toml")
    return TournamentServer(config)


def test_the_dashboard_shows_each_tables_own_round(tmp_path: object) -> None:
    """A table still playing round 1 when round 2 is started shows round 1, not the server's round."""
    from tablepi.tournament.server import TournamentServer

    server = _server(tmp_path)
    assert isinstance(server, TournamentServer)
    try:
        server.start_next_round("test")
        items = [("tablepi/v1/tables/1/events", json.dumps(m).encode(), 0, 1, time.time())
                 for m in feed_messages(2)[0][:40]]
        server.receive(items)
        server.start_next_round("test", force=True)
        rows = {row["table"]: row for row in server.dashboard()["tables"]}
        assert rows["1"]["round"] == 1 and server.table_view("1")["round"] == 1
        assert rows["2"]["round"] == 2  # no event yet: the round it is seated for
    finally:
        server.close()


def test_a_gap_is_asked_for_again_while_it_lasts(tmp_path: object) -> None:
    """Events after a hole: the server asks the table to resend from the hole (after a moment for reordering),
    again every few seconds, and the dashboard shows the gap until it is filled."""
    from tablepi.tournament.server import ASK_EVERY, GAP_WAIT, TournamentServer

    now = [1000.0]
    server = _server(tmp_path)
    assert isinstance(server, TournamentServer)
    server.clock = lambda: now[0]

    class Client:
        def __init__(self) -> None:
            self.sent: list[tuple[str, dict[str, object]]] = []

        def publish(self, topic: str, payload: bytes, qos: int = 0, retain: bool = False) -> None:
            self.sent.append((topic, json.loads(payload)))

        def disconnect(self) -> None:
            pass

        def loop_stop(self) -> None:
            pass

    client = Client()
    server.broker.client = client
    try:
        messages = feed_messages(3)[0]
        server.receive([("tablepi/v1/tables/1/events", json.dumps(m).encode(), 0, 1, now[0])
                        for i, m in enumerate(messages[:30]) if i not in (10, 11)])
        assert server.ask_again() == 0  # a moment for reordering first
        now[0] += GAP_WAIT
        assert server.ask_again() == 1
        assert client.sent[-1] == ("tablepi/v1/tables/1/resend", {"v": 1, "table": "1", "journal": "j1", "from": 10})
        (gap,) = next(r for r in server.dashboard()["tables"] if r["table"] == "1")["gaps"]
        assert (gap["first"], gap["last"], gap["asked"]) == (10, 11, 1)
        now[0] += 1
        assert server.ask_again() == 0
        now[0] += ASK_EVERY
        assert server.ask_again() == 1
        server.receive([("tablepi/v1/tables/1/events", json.dumps(m).encode(), 0, 1, now[0])
                        for m in messages[10:12]])
        assert not next(r for r in server.dashboard()["tables"] if r["table"] == "1")["gaps"]
        # a tail the table's status names: asked for too
        server.receive([("tablepi/v1/tables/1/status", json.dumps(
            {"v": 1, "table": "1", "online": True, "journal": "j1", "last": 35}).encode(), 0, 1, now[0])])
        assert server.ask_again() == 0
        now[0] += GAP_WAIT
        assert server.ask_again() == 1 and client.sent[-1][1]["from"] == 30
    finally:
        server.close()


def test_broker_config_makes_the_servers_password_file_and_one_per_table(tmp_path: object, capsys: object) -> None:
    """--broker-config works before [broker] password_file exists (it is made), writes each table's password file,
    listens where told; a password file that cannot be read is named as broker.password_file."""
    from pathlib import Path

    from tablepi.cli import main

    assert isinstance(tmp_path, Path)
    config = tmp_path / "cup.toml"
    config.write_text('[tournament]\npairs = [["A", "B"], ["C", "D"], ["E", "F"], ["G", "H"]]\n'
                      '[broker]\npassword_file = "server-password"\n')
    assert main(["tournament", str(config), "--broker-config", str(tmp_path / "broker"),
                 "--broker-listen", "192.0.2.7"]) == 0
    secret = (tmp_path / "server-password").read_text().strip()
    assert secret and (tmp_path / "server-password").stat().st_mode & 0o077 == 0
    for user in ("tournament", "table-1", "table-2"):
        assert (tmp_path / "broker" / "passwords" / user).read_text().strip()
    assert (tmp_path / "broker" / "passwords" / "tournament").read_text().strip() == secret
    conf = (tmp_path / "broker" / "mosquitto.conf").read_text()
    assert "listener 1883 192.0.2.7\nuse_username_as_clientid true" in conf and "message_size_limit 65536" in conf
    (tmp_path / "server-password").write_bytes(b"")
    from tablepi.tournament.config import load_tournament_config

    with pytest.raises(ConfigError, match=r"^broker\.password_file: cannot read"):
        load_tournament_config(config).broker.secret()


def _claim(table: str, journal: str, number: int, seed: int, received: float | None = None) -> list[tuple[
        str, bytes, int, int, float]]:
    """Journal ``journal``: one whole match played at ``table`` under round ``number``'s seating, as feed items
    received at ``received`` (default: now, after the round was drawn)."""
    at = time.time() if received is None else received
    return [(f"tablepi/v1/tables/{table}/events",
             json.dumps(dict(m, table=table, journal=journal, round=number)).encode(), 0, 1, at)
            for m in feed_messages(seed)[0]]


def _round_of(server: object, table: str, number: int) -> tuple[int, ...]:
    """The deals the server counts for ``table``'s round ``number`` (their card points, NS)."""
    from tablepi.tournament.server import TournamentServer

    assert isinstance(server, TournamentServer)
    item = next(i for i, _, _ in server.scored_rounds() if i.table == table and i.round == number)
    return tuple(e.result.points[Team.NS] for e in item.entries)


@pytest.mark.parametrize("forged_first", [True, False])
def test_two_journals_for_one_tables_round_count_nothing_until_the_director_picks(
        tmp_path: object, forged_first: bool) -> None:
    """A journal made up with a table's password, before or after the table's own: the round is disputed —
    neither counts, both are held with the reason, the standings say so — until the director assigns one; the
    choice is in the store (a restart keeps it) and an undo disputes the round again."""
    from tablepi.tournament.server import STANDINGS_INTERVAL, TournamentServer

    server = _server(tmp_path)
    assert isinstance(server, TournamentServer)
    at = time.time() + 10.0
    real, forged = _claim("1", "real", 1, 2, at), _claim("1", "forged", 1, 5, at)
    try:
        server.start_next_round("test")
        server.receive(_claim("2", "other", 1, 3))
        for items in (forged, real) if forged_first else (real, forged):
            server.receive(items)
        assert _round_of(server, "1", 1) == ()
        assert _round_of(server, "2", 1) != ()  # another table's round is not touched
        names = sorted(n for names in server.rounds[0][0].team_map().values() for n in names)
        assert server.disputed() == [{"table": "1", "round": 1, "names": names}]
        held = {h["journal"]: h for h in server.held()}
        assert set(held) == {"real", "forged"}
        assert all(h["reason"] == "2 journals for table 1 round 1: none is counted until the director assigns one"
                   and h["seated"] and h["received"] == [at, at] for h in held.values())
        board = server.dashboard()
        assert "disputed" in next(r for r in board["tables"] if r["table"] == "1")["attention"]
        time.sleep(STANDINGS_INTERVAL)
        server.receive([])  # what the worker does when nothing comes: the standings due are published
        assert json.loads(server.hub.get("standings")[1])["disputed"] == server.disputed()
        assert "1" in server.unfinished()  # the next round waits for the director (or is forced)
        entry = server.assign("Carla", "the table's own journal, played over the hour", "1", "rea", 1)
        counted = _round_of(server, "1", 1)
        assert counted and server.disputed() == []
        assert [h["reason"] for h in server.held()] == ["table 1's round 1 is journal real match 1"]
    finally:
        server.close()
    again = _server(tmp_path)
    assert isinstance(again, TournamentServer)
    try:
        assert _round_of(again, "1", 1) == counted and again.disputed() == []
        again.undo("Carla", "picked too fast", entry["id"])
        assert _round_of(again, "1", 1) == () and len(again.disputed()) == 1
        again.assign("Carla", "made up: every deal arrived in one second", "1", "forged", 0)  # of no round
        assert _round_of(again, "1", 1) == counted and again.disputed() == []
    finally:
        again.close()


def test_a_claim_on_a_round_not_started_disputes_nothing(tmp_path: object) -> None:
    """A journal claiming a round that has not started is held with that reason; the table's round is not
    disputed by it."""
    from tablepi.tournament.server import TournamentServer

    server = _server(tmp_path, rounds=3)
    assert isinstance(server, TournamentServer)
    try:
        server.start_next_round("test")
        server.receive(_claim("1", "j", 1, 2))
        counted = _round_of(server, "1", 1)
        server.receive(_claim("1", "early", 2, 4))
        assert _round_of(server, "1", 1) == counted != () and server.disputed() == []
        assert [h["reason"] for h in server.held()] == ["round 2 has not started"]
    finally:
        server.close()


def test_a_round_match_left_unfinished_is_named_in_the_dispute(tmp_path: object) -> None:
    """Players abandon their round's match and play it again: two journals claim the round, the earlier one
    unfinished and done with before the later began. The server holds both and says which was left, at which deal;
    it counts neither by itself (a forged, complete journal would look the same to it)."""
    from tablepi.tournament.server import TournamentServer

    server = _server(tmp_path)
    assert isinstance(server, TournamentServer)

    def numbered(items: list[tuple[str, bytes, int, int, float]], index: int) -> list[tuple[str, bytes, int, int,
                                                                                            float]]:
        out = []
        for topic, payload, *rest in items:
            message = json.loads(payload)
            if message.get("kind") == "header":
                message["index"] = index
            out.append((topic, json.dumps(message).encode(), *rest))
        return out  # type: ignore[return-value]

    now = time.time()
    whole = _claim("1", "again", 1, 2, now + 20.0)
    left = numbered(_claim("1", "left", 1, 2, now + 10.0), 1)[: len(whole) // 5]
    try:
        server.start_next_round("test")
        server.receive(left)
        counted = _round_of(server, "1", 1)
        assert 0 < len(counted) < 3  # one claim: the match under way counts live
        server.receive(numbered(whole, 2))
        assert _round_of(server, "1", 1) == () and [d["table"] for d in server.disputed()] == ["1"]
        reasons = {h["journal"]: h["reason"] for h in server.held()}
        assert set(reasons) == {"left", "again"}
        deals = len(counted)
        assert all(r == f"2 journals for table 1 round 1: journal left was left unfinished at deal {deals + 1} "
                   f"({deals} scored) before journal again began; none is counted until the director assigns one"
                   for r in reasons.values()), reasons
    finally:
        server.close()


def test_a_claim_begun_before_its_round_was_drawn_is_held_not_a_dispute(tmp_path: object) -> None:
    """A whole match for round 2, published with a table's password before round 2 is drawn (its number is easy
    to guess): no table can have begun its round 2 match then, having no seating yet. Once the round is drawn, the
    early one is held with that reason and does not dispute the round: the table's own match counts."""
    from tablepi.tournament.server import TournamentServer

    server = _server(tmp_path, rounds=3)
    assert isinstance(server, TournamentServer)
    try:
        server.start_next_round("test")
        server.receive(_claim("1", "j", 1, 2))
        server.receive(_claim("1", "early", 2, 4))
        assert [h["reason"] for h in server.held()] == ["round 2 has not started"]
        time.sleep(0.01)
        server.start_next_round("test", force=True)
        server.receive(_claim("1", "own", 2, 6))
        assert _round_of(server, "1", 2) != () and server.disputed() == []
        assert {h["journal"]: h["reason"] for h in server.held()} == {
            "early": "its match began before round 2 was drawn: no table had its seating"}
    finally:
        server.close()
    again = _server(tmp_path, rounds=3)  # a restarted server replays the store: the same
    assert isinstance(again, TournamentServer)
    try:
        assert again.disputed() == [] and [h["journal"] for h in again.held()] == ["early"]
    finally:
        again.close()
