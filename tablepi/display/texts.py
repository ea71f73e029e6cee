"""Every sentence the screen shows, built from codes and parameters in the chosen language.

The table reports warnings and expected gestures as a *code* plus parameters (seat, card, trick, rule). This
module turns them into a plain sentence through one template per code, translated by the gettext catalogs.
Templates use the warning's values by name (``{seat}``, ``{card}``, ``{trick}``, ``{led}``, ``{held}``,
``{holder}``, ``{announcement}``...), never a rule number: those belong in the log and the records. A warning whose
code is unknown here (a newer table) or whose parameters do not fit is shown with the English sentence the table
sent, so a warning is never lost for want of a translation.
"""

from __future__ import annotations

import string
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from tablepi.display.i18n import N_, Translator
from tablepi.display.view import Action, Button, CardView, SeatView
from tablepi.rules.cards import Card
from tablepi.rules.deal import TRICKS_PER_DEAL, WINNING_POINTS
from tablepi.rules.seats import Seat, Team

if TYPE_CHECKING:
    from tablepi.rules.slate import SlateEntry

#: Warning code -> English template (the message id). Fields: seat, card, trick, rule, the rules' numbers
#: (:data:`RULE_FIELDS`), and where the table sends them expected (the seat to play), holder (who showed a card) and
#: announcement. Each sentence says what went wrong and, unless the gesture is obvious, what the table does next
#: (take it away, press Confirm).
WARNING_TEMPLATES: dict[str, str] = {
    "out_of_turn": N_("{seat}: not your turn. Take {card} back."),
    "unknown_tag": N_("Unknown card on {seat}'s zone: its tag is not in this deck. Take it away."),
    "card_already_played": N_("{card} was already played in this deal. Take it off {seat}'s zone."),
    "two_cards_on_zone": N_("Two cards on {seat}'s zone. Leave only one."),
    "lifted_early": N_("{seat} lifted {card} before the trick was complete. Lay it back."),
    "announcement_without_cards": N_("{seat} announced without the queens: it does not count. Press Confirm."),
    "announcement_too_late": N_("{seat}: {announcement} comes too late, only before your first card."),
    "false_announcement": N_("{seat}'s {announcement} does not count: {card} is {holder}'s. Press Confirm."),
    "queen_shown_by_other_seat": N_("{seat} has {card}, but another player showed it. Check, then press Confirm."),
    "card_in_two_hands": N_("{seat} has {card}, but another player holds it. Check, then press Confirm."),
    "too_many_cards": N_("{seat} scanned more than six cards. Check the hand, then press Confirm."),
    "revoke": N_("{seat} revoked in trick {trick}: {card} on {led} while holding {held}. Press Confirm to play on."),
    "illegal_play": N_("{seat} may not play {card} now. Take it back."),
    "claim_refused": N_("No claim yet: a team needs {points} points."),
    "not_now": N_("That button does nothing now."),
    "reader_offline": N_("{seat}: card reader off. Touch your card place to play by hand."),
    "crosstalk": N_("The reader at {seat} hears other zones' cards. Owner: space the antennas or lower the gain."),
    "hand_refused": N_("That cannot be entered now. Undo, or enter it again."),
}

#: The rules' numbers a warning may name, from the rules themselves (never written into a sentence): ``points``,
#: what a team needs to win a deal (RULES.md 19).
RULE_FIELDS: Mapping[str, object] = {"points": WINNING_POINTS}

#: Variants the view model picks from a warning and the state (not table codes of their own): a revoke under
#: house rule ``revoke_penalty = "lose_deal"`` ends the deal, so "press Confirm to play on" would be wrong.
WARNING_VARIANTS: dict[str, str] = {
    "revoke_lose_deal": N_("{seat} revoked in trick {trick}: {card} on {led} while holding {held}. The deal is lost."),
    # A claim refused because the house rules switch claims off: "a team needs {points} points" would be wrong.
    "claims_off": N_("Claims are switched off at this table."),
    # Every zone offline at once (one Pico for all four, its cable out): naming only the newest seat misleads.
    "all_readers_offline": N_("The card readers are not answering. Check their cable."),
}

#: Notices about the table itself (tablepi.notices), shown in the warning bar when no game warning needs it.
#: Fields: events (how many were recovered), unsaved (moves held only in memory), name (a name as kept), seat.
NOTICE_TEMPLATES: dict[str, str] = {
    "journal_recovered": N_("Recovered after damage: {events} events; the last few seconds may be missing."),
    "journal_repaired": N_("The journal was damaged and repaired: all {events} events are kept."),
    "storage_fault": N_("Storage full or failing: {unsaved} moves not saved yet. Play on; they are saved once it "
                        "works again."),
    "storage_degraded": N_("Storage failing: moves are saved in one copy only. Tell the owner."),
    "gesture_refused": N_("That could not be saved, so the table did not take it. Tell the owner."),
    "name_cut": N_("Name too long: kept as {name}."),
    "name_refused": N_("A name is one line: the name for {seat} was not taken. Type it again."),
}

#: Prompt code -> English template: the gesture the table expects now. Fields: seat, card.
#: The table's codes (name_trumps, scan_hand, play, sweep, lift_card, put_back, next_deal, match_over) are
#: refined by the view model into lead / announce_or_lead / announce_or_play where that helps.
PROMPT_TEMPLATES: dict[str, str] = {
    "start": N_("Lay any card on a zone to start a match"),
    "deal": N_("{seat} deals: three cards each, then three more"),
    "name_trumps": N_("{seat}: show a card of the suit you choose as trumps"),
    "scan_hand": N_("{seat}: tap your six cards one by one"),
    "announce_or_lead": N_("{seat}: show your queens to announce, or lead a card"),
    "announce_or_play": N_("{seat}: show your queens to announce, or lay a card"),
    "lead": N_("{seat}: lead a card"),
    "play": N_("{seat}: lay a card"),
    "play_by_hand": N_("{seat}: touch your card place to enter your card"),
    "trumps_by_hand": N_("{seat}: touch your card place to name trumps"),
    "trumps_by_hand_here": N_("{seat}: touch here to name trumps"),
    "sweep": N_("Sweep the trick off ({seat} won)"),
    "sweep_deal": N_("Sweep the last trick off"),
    "lift_card": N_("{seat}: lift {card} off your zone"),
    "choose_seat": N_("Who announces? Touch your name"),
    "put_back": N_("{seat}: put {card} back on your zone"),
    "confirm_claim": N_("Confirm the claim"),
    "deal_over": N_("Deal over: touch Confirm to score it"),
    "next_deal": N_("Next deal: {seat} deals"),
    "new_match": N_("Touch New match to play again"),
    "match_over": N_("New match, or Revanche with the same teams"),
    "wait_readers": N_("Waiting for the card readers"),
}

def template_fields(template: str) -> frozenset[str]:
    """The ``{named}`` fields a template uses (tests check every translation keeps the same ones)."""
    return frozenset(name for _, name, _, _ in string.Formatter().parse(template) if name)


def seat_letter(tr: Translator, seat: Seat) -> str:
    """The seat's compass letter as players of this language say it (E is O in German and Luxembourgish)."""
    letters = {
        Seat.N: tr.pgettext("seat", "N"),
        Seat.E: tr.pgettext("seat", "E"),
        Seat.S: tr.pgettext("seat", "S"),
        Seat.W: tr.pgettext("seat", "W"),
    }
    return letters[seat]


def seat_name(tr: Translator, seat: Seat, names: Mapping[Seat, str]) -> str:
    """The player's name if the table knows it, else the seat's compass letter."""
    name = names.get(seat, "").strip()
    return name or seat_letter(tr, seat)


def team_label(tr: Translator, team: Team, names: Mapping[Seat, str]) -> str:
    """``N+S`` or ``Anna+Jos``."""
    first, second = team.seats
    return f"{seat_name(tr, first, names)}+{seat_name(tr, second, names)}"


def format_params(
    tr: Translator, params: Mapping[str, object], names: Mapping[Seat, str]
) -> dict[str, str]:
    """Parameters as they read in a sentence: seats by name, cards as ♠Q, numbers as digits."""
    out: dict[str, str] = {}
    for key, value in params.items():
        if value is None or value == "":
            continue  # missing: a template that needs it falls back (warnings) or fails clearly (prompts)
        if isinstance(value, Seat):
            out[key] = seat_name(tr, value, names)
        elif isinstance(value, Card):
            out[key] = value.display
        else:
            out[key] = str(value)
    return out


def _fill(tr: Translator, template: str, params: Mapping[str, object], names: Mapping[Seat, str]) -> str | None:
    translated = tr.gettext(template)
    try:
        return translated.format(**format_params(tr, params, names))
    except (KeyError, IndexError, ValueError):
        return None


def warning_text(
    tr: Translator,
    code: str,
    params: Mapping[str, object],
    english: str,
    names: Mapping[Seat, str] | None = None,
) -> str:
    """The warning ``code`` as a sentence in the translator's language; ``english`` if it cannot be built."""
    template = WARNING_TEMPLATES.get(code) or WARNING_VARIANTS.get(code)
    if template is None:
        return english
    text = _fill(tr, template, {**RULE_FIELDS, **params}, names or {})
    return english if text is None else text


def notice_text(tr: Translator, code: str, params: Mapping[str, object]) -> str:
    """A notice (tablepi.notices, or one of its variants) as a sentence; the English template if need be."""
    template = NOTICE_TEMPLATES[code]
    text = _fill(tr, template, params, {})
    return template.format(**{k: str(v) for k, v in params.items()}) if text is None else text


def prompt_text(
    tr: Translator,
    code: str,
    seat: Seat | None = None,
    names: Mapping[Seat, str] | None = None,
    card: Card | str | None = None,
) -> str:
    """The gesture expected now, as a sentence. An unknown code or a missing field is a programming error."""
    try:
        template = PROMPT_TEMPLATES[code]
    except KeyError:
        raise KeyError(f"no prompt template for code {code!r}") from None
    text = _fill(tr, template, {"seat": seat, "card": card}, names or {})
    if text is None:
        needs = " and ".join(sorted(template_fields(template)))
        raise KeyError(f"prompt {code!r} needs {needs}")
    return text


def trumps_label(tr: Translator) -> str:
    """Trumps / Trumpf / Atout / Trëmp."""
    return tr.gettext("Trumps")


def trick_label(tr: Translator, number: int, total: int = TRICKS_PER_DEAL) -> str:
    """``Trick 3/6``."""
    return tr.gettext("Trick {n}/{total}").format(n=number, total=total)


def dealer_mark(tr: Translator) -> str:
    return tr.gettext("Dealer")


def forehand_mark(tr: Translator) -> str:
    return tr.gettext("Forehand")


def seat_view(
    tr: Translator,
    seat: Seat,
    names: Mapping[Seat, str] | None = None,
    *,
    dealer: bool = False,
    forehand: bool = False,
    to_play: bool = False,
    highlighted: bool = False,
    card: CardView | None = None,
    announcement: str = "",
    reader_off: str = "",
    scanned: int | None = None,
    targets: tuple[Button, ...] = (),
) -> SeatView:
    """A seat with its name and its dealer/forehand marks in the translator's language.

    ``scanned``: in hand-scan mode, how many of his six cards the seat has tapped (shown as ``3/6``).
    """
    marks = tuple(m for m, on in ((dealer_mark(tr), dealer), (forehand_mark(tr), forehand)) if on)
    if scanned is not None:
        marks += (f"{scanned}/6",)
    return SeatView(seat, seat_name(tr, seat, names or {}), dealer, forehand, to_play, highlighted, card, marks,
                    announcement, reader_off, targets)


def reader_off_label(tr: Translator) -> str:
    """Drawn inside a zone whose reader is offline or faulty: cards laid there are not seen."""
    return tr.gettext("reader off")


def slate_title(tr: Translator) -> str:
    """The slate: d'Lee in Luxembourgish."""
    return tr.gettext("Slate")


def open_lines_label(tr: Translator, n: int) -> str:
    return tr.ngettext("{n} open", "{n} open", n).format(n=n)


def lines_label(tr: Translator, n: int) -> str:
    return tr.ngettext("{n} line", "{n} lines", n).format(n=n)


def revoke_lost_text(tr: Translator, seat: str) -> str:
    """The deal was lost on a revoke (house rule ``revoke_penalty = "lose_deal"``)."""
    return tr.gettext("{seat} revoked: the deal is lost").format(seat=seat)


def claimed_text(tr: Translator, team: str) -> str:
    return tr.gettext("{team} claimed the deal").format(team=team)


def announcement_name(tr: Translator, matt: bool, konter: bool) -> str:
    """Matt / Konter / Konter a Matt: names of the game, the same words in every language."""
    if matt and konter:
        return tr.gettext("Konter a Matt")
    if konter:
        return tr.gettext("Konter")
    if matt:
        return tr.gettext("Matt")
    return ""


def stake_text(tr: Translator, *, matt: bool, konter: bool, kapo: bool, lines: int) -> str:
    """``Konter a Matt, Kapo: 4 lines``; a plain deal is ``Simple: 1 line``."""
    parts = [p for p in (announcement_name(tr, matt, konter), tr.gettext("Kapo") if kapo else "") if p]
    head = ", ".join(parts) if parts else tr.gettext("Simple")
    # A template, not an f-string: French puts a (no-break) space before the colon ("Simple : 1 trait").
    return tr.gettext("{stake}: {lines}").format(stake=head, lines=lines_label(tr, lines))


def next_trumps_text(tr: Translator, seat: str) -> str:
    """``Pit names trumps next``: on the slate between deals, the next forehand (RULES.md 22)."""
    return tr.gettext("{seat} names trumps next").format(seat=seat)


def deal_won_text(tr: Translator, team: str, points: int, other_points: int) -> str:
    """``N+S win the deal, 25 to 15``."""
    return tr.gettext("{team} win the deal, {points} to {other}").format(
        team=team, points=points, other=other_points
    )


def tie_text(tr: Translator) -> str:
    """A 20–20 deal: Stänner in Luxembourgish."""
    return tr.gettext("Tie, 20 to 20")


def lines_added_text(tr: Translator, team: str, n: int) -> str:
    return tr.ngettext("{n} line added to {team}", "{n} lines added to {team}", n).format(n=n, team=team)


def match_won_text(tr: Translator, team: str) -> str:
    return tr.gettext("{team} win the match!").format(team=team)


def points_label(tr: Translator, scores: Mapping[str, int]) -> str:
    """``Points: N+S 18 · E+W 7``."""
    body = " · ".join(f"{label} {points}" for label, points in scores.items())
    return tr.gettext("Points: {scores}").format(scores=body)


def trumps_out_label(tr: Translator) -> str:
    return tr.gettext("Trumps still out:")


def in_play_label(tr: Translator, n: int) -> str:
    return tr.ngettext("{n} card still in play", "{n} cards still in play", n).format(n=n)


def button(tr: Translator, action: Action, enabled: bool = True, seat: Seat | None = None) -> Button:
    """A touch button with its label in the translator's language (trump buttons show their symbol); ``seat``:
    the seat a per-seat target acts for."""
    suit = action.suit
    if suit is not None:
        return Button(action, suit.symbol, enabled, suit)
    labels = {
        Action.ANNOUNCE_MATT: tr.gettext("Matt"),
        Action.ANNOUNCE_KONTER: tr.gettext("Konter"),
        Action.ANNOUNCE_KONTER_A_MATT: tr.gettext("Konter a Matt"),
        Action.UNDO: tr.gettext("Undo"),
        Action.CONFIRM: tr.gettext("Confirm"),
        Action.CLAIM: tr.gettext("Claim"),
        Action.NEW_MATCH: tr.gettext("New match"),
        Action.REVANCHE: tr.gettext("Revanche"),
        Action.REVIEW: tr.gettext("Review"),
    }
    return Button(action, labels[action], enabled, seat=seat)


#: Every button of each screen, in slot order (tablepi.display.layout gives each its fixed place).
DEAL_ACTIONS: tuple[Action, ...] = (
    Action.TRUMP_SPADES, Action.TRUMP_HEARTS, Action.TRUMP_DIAMONDS, Action.TRUMP_CLUBS,
    Action.ANNOUNCE_MATT, Action.ANNOUNCE_KONTER, Action.ANNOUNCE_KONTER_A_MATT,
    Action.CLAIM, Action.CONFIRM, Action.UNDO,
)
SLATE_ACTIONS: tuple[Action, ...] = (Action.REVIEW, Action.CONFIRM, Action.UNDO)
MATCH_WON_ACTIONS: tuple[Action, ...] = (Action.NEW_MATCH, Action.REVANCHE, Action.REVIEW, Action.CONFIRM,
                                         Action.UNDO)


def fixed_buttons(tr: Translator, actions: tuple[Action, ...], live: set[Action] | frozenset[Action]) -> tuple[
        Button, ...]:
    """All ``actions`` of a screen, enabled where ``live``: a button that does nothing now is drawn disabled in
    its place, never left out (a finger must not find another button where it was)."""
    return tuple(button(tr, action, action in live) for action in actions)


def idle_title(tr: Translator) -> str:
    return tr.gettext("Konter a Matt")


def seating_text(tr: Translator, number: int, table: str, names: Sequence[tuple[Seat, str]]) -> str:
    """A tournament round's seating at this table: "Round 3 — table 7: N Anna, E Jos, S Marie, W Pit"."""
    seats = ", ".join(f"{seat_letter(tr, seat)} {name}" for seat, name in names)
    return tr.format("Round {round} — table {table}: {seats}", round=number, table=table, seats=seats)


def round_played_text(tr: Translator, number: int, table: str) -> str:
    """The same seating once the table's match of the round is begun: a match after it (a revanche, a new match
    while the next round is drawn) does not count for the round."""
    return tr.format("Round {round} — table {table}: the round's match is played; this match does not count",
                     round=number, table=table)


def announcement_text(tr: Translator, text: str) -> str:
    """The tournament director's announcement to every table."""
    return tr.format("Announcement: {text}", text=text)


# ---- the review of the last deal (tablepi.analysis) -----------------------------------------------------------

#: The second half of a review's first line, by what the better card would have kept (Effect values; "" = points).
REVIEW_BETTER = {
    "lost_deal": N_("{better} kept the deal"),
    "win_to_tie": N_("{better} kept the win"),
    "missed_kapo": N_("{better} kept the Kapo"),
    "allowed_kapo": N_("{better} stopped the Kapo"),
    "": N_("{better} was best"),
}


def review_mistake_text(tr: Translator, trick: int, seat: str, card: Card, cost: int, better: tuple[Card, ...],
                        effect: str) -> str:
    """``Trick 3: Jos ♥J cost 7 points; ♠K kept the deal`` (the first best card named, the others implied)."""
    head = tr.ngettext("Trick {trick}: {seat} {card} cost {n} point", "Trick {trick}: {seat} {card} cost {n} points",
                       cost).format(trick=trick, seat=seat, card=card.display, n=cost)
    if not better:
        return head
    tail = tr.gettext(REVIEW_BETTER.get(effect, REVIEW_BETTER[""])).format(better=better[0].display)
    return tr.gettext("{head}; {tail}").format(head=head, tail=tail)


def decimal_text(tr: Translator, value: float) -> str:
    """A number with one decimal, with the language's decimal separator (``0.6``, ``0,6``)."""
    return f"{value:.1f}".replace(".", tr.pgettext("decimal separator", "."))


def review_sd_text(tr: Translator, trick: int, seat: str, card: Card, cost_lines: float, cost_points: float,
                   better: Card | None, wins: int | None, layouts: int) -> str:
    """The single-dummy line: ``Trick 4: ♥K cost Jos 0.6 lines — ♠A wins in 14 of 20 layouts``. ``wins``: the
    layouts the better card wins (None when it does not win more often: then only that it was best). A card that
    lost no lines but points says points."""
    if cost_lines > 0:
        count = 1 if round(cost_lines, 1) == 1.0 else 2
        head = tr.ngettext("Trick {trick}: {card} cost {seat} {n} line", "Trick {trick}: {card} cost {seat} {n} lines",
                           count).format(trick=trick, card=card.display, seat=seat, n=decimal_text(tr, cost_lines))
    else:
        count = 1 if round(cost_points, 1) == 1.0 else 2
        head = tr.ngettext("Trick {trick}: {card} cost {seat} {n} point",
                           "Trick {trick}: {card} cost {seat} {n} points",
                           count).format(trick=trick, card=card.display, seat=seat, n=decimal_text(tr, cost_points))
    if better is None:
        return head
    if wins is None:
        tail = tr.gettext(REVIEW_BETTER[""]).format(better=better.display)
    else:
        tail = tr.ngettext("{better} wins in {k} of {n} layout", "{better} wins in {k} of {n} layouts",
                           layouts).format(better=better.display, k=wins, n=layouts)
    return tr.gettext("{head} — {tail}").format(head=head, tail=tail)


def review_best_text(tr: Translator, scores: Mapping[str, int]) -> str:
    """``Best play: N+S 26 · E+W 14``."""
    body = " · ".join(f"{label} {points}" for label, points in scores.items())
    return tr.gettext("Best play: {scores}").format(scores=body)


def review_clean_text(tr: Translator) -> str:
    return tr.gettext("Every card was a best card")


def review_unknown_text(tr: Translator, n: int) -> str:
    """A claimed deal without hand scan: who held the unseen cards decides everything."""
    return tr.ngettext("No review: {n} card was not seen", "No review: {n} cards were not seen", n).format(n=n)


def history_line(tr: Translator, number: int, trumps: str, result: str, stake: int, *, by_hand: bool = False,
                 corrected: bool = False) -> str:
    """One deal of the evening: ``3. Anna (trumps): E+W 25-15, 2 lines, by hand``."""
    line = tr.gettext("{number}. {seat} (trumps): {result}, {lines}").format(
        number=number, seat=trumps, result=result, lines=lines_label(tr, stake))
    marks = [m for m, on in ((tr.gettext("by hand"), by_hand), (tr.gettext("corrected"), corrected)) if on]
    return ", ".join([line, *marks])


#: The enrol mode's messages on the screen, by tablepi.enroll.MESSAGES key (same fields; the service's log and
#: ``tablepi enroll`` say them in English).
ENROL_TEXTS: Mapping[str, str] = {
    "ask": N_("Lay {card} on any zone ({n}/{total})."),
    "ok": N_("{card} enrolled."),
    "other_deck": N_("This tag is already {other} of deck '{deck}'. Lay {card}."),
    "already": N_("This tag is already enrolled as {other}. Lay {card}."),
    "undo": N_("Took back {other}."),
    "zone": N_("Zone {zone}: {detail}."),
    "done": N_("Deck '{deck}' complete: {total} cards saved."),
    "player_tag": N_("This tag is {player}'s player tag, not a card. Lay {card}."),
    "player_ask": N_("Lay {player}'s player tag on any zone."),
    "player_card": N_("This tag is {other} of deck '{deck}', not a player tag. Lay {player}'s tag."),
    "player_was": N_("This tag was {other}'s; it is {player}'s now."),
    "player_done": N_("Player tag of {player} saved."),
}


def enrol_line(tr: Translator, key: str, fields: Mapping[str, str]) -> str:
    """One thing the enrol mode says, in the screen's language (an unknown key: nothing)."""
    template = ENROL_TEXTS.get(key)
    if template is None:
        return ""
    try:
        return tr.gettext(template).format_map(dict(fields))
    except (KeyError, ValueError, IndexError):
        return template.format_map(_Blank(fields))


class _Blank(dict[str, str]):
    def __init__(self, fields: Mapping[str, str]) -> None:
        super().__init__(fields)

    def __missing__(self, key: str) -> str:
        return "?"


def correction_refused_text(tr: Translator, number: int) -> str:
    """A team refused the correction of a deal: said in the bar, or the table looks as if nothing happened."""
    return tr.gettext("Correction of deal {number} refused: the slate stays as it was.").format(number=number)


def correction_aside_text(tr: Translator, number: int) -> str:
    """The answer sheet of a correction closed unanswered: where to answer it, and that it does not outlive its
    match."""
    return tr.gettext("Correction of deal {number} not answered: Menu, Answer the correction. A new match drops "
                      "it.").format(number=number)


def seated_text(tr: Translator, name: str, seat: Seat) -> str:
    """A player seated by his tag (or the tournament's seating): the table says it took him."""
    return tr.gettext("{name} sits at {seat}.").format(name=name, seat=seat_letter(tr, seat))


def no_deck_text(tr: Translator) -> str:
    """The first evening: no deck is enrolled, every card laid would be "unknown"."""
    return tr.gettext("No deck is enrolled yet: Menu, Enrol cards or tags, Enrol a deck.")


def result_text(tr: Translator, entry: SlateEntry, names: Mapping[Seat, str] | None = None) -> str:
    """A deal's result in words: who won and by how much, then what it was worth.

    E.g. ``N+S win the deal, 40 to 0`` / ``Konter a Matt, Kapo: 4 lines`` / ``4 lines added to E+W``.
    """
    names = names or {}
    result = entry.result
    lines: list[str] = []
    if result.winner is None:
        lines.append(tie_text(tr))
    else:
        w = result.winner
        lines.append(deal_won_text(tr, team_label(tr, w, names), result.points[w], result.points[w.other]))
    if result.revoke_by is not None:
        lines.append(revoke_lost_text(tr, seat_name(tr, result.revoke_by, names)))
    elif result.claimed_by is not None:
        lines.append(claimed_text(tr, team_label(tr, result.claimed_by, names)))
    parts: set[str] = set()
    for _, announcement in result.announcements:
        parts |= announcement.parts
    lines.append(stake_text(tr, matt="matt" in parts, konter="konter" in parts, kapo=result.kapo,
                               lines=entry.stake))
    for team in Team:
        added = entry.added.get(team, 0)
        if added:
            lines.append(lines_added_text(tr, team_label(tr, team, names), added))
    return "\n".join(lines)
