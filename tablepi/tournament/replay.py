"""Rebuilding a table from its feed: journals keyed by id, events applied in seq order through the real table.

Pure (no broker, no store): :class:`TableFeed` takes decoded feed messages in any order, any number of times,
and ends in the same state as the table that published them. A message already seen is ignored; an event whose
predecessor has not arrived waits in a buffer until it has.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tablepi.errors import RecordError
from tablepi.record import RecordHeader, parse_event, parse_header
from tablepi.rules.slate import SlateEntry
from tablepi.table import Table, TableState


@dataclass
class PlayedMatch:
    """One match a journal holds: the round it was played in, its scored deals, whether it is over.

    Its round is the one the table had in force when it journaled the event that named the match's first trumps:
    the players sat down by the seating and began. (Reader and button events before that — a table switched on
    before the seating came — do not decide it.)
    """

    number: int  # 1-based, within the journal
    round: int | None = None
    started: bool = False
    slate: tuple[SlateEntry, ...] = ()
    over: bool = False


@dataclass
class JournalFeed:
    """One journal of one table (with the app's archive: one match)."""

    jid: str
    header: RecordHeader | None = None
    index: int = 0
    applied: int = 0  # events applied, 1..applied
    pending: dict[int, dict[str, Any]] = field(default_factory=dict)
    table: Table | None = None
    previous_time: float = 0.0
    matches: list[PlayedMatch] = field(default_factory=list)
    broken: str = ""  # an event that does not parse: the journal stops there (shown on the dashboard)

    @property
    def state(self) -> TableState | None:
        return None if self.table is None else self.table.state

    def add(self, seq: int, message: dict[str, Any]) -> bool:
        """Take one message (seq 0: the header). True if it was new."""
        if seq == 0:
            if self.header is not None:
                return False
            try:
                self.header = parse_header(message["header"], 0)
            except (RecordError, KeyError) as error:
                self.broken = f"header: {error}"
                return True
            self.index = int(message.get("index", 0) or 0)
            h = self.header
            self.table = Table(h.house_rules, h.dealer, h.table)
            return True
        if seq <= self.applied or seq in self.pending:
            return False
        self.pending[seq] = message
        return True

    def advance(self) -> int:
        """Apply every event that now follows on; returns how many deals were scored by them."""
        if self.table is None or self.header is None or self.broken:
            return 0
        scored = 0
        while self.applied + 1 in self.pending:
            seq = self.applied + 1
            message = self.pending.pop(seq)
            tag = message.get("round")
            try:
                event = parse_event(message.get("event"), self.header, seq, self.previous_time)
            except RecordError as error:
                self.broken = f"event {seq}: {error}"
                return scored
            self.previous_time = event.time
            before = len(self.matches[-1].slate) if self.matches else 0
            state = self.table.apply(event)
            self.applied = seq
            while len(self.matches) < state.match_number:
                self.matches.append(PlayedMatch(len(self.matches) + 1))
                before = 0
            match = self.matches[state.match_number - 1]
            if not match.started and state.trump is not None:
                match.started = True
                match.round = tag if isinstance(tag, int) and not isinstance(tag, bool) else None
            if len(state.slate) > before:
                scored += len(state.slate) - before
            match.slate = state.slate
            match.over = state.match_winner is not None
        return scored

    @property
    def waiting(self) -> int:
        """Events received but not applicable yet (a gap before them)."""
        return len(self.pending)


@dataclass
class TableFeed:
    """Everything one table has published: its journals, and what the dashboard needs to know of it."""

    table: str
    journals: dict[str, JournalFeed] = field(default_factory=dict)
    online: bool = False
    last_message: float = 0.0  # wall clock, server side
    last_event: float = 0.0  # wall clock when the last new event arrived
    scored_at: float = 0.0  # wall clock when the server applied the last deal scored here

    def receive(self, message: dict[str, Any], now: float) -> tuple[bool, int]:
        """One events-topic message; (new, deals scored)."""
        self.last_message = now
        jid = str(message.get("journal", ""))
        seq = message.get("seq")
        if not jid or isinstance(seq, bool) or not isinstance(seq, int) or seq < 0:
            return False, 0
        journal = self.journals.get(jid)
        if journal is None:
            journal = self.journals[jid] = JournalFeed(jid)
        if not journal.add(seq, message):
            return False, 0
        if seq > 0:
            self.last_event = now
        return True, journal.advance()

    def latest(self) -> JournalFeed | None:
        """The journal the table is playing in now (the highest index with a header)."""
        known = [j for j in self.journals.values() if j.header is not None]
        return max(known, key=lambda j: (j.index, j.applied)) if known else None

    def for_round(self, number: int, assigned: dict[str, int]) -> tuple[JournalFeed, PlayedMatch] | None:
        """This table's match of round ``number``: played under that round's seating (or assigned to it by a
        correction, ``"journal:match"`` -> round); of several, the one with the most deals scored, then the latest."""
        found = [(j, m) for j in self.journals.values() if j.header is not None for m in j.matches
                 if assigned.get(f"{j.jid}:{m.number}", m.round) == number]
        return max(found, key=lambda jm: (len(jm[1].slate), jm[0].index, jm[1].number)) if found else None
