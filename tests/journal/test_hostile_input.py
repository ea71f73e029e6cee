"""Hostile input to every reader of files: one clear line naming the file and the problem, never a traceback.

Fixed seed: 3,000 mutated game records (read, and replayed when they read), 1,500 mutated configuration files,
1,500 mutated deck files and 300 mutated player files. Mutations: deep nesting, enormous integers and exponents,
lone surrogates, a BOM, a 200 KB field, invalid UTF-8, flipped bytes, cut lines, swapped types, ``"version": true``.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from tablepi.commands.replay import format_text
from tablepi.config import DEFAULT_CONFIG, load_config
from tablepi.deck import load_deck_file, render_deck_file, virtual_deck
from tablepi.errors import ConfigError, RecordError
from tablepi.journal.record import load_record
from tablepi.players import load_players_file
from tablepi.table import Table
from tablepi.table.summary import replay_report

RECORD = (Path(__file__).resolve().parents[1] / "records" / "full_match.jsonl").read_text().splitlines()[:80]

JSON_VALUES = [
    "[" * 5000 + "]" * 5000, "{\"a\":" * 3000 + "1" + "}" * 3000, "9" * 5000, "1" + "0" * 400, "1e400", "-1e400",
    "NaN", "Infinity", "\"\\ud800\"", "\"\\udfff x\"", "true", "false", "null", "{}", "[]", "\"\"", "-1",
    "1.5e308", "\"" + "x" * 200_000 + "\"", "\"\\u0000\"", "\"line\\nbreak\"", "4.9e-324", "[1, [2, [3]]]",
    "12345678901234567890123", "\"ZZ\"", "\"N\"", "0.0", "3", "\"place\"",
]
TOML_VALUES = [
    "[" * 3000 + "]" * 3000, "{a = " * 500 + "1" + "}" * 500, "9" * 5000, "1e400", "nan", "inf", "true",
    "\"\\ud800\"", "\"\\uDFFF\"", "\"" + "x" * 200_000 + "\"", "-1", "0", "[]", "{}", "\"\"", "1979-05-27",
    "\"\\u0000\"", "'''a\nb'''", "99999999999999999999", "\"/dev/null\\u0000x\"", "[1, \"a\"]",
]


def _one_line(err: Exception, path: Path) -> None:
    text = str(err)
    assert "\n" not in text and "\r" not in text, text[:200]
    assert len(text) <= 400, text[:200]
    assert text.startswith(str(path)), text[:200]
    text.encode("utf-8")  # printable: no lone surrogate reaches a terminal


def _mutate_lines(rng: random.Random, lines: list[str], values: list[str]) -> bytes:
    lines = list(lines)
    index = rng.randrange(len(lines))
    op = rng.randrange(9)
    line = lines[index]
    if op == 0:  # a value replaced by something hostile
        parts = line.split(": ")
        if len(parts) > 1:
            spot = rng.randrange(1, len(parts))
            rest = parts[spot]
            cut = min((rest.find(c) for c in ",}" if rest.find(c) >= 0), default=len(rest))
            parts[spot] = rng.choice(values) + rest[cut:]
            lines[index] = ": ".join(parts)
    elif op == 1:  # a whole line hostile
        lines[index] = rng.choice(values)
    elif op == 2:  # cut
        lines[index] = line[: rng.randrange(len(line) + 1)]
    elif op == 3:  # a key added
        lines[index] = line.rstrip("}") + f", \"{rng.choice(['x', 'version', 't', 'seat'])}\": {rng.choice(values)}}}"
    elif op == 4:
        lines.insert(index, rng.choice(lines))
    elif op == 5:
        del lines[index]
    data = "\n".join(lines).encode("utf-8", "surrogatepass")
    if op == 6:  # flipped bytes: invalid UTF-8 and worse
        raw = bytearray(data)
        for _ in range(rng.randint(1, 6)):
            spot = rng.randrange(len(raw))
            raw[spot] ^= 1 << rng.randrange(8)
        data = bytes(raw)
    elif op == 7:
        data = b"\xef\xbb\xbf" + data
    elif op == 8:
        data = data.replace(b"\"version\": 1", rng.choice([b"\"version\": true", b"\"version\": 1.0",
                                                            b"\"version\": \"1\"", b"\"version\": 10000000000"]))
    return data


@pytest.mark.slow
def test_3000_mutated_records_give_one_line_errors_or_replay(tmp_path: Path) -> None:
    rng = random.Random(20261201)
    path = tmp_path / "r.jsonl"
    read = 0
    for _ in range(3000):
        path.write_bytes(_mutate_lines(rng, RECORD, JSON_VALUES))
        try:
            record = load_record(path)
        except RecordError as err:
            _one_line(err, path)
            continue
        read += 1
        h = record.header
        table = Table.replay(record.events, h.house_rules, h.dealer, h.table)
        text = format_text(replay_report(table))
        text.encode("utf-8")
        json.dumps(replay_report(table), ensure_ascii=False).encode("utf-8")
    assert 100 < read < 2900  # both paths were exercised


def test_version_true_bom_and_oversized_fields(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text(RECORD[0].replace('"version": 1', '"version": true') + "\n", encoding="utf-8")
    with pytest.raises(RecordError, match=r"version.*whole number, got True"):
        load_record(path)
    path.write_bytes(b"\xef\xbb\xbf" + "\n".join(RECORD).encode())
    assert len(load_record(path).events) == len(RECORD) - 1  # a BOM is accepted
    big = RECORD[1].replace('"card": "AS"', '"card": "' + "Q" * 5_000_000 + '"')
    path.write_text(RECORD[0] + "\n" + big + "\n", encoding="utf-8")
    with pytest.raises(RecordError) as caught:
        load_record(path)
    assert len(str(caught.value)) < 400 and str(path) in str(caught.value)


def _config_text() -> str:
    return DEFAULT_CONFIG + '\n[readers.options]\nport = "/dev/ttyACM0"\n'


@pytest.mark.slow
def test_3000_mutated_configs_and_deck_files_give_one_line_errors(tmp_path: Path) -> None:
    rng = random.Random(20261202)
    config_lines = [line for line in _config_text().splitlines() if line.strip() and not line.startswith("#")]
    deck_lines = render_deck_file([virtual_deck("red")]).splitlines()
    config, deck, players = tmp_path / "t.toml", tmp_path / "decks.toml", tmp_path / "players.toml"
    player_lines = ["format = 1", "[players]", 'Jemp = "04AABBCCDDEEFF"', 'Lis = "04AABBCCDDEE00"']
    counts = {"config": 0, "deck": 0, "players": 0}
    for number in range(3300):
        kind = "config" if number % 2 == 0 and number < 3000 else "deck" if number < 3000 else "players"
        path, lines = {"config": (config, config_lines), "deck": (deck, deck_lines),
                       "players": (players, player_lines)}[kind]
        path.write_bytes(_mutate_toml(rng, lines))
        counts[kind] += 1
        try:
            if kind == "config":
                load_config(path)
            elif kind == "deck":
                load_deck_file(path)
            else:
                load_players_file(path)
        except ConfigError as err:
            _one_line(err, path)
    assert counts == {"config": 1500, "deck": 1500, "players": 300}


def _mutate_toml(rng: random.Random, lines: list[str]) -> bytes:
    lines = list(lines)
    index = rng.randrange(len(lines))
    line = lines[index]
    op = rng.randrange(8)
    if op == 0 and "=" in line:
        key = line.split("=", 1)[0]
        lines[index] = f"{key}= {rng.choice(TOML_VALUES)}"
    elif op == 1:
        key = rng.choice(["x", "format", "journal", "tap_seconds", "AS"])
        lines.insert(index, f"{key} = {rng.choice(TOML_VALUES)}")
    elif op == 2:
        lines[index] = line[: rng.randrange(len(line) + 1)]
    elif op == 3:
        lines.insert(index, rng.choice(["[table]", "[decks.x]", "[display]", "[[a]]", "[" * 200 + "x" + "]" * 200]))
    elif op == 4:
        del lines[index]
    data = "\n".join(lines).encode("utf-8", "surrogatepass")
    if op == 5:
        raw = bytearray(data)
        for _ in range(rng.randint(1, 6)):
            spot = rng.randrange(len(raw))
            raw[spot] ^= 1 << rng.randrange(8)
        data = bytes(raw)
    elif op == 6:
        data = b"\xef\xbb\xbf" + data
    elif op == 7:
        data = data.replace(b"format = 1", b"format = true")
    return data


def test_config_errors_name_the_line(tmp_path: Path) -> None:
    path = tmp_path / "t.toml"
    path.write_text("[table]\n\ntap_seconds = 99\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"t\.toml: line 3: table\.tap_seconds"):
        load_config(path)
    path.write_bytes(b"\xef\xbb\xbf[table]\ntap_seconds = 1.5\n")
    assert load_config(path).tap_seconds == 1.5  # a BOM is accepted
    path.write_text("[table]\nx = " + "[" * 5000 + "]" * 5000 + "\n", encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    _one_line(caught.value, path)


def test_the_other_file_readers_too(tmp_path: Path) -> None:
    """The tournament configuration and the feed's cursor file: hostile text is one line, or simply unreadable."""
    from tablepi.feed.outbox import Cursor
    from tablepi.tournament.config import load_tournament_config

    path = tmp_path / "tournament.toml"
    for text in ("[tournament]\nname = " + "[" * 5000 + "]" * 5000, "[tournament]\nrounds = " + "9" * 5000,
                 "\ufeff[tournament]\nname = \"\\ud800\"", "[tournament]\nname = \"" + "x" * 200_000 + "\""):
        path.write_text(text, encoding="utf-8")
        with pytest.raises(ConfigError) as caught:
            load_tournament_config(path)
        _one_line(caught.value, path)
    cursor = tmp_path / "feed-cursor.json"
    cursor.write_text("[" * 100_000 + "]" * 100_000)
    assert Cursor.load(cursor).journals == {}  # unreadable: the feed resends, the server deduplicates
