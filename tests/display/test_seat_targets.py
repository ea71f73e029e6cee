"""Per-seat touch targets: a touch that acts for a seat is made at that seat's own name or card place.

The table asks "Who announces? Touch your name" after a seatless announce touch; each seat that may answer gets its
name drawn as a button and its empty card place. On every designed layout, with every seat at the bottom and in
every language: a touch anywhere on a seat's target is that seat's, the target is nearer that seat's card than any
other seat's, it overlaps no other seat's card, name or target nor any button, the name drawn on it is the seat's
own, and nothing is drawn at the seats while the table does not ask (the row of small gold targets that took a
touch level with the bottom card for the right-hand seat is gone: issue 20).
"""

from __future__ import annotations

import pytest

from tablepi.display import texts as tx
from tablepi.display.i18n import LANGUAGES, translator
from tablepi.display.layout import PANELS, Rect, button_at, layout_for
from tablepi.display.render import GOLD, Renderer, render_surface
from tablepi.display.view import Action, SeatView, View
from tablepi.rules import Seat
from tests.display.samples import sample


def _overlap(a: Rect, b: Rect) -> bool:
    return a.x < b.right and b.x < a.right and a.y < b.bottom and b.y < a.bottom


def _distance(a: Rect, point: tuple[int, int]) -> float:
    cx, cy = a.center
    return float((cx - point[0]) ** 2 + (cy - point[1]) ** 2)


def _asking(lang: str, bottom: Seat, with_cards: bool) -> View:
    tr = translator(lang)
    view = sample("trump_chosen", lang)
    seats: list[SeatView] = []
    for seat_view in view.seats:
        target = tx.button(tr, Action.ANNOUNCE_MATT, seat=seat_view.seat)
        card = sample("mid_trick", lang).seat(seat_view.seat).card if with_cards else None  # type: ignore[union-attr]
        seats.append(SeatView(seat_view.seat, seat_view.name, card=card, targets=(target,)))
    return View(view.kind, bottom_seat=bottom, seats=tuple(seats), trump=view.trump, header=view.header,
                teams=view.teams, prompt=tx.prompt_text(tr, "choose_seat"), buttons=view.buttons)


@pytest.mark.parametrize("family", list(PANELS))
def test_a_touch_on_a_seats_name_or_card_place_is_that_seats_and_nobody_elses(family: str) -> None:
    size = PANELS[family].size
    layout = layout_for(size)
    for lang in LANGUAGES:
        for bottom in Seat:
            for with_cards in (False, True):
                view = _asking(lang, bottom, with_cards)
                slots = layout.slots(bottom)
                placed = layout.target_rects(view)
                assert {b.seat for b, _ in placed} == set(Seat)
                buttons = [rect for _, rect in layout.button_rects(view.buttons)]
                for button, rect in placed:
                    seat = button.seat
                    assert seat is not None
                    own = slots[seat]
                    assert rect in (layout.name_rect(own), own.card)
                    assert view.seat(seat).card is None or rect != own.card  # type: ignore[union-attr]  # a card is never covered
                    for other, slot in slots.items():
                        if other is seat:
                            continue
                        assert _distance(rect, own.card.center) < _distance(rect, slot.card.center)
                        assert not _overlap(rect, slot.card) and not _overlap(rect, layout.name_rect(slot))
                    assert not any(_overlap(rect, b) for b in buttons)
                    for x in (rect.x, rect.center[0], rect.right - 1):
                        for y in (rect.y, rect.center[1], rect.bottom - 1):
                            hit = button_at(view, size, (x, y))
                            assert hit is not None and hit[0].seat is seat, (family, lang, bottom, seat, x, y)


@pytest.mark.parametrize("family", list(PANELS))
def test_nothing_is_drawn_at_the_seats_until_the_table_asks_and_targets_are_not_gold(
        family: str, renderer: Renderer) -> None:
    size = PANELS[family].size
    layout = layout_for(size)
    assert layout.target_rects(sample("trump_chosen")) == ()
    view = sample("choose_seat")
    surface = render_surface(view, size, renderer)
    for button, rect in layout.target_rects(view):
        assert surface.get_at(rect.center)[:3] != GOLD, (family, button.seat)
    # The announcement made (Jos's Matt, gold) lies clear of every target.
    jos = layout.slots(view.bottom_seat)[Seat.E]
    assert all(not _overlap(jos.chip, rect) for _, rect in layout.target_rects(view))


@pytest.mark.parametrize("family", list(PANELS))
def test_the_question_is_set_at_the_readable_size(family: str, renderer: Renderer) -> None:
    layout = layout_for(PANELS[family].size)
    for lang in LANGUAGES:
        prompt = sample("choose_seat", lang).prompt
        fitted = renderer.fit_text(prompt, layout.fonts.bar, renderer.prompt_box(layout))
        assert fitted.fits and fitted.size == layout.fonts.bar, (family, lang, fitted)
