"""Byes: entrants that do not fill a table sit out a round in turn, scored as a won round (docs/tournament.md)."""

from __future__ import annotations

import json
import time
from collections import Counter
from pathlib import Path

from tablepi.tournament.config import parse_tournament_config
from tablepi.tournament.seating import choose_byes
from tablepi.tournament.server import TournamentServer
from tablepi.tournament.standings import BYE, bye_rounds, bye_score, rank
from tests.tournament.test_pure import feed_messages


def _server(tmp: Path, body: str) -> TournamentServer:
    return TournamentServer(parse_tournament_config(body + '\n[broker]\npassword = "x"\n', tmp / "t.toml"))


def test_byes_go_round_fairly_lowest_placed_first() -> None:
    ranked = ["A", "B", "C", "D", "E"]
    had: Counter[str] = Counter()
    seen = []
    for _ in range(5):
        (bye,) = choose_byes(ranked, 1, had)
        had[bye] += 1
        seen.append(bye)
    assert seen == ["E", "D", "C", "B", "A"]  # the lowest placed without one, each once before anyone twice
    assert choose_byes(ranked, 2, Counter({"E": 1})) == ["D", "C"]
    drawn = choose_byes(ranked, 1, {}, seed=3)
    assert drawn == choose_byes(ranked, 1, {}, seed=3) and drawn[0] in ranked  # round 1: drawn, reproducibly


def test_a_bye_is_a_won_round_without_tie_break_credit() -> None:
    assert bye_score().key == (2, 0, 0)
    ranked = rank(["A", "B"], bye_rounds([("A",), ("B",), ("A",)]))
    assert [(s.name, s.total.key, sorted(s.complete)) for s in ranked] == [("A", (4, 0, 0), [1, 3]),
                                                                           ("B", (2, 0, 0), [2])]
    assert bye_rounds([()])[:1] == [] and BYE not in ("1", "bye")


def test_odd_pairs_sit_out_in_turn_and_score_their_bye(tmp_path: Path) -> None:
    server = _server(tmp_path, '[tournament]\nformat = "pairs"\nround = "deals"\ndeals = 2\nrounds = 3\n'
                               'pairs = [["A", "B"], ["C", "D"], ["E", "F"]]\n')
    try:
        assert server.config.table_ids() == ("1",) and server.config.byes_per_round == 1
        byes = []
        for number in (1, 2, 3):
            (table,) = server.start_next_round("test", force=True)
            (bye,) = server.byes[-1]
            byes.append(bye)
            seated = {name for names in table.team_map().values() for name in names}
            assert bye not in seated and len(seated) == 2
            messages, _ = feed_messages(number)
            items = [("tablepi/v1/tables/1/events", json.dumps(dict(m, journal=f"j{number}", round=number,
                                                                     index=number)).encode(), 0, 1, time.time())
                     for m in messages]
            server.receive(items)
        assert sorted(byes) == ["A & B", "C & D", "E & F"]  # each pair sat out once
        standings = {s.name: s for s in server.standings()}
        for number, bye in enumerate(byes, start=1):
            assert standings[bye].rounds[number].key == (2, 0, 0)
            assert number in standings[bye].complete
    finally:
        server.close()
    again = _server(tmp_path, '[tournament]\nformat = "pairs"\nround = "deals"\ndeals = 2\nrounds = 3\n'
                              'pairs = [["A", "B"], ["C", "D"], ["E", "F"]]\n')
    try:
        assert [tuple(b) for b in again.byes] == [(b,) for b in byes]  # kept in the store
    finally:
        again.close()


def test_individuals_not_a_multiple_of_four(tmp_path: Path) -> None:
    players = [f"p{i}" for i in range(10)]
    server = _server(tmp_path, '[tournament]\nformat = "individuals"\nrounds = 5\nplayers = '
                               + json.dumps(players) + "\n")
    try:
        assert server.config.table_ids() == ("1", "2") and server.config.byes_per_round == 2
        for _ in range(5):
            seating = server.start_next_round("test", force=True)
            seated = [n for t in seating for names in t.team_map().values() for n in names]
            assert sorted(seated + list(server.byes[-1])) == sorted(players)
        assert Counter(n for b in server.byes for n in b) == Counter({p: 1 for p in players})
    finally:
        server.close()
