"""The pcsc backend against a real pcscd with vpcd virtual readers and virtual NTAG cards."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tablepi.errors import ConfigError, ReaderError
from tablepi.readers import ZoneState, open_reader
from tablepi.readers.base import Reader
from tests.waits import stack_of, wait_until

from .conftest import card_events, collect, settle, status_events
from .pcscd import SLOT_READERS, Pcscd

pytestmark = [pytest.mark.pcsc, pytest.mark.slow]

UIDS = ("04A1B2C3D4E5F0", "04A1B2C3D4E5F1", "04A1B2C3D4E5F2", "04A1B2C3D4E5F3")
#: Zones bound to slots in a shuffled order, by a unique part of each reader's name: zone -> slot.
ZONE_SLOT = {0: 3, 1: 0, 2: 2, 3: 1}


@pytest.fixture
def cards() -> Iterator[dict[int, object]]:
    from .vcard import VirtualCard

    inserted: dict[int, VirtualCard] = {}
    yield inserted  # type: ignore[misc]
    for card in inserted.values():
        card.remove()


def insert(cards: dict[int, object], slot: int, uid: str) -> None:
    from .vcard import VirtualCard

    cards[slot] = VirtualCard(uid, slot)


def remove(cards: dict[int, object], slot: int) -> None:
    cards.pop(slot).remove()  # type: ignore[attr-defined]


def wait_present(names: list[str], timeout: float = 30.0) -> None:
    """Wait (through a separate PC/SC context) until pcscd sees a card on each reader in ``names``."""
    from smartcard import scard

    hresult, ctx = scard.SCardEstablishContext(scard.SCARD_SCOPE_USER)
    assert hresult == scard.SCARD_S_SUCCESS

    def present() -> bool:
        hresult, states = scard.SCardGetStatusChange(ctx, 0, [(n, scard.SCARD_STATE_UNAWARE) for n in names])
        return hresult == scard.SCARD_S_SUCCESS and all(s & scard.SCARD_STATE_PRESENT for _, s, _ in states)

    try:
        wait_until(present, f"pcscd to see cards on {names}", timeout, every=0.05)
    finally:
        scard.SCardReleaseContext(ctx)


def make_reader(**options: object) -> Reader:
    names = {zone: SLOT_READERS[slot].removeprefix("tablepi ") for zone, slot in ZONE_SLOT.items()}
    return open_reader("pcsc", readers=names, backoff_initial=0.05, backoff_max=0.3, **options)


def online(events: list[object]) -> bool:
    return sum(s == "ONLINE" for _, s in status_events(events)) >= 4  # type: ignore[arg-type]


def test_cards_on_four_readers_become_zone_events(pcscd: Pcscd, cards: dict[int, object]) -> None:
    with make_reader() as reader:
        collect(reader, online, timeout=10)
        for zone, slot in ZONE_SLOT.items():
            insert(cards, slot, UIDS[zone])
            events = collect(reader, lambda ev: bool(card_events(ev)), timeout=10)
            assert card_events(events) == [(zone, UIDS[zone], True)]
        assert reader.present == UIDS
        assert bytes.fromhex("FFCA000000") in cards[ZONE_SLOT[2]].apdus  # type: ignore[attr-defined]
        remove(cards, ZONE_SLOT[1])
        events = collect(reader, lambda ev: bool(card_events(ev)), timeout=10)
        assert card_events(events) == [(1, UIDS[1], False)]
        # the next card on the same reader, after the zone was seen empty
        insert(cards, ZONE_SLOT[1], "DEADBEEF")
        events = collect(reader, lambda ev: bool(card_events(ev)), timeout=10)
        assert card_events(events + settle(reader, 0.6)) == [(1, "DEADBEEF", True)]


def test_daemon_restart_is_offline_then_back_without_loss_or_doubles(
    pcscd: Pcscd, cards: dict[int, object]
) -> None:
    with make_reader(debounce=0.0) as reader:
        collect(reader, online, timeout=10)
        insert(cards, ZONE_SLOT[0], UIDS[0])
        insert(cards, ZONE_SLOT[1], UIDS[1])
        collect(reader, lambda ev: len(card_events(ev)) == 2, timeout=10)
        for slot in list(cards):
            remove(cards, slot)  # the daemon takes the vpcd sockets with it
        pcscd.stop()
        events = collect(reader, lambda ev: len(status_events(ev)) >= 4, timeout=10)
        assert status_events(events)[-4:] == [(z, "OFFLINE") for z in range(4)]
        assert reader.present == (UIDS[0], UIDS[1], None, None)  # believed while the readers are away
        assert reader.recv(0.3) is None  # reconnect attempts fail meanwhile
        pcscd.start()
        insert(cards, ZONE_SLOT[0], UIDS[0])  # still lies on zone 0
        insert(cards, ZONE_SLOT[2], UIDS[2])  # laid on zone 2 meanwhile; zone 1's card was taken
        wait_present([SLOT_READERS[ZONE_SLOT[0]], SLOT_READERS[ZONE_SLOT[2]]])  # before the reader looks again
        events = collect(
            reader, lambda ev: online(ev) and len(card_events(ev)) >= 2, timeout=15
        )
        events += settle(reader, 1.0)
        assert sorted(card_events(events)) == [(1, UIDS[1], False), (2, UIDS[2], True)]
        assert reader.present == (UIDS[0], None, UIDS[2], None)
        assert reader.health().counters["disconnects"] >= 1


def test_no_daemon_at_start_means_offline_until_it_comes(pcscd: Pcscd, cards: dict[int, object]) -> None:
    pcscd.stop()
    try:
        with make_reader() as reader:
            said = [reader.recv(0.3) for _ in range(4)]  # said once, so the table shows the zones offline
            assert [(s.zone, s.state) for s in said] == [(z, ZoneState.OFFLINE) for z in range(4)]  # type: ignore[union-attr]
            assert "pcscd not reachable" in said[0].detail  # type: ignore[union-attr]
            assert reader.recv(0.3) is None
            assert reader.states == (ZoneState.OFFLINE,) * 4
            assert reader.health().counters["connect_failed"] >= 1
            pcscd.start()
            collect(reader, online, timeout=10)
    finally:
        if pcscd.proc is None:
            pcscd.start()


def test_zone_without_a_matching_reader_stays_offline(pcscd: Pcscd) -> None:
    with open_reader("pcsc", readers=["zones A 00 00", "zones A 00 01", "zones B 00 00", "no such reader"]) as r:
        events = collect(r, lambda ev: sum(s == "ONLINE" for _, s in status_events(ev)) >= 3, timeout=10)
        events += settle(r, 0.5)
        assert (3, "ONLINE") not in status_events(events)
        assert r.states[3] is ZoneState.OFFLINE


def test_close_wakes_a_blocked_wait(pcscd: Pcscd) -> None:
    import threading
    import time

    reader = make_reader()
    collect(reader, online, timeout=10)
    done = threading.Event()
    raised: list[ReaderError] = []

    def block() -> None:
        try:
            reader.recv(None)
        except ReaderError as err:  # recv on a closed reader says so, which ends a pump
            raised.append(err)
        done.set()

    thread = threading.Thread(target=block, daemon=True)
    thread.start()
    wait_until(lambda: "_wait_for_change" in stack_of(thread), "the recv to wait for pcscd")
    start = time.monotonic()
    reader.close()
    assert done.wait(2)
    assert time.monotonic() - start < 1.5
    assert raised


@pytest.mark.parametrize(
    ("readers", "message"),
    [
        (["ACR122", "ACR122 01", "c", "d"], "same reader"),
        ({5: "x"}, "not in 0..3"),
        ({"0": "a", "zone1": "b"}, "not in 0..3"),
        ("ACR122", "must list"),
        (["a", "", "c", "d"], "needs a reader name"),
    ],
)
def test_bad_reader_names_are_config_errors(readers: object, message: str) -> None:
    pytest.importorskip("smartcard")
    with pytest.raises(ConfigError, match=message):
        open_reader("pcsc", readers=readers)
