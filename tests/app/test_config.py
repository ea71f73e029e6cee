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
    assert config.controls.enabled and config.tap_seconds == 1.0


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


# --- one bound, one list, one default ---------------------------------------------------------------------------


def test_the_tap_window_has_one_bound_for_the_config_file_and_the_records_it_writes() -> None:
    from tablepi.journal.record import RecordHeader, parse_header
    from tablepi.table.state import TAP_WINDOW_BOUNDS, TableConfig

    low, high = TAP_WINDOW_BOUNDS
    for seconds in (low, 1.0, high):
        config = parse_config(f"[table]\ntap_seconds = {seconds}\n")
        header = RecordHeader(table=TableConfig(tap_window=config.tap_seconds))
        assert parse_header(header.to_json()).table.tap_window == seconds  # what is configured is recorded, and read
    for seconds in (low / 2, high * 1.5):
        with pytest.raises(ConfigError) as config_error:
            parse_config(f"[table]\ntap_seconds = {seconds}\n")
        with pytest.raises(ConfigError) as record_error:
            TableConfig(tap_window=seconds)
        assert config_error.value.key == "table.tap_seconds" and record_error.value.key == "table.tap_window"
        said = f"expected seconds between {low:g} and {high:g}, got {seconds}"
        assert str(config_error.value).endswith(said) and str(record_error.value).endswith(said)


def test_every_setting_of_a_language_is_checked_against_the_one_list() -> None:
    from tablepi.display.i18n import LANGUAGES
    from tablepi.tournament.config import parse_tournament_config

    tournament = '[tournament]\npairs = [["a", "b"], ["c", "d"]]\n[web]\nlanguage = "{}"\n'
    for language in LANGUAGES:
        assert parse_config(f'[display]\nlanguage = "{language}"\n').display.language == language
        assert parse_tournament_config(tournament.format(language)).web.language == language
    said = "'nl' is not one of " + ", ".join(repr(x) for x in LANGUAGES)
    with pytest.raises(ConfigError) as display:
        parse_config('[display]\nlanguage = "nl"\n')
    with pytest.raises(ConfigError) as web:
        parse_tournament_config(tournament.format("nl"))
    assert (display.value.key, web.value.key) == ("display.language", "web.language")
    assert str(display.value).endswith(said) and str(web.value).endswith(said)


def test_the_default_files_are_named_once() -> None:
    from tablepi.config import DEFAULT_CONTROL, DEFAULT_DECKS, DEFAULT_JOURNAL, DEFAULT_PLAYERS, Config

    given = parse_config("")
    assert (given.journal, given.decks, given.players, given.control) == (
        DEFAULT_JOURNAL, DEFAULT_DECKS, DEFAULT_PLAYERS, DEFAULT_CONTROL)
    assert (Config().journal, Config().decks) == (DEFAULT_JOURNAL, DEFAULT_DECKS)
    assert f'journal = "{DEFAULT_JOURNAL}"' in DEFAULT_CONFIG  # the commented default file says the same
