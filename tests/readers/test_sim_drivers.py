"""The sim backend driven without code: by a game record (``record=``) and by typed lines (``stdin=``).

The reader knows tags only; the app side (:mod:`tablepi.app.simdrive`) resolves records and typed cards, as the
running table does through :func:`open_configured_reader`.
"""

from __future__ import annotations

import io
import json
import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tablepi.app.demo import demo_deck
from tablepi.app.simdrive import open_configured_reader, record_script, uid_of_text
from tablepi.deck import load_deck_file, virtual_deck
from tablepi.deck import main as deck_main
from tablepi.errors import ConfigError, ParseError
from tablepi.readers import Reader, ZoneEvent
from tablepi.readers.sim import SimReader
from tablepi.rules.cards import DECK, Card
from tests.waits import wait_until

HEADER_UID = "04AABBCCDDEEFF"
KEPT_UID = "04112233445566"


def virtual_uid(card: str) -> str:
    uid = virtual_deck().uid_of(Card.parse(card))
    assert uid is not None
    return uid


def card_events(reader: Reader, count: int, timeout: float = 5.0) -> list[tuple[int, str, bool]]:
    """The first ``count`` card events the reader reports (statuses and snapshots skipped)."""
    out: list[tuple[int, str, bool]] = []
    deadline = time.monotonic() + timeout
    while len(out) < count and time.monotonic() < deadline:
        item = reader.recv(0.05)
        if isinstance(item, ZoneEvent):
            out.append((item.zone, item.uid, item.present))
    return out


def write_record(path: Path, header: dict[str, object], events: list[dict[str, object]]) -> Path:
    base = {"format": "tablepi-record", "version": 1}
    lines = [json.dumps(base | header)] + [json.dumps(e) for e in events]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


# --- the virtual deck ---------------------------------------------------------------------------------------------


def test_virtual_deck_is_the_demo_deck_and_complete() -> None:
    deck = virtual_deck()
    assert deck == demo_deck()
    assert deck.missing == ()
    assert deck.uid_of(Card.parse("QS")) == f"04D3{Card.parse('QS').index:02X}A1B2C3D4"
    assert len(set(deck.cards)) == len(DECK)
    assert virtual_deck("table").name == "table"


def test_virtual_deck_file_is_written_and_loads(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "virtual.toml"
    assert deck_main(["--virtual", str(out)]) == 0
    assert "virtual.toml" in capsys.readouterr().out
    (deck,) = load_deck_file(out)
    assert dict(deck.cards) == dict(virtual_deck().cards)


# --- record= ------------------------------------------------------------------------------------------------------


@pytest.fixture
def game_record(tmp_path: Path) -> Path:
    """Zones turned round (N sits at zone 3), one card in the header's deck, buttons and ticks in between."""
    return write_record(
        tmp_path / "game.jsonl",
        {
            "zones": {"0": "E", "1": "S", "2": "W", "3": "N"},
            "deck": {"name": "red", "cards": {HEADER_UID: "AS"}},
        },
        [
            {"type": "place", "t": 0.0, "seat": "N", "card": "AS"},
            {"type": "button", "t": 0.1, "name": "undo"},
            {"type": "place", "t": 0.2, "seat": "E", "card": "QS"},
            {"type": "tick", "t": 0.3},
            {"type": "lift", "t": 0.4, "seat": "N", "card": "AS"},
            {"type": "place", "t": 0.5, "seat": "W", "card": "9H", "uid": KEPT_UID},
            {"type": "lift", "t": 0.6, "zone": 0, "uid": virtual_uid("QS")},
        ],
    )


def test_record_replays_place_and_lift_in_order_with_zones_and_uids(game_record: Path) -> None:
    with open_configured_reader("sim", dict(record=str(game_record), speed=20.0)) as reader:
        assert card_events(reader, 5) == [
            (3, HEADER_UID, True),  # N is zone 3 by the header; AS has a tag in the header's deck
            (0, virtual_uid("QS"), True),  # QS is not in the header's deck: the virtual deck's tag
            (3, HEADER_UID, False),
            (2, KEPT_UID, True),  # a recorded uid is kept
            (0, virtual_uid("QS"), False),  # a zone-and-uid line resolved through the header's zones
        ]
        assert card_events(reader, 1, timeout=0.2) == []  # nothing more: buttons and ticks are not reader events


def test_record_times_are_divided_by_speed_and_buttons_are_skipped(game_record: Path) -> None:
    steps = record_script(game_record, speed=2.0)
    assert [(s.at, s.action, s.zone) for s in steps] == [
        (0.0, "place", 3),
        (0.1, "place", 0),
        (0.2, "lift", 3),
        (0.25, "place", 2),
        (0.3, "lift", 0),
    ]


def test_record_without_header_zones_uses_n_e_s_w(tmp_path: Path) -> None:
    path = write_record(
        tmp_path / "plain.jsonl",
        {},
        [{"type": "place", "t": 0, "seat": seat, "card": "KH"} for seat in "NESW"],
    )
    assert [(s.zone, s.uid) for s in record_script(path)] == [(z, virtual_uid("KH")) for z in range(4)]


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (None, "cannot read"),
        ("not json\n", "not JSON"),
        ('{"format": "tablepi-record", "version": 99}\n', "version"),
    ],
)
def test_bad_record_is_a_config_error_naming_option_and_file(
    tmp_path: Path, content: str | None, expected: str
) -> None:
    path = tmp_path / "broken.jsonl"
    if content is not None:
        path.write_text(content, encoding="utf-8")
    with pytest.raises(ConfigError, match="record") as err:
        open_configured_reader("sim", dict(record=str(path)))
    assert "broken.jsonl" in str(err.value)
    assert expected in str(err.value)


def test_bad_speed_and_zones_outside_the_reader_are_config_errors(game_record: Path) -> None:
    with pytest.raises(ConfigError, match="speed"):
        open_configured_reader("sim", dict(record=str(game_record), speed=0))
    with pytest.raises(ConfigError, match=r"zones 0\.\.1"):
        open_configured_reader("sim", dict(record=str(game_record), zones=2))


# --- stdin= -------------------------------------------------------------------------------------------------------


def test_typed_cards_and_uids() -> None:
    assert uid_of_text("QS") == uid_of_text("♠Q") == virtual_uid("QS")
    assert uid_of_text("10H") == virtual_uid("TH")
    assert uid_of_text("04:a1:b2:c3:d4:e5:f6") == "04A1B2C3D4E5F6"
    with pytest.raises(ParseError, match="neither a card"):
        uid_of_text("ZZ")


def test_stdin_places_lifts_and_survives_bad_lines(capsys: pytest.CaptureFixture[str]) -> None:
    lines = "\n".join(
        [
            "place 2 QS",
            "dance 2",  # unknown command
            "place 9 QS",  # no such zone
            "place 1",  # missing card
            "place 1 XX",  # neither card nor uid
            "# a comment, and a blank line next",
            "",
            "lift 2",
            "place 1 04A1B2C3D4E5F6",
        ]
    )
    with open_configured_reader("sim", dict(stdin_stream=io.StringIO(lines))) as reader:
        assert card_events(reader, 3) == [
            (2, virtual_uid("QS"), True),
            (2, virtual_uid("QS"), False),
            (1, "04A1B2C3D4E5F6", True),
        ]
    errors = capsys.readouterr().err.splitlines()
    assert len(errors) == 4
    assert errors[0].startswith("sim stdin line 2 'dance 2': unknown command")
    assert "zones 0..3" in errors[1]
    assert "place ZONE UID|CARD" in errors[2]
    assert "neither a card" in errors[3]


def _stdin_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "sim-stdin"]


@pytest.fixture
def pipe() -> Iterator[tuple[io.TextIOWrapper, io.TextIOWrapper]]:
    read_fd, write_fd = os.pipe()
    with os.fdopen(read_fd, "r", encoding="utf-8") as r, os.fdopen(write_fd, "w", encoding="utf-8") as w:
        yield r, w


def test_stdin_pipe_drives_unplug_replug_and_stops_at_end_of_input(
    pipe: tuple[io.TextIOWrapper, io.TextIOWrapper],
) -> None:
    read_end, write_end = pipe
    before = set(_stdin_threads())
    with open_configured_reader("sim", dict(stdin_stream=read_end)) as reader:
        assert isinstance(reader, SimReader)
        (thread,) = set(_stdin_threads()) - before
        write_end.write("place 0 AD\nunplug 0\nlift 0\n")
        write_end.flush()
        assert card_events(reader, 1) == [(0, virtual_uid("AD"), True)]
        wait_until(lambda: reader.truth[0] is None, "the lift on zone 0 to be read", every=0.01)
        assert card_events(reader, 1, timeout=0.2) == []  # lifted while unplugged: nothing yet
        write_end.write("replug\nmulti 3\n")
        write_end.close()
        assert card_events(reader, 1) == [(0, virtual_uid("AD"), False)]
        thread.join(5)
        assert not thread.is_alive()


def test_stdin_flag_accepts_config_text_and_refuses_nonsense() -> None:
    with pytest.raises(ConfigError, match="stdin"):
        open_configured_reader("sim", dict(stdin="maybe"))
    open_configured_reader("sim", dict(stdin="false")).close()
