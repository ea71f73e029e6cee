"""The review on the screen: its lines in all four languages, the slate's Review touch, and the app's worker path."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path
from typing import Any

import pytest

from tablepi.analysis import DealReview, review_deal
from tablepi.analysis.worker import ReviewWorker
from tablepi.app.core import TableApp, Touch
from tablepi.app.demo import ZONES, demo_deck
from tablepi.app.inputs import Input
from tablepi.deck import DeckRegistry
from tablepi.display.i18n import LANGUAGES, translator
from tablepi.display.scene import Scene
from tablepi.display.view import Action, DisplaySettings
from tablepi.display.viewmodel import build_view, review_lines
from tablepi.journal.journal import JournaledTable
from tablepi.journal.record import RecordHeader
from tablepi.rules import Deal, Seat, Suit
from tablepi.table import Table, TableState
from tablepi.table.simulate import simulate_match
from tablepi.table.state import PromptCode, TableConfig, TablePhase
from tests.analysis.test_review import DISCARD_HANDS, DISCARD_LINE, KAPO_HANDS, KAPO_LINE, play_line

NAMES = {Seat.N: "Anna", Seat.E: "Jos", Seat.S: "Marie", Seat.W: "Pit"}


def kapo_review() -> DealReview:
    return review_deal(play_line(Seat.E, KAPO_HANDS, Suit.CLUBS, KAPO_LINE))


def discard_review() -> DealReview:
    return review_deal(play_line(Seat.S, DISCARD_HANDS, Suit.CLUBS, DISCARD_LINE))


@pytest.mark.parametrize("lang", LANGUAGES)
def test_review_lines_in_every_language(lang: str) -> None:
    lines = review_lines(translator(lang), discard_review(), NAMES)
    assert len(lines) == 2
    first, second = lines
    # "Trick 5: ♠9 cost Marie 1.2 lines — ♠A wins in 12 of 12 layouts", in the language of the screen
    assert "5" in first and "Marie" in first and "♠9" in first and "1" in first and "2" in first and "♠A" in first
    assert "12" in first
    assert "22" in second and "Anna+Marie" in second


def test_review_lines_in_english_read_as_the_issue_asks() -> None:
    """The card that cost most on what its player could know, in lines, and how often the better card wins."""
    lines = review_lines(translator("en"), discard_review(), NAMES)
    assert lines == ("Trick 5: ♠9 cost Marie 1.2 lines — ♠A wins in 12 of 12 layouts",
                     "Best play: Anna+Marie 18 · Jos+Pit 22")
    assert review_lines(translator("de"), discard_review(), NAMES)[0] == (
        "Stich 5: ♠9 kostete Marie 1,2 Striche — ♠A gewinnt in 12 von 12 Verteilungen")


def test_the_screen_names_no_card_that_was_best_on_what_its_player_knew() -> None:
    """The Kapo deal: S's ♥A missed the Kapo with all hands known (a double-dummy turning point), but on what S
    could know it was a guess costing half a line; the screen names the costliest single-dummy card instead."""
    review = kapo_review()
    miss = review.plays[18]
    assert miss.dd_cost_lines == 1 and miss.sd is not None and 0 < miss.sd.cost_lines < 1
    first = review_lines(translator("en"), review, NAMES)[0]
    assert first == "Trick 4: ♦Q cost Anna 0.8 lines — ♥9 was best"
    assert review.sd_highlight() is not None and review.sd_highlight() is not miss
    assert all(p.sd is not None and p.sd.cost_lines >= 0 for p in review.plays)


def test_unknown_deal_says_so() -> None:
    deal = Deal(Seat.N)
    deal.choose_trump(Suit.CLUBS)
    review = review_deal(deal)
    assert review_lines(translator("de"), review) == ("Keine Analyse: 24 Karten nicht gesehen",)


def slate_state() -> tuple[Table, TableState]:
    """A table just after its first deal was scored and swept: the slate screen."""
    script = simulate_match(4, config=TableConfig(hand_scan=True))
    table = Table(script.rules, script.dealer, script.config)
    for event in script.events:
        state = table.apply(event)
        if state.phase is TablePhase.DEAL_OVER and state.prompt.code is PromptCode.NEXT_DEAL:
            return table, state
    raise AssertionError("no deal was scored")


def test_slate_shows_the_review_in_learner_mode_and_behind_review_otherwise() -> None:
    table, state = slate_state()
    review = review_deal(table.matches[-1].deals[-1], state.match.slate[-1].number)
    learner = DisplaySettings(learner=True, names=NAMES)
    plain = DisplaySettings(names=NAMES)

    view = build_view(Scene(state, learner, review))
    assert view.slate is not None and len(view.slate.review) == 2
    button = view.button(Action.REVIEW)
    assert button is not None and not button.enabled  # nothing to toggle: it is always shown

    view = build_view(Scene(state, plain, review))
    assert view.slate is not None and view.slate.review == ()
    button = view.button(Action.REVIEW)
    assert button is not None and button.enabled
    opened = build_view(Scene(state, plain, review, review_open=True))
    assert opened.slate is not None and opened.slate.review == review_lines(translator("en"), review, NAMES)

    waiting = build_view(Scene(state, plain))  # the review is not ready yet: the button is there, disabled
    assert waiting.button(Action.REVIEW) is not None and not waiting.button(Action.REVIEW).enabled  # type: ignore[union-attr]


def test_a_review_of_another_deal_is_not_shown() -> None:
    _, state = slate_state()
    other = kapo_review()  # deal number 1 too, but clubs: not this table's deal unless trumps agree
    view = build_view(Scene(state, DisplaySettings(learner=True), other))
    assert view.slate is not None
    assert (view.slate.review != ()) == (state.deal.trump is Suit.CLUBS)


class FakeScreen:
    settings = DisplaySettings()

    def __init__(self) -> None:
        self.states: list[TableState] = []
        self.reviews: list[tuple[Any, bool]] = []

    def show(self, scene: Scene) -> None:
        assert scene.state is not None
        self.states.append(scene.state)
        if not self.reviews or self.reviews[-1] != (scene.review, scene.review_open):
            self.reviews.append((scene.review, scene.review_open))

    def pump(self, put: Callable[[Input], None]) -> None:
        pass  # no window: nothing is ever touched

    def close(self) -> None:
        pass


class SyncReviewer:
    """Reviews at once, in this process (the app cannot tell: it only polls the future)."""

    def __init__(self) -> None:
        self.submitted: list[int] = []

    def submit(self, deal: Deal, number: int, carried: int = 0) -> Future[DealReview]:
        self.submitted.append(number)
        future: Future[DealReview] = Future()
        future.set_result(review_deal(deal, number, carried=carried))
        return future

    def close(self) -> None:
        pass


def test_app_reviews_each_deal_off_the_table_path_and_review_touch_toggles(tmp_path: Path) -> None:
    script = simulate_match(4, config=TableConfig(hand_scan=True))
    header = RecordHeader(script.rules, script.dealer, script.config)
    screen, reviewer = FakeScreen(), SyncReviewer()
    journaled = JournaledTable(tmp_path / "j.sqlite3", header)
    with TableApp(journaled, DeckRegistry([demo_deck()]), ZONES, screen=screen, reviewer=reviewer) as app:
        for event in script.events:
            app.handle(event)
            if app.table.state.phase is TablePhase.DEAL_OVER and app.table.state.prompt.code is PromptCode.NEXT_DEAL:
                break
        assert reviewer.submitted == [1]
        app.step(timeout=0)
        assert app.review is not None and app.review.number == 1
        assert screen.reviews[-1] == (app.review, False)
        events = len(journaled.journal)
        app.handle(Touch(Action.REVIEW))
        assert screen.reviews[-1] == (app.review, True) and app.review_open
        assert len(journaled.journal) == events  # the touch is the screen's: nothing journaled


def test_review_worker_reviews_in_another_process() -> None:
    table, _state = slate_state()
    deal = table.matches[-1].deals[-1]
    with ReviewWorker() as worker:
        review = worker.submit(deal, 1).result(timeout=60)
    assert review.known and review.number == 1 and review.best == review_deal(deal).best


def test_a_deal_told_by_hand_is_not_reviewed(tmp_path: Path) -> None:
    """Before: a deal told by hand as a match's first deal stopped the running table (IndexError: no played deal
    to review); told after a played deal, the played one was reviewed again under the told deal's number."""
    from tablepi.rules import Team
    from tablepi.rules.entry import DealEntry
    from tablepi.table.events import DealEntered

    script = simulate_match(4, config=TableConfig(hand_scan=True))
    header = RecordHeader(script.rules, script.dealer, script.config)
    screen, reviewer = FakeScreen(), SyncReviewer()
    journaled = JournaledTable(tmp_path / "j.sqlite3", header)
    with TableApp(journaled, DeckRegistry([demo_deck()]), ZONES, screen=screen, reviewer=reviewer) as app:
        app.handle(DealEntered(0.5, DealEntry(app.table.state.deal.forehand, Team.NS, 25)))  # the match's first deal
        assert len(app.table.state.match.slate) == 1 and reviewer.submitted == []
        app.step(timeout=0)
        assert app.review is None
