"""Simulated tables for tests, the benchmark and trying a tournament out: the demo's players, the real path.

Each :class:`SimulatedTable` is a whole table without hardware: scripted players
(:func:`tablepi.table.simulate.simulate_match`) lay tags on the ``sim`` reader's zones; from there it is what runs
under a real table — reader, deck registry, adapter, journal (fsync, one match per journal with the archive), the
table state machine — and the real :class:`~tablepi.feed.publisher.FeedPublisher` on its own thread.

:func:`standings_from_journals` is the reference the tests hold the server to: the standings computed from the
tables' own journal files alone (the tournament's seatings are journaled with their rounds), never from the feed's
cursor or anything the server received.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from tablepi.app.core import TableApp, Touch
from tablepi.app.demo import ZONES, SimHands, VirtualClock
from tablepi.deck import DeckRegistry, virtual_deck
from tablepi.feed.config import FeedConfig
from tablepi.feed.outbox import JournalRounds, read_journal_file
from tablepi.feed.publisher import FeedPublisher
from tablepi.journal.journal import JournaledTable
from tablepi.journal.record import RecordHeader, parse_event, parse_header
from tablepi.rules.house import HouseRules
from tablepi.rules.seats import Seat
from tablepi.table import Button, ButtonName, CardLifted, CardPlaced, Table, TableEvent, TablePhase, Tick
from tablepi.table.simulate import simulate_match
from tablepi.table.state import TableConfig, TableState
from tablepi.tournament.config import RoundLength, TournamentConfig
from tablepi.tournament.seating import TableSeating
from tablepi.tournament.standings import Standing, TableRound, bye_rounds, rank, table_scores


@dataclass
class _Script:
    events: list[TableEvent]
    base: float
    index: int = 0


class SimulatedTable:
    """One table: simulated players, the sim reader, the real app, journal and feed. Time is virtual."""

    def __init__(self, table: str, directory: Path, feed: FeedConfig, *, rules: HouseRules | None = None,
                 mistakes: bool = False) -> None:
        self.name = table
        self.directory = directory
        directory.mkdir(parents=True, exist_ok=True)
        self.rules = rules or HouseRules()
        self.mistakes = mistakes
        self.clock = VirtualClock()
        self.hands = SimHands(self.clock)
        deck = virtual_deck()
        self.uid_of = {card: uid for uid, card in deck.cards.items()}
        self.zone_of = {seat: zone for zone, seat in ZONES.items()}
        header = RecordHeader(self.rules, Seat.N, TableConfig(), tuple(ZONES.items()), tuple(deck.cards.items()),
                              deck.name)
        self.journaled = JournaledTable(directory / "journal.sqlite3", header, archive=directory / "archive")
        self.feed: FeedPublisher | None = None
        # The feed is plugged in and out while the table runs: the app shows every state to this table, which
        # passes it on to the feed while there is one.
        self.app = TableApp(self.journaled, DeckRegistry([deck]), ZONES, clock=self.clock, observers=(self,))
        self.feed_config = feed
        self.script: _Script | None = None
        self.matches = 0

    def connect(self) -> SimulatedTable:
        """Start the feed (the table is "plugged into the network")."""
        if self.feed is None:
            self.feed = FeedPublisher(self.feed_config, self.journaled, on_message=self.app.put)
            if self.feed.seating is not None:  # as the table's start does: the seating it had, on the screen
                self.app.put(self.feed.seating)
            self.feed.show(self.journaled.state)
            self.feed.start()
        return self

    def show(self, state: TableState) -> None:
        """The app's observer: each state to the feed while it is plugged in."""
        if self.feed is not None:
            self.feed.show(state)

    def disconnect(self) -> None:
        """Stop the feed (a cable pulled); the table plays on and the journal keeps everything."""
        if self.feed is not None:
            self.journaled.listeners.remove(self.feed)
            self.feed.close()
            self.feed = None

    def new_match(self, seed: int) -> None:
        """Script the next match; the table's ``new match`` button first if one was played. A match still going
        (a round of a fixed number of deals) is left after its current deal is swept off."""
        self.drain()
        self.finish_deal()
        state = self.journaled.state
        if self.matches and (state.phase is TablePhase.MATCH_OVER or state.match.slate):
            self.app.handle(Touch(ButtonName.NEW_MATCH, Seat.N))
        script = simulate_match(seed, self.rules, Seat.N, TableConfig(), mistakes=self.mistakes)
        self.script = _Script(script.events, self.clock.now + 2.0)
        self.matches += 1

    def finish_deal(self) -> None:
        """Play on until the current deal is over and its cards are off the zones."""
        def swept() -> bool:
            state = self.journaled.state
            busy = state.phase in (TablePhase.PLAY, TablePhase.HAND_SCAN) or bool(state.deal.tricks and state.phase
                                                                                    is TablePhase.TRUMPS)
            return not busy and all(zone.is_clear for zone in state.zones)
        while self.playing and not swept():
            self.step()

    @property
    def playing(self) -> bool:
        return self.script is not None and self.script.index < len(self.script.events)

    @property
    def next_time(self) -> float:
        """Virtual time of the next scripted gesture (inf when the match is played out)."""
        if not self.playing:
            return float("inf")
        assert self.script is not None
        return self.script.base + self.script.events[self.script.index].time

    def step(self) -> TableEvent | None:
        """Do the next scripted gesture (the clock moves to it)."""
        if not self.playing:
            return None
        assert self.script is not None
        event = self.script.events[self.script.index]
        self.script.index += 1
        self.clock.now = max(self.clock.now, self.script.base + event.time)
        self.drain()
        if isinstance(event, CardPlaced):
            self.hands.place(self.zone_of[event.seat], self.uid_of[event.card] if event.card else event.uid)
        elif isinstance(event, CardLifted):
            self.hands.lift(self.zone_of[event.seat])
        elif isinstance(event, Button):
            self.app.handle(Touch(event.name, event.seat))
        elif isinstance(event, Tick):
            self.app.handle(Tick(self.app.now))
        self.hands.settle(self.app)
        return event

    def play(self, until: float = float("inf")) -> None:
        while self.playing and self.next_time <= until:
            self.step()

    def drain(self) -> None:
        """Hand the app what the feed put in its inbox (seatings, announcements)."""
        while not self.app.inbox.empty():
            self.app.handle(self.app.inbox.get_nowait())

    def close(self) -> None:
        self.disconnect()
        self.hands.close()
        self.app.close()

    # --- the table's own files -------------------------------------------------------------------------------

    def journal_files(self) -> list[Path]:
        from tablepi.journal import archive

        return [*archive.matches(self.directory / "archive"), self.directory / "journal.sqlite3"]

    def journal_ids(self) -> set[str]:
        """The ids of this table's own journals: its archived matches' and the current one's."""
        return {found[0] for path in self.journal_files() if (found := read_journal_file(path, 0)) is not None}


def journal_matches(path: Path, index: int) -> list[tuple[int, int, int | None, int, tuple[object, ...], bool]]:
    """Every match of a journal file, the table's ``index``-th: (index, match number, round, start lines, scored
    deals, over).

    A match's round is the one the journal says was in force when the match's first trumps were named.
    """
    import json

    found = read_journal_file(path, 0)
    if found is None:
        return []
    _, header_obj, lines = found
    rounds = JournalRounds.of(header_obj, lines)
    header = parse_header(header_obj, 0)
    table = Table(header.house_rules, header.dealer, header.table)
    previous = 0.0
    matches: dict[int, list[object]] = {}
    for seq, line in lines:
        event = parse_event(json.loads(line), header, seq, previous)
        previous = event.time
        state = table.apply(event)
        item = matches.setdefault(state.match.number, [None, False, (), False])
        if not item[1] and state.deal.trump is not None:
            item[0], item[1] = rounds.at(seq), True
        item[2], item[3] = state.match.slate, state.match.winner is not None
    return [(index, number, item[0], header.house_rules.start_lines, item[2], item[3])  # type: ignore[misc]
            for number, item in sorted(matches.items())]


def standings_from_journals(
    config: TournamentConfig, rounds: Sequence[Sequence[TableSeating]], tables: Iterable[SimulatedTable],
    byes: Sequence[Sequence[str]] = (),
) -> list[Standing]:
    """The standings from the tables' own journals, not from anything the server received (and the rounds' byes,
    scored as docs/tournament.md says)."""
    by_table = {t.name: t for t in tables}
    played: list[TableRound] = []
    for number, seating in enumerate(rounds, start=1):
        for ts in seating:
            table = by_table[ts.table]
            candidates = sorted(m for index, path in enumerate(table.journal_files())
                                for m in journal_matches(path, index) if m[2] == number)
            if not candidates:
                played.append(TableRound(number, ts.table, ts.team_map(), (), 9, False))
                continue
            # the first match the table played to its end (or to the round's deals) under the round's seating, else
            # the first it began (a table claims its round until it has played its match; one left unfinished is
            # the director's to settle)
            deals = config.deals if config.round_length is RoundLength.DEALS else None
            finished = [m for m in candidates if m[5] or (deals is not None and len(m[4]) >= deals)]
            _, _, _, start, slate, over = (finished or candidates)[0]
            played.append(TableRound(number, ts.table, ts.team_map(), slate, start, over))  # type: ignore[arg-type]
    scored = [(item, *table_scores(item, config.round_length, config.deals)) for item in played]
    return rank(config.entrant_names, [*scored, *bye_rounds(byes)], config.drop_worst)
