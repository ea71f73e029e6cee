"""Deck files and the registry: format, errors naming file and line, duplicates, atomic writes."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tablepi.deck import Deck, DeckRegistry, load_deck_file, render_deck_file, write_deck_file
from tablepi.errors import ConfigError
from tablepi.rules.cards import DECK, Card


def uids(prefix: str) -> list[str]:
    return [f"{prefix}{i:02X}" for i in range(24)]


def full_deck(name: str, prefix: str = "04A1B2C3D4E5") -> Deck:
    return Deck(name, dict(zip(uids(prefix), DECK, strict=True)))


def deck_text(name: str = "red", prefix: str = "04A1B2C3D4E5", drop: int | None = None) -> str:
    lines = ["format = 1", "", f"[decks.{name}]"]
    for i, (uid, card) in enumerate(zip(uids(prefix), DECK, strict=True)):
        if i != drop:
            lines.append(f'{card} = "{uid}"')
    return "\n".join(lines) + "\n"


def test_round_trip_and_lookup(tmp_path: Path) -> None:
    path = tmp_path / "decks.toml"
    write_deck_file(path, [full_deck("red"), full_deck("blue", "0499887766AA")])
    reg = DeckRegistry.load(path)
    assert sorted(reg.decks) == ["blue", "red"]
    assert reg.lookup("04A1B2C3D4E50E") == ("red", DECK[14])
    assert reg.lookup("04:a1:b2:c3:d4:e5:0e") == ("red", DECK[14])  # normalised
    assert reg.lookup("0499887766AA00") == ("blue", DECK[0])
    assert reg.lookup("DEADBEEF") is None
    assert reg.lookup("not hex") is None
    assert len(reg) == 48
    assert reg.decks["red"].uid_of(Card.parse("QS")) == "04A1B2C3D4E502"
    text = path.read_text()
    assert 'QS = "04A1B2C3D4E502"  # ♠Q' in text
    assert not [p for p in tmp_path.iterdir() if p.name != "decks.toml"]  # no temporary file left behind


def test_hand_written_file_with_aliases_parses(tmp_path: Path) -> None:
    path = tmp_path / "d.toml"
    text = deck_text().replace('TS = "', '10S = "').replace('AS = "04A1B2C3D4E500"', 'as = "04:a1:b2:c3:d4:e5:00"')
    path.write_text("# my deck\n" + text)
    (deck,) = load_deck_file(path)
    assert deck.cards["04A1B2C3D4E500"] == Card.parse("AS")
    assert deck.cards["04A1B2C3D4E504"] == Card.parse("TS")


KS = 'KS = "04A1B2C3D4E501"'


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda t: t.replace(KS, 'KS = "04A1B2C3D4E5"'), r"d\.toml:5: decks\.red\.KS: not a tag UID"),
        (lambda t: t.replace(KS, 'XS = "04A1B2C3D4E501"'), r"d\.toml:5: decks\.red\.XS: not a card"),
        (lambda t: t.replace(KS, 'KS = "04A1B2C3D4E500"'), r"d\.toml:5: .*already card AS"),
        (lambda t: t.replace(KS, "KS = 1234"), r"d\.toml:5: .*in quotes"),
        (lambda t: t.replace(KS, 'ks = "04A1B2C3D4E501"\nKS = "04A1B2C3D4E5FF"'), r"card KS given twice"),
        (lambda t: t.replace(KS, 'KS = "04A1B2C3D4E501'), r"d\.toml: not a valid deck file.*line 5"),
        (lambda t: t.replace("format = 1", "format = 2"), r"d\.toml:1: deck file format 2"),
        (lambda t: "colour = 'red'\n" + t, r"d\.toml:1: unknown key 'colour'"),
        (lambda t: "format = 1\n", r"no decks"),
    ],
)
def test_broken_files_name_file_and_line(tmp_path: Path, mutate, message: str) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "d.toml"
    path.write_text(mutate(deck_text()))
    with pytest.raises(ConfigError, match=message):
        DeckRegistry.load(path)


def test_incomplete_deck_names_the_missing_cards(tmp_path: Path) -> None:
    path = tmp_path / "d.toml"
    path.write_text(deck_text(drop=23))
    with pytest.raises(ConfigError, match=r"d\.toml:3: deck 'red' lacks 1 card\(s\): 9C"):
        load_deck_file(path)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="deck file not found"):
        DeckRegistry.load(tmp_path / "nope.toml")


def test_duplicate_uid_across_decks_and_files_is_an_error(tmp_path: Path) -> None:
    one, two = tmp_path / "one.toml", tmp_path / "two.toml"
    one.write_text(deck_text("red"))
    two.write_text(deck_text("blue"))  # the very same tags
    message = r"deck 'blue' in .*two\.toml: tag 04A1B2C3D4E500 of AS is already AS of deck 'red'"
    with pytest.raises(ConfigError, match=message):
        DeckRegistry.load(one, two)
    both = tmp_path / "both.toml"
    both.write_text(deck_text("red") + deck_text("blue").replace("format = 1", ""))
    with pytest.raises(ConfigError, match="already AS of deck 'red'"):
        load_deck_file(both)


def test_same_deck_name_in_two_files_is_an_error(tmp_path: Path) -> None:
    one, two = tmp_path / "one.toml", tmp_path / "two.toml"
    one.write_text(deck_text("red"))
    two.write_text(deck_text("red", prefix="0499887766AA"))
    with pytest.raises(ConfigError, match="defined twice"):
        DeckRegistry.load(one, two)


def test_write_refuses_decks_that_could_not_be_read_back(tmp_path: Path) -> None:
    path = tmp_path / "d.toml"
    with pytest.raises(ConfigError, match="lacks"):
        write_deck_file(path, [Deck("half", {"04A1B2C3D4E500": DECK[0]})])
    assert not path.exists()


def test_write_replaces_atomically(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "d.toml"
    write_deck_file(path, [full_deck("red")])
    before = path.read_text()

    def broken_replace(src: str, dst: str) -> None:
        raise OSError("power cut")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(OSError, match="power cut"):
        write_deck_file(path, [full_deck("blue", "0499887766AA")])
    assert path.read_text() == before  # old file intact
    assert [p.name for p in tmp_path.iterdir()] == ["d.toml"]  # temporary file removed


def test_deck_names_that_need_quoting(tmp_path: Path) -> None:
    path = tmp_path / "d.toml"
    write_deck_file(path, [full_deck('Café "Um Eck"')])
    assert '[decks."Café \\"Um Eck\\""]' in render_deck_file([full_deck('Café "Um Eck"')])
    assert list(DeckRegistry.load(path).decks) == ['Café "Um Eck"']
