"""Hand-made Views of the key moments of a match, in any language.

They are the reference screenshots' source (tests/display/reference), the benchmark's frames and what
``tablepi screenshot`` can draw without a running table. Each one is a plausible moment of a real deal:
W deals, S is forehand (anticlockwise play), and the cards on the zones are legal plays.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from tablepi.display import texts as tx
from tablepi.display.i18n import Translator, translator
from tablepi.display.view import (
    Action,
    CardView,
    LearnerView,
    Line,
    ScreenKind,
    SlateRow,
    SlateView,
    TeamScore,
    TrumpView,
    View,
    WarningBanner,
    trump_order,
)
from tablepi.rules.cards import Card, Suit, parse_cards
from tablepi.rules.seats import Seat, Team

NAMES: dict[Seat, str] = {Seat.N: "Anna", Seat.E: "Jos", Seat.S: "Marie", Seat.W: "Pit"}


def _c(text: str) -> Card:
    return Card.parse(text)


def _teams(tr: Translator, ns: int = 0, ew: int = 0, trump_team: Team | None = None,
           points: tuple[int, int] | None = None) -> tuple[TeamScore, TeamScore]:
    return (
        TeamScore(Team.NS, tx.team_label(tr, Team.NS, {}), ns, points[0] if points else None,
                  trump_team is Team.NS),
        TeamScore(Team.EW, tx.team_label(tr, Team.EW, {}), ew, points[1] if points else None,
                  trump_team is Team.EW),
    )


def idle(tr: Translator) -> View:
    return View(ScreenKind.IDLE, title=tx.idle_title(tr), prompt=tx.prompt_text(tr, "start"))


def match_start(tr: Translator) -> View:
    """First deal of a match: W dealt, S (forehand) names trumps by showing a card or touching a suit."""
    seats = (
        tx.seat_view(tr, Seat.N, NAMES),
        tx.seat_view(tr, Seat.E, NAMES),
        tx.seat_view(tr, Seat.S, NAMES, forehand=True, to_play=True),
        tx.seat_view(tr, Seat.W, NAMES, dealer=True),
    )
    return View(
        ScreenKind.DEAL, seats=seats, trump=TrumpView(None, tx.trumps_label(tr)), teams=_teams(tr),
        prompt=tx.prompt_text(tr, "name_trumps", Seat.S, NAMES),
        buttons=tx.fixed_buttons(tr, tx.DEAL_ACTIONS, {*tx.DEAL_ACTIONS[:4], Action.UNDO}),
    )


def trump_chosen(tr: Translator) -> View:
    """Hearts are trumps; E announced Matt; S may still announce, then leads."""
    seats = (
        tx.seat_view(tr, Seat.N, NAMES),
        tx.seat_view(tr, Seat.E, NAMES, announcement=tx.announcement_name(tr, True, False)),
        tx.seat_view(tr, Seat.S, NAMES, forehand=True, to_play=True),
        tx.seat_view(tr, Seat.W, NAMES, dealer=True),
    )
    return View(
        ScreenKind.DEAL, seats=seats, trump=TrumpView(Suit.HEARTS, tx.trumps_label(tr)),
        trick_label=tx.trick_label(tr, 1), teams=_teams(tr, trump_team=Team.NS),
        prompt=tx.prompt_text(tr, "announce_or_lead", Seat.S, NAMES),
        buttons=tx.fixed_buttons(tr, tx.DEAL_ACTIONS, {*tx.DEAL_ACTIONS[4:7], Action.UNDO}),
    )


def _learner(tr: Translator, played: tuple[Card, ...], trumps: Suit, points: tuple[int, int]) -> LearnerView:
    out = tuple(c for c in trump_order(trumps) if c not in played)
    return LearnerView(
        points_label=tx.points_label(tr, {tx.team_label(tr, Team.NS, {}): points[0],
                                          tx.team_label(tr, Team.EW, {}): points[1]}),
        trumps_out_label=tx.trumps_out_label(tr),
        trumps_out=out,
        in_play_label=tx.in_play_label(tr, 24 - 4 * 2 - 3),
    )


def mid_trick(tr: Translator) -> View:
    """Trick 3 with clubs trumps: S led ♠K, E played ♠A, N is laying ♠10 (not yet final); W to play next."""
    played = parse_cards("AC QS KH 9H JS 9S TH 9D")  # tricks 1-2, for the learner counts
    seats = (
        tx.seat_view(tr, Seat.N, NAMES, card=CardView(_c("TS"), tentative=True)),
        tx.seat_view(tr, Seat.E, NAMES, card=CardView(_c("AS"))),
        tx.seat_view(tr, Seat.S, NAMES, forehand=True, card=CardView(_c("KS"))),
        tx.seat_view(tr, Seat.W, NAMES, dealer=True, to_play=True),
    )
    return View(
        ScreenKind.DEAL, seats=seats, trump=TrumpView(Suit.CLUBS, tx.trumps_label(tr)),
        trick_label=tx.trick_label(tr, 3), teams=_teams(tr, 1, 1, trump_team=Team.NS),
        learner=_learner(tr, played, Suit.CLUBS, (11, 6)),
        prompt=tx.prompt_text(tr, "play", Seat.W, NAMES),
        buttons=tx.fixed_buttons(tr, tx.DEAL_ACTIONS, {Action.CLAIM, Action.UNDO}),
    )


def warning(tr: Translator) -> View:
    """Trick 4, spades trumps: N led ♥K, W took it with ♥A, S followed, and E, last, discarded ♣9 while holding
    hearts (known from the hand scan). The trick still lies; Confirm acknowledges the revoke, as the bar says."""
    seats = (
        tx.seat_view(tr, Seat.N, NAMES, card=CardView(_c("KH"))),
        tx.seat_view(tr, Seat.E, NAMES, highlighted=True, card=CardView(_c("9C"), illegal=True)),
        tx.seat_view(tr, Seat.S, NAMES, forehand=True, card=CardView(_c("9H"))),
        tx.seat_view(tr, Seat.W, NAMES, dealer=True, to_play=True, card=CardView(_c("AH"), winning=True)),
    )
    params = {"seat": Seat.E, "card": _c("9C"), "trick": 4, "led": _c("KH"), "held": "♥10"}
    english = "E revoked in trick 4: ♣9 on ♥K while holding ♥10. Press Confirm to play on."
    return View(
        ScreenKind.DEAL, seats=seats, trump=TrumpView(Suit.SPADES, tx.trumps_label(tr)),
        trick_label=tx.trick_label(tr, 4), teams=_teams(tr, 2, 2, trump_team=Team.NS),
        warning=WarningBanner("revoke", tx.warning_text(tr, "revoke", params, english, NAMES), Seat.E),
        prompt=tx.prompt_text(tr, "sweep", Seat.W, NAMES),
        buttons=tx.fixed_buttons(tr, tx.DEAL_ACTIONS, {Action.CONFIRM, Action.UNDO}),
    )


def deal_result(tr: Translator) -> View:
    """E+W named diamonds and announced Konter a Matt, but N+S took all six tricks: 4 lines. The last trick
    still lies on the zones (N took it with ♦A) while the table asks for the sweep."""
    seats = (
        tx.seat_view(tr, Seat.N, NAMES, dealer=True, card=CardView(_c("AD"), winning=True)),
        tx.seat_view(tr, Seat.E, NAMES, announcement=tx.announcement_name(tr, True, True), card=CardView(_c("9C"))),
        tx.seat_view(tr, Seat.S, NAMES, card=CardView(_c("9D"))),
        tx.seat_view(tr, Seat.W, NAMES, forehand=True, card=CardView(_c("TH"))),
    )
    ns = tx.team_label(tr, Team.NS, {})
    result = "\n".join((
        tx.deal_won_text(tr, ns, 40, 0),
        tx.stake_text(tr, matt=True, konter=True, kapo=True, lines=4),
        tx.lines_added_text(tr, tx.team_label(tr, Team.EW, {}), 4),  # the trump team lost (rule 26)
    ))
    return View(
        ScreenKind.DEAL, seats=seats, trump=TrumpView(Suit.DIAMONDS, tx.trumps_label(tr)),
        trick_label=tx.trick_label(tr, 6), teams=_teams(tr, 6, 0, trump_team=Team.EW, points=(40, 0)),
        result=result, prompt=tx.prompt_text(tr, "sweep", Seat.N, NAMES),
        buttons=tx.fixed_buttons(tr, tx.DEAL_ACTIONS, {Action.UNDO}),
    )


def _row(tr: Translator, team: Team, lines: tuple[Line, ...]) -> SlateRow:
    row = SlateRow(team, tx.team_label(tr, team, NAMES), lines)
    return SlateRow(team, row.label, lines, tx.open_lines_label(tr, row.open_count))


def slate(tr: Translator) -> View:
    """After three deals: N+S struck 3, E+W struck 4 and got 4 lines added as a losing trump team."""
    o, s, a = Line.OPEN, Line.STRUCK, Line.ADDED
    ns = (s, s, s, o, o, o, o, o, o)
    ew = (s, s, s, s, o, o, o, o, o, a, a, a, a)
    view_slate = SlateView(
        tx.slate_title(tr), top=_row(tr, Team.EW, ew), bottom=_row(tr, Team.NS, ns),
        last_result=tx.stake_text(tr, matt=True, konter=True, kapo=True, lines=4)
        + "\n" + tx.lines_added_text(tr, tx.team_label(tr, Team.EW, NAMES), 4),
        next_trumps=tx.next_trumps_text(tr, NAMES[Seat.S]),
    )
    return View(
        ScreenKind.SLATE, slate=view_slate, prompt=tx.prompt_text(tr, "next_deal", Seat.W, NAMES),
        buttons=tx.fixed_buttons(tr, tx.SLATE_ACTIONS, {Action.UNDO}),
    )


def match_won(tr: Translator) -> View:
    """N+S struck their last line; E+W still have 6 open (one of them an added line struck since)."""
    o, s, a, x = Line.OPEN, Line.STRUCK, Line.ADDED, Line.ADDED_STRUCK
    ns = (s,) * 9
    ew = (s, s, s, s, s, o, o, o, o, x, a)
    label = tx.team_label(tr, Team.NS, NAMES)
    view_slate = SlateView(
        tx.slate_title(tr), top=_row(tr, Team.EW, ew), bottom=_row(tr, Team.NS, ns),
        last_result=tx.stake_text(tr, matt=False, konter=True, kapo=False, lines=2), winner=Team.NS,
    )
    return View(
        ScreenKind.MATCH_WON, title=tx.match_won_text(tr, label), slate=view_slate,
        prompt=tx.prompt_text(tr, "match_over"),
        buttons=tx.fixed_buttons(tr, tx.MATCH_WON_ACTIONS, {Action.NEW_MATCH, Action.REVANCHE}),
    )


def review(tr: Translator) -> View:
    """The slate after a deal with its best-play review shown (learner mode, or after the Review touch)."""
    view = slate(tr)
    assert view.slate is not None
    lines = (
        tx.review_mistake_text(tr, 3, NAMES[Seat.E], _c("JH"), 7, (_c("KS"),), "lost_deal"),
        tx.review_best_text(tr, {tx.team_label(tr, Team.NS, NAMES): 26, tx.team_label(tr, Team.EW, NAMES): 14}),
    )
    buttons = tx.fixed_buttons(tr, tx.SLATE_ACTIONS, {Action.UNDO, Action.REVIEW})
    return replace(view, slate=replace(view.slate, review=lines), buttons=buttons)


def seating(tr: Translator) -> View:
    """A tournament table before its round's first trumps: the seating the tournament sent, in the warning bar."""
    names = tuple((seat, NAMES[seat]) for seat in Seat)
    return replace(match_start(tr), warning=WarningBanner("seating", tx.seating_text(tr, 3, "7", names)))


def announcement(tr: Translator) -> View:
    """The tournament director's announcement to every table, in the warning bar during play."""
    text = tx.announcement_text(tr, "Round 4 starts at 21:30")
    return replace(mid_trick(tr), warning=WarningBanner("announcement", text))


def choose_seat(tr: Translator) -> View:
    """Konter a Matt touched on the panel during trick 1: the table asks who; each seat that may still announce
    (not Jos, who announced Matt) answers at its own name or card place."""
    view = trump_chosen(tr)
    seats = tuple(replace(s, targets=(tx.button(tr, Action.ANNOUNCE_KONTER_A_MATT, seat=s.seat),))
                  if s.seat is not Seat.E else s for s in view.seats)
    return replace(view, seats=seats, prompt=tx.prompt_text(tr, "choose_seat"))


#: The sample moments by name, in the order of a match.
SAMPLES: dict[str, Callable[[Translator], View]] = {
    "idle": idle,
    "match_start": match_start,
    "trump_chosen": trump_chosen,
    "choose_seat": choose_seat,
    "mid_trick": mid_trick,
    "warning": warning,
    "deal_result": deal_result,
    "slate": slate,
    "match_won": match_won,
    "review": review,
    "seating": seating,
    "announcement": announcement,
}


def sample(name: str, language: str = "en") -> View:
    """The sample View ``name`` in ``language``."""
    try:
        make = SAMPLES[name]
    except KeyError:
        raise KeyError(f"no sample view {name!r} (choose one of {', '.join(SAMPLES)})") from None
    return make(translator(language))


# ---- the hand-entry sheets (display/sheet.py) -----------------------------------------------------------------

_NAMES = {Seat.N: "Jang", Seat.E: "Marie-Thérèse", Seat.S: "Guillaume", Seat.W: "Anna"}


def _sheet_view(tr: Translator, panel: object, prompt: str = "", history: tuple[str, ...] = ()) -> View:
    from tablepi.display.sheet import sheet_for

    sheet = sheet_for(panel, tr, _NAMES, history)  # type: ignore[arg-type]
    return View(ScreenKind.DEAL, sheet=sheet, prompt=prompt)


def _picker_suit(tr: Translator) -> View:
    from tablepi.display.panels import CardPicker

    cards = tuple(parse_cards("AS KS JS 9S AH KH QH TH 9H AC QC JC TC 9C"))
    return _sheet_view(tr, CardPicker(Seat.E, cards))


def _picker_rank(tr: Translator) -> View:
    from tablepi.display.panels import CardPicker

    cards = tuple(parse_cards("AS KS JS 9S AH KH QH TH 9H AC QC JC TC 9C"))
    return _sheet_view(tr, CardPicker(Seat.E, cards, Suit.CLUBS))


def _picker_confirm(tr: Translator) -> View:
    from tablepi.display.panels import CardPicker

    cards = tuple(parse_cards("AS KS JS 9S AH KH QH TH 9H AC QC JC TC 9C"))
    return _sheet_view(tr, CardPicker(Seat.E, cards, Suit.CLUBS, _c("QC")))


def _trumps_by_hand(tr: Translator) -> View:
    from tablepi.display.panels import CardPicker

    return _sheet_view(tr, CardPicker(Seat.W, (), Suit.HEARTS, trumps=True))


def _enrol_menu(tr: Translator) -> View:
    from tablepi.display.panels import EnrolMenu

    return _sheet_view(tr, EnrolMenu())


def _enrol_name(tr: Translator) -> View:
    from tablepi.display.panels import Keyboard

    return _sheet_view(tr, Keyboard(Seat.N, tr.language, "re", False, (), enrol="deck"))


def _enrolling(tr: Translator) -> View:
    from tablepi.display.panels import Enrolling

    said = (("ok", (("card", "♥K"),)), ("ask", (("card", "♥Q"), ("n", "9"), ("total", "24"))))
    return _sheet_view(tr, Enrolling("deck", "red", said))


def _keyboard(tr: Translator) -> View:
    from tablepi.display.panels import Keyboard

    return _sheet_view(tr, Keyboard(Seat.S, tr.language, "Gu", False, ("Guillaume", "Gusty", "Jang")))


def _keyboard_digits(tr: Translator) -> View:
    from tablepi.display.panels import Keyboard

    return _sheet_view(tr, Keyboard(Seat.N, tr.language, "deck", False, (), enrol="deck", digits=True))


def _dealer(tr: Translator) -> View:
    from tablepi.display.panels import DealerChoice

    return _sheet_view(tr, DealerChoice())


def _deal_form(tr: Translator) -> View:
    from tablepi.display.panels import DealForm

    return _sheet_view(tr, DealForm(Seat.W, Team.EW, 25, matt=Seat.E))


def _points_pad(tr: Translator) -> View:
    """The deal form's number pad: E+W's points being typed, the first digit down."""
    from tablepi.display.panels import DealForm

    return _sheet_view(tr, DealForm(Seat.W, Team.EW, 25, matt=Seat.E, typing="3"))


def _correction(tr: Translator) -> View:
    from tablepi.display.panels import DealForm

    return _sheet_view(tr, DealForm(Seat.N, None, correct=3, last=5))


def _history(tr: Translator) -> View:
    from tablepi.display.panels import HistoryPanel

    rows = tuple(
        tx.history_line(tr, number, tx.seat_name(tr, seat, _NAMES), text, stake, by_hand=number == 3)
        for number, seat, text, stake in (
            (1, Seat.W, "Anna+Marie-Thérèse 25-15", 1), (2, Seat.S, "Jang+Guillaume 40-0", 4),
            (3, Seat.E, "20-20", 1), (4, Seat.N, "Jang+Guillaume 22-18", 2), (5, Seat.W, "Anna+Marie-Thérèse 31-9", 1),
            (6, Seat.S, "Jang+Guillaume 21-19", 3),
        )
    )
    return _sheet_view(tr, HistoryPanel(0, len(rows), correct=(1, 2, 3, 4, 5, 6)), history=rows)


def _menu(tr: Translator) -> View:
    from tablepi.display.panels import Menu

    return _sheet_view(tr, Menu(can_enter=True, can_correct=True, can_choose_dealer=False, can_enrol=True))


def _start_sheet(tr: Translator) -> View:
    from tablepi.display.panels import MatchStart

    return _sheet_view(tr, MatchStart())


def _answering(tr: Translator) -> View:
    from tablepi.display.panels import Answering
    from tablepi.rules.entry import DealEntry

    return _sheet_view(tr, Answering(3, DealEntry(Seat.N, Team.NS, 25), (Team.EW,)))


def _card_by_hand(tr: Translator) -> View:
    """The deal screen with E's card entered by hand (his reader is off): drawn from the trick, marked."""
    from dataclasses import replace

    view = mid_trick(tr)
    seats = tuple(replace(s, card=CardView(_c("KH"), by_hand=True), reader_off=tx.reader_off_label(tr))
                  if s.seat is Seat.E else s for s in view.seats)
    return replace(view, seats=seats)


#: The hand-entry sheets by name.
SHEET_SAMPLES: dict[str, Callable[[Translator], View]] = {
    "answering": _answering,
    "card_by_hand": _card_by_hand,
    "picker_suit": _picker_suit,
    "picker_rank": _picker_rank,
    "picker_confirm": _picker_confirm,
    "trumps_by_hand": _trumps_by_hand,
    "enrol_menu": _enrol_menu,
    "enrol_name": _enrol_name,
    "enrolling": _enrolling,
    "keyboard": _keyboard,
    "keyboard_digits": _keyboard_digits,
    "dealer": _dealer,
    "deal_form": _deal_form,
    "points_pad": _points_pad,
    "correction": _correction,
    "history": _history,
    "menu": _menu,
    "start_sheet": _start_sheet,
}
SAMPLES.update(SHEET_SAMPLES)
