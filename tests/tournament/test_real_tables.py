"""Real table processes (``tablepi run --headless``: the sim reader replaying a simulated match, the app, journal,
review worker and feed, each table its own process) against a real mosquitto and the server, while a table's
password is in an attacker's hands: poison, a journal forged for the round before the table's first trumps (the
round is disputed; the director picks the table's own on the dashboard), the server's old fixed client id. The
tables play whole matches, one a round over two rounds (the second begun with ``tablepi match``, which archives
the first), and the server loses part of an archived match, which the table sends again from its archive.
Afterwards the standings equal those computed from the tables' own journal files, and the dashboard says what
happened."""

from __future__ import annotations

import json
import signal
import sqlite3
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from tablepi.deck import virtual_deck, write_deck_file
from tablepi.feed.broker import Mosquitto, table_user
from tablepi.feed.outbox import read_journal_file
from tablepi.feed.replay import TableFeed
from tablepi.journal import archive
from tablepi.journal.record import RecordHeader, event_to_line, parse_event, parse_header
from tablepi.rules.house import HouseRules
from tablepi.rules.seats import Seat
from tablepi.table import Table
from tablepi.table.simulate import simulate_match
from tablepi.table.state import TableConfig
from tablepi.tournament.server import TournamentServer
from tablepi.web.serve import WebServer
from tests.tournament.conftest import tournament_config
from tests.tournament.simulate import standings_from_journals
from tests.tournament.test_attacks import Attacker, forged_journal, scores
from tests.tournament.test_director import login, post
from tests.waits import wait_until

pytestmark = pytest.mark.slow

CUP = """
[tournament]
name = "Real tables cup"
format = "pairs"
round = "partie"
rounds = 2
pairs = [["Anna", "Jos"], ["Marie", "Pit"], ["Lis", "Ben"], ["Tom", "Eva"]]
"""
ZONES = {"N": 0, "E": 1, "S": 2, "W": 3}
#: Short matches (two deals: three lines a team) by players who leave a trick's cards lying 2.5 s and tap for
#: 0.3 s; replayed at twice their speed, a table's tap window of half a second lies well between the two, so a
#: reader thread a few tenths of a second late on a loaded machine does not turn a lay into a tap. No claims: a
#: claim is a button, which the sim reader does not press (the table would wait for the tricks never played).
RULES = HouseRules(start_lines=3)
PLAYERS = TableConfig(tap_window=2.0)
SPEED = 2.0
#: The first card is laid this long (wall seconds) after the reader opens: the sim reader's script runs from then,
#: and the app, which stamps every event in its own time, is up only seconds later on a loaded machine.
LEAD = 20.0


class TableProcess:
    """``tablepi run --headless`` on a config of its own: the sim reader replays ``seed``'s match at ``speed``."""

    def __init__(self, name: str, directory: Path, broker: Mosquitto, seed: int, speed: float = SPEED) -> None:
        self.name = name
        self.directory = directory
        self.config = directory / "tablepi.toml"
        directory.mkdir(parents=True)
        write_deck_file(directory / "decks.toml", [virtual_deck()])
        (directory / "feed-password").write_text(broker.passwords[table_user(name)] + "\n")
        self.config.write_text(f"""
[table]
journal = "{directory / 'journal.sqlite3'}"
decks = ["{directory / 'decks.toml'}"]
players = "{directory / 'players.toml'}"
control = "{directory / 'control.sock'}"
tap_seconds = {1.0 / speed}
[house_rules]
start_lines = {RULES.start_lines}
[readers]
backend = "sim"
zones = {{ N = 0, E = 1, S = 2, W = 3 }}
[readers.options]
record = "{directory / 'match.jsonl'}"
speed = {speed}
[display]
language = "en"
fullscreen = false
[controls]
enabled = false
[feed]
enabled = true
table = "{name}"
host = "127.0.0.1"
port = {broker.port}
password_file = "{directory / 'feed-password'}"
""")
        self.play(seed, Seat.N)

    def play(self, seed: int, dealer: Seat) -> None:
        """Start the table's process with the sim reader replaying ``seed``'s match, first dealt by ``dealer``
        (the table's own journal says who deals a new match)."""
        deck = virtual_deck()
        header = RecordHeader(RULES, dealer, PLAYERS, tuple((z, Seat(s)) for s, z in ZONES.items()),
                              tuple(deck.cards.items()), deck.name)
        script = simulate_match(seed, RULES, dealer, PLAYERS, claims=False)
        events = [replace(e, time=e.time + LEAD * SPEED) for e in script.events]
        lines = [json.dumps(header.to_json())] + [event_to_line(e) for e in events]
        (self.directory / "match.jsonl").write_text("\n".join(lines) + "\n")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tablepi", "run", "--headless", "--config", str(self.config), "--log-level",
             "WARNING"], stdout=subprocess.DEVNULL, stderr=(self.directory / "stderr").open("ab"),
            env={"SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy", "PATH": "/usr/bin:/bin"})

    def journal_files(self) -> list[Path]:
        return [*archive.matches(self.directory / "archive"), self.directory / "journal.sqlite3"]

    def table(self) -> tuple[str, Table, Seat] | None:
        """The current journal replayed: (its id, the table, the journal's first dealer)."""
        found = read_journal_file(self.directory / "journal.sqlite3", 0)
        if found is None:
            return None
        header = parse_header(found[1], 0)
        table, previous = Table(header.house_rules, header.dealer, header.table), 0.0
        for seq, line in found[2]:
            event = parse_event(json.loads(line), header, seq, previous)
            previous = event.time
            table.advance(event)
        return found[0], table, header.dealer

    def over(self) -> bool:
        """The current journal's match is over (or the process ended: the wait stops and the test says why)."""
        if self.process.poll() is not None:
            return True
        replayed = self.table()
        return replayed is not None and bool(replayed[1].matches) and replayed[1].matches[-1].is_over

    def new_match(self) -> None:
        """``tablepi match``: the table's new match button from the shell."""
        done = subprocess.run([sys.executable, "-m", "tablepi", "match", "--config", str(self.config)],
                              capture_output=True, text=True, timeout=120, check=False)
        assert done.returncode == 0, done.stdout + done.stderr

    def stderr(self) -> str:
        return (self.directory / "stderr").read_text(errors="replace")[-2000:]

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


@pytest.fixture
def tables(tmp_path: Path) -> Iterator[Callable[..., TableProcess]]:
    made: list[TableProcess] = []

    def make(name: str, broker: Mosquitto, seed: int) -> TableProcess:
        made.append(TableProcess(name, tmp_path / f"table-{name}", broker, seed))
        return made[-1]

    yield make
    for table in made:
        table.stop()


#: Each table's matches, one a round (seeds).
SEEDS = {"1": (27, 18), "2": (7, 18)}


def test_real_tables_attacked_with_a_tables_password(broker: Mosquitto, tmp_path: Path,
                                                     tables: Callable[..., TableProcess]) -> None:
    config = tournament_config(broker, tmp_path, CUP)
    server = TournamentServer(config).start()
    mischief = Attacker(broker, "tablepi-tournament-tournament")  # the server's old, fixed id
    try:
        server.start_next_round("director")  # seatings are retained: the tables get them as they connect
        # A whole match for table 1's round 1, before table 1 has named its first trumps (before it is even
        # switched on): the round is disputed, not won by whoever came first.
        for message in forged_journal("f" * 32, "1", 1, 99):
            mischief.send_json(message)
        wait_until(lambda: "f" * 32 in server.feeds.get("1", TableFeed("1")).journals, "the forgery to arrive")
        playing = [tables(name, broker, seeds[0]) for name, seeds in SEEDS.items()]
        wait_until(lambda: all(t.over() for t in playing), "the tables to play round 1's whole match", 600)
        assert all(t.process.poll() is None for t in playing), [t.stderr() for t in playing]
        deep = b'{"v":1,"table":"1","journal":"x","seq":1,"event":' + b"[" * 20000 + b"]" * 20000 + b"}"
        for _ in range(150):
            mischief.send(deep)
        mischief.close()  # its user is table 1's: connected, it and table 1 would take each other's place for good
        # The director's dashboard: table 1's round is disputed, both journals held; nothing of it is counted.
        own = {t.name: t.table() for t in playing}
        real = own["1"][0] if own["1"] is not None else ""
        wait_until(lambda: {h["journal"] for h in server.held()} == {"f" * 32, real}, "both journals held", 120)
        assert all("2 journals for table 1 round 1" in h["reason"] for h in server.held())
        assert [(d["table"], d["round"]) for d in server.disputed()] == [("1", 1)]
        assert server.unfinished() == ["1"]
        web = WebServer(server).start()
        try:
            cookie = login(web, "Carla")
            assert post(web, cookie, "assign", {"table": "1", "journal": real, "match": 1, "round": 1,
                                                "why": "the table's own journal: its deals came over the match"}
                        ) == (200, "journal assigned")
        finally:
            web.close()

        def journals_equal_standings() -> None:
            expected = scores(standings_from_journals(config, server.rounds, playing, server.byes))  # type: ignore[arg-type]
            wait_until(lambda: scores(server.standings()) == expected, "the standings to equal the journals", 120)
            assert any(row[3] > 0 for row in expected)

        journals_equal_standings()
        assert not server.unfinished()  # the whole match counted: round 1 is complete at both tables
        server.start_next_round("director")
        first: dict[str, str] = {}
        for table in playing:
            found = table.table()
            assert found is not None
            first[table.name] = found[0]
            table.new_match()  # archives round 1's match; the new journal's header names its first dealer
            wait_until(lambda t=table: t.journal_files()[:-1] != [], "the first match archived")  # type: ignore[misc]
            table.stop()
        # The server loses part of table 1's archived match (as a broker that crashed while the server was down
        # would lose what it held for it): it sees the gap, asks, and the table sends it again from its archive.
        jid = first["1"]
        server.close()
        with sqlite3.connect(config.store) as db:
            assert db.execute("DELETE FROM messages WHERE tbl = '1' AND journal = ? AND seq BETWEEN 5 AND 40",
                              (jid,)).rowcount == 36
        db.close()
        server = TournamentServer(config).start()
        with server.lock:
            assert [g["first"] for g in next(r for r in server.dashboard()["tables"] if r["table"] == "1")["gaps"]
                    ] == [5]
        for table in playing:
            found = table.table()
            assert found is not None
            table.play(SEEDS[table.name][1], found[2])
        wait_until(lambda: all(t.over() for t in playing), "the tables to play round 2's whole match", 600)
        assert all(t.process.poll() is None for t in playing), [t.stderr() for t in playing]
        assert all(len(t.journal_files()) == 2 for t in playing)  # one archived match, one in the journal
        journals_equal_standings()
        assert not server.unfinished()
        with server.lock:
            board = server.dashboard()
        assert not any(row["gaps"] for row in board["tables"])  # filled from the archive
        assert board["quarantined"] >= 150
        assert [(h["journal"], h["reason"]) for h in board["held"]] == [
            ("f" * 32, f"table 1's round 1 is journal {real[:12]} match 1")]
        assert [a["what"] for a in board["audit"]].count("assign") == 1
    finally:
        mischief.close()
        server.close()
