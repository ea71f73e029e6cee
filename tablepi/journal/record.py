"""Game records: the versioned JSON Lines format of docs/records.md.

A record is a header line then one table event per line::

    {"format": "tablepi-record", "version": 1, "house_rules": {...}, "dealer": "N"}
    {"type": "place", "t": 0.0, "seat": "W", "card": "AH"}
    {"type": "lift", "t": 0.4, "seat": "W", "card": "AH"}
    {"type": "place", "t": 3.2, "zone": 2, "uid": "04A1B2C3D4E5F6"}
    {"type": "button", "t": 9.0, "name": "undo"}

A user files a bug by attaching one; ``tablepi replay`` plays it back. Every malformed line is a
:class:`~tablepi.errors.RecordError` naming the line and what is wrong.
"""

from __future__ import annotations

import gzip
import json
import math
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from tablepi.errors import ConfigError, ParseError, RecordError
from tablepi.rules.cards import Card, Suit
from tablepi.rules.deal import WINNING_POINTS, Announcement
from tablepi.rules.entry import TOTAL_POINTS, DealEntry
from tablepi.rules.house import HouseRules
from tablepi.rules.seats import Seat, Team
from tablepi.safeinput import check_json, clean_text, load_json, shown
from tablepi.table.events import (
    Button,
    ButtonName,
    CardEntered,
    CardLifted,
    CardPlaced,
    CorrectionAnswered,
    CorrectionProposed,
    DealEntered,
    DealerChosen,
    HandEvent,
    PlayersSeated,
    ReaderCrosstalk,
    ReaderState,
    ReaderStatus,
    SeatingSource,
    TableEvent,
    Tick,
    TrumpsEntered,
)
from tablepi.table.state import TableConfig

FORMAT = "tablepi-record"
VERSION = 2
#: Versions this tablepi reads: version 1 records read unchanged; version 2 adds the gestures by hand.
VERSIONS = (1, 2)

#: Event types of version 2: the gestures by hand (docs/records.md).
_HAND_TYPES = ("hand_card", "hand_trumps", "deal_entry", "correction", "answer", "seat", "dealer")
_EVENT_TYPES = ("place", "lift", "button", "reader", "crosstalk", "tick", *_HAND_TYPES)


@dataclass(frozen=True, slots=True)
class RecordHeader:
    """The first line: the rules the record was played under, the first dealer, and how to read uid events.

    ``zones`` maps reader zone numbers to seats and ``deck`` maps tag UIDs to cards (``deck_name`` names the
    deck), so that raw ``{"zone": 2, "uid": ...}`` lines replay without the table's configuration files.
    """

    house_rules: HouseRules = field(default_factory=HouseRules)
    dealer: Seat = Seat.N
    table: TableConfig = field(default_factory=TableConfig)
    zones: tuple[tuple[int, Seat], ...] = ()
    deck: tuple[tuple[str, Card], ...] = ()
    deck_name: str = ""
    version: int = field(default=VERSION, compare=False)  # the version read (a new header: the current one)

    def seat_of_zone(self, zone: int) -> Seat | None:
        for number, seat in self.zones:
            if number == zone:
                return seat
        return None

    def card_of_uid(self, uid: str) -> Card | None:
        for known, card in self.deck:
            if known == uid:
                return card
        return None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "format": FORMAT,
            "version": self.version,
            "house_rules": self.house_rules.to_mapping(),
            "dealer": self.dealer.value,
            "table": self.table.to_mapping(),
        }
        if self.zones:
            out["zones"] = {str(zone): seat.value for zone, seat in self.zones}
        if self.deck:
            out["deck"] = {"name": self.deck_name, "cards": {uid: str(card) for uid, card in self.deck}}
        return out


@dataclass(frozen=True, slots=True)
class Record:
    header: RecordHeader
    events: tuple[TableEvent, ...]


def parse_header(obj: object, line: int = 1) -> RecordHeader:
    """Validate a header mapping (line ``line`` of a record)."""
    if not isinstance(obj, dict):
        raise RecordError.at(line, f"the header must be a JSON object, got {type(obj).__name__}")
    if obj.get("format") != FORMAT:
        got = shown(obj.get("format"))
        raise RecordError.at(line, f"not a tablepi record (\"format\" must be {FORMAT!r}, got {got})")
    version = obj.get("version")
    if type(version) is not int:  # true == 1 in Python: a boolean or 1.0 is not a version number
        raise RecordError.at(line, f"\"version\" must be a whole number, got {shown(version)}")
    if version not in VERSIONS:
        raise RecordError.at(line, f"record version {shown(version)} is not supported (this tablepi reads "
                          f"{', '.join(map(str, VERSIONS))})")
    unknown = sorted(set(obj) - {"format", "version", "house_rules", "dealer", "table", "zones", "deck"})
    if unknown:
        raise RecordError.at(line, f"unknown header key {shown(unknown[0])}")
    try:
        rules = HouseRules.from_mapping(obj.get("house_rules", {}))
        dealer = Seat.parse(_text(obj.get("dealer", "N"), "dealer", line))
        table = TableConfig.from_mapping(obj.get("table", {}))
    except (ConfigError, ParseError) as err:
        raise RecordError.at(line, f"{err}") from None
    zones: list[tuple[int, Seat]] = []
    raw_zones = obj.get("zones", {})
    if not isinstance(raw_zones, dict):
        raise RecordError.at(line, "\"zones\" must map zone numbers to seats")
    for key, value in raw_zones.items():
        if not (isinstance(key, str) and key.isascii() and key.isdigit() and len(key) <= 3):
            raise RecordError.at(line, f"zones: {shown(key)} is not a zone number")
        try:
            zones.append((int(key), Seat.parse(_text(value, f"zones.{key}", line))))
        except (ValueError, ParseError) as err:
            raise RecordError.at(line, f"zones.{key}: {err}") from None
    deck: list[tuple[str, Card]] = []
    deck_name = ""
    raw_deck = obj.get("deck")
    if raw_deck is not None:
        if not isinstance(raw_deck, dict) or not isinstance(raw_deck.get("cards"), dict):
            raise RecordError.at(line, "\"deck\" must be {\"name\": ..., \"cards\": {uid: card}}")
        deck_name = _text(raw_deck.get("name", ""), "deck.name", line)
        for uid, text in raw_deck["cards"].items():
            deck.append((uid.upper(), _card(text, f"deck card {shown(uid)}", line)))
    return RecordHeader(rules, dealer, table, tuple(sorted(zones)), tuple(deck), deck_name, version)


def event_to_json(event: TableEvent) -> dict[str, Any]:
    """One event as a record line's object (the inverse of :func:`parse_event`)."""
    out: dict[str, Any]
    if isinstance(event, CardPlaced | CardLifted):
        out = {"type": "place" if isinstance(event, CardPlaced) else "lift", "t": event.time,
               "seat": event.seat.value}
        if event.card is not None:
            out["card"] = str(event.card)
        if event.uid:
            out["uid"] = event.uid
        if event.deck:
            out["deck"] = event.deck
        if isinstance(event, CardLifted) and event.misread:
            out["misread"] = True
        return out
    if isinstance(event, Button):
        out = {"type": "button", "t": event.time, "name": event.name.value}
        if event.seat is not None:
            out["seat"] = event.seat.value
        return out
    if isinstance(event, HandEvent):
        return hand_event_to_json(event)
    if isinstance(event, ReaderStatus):
        out = {"type": "reader", "t": event.time, "seat": event.seat.value, "state": event.state.value}
        if event.detail:
            out["detail"] = event.detail
        return out
    if isinstance(event, ReaderCrosstalk):
        out = {"type": "crosstalk", "t": event.time, "seat": event.seat.value}
        if event.card is not None:
            out["card"] = str(event.card)
        if event.uid:
            out["uid"] = event.uid
        if event.holder is not None:
            out["holder"] = event.holder.value
        return out
    return {"type": "tick", "t": event.time}


def event_to_line(event: TableEvent) -> str:
    return json.dumps(event_to_json(event), ensure_ascii=False, separators=(", ", ": "))


def checked_line(event: TableEvent, header: RecordHeader) -> str:
    """``event``'s record line, read back by the very reader that replays it (:func:`parse_event`) before it is
    written anywhere: RecordError, one line saying why, when the line would not read back as this same event (a
    name too long or on two lines, a time that is not a number, a text JSON cannot carry)."""
    try:
        line = event_to_line(event)
        back = parse_event(load_json(line), header, 1, event.time)
    except RecordError as err:
        raise RecordError(clean_text(err.problem)) from None
    except ValueError as err:
        raise RecordError(clean_text(str(err))) from None
    if back != event:
        raise RecordError(clean_text(f"it would read back as another event ({shown(str(back))})"))
    return line


def parse_event(obj: object, header: RecordHeader, line: int, previous_time: float = 0.0,
                salvage: list[str] | None = None) -> TableEvent:
    """Validate one event object (line ``line``). A missing ``"t"`` means the time of the previous event.

    With ``salvage`` (reading a journal an earlier tablepi wrote), a seating whose names this version refuses is
    read with the names made fit (:func:`tablepi.players.fit_name`, control characters as spaces; a seat whose name
    is then empty is left out, a seating left with none is a tick) and a note saying so is appended."""
    if not isinstance(obj, dict):
        raise RecordError.at(line, f"an event must be a JSON object, got {type(obj).__name__}")
    kind = obj.get("type")
    if kind not in _EVENT_TYPES:
        raise RecordError.at(line, f"unknown event type {shown(kind)} (expected one of {', '.join(_EVENT_TYPES)})")
    time = obj.get("t", previous_time)
    if isinstance(time, bool) or not isinstance(time, int | float) or not math.isfinite(time) or time < 0:
        raise RecordError.at(line, f"\"t\" must be seconds since the record's start, got {shown(time)}")
    if time < previous_time:
        raise RecordError.at(line, f"time goes backwards ({time} after {previous_time})")
    time = float(time)
    if kind in _HAND_TYPES or kind == "crosstalk":
        if header.version < 2:
            raise RecordError.at(line, f"a {kind} event needs record version 2 (the header says {header.version})")
        if kind != "crosstalk":
            if salvage is not None and kind == "seat":
                try:
                    return parse_hand_event(obj, kind, time, line)
                except RecordError as err:
                    return _salvaged_seating(obj, time, line, err, salvage)
            return parse_hand_event(obj, kind, time, line)
    allowed = {
        "place": {"type", "t", "seat", "zone", "card", "uid", "deck"},
        "lift": {"type", "t", "seat", "zone", "card", "uid", "deck", "misread"},
        "button": {"type", "t", "name", "seat"},
        "reader": {"type", "t", "seat", "zone", "state", "detail"},
        "crosstalk": {"type", "t", "seat", "zone", "card", "uid", "holder"},
        "tick": {"type", "t"},
    }[kind]
    unknown = sorted(set(obj) - allowed)
    if unknown:
        raise RecordError.at(line, f"unknown key {shown(unknown[0])} in a {kind} event")
    if kind == "tick":
        return Tick(time)
    if kind == "button":
        name = obj.get("name")
        try:
            button = ButtonName(name)
        except ValueError:
            names = ", ".join(b.value for b in ButtonName)
            raise RecordError.at(line, f"unknown button {shown(name)} (expected one of {names})") from None
        seat = _seat(obj["seat"], line) if obj.get("seat") is not None else None
        return Button(time, button, seat)
    seat = _event_seat(obj, header, line)
    if kind == "reader":
        state = obj.get("state")
        try:
            reader_state = ReaderState(state)
        except ValueError:
            states = ", ".join(s.value for s in ReaderState)
            raise RecordError.at(line, f"unknown reader state {shown(state)} (expected one of {states})") from None
        detail = obj.get("detail", "")
        return ReaderStatus(time, seat, reader_state, _text(detail, "detail", line))
    uid = obj.get("uid", "")
    uid = _text(uid, "uid", line).upper() if uid else ""
    if kind == "crosstalk":
        holder = _seat(obj["holder"], line) if obj.get("holder") is not None else None
        heard = _card(obj["card"], "card", line) if obj.get("card") is not None else header.card_of_uid(uid)
        if heard is None and not uid:
            raise RecordError.at(line, "a crosstalk event needs \"card\" or \"uid\"")
        return ReaderCrosstalk(time, seat, heard, uid, holder)
    deck = _text(obj.get("deck", ""), "deck", line)
    card: Card | None = None
    if obj.get("card") is not None:
        card = _card(obj["card"], "card", line)
    elif uid:
        card = header.card_of_uid(uid)
        if card is not None and not deck:
            deck = header.deck_name
    else:
        raise RecordError.at(line, f"a {kind} event needs \"card\" or \"uid\"")
    if kind == "place":
        return CardPlaced(time, seat, card, uid, deck)
    misread = obj.get("misread", False)
    if not isinstance(misread, bool):
        raise RecordError.at(line, f"\"misread\" must be true or false, got {shown(misread)}")
    return CardLifted(time, seat, card, uid, deck, misread)


def read_record(lines: Iterable[str], salvage: list[str] | None = None) -> Record:
    """Parse a record from its lines. Blank lines are skipped; anything else malformed raises RecordError (with
    ``salvage``, a seating an earlier tablepi wrote is made to read, and a note says so: :func:`parse_event`)."""
    header: RecordHeader | None = None
    events: list[TableEvent] = []
    previous = 0.0
    for number, text in enumerate(lines, start=1):
        if not text.strip():
            continue
        if number == 1:
            text = text.removeprefix("\ufeff")  # a byte-order mark from a Windows editor: accepted
        try:
            obj = load_json(text)
        except ValueError as err:
            raise RecordError.at(number, str(err)) from None
        if header is None:
            header = parse_header(obj, number)
            continue
        notes: list[str] | None = None if salvage is None else []
        event = parse_event(obj, header, number, previous, notes)
        if salvage is not None and notes:
            salvage.extend(f"line {number}: {note}" for note in notes)
        previous = event.time
        events.append(event)
    if header is None:
        raise RecordError.at(1, "the record is empty (a header line is required)")
    return Record(header, tuple(events))


def load_record(path: str | Path, salvage: list[str] | None = None) -> Record:
    """Read a record file (plain or gzip-compressed, as the archive keeps them); errors name the file and line.
    ``salvage``: see :func:`read_record` (the notes then name the file too)."""
    try:
        with open(path, "rb") as raw:
            compressed = raw.read(2) == b"\x1f\x8b"
        opened = gzip.open(path, "rt", encoding="utf-8") if compressed else open(path, encoding="utf-8")  # noqa: SIM115
        with opened as handle:
            notes: list[str] | None = None if salvage is None else []
            record = read_record(_numbered_text(handle), notes)
            if salvage is not None and notes:
                salvage.extend(clean_text(f"{path}: {note}") for note in notes)
            return record
    except RecordError as err:
        raise err.located(path, clean_text(str(err))) from None
    except UnicodeDecodeError as err:
        raise RecordError(f"{path}: not UTF-8 text (byte {err.start} of a line: {err.reason})", path=path) from None
    except (OSError, EOFError, gzip.BadGzipFile) as err:
        raise RecordError(f"{path}: cannot read the record: {err}", path=path) from None


def _numbered_text(handle: TextIO) -> Iterator[str]:
    """Lines of ``handle``; a line too long to be a record line is cut (and then fails to parse, named)."""
    from tablepi.safeinput import MAX_LINE

    while True:
        line = handle.readline(MAX_LINE + 1)
        if not line:
            return
        if len(line) > MAX_LINE and not line.endswith("\n"):
            rest = handle.readline(MAX_LINE)
            while rest and not rest.endswith("\n"):
                rest = handle.readline(MAX_LINE)
        yield line


def record_lines(header: RecordHeader, events: Iterable[TableEvent]) -> Iterator[str]:
    yield json.dumps(header.to_json(), ensure_ascii=False, separators=(", ", ": "))
    for event in events:
        yield event_to_line(event)


def write_record(out: TextIO, header: RecordHeader, events: Iterable[TableEvent]) -> int:
    """Write a record; returns the number of events written."""
    lines = 0
    for line in record_lines(header, events):
        out.write(line + "\n")
        lines += 1
    return lines - 1


def _text(value: object, key: str, line: int) -> str:
    if not isinstance(value, str):
        raise RecordError.at(line, f"\"{key}\" must be text, got {shown(value)}")
    try:
        check_json(value)
    except ValueError as err:
        raise RecordError.at(line, f"\"{key}\": {err}") from None
    return value


def _seat(value: object, line: int) -> Seat:
    try:
        return Seat.parse(_text(value, "seat", line))
    except ParseError as err:
        raise RecordError.at(line, f"{err}") from None


def _card(value: object, key: str, line: int) -> Card:
    try:
        return Card.parse(_text(value, key, line))
    except ParseError as err:
        raise RecordError.at(line, f"{err}") from None


def _suit(value: object, line: int) -> Suit:
    try:
        return Suit.parse(_text(value, "suit", line))
    except ParseError as err:
        raise RecordError.at(line, f"{err}") from None


def _event_seat(obj: Mapping[str, Any], header: RecordHeader, line: int) -> Seat:
    if obj.get("seat") is not None:
        return _seat(obj["seat"], line)
    zone = obj.get("zone")
    if isinstance(zone, bool) or not isinstance(zone, int):
        raise RecordError.at(line, "the event needs \"seat\" or a \"zone\" number")
    seat = header.seat_of_zone(zone)
    if seat is None:
        raise RecordError.at(line, f"zone {shown(zone)} is not mapped to a seat in the header's \"zones\"")
    return seat


# --- version 2: the gestures by hand ---------------------------------------------------------------------------


def entry_to_json(entry: DealEntry) -> dict[str, Any]:
    """A deal told by hand as record keys (``trumps``, ``winner``, ``points``, ``kapo``, ``claimed_by``,
    ``announcements``)."""
    return {
        "trumps": entry.trumps.value,
        "winner": None if entry.winner is None else entry.winner.value,
        "points": entry.points,
        "kapo": entry.kapo,
        "claimed_by": None if entry.claimed_by is None else entry.claimed_by.value,
        "announcements": [{"seat": seat.value, "announcement": a.value} for seat, a in entry.announcements],
    }


def hand_event_to_json(event: HandEvent) -> dict[str, Any]:
    if isinstance(event, CardEntered):
        return {"type": "hand_card", "t": event.time, "seat": event.seat.value, "card": str(event.card)}
    if isinstance(event, TrumpsEntered):
        return {"type": "hand_trumps", "t": event.time, "seat": event.seat.value, "suit": event.suit.value}
    if isinstance(event, DealEntered):
        return {"type": "deal_entry", "t": event.time, **entry_to_json(event.entry)}
    if isinstance(event, CorrectionProposed):
        out: dict[str, Any] = {"type": "correction", "t": event.time, "deal": event.deal, **entry_to_json(event.entry)}
        if event.team is not None:
            out["team"] = event.team.value
        return out
    if isinstance(event, CorrectionAnswered):
        return {"type": "answer", "t": event.time, "team": event.team.value, "accept": event.accept}
    if isinstance(event, PlayersSeated):
        out = {"type": "seat", "t": event.time, "names": {seat.value: name for seat, name in event.names},
               "source": event.source.value}
        if event.uid:
            out["uid"] = event.uid
        if event.round is not None:
            out["round"] = event.round
        if event.round_deals is not None:
            out["round_deals"] = event.round_deals
        return out
    return {"type": "dealer", "t": event.time, "seat": event.seat.value}


_ENTRY_KEYS = {"trumps", "winner", "points", "kapo", "claimed_by", "announcements"}
_HAND_KEYS = {
    "hand_card": {"seat", "card"},
    "hand_trumps": {"seat", "suit"},
    "deal_entry": _ENTRY_KEYS,
    "correction": {"deal", "team", *_ENTRY_KEYS},
    "answer": {"team", "accept"},
    "seat": {"names", "source", "uid", "round", "round_deals"},
    "dealer": {"seat"},
}


def parse_hand_event(obj: Mapping[str, Any], kind: str, time: float, line: int) -> HandEvent:
    """One version-2 event (its type and time already checked)."""
    unknown = sorted(set(obj) - {"type", "t"} - _HAND_KEYS[kind])
    if unknown:
        raise RecordError.at(line, f"unknown key {shown(unknown[0])} in a {kind} event")
    if kind == "hand_card":
        return CardEntered(time, _seat(obj.get("seat"), line), _card(obj.get("card"), "card", line))
    if kind == "hand_trumps":
        return TrumpsEntered(time, _seat(obj.get("seat"), line), _suit(obj.get("suit"), line))
    if kind == "deal_entry":
        return DealEntered(time, _entry(obj, line))
    if kind == "correction":
        number = obj.get("deal")
        if isinstance(number, bool) or not isinstance(number, int) or number < 1:
            raise RecordError.at(line, f"\"deal\" must be the number of a scored deal, got {shown(number)}")
        team = _team(obj["team"], line) if obj.get("team") is not None else None
        return CorrectionProposed(time, number, _entry(obj, line), team)
    if kind == "answer":
        accept = obj.get("accept")
        if not isinstance(accept, bool):
            raise RecordError.at(line, f"\"accept\" must be true or false, got {shown(accept)}")
        return CorrectionAnswered(time, _team(obj.get("team"), line), accept)
    if kind == "seat":
        return _seating(obj, time, line)
    return DealerChosen(time, _seat(obj.get("seat"), line))


def _seating(obj: Mapping[str, Any], time: float, line: int) -> PlayersSeated:
    from tablepi.players import check_name

    raw = obj.get("names")
    if not isinstance(raw, dict) or not raw:
        raise RecordError.at(line, "\"names\" must map seats to names, e.g. {\"N\": \"Jang\"}")
    names = []
    for key, name in raw.items():
        try:
            names.append((Seat.parse(str(key)), check_name(name)))
        except (ParseError, ConfigError) as err:
            raise RecordError.at(line, f"names.{key}: {err}") from None
    try:
        source = SeatingSource(obj.get("source", "touch"))
    except ValueError:
        sources = ", ".join(s.value for s in SeatingSource)
        raise RecordError.at(line, f"unknown seating source {shown(obj.get('source'))} (expected one of {sources})") \
            from None
    uid = _text(obj.get("uid", ""), "uid", line)
    number, deals = obj.get("round"), obj.get("round_deals")
    for key, value in (("round", number), ("round_deals", deals)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 1000):
            raise RecordError.at(line, f"\"{key}\" must be a tournament round (deals) from 1, got {shown(value)}")
    return PlayersSeated(time, tuple(names), source, uid, number, deals)


def _salvaged_seating(obj: Mapping[str, Any], time: float, line: int, err: RecordError,
                      notes: list[str]) -> PlayersSeated | Tick:
    """A seating an earlier tablepi journaled with a name this one refuses (too long, a line break in it): the
    names made fit, or, when nothing of it reads, a tick (the time passing is all that is left of it)."""
    import unicodedata

    from tablepi.players import fit_name

    raw = obj.get("names")
    names: list[tuple[Seat, str]] = []
    if isinstance(raw, dict):
        for key, name in raw.items():
            if not isinstance(name, str):
                continue
            text = "".join(" " if unicodedata.category(ch)[0] == "C" or unicodedata.category(ch) in ("Zl", "Zp")
                           else ch for ch in name)
            try:
                names.append((Seat.parse(str(key)), fit_name(text)[0]))
            except (ParseError, ConfigError):
                continue
    try:
        source = SeatingSource(obj.get("source", "touch"))
        uid = _text(obj.get("uid", ""), "uid", line).upper()
    except (ValueError, RecordError):
        source, uid = SeatingSource.TOUCH, ""
    why = err.problem
    if not names:
        notes.append(f"a seating that does not read was skipped ({why})")
        return Tick(time)
    seated = ", ".join(f"{seat} {name}" for seat, name in names)
    notes.append(f"a seating that does not read ({why}) was read as: {seated}")
    return PlayersSeated(time, tuple(names), source, uid)


def _team(value: object, line: int) -> Team:
    try:
        return Team.parse(_text(value, "team", line))
    except ParseError as err:
        raise RecordError.at(line, f"{err}") from None


def _entry(obj: Mapping[str, Any], line: int) -> DealEntry:
    from tablepi.errors import RulesError

    winner = _team(obj["winner"], line) if obj.get("winner") is not None else None
    claimed = _team(obj["claimed_by"], line) if obj.get("claimed_by") is not None else None
    points = obj.get("points")
    if points is not None and (isinstance(points, bool) or not isinstance(points, int)):
        raise RecordError.at(line, f"\"points\" must be the winners' points ({WINNING_POINTS}-{TOTAL_POINTS}) or null, "
                                   f"got {shown(points)}")
    kapo = obj.get("kapo", False)
    if not isinstance(kapo, bool):
        raise RecordError.at(line, f"\"kapo\" must be true or false, got {shown(kapo)}")
    raw = obj.get("announcements", [])
    if not isinstance(raw, list):
        raise RecordError.at(line, "\"announcements\" must be a list of {\"seat\", \"announcement\"}")
    announcements = []
    for item in raw:
        if not isinstance(item, dict) or set(item) != {"seat", "announcement"}:
            raise RecordError.at(line, "an announcement is {\"seat\": \"E\", \"announcement\": \"matt\"}")
        try:
            announcement = Announcement(item["announcement"])
        except ValueError:
            names = ", ".join(a.value for a in Announcement)
            got = shown(item["announcement"])
            raise RecordError.at(line, f"unknown announcement {got} (expected {names})") from None
        announcements.append((_seat(item["seat"], line), announcement))
    try:
        return DealEntry(_seat(obj.get("trumps"), line), winner, points, kapo, claimed, tuple(announcements))
    except RulesError as err:
        raise RecordError.at(line, f"{err}") from None
