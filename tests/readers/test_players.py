"""Player tag files: round trip, one tag per name and one name per tag, errors that name the file."""

from __future__ import annotations

from pathlib import Path

import pytest

from tablepi.errors import ConfigError
from tablepi.players import MAX_NAME, PlayerRegistry, check_name, load_players_file, write_players_file


def test_a_player_file_round_trips_and_a_missing_one_is_empty(tmp_path: Path) -> None:
    path = tmp_path / "players.toml"
    assert len(load_players_file(path)) == 0
    registry = PlayerRegistry({"04A1B2C3D4E5F6": "Jang", "04:a1:b2:c3:d4:e5:f7": "Marie-Thérèse"})
    write_players_file(path, registry)
    text = path.read_text(encoding="utf-8")
    assert 'Jang = "04A1B2C3D4E5F6"' in text and '"Marie-Thérèse" = "04A1B2C3D4E5F7"' in text
    again = load_players_file(path)
    assert again.tags == registry.tags and again.names == ("Jang", "Marie-Thérèse")


def test_a_name_holds_one_tag_and_a_tag_one_name() -> None:
    registry = PlayerRegistry({"04A1B2C3D4E5F6": "Jang"})
    moved = registry.with_player("04A1B2C3D4E5F7", "jang")  # his new keyring: the old tag is dropped
    assert dict(moved.tags) == {"04A1B2C3D4E5F7": "jang"}
    given = moved.with_player("04A1B2C3D4E5F7", "Marie")  # the tag given to Marie
    assert dict(given.tags) == {"04A1B2C3D4E5F7": "Marie"}
    with pytest.raises(ConfigError, match="has two tags"):
        PlayerRegistry({"04A1B2C3D4E5F6": "Jang", "04A1B2C3D4E5F7": "JANG"})


@pytest.mark.parametrize(("text", "match"), [
    ('format = 1\n[players]\nJang = "zz"\n', "players.Jang"),
    ('format = 1\n[players]\nJang = 4\n', "expected a tag UID in quotes"),
    ('format = 2\n', "player file format 2"),
    ('[players]\nJang = "04A1B2C3D4E5F6"\nMarie = "04A1B2C3D4E5F6"\n', "already 'Jang'"),
    ("not toml", "not a valid player file"),
])
def test_a_broken_player_file_names_the_file_and_the_player(tmp_path: Path, text: str, match: str) -> None:
    path = tmp_path / "players.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError, match=match) as info:
        load_players_file(path)
    assert str(path) in str(info.value)


@pytest.mark.parametrize("name", ["", "   ", "x" * (MAX_NAME + 1), "a\tb\x07"])
def test_a_name_is_short_printable_text(name: str) -> None:
    with pytest.raises(ConfigError):
        check_name(name)
