"""The configuration file: the default text is valid, every mistake is named with file and key."""

from __future__ import annotations

from pathlib import Path

import pytest

from tablepi.config import DEFAULT_CONFIG, load_config, parse_config
from tablepi.errors import ConfigError
from tablepi.rules import Direction, Seat, Team


def test_default_config_text_parses_to_the_defaults(tmp_path: Path) -> None:
    path = tmp_path / "tablepi.toml"
    path.write_text(DEFAULT_CONFIG, encoding="utf-8")
    config = load_config(path)
    assert config.source == path
    assert config.house_rules.direction is Direction.ANTICLOCKWISE and config.house_rules.start_lines == 9
    assert config.readers.backend == "serial" and config.readers.options == {"port": "/dev/tablepi-reader"}
    assert config.readers.seat_of_zone(2) is Seat.S
    assert config.display.language == "lb" and config.display.scorer_team is Team.NS
    assert config.controls_enabled and config.tap_seconds == 1.0


def test_empty_file_means_defaults() -> None:
    assert parse_config("") == parse_config(DEFAULT_CONFIG)


def test_relative_paths_are_relative_to_the_file(tmp_path: Path) -> None:
    path = tmp_path / "t.toml"
    path.write_text('[table]\njournal = "state/j.sqlite3"\ndecks = ["decks.toml"]\n', encoding="utf-8")
    config = load_config(path)
    assert config.journal == tmp_path / "state/j.sqlite3" and config.decks == (tmp_path / "decks.toml",)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[tabel]\n", "tabel: unknown setting"),
        ("[table]\njournal = 3\n", "table.journal: expected a file name"),
        ("[table]\ntap_seconds = 9\n", "table.tap_seconds"),
        ("[house_rules]\ndirection = 'up'\n", "house_rules.direction: 'up'"),
        ("[readers]\nzones = { N = 0, E = 0, S = 2, W = 3 }\n", "readers.zones.E: zone 0 is already"),
        ("[readers]\nzones = { N = 0, E = 1, S = 2 }\n", "missing W"),
        ("[readers]\nzones = { X = 0 }\n", "readers.zones.X"),
        ("[display]\nlanguage = 'nl'\n", "display.language: 'nl'"),
        ("[display]\nsize = [800]\n", "display.size"),
        ("[display]\nlearner = 'yes'\n", "display.learner: expected true or false"),
        ("[controls]\nundo = 99\n", "controls.undo"),
        ("[table\n", "not valid TOML"),
    ],
)
def test_errors_name_file_and_key(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert str(path) in str(info.value) and message in str(info.value)


def test_missing_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no such configuration file"):
        load_config(tmp_path / "nope.toml")
