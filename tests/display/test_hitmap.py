"""The class-of-bug guards over every screen's hit-map (tablepi.display.touch.hit_map), in every layout and language.

Between any two consecutive screens:

- a control that is on both keeps its place (a finger going back to it finds it where it was: the keyboard's
  letters once moved down a row when a suggestion appeared, the answer sheet's second Accept moved up once the
  first team answered, the picker's Cancel changed width);
- a control that came up under the finger that pressed the one before does not act within half a second
  (a double tap on a rank played the card through the Confirm that came up under it);
- every per-seat target names its seat (its rectangle is that seat's name or card place).

On every screen, every control is big enough for a finger: its smaller side at least ``MIN_TARGET_MM`` on the panel
the layout is designed for (a control drawn in two places, a seat's name and its card place, by the larger one).

The screens: the deal, slate and match-won screens of whole simulated matches (with players' mistakes) as the
table passes through them, and every hand-entry sheet walked key by key from where it opens.
"""

from __future__ import annotations

import copy
import itertools
import random
from collections.abc import Iterator

import pygame
import pytest

from tablepi.display import panels as pn
from tablepi.display.i18n import LANGUAGES, translator
from tablepi.display.keys import AnswerKey, Key, KeyTouch
from tablepi.display.layout import MIN_TARGET_MM, PANELS, layout_for
from tablepi.display.scene import Scene
from tablepi.display.sheet import sheet_for
from tablepi.display.touch import SETTLE, Control, PressTracker, hit_map
from tablepi.display.view import DisplaySettings, ScreenKind, View
from tablepi.display.viewmodel import build_view
from tablepi.rules import HouseRules
from tablepi.rules.cards import DECK, Card
from tablepi.rules.deal import Announcement
from tablepi.rules.entry import DealEntry
from tablepi.rules.seats import Seat, Team
from tablepi.table import Button, Table
from tablepi.table.simulate import simulate_match

SIZES = [panel.size for panel in PANELS.values()]
NAMES = {Seat.N: "Anna", Seat.E: "Jos", Seat.S: "Marie-Thérèse", Seat.W: "Pit"}


def _by_ident(view: View, size: tuple[int, int]) -> dict[str, Control]:
    out: dict[str, Control] = {}
    for control in hit_map(view, size):
        out.setdefault(control.ident, control)
    return out


def _check_pair(before: View, after: View, size: tuple[int, int], why: str) -> None:
    a, b = _by_ident(before, size), _by_ident(after, size)
    for ident in a.keys() & b.keys():
        assert a[ident].rect == b[ident].rect, f"{why}: {ident} moved from {a[ident].rect} to {b[ident].rect}"
    layout = layout_for(size)
    for control in b.values():
        if control.seat is not None:  # a seat's target is its name or its card place
            slot = layout.slots(after.bottom_seat)[control.seat]
            assert control.rect in (layout.name_rect(slot), slot.card), f"{why}: {control}"


def _check_sizes(view: View, size: tuple[int, int], why: str) -> None:
    """Before: the 480x320 deal form's keys were 23 px high (3.5 mm), the keyboard's 29 px, the header 32 px."""
    mm = layout_for(size).panel_spec.mm_per_px
    sides: dict[str, tuple[int, Control]] = {}
    for control in hit_map(view, size):
        side = min(control.rect.w, control.rect.h)
        if control.ident not in sides or side > sides[control.ident][0]:
            sides[control.ident] = (side, control)
    for side, control in sides.values():
        assert side * mm >= MIN_TARGET_MM, f"{why}: {control.name} is {side} px = {side * mm:.1f} mm: {control.rect}"


def _tap(tracker: PressTracker, pos: tuple[int, int], view: View) -> Control | None:
    tracker.touch(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=pos, button=1), view)
    return tracker.touch(pygame.event.Event(pygame.MOUSEBUTTONUP, pos=pos, button=1), view)


def _check_double_tap(before: View, pressed: Control, after: View, size: tuple[int, int], why: str) -> None:
    """A second tap where the first one was, 0.2 s later, acts only on the same control; 0.6 s later on any."""
    now = [0.0]
    tracker = PressTracker(size, clock=lambda: now[0])
    pos = pressed.rect.center
    assert _tap(tracker, pos, before) == pressed, why
    now[0] += SETTLE * 0.4
    second = _tap(tracker, pos, after)
    assert second is None or second.ident == pressed.ident, f"{why}: {second} came up under the finger"


# ---- the table's screens -------------------------------------------------------------------------------------


def _table_views(seed: int, language: str, bottom: Seat) -> Iterator[tuple[View, str]]:
    settings = DisplaySettings(language=language, bottom_seat=bottom, names=NAMES)
    script = simulate_match(seed, HouseRules(start_lines=3), mistakes=True)
    table = Table(script.rules, script.dealer, script.config)
    for i, event in enumerate(script.events):
        if isinstance(event, Button) and event.name.announcement is not None and event.seat is not None:
            # the same announcement touched on the panel: the table asks who, the names answer
            trial = copy.deepcopy(table)
            yield build_view(Scene(trial.apply(Button(event.time, event.name)), settings)), f"event {i} asked who"
        state = table.apply(event)
        yield build_view(Scene(state, settings)), f"event {i} {type(event).__name__}"


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_table_screens_keep_every_control_in_its_place(size: tuple[int, int]) -> None:
    pairs = 0
    for language, bottom, seed in itertools.product(LANGUAGES, (Seat.S, Seat.E), (1, 2)):
        previous: View | None = None
        for view, why in _table_views(seed, language, bottom):
            if view != previous:
                _check_sizes(view, size, f"{language} {bottom} seed {seed} {why}")
            if previous is not None and view != previous:
                _check_pair(previous, view, size, f"{language} {bottom} seed {seed} {why}")
                pairs += 1
            previous = view
    assert pairs > 100


# ---- the sheets ------------------------------------------------------------------------------------------------


def _starts() -> list[pn.Panel]:
    entry = DealEntry(Seat.E, Team.EW, points=31, announcements=((Seat.E, Announcement.MATT),))
    possible = tuple(c for c in DECK if c not in (Card.parse("AH"), Card.parse("9S")))
    return [
        pn.CardPicker(Seat.E, possible),
        pn.CardPicker(Seat.E, (Card.parse("QH"),)),
        pn.CardPicker(Seat.S, (), trumps=True),
        pn.Keyboard(Seat.N, "lb", names=("Fernand", "Fränz", "Anna", "Jos", "Marie-Thérèse")),
        pn.Keyboard(Seat.N, "fr", names=()),
        pn.Keyboard(Seat.N, "en", enrol=pn.EnrolKind.DECK, shift=False),
        pn.DealerChoice(),
        pn.DealForm(Seat.N),
        pn.DealForm(Seat.W, correct=2, last=3),
        pn.HistoryPanel(rows=13, correct=tuple(range(1, 14))),
        pn.Menu(can_correct=True, can_choose_dealer=True, can_enrol=True),
        pn.Menu(),
        pn.MatchStart(),
        pn.Answering(2, entry, (Team.NS, Team.EW)),
        pn.EnrolMenu(),
        pn.Enrolling(pn.EnrolKind.DECK, "red"),
    ]


def _after(panel: pn.Panel, key: Key) -> pn.Panel | None:
    if isinstance(panel, pn.Answering):  # the app rebuilds it from the table: the team that answered is done
        assert isinstance(key, AnswerKey)
        team = key.team
        waiting = tuple(t for t in panel.waiting if t is not team)
        return pn.Answering(panel.number, panel.entry, waiting) if waiting else None
    return pn.press(panel, key).panel


def _walks(rng: random.Random, steps: int = 40) -> Iterator[tuple[pn.Panel, Key, pn.Panel]]:
    for start in _starts():
        for _ in range(4):
            panel: pn.Panel | None = start
            for _ in range(steps):
                if panel is None:
                    break
                keys = [k for k in panel.live_keys() if k != pn.CANCEL]
                if not keys:
                    break
                key = rng.choice(keys)
                after = _after(panel, key)
                if after is not None:
                    yield panel, key, after
                panel = after


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("language", LANGUAGES)
def test_every_sheet_keeps_its_keys_in_place_and_a_double_tap_never_reaches_a_new_key(
        size: tuple[int, int], language: str) -> None:
    tr = translator(language)
    rng = random.Random(20)
    checked = 0
    for before, key, after in _walks(rng):
        a = View(ScreenKind.DEAL, sheet=sheet_for(before, tr, NAMES, history=tuple(f"deal {i}" for i in range(13))))
        b = View(ScreenKind.DEAL, sheet=sheet_for(after, tr, NAMES, history=tuple(f"deal {i}" for i in range(13))))
        why = f"{type(before).__name__} --{key}-->"
        _check_pair(a, b, size, why)
        _check_sizes(b, size, why)
        pressed = next(c for c in hit_map(a, size) if c.target == KeyTouch(key))
        _check_double_tap(a, pressed, b, size, why)
        checked += 1
    assert checked > 200

