"""From reader events to table events, with the real ZoneEvent/ZoneStatus and deck registry."""

from __future__ import annotations

import pytest

from tablepi.deck import Deck, DeckRegistry
from tablepi.errors import ConfigError
from tablepi.readers.events import ZoneEvent, ZoneState, ZoneStatus
from tablepi.rules import DECK, Card, Seat
from tablepi.table import (
    CardLifted,
    CardPlaced,
    ReaderState,
    Table,
    TagProblem,
    from_zone_event,
    from_zone_status,
)

ZONES = {0: Seat.N, 1: Seat.W, 2: Seat.S, 3: Seat.E}


def _registry() -> DeckRegistry:
    blue = Deck("blue", {f"04{i:012X}": card for i, card in enumerate(DECK)})
    red = Deck("red", {f"05{i:012X}": card for i, card in enumerate(DECK)})
    return DeckRegistry([blue, red])


def test_a_known_tag_becomes_a_card_on_the_zones_seat() -> None:
    registry = _registry()
    uid = f"04{DECK.index(Card.parse('AH')):012X}"
    placed = from_zone_event(ZoneEvent(1, uid, True, 2.5), ZONES, registry, time_offset=100.0)
    assert placed == CardPlaced(102.5, Seat.W, Card.parse("AH"), uid, "blue")
    lifted = from_zone_event(ZoneEvent(1, uid, False, 2.9), ZONES, registry)
    assert isinstance(lifted, CardLifted) and lifted.card == Card.parse("AH")


def test_an_unknown_tag_has_no_card_and_the_table_warns() -> None:
    event = from_zone_event(ZoneEvent(0, "0411223344556677"[:14], True, 1.0), ZONES, _registry())
    assert event.card is None
    state = Table().apply(event)
    assert [w.code.value for w in state.warnings] == ["unknown_tag"]


def test_a_card_of_the_second_deck_is_refused() -> None:
    registry = _registry()
    table = Table()
    blue_ah = f"04{DECK.index(Card.parse('AH')):012X}"
    red_kh = f"05{DECK.index(Card.parse('KH')):012X}"
    table.apply(from_zone_event(ZoneEvent(1, blue_ah, True, 0.0), ZONES, registry))
    table.apply(from_zone_event(ZoneEvent(1, blue_ah, False, 0.3), ZONES, registry))
    state = table.apply(from_zone_event(ZoneEvent(1, red_kh, True, 1.0), ZONES, registry))
    assert [w.device.tag for w in state.warnings] == [TagProblem.OTHER_DECK]


def test_zone_status_becomes_reader_status() -> None:
    status = from_zone_status(ZoneStatus(3, ZoneState.OFFLINE, "cable", 4.0), ZONES)
    assert status.seat is Seat.E and status.state is ReaderState.OFFLINE and status.detail == "cable"


def test_an_unmapped_zone_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="zone 7 is not mapped"):
        from_zone_event(ZoneEvent(7, "04A1B2C3", True, 0.0), ZONES, _registry())


def test_the_table_imports_neither_readers_nor_display() -> None:
    import ast
    from pathlib import Path

    import tablepi.table

    for path in Path(tablepi.table.__file__).parent.glob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            for name in names:
                assert not name.startswith(("tablepi.readers", "tablepi.display", "tablepi.deck")), (path, name)
                assert name.split(".")[0] in {"tablepi", "__future__"} or name in _STDLIB, (path, name)


_STDLIB = {"enum", "dataclasses", "collections", "collections.abc", "typing", "random"}
