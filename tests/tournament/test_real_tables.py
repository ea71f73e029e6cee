"""Real table processes (``tablepi run --headless``: the sim reader replaying a recorded match's first deal, the
app, journal, review worker and feed, each table its own process) against a real mosquitto and the server, while
a table's password is in an attacker's hands: poison, a forged journal for the round, the server's old fixed client id.
Afterwards the standings equal those computed from the tables' own journal files, and the dashboard says what
happened."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tablepi.deck import virtual_deck, write_deck_file
from tablepi.feed.broker import Mosquitto, table_user
from tablepi.journal import archive
from tablepi.journal.record import RecordHeader, event_to_line
from tablepi.rules.house import HouseRules
from tablepi.rules.seats import Seat
from tablepi.table.simulate import simulate_match
from tablepi.table.state import TableConfig
from tablepi.tournament.server import TournamentServer
from tests.tournament.conftest import tournament_config
from tests.tournament.simulate import standings_from_journals
from tests.tournament.test_attacks import Attacker, forged_journal, scores
from tests.waits import wait_until

pytestmark = pytest.mark.slow

CUP = """
[tournament]
name = "Real tables cup"
format = "pairs"
round = "deals"
deals = 1
rounds = 2
pairs = [["Anna", "Jos"], ["Marie", "Pit"], ["Lis", "Ben"], ["Tom", "Eva"]]
"""
ZONES = {"N": 0, "E": 1, "S": 2, "W": 3}


class TableProcess:
    """``tablepi run --headless`` on a config of its own: the sim reader replays ``seed``'s match at ``speed``."""

    def __init__(self, name: str, directory: Path, broker: Mosquitto, seed: int, speed: float = 4.0) -> None:
        self.name = name
        self.directory = directory
        directory.mkdir(parents=True)
        write_deck_file(directory / "decks.toml", [virtual_deck()])
        deck = virtual_deck()
        header = RecordHeader(HouseRules(), Seat.N, TableConfig(), tuple((z, Seat(s)) for s, z in ZONES.items()),
                              tuple(deck.cards.items()), deck.name)
        script = simulate_match(seed)
        lines = [json.dumps(header.to_json())] + [event_to_line(e) for e in script.events]
        (directory / "match.jsonl").write_text("\n".join(lines) + "\n")
        (directory / "feed-password").write_text(broker.passwords[table_user(name)] + "\n")
        (directory / "tablepi.toml").write_text(f"""
[table]
journal = "{directory / 'journal.sqlite3'}"
decks = ["{directory / 'decks.toml'}"]
players = "{directory / 'players.toml'}"
control = "{directory / 'control.sock'}"
tap_seconds = {max(0.2, 1.0 / speed)}
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
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tablepi", "run", "--headless", "--config", str(directory / "tablepi.toml"),
             "--log-level", "WARNING"], stdout=subprocess.DEVNULL, stderr=(directory / "stderr").open("wb"),
            env={"SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy", "PATH": "/usr/bin:/bin"})

    def journal_files(self) -> list[Path]:
        return [*archive.matches(self.directory / "archive"), self.directory / "journal.sqlite3"]

    def deals(self) -> int:
        from tablepi.feed.outbox import read_journal_file
        from tablepi.journal.record import parse_event, parse_header
        from tablepi.table import Table

        found = read_journal_file(self.directory / "journal.sqlite3", 0)
        if found is None:
            return 0
        header = parse_header(found[1], 0)
        table, previous = Table(header.house_rules, header.dealer, header.table), 0.0
        for seq, line in found[2]:
            event = parse_event(json.loads(line), header, seq, previous)
            previous = event.time
            table.advance(event)
        return len(table.matches[-1].slate.history) if table.matches else 0

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(20)
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


def test_real_tables_attacked_with_a_tables_password(broker: Mosquitto, tmp_path: Path,
                                                     tables: Callable[..., TableProcess]) -> None:
    config = tournament_config(broker, tmp_path, CUP)
    server = TournamentServer(config).start()
    mischief = Attacker(broker, "tablepi-tournament-tournament")  # the server's old, fixed id
    try:
        server.start_next_round("director")  # seatings are retained: the tables get them as they connect
        playing = [tables(name, broker, seed) for name, seed in (("1", 31), ("2", 32))]
        wait_until(lambda: all(t.deals() >= 1 or t.process.poll() is not None for t in playing),
                   "the tables to play their round's deal", 300)
        deep = b'{"v":1,"table":"1","journal":"x","seq":1,"event":' + b"[" * 20000 + b"]" * 20000 + b"}"
        for _ in range(150):
            mischief.send(deep)
        for message in forged_journal("f" * 32, "1", 1, 99):
            mischief.send_json(message)
        assert all(t.process.poll() is None for t in playing), [t.directory.joinpath("stderr").read_text()[-2000:]
                                                                 for t in playing]
        expected = scores(standings_from_journals(config, server.rounds, playing, server.byes))  # type: ignore[arg-type]
        wait_until(lambda: scores(server.standings()) == expected, "the standings to equal the tables' journals", 60)
        assert any(row[3] > 0 for row in expected)
        with server.lock:
            board = server.dashboard()
        assert board["quarantined"] >= 150
        assert any(h["journal"] == "f" * 32 and "the first begun" in h["reason"] for h in board["held"])
    finally:
        mischief.close()
        server.close()
