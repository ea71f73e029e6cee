"""What the table says when something goes wrong: one builder per warning, with its code, rule and values.

Each builder returns a :class:`~tablepi.table.warnings.TableWarning` whose parameters are values and whose
``message`` is the English sentence for the log and the records (rule numbers belong there, not on screen).
Adding a warning is adding a code in :mod:`tablepi.table.warnings`, a builder here and a template in the screen's
texts. :class:`Where` is the deal and trick the table is at; a builder for a fault uses the fault's own trick.
"""

from __future__ import annotations

from dataclasses import dataclass

from tablepi.errors import RulesCode, RulesError
from tablepi.rules.cards import Card
from tablepi.rules.deal import Announcement, Fault, FaultCode
from tablepi.rules.house import RevokePenalty
from tablepi.rules.seats import Seat, Team
from tablepi.table.events import ButtonName, ReaderState
from tablepi.table.warnings import DeviceFacts, FaultFacts, TableWarning, TagProblem, WarningCode


@dataclass(frozen=True, slots=True)
class Where:
    """The deal (1-based in the match) and the trick being played (None before trumps)."""

    deal: int
    trick: int | None


def fault(where: Where, found: Fault, penalty: RevokePenalty, tentative: bool = False) -> TableWarning:
    """A fault the rules core found in a play or a show."""
    message = found.message
    seat, holder = found.seat, found.holder
    if found.code is FaultCode.REVOKE:
        code = WarningCode.REVOKE
        if penalty is RevokePenalty.LOSE_DEAL:
            message += f"; {found.seat.team} lose the deal"
    elif found.code is FaultCode.FALSE_ANNOUNCEMENT:
        code = WarningCode.FALSE_ANNOUNCEMENT
    elif found.card.is_matador:
        code = WarningCode.QUEEN_SHOWN_BY_OTHER_SEAT
    else:  # any other card shown by one seat and played by another: one of them misread or misplayed
        code = WarningCode.CARD_IN_TWO_HANDS
    return TableWarning(
        code, found.rule, seat, found.trick, message, where.deal, tentative,
        card=found.card,
        fault=FaultFacts(led=found.led, held=found.held, proof=found.proof, holder=holder,
                         announcement=found.announcement, penalty=penalty if code is WarningCode.REVOKE else None),
    )


def out_of_turn(where: Where, seat: Seat, card: Card, to_play: Seat | None, tentative: bool = False) -> TableWarning:
    """A card laid by a seat that is not to play (rule 12), or when no card is to be played."""
    if to_play is None:
        message = f"{seat} lays {card.display}, but no card is to be played now: take it back"
    else:
        message = f"{seat} lays {card.display} out of turn: {to_play} is to play (rule 12)"
    return TableWarning(WarningCode.OUT_OF_TURN, 12, seat, where.trick, message, where.deal, tentative,
                        card=card, fault=FaultFacts(expected=to_play))


def before_trumps(where: Where, seat: Seat, card: Card, forehand: Seat) -> TableWarning:
    """A card laid before forehand named trumps (rule 9)."""
    return TableWarning(WarningCode.OUT_OF_TURN, 9, seat, where.trick,
                        f"{seat} lays {card.display}, but forehand {forehand} names trumps first (rule 9)",
                        where.deal, card=card, fault=FaultFacts(expected=forehand))


def already_played(where: Where, seat: Seat, card: Card, played: tuple[int, Seat] | None) -> TableWarning:
    """A card played earlier in this deal lies on a zone again (rule 3). ``played``: (trick, seat) of its play."""
    when = f" by {played[1]} in trick {played[0]}" if played is not None else ""
    return TableWarning(
        WarningCode.CARD_ALREADY_PLAYED, 3, seat, where.trick,
        f"{card.display} on {seat}'s zone was already played{when} in this deal (a misread, or a second deck)",
        where.deal, card=card,
        fault=FaultFacts(played_by=None if played is None else played[1],
                         played_in=None if played is None else played[0]),
    )


def refused_play(where: Where, seat: Seat, card: Card, err: RulesError, tentative: bool = False) -> TableWarning:
    """A card the rules core refuses to put in the deal (not in the scanned hand, trumps not named)."""
    return TableWarning(WarningCode.ILLEGAL_PLAY, err.rule, seat, where.trick, str(err), where.deal, tentative,
                        card=card, refusal=err.code)


def refused_show(where: Where, seat: Seat, card: Card, err: RulesError) -> TableWarning:
    """A tap the rules core refuses: the card was played already, or is known to be in another hand."""
    if err.code is RulesCode.HELD_ELSEWHERE:
        code = WarningCode.QUEEN_SHOWN_BY_OTHER_SEAT if card.is_matador else WarningCode.CARD_IN_TWO_HANDS
        rule = 11 if card.is_matador else 8
        return TableWarning(code, rule, seat, where.trick,
                            f"{seat} shows {card.display}, which {err.holder} showed or holds (rule {rule})",
                            where.deal, card=card, fault=FaultFacts(holder=err.holder))
    return TableWarning(WarningCode.CARD_ALREADY_PLAYED, 3, seat, where.trick, str(err), where.deal, card=card)


def refused_scan(where: Where, seat: Seat, card: Card, err: RulesError) -> TableWarning:
    """A scanned card the hand-scan refuses: a seventh card, or one another seat scanned (rule 8)."""
    code = WarningCode.TOO_MANY_CARDS if err.code is RulesCode.SEVENTH_CARD else WarningCode.CARD_IN_TWO_HANDS
    return TableWarning(code, 8, seat, where.trick, str(err), where.deal, card=card,
                        fault=FaultFacts(holder=err.holder), refusal=err.code)


def unknown_tag(where: Where, seat: Seat, uid: str) -> TableWarning:
    return TableWarning(WarningCode.UNKNOWN_TAG, 3, seat, where.trick,
                        f"A tag that is not a card of the deck lies on {seat}'s zone ({uid or 'no uid'})",
                        where.deal, device=DeviceFacts(uid=uid, tag=TagProblem.UNKNOWN))


def other_deck(where: Where, seat: Seat, card: Card, uid: str, deck: str, in_play: str) -> TableWarning:
    return TableWarning(WarningCode.UNKNOWN_TAG, 3, seat, where.trick,
                        f"{card.display} on {seat}'s zone belongs to deck {deck!r}, "
                        f"not to the deck in play {in_play!r}",
                        where.deal, card=card, device=DeviceFacts(uid=uid, deck=deck, tag=TagProblem.OTHER_DECK))


def two_cards(where: Where, seat: Seat, card: Card | None, detail: str = "") -> TableWarning:
    if card is not None:
        message = f"Two cards lie on {seat}'s zone: take {card.display} off (one card per zone)"
    else:
        message = f"Two cards lie on {seat}'s zone{f' ({detail})' if detail else ''}: one card per zone"
    return TableWarning(WarningCode.TWO_CARDS_ON_ZONE, None, seat, where.trick, message, where.deal, card=card,
                        device=DeviceFacts(detail=detail))


def lifted_early(where: Where, seat: Seat, card: Card) -> TableWarning:
    return TableWarning(WarningCode.LIFTED_EARLY, None, seat, where.trick,
                        f"{seat} lifted {card.display} before the trick was complete: put it back", where.deal,
                        card=card)


def too_late(where: Where, seat: Seat, announcement: Announcement, shown: bool) -> TableWarning:
    how = "shows" if shown else "announces"
    return TableWarning(WarningCode.ANNOUNCEMENT_TOO_LATE, 10, seat, where.trick,
                        f"{seat} {how} {announcement.label} after his first card: it does not count (rule 10)",
                        where.deal, fault=FaultFacts(announcement=announcement))


def refused_announcement(where: Where, seat: Seat, announcement: Announcement, err: RulesError) -> TableWarning:
    """A touch announcement the evidence refuses at once (a queen played, seen elsewhere, not in the scanned hand)."""
    return TableWarning(WarningCode.ANNOUNCEMENT_WITHOUT_CARDS, err.rule, seat, where.trick, str(err), where.deal,
                        card=err.card, fault=FaultFacts(holder=err.holder, announcement=announcement),
                        refusal=err.code)


def claim_refused(where: Where, team: Team | None, points: dict[Team, int], err: RulesError | None) -> TableWarning:
    """A claim the rules refuse (rule 21): ``err`` says why (``refusal``); None or too few points: no team may."""
    if err is None or (team is None and err.code is RulesCode.CLAIM_POINTS):
        ns, ew = points[Team.NS], points[Team.EW]
        message = f"no team can claim: NS have {ns}, EW {ew}; a claim needs 21 (rule 21)"
        refusal: RulesCode | None = RulesCode.CLAIM_POINTS
    else:
        message, refusal = str(err), err.code
    return TableWarning(WarningCode.CLAIM_REFUSED, 21, None, where.trick, message, where.deal, team=team,
                        points=tuple(points.items()), refusal=refusal)


def not_now(where: Where, seat: Seat | None, button: ButtonName, why: str) -> TableWarning:
    return TableWarning(WarningCode.NOT_NOW, None, seat, where.trick, f"{button.value}: {why}", where.deal,
                        button=button)


def crosstalk(where: Where, seat: Seat, card: Card | None, uid: str, holder: Seat | None) -> TableWarning:
    """A zone's reader heard a card that lies on ``holder``'s zone, or read a garbled tag (holder None)."""
    what = str(card) if card is not None else f"tag {uid}"
    heard = f"{what}, which lies on {holder}'s zone" if holder is not None else f"a garbled tag ({what})"
    return TableWarning(WarningCode.CROSSTALK, None, seat, where.trick,
                        f"The reader of {seat}'s zone hears {heard}: the antennas hear each other; space them "
                        "further apart or lower the readers' gain (hw/README.md)",
                        where.deal, card=card, fault=FaultFacts(holder=holder), device=DeviceFacts(uid=uid))


def reader_down(where: Where, seat: Seat, state: ReaderState, detail: str) -> TableWarning:
    extra = f" ({detail})" if detail else ""
    return TableWarning(WarningCode.READER_OFFLINE, None, seat, where.trick,
                        f"The reader of {seat}'s zone is {state.value}{extra}: use the touch screen or check it",
                        where.deal, device=DeviceFacts(reader=state, detail=detail))


def hand_refused(where: Where, seat: Seat | None, err: RulesError, card: Card | None = None) -> TableWarning:
    """A gesture by hand (a card, a deal, a correction, a seating) the rules refuse now."""
    return TableWarning(WarningCode.HAND_REFUSED, err.rule, seat, where.trick, str(err), where.deal,
                        card=card, refusal=err.code)
