"""The running table as a service: deck and player files reloaded under it, enrolment as its mode, the control
socket, and ``tablepi enroll`` / ``doctor`` talking to a real ``tablepi run`` (sim reader typed on its stdin)."""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from tablepi.app.build import service_app
from tablepi.app.core import TableApp
from tablepi.app.enrolment import Enroller
from tablepi.app.reloads import POLL_SECONDS, TableFiles
from tablepi.deck import Deck, load_deck_file, virtual_deck, write_deck_file
from tablepi.display.panels import EnrolKind
from tablepi.journal.journal import JournaledTable
from tablepi.journal.record import RecordHeader
from tablepi.players import PlayerRegistry, load_players_file, write_players_file
from tablepi.readers.events import ZoneEvent, ZoneState, ZoneStatus
from tablepi.rules import DECK, Card, Seat
from tablepi.service_socket import ControlRequest, ControlServer, ServiceUnreachable, Unreachable, ask
from tablepi.table import CardPlaced
from tablepi.table.state import TablePhase
from tests.waits import wait_until

ZONES = {0: Seat.N, 1: Seat.W, 2: Seat.S, 3: Seat.E}
RED = {card: f"04E1{i:02X}A1B2C3D4" for i, card in enumerate(DECK)}
BLUE = Deck("blue", {f"04B1{i:02X}A1B2C3D4": card for i, card in enumerate(DECK)})
KEYRING = "04AB12CD34EF56"


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[tuple[TableApp, Enroller, Clock]]:
    write_deck_file(tmp_path / "decks.toml", [virtual_deck("demo")])
    clock = Clock()
    files = TableFiles([tmp_path / "decks.toml"], tmp_path / "players.toml", clock=clock)
    table = JournaledTable(tmp_path / "j.sqlite3", RecordHeader(zones=tuple(ZONES.items())))
    app = service_app(table, files, ZONES, tmp_path / "j.sqlite3", "en", clock=clock, info={"reader": "sim"})
    assert isinstance(app.ports.enrolment, Enroller)
    yield app, app.ports.enrolment, clock
    app.close()


def _run(app: TableApp, request: ControlRequest, events: list[object]) -> list[dict[str, object]]:
    app.handle(request)
    for event in events:
        app.handle(event)
    replies = []
    while not request.replies.empty():
        replies.append(request.replies.get())
    return replies


# --- files reloaded under the table -------------------------------------------------------------------------


def test_a_deck_file_replaced_on_disk_is_used_without_a_restart(
    rig: tuple[TableApp, Enroller, Clock], tmp_path: Path
) -> None:
    app, _enroller, clock = rig
    uid = next(iter(BLUE.cards))
    assert app.deck.lookup(uid) is None
    write_deck_file(tmp_path / "decks.toml", [BLUE])
    clock.now += POLL_SECONDS
    app.step(timeout=0)  # the change is seen, and waited on: perhaps it is still being written
    assert app.deck.lookup(uid) is None
    clock.now += POLL_SECONDS
    app.step(timeout=0)
    assert app.deck.lookup(uid) == ("blue", BLUE.cards[uid])
    assert sorted(app.deck.decks) == ["blue"]


def test_a_bad_deck_file_is_one_warning_and_the_old_decks_stay(
    rig: tuple[TableApp, Enroller, Clock], tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    app, _enroller, clock = rig
    before = app.deck
    (tmp_path / "decks.toml").write_text("format = 1\n[decks.red]\nAS = 'nonsense'\n", encoding="utf-8")
    with caplog.at_level(logging.WARNING):
        for _ in range(6):
            clock.now += POLL_SECONDS
            app.step(timeout=0)
    assert app.deck is before
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and "\n" not in warnings[0].getMessage()
    assert "keeps its decks" in warnings[0].getMessage() and "decks.toml" in warnings[0].getMessage()
    write_deck_file(tmp_path / "decks.toml", [BLUE])  # corrected: taken at once
    for _ in range(2):
        clock.now += POLL_SECONDS
        app.step(timeout=0)
    assert sorted(app.deck.decks) == ["blue"]


def test_a_player_file_edited_on_disk_is_used(rig: tuple[TableApp, Enroller, Clock], tmp_path: Path) -> None:
    app, _enroller, clock = rig
    write_players_file(tmp_path / "players.toml", PlayerRegistry({KEYRING: "Marie"}))
    for _ in range(2):
        clock.now += POLL_SECONDS
        app.step(timeout=0)
    assert app.players.lookup(KEYRING) == "Marie"


# --- the enrol mode -------------------------------------------------------------------------------------------


def test_enrolling_a_deck_through_the_running_table_keeps_its_cards_out_of_the_game(
    rig: tuple[TableApp, Enroller, Clock], tmp_path: Path
) -> None:
    app, enroller, _ = rig
    events_before = len(app.table.journal)
    laid: list[object] = []
    for i, card in enumerate(DECK):
        laid += [ZoneEvent(i % 4, RED[card], True, 100.0 + i), ZoneEvent(i % 4, RED[card], False, 100.5 + i)]
    laid.insert(3, ZoneStatus(2, ZoneState.OFFLINE, "unplugged", 101.0))
    request = ControlRequest("enroll_deck", {"name": "red"})
    replies = _run(app, request, laid)
    said = [r["say"] for r in replies if "say" in r]
    assert said[0] == "Lay ♠A on any zone (1/24)."
    assert "Zone 2: unplugged." in said
    assert said[-1].startswith("Deck 'red' complete: 24 cards saved to")
    assert replies[-1] == {"deck": "red", "cards": 24, "file": str(tmp_path / "decks.toml"), "end": True, "ok": True}
    assert enroller.mode is None and enroller.text == ""
    assert sorted(d.name for d in load_deck_file(tmp_path / "decks.toml")) == ["demo", "red"]
    assert app.deck.lookup(RED[DECK[5]]) == ("red", DECK[5])  # in use at once, no poll needed
    # Not one card of the enrolment reached the game (the last one's lift came after the mode: a lift of nothing);
    # the reader's health did.
    journaled = app.table.journal.events()[events_before:]
    assert [type(e).__name__ for e in journaled] == ["ReaderStatus", "CardLifted"]
    assert app.table.state.phase is TablePhase.TRUMPS and not app.table.state.zone(Seat.N).cards


def test_enrolling_a_player_tag_refuses_a_card_and_seats_the_name_in_the_player_file(
    rig: tuple[TableApp, Enroller, Clock], tmp_path: Path
) -> None:
    app, _, _ = rig
    card_uid = virtual_deck().uid_of(DECK[0])
    assert card_uid is not None
    request = ControlRequest("enroll_player", {"name": "  Jang "})
    replies = _run(app, request, [ZoneEvent(1, card_uid, True, 100.0), ZoneEvent(1, card_uid, False, 100.2),
                                  ZoneEvent(3, KEYRING, True, 101.0)])
    said = [r["say"] for r in replies if "say" in r]
    assert said == ["Lay Jang's player tag on any zone.",
                    "This tag is ♠A of deck 'demo', not a player tag. Lay Jang's tag.",
                    f"Player tag of Jang saved to {tmp_path / 'players.toml'}."]
    assert replies[-1]["ok"] and replies[-1]["uid"] == KEYRING
    assert load_players_file(tmp_path / "players.toml").lookup(KEYRING) == "Jang"
    assert app.players.lookup(KEYRING) == "Jang"


def test_a_second_enrolment_is_refused_and_a_hang_up_or_timeout_writes_nothing(
    rig: tuple[TableApp, Enroller, Clock], tmp_path: Path
) -> None:
    from tablepi.service_socket import ControlCancel

    app, enroller, clock = rig
    first = ControlRequest("enroll_deck", {"name": "red", "timeout": 30})
    app.handle(first)
    second = ControlRequest("enroll_player", {"name": "Jang"})
    app.handle(second)
    assert second.replies.get_nowait() == {
        "error": "the table is enrolling deck 'red' already; finish or cancel that first", "end": True, "ok": False}
    app.handle(ZoneEvent(0, RED[DECK[0]], True, 100.0))
    app.handle(ControlCancel(first))  # the client pressed Ctrl-C
    assert enroller.mode is None
    assert [d.name for d in load_deck_file(tmp_path / "decks.toml")] == ["demo"]
    timed = ControlRequest("enroll_deck", {"name": "red", "timeout": 5})
    app.handle(timed)
    clock.now += 6
    app.step(timeout=0)
    *_, last = [timed.replies.get_nowait() for _ in range(timed.replies.qsize())]
    assert last == {"error": "enrolment of deck 'red' timed out; nothing written", "end": True, "ok": False}


def test_stop_on_the_screen_closes_the_sheet_and_any_other_end_shows_why(
    rig: tuple[TableApp, Enroller, Clock],
) -> None:
    """The enrol mode decides by how it ended (EnrolEnd), not by the words of the reason."""
    from tablepi.app.enrolment import EnrolEnd

    app, enroller, _ = rig
    console = app.console
    assert console is not None
    enroller.begin_here(EnrolKind.DECK, "red", app.table.state)
    assert console.enrolling is not None and not console.enrolling.over
    enroller.stop_here()
    assert enroller.mode is None and console.enrolling is None  # stopped there: the sheet closes, no last word
    request = ControlRequest("enroll_deck", {"name": "red"})
    app.handle(request)
    app.handle(ControlRequest("cancel", {}))
    assert console.enrolling is not None and console.enrolling.over
    assert console.enrolling.error == EnrolEnd.CANCELLED.value == "cancelled"
    *_, last = [request.replies.get_nowait() for _ in range(request.replies.qsize())]
    assert last == {"error": "enrolment of deck 'red' cancelled", "end": True, "ok": False}


def test_a_card_lifted_during_the_enrol_mode_is_lifted_on_the_table_too(rig: tuple[TableApp, Enroller, Clock]) -> None:
    app, enroller, _ = rig
    uid = virtual_deck().uid_of(DECK[9])
    assert uid is not None
    app.handle(ZoneEvent(1, uid, True, 100.0))  # W (forehand of dealer N) names trumps with it
    assert app.table.state.zone(Seat.W).cards
    request = ControlRequest("enroll_player", {"name": "Jang"})
    _run(app, request, [ZoneEvent(1, uid, False, 101.0), ZoneEvent(2, KEYRING, True, 102.0)])
    assert enroller.mode is None
    assert not app.table.state.zone(Seat.W).cards


def test_status_says_what_the_table_really_uses(rig: tuple[TableApp, Enroller, Clock], tmp_path: Path) -> None:
    app, _, _ = rig
    request = ControlRequest("status", {})
    (reply,) = _run(app, request, [])
    assert reply["ok"] and reply["decks"] == [{"name": "demo", "cards": 24, "source": str(tmp_path / "decks.toml")}]
    assert reply["zones"] == {"N": "online", "E": "online", "S": "online", "W": "online"}
    assert reply["phase"] == "trumps" and reply["mode"] is None and reply["reader"] == "sim"


# --- the socket ---------------------------------------------------------------------------------------------


def test_the_control_socket_is_private_and_refuses_a_second_table(tmp_path: Path) -> None:
    import queue

    inbox: queue.Queue[object] = queue.Queue()
    path = tmp_path / "ctl.sock"
    with pytest.raises(ServiceUnreachable) as info:
        ask(path)
    assert info.value.reason is Unreachable.NOT_RUNNING
    path.touch()  # a dead table's leftover: taken over
    path.unlink()
    server = ControlServer(path, inbox.put)
    try:
        assert oct(path.stat().st_mode & 0o777) == "0o660"
        from tablepi.errors import ConfigError

        with pytest.raises(ConfigError, match="another table already runs"):
            ControlServer(path, inbox.put)

        def answer() -> None:
            request = inbox.get(timeout=5)
            assert isinstance(request, ControlRequest)
            request.finish(hello="table")

        import threading

        thread = threading.Thread(target=answer)
        thread.start()
        assert ask(path) == {"hello": "table", "end": True, "ok": True}
        thread.join()
    finally:
        server.close()
    assert not path.exists()


def test_enroll_says_exactly_what_to_do_when_it_may_not_reach_the_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from tablepi import service_socket as control
    from tablepi.cli import main

    def refused(path: Path, *args: object, **kwargs: object) -> Iterator[dict[str, object]]:
        raise ServiceUnreachable(Path(path), Unreachable.NO_PERMISSION, "Permission denied")
        yield {}

    monkeypatch.setattr(control, "request", refused)
    config = _config(tmp_path)
    assert main(["enroll", "--player", "Jang", "--config", str(config)]) == 2
    err = capsys.readouterr().err
    assert "the table is running, but this user may not use its control socket" in err
    assert f"sudo -u tablepi /opt/tablepi/venv/bin/tablepi enroll --player Jang --config {config}" in err
    assert main(["enroll", "--config", str(config)]) == 2
    assert "name a deck (tablepi enroll red) or a player" in capsys.readouterr().err


# --- a real `tablepi run` -----------------------------------------------------------------------------------


def _config(tmp: Path) -> Path:
    path = tmp / "t.toml"
    path.write_text(
        '[table]\njournal = "j.sqlite3"\ndecks = ["decks.toml"]\nplayers = "players.toml"\ncontrol = "ctl.sock"\n'
        '[readers]\nbackend = "sim"\n[readers.options]\nstdin = true\n[controls]\nenabled = false\n'
        "[display]\nlanguage = \"en\"\n",
        encoding="utf-8",
    )
    return path


def _tablepi(*args: str, **kwargs: object) -> subprocess.Popen[str]:
    env = {**os.environ, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy", "PYTHONUNBUFFERED": "1"}
    return subprocess.Popen([sys.executable, "-m", "tablepi", *args], text=True, env=env, **kwargs)  # type: ignore[call-overload]


def _wait_status(sock: Path, until: Callable[[dict[str, Any]], bool] | None = None,
                 seconds: float = 60.0) -> dict[str, Any]:
    def status() -> dict[str, Any] | None:
        answer = ask(sock)
        return answer if until is None or until(answer) else None

    return wait_until(status, f"the running table to get there ({sock})", seconds, every=0.1,
                      ignore=(ServiceUnreachable,))


@pytest.mark.slow
def test_enrolment_doctor_and_deck_reload_through_a_running_table(tmp_path: Path) -> None:
    write_deck_file(tmp_path / "decks.toml", [virtual_deck("demo")])
    config = _config(tmp_path)
    sock = tmp_path / "ctl.sock"
    table = _tablepi("run", "--headless", "--config", str(config), stdin=subprocess.PIPE,
                     stderr=open(tmp_path / "run.log", "w"), cwd=tmp_path)  # noqa: SIM115
    assert table.stdin is not None
    hands = table.stdin

    def lay(line: str) -> None:  # a person's hands on the running table's (simulated) zones
        hands.write(line + "\n")
        hands.flush()

    try:
        _wait_status(sock)
        # A second table on the same configuration stops before it opens the reader.
        second = _tablepi("run", "--headless", "--config", str(config), stdin=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, cwd=tmp_path)
        _, err = second.communicate(timeout=30)
        # (the journal's lock names the running table's pid; the control socket says it runs)
        assert second.returncode == 2 and ("another table already runs" in err or f"in use by pid {table.pid}" in err)

        # 1. the game under way: W (forehand) names hearts by showing AH; a card on N's zone before W leads
        lay("place 3 AH")
        lay("lift 3")
        _wait_status(sock, lambda s: s["phase"] == "play")
        lay("place 0 9C")
        # 2. enrol deck 'red' through the running table: a person lays each card asked for
        enrol = _tablepi("enroll", "red", "--config", str(config), "--timeout", "60", stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, cwd=tmp_path)
        assert enrol.stdout is not None
        said = []
        zone = 1
        for text in enrol.stdout:
            said.append(text.rstrip("\n"))
            card = next((c for c in DECK if text.startswith(f"Lay {c.display} on any zone")), None)
            if card is not None:
                zone = 1 + (zone % 3)
                lay(f"place {zone} {RED[card]}")
                lay(f"lift {zone}")
        assert enrol.wait(timeout=30) == 0, enrol.stderr.read() if enrol.stderr else ""
        assert said[0] == "the running table enrols (its reader, its screen); lay the cards on its zones"
        assert said[-1] == f"deck 'red': all 24 cards enrolled into {tmp_path / 'decks.toml'}; " \
                           "the running table uses it now"
        status = _wait_status(sock)
        assert [d["name"] for d in status["decks"]] == ["demo", "red"]  # type: ignore[index, union-attr]

        # 3. a player's keyring tag, the same way
        enrol = _tablepi("enroll", "--player", "Jang", "--config", str(config), "--timeout", "30",
                         stdout=subprocess.PIPE, cwd=tmp_path)
        assert enrol.stdout is not None
        for text in enrol.stdout:
            if text.startswith("Lay Jang's player tag"):
                lay(f"place 3 {KEYRING}")
        assert enrol.wait(timeout=30) == 0
        assert load_players_file(tmp_path / "players.toml").lookup(KEYRING) == "Jang"

        status = ask(sock)
        assert (status["phase"], status["deal"], status["mode"]) == ("play", 1, None)  # the game went on under it

        # 4. doctor asks the table what it uses (and does not open its reader)
        doctor = subprocess.run([sys.executable, "-m", "tablepi", "doctor", "--config", str(config)],
                                capture_output=True, text=True, timeout=60, cwd=tmp_path)
        assert "[  ok] service: a table runs (pid" in doctor.stdout
        assert "the running table uses deck 'red': 24 cards" in doctor.stdout
        assert "the running table knows 1 player tag(s)" in doctor.stdout
        assert "the running table's sim reader: all 4 zones online" in doctor.stdout
        # ... nor the screen it holds (a headless table says so)
        assert "the running table runs without a screen (headless)" in doctor.stdout

        # 5. the deck file replaced under the running table; then a broken one
        write_deck_file(tmp_path / "decks.toml", [BLUE])
        status = _wait_status(sock, lambda s: [d["name"] for d in s["decks"]] == ["blue"])
        doctor = subprocess.run([sys.executable, "-m", "tablepi", "doctor", "--config", str(config)],
                                capture_output=True, text=True, timeout=60, cwd=tmp_path)
        assert "the running table uses deck 'blue': 24 cards" in doctor.stdout  # the new deck, no restart
        (tmp_path / "decks.toml").write_text("this is not a deck file\n", encoding="utf-8")
        wait_until(lambda: "deck file not reloaded" in (tmp_path / "run.log").read_text(encoding="utf-8"),
                   "the table to say it keeps its decks")
        time.sleep(3 * POLL_SECONDS)  # it looks again meanwhile (a window, not a wait): it says so only once
        assert [d["name"] for d in ask(sock)["decks"]] == ["blue"]
    finally:
        table.send_signal(signal.SIGTERM)
        table.wait(timeout=30)
        hands.close()
    log = (tmp_path / "run.log").read_text(encoding="utf-8")
    assert log.count("deck file not reloaded") == 1
    assert not sock.exists()
    # The table's journal holds the game card and not one card of the enrolment.
    with JournaledTable(tmp_path / "j.sqlite3") as journaled:
        uids = {e.uid for e in journaled.journal.events() if isinstance(e, CardPlaced)}
    assert virtual_deck().uid_of(DECK[23]) in uids and virtual_deck().uid_of(Card.parse("AH")) in uids
    assert not uids & set(RED.values()) and KEYRING not in uids


def test_a_new_match_through_the_control_socket(rig: tuple[TableApp, Enroller, Clock]) -> None:
    """A table without a screen begins a new match from ``tablepi match``: refused while a match is going,
    journaled like the button once it is over."""
    from tablepi.table.simulate import simulate_match

    app, _, clock = rig
    events = simulate_match(3).events
    for i, event in enumerate(events):  # a whole match, as the table's own events
        clock.now = 100.0 + event.time
        app.handle(replace(event, time=clock.now))
        if i == len(events) // 2:
            (refused,) = _run(app, ControlRequest("new_match", {}), [])
            assert refused["end"] and refused["ok"] is False and refused["error"]
    assert app.table.state.match.winner is not None
    before = app.table.state.match.number
    (done,) = _run(app, ControlRequest("new_match", {}), [])
    assert done["ok"] and done["match"] == before + 1 and app.table.state.match.number == before + 1
