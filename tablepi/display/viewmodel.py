"""From the table's state to a View: the one place that knows both.

:func:`build_view` is pure: the same :class:`~tablepi.table.state.TableState` and settings always give an
equal View, so the display redraws only when something players can see has changed. It decides which screen
is up, what each seat shows, the one prompt, the warning banner, and which buttons make sense now.

Screens by table phase:

- ``TRUMPS``, ``HAND_SCAN``, ``PLAY`` — the deal screen;
- ``DEAL_OVER`` while the last trick still lies on the zones — the deal screen with the deal's points and result;
- ``DEAL_OVER`` once swept (prompt ``next_deal``) — the slate, until the next forehand names trumps;
- ``MATCH_OVER`` — the match-won screen;
- no state yet (readers starting) — the idle screen.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Protocol

from tablepi.display import texts as tx
from tablepi.display.i18n import Translator, translator
from tablepi.display.panels import Enrolling
from tablepi.display.scene import ConsoleScene, Note, Scene
from tablepi.display.texts import result_text
from tablepi.display.view import (
    Action,
    Button,
    CardView,
    HeaderEnd,
    LearnerView,
    ScreenKind,
    SeatView,
    SlateRow,
    SlateView,
    TeamScore,
    TrumpView,
    View,
    WarningBanner,
    trump_order,
)
from tablepi.errors import RulesCode
from tablepi.notices import Notice, NoticeCode
from tablepi.rules.cards import DECK, Card
from tablepi.rules.deal import Announcement
from tablepi.rules.house import RevokePenalty
from tablepi.rules.seats import Seat, Team
from tablepi.table.events import ReaderState
from tablepi.table.state import PromptCode, TablePhase, TableState, Zone, ZoneCardStatus
from tablepi.table.warnings import TableWarning, WarningCode

if TYPE_CHECKING:
    from tablepi.analysis.review import DealReview


class ViewSettings(Protocol):
    """What the view model needs from the configuration (``config.DisplayConfig`` and ``DisplaySettings``)."""

    @property
    def language(self) -> str: ...
    @property
    def bottom_seat(self) -> Seat: ...
    @property
    def scorer_team(self) -> Team: ...
    @property
    def learner(self) -> bool: ...
    @property
    def names(self) -> Mapping[Seat, str]: ...


def build_view(scene: Scene) -> View:
    """The View of ``scene`` in the configured language and orientation: the one place that decides what is shown.

    The review of the last deal (the app computes it off the table's path) is on the slate always in learner mode,
    otherwise while ``review_open`` (the Review touch). The journal's notices (a recovery after damage, a storage
    fault) take the warning bar whenever no game warning needs it; then the director's announcement while it
    stands, else the tournament's seating until the match's first trumps are named; then the console's line. The
    open panel's sheet lies over the table; without one, the header is the labelled Menu button.
    """
    state, settings = scene.state, scene.settings
    tr = translator(settings.language)
    if state is not None and state.names:
        settings = _Seated.over(settings, dict(state.names))  # names seated at the table
    if state is None:
        view = View(ScreenKind.IDLE, bottom_seat=settings.bottom_seat, title=tx.idle_title(tr),
                    prompt=tx.prompt_text(tr, "wait_readers"))
    else:
        review = scene.review if scene.review is not None and _reviews_last_deal(state, scene.review) else None
        if state.phase is TablePhase.MATCH_OVER:
            view = _with_review(_match_won(state, settings, tr), review, scene.review_open, settings, tr)
        elif state.phase is TablePhase.DEAL_OVER and state.prompt.code is PromptCode.NEXT_DEAL:
            view = _with_review(_slate_screen(state, settings, tr), review, scene.review_open, settings, tr)
        else:
            view = _deal_screen(state, settings, tr)
    if view.warning is None and scene.notices:
        view = replace(view, warning=notice_banner(tr, scene.notices))
    if view.warning is None and state is not None:
        view = replace(view, warning=_tournament_banner(scene, state, tr))
    if scene.phone is not None and view.slate is not None and view.kind in (ScreenKind.SLATE, ScreenKind.MATCH_WON):
        view = replace(view, slate=replace(view.slate, phone=scene.phone))
    if scene.console is not None:
        view = _with_console(view, scene.console, state, settings, tr)
    return view


def _tournament_banner(scene: Scene, state: TableState, tr: Translator) -> WarningBanner | None:
    """The director's announcement while it stands, else the round's seating until the first trumps are named."""
    if scene.announcement is not None and scene.time < scene.announcement.until:
        return WarningBanner("announcement", tx.announcement_text(tr, scene.announcement.text))
    seating = scene.seating
    if seating is not None and state.deal.trump is None and not state.match.slate:
        if seating.played:
            return WarningBanner("seating", tx.round_played_text(tr, seating.round, seating.table))
        return WarningBanner("seating", tx.seating_text(tr, seating.round, seating.table, seating.names))
    return None


def _note_text(note: Note, tr: Translator) -> str:
    """The console's note in the screen's language."""
    if note.refused is not None:
        return tx.correction_refused_text(tr, note.refused)
    if note.aside is not None:
        return tx.correction_aside_text(tr, note.aside)
    return " ".join(tx.seated_text(tr, name, seat) for seat, name in note.seated)


def _with_console(view: View, console: ConsoleScene, state: TableState | None, settings: ViewSettings,
                  tr: Translator) -> View:
    """The open panel's sheet over the table (the enrol mode's sheet over everything), the console's line in a
    free bar, or without a panel the header's labelled Menu button."""
    from tablepi.display.sheet import sheet_for

    panel = console.panel
    if isinstance(panel, Enrolling):  # the enrol mode: the reader's cards are the enrolment's, not the game's
        return replace(view, sheet=sheet_for(panel, tr))
    if view.warning is None and console.note is not None:
        view = replace(view, warning=WarningBanner("note", _note_text(console.note, tr)))
    elif view.warning is None and console.no_deck:
        view = replace(view, warning=WarningBanner("no_deck", tx.no_deck_text(tr)))
    if panel is None:
        return replace(view, header=replace(view.header, menu=tr.gettext("Menu")))
    names = dict(settings.names)  # the configured names and those seated at the table
    history = history_lines(state, tr, names) if state is not None else ()
    return replace(view, sheet=sheet_for(panel, tr, names, history))


def history_lines(state: TableState, tr: Translator, names: Mapping[Seat, str]) -> tuple[str, ...]:
    """Each deal of the evening as one line: number, who named trumps, the result, the stake, by hand or not."""
    rows = state.history
    several = len({row.match for row in rows}) > 1
    lines = []
    for row in rows:
        entry = row.entry
        who = tx.seat_name(tr, row.trumps, names) if row.trumps is not None else \
            tx.team_label(tr, entry.result.trump_team, names)
        result = result_text(tr, entry, names).split("\n")[0]
        prefix = f"{row.match}." if several else ""
        lines.append(prefix + tx.history_line(tr, entry.number, who, result, entry.stake, by_hand=row.by_hand,
                                              corrected=row.corrected))
    return tuple(lines)


def notice_banner(tr: Translator, notices: Sequence[Notice]) -> WarningBanner:
    """The most urgent notice as a banner: a storage fault before a recovery report."""
    notice = sorted(notices, key=lambda n: n.code is not NoticeCode.STORAGE_FAULT)[0]
    code = notice.code.value
    if notice.code is NoticeCode.JOURNAL_RECOVERED and notice.param("complete"):
        code = "journal_repaired"
    elif notice.code is NoticeCode.STORAGE_FAULT and not notice.param("unsaved"):
        code = "storage_degraded"
    return WarningBanner(code, tx.notice_text(tr, code, dict(notice.params)))


# ---- the review of the last deal ------------------------------------------------------------------------------


def _reviews_last_deal(state: TableState, review: DealReview) -> bool:
    """A review belongs on screen only while its deal is the last one scored (not after the next deal began)."""
    slate = state.match.slate
    return bool(slate) and slate[-1].number == review.number and state.deal.trump is review.trump


def review_lines(tr: Translator, review: DealReview, names: Mapping[Seat, str] | None = None) -> tuple[str, ...]:
    """One or two lines on the last deal: the card that cost most on what its player could know (single-dummy, in
    lines, then points) and what was better; then the points with best play. A card no other card beat on what
    its player could know is never named. A review without single-dummy judgement names the first play that
    changed the result with all hands known, else the costliest."""
    names = names or {}
    if not review.known:
        return (tx.review_unknown_text(tr, len(review.unknown)),)
    lines: list[str] = []
    judged = review.sd_summary() is not None
    play = review.sd_highlight() if judged else review.highlight()
    if play is None:
        lines.append(tx.review_clean_text(tr))
    elif play.sd is not None:
        sd = play.sd
        better = sd.best_cards[0] if sd.best_cards else None
        mine = sd.cards.get(play.card)
        top = sd.cards[better] if better is not None else None
        wins = top.wins if top is not None and (mine is None or top.wins > mine.wins) else None
        lines.append(tx.review_sd_text(tr, play.trick, tx.seat_name(tr, play.seat, names), play.card, sd.cost_lines,
                                       sd.cost_points, better, wins, sd.layouts))
    else:
        effect = play.effects[0].value if play.effects else ""
        lines.append(tx.review_mistake_text(tr, play.trick, tx.seat_name(tr, play.seat, names), play.card,
                                            play.cost, play.best_cards, effect))
    if review.best is not None:
        lines.append(tx.review_best_text(tr, {tx.team_label(tr, t, names): review.best[t] for t in Team}))
    return tuple(lines)


def _with_review(view: View, review: DealReview | None, review_open: bool, settings: ViewSettings,
                 tr: Translator) -> View:
    """The slate with the review lines when they are to be shown, and the Review touch live when it can toggle."""
    if view.slate is None:
        return view
    shown = review is not None and (settings.learner or review_open)
    slate = replace(view.slate, review=review_lines(tr, review, settings.names)) if shown and review else view.slate
    buttons = tuple(
        replace(b, enabled=review is not None and not settings.learner) if b.action is Action.REVIEW else b
        for b in view.buttons
    )
    return replace(view, slate=slate, buttons=buttons)


# ---- the deal screen ------------------------------------------------------------------------------------------


def _deal_screen(state: TableState, settings: ViewSettings, tr: Translator) -> View:
    names = settings.names
    over = state.phase is TablePhase.DEAL_OVER
    entry = state.match.slate[-1] if over and state.match.slate else None
    trump_team = entry.result.trump_team if entry is not None else state.deal.forehand.team
    points = entry.result.points if entry is not None else None
    won = dict(state.deal.tricks_won)
    teams = tuple(
        TeamScore(team, tx.team_label(tr, team, names), won.get(team, 0),
                  None if points is None else points[team], team is trump_team)
        for team in Team
    )
    banner = _banner(state, tr, names)
    return View(
        ScreenKind.DEAL,
        bottom_seat=settings.bottom_seat,
        seats=tuple(_seat(state, seat, tr, names) for seat in Seat),
        trump=TrumpView(state.deal.trump, tx.trumps_label(tr)),
        header=HeaderEnd(_trick_label(state, tr)),
        teams=teams,
        result="" if entry is None else result_text(tr, entry, names),
        learner=_learner(state, tr, names) if settings.learner and state.phase is TablePhase.PLAY else None,
        warning=banner,
        prompt=_prompt(state, tr, names),
        buttons=_buttons(state, tr),
    )


def _trick_label(state: TableState, tr: Translator) -> str:
    if state.deal.trump is None or state.phase is TablePhase.HAND_SCAN:
        return ""
    if state.phase is TablePhase.DEAL_OVER:
        number = len(state.deal.tricks)
    elif _complete_trick_lies(state):
        number = state.deal.tricks[-1].number  # the cards on the table are this trick's, not the next one's
    else:
        number = max(1, state.deal.trick_number)
    return tx.trick_label(tr, number) if number else ""


def _complete_trick_lies(state: TableState) -> bool:
    """Whether the last trick is complete and some of its cards still lie on their zones (not swept yet)."""
    if not state.deal.tricks:
        return False
    last = state.deal.tricks[-1]
    if len(last.plays) < 4:
        return False
    return any(
        zc.card == card and zc.status is ZoneCardStatus.PLAYED
        for seat, card in last.plays
        for zc in state.zone(seat).cards
    )


def _seat(state: TableState, seat: Seat, tr: Translator, names: Mapping[Seat, str]) -> SeatView:
    prompt = state.prompt
    warned = any(w.seat is seat for w in state.warnings)
    return tx.seat_view(
        tr, seat, names,
        dealer=seat is state.deal.dealer,
        forehand=seat is state.deal.forehand,
        to_play=prompt.seat is seat and prompt.code is not PromptCode.NEXT_DEAL,
        highlighted=warned,
        card=_zone_card(state, state.zone(seat), warned),
        announcement=_announced(state, seat, tr),
        reader_off=tx.reader_off_label(tr) if state.zone(seat).reader in _READER_DOWN else "",
        scanned=dict(state.deal.scanned).get(seat, 0) if state.phase is TablePhase.HAND_SCAN else None,
        targets=_targets(state, seat, tr),
    )


#: Reader states in which the zone senses nothing: drawn as such, whatever warning the bar shows.
_READER_DOWN = frozenset({ReaderState.OFFLINE, ReaderState.FAULT})


def _zone_card(state: TableState, zone: Zone, warned: bool) -> CardView | None:
    """What to draw on a seat's zone: the card lying there, marked as it stands with the table.

    A stray card (out of turn, already played...) is drawn red so its owner sees which one to lift, and so is a
    tag that is no card of the deck (as a ``?``); a card just placed is drawn dashed until it counts as played;
    the card that took a complete trick is framed green.
    """
    if not zone.cards:
        return _by_hand(state, zone.seat)
    stray = [zc for zc in zone.cards if zc.status is ZoneCardStatus.STRAY or zc.card is None]
    zc = stray[-1] if stray else zone.cards[-1]
    card = zc.card
    if card is None or zc.status is ZoneCardStatus.STRAY:
        return CardView(card, illegal=True)  # an unknown tag (card None) is drawn as a red "?"
    if zc.status in (ZoneCardStatus.TENTATIVE, ZoneCardStatus.SHOWN):
        tentative_warning = any(w.tentative and w.seat is zone.seat for w in state.warnings)
        return CardView(card, tentative=True, illegal=tentative_warning)
    last = state.deal.tricks[-1] if state.deal.tricks else None
    winning = (last is not None and last.winner is zone.seat and last.card_of(zone.seat) == card)
    return CardView(card, winning=winning, illegal=warned and _revoked(state, zone.seat, card))


def _by_hand(state: TableState, seat: Seat) -> CardView | None:
    """The seat's card entered by hand in the trick on the table: nothing lies on the zone, so it is drawn from the
    trick, marked as entered by hand (until the next trick begins, or the last one is swept)."""
    if not state.deal.tricks:
        return None
    last = state.deal.tricks[-1]
    card = last.card_of(seat)
    if card is None or seat not in last.by_hand:
        return None
    # Drawn while its trick lies on the table: once the other cards are swept it goes with them.
    on_table = last.winner is None or _complete_trick_lies(state)
    if not on_table:
        return None
    return CardView(card, winning=last.winner is seat, by_hand=True)


@dataclass(frozen=True)
class _Seated:
    """The display settings with the names seated at the table over the configured ones."""

    language: str
    bottom_seat: Seat
    scorer_team: Team
    learner: bool
    names: Mapping[Seat, str]

    @classmethod
    def over(cls, settings: ViewSettings, names: Mapping[Seat, str]) -> _Seated:
        return cls(settings.language, settings.bottom_seat, settings.scorer_team, settings.learner,
                   {**dict(settings.names), **dict(names)})


def _revoked(state: TableState, seat: Seat, card: Card) -> bool:
    return any(w.seat is seat and w.card == card for w in state.warnings)


def _announced(state: TableState, seat: Seat, tr: Translator) -> str:
    parts: set[str] = set()
    for who, announcement in state.deal.announcements:
        if who is seat:
            parts |= announcement.parts
    return tx.announcement_name(tr, "matt" in parts, "konter" in parts)


def _learner(state: TableState, tr: Translator, names: Mapping[Seat, str]) -> LearnerView:
    played = {card for trick in state.deal.tricks for _, card in trick.plays}
    points = dict(state.deal.points)
    out = tuple(c for c in trump_order(state.deal.trump) if c not in played) if state.deal.trump is not None else ()
    return LearnerView(
        points_label=tx.points_label(tr, {tx.team_label(tr, t, names): points.get(t, 0) for t in Team}),
        trumps_out_label=tx.trumps_out_label(tr),
        trumps_out=out,
        in_play_label=tx.in_play_label(tr, len(DECK) - len(played)),
    )


# ---- warnings, prompts, buttons -------------------------------------------------------------------------------


def _banner(state: TableState, tr: Translator, names: Mapping[Seat, str]) -> WarningBanner | None:
    """The newest warning still standing (the others keep their seats highlighted)."""
    if not state.warnings:
        return None
    warning = state.warnings[-1]
    text = warning_sentence(tr, warning, names)
    if warning.code is WarningCode.READER_OFFLINE and all(zone.reader in _READER_DOWN for zone in state.zones):
        text = tx.warning_text(tr, "all_readers_offline", {}, text)
    return WarningBanner(warning.code.value, text, warning.seat)


def warning_sentence(tr: Translator, warning: TableWarning, names: Mapping[Seat, str] | None = None) -> str:
    """A table warning as a sentence in the translator's language (English from the table if need be).

    Parameters are the warning's values; only here do they become words (an announcement its name, the cards
    held a list). Rule numbers stay in the log and the records, not in the sentence players read.
    """
    params: dict[str, object] = {"seat": warning.seat, "trick": warning.trick}
    for key, value in warning.params().items():
        if isinstance(value, Announcement):
            params[key] = tx.announcement_name(tr, "matt" in value.parts, "konter" in value.parts)
        elif key == "held":
            params[key] = " ".join(card.display for card in warning.fault.held)
        else:
            params[key] = value
    code = warning.code.value
    if warning.code is WarningCode.REVOKE and warning.fault.penalty is RevokePenalty.LOSE_DEAL:
        code = "revoke_lose_deal"  # the house rule ends the deal: "press Confirm to play on" would be wrong
    elif warning.code is WarningCode.CLAIM_REFUSED and warning.refusal is RulesCode.CLAIMS_OFF:
        code = "claims_off"
    return tx.warning_text(tr, code, params, warning.message, names)


def _prompt(state: TableState, tr: Translator, names: Mapping[Seat, str]) -> str:
    prompt = state.prompt
    seat = prompt.seat
    code = prompt.code.value
    if prompt.code is PromptCode.PLAY and seat is not None:
        if state.possible.announcements_of(seat):
            code = "announce_or_lead" if prompt.lead else "announce_or_play"
        elif prompt.lead:
            code = "lead"
    elif prompt.code is PromptCode.SWEEP and seat is None:
        code = "sweep_deal"
    elif code not in tx.PROMPT_TEMPLATES:
        return ""  # a newer table's prompt: no sentence rather than a wrong one
    if seat is not None and seat in state.possible.by_hand and state.zone(seat).reader in _READER_DOWN:
        # his reader senses nothing: he cannot lay a card, he touches his card place (docs/by-hand.md)
        if prompt.code is PromptCode.PLAY:
            code = "play_by_hand"
        elif prompt.code is PromptCode.NAME_TRUMPS:
            code = "trumps_by_hand"
    card: Card | str | None = prompt.card if prompt.card is not None else (prompt.uid or None)
    return tx.prompt_text(tr, code, seat, names, card=card)


def _live_actions(state: TableState) -> set[Action]:
    """The panel's buttons that do something now: the live buttons the table publishes that need no seat.

    A seatless announce asks whose it is (the per-seat targets answer); Confirm acknowledges the warnings on
    screen, and during the hand scan means "play on with what was scanned" (a sticker that will not read must not
    hold up the table: docs/table.md).
    """
    return {target.name for target in state.possible.buttons if target.seat is None}


def _buttons(state: TableState, tr: Translator, actions: tuple[Action, ...] = tx.DEAL_ACTIONS) -> tuple[
        Button, ...]:
    """Every button of the screen, each enabled only while it does something (fixed slots: never left out)."""
    return tx.fixed_buttons(tr, actions, _live_actions(state))


def _targets(state: TableState, seat: Seat, tr: Translator) -> tuple[Button, ...]:
    """While the table asks whose a seatless touch is ("Who announces? Touch your name"), the answer for ``seat``
    if it may make it: its own name and card place (Layout.target_rects). Nothing else is drawn at the seats: a
    row of small announce targets there once took a touch for the neighbour's seat."""
    asked = state.prompt.button if state.prompt.code is PromptCode.CHOOSE_SEAT else None
    if asked is None or seat not in state.possible.seats_for(asked):
        return ()
    return (tx.button(tr, asked, seat=seat),)


# ---- the slate ------------------------------------------------------------------------------------------------


def _slate(state: TableState, settings: ViewSettings, tr: Translator) -> SlateView:
    names = settings.names
    lines = dict(state.match.lines)
    rows = {}
    for team in Team:
        row_lines = lines.get(team, ())
        row = SlateRow(team, tx.team_label(tr, team, names), row_lines)
        rows[team] = SlateRow(team, row.label, row_lines, tx.open_lines_label(tr, row.open_count))
    bottom = settings.scorer_team
    last = state.match.slate[-1] if state.match.slate else None
    return SlateView(
        tx.slate_title(tr), top=rows[bottom.other], bottom=rows[bottom],
        last_result="" if last is None else result_text(tr, last, names),
        winner=state.match.winner,
    )


def _slate_screen(state: TableState, settings: ViewSettings, tr: Translator) -> View:
    slate = replace(_slate(state, settings, tr), next_trumps=tx.next_trumps_text(
        tr, tx.seat_name(tr, state.deal.next_forehand, settings.names)))
    seat = state.deal.next_forehand
    hand = seat in state.possible.by_hand and state.zone(seat).reader in _READER_DOWN
    prompt = tx.prompt_text(tr, "trumps_by_hand_here", seat, settings.names) if hand else \
        _prompt(state, tr, settings.names)
    return View(
        ScreenKind.SLATE, bottom_seat=settings.bottom_seat, slate=slate,
        warning=_banner(state, tr, settings.names), prompt=prompt,
        buttons=_buttons(state, tr, tx.SLATE_ACTIONS), hand_seat=seat if hand else None,
    )


def _match_won(state: TableState, settings: ViewSettings, tr: Translator) -> View:
    winner = state.match.winner
    title = tx.match_won_text(tr, tx.team_label(tr, winner, settings.names)) if winner else tx.slate_title(tr)
    buttons = tx.fixed_buttons(tr, tx.MATCH_WON_ACTIONS, _live_actions(state))
    return View(
        ScreenKind.MATCH_WON, bottom_seat=settings.bottom_seat, title=title, slate=_slate(state, settings, tr),
        warning=_banner(state, tr, settings.names), prompt=_prompt(state, tr, settings.names), buttons=buttons,
    )
