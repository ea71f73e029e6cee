"""Whatever the table accepts and journals, it replays: random gestures of every event type through the journal,
and a restart from the journal after every step (issues 20 and 21).

A hypothesis state machine drives :class:`~tablepi.journal.journal.JournaledTable` as the app runs it (one match per
journal, finished matches archived) with every kind of event a record holds: cards laid and lifted (of the deck,
of another deck, a stranger's tag), every button with or without a seat (claims, announcements, revanche, new
match, undo, confirm), readers dying and coming back, crosstalk, time passing, cards and whole deals by hand,
corrections proposed for any deal and answered late, by either team, across the end of a match, seatings with
random names (long ones, unicode, control characters, empty) from every source, and the first dealer chosen.

After every step the process "restarts": the journal is closed and a fresh JournaledTable replays it (the
evening read back from the archive). Then:

- feeding never raised, and the restarted table's state equals the one before the restart (up to the clock);
- every journaled line reads back with the strict record reader (no salvage needed);
- a name the table shows is at most ``MAX_NAME`` characters on one line;
- every scored deal's result is what the rules core makes of it (the entry told or corrected; the plays of a
  played deal, replayed through a fresh rules Deal), and each match's slate equals an independent scorer's
  (rules 24-28 written out again here, not the rules core's Slate);
- the evening's history numbers its matches 1, 2, ... and the current match is the last.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, Phase, event, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from tablepi.journal.journal import JournaledTable
from tablepi.journal.record import RecordHeader
from tablepi.players import MAX_NAME
from tablepi.rules import DECK, Card, HouseRules, Seat, Suit, Team
from tablepi.rules.deal import Deal, DealResult
from tablepi.rules.entry import DealEntry
from tablepi.rules.house import TieRule
from tablepi.table import Button, ButtonName, CardLifted, CardPlaced, ReaderState, ReaderStatus, TableState, Tick
from tablepi.table.events import (
    CardEntered,
    CorrectionAnswered,
    CorrectionProposed,
    DealEntered,
    DealerChosen,
    PlayersSeated,
    ReaderCrosstalk,
    SeatingSource,
    TableEvent,
    TrumpsEntered,
)
from tablepi.table.state import TableConfig, TablePhase
from tests.table.test_stateful import entries, replay_deal, result_of, strip_clock

DECK_NAME = "blue"
seats = st.sampled_from(list(Seat))
delays = st.sampled_from([0.0, 0.1, 0.5, 1.0, 1.5, 3.0])
rounds = st.none() | st.sampled_from([1, 2, 3]) | st.integers(-2, 1002)
names = st.one_of(
    st.sampled_from(["Jang", "Marie-Christine Weber", "Marie-Thérèse", "Fernand", "Guillaume Schmit-Hoffmann",
                     "Marie-Christine Weber-Schmitt von und zu Luxemburg-Ettelbruck", "Anna\nWeber", "\t", " ",
                     "Zoë\u2028", "李小龍", "x" * MAX_NAME, "y" * (MAX_NAME + 1)]),
    st.text(max_size=70),
)
UID = {card: f"04B{card.index:02d}" for card in DECK}


def independent_slate(results: list[DealResult], rules: HouseRules) -> dict[Team, int]:
    """Rules 24-28 again, apart from the rules core's Slate: the open lines after these results."""
    open_lines = dict.fromkeys(Team, rules.start_lines)
    carry = 0
    for result in results:
        if result.winner is None:
            if rules.tie is TieRule.STANDARD:
                open_lines[result.trump_team] += result.stake
            elif rules.tie is TieRule.PLUS_ONE:
                open_lines[result.trump_team] += 1
            else:
                carry += result.stake
            continue
        stake = result.stake + carry
        carry = 0
        open_lines[result.winner] -= min(stake, open_lines[result.winner])
        if result.winner.other is result.trump_team:
            open_lines[result.trump_team] += stake
    return open_lines


class JournaledTableAtTheBar(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.dir = Path(tempfile.mkdtemp(prefix="tablepi-stateful-"))
        self.rules = HouseRules()
        self.header = RecordHeader()
        self.table: JournaledTable | None = None
        self.time = 0.0
        self.kinds: set[str] = set()

    @initialize(tie=st.sampled_from(["standard", "plus_one", "carry"]), dealer=seats, lines=st.sampled_from([2, 3]))
    def setup(self, tie: str, dealer: Seat, lines: int) -> None:
        self.rules = HouseRules.from_mapping({"tie": tie, "start_lines": lines})
        self.header = RecordHeader(self.rules, dealer, TableConfig(deck=DECK_NAME))
        self.table = self.open()

    def open(self) -> JournaledTable:
        return JournaledTable(self.dir / "journal.sqlite3", self.header, archive=self.dir / "archive")

    @property
    def jt(self) -> JournaledTable:
        assert self.table is not None
        return self.table

    @property
    def state(self) -> TableState:
        return self.jt.state

    def later(self, delay: float) -> float:
        self.time = round(self.time + delay, 3)
        return self.time

    def feed(self, item: TableEvent) -> None:
        self.kinds.add(type(item).__name__)
        self.jt.feed(item)  # never raises: a raise fails the test with the steps so far

    # --- physical gestures ----------------------------------------------------------------------------------

    @rule(seat=seats, card=st.sampled_from(DECK), delay=delays, stranger=st.sampled_from(["", "", "", "red", "tag"]))
    def lay(self, seat: Seat, card: Card, delay: float, stranger: str) -> None:
        if stranger == "tag":
            self.feed(CardPlaced(self.later(delay), seat, None, "04DEADBEEF0042"))
        else:
            self.feed(CardPlaced(self.later(delay), seat, card, UID[card], stranger or DECK_NAME))

    @precondition(lambda self: any(zone.cards for zone in self.state.zones))
    @rule(data=st.data(), delay=delays)
    def lift(self, data: st.DataObject, delay: float) -> None:
        zone = data.draw(st.sampled_from([z for z in self.state.zones if z.cards]))
        card = data.draw(st.sampled_from(zone.cards))
        self.feed(CardLifted(self.later(delay), zone.seat, card.card, card.uid, DECK_NAME if card.card else "",
                             data.draw(st.sampled_from([False, False, False, True]))))

    @rule(name=st.sampled_from(list(ButtonName)), seat=st.none() | seats, delay=delays)
    def press(self, name: ButtonName, seat: Seat | None, delay: float) -> None:
        self.feed(Button(self.later(delay), name, seat))

    @rule(seat=seats, state=st.sampled_from(list(ReaderState)), delay=delays)
    def reader(self, seat: Seat, state: ReaderState, delay: float) -> None:
        self.feed(ReaderStatus(self.later(delay), seat, state, "cable"))

    @rule(seat=seats, card=st.none() | st.sampled_from(DECK), holder=st.none() | seats, delay=delays)
    def crosstalk(self, seat: Seat, card: Card | None, holder: Seat | None, delay: float) -> None:
        self.feed(ReaderCrosstalk(self.later(delay), seat, card, "04CC" if card is None else UID[card], holder))

    @rule(delay=delays)
    def time_passes(self, delay: float) -> None:
        self.feed(Tick(self.later(delay)))

    # --- by hand ----------------------------------------------------------------------------------------------

    @rule(data=st.data(), delay=delays)
    def a_card_by_hand(self, data: st.DataObject, delay: float) -> None:
        state = self.state
        seat = data.draw(st.sampled_from([state.deal.to_play] * 4 + list(Seat)) if state.deal.to_play else seats)
        played = {card for trick in state.deal.tricks for _, card in trick.plays}
        card = data.draw(st.sampled_from([c for c in DECK if c not in played] or list(DECK)))
        self.feed(CardEntered(self.later(delay), seat, card))

    @precondition(lambda self: self.state.phase is TablePhase.PLAY)
    @rule(data=st.data())
    def the_rest_of_the_deal_by_hand(self, data: st.DataObject) -> None:
        """Whoever is to play enters a card not yet played until the deal ends: deals and matches do end."""
        for _ in range(24):
            state = self.state
            if state.phase is not TablePhase.PLAY or state.deal.to_play is None:
                break
            played = {card for trick in state.deal.tricks for _, card in trick.plays}
            card = data.draw(st.sampled_from([c for c in DECK if c not in played]))
            self.feed(CardEntered(self.later(0.2), state.deal.to_play, card))

    @rule(data=st.data(), suit=st.sampled_from(list(Suit)), delay=delays)
    def trumps_by_hand(self, data: st.DataObject, suit: Suit, delay: float) -> None:
        """Forehand (most often) or another seat names trumps on the screen: between deals it begins the deal."""
        seat = data.draw(st.sampled_from([self.state.deal.next_forehand] * 4 + list(Seat)))
        self.feed(TrumpsEntered(self.later(delay), seat, suit))

    @rule(entry=entries, delay=delays)
    def a_deal_by_hand(self, entry: DealEntry, delay: float) -> None:
        self.feed(DealEntered(self.later(delay), entry))

    @rule(data=st.data(), entry=entries, delay=delays)
    def a_correction_proposed(self, data: st.DataObject, entry: DealEntry, delay: float) -> None:
        number = data.draw(st.integers(1, len(self.state.match.slate) + 1))
        team = data.draw(st.none() | st.sampled_from(list(Team)))
        self.feed(CorrectionProposed(self.later(delay), number, entry, team))

    @rule(team=st.sampled_from(list(Team)), accept=st.booleans(), delay=delays)
    def an_answer(self, team: Team, accept: bool, delay: float) -> None:
        """Late, early, twice, across the end of a match: whenever."""
        self.feed(CorrectionAnswered(self.later(delay), team, accept))

    @rule(seated=st.lists(st.tuples(seats, names), min_size=1, max_size=4, unique_by=lambda x: x[0]),
          source=st.sampled_from(list(SeatingSource)), delay=delays, number=rounds, deals=rounds)
    def players_sit_down(self, seated: list[tuple[Seat, str]], source: SeatingSource, delay: float,
                         number: int | None, deals: int | None) -> None:
        """Any seating, a tournament's round and its length in deals included (from a feed that may send anything:
        none, ordinary, 0, negative, past what a record reads)."""
        uid = "04AB12CD34EF56" if source is SeatingSource.TAG else ""
        self.feed(PlayersSeated(self.later(delay), tuple(seated), source, uid, number, deals))

    @rule(seat=seats, delay=delays)
    def the_first_dealer_is_chosen(self, seat: Seat, delay: float) -> None:
        self.feed(DealerChosen(self.later(delay), seat))

    # --- after every step: a restart from the journal, and the scores ------------------------------------------

    @invariant()
    def a_restart_from_the_journal_gives_the_same_table(self) -> None:
        if self.table is None:
            return
        before = self.jt.state
        self.jt.close()
        self.table = self.open()
        after = self.jt.state
        assert strip_clock(after) == strip_clock(before), "the restarted table differs"
        self.jt.journal.events()  # the strict reader, no salvage: every line the table wrote reads back

    @invariant()
    def names_are_one_line_and_bounded(self) -> None:
        if self.table is None:
            return
        for _, name in self.state.names:
            assert 0 < len(name) <= MAX_NAME and name == " ".join(name.split()) and name.isprintable()
        seated = [name.casefold() for _, name in self.state.names]
        assert len(seated) == len(set(seated)), "a player at two seats"

    @invariant()
    def every_match_of_the_evening_is_scored_as_the_rules_say(self) -> None:
        if self.table is None:
            return
        state = self.state
        numbers = [row.match for row in state.history]
        assert numbers == sorted(numbers) and all(1 <= n <= state.match.number for n in numbers)
        for match in self.jt.table.matches:  # this journal's matches: each deal's result from its source
            for scored, source in match.scored():
                if isinstance(source, DealEntry):
                    assert scored.result == source.result()
                elif isinstance(source, Deal):
                    assert scored.result == result_of(replay_deal(source, self.rules), source)
        by_match: dict[int, list[DealResult]] = {}
        for row in state.history:
            by_match.setdefault(row.match, []).append(row.entry.result)
        current = independent_slate(by_match.get(state.match.number, []), self.rules)
        assert dict(state.match.open_lines) == current, "the slate is not what rules 24-28 give"
        if state.phase is TablePhase.MATCH_OVER:
            assert state.match.winner is not None and current[state.match.winner] == 0

    def teardown(self) -> None:
        if self.table is not None:
            event(f"matches: {min(self.state.match.number, 3)}")
            event(f"deals: {min(len(self.state.history), 5)}")
            self.table.close()
        shutil.rmtree(self.dir, ignore_errors=True)


JournaledTableAtTheBar.TestCase.settings = settings(
    max_examples=40,
    stateful_step_count=50,
    deadline=None,
    phases=[Phase.explicit, Phase.reuse, Phase.generate, Phase.target, Phase.shrink],
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
test_journaled_table_at_the_bar = JournaledTableAtTheBar.TestCase


def test_every_event_type_is_in_the_machine() -> None:
    """A new event type must be added to the machine above (the record's types, docs/records.md)."""
    from tablepi.journal.record import _EVENT_TYPES

    rules = {"place": "lay", "lift": "lift", "button": "press", "reader": "reader", "crosstalk": "crosstalk",
             "tick": "time_passes", "hand_card": "a_card_by_hand",
             "hand_trumps": "trumps_by_hand", "deal_entry": "a_deal_by_hand",
             "correction": "a_correction_proposed", "answer": "an_answer", "seat": "players_sit_down",
             "dealer": "the_first_dealer_is_chosen"}
    assert set(_EVENT_TYPES) == set(rules)
    for name in rules.values():
        assert callable(getattr(JournaledTableAtTheBar, name))
