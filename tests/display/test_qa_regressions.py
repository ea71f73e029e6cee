"""Regressions found by looking at the demo's frames as a player would (the QA pass).

Each test names what was wrong on screen: a team line clipped at the deal-over panel's left edge, the header
counting the next trick while the last one still lay, an unknown tag invisible on its zone, offline zones drawn
as ready ones, warnings that did not say what to do, results broken mid-number, a traceback for an unwritable
screenshot folder.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pygame
import pytest

from tablepi.display import texts as tx
from tablepi.display.i18n import LANGUAGES, translator
from tablepi.display.keys import Word
from tablepi.display.layout import PANELS, layout_for
from tablepi.display.render import (
    FELT,
    RED_ON_CARD,
    RED_ON_DARK,
    Renderer,
    RenderError,
    _glue_numbers,
    render_surface,
    render_to_png,
)
from tablepi.display.scene import Scene
from tablepi.display.view import Action, DisplaySettings, ScreenKind, SlateView
from tablepi.display.viewmodel import build_view, warning_sentence
from tablepi.errors import TablepiError
from tablepi.rules.cards import Card
from tablepi.rules.house import RevokePenalty
from tablepi.rules.seats import Seat
from tablepi.table.events import CardPlaced, ReaderState, ReaderStatus
from tablepi.table.machine import Table
from tablepi.table.warnings import FaultFacts, TableWarning, WarningCode
from tests.display.samples import sample
from tests.display.test_viewmodel import ORDER, TRICKS, Clock, lay, name_trumps, sweep


def _colors_in(surface: pygame.Surface, x0: int, x1: int, y0: int, y1: int) -> set[tuple[int, int, int]]:
    return {tuple(surface.get_at((x, y)))[:3] for x in range(x0, x1) for y in range(y0, y1)}


# ---- the deal-over panel: the score line stays inside it ---------------------------------------------------


@pytest.mark.parametrize("size", [(800, 480), (480, 320)], ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("left_long", [True, False], ids=["long-left", "long-right"])
def test_deal_over_score_line_stays_inside_the_panel_with_lopsided_team_names(
    size: tuple[int, int], left_long: bool, renderer: Renderer
) -> None:
    """The score line was centred on its colon, so a long team on one side ran out of the panel (once clipped
    at the left edge in the demo: "Anna+Marie  24:16  Jos+Pit ♠")."""
    long, short = "Anne-Marie+Jean-Claude", "Jo+Al"
    base = sample("deal_result")
    a, b = base.teams
    teams = (replace(a, label=long if left_long else short), replace(b, label=short if left_long else long))
    surface = render_surface(replace(base, teams=teams), size, renderer)
    layout = layout_for(size)
    c = layout.center
    slots = layout.slots(base.bottom_seat)
    left = min(s.card.right for s in slots.values() if s.side.name == "left") + layout.border + 3
    right = max(s.card.x for s in slots.values() if s.side.name == "right") - layout.border - 3
    band = (c.y + c.h // 2 - 3, c.y + c.h // 2 + 3)  # through the points line's letters
    # The points line stays between the side cards' frames: only felt just inside them.
    assert _colors_in(surface, left, c.x + layout.border + 2, *band) <= {FELT}
    assert _colors_in(surface, c.right - layout.border - 2, right, *band) <= {FELT}
    assert len(_colors_in(surface, c.x, c.right, *band)) > 2  # and it is drawn at all


def test_mid_table_team_line_keeps_clear_of_the_side_cards_frames(renderer: Renderer) -> None:
    view = sample("warning")  # E's card has a red frame, W's a green one
    a, b = view.teams
    view = replace(view, teams=(replace(a, label="Anne-Marie+Jean"), replace(b, label="Jos+Pit")))
    surface = render_surface(view, (800, 480), renderer)
    layout = layout_for((800, 480))
    slots = layout.slots(view.bottom_seat)
    left, right = slots[Seat.W].card, slots[Seat.E].card
    frame = layout.border + 2
    y0 = layout.center.y + layout.center.h // 2 - 4
    white = (255, 255, 255)
    gap_left = _colors_in(surface, left.right + frame, left.right + frame + 4, y0, y0 + 8)
    gap_right = _colors_in(surface, right.x - frame - 4, right.x - frame, y0, y0 + 8)
    assert white not in gap_left and white not in gap_right


# ---- the header counts the trick that lies on the table -----------------------------------------------------


def test_trick_label_counts_the_complete_trick_until_it_is_swept() -> None:
    table, clock = Table(dealer=Seat.N), Clock()
    name_trumps(table, clock)
    for seat, card in zip(ORDER, TRICKS[0], strict=True):
        view = lay(table, clock, seat, card)
    assert view.prompt.startswith("Sweep the trick off")
    assert view.header.trick_label == "Trick 1/6"  # was "Trick 2/6" while trick 1's four cards still lay there
    sweep(table, clock, TRICKS[0])
    assert build_view(Scene(table.state, DisplaySettings(language="en"))).header.trick_label == "Trick 2/6"


# ---- an unknown tag is drawn where it lies ------------------------------------------------------------------


def test_an_unknown_tag_shows_as_a_red_question_mark_on_its_zone(renderer: Renderer) -> None:
    table, clock = Table(dealer=Seat.N), Clock()
    table.apply(CardPlaced(clock(), Seat.S, None, uid="04AABBCCDD"))
    view = build_view(Scene(table.state, DisplaySettings(language="en")))
    south = view.seat(Seat.S)
    assert south is not None and south.card is not None
    assert south.card.card is None and south.card.illegal
    surface = render_surface(view, (800, 480), renderer)
    card = layout_for((800, 480)).slots(view.bottom_seat)[Seat.S].card
    assert RED_ON_CARD in _colors_in(surface, card.x + 4, card.right - 4, card.y + 4, card.bottom - 4)


# ---- offline readers ----------------------------------------------------------------------------------------


def test_offline_zones_say_so_and_all_readers_down_is_one_sentence(renderer: Renderer) -> None:
    table = Table(dealer=Seat.N)
    table.apply(ReaderStatus(1.0, Seat.E, ReaderState.FAULT, "antenna"))
    view = build_view(Scene(table.state, DisplaySettings(language="de")))
    east, west = view.seat(Seat.E), view.seat(Seat.W)
    assert east is not None and east.reader_off == "Leser aus"
    assert west is not None and west.reader_off == ""
    assert view.warning is not None and view.warning.text.startswith("O: Leser aus. Tippe auf deinen Kartenplatz")
    surface = render_surface(view, (800, 480), renderer)
    zone = layout_for((800, 480)).slots(view.bottom_seat)[Seat.E].card
    assert RED_ON_DARK in _colors_in(surface, zone.x, zone.right, zone.y, zone.y + layout_for((800, 480)).border)

    for seat in (Seat.N, Seat.S, Seat.W):
        table.apply(ReaderStatus(2.0, seat, ReaderState.OFFLINE, "reader link down"))
    view = build_view(Scene(table.state, DisplaySettings(language="en")))
    assert all(s.reader_off == "reader off" for s in view.seats)
    assert view.warning is not None and view.warning.code == "reader_offline"
    assert view.warning.text == "The card readers are not answering. Check their cable."

    table.apply(ReaderStatus(3.0, Seat.N, ReaderState.ONLINE))
    view = build_view(Scene(table.state, DisplaySettings(language="en")))
    north = view.seat(Seat.N)
    assert north is not None and north.reader_off == ""
    assert view.warning is not None and "readers are" not in view.warning.text


# ---- warnings say what to do -------------------------------------------------------------------------------

PARAMS = {"seat": Seat.E, "card": Card.parse("QH"), "trick": 3, "rule": 13, "announcement": "Matt",
          "led": Card.parse("KS"), "held": "♠9", "holder": Seat.W}
CONFIRM_TO_GO_ON = ("revoke", "announcement_without_cards", "queen_shown_by_other_seat", "card_in_two_hands",
                    "too_many_cards")


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("code", CONFIRM_TO_GO_ON)
def test_warnings_cleared_only_by_confirm_name_the_confirm_button(code: str, lang: str) -> None:
    tr = translator(lang)
    text = tx.warning_text(tr, code, PARAMS, "ENGLISH")
    assert text != "ENGLISH"
    assert tx.button(tr, Action.CONFIRM).label in text


@pytest.mark.parametrize("lang", LANGUAGES)
def test_revoke_under_lose_deal_says_the_deal_is_lost_not_play_on(lang: str) -> None:
    tr = translator(lang)
    warning = TableWarning(WarningCode.REVOKE, 15, Seat.E, 3, "E revokes; EW lose the deal", deal=1,
                           card=Card.parse("JH"),
                           fault=FaultFacts(led=Card.parse("KS"), held=(Card.parse("9S"),),
                                            penalty=RevokePenalty.LOSE_DEAL))
    text = warning_sentence(tr, warning)
    assert tx.button(tr, Action.CONFIRM).label not in text
    assert text == tx.warning_text(tr, "revoke_lose_deal", {**PARAMS, "card": Card.parse("JH"), "rule": 15}, "")
    plain = warning_sentence(tr, replace(warning, fault=replace(warning.fault, penalty=RevokePenalty.WARN)))
    assert tx.button(tr, Action.CONFIRM).label in plain


@pytest.mark.parametrize("lang", LANGUAGES)
def test_unknown_tag_says_to_take_it_away(lang: str) -> None:
    english = tx.warning_text(translator("en"), "unknown_tag", PARAMS, "")
    assert english.endswith("Take it away.")
    assert tx.warning_text(translator(lang), "unknown_tag", PARAMS, "") != ""


# ---- wrapping keeps numbers with their words ---------------------------------------------------------------


def test_glue_numbers_keeps_scores_and_counts_together() -> None:
    assert _glue_numbers(["Jos+Pit", "gagnent", "la", "donne,", "22", "à", "4"])[-1] == "donne, 22 à 4"
    assert _glue_numbers(["1", "line", "added", "to", "E+W"])[0] == "1 line"
    assert _glue_numbers(["N+S", "11", "·", "E+W", "6"]) == ["N+S 11", "·", "E+W 6"]


@pytest.mark.parametrize("width", range(120, 420, 20))
def test_a_wrapped_result_never_splits_a_score(width: int, renderer: Renderer) -> None:
    """The slate once read "... la donne, 22 à" / "4 · ...": a score is one unit, whatever the width."""
    text = "Anna+Marie gagnent la donne, 22 à 4\nAnna+Marie ont abattu leur jeu\nMatt: 2 traits"
    lines = renderer.balanced_wrap(text, 18, width)
    assert any("22 à 4" in line for line in lines), lines
    assert any("2 traits" in line for line in lines), lines
    assert not any(line.split()[-1] in ("à", "22", "Matt:") for line in lines), lines


def test_slate_result_has_a_line_per_fact_and_room_for_them(renderer: Renderer) -> None:
    slate = SlateView("Slate", top=sample("slate").slate.top, bottom=sample("slate").slate.bottom,  # type: ignore[union-attr]
                      last_result="Anna+Marie win the deal, 22 to 4\nAnna+Marie claimed the deal\nMatt: 2 lines")
    view = replace(sample("slate"), slate=slate)
    assert view.kind is ScreenKind.SLATE
    size = (800, 480)
    surface = render_surface(view, size, renderer)
    layout = layout_for(size)
    font = renderer.font(layout.fonts.result)
    # Three lines at full size need this much height above the bar; the text must be drawn there in yellow.
    needed = 3 * font.get_linesize()
    y0 = layout.bar.y - needed
    yellow = (255, 212, 0)
    rows_with_yellow = [y for y in range(y0, layout.bar.y)
                        if yellow in _colors_in(surface, layout.table.x, layout.table.right, y, y + 1)]
    assert rows_with_yellow and rows_with_yellow[0] - y0 < font.get_linesize()  # the first line starts high


# ---- an unwritable screenshot place is one clear error -----------------------------------------------------


def test_render_to_png_into_a_file_instead_of_a_folder_is_a_clear_error(tmp_path: Path) -> None:
    blocker = tmp_path / "frames"
    blocker.write_text("not a folder")
    with pytest.raises(RenderError, match="frames: not a folder") as caught:
        render_to_png(sample("idle"), blocker / "x.png")
    assert isinstance(caught.value, TablepiError) and isinstance(caught.value, OSError)
    with pytest.raises(RenderError, match="cannot write the PNG"):
        render_to_png(sample("idle"), blocker / "deeper" / "x.png")



# ---- long names keep their Dealer / Forehand mark whole ------------------------------------------------------


@pytest.mark.parametrize("size", [(800, 480), (480, 320)], ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_long_side_seat_name_keeps_its_mark_whole(size: tuple[int, int], lang: str, renderer: Renderer) -> None:
    """'Guillaume [Forehand]' on the left lost the right half of its mark (the tag clips what does not fit)."""
    tr = translator(lang)
    names = {Seat.N: "Marie-Thérèse", Seat.E: "Jean-Claude", Seat.S: "Maximilian", Seat.W: "Guillaume"}
    base = sample("match_start", lang)
    seats = tuple(tx.seat_view(tr, s.seat, names, dealer=s.seat is Seat.E, forehand=s.seat is Seat.W)
                  for s in base.seats)
    surface = render_surface(replace(base, seats=seats), size, renderer)
    slot = layout_for(size).slots(base.bottom_seat)[Seat.W].tag
    gold = (255, 190, 40)
    columns = [x for x in range(slot.x, slot.right)
               if any(tuple(surface.get_at((x, y)))[:3] == gold for y in range(slot.y, slot.bottom))]
    assert columns, "the Forehand mark is drawn"
    right = columns[-1]
    edge = sum(1 for y in range(slot.y, slot.bottom) if tuple(surface.get_at((right, y)))[:3] == gold)
    assert edge >= slot.h // 3, "the mark's right border is drawn, not clipped away"


def test_a_name_too_long_even_at_the_smallest_size_is_shortened_with_an_ellipsis(renderer: Renderer) -> None:
    fitted = renderer.name_fit("Bartholomäus-Maximilian", 25, 120, 18)
    assert fitted.size == 18 and len(fitted.lines) == 1 and fitted.lines[0].endswith("…")
    assert renderer.font(18).size(fitted.lines[0])[0] <= 120
    short = renderer.name_fit("Jos", 25, 120, 18)
    assert short.size == 25 and short.lines == ("Jos",)


# ---- long team names on the slate --------------------------------------------------------------------------


def test_a_long_team_label_keeps_its_line_beside_the_open_count(renderer: Renderer) -> None:
    """Each slate row has a head line: the team (up to the open count) and its open lines, large; a long team
    name shrinks only so far, and the count is never squeezed ("Marie-Thérèse+Maximilian" was 8 px once)."""
    size = (480, 320)
    layout = layout_for(size)
    view = sample("slate", "en")
    slate = view.slate
    assert slate is not None
    # the row with a one-digit count, as when this was found (beside "12 open" the name shrinks to 13 px here)
    long = replace(view, slate=replace(slate, bottom=replace(slate.bottom, label="Marie-Thérèse+Maximilian")))
    label_w = layout.table.w - 2 * layout.gap - renderer.font(layout.fonts.slate.count).size(
        slate.bottom.open_label)[0]
    size_used, _ = renderer.fit("Marie-Thérèse+Maximilian", layout.fonts.slate.label,
                                type(layout.table)(0, 0, label_w - 2 * layout.gap, 40))
    assert size_used >= layout.fonts.slate.label * 7 // 10
    render_surface(long, size, renderer)


# ---- hand scan: progress per seat and a way to play on --------------------------------------------------------


def test_hand_scan_counts_each_seats_cards_and_offers_confirm() -> None:
    from tablepi.table.events import CardLifted
    from tablepi.table.state import TableConfig, TablePhase

    table, clock = Table(dealer=Seat.N, config=TableConfig(hand_scan=True)), Clock()
    name_trumps(table, clock)
    assert table.state.phase is TablePhase.HAND_SCAN
    view = build_view(Scene(table.state, DisplaySettings(language="en")))
    assert view.button(Action.CONFIRM) is not None  # play on with what was scanned (docs/table.md)
    scanning = table.state.prompt.seat
    assert scanning is not None
    seat_view = view.seat(scanning)
    assert seat_view is not None and seat_view.marks[-1] == "0/6"
    for card in ("KH", "9S"):
        t = clock()
        table.apply(CardPlaced(t, scanning, Card.parse(card)))
        table.apply(CardLifted(t + 0.2, scanning, Card.parse(card)))
    seat_view = build_view(Scene(table.state, DisplaySettings(language="en"))).seat(scanning)
    assert seat_view is not None and seat_view.marks[-1] == "2/6"


@pytest.mark.parametrize("family", list(PANELS))
def test_the_four_names_are_drawn_at_one_size_and_fernand_is_never_cut(family: str, renderer: Renderer) -> None:
    """Issue 20: names were each shrunk on their own (four sizes on one screen) and "Fernand [Forehand]" was cut
    at the portrait layout's side seat."""
    layout = layout_for(PANELS[family].size)
    names = {Seat.N: "Anna", Seat.E: "Jos", Seat.S: "Marie", Seat.W: "Fernand"}
    for language in LANGUAGES:
        tr = translator(language)
        for bottom in Seat:
            base = sample("trump_chosen", language)
            seats = tuple(tx.seat_view(tr, s, names, dealer=s is Seat.S, forehand=s is Seat.W) for s in Seat)
            view = replace(base, seats=seats, bottom_seat=bottom)
            size = renderer.name_size(view, layout)
            slots = layout.slots(bottom)
            for seat_view in view.seats:
                room = renderer._name_room(seat_view, slots[seat_view.seat], layout)
                assert renderer.font(size).size(seat_view.name)[0] <= room, (family, language, bottom, seat_view)


@pytest.mark.parametrize("family", list(PANELS))
def test_the_first_enrol_screen_is_read_and_its_stop_key_is_one_row_not_the_screen(family: str) -> None:
    from tablepi.display.panels import EnrolKind, Enrolling
    from tablepi.display.sheet import key_rects, sheet_for

    size = PANELS[family].size
    sheet = sheet_for(Enrolling(EnrolKind.DECK, "red"), translator("en"))
    assert sheet.lines == ("Lay each card when asked.",)
    ((key, rect),) = key_rects(sheet, size)
    assert key.id is Word.STOP and rect.h <= layout_for(size).buttons.row_h


@pytest.mark.parametrize("family", list(PANELS))
def test_under_a_sheet_the_bar_shows_no_game_prompt(family: str, renderer: Renderer) -> None:
    from tablepi.display.panels import Menu
    from tablepi.display.sheet import sheet_for

    size = PANELS[family].size
    view = replace(sample("mid_trick"), sheet=sheet_for(Menu(), translator("en")))
    assert view.prompt
    surface = render_surface(view, size, renderer)
    bar = layout_for(size).bar
    from tablepi.display.render import YELLOW

    assert YELLOW not in _colors_in(surface, bar.x, bar.right, bar.y, bar.bottom)


def _trick_with_a_card_by_hand() -> Table:
    """Trick 1 with hearts trumps: W, S and N lay their cards, E's reader is dead and his ♥Q is entered by hand."""
    from tablepi.rules import Suit
    from tablepi.table import Button, ButtonName, Tick
    from tablepi.table.events import CardEntered

    table = Table(dealer=Seat.N)  # W is forehand
    table.apply(ReaderStatus(0.5, Seat.E, ReaderState.OFFLINE))
    table.apply(Button(1.0, ButtonName.trump(Suit.HEARTS)))
    table.apply(CardPlaced(2.0, Seat.W, Card.parse("AH")))
    table.apply(CardPlaced(4.0, Seat.S, Card.parse("KH")))
    table.apply(Tick(6.0))
    table.apply(CardEntered(7.0, Seat.E, Card.parse("QH")))
    table.apply(CardPlaced(8.0, Seat.N, Card.parse("JH")))
    table.apply(Tick(10.0))
    return table


def test_a_card_by_hand_goes_when_its_trick_is_swept() -> None:
    """Issue 20 (cosmetic): a card entered by hand stayed drawn after its trick was swept, until the next trick's
    first card; drawn with its trick, it goes with it."""
    from tablepi.table import CardLifted

    table = _trick_with_a_card_by_hand()
    settings = DisplaySettings()
    view = build_view(Scene(table.state, settings))
    drawn = view.seat(Seat.E)
    assert drawn is not None and drawn.card is not None and drawn.card.by_hand  # its trick lies on the table
    for t, (seat, card) in enumerate(((Seat.W, "AH"), (Seat.S, "KH"), (Seat.N, "JH"))):
        table.apply(CardLifted(11.0 + t, seat, Card.parse(card)))
    assert len(table.state.deal.tricks) == 1 and table.state.deal.tricks[0].winner is not None
    drawn = build_view(Scene(table.state, settings)).seat(Seat.E)
    assert drawn is not None and drawn.card is None  # swept: the trick's other cards are gone, and so is E's


@pytest.mark.parametrize("size", [panel.size for panel in PANELS.values()], ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_by_hand_pen_mark_is_as_tall_as_a_name(size: tuple[int, int]) -> None:
    """Issue 20 (cosmetic): the pen that marks a card entered by hand was about 10 px, unreadable across the table.
    What a card by hand adds to the same card laid (its frame and its pen), beyond the frame along the card's
    edges, is the pen: at least three quarters of the names' size high."""
    renderer = Renderer()
    layout = layout_for(size)
    view = build_view(Scene(_trick_with_a_card_by_hand().state, DisplaySettings()))
    laid = replace(view, seats=tuple(replace(seat, card=replace(seat.card, by_hand=False))
                                     if seat.seat is Seat.E and seat.card is not None else seat
                                     for seat in view.seats))
    marked, plain = render_surface(view, size, renderer), render_surface(laid, size, renderer)
    card = layout.slots(view.bottom_seat)[Seat.E].card
    edge = layout.border + 2
    rows = [y for y in range(size[1]) for x in range(max(0, card.x - card.w), min(size[0], card.right + card.w))
            if marked.get_at((x, y)) != plain.get_at((x, y))
            and not (card.x - edge <= x < card.x + edge or card.right - edge <= x < card.right + edge
                     or card.y - edge <= y < card.y + edge or card.bottom - edge <= y < card.bottom + edge)]
    assert rows, "no pen drawn"
    assert max(rows) - min(rows) + 1 >= layout.fonts.name * 3 // 4, (min(rows), max(rows), layout.fonts.name)


@pytest.mark.parametrize("size", [panel.size for panel in PANELS.values()], ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_pickers_confirm_is_a_plain_key_never_in_red(size: tuple[int, int]) -> None:
    """Issue 20 (cosmetic): Confirm in the card picker was drawn in the chosen card's red (red says something went
    wrong); the line above it names the card. No pixel of the Confirm key is a red of the suits, for ♥Q or trumps ♦."""
    from tablepi.display.panels import CONFIRM, CardPicker
    from tablepi.display.sheet import key_rects, sheet_for
    from tablepi.rules import Suit

    renderer = Renderer()
    tr = translator("en")
    for panel in (CardPicker(Seat.E, (Card.parse("QH"), Card.parse("9S")), card=Card.parse("QH")),
                  CardPicker(Seat.W, (), trumps=True, suit=Suit.DIAMONDS)):
        sheet = sheet_for(panel, tr)
        surface = render_surface(replace(build_view(Scene(None, DisplaySettings())), sheet=sheet), size, renderer)
        confirm = next(rect for key, rect in key_rects(sheet, size) if key.id == CONFIRM)
        reds = {RED_ON_CARD, RED_ON_DARK}
        drawn = {surface.get_at((x, y))[:3] for x in range(confirm.x, confirm.right)
                 for y in range(confirm.y, confirm.bottom)}
        assert not drawn & reds, (panel, drawn & reds)


def _slate_with_review(names: bool = True, tally: bool = True) -> object:
    from tablepi.display.view import SlateRow, SlateView, View
    from tablepi.rules.seats import Team
    from tablepi.rules.slate import Line

    def row(team: Team, label: str, lines: tuple[Line, ...]) -> SlateRow:
        left = sum(1 for line in lines if line in (Line.OPEN, Line.ADDED))
        return SlateRow(team, label if names else "", lines if tally else (), f"{left} open")

    top = row(Team.EW, "Marie-Thérèse+Léon", (Line.STRUCK,) * 4 + (Line.OPEN,) * 5 + (Line.ADDED,) * 3)
    bottom = row(Team.NS, "Fernand+Guillaume", (Line.STRUCK,) * 2 + (Line.OPEN,) * 7)
    result = ("Marie-Thérèse+Léon win the deal, 31 to 9, claimed\nKonter a Matt: 3 lines\n"
              "Fernand+Guillaume: 3 lines added")
    slate = SlateView("Slate", top, bottom, last_result=result, next_trumps="Léon names trumps next",
                      review=("Best play: Fernand+Guillaume could have held them to 24 (♠A in trick 2, ♥Q kept).",
                              "Marie-Thérèse+Léon: ♥Q held back to trick 5 lost 6 points; ♦K led too early."))
    return View(ScreenKind.SLATE, slate=slate)


@pytest.mark.parametrize("size", [panel.size for panel in PANELS.values()], ids=lambda s: f"{s[0]}x{s[1]}")
def test_with_the_review_no_tally_line_is_drawn_over_a_team_name(size: tuple[int, int]) -> None:
    """Issue 20 (cosmetic): with the deal's review on the slate, the tally lines were drawn over the team names.
    What the names add to the picture, and what the tally adds to the picture without the names, are apart."""
    renderer = Renderer()

    def diff(a: object, b: object) -> set[tuple[int, int]]:
        one, two = render_surface(a, size, renderer), render_surface(b, size, renderer)  # type: ignore[arg-type]
        return {(x, y) for x in range(size[0]) for y in range(size[1]) if one.get_at((x, y)) != two.get_at((x, y))}

    nameless = _slate_with_review(names=False)
    names = diff(_slate_with_review(), nameless)
    tally = diff(nameless, _slate_with_review(names=False, tally=False))
    assert names and tally
    assert not names & tally, f"{len(names & tally)} pixels of the names under the tally"
