"""The hand-entry panels as pure values: keys in, the next panel and the gesture out."""

from __future__ import annotations

import doctest

import tablepi.display.keys as keys
import tablepi.display.panels as panels
from tablepi.display.keys import Key, Opening, Word, key_named
from tablepi.display.panels import (
    CANCEL,
    OK,
    CardPicker,
    ChooseDealer,
    DealerChoice,
    DealForm,
    EnterCard,
    EnterDeal,
    HistoryPanel,
    Keyboard,
    NameTrumps,
    SeatPlayer,
    press,
)
from tablepi.rules import Announcement, Card, Seat, Suit, Team, parse_cards
from tablepi.rules.entry import DealEntry


def run(panel: object, *keys: str | Key) -> object:
    """Press ``keys`` (written as their text, ``"suit:H"``, or as values) one after the other."""
    gesture = None
    for key in keys:
        step = press(panel, key_named(key) if isinstance(key, str) else key)  # type: ignore[arg-type]
        panel, gesture = step.panel, step.gesture
    return panel, gesture


def ids(panel: object) -> tuple[str, ...]:
    """The panel's live keys as their text."""
    return tuple(str(key) for key in panel.live_keys())  # type: ignore[attr-defined]


def rows(history: object) -> tuple[str, ...]:
    return tuple("" if key is None else str(key) for key in history.row_keys())  # type: ignore[attr-defined]


def test_the_card_picker_offers_suit_then_only_possible_ranks() -> None:
    picker = CardPicker(Seat.E, tuple(parse_cards("AH KH QS 9C")))
    assert ids(picker) == ("suit:S", "suit:H", "suit:C", "cancel")  # no diamond is possible
    halfway, gesture = run(picker, "suit:H")
    assert gesture is None and ids(halfway) == ("card:AH", "card:KH", "back", "cancel")  # type: ignore[union-attr]
    assert run(picker, "suit:H", "back") == (picker, None)
    chosen, gesture = run(picker, "suit:H", "card:KH")
    assert gesture is None and ids(chosen) == ("confirm", "back", "cancel")  # type: ignore[union-attr]
    assert run(picker, "suit:H", "card:KH", "back") == (halfway, None)
    assert run(picker, "suit:H", "card:KH", "confirm") == (None, EnterCard(Seat.E, Card.parse("KH")))
    assert run(picker, "suit:D") == (picker, None)  # a stale touch on a key not shown changes nothing
    assert run(picker, CANCEL) == (None, None)


def test_the_trumps_picker_offers_every_suit_then_confirm() -> None:
    picker = CardPicker(Seat.W, (), trumps=True)
    assert ids(picker) == ("suit:S", "suit:H", "suit:D", "suit:C", "cancel")
    assert run(picker, "suit:D", "confirm") == (None, NameTrumps(Seat.W, Suit.DIAMONDS))
    assert run(picker, "suit:D", "back") == (picker, None)


def test_the_keyboard_types_a_name_or_takes_an_earlier_one() -> None:
    board = Keyboard(Seat.S, "lb", names=("Marie", "Mars", "Jang"))
    assert board.suggestions() == ("Marie", "Mars", "Jang")
    typed, _ = run(board, "char:M", "char:a")
    assert typed.text == "Ma" and typed.suggestions() == ("Marie", "Mars")  # type: ignore[union-attr]
    assert run(board, "char:M", "char:a", "name:Mars") == (None, SeatPlayer(Seat.S, "Mars"))
    done = run(board, "char:J", "char:o", "space", "char:K", BACK := "back", "char:W", OK)
    assert done == (None, SeatPlayer(Seat.S, "Jo W"))
    assert run(board, OK) == (board, None)  # nothing typed: nothing to seat
    assert "char:ë" in ids(board) or "char:Ë" in ids(board)
    assert BACK == "back"


def test_the_dealer_choice_gives_a_seat() -> None:
    assert run(DealerChoice(), "seat:E") == (None, ChooseDealer(Seat.E))


def test_the_deal_form_gives_an_entry_the_rules_accept() -> None:
    form = DealForm(Seat.W)
    panel, gesture = run(form, "winner:EW", "digit:2", "digit:3", "konter:E", "matt:E", OK)
    assert panel is None and isinstance(gesture, EnterDeal)
    assert gesture.entry == DealEntry(Seat.W, Team.EW, 23, announcements=((Seat.E, Announcement.KONTER_A_MATT),))
    tie, gesture = run(form, "winner:tie")
    assert "kapo" not in ids(tie) and tie.entry().winner is None  # type: ignore[union-attr]
    kapo, _ = run(form, "winner:NS", "pad:cancel", "kapo", "claim")
    assert kapo.entry().points == 40 and kapo.entry().claimed_by is Team.NS  # type: ignore[union-attr]
    pad, _ = run(form, "points", "digit:4", "digit:5")  # 45 is no deal: the pad waits, ⌫ takes a digit back
    assert pad.typing == "45" and "ok" not in ids(pad)  # type: ignore[union-attr]
    back, _ = run(pad, "pad:back", "digit:0")  # type: ignore[arg-type]
    assert back.typing is None and back.points == 40  # type: ignore[union-attr]
    _, gesture = run(DealForm(Seat.N, correct=2), "winner:tie", OK)
    assert gesture == EnterDeal(DealEntry(Seat.N, None), correct=2)


def test_the_history_scrolls_a_page_at_a_time() -> None:
    history = HistoryPanel(rows=12, page=5)
    assert ids(history) == ("down", "cancel")
    down, _ = run(history, "down", "down")
    assert down.first == 10 and ids(down) == ("up", "cancel")  # type: ignore[union-attr]


def test_docstring_examples() -> None:
    assert doctest.testmod(panels).failed == 0
    assert doctest.testmod(keys).failed == 0


def test_the_keyboard_has_a_digits_face_for_names_such_as_deck2() -> None:
    board = Keyboard(Seat.N, "lb", shift=False, enrol=panels.EnrolKind.DECK)
    assert "char:2" not in ids(board) and "digits" in ids(board)
    typed, gesture = run(board, "char:d", "char:e", "char:c", "char:k", "digits", "char:2")
    assert typed.digits and typed.text == "deck2" and gesture is None  # type: ignore[union-attr]
    assert len(typed.rows()) == len(board.rows())  # as many rows: no key moves or shrinks  # type: ignore[union-attr]
    back, _ = run(typed, "digits")
    assert not back.digits and "char:q" in ids(back)  # type: ignore[union-attr]
    assert run(typed, OK)[1] == panels.StartEnrol(panels.EnrolKind.DECK, "deck2")


def test_a_row_of_the_history_opens_the_correction_of_its_deal() -> None:
    history = HistoryPanel(rows=7, page=5, correct=(None, None, 1, 2, 3, 4, 5))  # two deals of an earlier match
    assert rows(history) == ("", "", "row:1", "row:2", "row:3")
    assert run(history, "row:2") == (None, panels.Open(Opening.CORRECT, 2))
    assert run(history, "row:5") == (history, None)  # not shown on this page: a stale touch
    down, _ = run(history, "down")
    assert rows(down) == ("row:4", "row:5")


def test_the_picker_asks_no_choice_that_has_one_answer() -> None:
    """One card possible: the picker opens on Confirm (his card place, Confirm: 2 touches); one suit: on its ranks
    (3 touches); otherwise suit, rank, Confirm (4 touches)."""
    qh, kh, ks = Card.parse("QH"), Card.parse("KH"), Card.parse("KS")
    one = CardPicker(Seat.E, (qh,)).opened()
    assert one.confirming and one.live_keys()[0] is Word.CONFIRM
    assert run(one, "confirm") == (None, EnterCard(Seat.E, qh))
    suit = CardPicker(Seat.E, (qh, kh)).opened()
    assert suit.suit is Suit.HEARTS and suit.card is None
    assert CardPicker(Seat.E, (qh, ks)).opened().suit is None
    assert CardPicker(Seat.W, (), trumps=True).opened().suit is None  # trumps: the suit is the choice


def test_every_key_is_a_value_whose_text_reads_back_as_itself() -> None:
    """The hit-map file names a key by its text: the text reads back as the very key (a robot, a test)."""
    from tablepi.display.keys import touch_name, touch_named
    from tablepi.display.panels import Answering, EnrolMenu, MatchStart, Menu

    boards = [Keyboard(Seat.N, lang, names=("Jang", "Marie-Thérèse")) for lang in ("lb", "de", "fr", "en")]
    boards.append(Keyboard(Seat.N, digits=True, public=False))
    shown: list[object] = [
        *boards, CardPicker(Seat.E, tuple(parse_cards("AH KH QS 9C"))), CardPicker(Seat.W, (), trumps=True),
        DealerChoice(), DealForm(Seat.N, correct=2, last=3), DealForm(Seat.N, typing=""), HistoryPanel(12, 0, 5),
        HistoryPanel(rows=3, correct=(1, 2, 3)), Menu(True, True, True, True, True), MatchStart(), EnrolMenu(),
        Answering(1, DealEntry(Seat.N, None), (Team.NS, Team.EW)),
    ]
    every = {key for panel in shown for key in panel.live_keys()}  # type: ignore[attr-defined]
    assert len(every) > 100
    for key in every:
        assert key_named(str(key)) == key
        touched = keys.KeyTouch(key)
        assert touch_named(touch_name(touched)) == touched
    from tablepi.table.events import ButtonName

    for other in (keys.MenuTouch(), keys.PlaceTouch(Seat.W), *ButtonName):
        assert touch_named(touch_name(other)) == other


def _typed_where_the_keys_were(board: Keyboard, name: str, language: str, size: tuple[int, int]) -> Keyboard:
    """``name`` typed by a finger that goes, for each letter, where that key was drawn when the keyboard opened
    (⇧ first for a capital the keyboard is not set for); every touch acts on what is drawn there now. On the way,
    a name offered on two consecutive sheets keeps its place."""
    from tablepi.display.i18n import translator
    from tablepi.display.sheet import key_rects, sheet_for

    tr = translator(language)

    def drawn(panel: Keyboard) -> dict[str, tuple[object, object]]:
        return {str(view.id).casefold(): (view.id, rect) for view, rect in key_rects(sheet_for(panel, tr), size)
                if view.id is not None}

    opening = drawn(board)

    def touch(panel: Keyboard, key: str) -> Keyboard:
        assert key.casefold() in opening, f"{language} {size}: no key {key}"
        centre = opening[key.casefold()][1].center  # type: ignore[attr-defined]
        hit = [ident for ident, rect in drawn(panel).values() if rect.contains(*centre)]  # type: ignore[attr-defined]
        assert len(hit) == 1, f"{language} {size}: {len(hit)} keys where {key} was"
        after = press(panel, hit[0]).panel  # type: ignore[arg-type]
        assert isinstance(after, Keyboard)
        before_names = {k: r for k, (_, r) in drawn(panel).items() if k.startswith("name:")}
        after_names = {k: r for k, (_, r) in drawn(after).items() if k.startswith("name:")}
        for shown in before_names.keys() & after_names.keys():
            assert before_names[shown] == after_names[shown], f"{language} {size}: {shown} moved"
        return after

    for ch in name:
        if ch.lower() != ch.upper() and ch.isupper() != board.shift:
            board = touch(board, "shift")
        board = touch(board, "space" if ch == " " else f"char:{ch}")
    return board


def test_a_name_typed_where_the_keys_were_comes_out_as_typed_in_every_language_and_layout() -> None:
    """Issue 20: the suggestion row came and went above the letters, so a finger going where a letter had been hit
    the row under it ("Fernand" came out as "Fdfnn"), the names offered changed places as one typed, and the lb
    keyboard had no hyphen, apostrophe or è ("Marie-Thérèse" could not be typed)."""
    from tablepi.display.i18n import LANGUAGES
    from tablepi.display.layout import PANELS

    earlier = ("Fränz", "Félix", "Fernand", "Marie", "Marianne")
    for language in LANGUAGES:
        for size in sorted({panel.size for panel in PANELS.values()}):
            for name in ("Fernand", "Marie-Thérèse", "Jang d'Ost"):
                board = _typed_where_the_keys_were(Keyboard(Seat.N, language, names=earlier), name, language, size)
                assert board.text == name, f"{language} {size}: {name!r} came out as {board.text!r}"


def test_the_keyboard_of_the_upright_3_5_inch_panel_has_every_key_and_each_a_finger_s_size() -> None:
    """The 3.5" panel turned upright drew twelve letters across its 320 px (22 px keys, 3.4 mm, as the 7" upright
    layout scaled down): there a row is laid as two, six letters a row, and the keyboard keeps every key the
    480x320 one has, in every language, on both faces, shifted or not; the hyphen and the apostrophe are at one
    place on both faces."""
    from tablepi.display.i18n import LANGUAGES, translator
    from tablepi.display.layout import MIN_TARGET_MM, PANELS
    from tablepi.display.sheet import key_rects, sheet_for

    upright, landscape = PANELS["upright"], PANELS["small"]
    for language in LANGUAGES:
        tr = translator(language)
        for board in (Keyboard(Seat.N, language, names=("Fernand",), public=False),
                      Keyboard(Seat.N, language, shift=False), Keyboard(Seat.N, language, digits=True)):
            sheet = sheet_for(board, tr)
            drawn = {str(k.id): r for k, r in key_rects(sheet, upright.size) if k.id is not None}
            assert set(drawn) == {str(k.id) for k, _ in key_rects(sheet, landscape.size) if k.id is not None}
            for name, rect in drawn.items():
                assert min(rect.w, rect.h) * upright.mm_per_px >= MIN_TARGET_MM, (language, name, rect)
            letters = [r for name, r in drawn.items() if name.startswith("char:")]
            assert max(sum(1 for r in letters if r.y == y) for y in {r.y for r in letters}) <= 8
            faces = {d: {str(k.id): r for k, r in key_rects(sheet_for(Keyboard(Seat.N, language, digits=d), tr),
                                                              upright.size)} for d in (False, True)}
            for sign in ("char:-", "char:'"):
                assert faces[False][sign] == faces[True][sign], (language, sign)
