"""Players' robot: a whole evening on the real window, through the real serial line, pressing only what was drawn.

One evening per layout (tests/robot/table.py says how the robot plays): the players type their names on the
start sheet; a deal is played with cards, with an announcement touched on the panel and answered at the
announcer's own name; the next one loses E's reader at trick 2 (E's cards entered by hand at his card place),
the power is cut in the middle of it and the table comes back, E's reader comes back at trick 5; a deal is told by
hand from the menu; an earlier deal is corrected and both teams accept; the next forehand's reader is dead
between deals (his card place names trumps and begins the deal, his cards go in by hand); deals by hand end the
match, and the losers ask for a revanche, which starts with the names still there. After every deal the table's
slate equals the robot's own count (Scorer, from its own trick winners and card points, count.py); the touches
each gesture took are the counts docs/by-hand.md promises. A short second evening (one layout, one line a team) plays
corrections across a match end: one still waiting while the match is won, one accepted during the deal that it
makes the last, each checked again after a power cut.

Needs Xvfb and xdotool (scripts/setup.sh); skipped without them. Slow: about four minutes per layout, one for the
short evening.
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tablepi.rules import Seat, Team
from tablepi.rules.deal import Announcement
from tablepi.table.events import ReaderState
from tablepi.table.state import TablePhase, TableState, ZoneCardStatus

from . import count
from .table import CARD, SEAT_ZONE, Robot, Scorer, next_forehand, own_play, shuffled_hands, trump_of, wait

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not all(shutil.which(t) for t in ("Xvfb", "xdotool")),
                       reason="needs xvfb and xdotool (scripts/setup.sh)"),
]

START_LINES = 6
NAMES = {Seat.N: "Fernand", Seat.E: "Marie-Thérèse", Seat.S: "Jos", Seat.W: "Léon"}
#: (panel as mounted, rotation, language)
CASES = [((800, 480), 0, "lb"), ((720, 1280), 0, "en")]


@pytest.fixture
def xvfb(request: pytest.FixtureRequest) -> Iterator[tuple[str, tuple[int, int]]]:
    """An X server on a display number it picks itself (-displayfd), the size of the panel."""
    size: tuple[int, int] = request.param
    read, write = os.pipe()
    proc = subprocess.Popen(["Xvfb", "-displayfd", str(write), "-screen", "0", f"{size[0]}x{size[1]}x24",
                             "-nolisten", "tcp", "-noreset"], pass_fds=(write,),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(write)
    try:
        with os.fdopen(read) as pipe:
            number = pipe.readline().strip()
        assert number, "Xvfb did not start"
        yield f":{number}", size
    finally:
        proc.kill()
        proc.wait(10)


def open_lines(state: TableState) -> dict[Team, int]:
    from tablepi.display.view import line_is_open

    return {team: sum(1 for line in lines if line_is_open(line)) for team, lines in state.match.lines}


def check_slate(robot: Robot, scorer: Scorer, deals: int) -> TableState:
    state = wait(f"deal {deals} on the slate", lambda: len((s := robot.state()).match.slate) == deals and s)
    assert open_lines(state) == scorer.open, (deals, open_lines(state), scorer.open)
    assert state.match.winner == scorer.winner
    return state


def play_deal(robot: Robot, scorer: Scorer, rng: random.Random, *, announce: bool = False,
              dead: tuple[int, int] | None = None, dead_seat: Seat | None = Seat.E,
              cut_at: int | None = None) -> list[tuple[int, int]]:
    """One deal with cards: forehand touches a trump button, each seat lays a legal card when its turn comes, the
    four lift them to sweep. ``dead``: ``dead_seat``'s reader dies before trick ``dead[0]`` (0: between deals,
    before trumps) and comes back before trick ``dead[1]`` (7: after the deal); his cards meanwhile are entered at
    his card place, and his trumps too when he names them (``dead_seat`` None: the seat to play last in trick
    ``dead[0]``; at trick 6 every other card is seen, and one card is possible). ``cut_at``: the power is cut in
    that trick, after its second card. Returns, per card by hand, how many cards were possible and the touches it
    took."""
    state = robot.state()
    hands = shuffled_hands(rng)
    forehand = next_forehand(state)
    if scorer.next_forehand is not None:  # rule 22, the robot's own count against the table's word
        assert forehand is scorer.next_forehand, (forehand, scorer.next_forehand)
    suit = trump_of(hands, forehand)
    zone = SEAT_ZONE[dead_seat] if dead_seat is not None else 0
    if dead is not None and dead[0] == 0:
        robot.board.fail(zone, "absent")
        wait("the reader off", lambda: robot.state().zone(dead_seat).reader is not ReaderState.ONLINE)
    if dead is not None and dead[0] == 0 and forehand is dead_seat:
        # Between deals his card place opens the trumps picker; its Confirm begins the deal (the first one
        # acknowledges the warnings on screen, as Confirm always does).
        robot.touch(f"zone:{forehand.value}")
        wait("the trumps picker", lambda: robot.live(f"key:suit:{suit.value}"))
        robot.key(f"suit:{suit.value}")
        robot.key("confirm")
        if robot.state().deal.trump is not suit and robot.live("key:confirm"):
            robot.key("confirm")
    elif robot.live(f"trump_{suit.name.lower()}"):
        robot.touch(f"trump_{suit.name.lower()}")
    else:  # the slate between deals: forehand shows a card of the suit he chooses, which begins the next deal
        robot.place(forehand, hands[forehand][0])
        wait("the card shown", lambda: robot.state().zone(forehand).cards)
        robot.lift_all()
    deal = own_play(hands, forehand, suit)
    scored = len(state.match.slate)
    wait("trumps on the table", lambda: (s := robot.state()).deal.trump is suit and s.deal.forehand is forehand
         and len(s.match.slate) == scored and not s.deal.tricks and not any(z.cards for z in s.zones))
    by_hand: list[tuple[int, int]] = []
    if announce:  # the panel's Matt asks who; the holder answers at his own name, then takes it back (Undo)
        seat = Seat(deal.to_play)
        robot.touch("announce_matt")
        wait("the question", lambda: robot.state().prompt.code.value == "choose_seat")
        frame = robot.frame()
        targets = {c["seat"] for c in frame["controls"] if c["name"] == "announce_matt" and c["seat"]}
        assert targets == {s.value for s in Seat}
        robot.touch("announce_matt", seat)
        assert wait("the announcement", lambda: robot.state().deal.announcements) == ((seat, Announcement.MATT),)
        robot.touch("undo")
        wait("the announcement undone", lambda: not robot.state().deal.announcements)
    won = {Team.NS: 0, Team.EW: 0}
    counted = {Team.NS: 0, Team.EW: 0}
    for trick in range(1, 7):
        plays: list[tuple[str, str]] = []
        if dead is not None and trick == dead[0]:
            if dead_seat is None:  # the seat to play last in this trick: at the last trick, one card possible
                dead_seat = Seat(count.after(count.after(count.after(deal.leader))))
                zone = SEAT_ZONE[dead_seat]
            robot.board.fail(zone, "absent")  # the seat's reader: its chip stops answering
            wait("the reader off", lambda d=dead_seat: robot.state().zone(d).reader is not ReaderState.ONLINE)
        if dead is not None and trick == dead[1]:
            robot.board.repair(zone)
            wait("the reader back", lambda d=dead_seat: robot.state().zone(d).reader is ReaderState.ONLINE)
        for n in range(4):
            seat = Seat(deal.to_play)
            card = CARD[rng.choice(deal.legal())]
            if dead is not None and seat is dead_seat and dead[0] <= trick < dead[1]:
                possible = len(robot.state().possible.cards_for(seat))
                before = robot.touches
                robot.touch(f"zone:{seat.value}")
                wait("the card picker", lambda: robot.live("key:cancel"))
                if robot.live(f"key:suit:{card.suit.value}"):  # (one suit possible: its ranks are up already)
                    robot.key(f"suit:{card.suit.value}")
                    wait("the ranks", lambda c=card: robot.live(f"key:card:{c}") or robot.live("key:confirm"))
                if robot.live(f"key:card:{card}"):  # (one card possible: Confirm is up already)
                    robot.key(f"card:{card}")
                robot.key("confirm")
                by_hand.append((possible, robot.touches - before))
            else:
                robot.place(seat, card)
            deal.play(str(card))
            plays.append((seat.value, str(card)))
            wait(f"{seat.value}'s {card} played", lambda s=seat, c=card: _played(robot.state(), s, c), 20)
            if cut_at == trick and n == 1:
                robot.power_cut()
        # The robot's own count of the trick (count.py, from RULES.md) against the table's.
        winner = Seat(count.trick_winner(plays, suit.value))
        seen = robot.state().deal.tricks[trick - 1]
        assert seen.winner is winner and seen.points == count.points([c for _, c in plays]), (plays, seen)
        won[winner.team] += 1
        counted[winner.team] += count.points([c for _, c in plays])
        robot.lift_all()
        wait(f"trick {trick} swept", lambda t=trick: _swept(robot.state(), t), 20)
    if dead is not None and dead[1] > 6:
        robot.board.repair(zone)
        wait("the reader back", lambda: robot.state().zone(dead_seat).reader is ReaderState.ONLINE)
    assert sum(counted.values()) == 40
    scorer.deal(forehand.team, counted, won, named=forehand)
    return by_hand


def _played(state: TableState, seat: Seat, card: object) -> bool:
    trick = state.deal.tricks[-1] if state.deal.tricks else None
    if trick is None or trick.card_of(seat) != card:
        return False
    return all(zc.status is not ZoneCardStatus.TENTATIVE for zc in state.zone(seat).cards)


def _swept(state: TableState, trick: int) -> bool:
    """The trick's cards are off the table: play goes on, or (the last trick) the slate is up."""
    if any(zone.cards for zone in state.zones):
        return False
    if trick < 6:
        return state.phase is TablePhase.PLAY
    return state.prompt.code.value in ("next_deal", "match_over")


def fill_form(robot: Robot, trumps: Seat, winner: Team | None, points: int, *, kapo: bool = False,
              konter_a_matt: Seat | None = None) -> None:
    """The deal form (a deal by hand or a correction) filled in as the players tell it (``winner`` None: 20-20),
    then OK."""
    robot.fixed_preset = False
    wanted = (f"trumps:{trumps.value}", f"winner:{winner.value if winner is not None else 'tie'}")
    for key in wanted:
        if not robot.selected(f"key:{key}"):  # the form opens with a choice made: not touched again
            robot.key(key)
            robot.fixed_preset |= key.startswith("trumps:")
    pad = robot.live("key:pad:cancel")  # the winners chosen, the number pad asks their points
    if winner is None:
        if pad:
            robot.key("pad:cancel")
    elif kapo:
        if pad:
            robot.key("pad:cancel")
        robot.key("kapo")
    elif points != 21:
        if not pad:
            robot.key("points")
        for digit in str(points):
            robot.key(f"digit:{digit}")
    elif pad:
        robot.key("pad:cancel")
    if konter_a_matt is not None:
        robot.key(f"matt:{konter_a_matt.value}")
        robot.key(f"konter:{konter_a_matt.value}")
    robot.key("ok")


def deal_by_hand(robot: Robot, scorer: Scorer, trumps: Seat, winner: Team, points: int, *, kapo: bool = False,
                 konter_a_matt: Seat | None = None) -> int:
    """Menu, Enter a deal by hand, the form filled in as the players tell it, OK: the touches it took."""
    before = robot.touches
    robot.touch("open:menu")
    robot.key("open:deal")
    # (the form drawn, its presets with it: a frame between the menu and the form has no choice selected)
    wait("the deal form", lambda: robot.live("key:ok"))
    fill_form(robot, trumps, winner, points, kapo=kapo, konter_a_matt=konter_a_matt)
    total = 40 if kapo else points
    pts = {winner: total, winner.other: 40 - total}
    scorer.deal(trumps.team, pts, {winner: 6 if kapo else 3, winner.other: 0 if kapo else 3},
                matt=konter_a_matt is not None, konter=konter_a_matt is not None, named=trumps)
    return robot.touches - before


@pytest.mark.parametrize(("xvfb", "rotation", "lang"), CASES, indirect=["xvfb"],
                         ids=[f"{s[0]}x{s[1]}-rot{r}-{lang}" for s, r, lang in CASES])
def test_a_whole_evening_played_as_players_play_it(xvfb: tuple[str, tuple[int, int]], rotation: int, lang: str,
                                                   tmp_path: Path) -> None:
    display, panel = xvfb
    rng = random.Random(20)
    robot = Robot(tmp_path, display, panel, lang, rotation, start_lines=START_LINES)
    scorer = Scorer(START_LINES)
    counts: dict[str, object] = {}
    try:
        # The start sheet offers the names: four players type theirs (⇧ where a capital is not up).
        wait("the start sheet", lambda: robot.live("key:open:players"))
        robot.key("open:players")
        beyond: list[int] = []
        for seat in Seat:
            before = robot.touches
            typed = robot.type_name(NAMES[seat])
            title = robot.sheet()
            robot.key("ok")
            wait("the next seat's keyboard", lambda t=title: robot.sheet() != t)
            beyond.append(robot.touches - before - typed + (1 if seat is Seat.N else 0))
        counts["seating, beyond typing, per player"] = beyond
        state = wait("four names", lambda: len((s := robot.state()).names) == 4 and s)
        assert dict(state.names) == NAMES
        assert robot.sheet() is None  # the sheet closed after W: play
        # Deal 1 with cards, an announcement asked and answered at the seat's own name.
        play_deal(robot, scorer, rng, announce=True)
        check_slate(robot, scorer, 1)
        # Deal 2: E's reader dies at trick 2, the power is cut in trick 3, the reader is back at trick 5.
        counts["card by hand"] = play_deal(robot, scorer, rng, dead=(2, 5), cut_at=3)
        check_slate(robot, scorer, 2)
        # Deal 3 told by hand from the menu (33 points for the non-trump team).
        forehand = next_forehand(robot.state())
        counts["deal by hand"] = deal_by_hand(robot, scorer, forehand, forehand.team.other, 33)
        counts["trump-namer not preset"] = robot.fixed_preset
        check_slate(robot, scorer, 3)
        # Deal 1 corrected: it was a 20-20 tie after all; both teams accept.
        robot.touch("open:menu")
        robot.key("open:correct")
        wait("the correction form", lambda: robot.live("key:winner:tie"))
        for _ in range(2):  # the form opens on the last deal (3): back to the first
            robot.key("deal:-")
        assert not robot.live("key:deal:-")
        robot.key("winner:tie")
        robot.key("ok")
        robot.key("answer:NS:yes")
        robot.key("answer:EW:yes")
        state = wait("the correction", lambda: (s := robot.state()).match.proposal is None and s.history[0].corrected
                     and s)
        scorer = rescore(state, START_LINES)
        assert open_lines(state) == scorer.open
        # Deal 4: the next forehand's reader is dead between deals: his card place names trumps and begins the
        # deal, his cards go in by hand; the reader is back after the deal.
        play_deal(robot, scorer, rng, dead=(0, 7), dead_seat=next_forehand(robot.state()))
        check_slate(robot, scorer, 4)
        # Deals by hand end the match: Konter a Matt and Kapo for N+S, four lines each.
        while scorer.winner is None:
            state = robot.state()
            deal_by_hand(robot, scorer, next_forehand(state), Team.NS, 40, kapo=True, konter_a_matt=Seat.N)
            check_slate(robot, scorer, len(state.match.slate) + 1)
        state = wait("the match over", lambda: (s := robot.state()).phase is TablePhase.MATCH_OVER and s)
        robot.touch("revanche")
        state = wait("the revanche",
                     lambda: (s := robot.state()).phase is TablePhase.TRUMPS and not s.match.slate and s)
        assert dict(state.names) == NAMES  # the names stay from match to match
        scorer = Scorer(START_LINES)
        play_deal(robot, scorer, rng)
        check_slate(robot, scorer, 1)
    finally:
        robot.close()
    (tmp_path / "counts.txt").write_text(repr(counts), encoding="utf-8")
    print("touch counts:", counts)
    assert all(n <= 4 for n in beyond), counts
    for possible, n in counts["card by hand"]:  # type: ignore[attr-defined]
        assert n <= (3 if possible == 1 else 4), counts
    # Menu, Enter a deal, the winners, two digits, OK; one more where the form did not preset who names trumps.
    assert counts["deal by hand"] <= 6 + int(bool(counts["trump-namer not preset"])), counts


def rescore(state: TableState, start: int) -> Scorer:
    """The robot's count again from the deals as they stand now (a correction rescored them from the first)."""
    scorer = Scorer(start)
    for entry in state.match.slate:
        result = entry.result
        parts = {p for _, a in result.announcements for p in a.parts}
        points = dict(result.points)
        tricks = {team: 6 if result.kapo and team is result.winner else 3 for team in Team}
        scorer.deal(result.trump_team, points, tricks, matt="matt" in parts, konter="konter" in parts)
    scorer.named = state.history[-1].trumps if state.history else None
    return scorer


def play_from_the_start_sheet(robot: Robot) -> None:
    """A match begins without four names: the start sheet offers them; the players touch Play."""
    wait("the start sheet", lambda: robot.live("key:open:players"))
    robot.key("cancel")
    wait("the sheet closed", lambda: robot.sheet() is None)


def tie_by_hand(robot: Robot, scorer: Scorer) -> Seat:
    """A 20-20 deal told by hand: the trump team has a line added. Who named trumps."""
    forehand = next_forehand(robot.state())
    robot.touch("open:menu")
    robot.key("open:deal")
    fill_form(robot, forehand, None, 20)
    scorer.deal(forehand.team, {Team.NS: 20, Team.EW: 20}, {Team.NS: 3, Team.EW: 3}, named=forehand)
    return forehand


def propose_correction(robot: Robot, number: int, trumps: Seat, winner: Team, points: int) -> None:
    robot.touch("open:menu")
    robot.key("open:correct")
    wait("the correction form", lambda: robot.live("key:ok"))
    for _ in range(len(robot.state().match.slate) - number):  # the form opens on the last deal
        robot.key("deal:-")
    fill_form(robot, trumps, winner, points)
    wait("the question to both teams", lambda: robot.live("key:answer:NS:yes") and robot.live("key:answer:EW:yes"))


@pytest.mark.parametrize("xvfb", [(800, 480)], indirect=True, ids=["800x480"])
def test_corrections_across_a_match_end(xvfb: tuple[str, tuple[int, int]], tmp_path: Path) -> None:
    """A short evening at one line a team. Match 1: a correction of deal 1 waits for E+W's answer while deals
    played with cards end the match; the slate never takes it, also after a power cut; E+W refuse it (the question
    is up over the finished match); revanche. Match 2: while deal 2 is being played, a correction of deal 1 that
    strikes the last line is accepted by both: the match is over under the deal, the table goes on after a power
    cut, and the revanche starts a new match."""
    display, panel = xvfb
    rng = random.Random(21)
    robot = Robot(tmp_path, display, panel, "en", 0, start_lines=1)
    scorer = Scorer(1)
    try:
        play_from_the_start_sheet(robot)
        forehand = tie_by_hand(robot, scorer)
        check_slate(robot, scorer, 1)
        other = forehand.team.other  # one line open, the trump team two
        propose_correction(robot, 1, forehand, other, 25)
        robot.key("answer:NS:yes")
        wait("N+S's answer", lambda: (p := robot.state().match.proposal) is not None and p.waiting == (Team.EW,))
        while scorer.winner is None:  # cards played under the question until the match is won
            deals = len(robot.state().match.slate)
            play_deal(robot, scorer, rng)
            state = check_slate(robot, scorer, deals + 1)
            assert not state.history[0].corrected and state.match.proposal is not None
        state = wait("the match over", lambda: (s := robot.state()).phase is TablePhase.MATCH_OVER and s)
        robot.power_cut()
        robot.readers_online()
        again = robot.state()
        assert again.phase is TablePhase.MATCH_OVER and again.history == state.history
        assert open_lines(again) == scorer.open and again.match.winner == scorer.winner
        assert again.match.proposal is not None and again.match.proposal.waiting == (Team.EW,)
        robot.key("answer:EW:no")
        wait("the question gone", lambda: robot.state().match.proposal is None)
        robot.touch("revanche")
        wait("the revanche", lambda: (s := robot.state()).phase is TablePhase.TRUMPS and not s.match.slate)
        assert open_lines(robot.state()) == {Team.NS: 1, Team.EW: 1}
        assert not any(entry.corrected for entry in robot.state().history)

        # Match 2: a correction accepted during deal 2 ends the match under it.
        scorer = Scorer(1)
        play_from_the_start_sheet(robot)
        forehand = tie_by_hand(robot, scorer)
        check_slate(robot, scorer, 1)
        other = forehand.team.other
        hands = shuffled_hands(rng)
        leads = next_forehand(robot.state())
        assert leads is scorer.next_forehand
        suit = trump_of(hands, leads)
        robot.place(leads, hands[leads][0])  # forehand's card names trumps and begins deal 2
        wait("the card shown", lambda: robot.state().zone(leads).cards)
        robot.lift_all()
        deal = own_play(hands, leads, suit)
        wait("trumps on the table", lambda: robot.state().deal.trump is suit and not any(z.cards for z in
                                                                                   robot.state().zones))
        seat = Seat(deal.to_play)
        card = CARD[rng.choice(deal.legal())]
        robot.place(seat, card)
        wait(f"{seat.value}'s {card} played", lambda: _played(robot.state(), seat, card), 20)
        propose_correction(robot, 1, forehand, other, 25)
        robot.key("answer:NS:yes")
        robot.key("answer:EW:yes")
        state = wait("the match over", lambda: (s := robot.state()).phase is TablePhase.MATCH_OVER and s)
        assert state.match.winner is other and not state.deal.tricks and state.match.proposal is None
        assert state.match.slate[0].result.winner is other and len(state.match.slate) == 1
        robot.lift_all()  # the deal under way is not played on: its card is gathered
        wait("the card gathered", lambda: not any(z.cards for z in robot.state().zones))
        robot.power_cut()
        robot.readers_online()
        again = robot.state()
        assert again.phase is TablePhase.MATCH_OVER and again.history == state.history
        assert again.match.winner is other
        robot.touch("revanche")
        state = wait("the revanche",
                     lambda: (s := robot.state()).phase is TablePhase.TRUMPS and not s.match.slate and s)
        assert open_lines(state) == {Team.NS: 1, Team.EW: 1}
    finally:
        robot.close()


#: The other layouts and every rotation the config offers (display.rotation 0, 90, 180, 270), one short evening
#: each: (panel as mounted, rotation, language). A Touch Display 2 at 90 or 270 degrees draws the 1280x720 layout.
SHORT = [((1280, 720), 0, "de"), ((480, 320), 0, "fr"), ((720, 1280), 90, "en"), ((800, 480), 180, "lb"),
         ((720, 1280), 270, "de")]


@pytest.mark.parametrize(("xvfb", "rotation", "lang"), SHORT, indirect=["xvfb"],
                         ids=[f"{s[0]}x{s[1]}-rot{r}-{lang}" for s, r, lang in SHORT])
def test_a_short_evening_at_every_other_layout_and_rotation(xvfb: tuple[str, tuple[int, int]], rotation: int,
                                                            lang: str, tmp_path: Path) -> None:
    """A match begun from the start sheet; a deal with cards where the reader of the seat to play last in trick 6
    dies (his last card by hand at his card place: one card possible) and comes back after the deal; a deal
    told by hand (33 points); a correction of deal 1 accepted by both teams. The slate after every deal equals the
    robot's own count, and the touches are within docs/by-hand.md's counts."""
    display, panel = xvfb
    rng = random.Random(22 + rotation)
    robot = Robot(tmp_path, display, panel, lang, rotation, start_lines=START_LINES)
    scorer = Scorer(START_LINES)
    try:
        play_from_the_start_sheet(robot)
        by_hand = play_deal(robot, scorer, rng, dead=(6, 7), dead_seat=None)
        check_slate(robot, scorer, 1)
        forehand = next_forehand(robot.state())
        assert forehand is scorer.next_forehand
        touches = deal_by_hand(robot, scorer, forehand, forehand.team.other, 33)
        fixed = robot.fixed_preset
        check_slate(robot, scorer, 2)
        row = robot.state().history[0]  # deal 1 corrected: the other team won it, 30 points
        won = row.entry.result.winner
        assert row.trumps is not None
        propose_correction(robot, 1, row.trumps, won.other if won is not None else row.trumps.team.other, 30)
        robot.key("answer:NS:yes")
        robot.key("answer:EW:yes")
        state = wait("the correction", lambda: (s := robot.state()).match.proposal is None and s.history[0].corrected
                     and s)
        scorer = rescore(state, START_LINES)
        assert open_lines(state) == scorer.open
    finally:
        robot.close()
    print("touch counts:", by_hand, touches)
    for possible, n in by_hand:
        assert n <= (3 if possible == 1 else 4), by_hand
    assert touches <= 6 + int(fixed), touches


#: The pairs of panel and rotation no evening above plays (every layout the config offers at every rotation): the
#: shortest evening that still goes through the window's turned touches and its hit-map, a deal told by hand
#: (about 8 s each here). The 3.5" panel turned upright (480x320 at 90 or 270) is the ``upright`` layout, drawn at
#: 320x480 (its controls were 32 px, 4.9 mm, when it was the 7" upright layout scaled down).
SHORTEST = [((800, 480), 90, "fr"), ((800, 480), 270, "de"), ((480, 320), 90, "lb"), ((480, 320), 180, "en"),
            ((480, 320), 270, "de"), ((1280, 720), 90, "lb"), ((1280, 720), 180, "fr"), ((1280, 720), 270, "en"),
            ((720, 1280), 180, "fr")]


def _pair_id(case: tuple[tuple[int, int], int, str]) -> str:
    (w, h), rotation, lang = case
    return f"{w}x{h}-rot{rotation}-{lang}"


@pytest.mark.parametrize(("xvfb", "rotation", "lang"), SHORTEST, indirect=["xvfb"], ids=[_pair_id(c) for c in SHORTEST])
def test_the_shortest_evening_at_every_remaining_layout_and_rotation(xvfb: tuple[str, tuple[int, int]],
                                                                    rotation: int, lang: str,
                                                                    tmp_path: Path) -> None:
    """A match begun from the start sheet and a deal told by hand (its points not counted: 21): the slate equals
    the robot's own count, every control drawn is a finger's size, and the deal takes at most 5 touches."""
    from tablepi.display.layout import MIN_TARGET_MM, PANELS, family_for

    display, panel = xvfb
    robot = Robot(tmp_path, display, panel, lang, rotation, start_lines=START_LINES)
    scorer = Scorer(START_LINES)
    mm = PANELS[family_for(panel)].mm_per_px
    try:
        play_from_the_start_sheet(robot)
        forehand = next_forehand(robot.state())
        touches = deal_by_hand(robot, scorer, forehand, forehand.team.other, 21)
        check_slate(robot, scorer, 1)
        small = [c["name"] for c in robot.frame()["controls"] if min(c["rect"][2:]) * mm < MIN_TARGET_MM]
        assert not small, small
    finally:
        robot.close()
    assert touches <= 5 + int(robot.fixed_preset), touches
