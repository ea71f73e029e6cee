"""Rebuilding a table from its feed: journals keyed by id, events applied in seq order through the real table.

The feed's reader: the tournament server rebuilds every table with it, and a table's publisher reads its own earlier
journals with it (which rounds they claimed).

Pure (no broker, no store): :class:`TableFeed` takes decoded feed messages in any order, any number of times,
and ends in the same state as the table that published them. A message already seen is ignored; an event whose
predecessor has not arrived waits in a buffer until it has.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tablepi.errors import RecordError
from tablepi.journal.record import RecordHeader, parse_event, parse_header
from tablepi.rules.slate import SlateEntry
from tablepi.table import Table, TableEvent, TableState


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
    # when the server applied the event that named the first trumps (its own clock; it had received it by then)
    begun_at: float | None = None

    def begun_before(self, drawn: float) -> bool:
        """Whether it began before its round was drawn (at ``drawn``): then it cannot be a table's match of that
        round, which a table begins only once the round's seating reached it."""
        return self.begun_at is not None and self.begun_at < drawn


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
    broken_at: int | None = None  # the seq of the message that broke the journal (0: its header)
    version: int = 0  # counts the changes the standings see (header, a match begun, a deal scored or undone)
    round_tag: int | None = None  # the round the last applied event was journaled under (the table's round)
    conflicts: list[int] = field(default_factory=list)  # seqs received twice with different events (first kept)
    events: list[TableEvent] = field(default_factory=list)  # every event applied, in order (the players' book)
    # when the server received this journal's first and last message (its own clock): what the director weighs
    # when two journals claim one round (a match played live arrives over an hour, a made-up one at once)
    received: tuple[float, float] = (0.0, 0.0)

    @property
    def state(self) -> TableState | None:
        return None if self.table is None else self.table.state

    def knows(self, seq: int) -> bool:
        if seq == 0:
            return self.header is not None or self.broken_at == 0
        return seq <= self.applied or seq in self.pending

    def add(self, seq: int, message: dict[str, Any]) -> bool:
        """Take one message (seq 0: the header). True if it was new."""
        if seq == 0:
            if self.knows(0):
                return False
            try:
                self.header = parse_header(message["header"], 0)
            except (RecordError, KeyError) as error:
                self.broken, self.broken_at = f"header: {error}", 0
                return True
            index = message.get("index", 0)
            self.index = index if isinstance(index, int) and not isinstance(index, bool) else 0
            h = self.header
            self.table = Table(h.house_rules, h.dealer, h.table)
            self.version += 1
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
                self.broken, self.broken_at = f"event {seq}: {error}", seq
                return scored
            self.previous_time = event.time
            self.round_tag = tag if isinstance(tag, int) and not isinstance(tag, bool) else None
            before = len(self.matches[-1].slate) if self.matches else 0
            # The table's own code, one event at a time; the snapshot (TableState) is built only when a page
            # asks for it: what the standings need is read from the match itself.
            self.table.advance(event)
            self.events.append(event)
            self.applied = seq
            played = self.table.matches
            while len(self.matches) < len(played):
                self.matches.append(PlayedMatch(len(self.matches) + 1))
                before = 0
            match = self.matches[len(played) - 1]
            if not match.started and self.table.trump is not None:
                match.started = True
                match.round = self.round_tag
                self.version += 1
            slate = played[-1].slate
            if len(slate.history) > before:
                scored += len(slate.history) - before
            if len(slate.history) != len(match.slate) or (slate.winner is not None) != match.over:
                self.version += 1
            match.slate = tuple(slate.history)
            match.over = slate.winner is not None
        return scored

    @property
    def waiting(self) -> int:
        """Events received but not applicable yet (a gap before them)."""
        return len(self.pending)

    def gap(self, reported: int = 0) -> tuple[int, int] | None:
        """The first run of seqs missing, (first, last): the header, the events before one that waits, or those
        up to ``reported`` (the last one the table says it journaled). None when nothing is known to be missing."""
        if self.broken:
            return None
        if self.header is None and (self.pending or reported):
            return (0, 0)
        if self.pending:
            return (self.applied + 1, min(self.pending) - 1)
        if reported > self.applied:
            return (self.applied + 1, reported)
        return None


@dataclass
class TableFeed:
    """Everything one table has published: its journals, and what the dashboard needs to know of it."""

    table: str
    journals: dict[str, JournalFeed] = field(default_factory=dict)
    online: bool = False
    last_message: float = 0.0  # wall clock, server side
    last_event: float = 0.0  # wall clock when the last new event arrived
    scored_at: float = 0.0  # wall clock when the server applied the last deal scored here
    reported: tuple[str, int] = ("", 0)  # (journal, last seq) the table's status says it journaled
    earlier: dict[str, int] = field(default_factory=dict)  # its earlier journals' last seqs, as its status says

    def report(self, status: dict[str, Any]) -> None:
        """A status message's (journal, last) and ``earlier`` journals: what the table says it has (checked by
        the server's reader)."""
        jid, last = status.get("journal"), status.get("last")
        if isinstance(jid, str) and isinstance(last, int):
            self.reported = (jid, last) if jid != self.reported[0] else (jid, max(last, self.reported[1]))
        for jid, last in (status.get("earlier") or {}).items():
            self.earlier[jid] = max(last, self.earlier.get(jid, 0))

    def gaps(self) -> list[tuple[str, int, int]]:
        """Every journal's first run of missing seqs, (journal, first, last), up to the last seq the table's
        status names for it (the tail of an archived match too); a journal the table reported that the server has
        never seen is missing whole."""
        out = []
        for journal in self.journals.values():
            last = self.reported[1] if journal.jid == self.reported[0] else self.earlier.get(journal.jid, 0)
            gap = journal.gap(last)
            if gap is not None:
                out.append((journal.jid, *gap))
        unseen = [self.reported] if self.reported[0] else []
        unseen += [(jid, last) for jid, last in self.earlier.items() if jid != self.reported[0] and last > 0]
        out += [(jid, 0, last) for jid, last in unseen if jid not in self.journals]
        return out

    def knows(self, jid: str, seq: int) -> bool:
        """Whether message ``seq`` of journal ``jid`` has been received already (applied or waiting)."""
        journal = self.journals.get(jid)
        return journal is not None and journal.knows(seq)

    def receive(self, message: dict[str, Any], now: float) -> tuple[bool, int]:
        """One events-topic message; (new, deals scored)."""
        self.last_message = now
        jid = str(message.get("journal", ""))
        seq = message.get("seq")
        if not jid or isinstance(seq, bool) or not isinstance(seq, int) or seq < 0:
            return False, 0
        journal = self.journals.get(jid)
        if journal is None:
            journal = self.journals[jid] = JournalFeed(jid, received=(now, now))
        if not journal.add(seq, message):
            return False, 0
        first, last = journal.received
        journal.received = (min(first, now), max(last, now))
        if seq > 0:
            self.last_event = now
        scored = journal.advance()
        for match in journal.matches:
            if match.started and match.begun_at is None:
                match.begun_at = now
        return True, scored

    @property
    def version(self) -> int:
        """Changes the standings see, over all this table's journals (a cache of its scores keys on it)."""
        return sum(j.version for j in self.journals.values())

    def latest(self) -> JournalFeed | None:
        """The journal the table is playing in now (the highest index with a header)."""
        known = [j for j in self.journals.values() if j.header is not None]
        return max(known, key=lambda j: (j.index, j.applied)) if known else None

    def match(self, jid: str, number: int) -> tuple[JournalFeed, PlayedMatch] | None:
        journal = self.journals.get(jid)
        if journal is None or journal.header is None or not 1 <= number <= len(journal.matches):
            return None
        return journal, journal.matches[number - 1]

    def claims(self, number: int, drawn: float = 0.0) -> list[tuple[JournalFeed, PlayedMatch]]:
        """Each journal's first match begun under round ``number``'s seating (in the order the table made its
        journals), unless it began before the round was drawn (at ``drawn``: it is held, never a claim). A table
        claims its round with one journal: two claiming it are a second sender with the table's password, or a
        round match abandoned unfinished and begun again (docs/tournament.md, "Which match is which round")."""
        out = []
        for journal in sorted(self.journals.values(), key=lambda j: (j.index, j.jid)):
            if journal.header is not None:
                first = next((m for m in journal.matches if m.started and m.round == number), None)
                if first is not None and not first.begun_before(drawn):
                    out.append((journal, first))
        return out

    def for_round(self, number: int, assigned: dict[str, int],
                  drawn: float = 0.0) -> tuple[JournalFeed, PlayedMatch] | None:
        """This table's match of round ``number``: the one a director's correction assigned to it
        (``"journal:match"`` -> round; of several, the latest), else the one journal's claim when one journal
        alone claims the round (a match assigned elsewhere claims nothing). Two journals claiming it: none until
        the director assigns one (:meth:`disputed`); every other match claiming the round is held."""
        found = [(j, m) for j in self.journals.values() if j.header is not None for m in j.matches
                 if assigned.get(f"{j.jid}:{m.number}") == number]
        if found:
            return max(found, key=lambda jm: (jm[0].index, jm[1].number))
        claims = self.open_claims(number, assigned, drawn)
        return claims[0] if len(claims) == 1 else None

    def open_claims(self, number: int, assigned: dict[str, int],
                    drawn: float = 0.0) -> list[tuple[JournalFeed, PlayedMatch]]:
        """:meth:`claims` less the matches a director's correction assigned (to this round or another)."""
        return [(j, m) for j, m in self.claims(number, drawn) if f"{j.jid}:{m.number}" not in assigned]

    def disputed(self, number: int, assigned: dict[str, int], drawn: float = 0.0) -> bool:
        """Whether round ``number`` waits for the director: two journals claim it and none is assigned to it."""
        return self.for_round(number, assigned, drawn) is None and len(self.open_claims(number, assigned, drawn)) > 1
