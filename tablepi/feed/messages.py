"""The feed's topics and messages, version 1 (docs/feed.md is the reference for other consumers).

Every payload is one UTF-8 JSON object with ``"v": 1``. Topics, under a prefix (default ``tablepi/v1``)::

    {prefix}/tables/{table}/events    table -> server   QoS 1   the journal: a header (seq 0), then each event
    {prefix}/tables/{table}/state     table -> all      QoS 1, retained   the table now (for late subscribers)
    {prefix}/tables/{table}/status    table -> all      QoS 1, retained   online / offline (the broker's will)
    {prefix}/tables/{table}/seating   server -> table   QoS 1, retained   who sits where in the current round
    {prefix}/tables/{table}/resend    server -> table   QoS 1   "send journal J again from seq N" (a gap)
    {prefix}/announce                 server -> tables  QoS 1, retained   the director's last announcement
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from tablepi.errors import ConfigError, FeedError
from tablepi.players import fit_name
from tablepi.rules.seats import Seat, Team
from tablepi.safeinput import load_json
from tablepi.table import TableState

VERSION = 1
#: The largest payload anyone reads (the broker's ``message_size_limit`` too, docs/feed.md): a journal line is a
#: few hundred bytes, a header with its deck a few kilobytes.
MAX_PAYLOAD = 65536


def events_topic(prefix: str, table: str) -> str:
    return f"{prefix}/tables/{table}/events"


def state_topic(prefix: str, table: str) -> str:
    return f"{prefix}/tables/{table}/state"


def status_topic(prefix: str, table: str) -> str:
    return f"{prefix}/tables/{table}/status"


def seating_topic(prefix: str, table: str) -> str:
    return f"{prefix}/tables/{table}/seating"


def resend_topic(prefix: str, table: str) -> str:
    return f"{prefix}/tables/{table}/resend"


def announce_topic(prefix: str) -> str:
    return f"{prefix}/announce"


def table_of(topic: str, prefix: str) -> tuple[str, str] | None:
    """``(table, kind)`` of a per-table topic, e.g. ``("7", "events")``; None for any other topic."""
    parts = topic.removeprefix(prefix + "/").split("/")
    if topic.startswith(prefix + "/") and len(parts) == 3 and parts[0] == "tables":
        return parts[1], parts[2]
    return None


def encode(obj: dict[str, Any]) -> bytes:
    return json.dumps({"v": VERSION, **obj}, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def decode(payload: bytes) -> dict[str, Any]:
    """A payload as a mapping; FeedError (one short line) when it is not a version-1 feed message. Bounded: a
    huge payload, deep nesting or an enormous number is refused before it can cost more than reading it."""
    if len(payload) > MAX_PAYLOAD:
        raise FeedError(f"a message of {len(payload)} bytes (at most {MAX_PAYLOAD})")
    try:
        obj = load_json(payload.decode("utf-8"))
    except UnicodeDecodeError as error:
        raise FeedError(f"not UTF-8 text (byte {error.start})") from None
    except ValueError as error:
        raise FeedError(f"not a JSON feed message: {error}") from None
    if not isinstance(obj, dict):
        raise FeedError("a feed message must be a JSON object")
    if obj.get("v") != VERSION:
        raise FeedError(f"feed message version {obj.get('v')!r} is not supported (this tablepi reads {VERSION})")
    return obj


@dataclass(frozen=True, slots=True)
class Seating:
    """Who sits where at this table in a round: what the table shows ("Round 3 — table 7: N Anna, E Jos, ...").

    Sent by the tournament server, retained, so a table that starts late or reconnects gets it at once.
    """

    round: int
    table: str
    names: tuple[tuple[Seat, str], ...]
    roster: tuple[str, ...] = ()  # every player of the tournament: the names a player may pick at the table
    deals: int | None = None  # the round is the first this many deals of a match (None: the whole match)

    def name(self, seat: Seat) -> str:
        return dict(self.names).get(seat, "")

    def text(self) -> str:
        seats = ", ".join(f"{seat} {name}" for seat, name in self.names)
        return f"Round {self.round} — table {self.table}: {seats}"

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"round": self.round, "table": self.table,
                               "seats": {s.value: n for s, n in self.names}, "text": self.text()}
        if self.roster:
            out["roster"] = list(self.roster)
        if self.deals is not None:
            out["deals"] = self.deals
        return out

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> Seating:
        try:
            seats = obj["seats"]
            names = tuple((seat, seat_name(seats[seat.value])) for seat in Seat if seat.value in seats)
            number = obj["round"]
            if isinstance(number, bool) or not isinstance(number, int) or number < 1:
                raise FeedError(f"seating: round must be a number from 1, got {number!r}", field="round")
            roster = obj.get("roster", [])
            if not isinstance(roster, list):
                raise FeedError(f"seating: roster must be a list of names, got {roster!r}", field="roster")
            deals = obj.get("deals")
            if deals is not None and (isinstance(deals, bool) or not isinstance(deals, int) or not 1 <= deals <= 100):
                raise FeedError(f"seating: deals must be a number from 1 to 100, got {deals!r}", field="deals")
            return cls(number, str(obj["table"]), names, tuple(_roster(roster)), deals)
        except (KeyError, TypeError, AttributeError) as error:
            raise FeedError(f"seating: missing or malformed field {error}") from None


def seat_name(name: object) -> str:
    """A name from a seating as the table's journal will take it (:func:`tablepi.players.fit_name`, as the journal
    itself fits it): spaces folded, a name over :data:`~tablepi.players.MAX_NAME` characters cut and marked (the
    tournament's config refuses those; an older server may still send one). FeedError for anything else — a
    seating the table cannot journal is not a seating."""
    try:
        return fit_name(name)[0]
    except ConfigError as error:
        raise FeedError(f"seating: {error}", field="seats") from None


def _roster(names: list[Any]) -> list[str]:
    """The roster's names the table can journal (others are left out: the keyboard only offers them)."""
    out = []
    for name in names:
        try:
            out.append(seat_name(name))
        except FeedError:
            continue
    return out


def summary(state: TableState) -> dict[str, Any]:
    """The table now as plain JSON: the retained state topic and the pages' live view draw this."""
    trick = state.deal.current_trick or (state.deal.tricks[-1] if state.deal.tricks else None)
    return {
        "match": state.match.number,
        "deal": state.deal.number,
        "phase": state.phase.value,
        "prompt": state.prompt.code.value,
        "dealer": state.deal.dealer.value,
        "forehand": state.deal.forehand.value,
        "trump": None if state.deal.trump is None else state.deal.trump.value,
        "to_play": None if state.deal.to_play is None else state.deal.to_play.value,
        "trick": None if trick is None else {
            "number": trick.number,
            "leader": trick.leader.value,
            "plays": [[seat.value, str(card)] for seat, card in trick.plays],
            "winner": None if trick.winner is None else trick.winner.value,
        },
        "points": {team.value: points for team, points in state.deal.points},
        "open_lines": {team.value: lines for team, lines in state.match.open_lines},
        "slate": [{"deal": e.number, "text": e.describe(), "stake": e.stake,
                   "points": {t.value: e.result.points[t] for t in Team}} for e in state.match.slate],
        "announcements": [[seat.value, a.label] for seat, a in state.deal.announcements],
        "warnings": [{"code": w.code.value, "seat": None if w.seat is None else w.seat.value, "message": w.message}
                     for w in state.warnings if not w.tentative],
        "match_winner": None if state.match.winner is None else state.match.winner.value,
        "time": state.time,
    }
