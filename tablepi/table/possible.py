"""What may happen now: the one place that turns the game and the house rules into live buttons.

The screen draws :class:`~tablepi.table.state.Possible` and derives no rule itself (STYLE.md 16); the table acts
on a button only through the same answer, so a button shown live is never refused. The announce rule is the rules
core's :meth:`~tablepi.rules.deal.Deal.may_announce`, the claim rule its :meth:`~tablepi.rules.deal.Deal.claimable`.
"""

from __future__ import annotations

from tablepi.rules.cards import Suit
from tablepi.rules.deal import Announcement
from tablepi.rules.seats import Seat
from tablepi.table.events import ButtonName
from tablepi.table.game import Game
from tablepi.table.state import Possible, TablePhase, Target

#: The announce button of each announcement.
ANNOUNCE_BUTTONS = {
    Announcement.MATT: ButtonName.ANNOUNCE_MATT,
    Announcement.KONTER: ButtonName.ANNOUNCE_KONTER,
    Announcement.KONTER_A_MATT: ButtonName.ANNOUNCE_KONTER_A_MATT,
}


def possible_now(game: Game, *, warnings: bool, can_undo: bool) -> Possible:
    """Who may announce what, who may claim, and every button the table acts on now.

    Announce and claim are per seat: a touch always says whose it is (docs/table.md, "Every touch names its
    seat"); the seatless announce button asks for the seat, the seatless claim is the one team's that may. Trump
    buttons name trumps for forehand, the only seat who may (rule 9). Confirm acknowledges standing
    warnings, or ends a hand scan; undo drops the last action; new match and revanche follow a finished match.
    """
    phase = game.phase
    buttons: list[Target] = []
    announce: list[tuple[Seat, tuple[Announcement, ...]]] = []
    claim = None
    deal = game.deal
    if phase is TablePhase.TRUMPS:
        buttons.extend(Target(ButtonName.trump(suit)) for suit in Suit)
    elif phase is TablePhase.PLAY and deal is not None:
        for seat in Seat:
            may = deal.may_announce(seat)
            if may:
                announce.append((seat, may))
                buttons.extend(Target(ANNOUNCE_BUTTONS[a], seat) for a in may)
        # A seatless announce button (a hardware button, the panel's) asks whose it is: live while anyone may.
        anyone = {a for _, may in announce for a in may}
        buttons.extend(Target(ANNOUNCE_BUTTONS[a]) for a in Announcement if a in anyone)
        claim = deal.claimable()
        if claim is not None:
            buttons.extend(Target(ButtonName.CLAIM, seat) for seat in Seat if seat.team is claim)
            buttons.append(Target(ButtonName.CLAIM))  # seatless: the one team that may (rule 21), nothing guessed
    if warnings or phase in (TablePhase.HAND_SCAN, TablePhase.DEAL_OVER):
        buttons.append(Target(ButtonName.CONFIRM))  # between deals: the next deal is dealt (docs/by-hand.md)
    if can_undo:
        buttons.append(Target(ButtonName.UNDO))
    if phase is TablePhase.MATCH_OVER:
        buttons.extend((Target(ButtonName.NEW_MATCH), Target(ButtonName.REVANCHE)))
    return Possible(tuple(announce), claim, tuple(buttons), choose_dealer=game.match_starting)
