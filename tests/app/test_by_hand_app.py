"""The game goes on by hand at the running table: the sim reader and its pump, the app, the real journal and the
headless screen. Every gesture by hand is a finger on the screen as drawn (a press and a release on the key or
the card place that was drawn), and the end of each match is checked against the rules core."""

from __future__ import annotations

import json
import queue
from collections.abc import Callable, Iterator
from pathlib import Path

import pygame
import pytest

from tablepi.app.build import make_console, service_app
from tablepi.app.core import TableApp, Touch
from tablepi.app.demo import ZONES, VirtualClock, demo_deck
from tablepi.app.reloads import TableFiles
from tablepi.app.screen import PygameScreen
from tablepi.cli import main
from tablepi.config import DisplayConfig
from tablepi.deck import DeckRegistry
from tablepi.display.keys import Word, touch_named
from tablepi.display.layout import layout_for
from tablepi.display.panels import CardPicker, DealForm, HistoryPanel, Keyboard
from tablepi.display.sheet import key_rects
from tablepi.display.touch import SETTLE
from tablepi.journal.journal import Journal, JournaledTable
from tablepi.journal.record import RecordHeader, load_record
from tablepi.players import PlayerRegistry
from tablepi.readers import ReaderPump, ZoneEvent, ZoneStatus, open_reader
from tablepi.rules import Announcement, Card, Seat, Team
from tablepi.rules.entry import DealEntry
from tablepi.rules.house import HouseRules
from tablepi.rules.slate import Match
from tablepi.table import Button, ButtonName, CardLifted, CardPlaced, ReaderState, ReaderStatus, Table, TableEvent
from tablepi.table.events import (
    CardEntered,
    CorrectionAnswered,
    CorrectionProposed,
    DealEntered,
    DealerChosen,
    PlayersSeated,
    SeatingSource,
)
from tablepi.table.simulate import simulate_match
from tablepi.table.state import TableConfig, TablePhase, TableState
from tablepi.table.warnings import WarningCode
from tests.table.test_by_hand import entries_of, kill_reader, results

pytestmark = pytest.mark.slow

SEAT_ZONE = {seat: zone for zone, seat in ZONES.items()}
KEYRING = "04AB12CD34EF56"


def touch(text: str, seat: Seat | None = None) -> Touch:
    """A touch on the control the hit-map names ``text`` (``key:suit:H``, ``open:menu``, ``zone:W``, ``confirm``)."""
    return Touch(touch_named(text), seat)


class Rig:
    """The sim reader, its pump, the app with its hand-entry console and screen, on a journal in ``tmp``."""

    def __init__(self, tmp: Path, players: dict[str, str] | None = None, rules: HouseRules | None = None,
                 files: Callable[[VirtualClock], TableFiles] | None = None) -> None:
        self.clock = VirtualClock()
        self.deck = demo_deck()
        self.uid_of = {card: uid for uid, card in self.deck.cards.items()}
        self.reader = open_reader("sim", clock=self.clock)
        self.path = tmp / "journal.sqlite3"
        # As the app runs it: finished matches go to archive/ beside the journal (app.build).
        self.table = JournaledTable(self.path, RecordHeader(rules or HouseRules(), table=TableConfig(),
                                                            zones=tuple(ZONES.items())), archive=tmp / "archive")
        self.screen = PygameScreen(DisplayConfig(language="en", size=(800, 480)), headless=True)
        if files is None:  # the app with its console, as the app builds it
            console, names = make_console("en", self.path)
            self.app = TableApp(self.table, DeckRegistry([self.deck]), ZONES, screen=self.screen, clock=self.clock,
                                console=console, names=names, players=PlayerRegistry(players or {}))
        else:  # the running service's app: its files reloaded, its enrol mode
            self.app = service_app(self.table, files(self.clock), ZONES, self.path, "en", screen=self.screen,
                                   clock=self.clock)
        self.pump = ReaderPump(self.reader, self.app.put, close_reader=True)
        self.wait_for(lambda item: isinstance(item, ZoneStatus), count=4)  # every zone online
        self.touch_time = 0.0
        self.screen.touch.clock = lambda: self.touch_time
        self.hand_views: list[bool] = []  # per card entered by hand: drawn marked "by hand" on its seat
        self.trumps_by_hand = 0

    # --- the reader's side ------------------------------------------------------------------------------------

    def wait_for(self, wanted: Callable[[object], bool], count: int = 1, timeout: float = 5.0) -> None:
        """Handle what the pump delivers until ``count`` items ``wanted`` went through the app."""
        seen = 0
        while seen < count:
            try:
                item = self.app.inbox.get(timeout=timeout)
            except queue.Empty:
                raise AssertionError("the reader's event never reached the app") from None
            self.app.handle(item)
            seen += bool(wanted(item))
        self.app.settle_zones()

    def advance(self, target: float) -> None:
        from tablepi.table import Tick

        while self.clock.now < target - 1e-9:
            self.clock.now = min(target, self.clock.now + 0.1)
            self.app.handle(Tick(self.app.now))

    def place(self, seat: Seat, uid: str) -> None:
        self.reader.place(SEAT_ZONE[seat], uid)  # type: ignore[attr-defined]
        self.wait_for(lambda item: isinstance(item, ZoneEvent))

    def lift(self, seat: Seat) -> None:
        self.reader.lift(SEAT_ZONE[seat])  # type: ignore[attr-defined]
        self.wait_for(lambda item: isinstance(item, ZoneEvent))

    def unplug(self, seat: Seat) -> None:
        self.reader.unplug(SEAT_ZONE[seat])  # type: ignore[attr-defined]
        self.wait_for(lambda item: isinstance(item, ZoneStatus))

    # --- a finger on the screen -------------------------------------------------------------------------------

    @property
    def state(self) -> TableState:
        return self.app.table.state

    def press(self, pos: tuple[float, float]) -> None:
        """A finger's touch at ``pos``, as a person makes them: more than half a second after the last one (a
        quicker one on a control that came up under the finger is ignored, tablepi.display.touch.SETTLE)."""
        self.touch_time += SETTLE + 0.1
        events = [pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=pos, button=1),
                  pygame.event.Event(pygame.MOUSEBUTTONUP, pos=pos, button=1)]
        for name, seat in self.screen.actions(events):
            self.app.handle(Touch(name, seat))

    def key(self, key_id: str) -> None:
        """Touch the live key ``key_id`` of the sheet on screen."""
        sheet = self.screen.display.last.sheet  # type: ignore[union-attr]
        assert sheet is not None, f"no panel is up to touch {key_id!r}"
        live = {str(k.id): r for k, r in key_rects(sheet, self.screen.size) if k.live and k.id is not None}
        assert key_id in live, f"{key_id!r} is not a live key of {sheet.title!r}: {sorted(live)}"
        self.press(live[key_id].center)

    def touch_zone(self, seat: Seat) -> None:
        view = self.screen.display.last
        assert view is not None
        self.press(layout_for(self.screen.size).slots(view.bottom_seat)[seat].card.center)

    def open_menu(self) -> None:
        self.play_on()
        self.press(layout_for(self.screen.size).header.center)

    def play_on(self) -> None:
        """As a match begins the table offers names and the first dealer: players who want the menu touch Play."""
        sheet = self.screen.display.last.sheet  # type: ignore[union-attr]
        if sheet is not None and sheet.title == "New match":
            self.key("cancel")

    def enter_card(self, seat: Seat, card: Card) -> None:
        """The card picker: a touch on the seat's card place, the suit, the card, then Confirm."""
        before = self.state.deal.tricks
        self.touch_zone(seat)
        picker = self.app.console.panel  # type: ignore[union-attr]
        assert isinstance(picker, CardPicker), "the seat's card place opened no picker"
        if picker.suit is None:  # (one suit possible: its ranks are up at once; one card: Confirm is)
            self.key(f"suit:{card.suit.value}")
        if picker.card is None:
            self.key(f"card:{card}")
        assert self.state.deal.tricks == before  # nothing is played before Confirm
        self.key("confirm")
        drawn = self.screen.display.last.seat(seat)  # type: ignore[union-attr]
        self.hand_views.append(drawn is not None and drawn.card is not None and drawn.card.by_hand)

    def by_hand_trumps(self, event: Button) -> bool:
        """Forehand's reader is dead: Confirm between deals and his trump button are his trumps picker instead
        (a touch on his card place, the suit, Confirm)."""
        state = self.state
        seat = state.deal.forehand
        if state.zone(seat).reader is ReaderState.ONLINE or state.phase not in (TablePhase.DEAL_OVER,
                                                                                  TablePhase.TRUMPS):
            return False
        if event.name is ButtonName.CONFIRM and state.phase is TablePhase.DEAL_OVER:
            return True  # the picker's Confirm will begin the deal
        suit = event.name.suit
        if suit is None:
            return False
        self.touch_zone(seat)
        picker = self.app.console.panel  # type: ignore[union-attr]
        assert isinstance(picker, CardPicker) and picker.trumps, "forehand's card place opened no trumps picker"
        self.key(f"suit:{suit.value}")
        self.key("confirm")
        self.trumps_by_hand += 1
        return True

    def enter_deal(self, entry: DealEntry, correct: int | None = None) -> None:
        """The deal form, from the menu, filled in key by key as the players would."""
        self.open_menu()
        if correct is None:
            self.key("open:deal")
        else:
            self.key("open:correct")
            form = self.app.console.panel  # type: ignore[union-attr]
            assert isinstance(form, DealForm)
            while form.correct != correct:
                self.key("deal:-" if form.correct is not None and form.correct > correct else "deal:+")
                form = self.app.console.panel  # type: ignore[union-attr]
                assert isinstance(form, DealForm)
        self.fill(entry)
        self.key("ok")

    def fill(self, entry: DealEntry) -> None:
        def form() -> DealForm:
            panel = self.app.console.panel  # type: ignore[union-attr]
            assert isinstance(panel, DealForm)
            return panel

        self.key(f"trumps:{entry.trumps.value}")
        self.key(f"winner:{entry.winner.value if entry.winner is not None else 'tie'}")
        if form().typing is not None:  # the winners chosen: the number pad asks their points
            if entry.kapo or entry.points is None or entry.points == form().points:
                self.key("pad:cancel")
            else:
                for digit in f"{entry.points:02d}":
                    self.key(f"digit:{digit}")
        matt = next((s for s, a in entry.announcements if a in (Announcement.MATT, Announcement.KONTER_A_MATT)),
                    None)
        konter = next((s for s, a in entry.announcements if a in (Announcement.KONTER,
                                                                   Announcement.KONTER_A_MATT)), None)
        for kind, seat in (("matt", matt), ("konter", konter)):
            now = getattr(form(), kind)
            if now is not seat:
                self.key(f"{kind}:{(seat or now).value}")  # type: ignore[union-attr]
        if entry.winner is None:
            return
        if entry.kapo != form().kapo:
            self.key("kapo")
        if (entry.claimed_by is not None) != form().claimed:
            self.key("claim")
        if not entry.kapo and entry.points is not None and form().points != entry.points:
            self.key("points")  # the number pad: two digits and the form is back
            for digit in f"{entry.points:02d}":
                self.key(f"digit:{digit}")

    # --- a script of the simulator, played at this table ------------------------------------------------------

    def act(self, event: TableEvent) -> None:
        self.advance(event.time)
        if isinstance(event, CardPlaced):
            assert event.card is not None
            self.place(event.seat, self.uid_of[event.card])
        elif isinstance(event, CardLifted):
            self.lift(event.seat)
        elif isinstance(event, ReaderStatus):
            assert event.state is ReaderState.OFFLINE
            self.unplug(event.seat)
        elif isinstance(event, Button) and self.by_hand_trumps(event):
            pass
        elif isinstance(event, Button):
            self.app.handle(Touch(event.name, event.seat))
        elif isinstance(event, CardEntered):
            self.enter_card(event.seat, event.card)

    def close(self) -> None:
        self.pump.close()
        self.app.close()


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[Rig]:
    rig = Rig(tmp_path, players={KEYRING: "Guillaume"})
    try:
        yield rig
    finally:
        rig.close()


def _journal(path: Path) -> list[TableEvent]:
    with Journal(path) as journal:
        return journal.events()


def test_a_reader_dies_at_trick_2_of_deal_3_and_its_seat_plays_by_hand_to_the_end(
    rig: Rig, tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    script = simulate_match(3, claims=False)
    assert script.match is not None and script.deals >= 4
    events = kill_reader(script.events, script, Seat.E)
    for event in events:
        rig.act(event)
    rig.advance(rig.clock.now + 2.0)
    state = rig.state
    assert state.phase is TablePhase.MATCH_OVER
    assert results(rig.table.table.matches[0].slate) == results(script.match.slate)  # the rules core's slate
    assert state.zone(Seat.E).reader is ReaderState.OFFLINE and not state.zone(Seat.E).cards
    entered = [e for e in events if isinstance(e, CardEntered)]
    assert len(entered) >= 10 and all(rig.hand_views)  # each drawn marked "by hand" on E's place
    assert rig.trumps_by_hand >= 1  # E was forehand after his reader died: he named trumps by hand
    assert [row.by_hand for row in state.history] == [False, False] + [True] * (len(state.history) - 2)
    rig.close()
    journaled = _journal(rig.path)
    assert [e for e in journaled if isinstance(e, CardEntered)] == [
        CardEntered(e.time, e.seat, e.card) for e in journaled if isinstance(e, CardEntered)]
    assert [(e.seat, e.card) for e in journaled if isinstance(e, CardEntered)] == [(e.seat, e.card) for e in entered]
    assert Table.replay(journaled, HouseRules(), Seat.N, TableConfig()).state.match.slate == state.match.slate
    # The record marks the cards by hand: hand_card lines, and the replay's report of each deal.
    record = tmp_path / "evening.jsonl"
    assert main(["export", "--journal", str(rig.path), str(record)]) == 0
    lines = [json.loads(line) for line in record.read_text(encoding="utf-8").splitlines()]
    assert lines[0]["version"] == 2
    assert sum(1 for line in lines if line.get("type") == "hand_card" and line["seat"] == "E") == len(entered)
    assert not any(line.get("type") == "place" and line.get("seat") == "E" and line["t"] > entered[0].time
                   for line in lines)
    capsys.readouterr()
    assert main(["replay", "--json", str(record)]) == 0
    deals = json.loads(capsys.readouterr().out)["deals"]
    assert [d["by_hand"] for d in deals][:2] == [False, False] and all(d["by_hand"] for d in deals[2:])
    assert load_record(record).events == tuple(journaled)


def test_a_double_tap_on_a_rank_never_plays_the_card_without_its_check(rig: Rig) -> None:
    """Issue 20: a double tap on a rank played the card: Confirm came up under the finger and took the second tap.
    Now a tap 0.2 s after the first, where the first was, does nothing; Confirm a moment later plays it."""
    rig.unplug(Seat.E)
    uid = rig.uid_of
    rig.app.handle(touch("trump_hearts"))  # dealer N: forehand W names hearts
    t = 1.0
    for seat, card in ((Seat.W, "9S"), (Seat.S, "TS")):
        t += 1.5
        rig.advance(t)
        rig.place(seat, uid[Card.parse(card)])
    rig.advance(t + 1.5)
    before = rig.state.deal.tricks
    rig.touch_zone(Seat.E)
    rig.key("suit:D")
    sheet = rig.screen.display.last.sheet  # type: ignore[union-attr]
    assert sheet is not None
    rank = {str(k.id): r for k, r in key_rects(sheet, rig.screen.size) if k.live and k.id is not None}["card:AD"]
    rig.press(rank.center)
    rig.touch_time -= SETTLE + 0.1 - 0.2  # the second tap of a double tap: 0.2 s after the first, in its place
    rig.press(rank.center)
    assert rig.state.deal.tricks == before, "the double tap played the card without its check"
    rig.key("confirm")
    assert rig.state.deal.tricks[0].plays[-1] == (Seat.E, Card.parse("AD"))


def test_a_revoke_entered_by_hand_is_still_caught(rig: Rig) -> None:
    """E's reader is dead from the start; his diamond on a spade lead, entered by hand, is a revoke the moment a
    spade of his shows he had one (rule 18), and the warning names E, not an innocent player."""
    rig.unplug(Seat.E)
    uid = rig.uid_of
    t = 1.0

    def lay(seat: Seat, card: str) -> None:
        nonlocal t
        t += 1.5
        rig.advance(t)
        if seat is Seat.E:
            rig.enter_card(seat, Card.parse(card))
        else:
            rig.place(seat, uid[Card.parse(card)])

    rig.app.handle(touch("trump_hearts"))  # dealer N: forehand W names hearts
    for seat, card in ((Seat.W, "9S"), (Seat.S, "TS"), (Seat.E, "AD"), (Seat.N, "JD")):
        lay(seat, card)  # trick 1: S wins with TS
    rig.advance(t + 1.5)
    assert rig.state.deal.tricks[0].winner is Seat.S and rig.state.deal.tricks[0].by_hand == (Seat.E,)
    assert not any(w.code is WarningCode.REVOKE for w in rig.state.warnings)
    for seat in (Seat.W, Seat.S, Seat.N):  # S sweeps the trick (nothing lies on E's zone)
        rig.lift(seat)
    for seat, card in ((Seat.S, "KC"), (Seat.E, "KS")):
        lay(seat, card)  # E's king of spades: he held a spade at trick 1
    revokes = [w for w in rig.state.warnings if w.code is WarningCode.REVOKE]
    assert revokes and {w.seat for w in revokes} == {Seat.E}
    rig.close()
    again = Table.replay(_journal(rig.path), HouseRules(), Seat.N, TableConfig()).state
    assert [w.seat for w in again.warnings if w.code is WarningCode.REVOKE] == [Seat.E]


def test_a_match_scored_entirely_by_hand_on_the_screen(rig: Rig) -> None:
    script = simulate_match(1)
    assert script.match is not None
    entries = entries_of(script.match)
    for i, entry in enumerate(entries):
        rig.advance(10.0 * (i + 1))
        rig.enter_deal(entry)
    state = rig.state
    assert state.phase is TablePhase.MATCH_OVER and state.match.winner is script.match.winner
    assert results(rig.table.table.matches[0].slate) == results(script.match.slate)
    assert [row.trumps for row in state.history] == [d.forehand for d in script.match.deals]
    assert all(row.by_hand for row in state.history)
    told = [e.entry for e in rig.app.table.journal.events() if isinstance(e, DealEntered)]
    assert [Match.__name__ and e.result() for e in told] == [e.result() for e in entries]
    # The evening's history, scrolled to its last deal.
    rig.open_menu()
    rig.key("open:history")
    panel = rig.app.console.panel  # type: ignore[union-attr]
    assert isinstance(panel, HistoryPanel) and panel.rows == len(entries)
    shown = list(rig.screen.display.last.sheet.lines)  # type: ignore[union-attr]
    while Word.DOWN in rig.app.console.panel.live_keys():  # type: ignore[union-attr]
        rig.key("down")
        shown += [line for line in rig.screen.display.last.sheet.lines if line not in shown]  # type: ignore[union-attr]
    assert len(shown) == len(entries) and shown[-1].startswith(f"{len(entries)}.")
    assert all("by hand" in line for line in shown)
    rig.key("cancel")


def test_a_correction_of_a_past_deal_accepted_by_both_teams_and_one_refused(rig: Rig) -> None:
    told = [DealEntry(Seat.W, Team.EW, 25), DealEntry(Seat.S, Team.NS, 30, announcements=((Seat.N,
            Announcement.MATT),)), DealEntry(Seat.E, Team.EW, 22)]
    for i, entry in enumerate(told):
        rig.advance(5.0 * (i + 1))
        rig.enter_deal(entry)
    before = rig.state.match.open_lines
    # Deal 1 was won by N+S: proposed, and refused by E+W.
    rig.enter_deal(DealEntry(Seat.W, Team.NS, 24), correct=1)
    assert rig.state.match.proposal is not None and rig.screen.display.last.sheet.title == "Correct deal 1"  # type: ignore[union-attr]
    rig.key("answer:NS:yes")
    rig.key("answer:EW:no")
    assert rig.state.match.proposal is None and rig.state.match.open_lines == before
    said = rig.screen.display.last.warning  # type: ignore[union-attr]
    assert said is not None and said.text == "Correction of deal 1 refused: the slate stays as it was."
    assert not any(row.corrected for row in rig.state.history)
    # A touch on deal 2's row of the evening's deals opens its correction form, filled in as it was scored.
    rig.open_menu()
    rig.key("open:history")
    rig.key("row:2")
    form = rig.app.console.panel  # type: ignore[union-attr]
    assert isinstance(form, DealForm) and form.correct == 2
    assert form.entry().result() == told[1].result()
    assert rig.screen.display.last.sheet.title == "Correct deal 2"  # type: ignore[union-attr]
    rig.key("cancel")
    # Deal 2 had no Matt: proposed again, accepted by both teams.
    rig.enter_deal(DealEntry(Seat.S, Team.NS, 30), correct=2)
    rig.key("answer:EW:yes")
    assert rig.state.match.open_lines == before and rig.state.match.proposal is not None  # one team is not enough
    rig.key("answer:NS:yes")
    assert rig.state.match.proposal is None
    assert [row.corrected for row in rig.state.history] == [False, True, False]
    assert rig.state.match.slate[1].stake == 1 and rig.state.match.open_lines != before
    rig.close()
    kinds = [type(e) for e in _journal(rig.path) if isinstance(e, CorrectionProposed | CorrectionAnswered)]
    assert kinds == [CorrectionProposed, CorrectionAnswered, CorrectionAnswered] * 2


def test_players_seated_by_their_tags_and_by_touch_and_the_first_dealer_chosen(tmp_path: Path) -> None:
    from tablepi.app.names import RecentNames

    RecentNames(tmp_path / "names.txt").add(["Marie", "Jang"])  # an earlier match's players
    rig = Rig(tmp_path, players={KEYRING: "Guillaume"})
    try:
        rig.place(Seat.S, KEYRING)  # Guillaume taps his keyring tag on S's zone
        rig.lift(Seat.S)
        assert dict(rig.state.names) == {Seat.S: "Guillaume"} and not rig.state.zone(Seat.S).cards
        said = rig.screen.display.last.warning  # type: ignore[union-attr]
        assert said is not None and said.text == "Guillaume sits at S." and said.informational
        rig.open_menu()
        rig.key("open:players")
        board = rig.app.console.panel  # type: ignore[union-attr]
        assert isinstance(board, Keyboard) and board.seat is Seat.N
        assert board.suggestions()[:2] == ("Marie", "Jang")  # earlier names first
        rig.key("name:Jang")  # N
        for ch in "Anna":  # E, typed
            rig.key(f"char:{ch}")
        rig.key("ok")
        board = rig.app.console.panel  # type: ignore[union-attr]
        assert isinstance(board, Keyboard) and board.seat is Seat.S
        assert board.text == "Guillaume" and "Anna" not in board.names and "Jang" not in board.names  # seated
        rig.key("ok")  # S is seated by his tag already: his name is there, OK
        assert isinstance(rig.app.console.panel, Keyboard) and rig.app.console.panel.seat is Seat.W  # type: ignore[union-attr]
        rig.key("cancel")  # nobody at W yet: ✕ leaves that seat as it is
        rig.open_menu()
        rig.key("open:dealer")
        rig.key("seat:E")
        state = rig.state
        assert dict(state.names) == {Seat.S: "Guillaume", Seat.N: "Jang", Seat.E: "Anna"}
        assert state.deal.dealer is Seat.E and state.deal.forehand is Seat.N
        view = rig.screen.display.last
        assert view is not None and view.seat(Seat.E).name == "Anna"  # type: ignore[union-attr]
    finally:
        rig.close()
    seated = [e for e in _journal(rig.path) if isinstance(e, PlayersSeated | DealerChosen)]
    assert [(type(e).__name__, getattr(e, "source", None)) for e in seated] == [
        ("PlayersSeated", SeatingSource.TAG), ("PlayersSeated", SeatingSource.TOUCH),
        ("PlayersSeated", SeatingSource.TOUCH), ("DealerChosen", None)]
    # Offered first at the next match: the players just seated, the most recent first, then the earlier ones.
    assert (tmp_path / "names.txt").read_text(encoding="utf-8").splitlines() == ["Anna", "Jang", "Guillaume", "Marie"]


def test_a_match_begins_with_the_offer_of_names_and_first_dealer_and_never_waits_for_it(tmp_path: Path) -> None:
    """As a match begins the table offers, by itself and once, the players' names and the first dealer; Play, or a
    card laid, goes on without them."""
    rig = Rig(tmp_path / "a")
    try:
        sheet = rig.screen.display.last.sheet  # type: ignore[union-attr]
        assert sheet is not None and sheet.title == "New match"
        rig.key("open:players")
        assert isinstance(rig.app.console.panel, Keyboard) and rig.app.console.panel.seat is Seat.N  # type: ignore[union-attr]
        for ch in "Jang":
            rig.key(f"char:{ch}")
        rig.key("ok")
        for seat in (Seat.E, Seat.S, Seat.W):  # the others later, or never: ✕ leaves one seat as it is
            assert rig.app.console.panel.seat is seat  # type: ignore[union-attr]
            rig.key("cancel")
        assert dict(rig.state.names) == {Seat.N: "Jang"}
        assert rig.screen.display.last.sheet is None  # type: ignore[union-attr]  # offered once, not again
    finally:
        rig.close()
    rig = Rig(tmp_path / "b")
    try:
        assert rig.screen.display.last.sheet.title == "New match"  # type: ignore[union-attr]
        rig.key("open:dealer")
        rig.key("seat:W")
        assert rig.state.deal.dealer is Seat.W and rig.screen.display.last.sheet is None  # type: ignore[union-attr]
    finally:
        rig.close()
    rig = Rig(tmp_path / "c")
    try:
        assert rig.screen.display.last.sheet.title == "New match"  # type: ignore[union-attr]
        forehand = rig.state.deal.forehand
        rig.advance(1.0)
        rig.place(forehand, rig.uid_of[Card.parse("AH")])  # forehand shows a heart: trumps, nobody touched the sheet
        rig.advance(1.3)
        rig.lift(forehand)
        rig.advance(3.0)
        assert rig.state.deal.trump is not None and rig.state.deal.trump.symbol == "♥"
        assert rig.screen.display.last.sheet is None  # type: ignore[union-attr]
    finally:
        rig.close()


def test_undo_takes_back_each_gesture_by_hand(rig: Rig) -> None:
    """Undo after each gesture by hand gives back the table as it was before it (the journal keeps both)."""

    def same(a: TableState, b: TableState) -> bool:
        def parts(s: TableState) -> tuple[object, ...]:
            return (s.match.slate, s.names, s.match.proposal, s.deal.dealer, s.deal.tricks, s.phase,
                    s.match.open_lines, s.history)

        return parts(a) == parts(b)

    def undone(gesture: Callable[[], None]) -> None:
        before = rig.state
        gesture()
        assert not same(rig.state, before), "the gesture changed nothing"
        rig.app.handle(touch("undo"))
        assert same(rig.state, before)
        gesture()  # and done again, for the next one

    def seat_by_touch() -> None:
        rig.open_menu()
        rig.key("open:players")
        rig.key("char:M")
        rig.key("ok")
        while isinstance(rig.app.console.panel, Keyboard):  # type: ignore[union-attr]
            rig.key("cancel")  # the other seats left as they are

    def seat_by_tag() -> None:
        rig.place(Seat.W, KEYRING)
        rig.lift(Seat.W)

    def dealer() -> None:
        rig.open_menu()
        rig.key("open:dealer")
        rig.key("seat:S")

    undone(seat_by_touch)
    undone(seat_by_tag)
    undone(dealer)
    rig.unplug(Seat.E)  # dealer S: forehand E, whose reader is dead, names trumps by touch and plays by hand
    rig.app.handle(touch("trump_clubs"))
    undone(lambda: rig.enter_card(Seat.E, Card.parse("AC")))
    undone(lambda: rig.enter_deal(DealEntry(Seat.E, Team.EW, 26)))
    undone(lambda: rig.enter_deal(DealEntry(Seat.E, Team.NS, 26), correct=1))
    undone(lambda: rig.key("answer:NS:yes"))
    undone(lambda: rig.key("answer:EW:yes"))
    assert rig.state.match.slate[0].result.winner is Team.NS
    kinds = {type(e) for e in rig.app.table.journal.events()}
    assert {CardEntered, DealEntered, CorrectionProposed, CorrectionAnswered, PlayersSeated, DealerChosen} <= kinds


# --- enrolment from the table's own screen ------------------------------------------------------------------


def test_a_deck_and_a_player_tag_enrolled_from_the_screens_enrol_menu(tmp_path: Path) -> None:
    """Menu, Enrol, a deck: its name on the keyboard, then each card laid when the sheet asks for it, on the
    running table's own reader; the table uses the new deck at once and not one of its cards reached the game.
    Then a player's tag the same way, and a deck enrolment stopped halfway, which writes nothing."""
    from tablepi.deck import load_deck_file, write_deck_file
    from tablepi.players import load_players_file
    from tablepi.rules import DECK

    write_deck_file(tmp_path / "decks.toml", [demo_deck()])
    rig = Rig(tmp_path, files=lambda clock: TableFiles([tmp_path / "decks.toml"], tmp_path / "players.toml",
                                                         clock=clock))
    red = {card: f"04E1{i:02X}A1B2C3D4" for i, card in enumerate(DECK)}
    try:
        rig.open_menu()
        rig.key("open:enrol")
        assert rig.screen.display.last.sheet.lines == ("Lay each card when asked.",)  # type: ignore[union-attr]
        rig.key("open:enrol_deck")
        for ch in "red":
            rig.key(f"char:{ch}")
        rig.key("ok")
        for n, card in enumerate(DECK, start=1):
            sheet = rig.screen.display.last.sheet  # type: ignore[union-attr]
            assert sheet is not None and sheet.title == "Enrolling deck 'red'"
            assert sheet.lines[-1] == f"Lay {card.display} on any zone ({n}/24).", sheet.lines
            seat = (Seat.N, Seat.E, Seat.S, Seat.W)[n % 4]
            rig.place(seat, red[card])
            rig.lift(seat)
        sheet = rig.screen.display.last.sheet  # type: ignore[union-attr]
        assert sheet is not None and sheet.lines[-1] == "Deck 'red' complete: 24 cards saved."
        rig.key("stop")  # "Close"
        assert rig.screen.display.last.sheet is None  # type: ignore[union-attr]
        assert [d.name for d in load_deck_file(tmp_path / "decks.toml")] == ["demo", "red"]
        assert rig.app.deck.lookup(red[DECK[0]]) is not None  # the running table uses it now
        # A player's tag, named from the keyboard.
        rig.open_menu()
        rig.key("open:enrol")
        rig.key("open:enrol_player")
        for ch in "Jang":
            rig.key(f"char:{ch}")
        rig.key("ok")
        assert rig.screen.display.last.sheet.lines[-1] == "Lay Jang's player tag on any zone."  # type: ignore[union-attr]
        rig.place(Seat.S, KEYRING)
        rig.lift(Seat.S)
        assert rig.screen.display.last.sheet.lines[-1] == "Player tag of Jang saved."  # type: ignore[union-attr]
        rig.key("stop")
        assert load_players_file(tmp_path / "players.toml").lookup(KEYRING) == "Jang"
        # Stopped halfway: nothing written, the game's screen back. Its name has a digit (the 123 face).
        rig.open_menu()
        rig.key("open:enrol")
        rig.key("open:enrol_deck")
        for ch in "deck":
            rig.key(f"char:{ch}")
        rig.key("digits")
        rig.key("char:2")
        rig.key("ok")
        assert rig.screen.display.last.sheet.title == "Enrolling deck 'deck2'"  # type: ignore[union-attr]
        rig.place(Seat.E, "04B100A1B2C3D4")
        rig.lift(Seat.E)
        rig.key("stop")
        assert not rig.app.ports.enrolment.running and rig.screen.display.last.sheet is None  # type: ignore[union-attr]
        assert [d.name for d in load_deck_file(tmp_path / "decks.toml")] == ["demo", "red"]
    finally:
        rig.close()
    journaled = _journal(rig.path)
    assert not [e for e in journaled if isinstance(e, CardPlaced)]  # not one enrolled card reached the game
