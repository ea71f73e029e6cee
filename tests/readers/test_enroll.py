"""Enrolment driven through the sim reader by a scripted person who reacts to what the table says."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from tablepi.deck import DeckRegistry, load_deck_file, write_deck_file
from tablepi.enroll import EnrolmentCancelled, enroll
from tablepi.readers import open_reader
from tablepi.readers.sim import SimReader
from tablepi.rules.cards import DECK, Card

from .test_deck import full_deck

TAGS = {card: f"04C0FFEE0000{i:02X}" for i, card in enumerate(DECK)}


class Person:
    """Lays the card the table asks for, lifting the previous one first; ``react`` may do something else."""

    def __init__(self, reader: SimReader, react: Callable[[Person, str], bool] | None = None) -> None:
        self.reader = reader
        self.heard: list[str] = []
        self.react = react
        self.on_zone: dict[int, str] = {}
        self.turn = 0

    def lay(self, uid: str, zone: int | None = None) -> None:
        zone = self.turn % 4 if zone is None else zone
        self.turn += 1
        if zone in self.on_zone:
            self.reader.lift(zone)
        self.reader.place(zone, uid)
        self.on_zone[zone] = uid

    def lift_all(self) -> None:
        for zone in list(self.on_zone):
            self.reader.lift(zone)
            del self.on_zone[zone]

    def say(self, text: str) -> None:
        self.heard.append(text)
        if self.react is not None and self.react(self, text):
            return
        if text.startswith("Lay "):
            card = next(c for c in DECK if text.startswith(f"Lay {c.display} "))
            self.lift_all()
            self.lay(TAGS[card])


@pytest.fixture
def sim() -> SimReader:
    reader = open_reader("sim")
    assert isinstance(reader, SimReader)
    yield reader
    reader.close()


def test_happy_path_writes_the_deck(sim: SimReader, tmp_path: Path) -> None:
    person = Person(sim)
    out = tmp_path / "decks.toml"
    deck = enroll(sim, "red", out, person.say, timeout=20)
    assert {uid: card for uid, card in deck.cards.items()} == {uid: card for card, uid in TAGS.items()}
    assert DeckRegistry.load(out).lookup(TAGS[Card.parse("QS")]) == ("red", Card.parse("QS"))
    assert person.heard[0] == "Lay ♠A on any zone (1/24)."
    assert person.heard[-1] == f"Deck 'red' complete: 24 cards saved to {out}."
    assert sum(h.endswith("enrolled.") for h in person.heard) == 24


def test_refuses_a_tag_already_read_and_a_tag_of_another_deck(sim: SimReader, tmp_path: Path) -> None:
    out = tmp_path / "decks.toml"
    blue = full_deck("blue", "0499887766AA")
    write_deck_file(out, [blue])
    tricks = {"Lay ♠Q on any zone (3/24).": "0499887766AA00", "Lay ♠J on any zone (4/24).": TAGS[DECK[0]]}

    def react(person: Person, text: str) -> bool:
        uid = tricks.pop(text, None)
        if uid is None:
            return False
        person.lift_all()
        person.lay(uid)  # a wrong tag first; the person then follows the table's advice
        return True

    def follow(person: Person, text: str) -> bool:
        if react(person, text):
            return True
        if text.startswith("This tag is already"):
            card = next(c for c in DECK if text.endswith(f"Lay {c.display}."))
            person.lift_all()
            person.lay(TAGS[card])
            return True
        return False

    person = Person(sim, follow)
    deck = enroll(sim, "red", out, person.say, timeout=20)
    assert "This tag is already ♠A of deck 'blue'. Lay ♠Q." in person.heard
    assert "This tag is already enrolled as ♠A. Lay ♠J." in person.heard
    assert len(deck.cards) == 24
    reg = DeckRegistry.load(out)
    assert sorted(reg.decks) == ["blue", "red"]  # the other deck is kept
    assert reg.decks["blue"] == blue


def test_laying_the_last_card_again_takes_it_back(sim: SimReader, tmp_path: Path) -> None:
    wrong = "04DEADBEEF0001"  # e.g. the ♠K card laid when ♠A was asked for

    state = {"undoing": False}

    def react(person: Person, text: str) -> bool:
        if text == "Lay ♠A on any zone (1/24)." and not any("Took back" in h for h in person.heard):
            person.lay(wrong, zone=0)
            return True
        if text == "♠A enrolled." and person.on_zone.get(0) == wrong:
            state["undoing"] = True  # notices the mistake, lays that card again on another zone
            person.reader.lift(0)
            del person.on_zone[0]
            person.lay(wrong, zone=2)
            return True
        if state["undoing"] and text.startswith("Lay ♠K"):
            return True  # the table asks for the next card before it sees the undo: not followed
        if text.startswith("Took back"):
            state["undoing"] = False
        return False

    person = Person(sim, react)
    deck = enroll(sim, "red", tmp_path / "d.toml", person.say, timeout=20)
    assert person.heard[:5] == [
        "Lay ♠A on any zone (1/24).",
        "♠A enrolled.",
        "Lay ♠K on any zone (2/24).",
        "Took back ♠A.",
        "Lay ♠A on any zone (1/24).",
    ]
    assert wrong not in deck.cards
    assert deck.cards[TAGS[DECK[0]]] == DECK[0]


def test_a_tag_read_on_two_zones_at_once_is_no_undo(sim: SimReader, tmp_path: Path) -> None:
    def react(person: Person, text: str) -> bool:
        if text == "Lay ♠K on any zone (2/24).":
            sim.place(3, TAGS[DECK[0]])  # ♠A, still on zone 0, straddles zone 3 too
            person.lift_all()
            sim.lift(3)
            person.lay(TAGS[DECK[1]])
            return True
        return False

    person = Person(sim, react)
    enroll(sim, "red", tmp_path / "d.toml", person.say, timeout=20)
    assert not any("Took back" in h for h in person.heard)


def test_zone_trouble_is_reported(sim: SimReader, tmp_path: Path) -> None:
    def react(person: Person, text: str) -> bool:
        if text == "Lay ♠K on any zone (2/24).":
            sim.multi(2)
            sim.lift(2)
        return False

    person = Person(sim, react)
    enroll(sim, "red", tmp_path / "d.toml", person.say, timeout=20)
    assert "Zone 2: two or more tags." in person.heard


def test_stop_and_timeout_write_nothing(sim: SimReader, tmp_path: Path) -> None:
    out = tmp_path / "d.toml"
    stop = threading.Event()
    stop.set()
    with pytest.raises(EnrolmentCancelled, match="stopped"):
        enroll(sim, "red", out, lambda _: None, stop=stop)
    with pytest.raises(EnrolmentCancelled, match="timed out"):
        enroll(sim, "red", out, lambda _: None, timeout=0.2)
    assert not out.exists()


def test_re_enrolling_a_deck_replaces_it(sim: SimReader, tmp_path: Path) -> None:
    out = tmp_path / "d.toml"
    write_deck_file(out, [full_deck("red", "0499887766AA")])
    person = Person(sim)
    enroll(sim, "red", out, person.say, timeout=20)
    (deck,) = load_deck_file(out)
    assert deck.cards[TAGS[DECK[5]]] == DECK[5]
    assert "0499887766AA00" not in deck.cards


def test_translated_messages(sim: SimReader, tmp_path: Path) -> None:
    person = Person(sim)
    heard: list[str] = []

    def say(text: str) -> None:
        heard.append(text)
        person.say(text.replace("Leet ", "Lay ").replace(" op eng Zon", " on any zone"))

    enroll(sim, "red", tmp_path / "d.toml", say, messages={"ask": "Leet {card} op eng Zon ({n}/{total})."})
    assert heard[0] == "Leet ♠A op eng Zon (1/24)."
