"""build_view against the real table state machine, driven by the gestures players make."""

from __future__ import annotations

import pytest

from tablepi.display import texts as tx
from tablepi.display.scene import Scene
from tablepi.display.view import Action, DisplaySettings, ScreenKind, View, line_is_open
from tablepi.display.viewmodel import build_view
from tablepi.rules.cards import Card, Suit
from tablepi.rules.seats import Seat, Team
from tablepi.rules.slate import Line
from tablepi.table.events import Button, ButtonName, CardLifted, CardPlaced, Tick
from tablepi.table.machine import Table
from tablepi.table.state import TablePhase

EN = DisplaySettings(language="en")
NAMES = {Seat.N: "Anna", Seat.E: "Jos", Seat.S: "Marie", Seat.W: "Pit"}

# Dealer N, so W is forehand (anticlockwise W → S → E → N). Hearts are trumps. Every trick follows suit or is
# void, so no play is a revoke; W takes all six tricks (40 points, Kapo).
TRICKS = (
    ("AS", "KS", "JS", "TS"),
    ("AC", "KC", "QC", "JC"),
    ("AD", "KD", "JD", "TD"),
    ("AH", "KH", "JH", "TH"),
    ("QS", "QH", "QD", "9H"),
    ("TC", "9C", "9S", "9D"),
)
ORDER = (Seat.W, Seat.S, Seat.E, Seat.N)


class Clock:
    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self, step: float = 2.0) -> float:
        self.t += step
        return self.t


def name_trumps(table: Table, clock: Clock) -> None:
    t = clock()
    table.apply(CardPlaced(t, Seat.W, Card.parse("AH")))
    table.apply(CardLifted(t + 0.3, Seat.W, Card.parse("AH")))


def lay(table: Table, clock: Clock, seat: Seat, card: str) -> View:
    table.apply(CardPlaced(clock(), seat, Card.parse(card)))
    table.apply(Tick(clock()))  # lies longer than the tap window: a play
    return build_view(Scene(table.state, EN))


def sweep(table: Table, clock: Clock, cards: tuple[str, ...]) -> None:
    t = clock()
    for seat, card in zip(ORDER, cards, strict=True):
        table.apply(CardLifted(t, seat, Card.parse(card)))


def test_no_state_yet_is_the_idle_screen() -> None:
    view = build_view(Scene(None, DisplaySettings(language="lb")))
    assert view.kind is ScreenKind.IDLE and view.title == "Konter a Matt"
    assert view.prompt == "Waarden op d'Kaartelieser"


def test_start_of_match_asks_forehand_for_trumps() -> None:
    view = build_view(Scene(Table(dealer=Seat.N).state, DisplaySettings(language="en", names=NAMES)))
    assert view.kind is ScreenKind.DEAL
    assert view.prompt == "Pit: show a card of the suit you choose as trumps"
    pit, anna = view.seat(Seat.W), view.seat(Seat.N)
    assert pit is not None and anna is not None
    assert pit.forehand and pit.to_play and pit.marks == ("Forehand",)
    assert anna.dealer and not anna.to_play and anna.marks == ("Dealer",)
    assert view.trump is not None and view.trump.suit is None
    assert [b.action for b in view.buttons] == list(tx.DEAL_ACTIONS)  # every slot, always
    assert [b.action for b in view.buttons if b.enabled] == [Action.TRUMP_SPADES, Action.TRUMP_HEARTS,
                                                             Action.TRUMP_DIAMONDS, Action.TRUMP_CLUBS]
    assert view.warning is None and view.header.trick_label == ""


def test_trump_shown_then_announcements_possible() -> None:
    table, clock = Table(dealer=Seat.N), Clock()
    name_trumps(table, clock)
    view = build_view(Scene(table.state, EN))
    assert view.trump is not None and view.trump.suit is Suit.HEARTS
    assert view.trump.reminder == "A ♠Q ♥Q ♦Q K J 10 9"
    assert view.header.trick_label == "Trick 1/6"
    assert view.prompt == "W: show your queens to announce, or lead a card"
    actions = [b.action for b in view.buttons if b.enabled]
    assert Action.UNDO in actions and Action.CLAIM not in actions
    assert [b.action for b in view.buttons] == list(tx.DEAL_ACTIONS)  # the trump buttons stay, disabled
    # The panel's announce buttons have no seat: they ask whose it is. Nothing is drawn at the seats until then;
    # then each seat that may answers at its own name.
    assert actions[:3] == [Action.ANNOUNCE_MATT, Action.ANNOUNCE_KONTER, Action.ANNOUNCE_KONTER_A_MATT]
    assert view.targets() == ()
    table.apply(Button(clock(), ButtonName.ANNOUNCE_KONTER))
    view = build_view(Scene(table.state, EN))
    assert view.prompt == "Who announces? Touch your name"
    for seat in Seat:
        targets = view.seat(seat).targets  # type: ignore[union-attr]
        assert [(t.action, t.seat) for t in targets] == [(Action.ANNOUNCE_KONTER, seat)]


def test_announcement_shows_at_the_announcers_seat() -> None:
    table, clock = Table(dealer=Seat.N), Clock()
    name_trumps(table, clock)
    table.apply(Button(clock(), ButtonName.ANNOUNCE_MATT, Seat.E))
    seat = build_view(Scene(table.state, DisplaySettings(language="de"))).seat(Seat.E)
    assert seat is not None and seat.announcement == "Matt"


def test_mid_trick_cards_lie_at_their_seats_and_the_next_seat_is_prompted() -> None:
    table, clock = Table(dealer=Seat.N), Clock()
    name_trumps(table, clock)
    lay(table, clock, Seat.W, "AS")
    view = lay(table, clock, Seat.S, "KS")
    west, south, east = view.seat(Seat.W), view.seat(Seat.S), view.seat(Seat.E)
    assert west is not None and west.card is not None and west.card.card == Card.parse("AS")
    assert south is not None and south.card is not None and not south.card.tentative
    assert east is not None and east.card is None and east.to_play
    assert view.prompt == "E: show your queens to announce, or lay a card"


def test_a_card_just_placed_is_tentative() -> None:
    table, clock = Table(dealer=Seat.N), Clock()
    name_trumps(table, clock)
    table.apply(CardPlaced(clock(), Seat.W, Card.parse("AS")))
    west = build_view(Scene(table.state, EN)).seat(Seat.W)
    assert west is not None and west.card is not None and west.card.tentative


def test_out_of_turn_warns_in_the_chosen_language_and_marks_the_seat() -> None:
    table, clock = Table(dealer=Seat.N), Clock()
    name_trumps(table, clock)
    lay(table, clock, Seat.W, "AS")
    table.apply(CardPlaced(clock(), Seat.N, Card.parse("TS")))  # S is to play, not N
    table.apply(Tick(clock()))
    view = build_view(Scene(table.state, DisplaySettings(language="lb", names=NAMES)))
    assert view.warning is not None and view.warning.code == "out_of_turn"
    assert view.warning.text == "Anna: Du bass net drun. Huel ♠10 zeréck."
    assert view.warning.seat is Seat.N
    anna = view.seat(Seat.N)
    assert anna is not None and anna.highlighted and anna.card is not None and anna.card.illegal
    assert view.button(Action.CONFIRM) is not None
    assert view.prompt.startswith("Anna: huel ♠10")  # the table asks for the stray card first


def test_unknown_warning_code_params_fall_back_to_english() -> None:
    table, clock = Table(dealer=Seat.N), Clock()
    table.apply(CardPlaced(clock(), Seat.S, None, uid="04AABBCCDD"))
    view = build_view(Scene(table.state, DisplaySettings(language="fr")))
    assert view.warning is not None and view.warning.code == "unknown_tag"
    assert view.warning.text == "Carte inconnue sur la zone de S : sa puce n'est pas de ce jeu. Retire-la."


def play_deal(table: Table, clock: Clock) -> list[View]:
    name_trumps(table, clock)
    views = []
    for cards in TRICKS:
        for seat, card in zip(ORDER, cards, strict=True):
            views.append(lay(table, clock, seat, card))
        sweep(table, clock, cards)
    return views


def test_a_complete_trick_frames_the_winner_and_asks_for_the_sweep() -> None:
    table, clock = Table(dealer=Seat.N), Clock()
    name_trumps(table, clock)
    for seat, card in zip(ORDER, TRICKS[0], strict=True):
        view = lay(table, clock, seat, card)
    west = view.seat(Seat.W)
    assert west is not None and west.card is not None and west.card.winning
    assert view.prompt == "Sweep the trick off (W won)"
    assert [t.tricks for t in view.teams] == [0, 1]


def test_deal_result_then_slate() -> None:
    table, clock = Table(dealer=Seat.N), Clock()
    name_trumps(table, clock)
    for cards in TRICKS[:-1]:
        for seat, card in zip(ORDER, cards, strict=True):
            lay(table, clock, seat, card)
        sweep(table, clock, cards)
    for seat, card in zip(ORDER, TRICKS[-1], strict=True):
        view = lay(table, clock, seat, card)
    assert table.state.phase is TablePhase.DEAL_OVER
    assert view.kind is ScreenKind.DEAL
    assert view.result == "E+W win the deal, 40 to 0\nKapo: 2 lines"
    assert [(t.team, t.points, t.trump_team) for t in view.teams] == [(Team.NS, 0, False), (Team.EW, 40, True)]
    assert view.header.trick_label == "Trick 6/6"
    sweep(table, clock, TRICKS[-1])
    slate_view = build_view(Scene(table.state, DisplaySettings(language="lb")))
    assert slate_view.kind is ScreenKind.SLATE
    slate = slate_view.slate
    assert slate is not None and slate.title == "d'Lee"
    assert slate.bottom.team is Team.NS and slate.top.team is Team.EW  # the scorer's team at the bottom
    assert slate.top.open_count == 7 and slate.top.lines.count(Line.STRUCK) == 2
    assert slate.bottom.open_count == 9 and all(line_is_open(x) for x in slate.bottom.lines)
    assert slate.last_result == "O+W gewannen d'Spill, 40 zu 0\nKapo: 2 Strécher"
    assert slate_view.prompt == "Nächst Spill: W gëtt"  # the next dealer is this deal's forehand (rule 22)


def test_scorer_team_can_be_the_other_row() -> None:
    table, clock = Table(dealer=Seat.N), Clock()
    play_deal(table, clock)
    slate = build_view(Scene(table.state, DisplaySettings(language="en", scorer_team=Team.EW))).slate
    assert slate is not None and slate.bottom.team is Team.EW


def test_learner_mode_counts_points_trumps_and_cards() -> None:
    table, clock = Table(dealer=Seat.N), Clock()
    name_trumps(table, clock)
    for seat, card in zip(ORDER, TRICKS[3], strict=True):  # the trump trick first: A K J 10 of hearts
        lay(table, clock, seat, card)
    sweep(table, clock, TRICKS[3])
    view = build_view(Scene(table.state, DisplaySettings(language="en", learner=True)))
    assert view.learner is not None
    assert view.learner.points_label == "Points: N+S 0 · E+W 8"
    assert [c.display for c in view.learner.trumps_out] == ["♠Q", "♥Q", "♦Q", "♥9"]
    assert view.learner.in_play_label == "20 cards still in play"
    assert build_view(Scene(table.state, EN)).learner is None


def test_equal_states_give_equal_views_so_the_display_can_skip_redraws() -> None:
    a, b = Table(dealer=Seat.N), Table(dealer=Seat.N)
    for table in (a, b):
        name_trumps(table, Clock())
    assert build_view(Scene(a.state, EN)) == build_view(Scene(b.state, EN))


@pytest.mark.parametrize("language", ["lb", "de", "fr", "en"])
def test_every_view_of_a_whole_deal_renders(language: str, renderer) -> None:  # type: ignore[no-untyped-def]
    from tablepi.display.render import render_surface

    table, clock = Table(dealer=Seat.N), Clock()
    settings = DisplaySettings(language=language, learner=True, bottom_seat=Seat.E)
    name_trumps(table, clock)
    for cards in TRICKS:
        for seat, card in zip(ORDER, cards, strict=True):
            table.apply(CardPlaced(clock(), seat, Card.parse(card)))
            render_surface(build_view(Scene(table.state, settings)), (480, 320), renderer)
            table.apply(Tick(clock()))
        sweep(table, clock, cards)
    view = build_view(Scene(table.state, settings))
    assert view.kind is ScreenKind.SLATE
    render_surface(view, (800, 480), renderer)


def test_match_won_screen() -> None:
    from tablepi.rules.house import HouseRules

    table, clock = Table(HouseRules(start_lines=2), dealer=Seat.N), Clock()
    play_deal(table, clock)
    assert table.state.phase is TablePhase.MATCH_OVER
    view = build_view(Scene(table.state, DisplaySettings(language="de", names=NAMES)))
    assert view.kind is ScreenKind.MATCH_WON
    assert view.title == "Jos+Pit gewinnen die Partie!"
    assert [b.action for b in view.buttons][:2] == [Action.NEW_MATCH, Action.REVANCHE]
    assert view.slate is not None and view.slate.winner is Team.EW and view.slate.top.open_count == 0
