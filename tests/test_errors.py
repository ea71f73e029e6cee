"""One error tree whose errors carry their fields (STYLE.md 16): the key, line, path or code an error is about is a
field that code reads, and the message — the one line a person reads — is made from the same facts."""

from __future__ import annotations

import doctest
import gzip
import importlib
import json
from pathlib import Path

import pytest

from tablepi import errors
from tablepi.config import load_config, parse_config
from tablepi.errors import (
    ConfigError,
    FeedError,
    OutputError,
    ProtocolError,
    ReaderError,
    RecordError,
    TablepiError,
)
from tablepi.feed.replay import JournalFeed
from tablepi.journal.record import RecordHeader, checked_line, load_record, read_record
from tablepi.rules import Seat
from tablepi.table.events import PlayersSeated, SeatingSource, Tick
from tablepi.tournament.server import TournamentError, read_message

HEADER = '{"format": "tablepi-record", "version": 2}'


def test_the_doctests_of_the_error_tree_and_the_line_finder_teach_correctly() -> None:
    for name in ("tablepi.errors", "tablepi.rules.errors", "tablepi.safeinput"):
        assert doctest.testmod(importlib.import_module(name)).failed == 0, name


def test_every_error_of_the_project_is_in_the_one_tree() -> None:
    from tablepi.book.store import BookError
    from tablepi.readers import protocol

    for cls in (*[getattr(errors, name) for name in errors.__all__ if name != "RulesCode"], TournamentError, BookError):
        assert issubclass(cls, TablepiError), cls
    assert protocol.ProtocolError is ProtocolError  # one class, not a second one for the link


# --- configuration ------------------------------------------------------------------------------------------


def test_a_config_error_names_key_file_and_line_as_fields_and_in_its_line(tmp_path: Path) -> None:
    path = tmp_path / "tablepi.toml"
    path.write_text("[table]\n# the table\n\ntap_seconds = 9\n", encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        load_config(path)
    err = info.value
    assert (err.key, err.path, err.line) == ("table.tap_seconds", str(path), 4)
    assert str(err) == f"{path}: line 4: table.tap_seconds: expected seconds between 0.2 and 5, got 9"


@pytest.mark.parametrize(
    ("text", "key", "line"),
    [
        ("[house_rules]\nclaims = 1\n", "house_rules.claims", 2),  # raised by the rules
        ("[feed]\n\nport = 0\n", "feed.port", 3),  # by the feed's own section
        ("[players]\nseasons = { s = ['2026-01-01', 'x'] }\n", "players.seasons.s", 2),  # by the players' book
        ("[controls]\n\n\nbounce_seconds = 5\n", "controls.bounce_seconds", 4),  # by the controls
        ("[readers]\nzones = { N = 0, E = 0, S = 2, W = 3 }\n", "readers.zones.E", 2),  # found at its table
        ("[tabel]\n", "tabel", None),  # an unknown section: named, no line of its own
    ],
)
def test_the_line_is_found_by_the_errors_key_whoever_raised_it(text: str, key: str, line: int | None) -> None:
    with pytest.raises(ConfigError) as info:
        parse_config(text)
    assert (info.value.key, info.value.line, info.value.path) == (key, line, "configuration")
    prefix = "configuration: " + (f"line {line}: " if line is not None else "")
    assert str(info.value).startswith(prefix + key + ": ")


def test_a_message_that_looks_like_a_key_is_not_read_for_one() -> None:
    """The line comes from the field: an error without a key gets none, whatever its words look like."""
    plain = ConfigError("table.journal: looks like a key but is not one")
    assert plain.key is None and plain.located("f.toml").line is None
    assert str(plain.located("f.toml")) == "f.toml: table.journal: looks like a key but is not one"


# --- records and journals -----------------------------------------------------------------------------------


def test_a_record_error_carries_line_problem_and_file(tmp_path: Path) -> None:
    path = tmp_path / "match.jsonl.gz"
    with gzip.open(path, "wt", encoding="utf-8") as out:
        out.write(HEADER + '\n{"type": "tick", "t": 2}\n{"type": "tick", "t": 1}\n')
    with pytest.raises(RecordError) as info:
        load_record(path)
    err = info.value
    assert (err.path, err.line, err.problem) == (str(path), 3, "time goes backwards (1 after 2.0)")
    assert str(err) == f"{path}: line 3: time goes backwards (1 after 2.0)"


def test_salvage_notes_name_their_line_once() -> None:
    notes: list[str] = []
    record = read_record([HEADER, '{"type": "seat", "names": {"N": "Jang\\nMarie"}}'], notes)
    assert record.events == (PlayersSeated(0.0, ((Seat.N, "Jang Marie"),), SeatingSource.TOUCH),)
    assert len(notes) == 1 and notes[0].startswith("line 2: a seating that does not read (names.N: ")


def test_an_event_that_would_not_read_back_says_why_without_a_line() -> None:
    with pytest.raises(RecordError) as info:
        checked_line(Tick(float("nan")), RecordHeader())
    assert not str(info.value).startswith("line ") and info.value.problem == str(info.value)


def test_a_journal_event_that_does_not_read_names_its_seq(tmp_path: Path) -> None:
    from tablepi.journal.journal import _parse_lines

    notes: list[str] = []
    lines = iter([(1, '{"type": "tick", "t": 1}'), (2, '{"type": "seat", "names": {"N": "a\\nb"}}'),
                  (3, '{"type": "tick", "t": 0.5}')])
    with pytest.raises(RecordError) as info:
        _parse_lines(tmp_path / "j.sqlite3", RecordHeader(), lines, notes)
    err = info.value
    assert (err.line, err.problem, err.path) == (3, "time goes backwards (0.5 after 1.0)", str(tmp_path / "j.sqlite3"))
    assert str(err) == f"{tmp_path / 'j.sqlite3'}: journal event 3: time goes backwards (0.5 after 1.0)"
    assert notes and notes[0].startswith(f"{tmp_path / 'j.sqlite3'}: journal event 2: a seating that does not read")


# --- the tournament's replay --------------------------------------------------------------------------------


def test_a_broken_header_is_known_by_its_seq_not_by_the_words_of_why() -> None:
    feed = JournalFeed("j1")
    assert feed.add(0, {"header": {"format": "nope"}})
    assert feed.broken.startswith("header: ") and feed.broken_at == 0
    assert feed.knows(0) and not feed.add(0, {"header": json.loads(HEADER)})  # not taken twice
    other = JournalFeed("j2")
    other.add(0, {"header": json.loads(HEADER)})
    other.add(1, {"event": {"type": "zz"}})
    other.advance()
    assert other.broken_at == 1 and other.broken.startswith("event 1: ")
    assert JournalFeed("j3", broken="header: words that say header do not decide").knows(0) is False


# --- the other errors ---------------------------------------------------------------------------------------


def test_feed_reader_output_and_protocol_errors_carry_their_fields(tmp_path: Path) -> None:
    with pytest.raises(FeedError) as feed:
        read_message("7", "events", json.dumps({"v": 1, "table": "7", "seq": -1}).encode())
    assert feed.value.field == "seq"
    with pytest.raises(FeedError) as other:
        read_message("7", "events", json.dumps({"v": 1, "table": "8"}).encode())
    assert other.value.field == "table"

    from tablepi.readers.registry import open_reader

    with pytest.raises(ReaderError) as reader:
        open_reader("tablepi.readers.nosuch:Reader")
    assert reader.value.backend == "tablepi.readers.nosuch:Reader"

    from tablepi.app.screen import FrameSaver

    (tmp_path / "file").write_text("", encoding="utf-8")
    with pytest.raises(OutputError) as output:
        FrameSaver(tmp_path / "file")
    assert output.value.path == str(tmp_path / "file")

    from tablepi.readers import protocol as p

    with pytest.raises(ProtocolError) as proto:
        p.parse_line(b"1 PING*0000\r\n")
    assert proto.value.reason == "CRC" and proto.value.seq == 1
