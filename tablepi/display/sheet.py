"""A hand-entry panel as the screen shows it: a sheet over the table with a title, a few lines and rows of keys.

:func:`sheet_for` turns a panel (:mod:`tablepi.display.panels`) into a :class:`SheetView` of final, translated
text; :func:`key_rects` says where each key is on a layout, for the renderer and for the touches
(:mod:`tablepi.display.touch`) alike, so a finger lands on the key that was drawn. Pure, like the rest of the
view model: no pygame here.

Keys sit in rows of equal height in the layout's table-and-panel area, under the header (the sheet's title) and a
few lines of text, above the bar (the prompt). Each row fills the width; a key's ``weight`` is its share. On the
480x320 layout (and the 3.5" panel upright) the keys reach the screen's bottom edge, over the bar, with narrower
gaps: six rows of a deal form and twelve letters across are no smaller than ``layout.MIN_TARGET_MM`` only so (a
warning then takes the title's place, tablepi.display.render). No key is narrower than that on the layout's panel
(``ButtonGrid.min_key``): a key whose share of its row would be gets that width from the wider keys of the row (the
keyboard's ⇧ beside Space), and a row with no room for that is laid as two or more rows, its keys in their order
(upright, the 3.5" panel's 320 px take six letters a row, not twelve). Both faces of the keyboard are laid alike, so
the hyphen and the apostrophe stay where they are.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from tablepi.display import texts as tx
from tablepi.display.i18n import Translator
from tablepi.display.keys import (
    AnswerKey,
    CardKey,
    CharKey,
    DealKey,
    DigitKey,
    NameKey,
    Opening,
    OpenKey,
    SeatKey,
    SeatRole,
    SuitKey,
    WinnerKey,
    Word,
)
from tablepi.display.layout import Rect, layout_for
from tablepi.display.panels import (
    BACK,
    CANCEL,
    CONFIRM,
    OK,
    Answering,
    CardPicker,
    DealerChoice,
    DealForm,
    EnrolKind,
    Enrolling,
    EnrolMenu,
    HistoryPanel,
    Keyboard,
    MatchStart,
    Menu,
    Panel,
    PhonePanel,
)
from tablepi.display.view import KeyView, SheetView
from tablepi.rules.cards import Suit
from tablepi.rules.deal import WINNING_POINTS
from tablepi.rules.entry import TOTAL_POINTS
from tablepi.rules.seats import Seat, Team


def sheet_for(
    panel: Panel,
    tr: Translator,
    names: Mapping[Seat, str] | None = None,
    history: Sequence[str] = (),
) -> SheetView:
    """The sheet of ``panel`` in the translator's language; ``history`` are the evening's deals as lines."""
    names = names or {}
    cancel = KeyView(CANCEL, tr.gettext("Cancel"))
    if isinstance(panel, CardPicker):
        who = tx.seat_name(tr, panel.seat, names)
        if panel.trumps:
            title = tr.gettext("Trumps by hand for {seat}").format(seat=who)
        else:
            title = tr.gettext("Card by hand for {seat}").format(seat=who)
        # Back and Cancel keep one row and one place through the three steps; Confirm is a plain key (red is for
        # what went wrong): the line above it names the card in its colours' words.
        back = KeyView(BACK, tr.gettext("Back"), live=BACK in panel.live_keys())
        if panel.confirming:
            if panel.card is not None:
                line = tr.gettext("Play {card} for {seat}?").format(card=panel.card.display, seat=who)
            else:
                assert panel.suit is not None
                line = tr.gettext("{suit} trumps: {seat} names them?").format(suit=panel.suit.symbol, seat=who)
            return SheetView(title, (line,), ((KeyView(CONFIRM, tr.gettext("Confirm"), weight=2),), (back, cancel)))
        if panel.suit is None:
            suits = tuple(KeyView(SuitKey(s), s.symbol, SuitKey(s) in panel.live_keys(), suit=s) for s in Suit)
            ask = tr.gettext("Which suit are trumps?") if panel.trumps else tr.gettext("Which suit?")
            return SheetView(title, (ask,), (suits, (back, cancel)))
        cards = tuple(KeyView(CardKey(c), c.display, suit=c.suit) for c in panel.cards())
        empty = (KeyView(None, "", live=False),)
        return SheetView(title, (tr.gettext("Which card?"),), (cards or empty, (back, cancel)))
    if isinstance(panel, EnrolMenu):
        return SheetView(tr.gettext("Enrol"), (tr.gettext("Lay each card when asked."),),
                         ((KeyView(OpenKey(Opening.ENROL_DECK), tr.gettext("Enrol a deck"), weight=2),
                           KeyView(OpenKey(Opening.ENROL_PLAYER), tr.gettext("Enrol a player tag"), weight=2)),
                          (cancel,)))
    if isinstance(panel, Enrolling):
        return _enrolling(panel, tr)
    if isinstance(panel, Keyboard):
        who = tx.seat_letter(tr, panel.seat)
        typed = panel.text + "_"
        suggestions = tuple(KeyView(NameKey(n), n) if n else KeyView(None, "", live=False) for n in panel.places())
        letters = tuple(tuple(KeyView(CharKey(ch), ch) for ch in row) for row in panel.rows())
        controls = (KeyView(Word.SHIFT, "⇧", selected=panel.shift, live=not panel.digits),
                    KeyView(Word.DIGITS, "abc" if panel.digits else "123", selected=panel.digits),
                    KeyView(Word.SPACE, tr.gettext("Space"), weight=3),
                    KeyView(BACK, "⌫"), KeyView(OK, tr.gettext("OK"), live=bool(panel.text.strip()), weight=2),
                    KeyView(CANCEL, "✕"))
        rows = (suggestions, *letters, controls)
        if Word.PUBLIC in panel.live_keys():  # the table serves its pages: his choice to be named on them
            rows = (*rows, (KeyView(Word.PUBLIC, ("☑ " if panel.public else "☐ ") + tr.gettext("My name on the phones"),
                                    selected=bool(panel.public), weight=4),))
        if panel.enrol is EnrolKind.DECK:
            title = tr.gettext("Name of the deck to enrol")
        elif panel.enrol is EnrolKind.PLAYER:
            title = tr.gettext("Name of the player whose tag to enrol")
        else:
            title = tr.gettext("Name of the player at {seat}").format(seat=who)
        return SheetView(title, (typed,), rows)
    if isinstance(panel, DealerChoice):
        seats = tuple(KeyView(SeatKey(SeatRole.DEALER, s), tx.seat_name(tr, s, names)) for s in Seat)
        return SheetView(tr.gettext("Who deals first?"), (tr.gettext("The next seat names trumps."),),
                         (seats[:2], seats[2:], (cancel,)))
    if isinstance(panel, DealForm):
        return _form(panel, tr, names, cancel)
    if isinstance(panel, HistoryPanel):
        shown = tuple(history[panel.first:panel.first + panel.page]) or (tr.gettext("No deal yet."),)
        keys: tuple[KeyView, ...] = (KeyView(Word.UP, "▲", live=Word.UP in panel.live_keys()), KeyView(Word.DOWN, "▼",
                live=Word.DOWN in panel.live_keys()), KeyView(CANCEL, tr.gettext("Close"), weight=3))
        line_keys = panel.row_keys() if history else ()
        if any(line_keys):
            keys = (KeyView(None, tr.gettext("Touch a deal to correct it."), live=False, weight=5), *keys)
        return SheetView(tr.gettext("The evening's deals"), shown, (keys,), line_keys)
    if isinstance(panel, Answering):
        team = {t: tx.team_label(tr, t, names) for t in Team}
        # Both teams' rows stay where they are: a team that answered has its Accept drawn chosen (a refusal would
        # have discarded the correction), no longer live.
        rows = tuple((KeyView(None, team[t], live=False, weight=2),
                      KeyView(AnswerKey(t, True), tr.gettext("Accept"), live=t in panel.waiting,
                              selected=t not in panel.waiting, weight=2),
                      KeyView(AnswerKey(t, False), tr.gettext("Refuse"), live=t in panel.waiting, weight=2))
                     for t in Team)
        # Close sets the question aside unanswered (the menu brings it back): never a sheet without a way out.
        aside = (KeyView(None, "", live=False, weight=2), KeyView(CANCEL, tr.gettext("Close"), weight=4))
        result = panel.entry.result()
        from tablepi.rules.slate import Slate

        scored = Slate().record(result)
        line = tx.history_line(tr, panel.number, tx.seat_name(tr, panel.entry.trumps, names),
                               _result_words(tr, scored, names), scored.stake)
        return SheetView(tr.gettext("Correct deal {number}").format(number=panel.number),
                         (line, tr.gettext("Both teams must accept.")), (*rows, aside))
    if isinstance(panel, MatchStart):
        keys = (KeyView(OpenKey(Opening.PLAYERS), tr.gettext("Players' names"), weight=2),
                KeyView(OpenKey(Opening.DEALER), tr.gettext("First dealer"), weight=2))
        line = tr.gettext("Your names and the first dealer, or lay a card to play.")
        return SheetView(tr.gettext("New match"), (line,), (keys, (KeyView(CANCEL, tr.gettext("Play"), weight=2),)))
    if isinstance(panel, PhonePanel):
        close = KeyView(CANCEL, tr.gettext("Close"), weight=2)
        return SheetView(tr.gettext("On your phone"), (panel.code.address,), ((close,),), phone=panel.code)
    assert isinstance(panel, Menu)
    labels = {Opening.DEAL: tr.gettext("Enter a deal by hand"), Opening.CORRECT: tr.gettext("Correct a deal"),
              Opening.HISTORY: tr.gettext("The evening's deals"), Opening.PLAYERS: tr.gettext("Players' names"),
              Opening.DEALER: tr.gettext("First dealer"), Opening.ENROL: tr.gettext("Enrol cards or tags")}
    if panel.can_answer:  # a correction waits, its sheet closed: the same place answers it
        labels[Opening.CORRECT] = tr.gettext("Answer the correction")
    if panel.can_phone:  # only with the pages on: the menu of a table without them is unchanged
        labels[Opening.PHONE] = tr.gettext("On your phone")
    entries = tuple(KeyView(OpenKey(k), labels[k], live=OpenKey(k) in panel.live_keys()) for k in labels)
    rows = tuple(entries[i : i + 2] for i in range(0, len(entries), 2))
    return SheetView(tr.gettext("Menu"), (), (*rows, (cancel,)))


def _enrolling(panel: Enrolling, tr: Translator) -> SheetView:
    if panel.kind is EnrolKind.DECK:
        title = tr.gettext("Enrolling deck '{deck}'").format(deck=panel.name)
    else:
        title = tr.gettext("Enrolling the player tag of {player}").format(player=panel.name)
    lines = tuple(line for key, fields in panel.said if (line := tx.enrol_line(tr, key, dict(fields))))
    if panel.over and panel.error:
        lines = (*lines[-1:], tr.gettext("Not enrolled: {reason}").format(reason=panel.error))
    elif not panel.over:
        lines = lines or (tr.gettext("Lay each card when asked."),)
    key = KeyView(Word.STOP, tr.gettext("Close") if panel.over else tr.gettext("Stop, write nothing"), weight=2)
    return SheetView(title, lines, ((key,),))


def _pad(panel: DealForm, tr: Translator, title: str, cancel: KeyView) -> SheetView:
    """The number pad for the winners' points (``WINNING_POINTS`` to ``TOTAL_POINTS``, 21 to 40): two digits and
    the form is back."""
    assert panel.typing is not None
    live = panel.live_keys()

    def digit(d: int) -> KeyView:
        return KeyView(DigitKey(d), str(d), live=DigitKey(d) in live)

    line = tr.gettext("{points} points").format(points=(panel.typing or "") + "_")
    rows = (tuple(digit(d) for d in (1, 2, 3)), tuple(digit(d) for d in (4, 5, 6)), tuple(digit(d) for d in (7, 8, 9)),
            (KeyView(Word.PAD_BACK, "⌫"), digit(0), KeyView(Word.PAD_CANCEL, cancel.label)))
    return SheetView(title, (line, f"{WINNING_POINTS} – {TOTAL_POINTS}"), rows)


def _form(panel: DealForm, tr: Translator, names: Mapping[Seat, str], cancel: KeyView) -> SheetView:
    def seat_row(role: SeatRole, label: str, chosen: Seat | None) -> tuple[KeyView, ...]:
        return (KeyView(None, label, live=False, weight=2),
                *(KeyView(SeatKey(role, s), tx.seat_name(tr, s, names), selected=chosen is s, weight=2)
                  for s in Seat))

    team = {t: tx.team_label(tr, t, names) for t in Team}
    # Widths for the longest words at the layouts' smallest type (Fonts.min_text), upright on the 3.5" panel
    # (320 px) and on the Touch Display 2 (720 px): "Gewënner" and "Gagnants" as the row's label, "Stänner" for a
    # tie, "Aufgedeckt" for a claim, "Abbrechen" beside the correction's OK; the teams' names wrap after their "+".
    winner = (KeyView(None, tr.gettext("Won"), live=False, weight=5),
              KeyView(WinnerKey(Team.NS), team[Team.NS], selected=panel.winner is Team.NS, weight=5),
              KeyView(WinnerKey(Team.EW), team[Team.EW], selected=panel.winner is Team.EW, weight=5),
              KeyView(WinnerKey(None), tr.gettext("Tie"), selected=panel.winner is None, weight=4))
    live = panel.live_keys()
    points = (KeyView(Word.POINTS, tr.gettext("{points} points").format(points=panel.entry().winner_points
                                                                          if panel.valid() else panel.points),
                      live=Word.POINTS in live, weight=2),
              KeyView(Word.KAPO, tr.gettext("Kapo"), live=Word.KAPO in live, selected=panel.kapo),
              KeyView(Word.CLAIM, tr.gettext("Claimed"), live=Word.CLAIM in live, selected=panel.claimed,
                      weight=2))
    title = (tr.gettext("Correct deal {number}").format(number=panel.correct) if panel.correct is not None
             else tr.gettext("Enter a deal by hand"))
    if panel.typing is not None:
        return _pad(panel, tr, title, cancel)
    result = panel.entry().result() if panel.valid() else None
    lines = (tx.stake_text(tr, matt=panel.matt is not None, konter=panel.konter is not None,
                           kapo=panel.kapo and panel.winner is not None, lines=result.stake),) if result else ()
    done: tuple[KeyView, ...] = (KeyView(OK, tr.gettext("OK"), live=OK in live, weight=2), cancel)
    if panel.correct is not None:  # which deal to correct: the title says its number
        done = (KeyView(DealKey(-1), "◀", live=DealKey(-1) in live), KeyView(DealKey(1), "▶", live=DealKey(1) in live),
                done[0], replace(cancel, weight=2))
    return SheetView(title, lines, (seat_row(SeatRole.TRUMPS, tr.gettext("Trumps"), panel.trumps), winner, points,
                                    seat_row(SeatRole.MATT, "Matt", panel.matt),
                                    seat_row(SeatRole.KONTER, "Konter", panel.konter), done))


# --- geometry -------------------------------------------------------------------------------------------------


def body(size: tuple[int, int]) -> tuple[Rect, Rect]:
    """The sheet's text area and its keys area on a screen of ``size``: between the header and the bar (on the
    3.5" panel's layouts, the screen's bottom edge). The text area has room for two lines; upright on the 3.5"
    panel for four, so that a warning over a sheet, whose band is the header and this area, fits whole at 320 px
    (five lines of ``warning_min``) above keys of ``min_key``."""
    layout = layout_for(size)
    w = size[0]
    top = layout.header.bottom
    text_h = (4 if layout.family == "upright" else 2) * layout.fonts.center
    text = Rect(0, top, w, text_h)
    bottom = size[1] if layout.compact else layout.bar.y
    keys = Rect(0, text.bottom, w, bottom - text.bottom)
    return text, keys


def gap(size: tuple[int, int]) -> int:
    """The space between two keys: the layout's, narrower on the small layout (its keys need the room)."""
    layout = layout_for(size)
    return max(2, layout.gap * 3 // 5) if layout.compact else layout.gap


def warning_band(size: tuple[int, int]) -> Rect:
    """Where a warning is set while a sheet is up, over none of its keys: the bar under them, or, on the small
    layout, whose keys reach the screen's bottom edge, the header and the text area above them (there a sheet of
    one row of keys begins its lines under the text area, so that no row a touch acts on is ever under it)."""
    layout = layout_for(size)
    if layout.compact:
        text, _ = body(size)
        return Rect(0, 0, size[0], text.bottom)
    return layout.bar


def laid_rows(sheet: SheetView, size: tuple[int, int]) -> tuple[tuple[KeyView, ...], ...]:
    """The sheet's rows as laid on a screen of ``size``: a row that cannot give each of its keys the layout's
    ``min_key`` split into as few rows as can, its keys in their order."""
    layout = layout_for(size)
    g = gap(size)
    out: list[tuple[KeyView, ...]] = []
    for row in sheet.rows:
        parts = 1
        while parts < len(row) and any(_widths(part, size[0], g, layout.buttons.min_key) is None
                                       for part in _split(row, parts)):
            parts += 1
        out.extend(_split(row, parts))
    return tuple(out)


def _split(row: tuple[KeyView, ...], parts: int) -> list[tuple[KeyView, ...]]:
    """``row`` in ``parts`` runs of keys, as even in count as can be (the first ones longer)."""
    size, extra = divmod(len(row), parts)
    out, start = [], 0
    for i in range(parts):
        end = start + size + (1 if i < extra else 0)
        out.append(row[start:end])
        start = end
    return out


def _widths(row: tuple[KeyView, ...], width: int, g: int, min_key: int) -> list[float] | None:
    """Each key's width in a row across ``width``: its weight's share of the room, a key that would be narrower
    than ``min_key`` given that and the wider ones the rest; None if the row has no room for that."""
    room = width - (len(row) + 1) * g
    if len(row) * min_key > room:
        return None
    raised: set[int] = set()
    while True:
        total = sum(k.weight for i, k in enumerate(row) if i not in raised)
        unit = (room - min_key * len(raised)) / total if total else 0.0
        low = {i for i, k in enumerate(row) if i not in raised and unit * k.weight < min_key}
        if not low:
            return [float(min_key) if i in raised else unit * k.weight for i, k in enumerate(row)]
        raised |= low


def text_rect(sheet: SheetView, size: tuple[int, int]) -> Rect:
    """Where the sheet's lines go: two lines of type for a panel, the whole area for the history."""
    text, keys = body(size)
    if len(laid_rows(sheet, size)) == 1:  # the history, the enrolment: the lines are the content, one row of keys below
        layout = layout_for(size)
        row_h = min(keys.h // 3, layout.buttons.row_h)
        top = warning_band(size).bottom if layout.compact else text.y
        return Rect(0, top, text.w, keys.bottom - row_h - gap(size) - top)
    return text


def line_rects(sheet: SheetView, size: tuple[int, int]) -> tuple[Rect, ...]:
    """Where each of the sheet's lines is drawn (the renderer's and the touch's geometry alike)."""
    text = text_rect(sheet, size)
    g = gap(size)
    line_h = max(1, text.h // max(2, len(sheet.lines)))
    return tuple(Rect(text.x + g, text.y + i * line_h, text.w - 2 * g, line_h) for i in range(len(sheet.lines)))


def key_rects(sheet: SheetView, size: tuple[int, int]) -> tuple[tuple[KeyView, Rect], ...]:
    """Each key of ``sheet`` and its rectangle; a line that is touched (``line_keys``) is a key without a label
    over the line (the line is drawn as text)."""
    rects = line_rects(sheet, size)
    lines = tuple((KeyView(key, ""), rect) for key, rect in zip(sheet.line_keys, rects, strict=False)
                  if key is not None)
    return lines + _row_rects(sheet, size)


def _row_rects(sheet: SheetView, size: tuple[int, int]) -> tuple[tuple[KeyView, Rect], ...]:
    layout = layout_for(size)
    g = gap(size)
    _, area = body(size)
    rows = laid_rows(sheet, size)
    if not rows:
        return ()
    if len(rows) == 1:  # (as text_rect: never one key as big as the screen)
        row_h = min(area.h // 3, layout.buttons.row_h)
        area = Rect(area.x, area.bottom - row_h - g, area.w, row_h + g)
    row_h = (area.h - (len(rows) + 1) * g) // len(rows)
    out: list[tuple[KeyView, Rect]] = []
    for i, row in enumerate(rows):
        y = area.y + g + i * (row_h + g)
        # a row that has no room even so (a surface smaller than any panel) shares its width by weight
        widths = _widths(row, area.w, g, layout.buttons.min_key) or _widths(row, area.w, g, 0)
        assert widths is not None  # layout_for refuses a surface without room for a row of keys
        x = float(area.x + g)
        for key, w in zip(row, widths, strict=True):
            out.append((key, Rect(round(x), y, round(w), row_h)))
            x += w + g
    return tuple(out)


def _result_words(tr: Translator, entry: object, names: Mapping[Seat, str]) -> str:
    return tx.result_text(tr, entry, names).split("\n")[0]  # type: ignore[arg-type]
