"""The game layer of the table: logical actions folded into a :class:`Match` of the rules core.

The machine (:mod:`tablepi.table.machine`) turns physical gestures into these actions. Keeping them apart from
the gestures is what makes undo honest: a card lifted from a zone cannot be un-lifted, but the action it caused
(a play, a show, a trump named) can be dropped and the game rebuilt from the remaining actions.

Every rule is the rules core's: this module only sequences ``Match``/``Deal`` calls. An action that the rules
refuse raises :class:`~tablepi.errors.RulesError` and leaves the game unchanged.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from tablepi.errors import RulesCode, RulesError
from tablepi.rules.cards import MATADORS, Card, Suit
from tablepi.rules.deal import TRICKS_PER_DEAL, Announcement, Deal, Fault, Phase
from tablepi.rules.entry import DealEntry
from tablepi.rules.house import HouseRules
from tablepi.rules.seats import Seat, Team
from tablepi.rules.slate import Match
from tablepi.table.state import TablePhase


@dataclass(frozen=True, slots=True)
class StartDeal:
    """The next dealer has dealt: a new deal begins (rules 8, 22)."""


@dataclass(frozen=True, slots=True)
class NameTrump:
    """Forehand names trumps (rule 9), by touch or by showing ``card`` (then known to be in his hand)."""

    seat: Seat
    suit: Suit
    card: Card | None = None


@dataclass(frozen=True, slots=True)
class ScanCard:
    """Hand-scan mode: ``seat`` tapped ``card`` of his hand."""

    seat: Seat
    card: Card


@dataclass(frozen=True, slots=True)
class EndScan:
    """Hand-scan mode: play on without a complete scan (confirm button); scanned cards stay known."""


@dataclass(frozen=True, slots=True)
class ShowCard:
    """``seat`` showed ``card`` (a tap). Matadors shown before his first card make his announcement (rule 10)."""

    seat: Seat
    card: Card


@dataclass(frozen=True, slots=True)
class Announce:
    """An announcement by touch: the announcer *says* he holds the queens (rule 10). A claim, not evidence: it
    raises the stake while it stands and is void once a claimed queen is seen at another seat."""

    seat: Seat
    announcement: Announcement


@dataclass(frozen=True, slots=True)
class PlayCard:
    seat: Seat
    card: Card
    by_hand: bool = False  # entered on the screen (no card lies on the zone for it)


@dataclass(frozen=True, slots=True)
class Claim:
    team: Team


@dataclass(frozen=True, slots=True)
class NewMatch:
    dealer: Seat


@dataclass(frozen=True, slots=True)
class Revanche:
    """The losers ask for a revanche (rule 29)."""


@dataclass(frozen=True, slots=True)
class EnterDeal:
    """A deal told by hand is scored (a deal in progress is given up for it)."""

    entry: DealEntry


@dataclass(frozen=True, slots=True)
class ProposeCorrection:
    number: int
    entry: DealEntry


@dataclass(frozen=True, slots=True)
class AnswerCorrection:
    team: Team
    accept: bool


@dataclass(frozen=True, slots=True)
class SeatPlayers:
    names: tuple[tuple[Seat, str], ...]


@dataclass(frozen=True, slots=True)
class ChooseDealer:
    seat: Seat


@dataclass(frozen=True, slots=True)
class Proposal:
    """A correction waiting for both teams: deal ``number`` should have been ``entry``."""

    number: int
    entry: DealEntry
    accepted: frozenset[Team] = frozenset()


HandAction = EnterDeal | ProposeCorrection | AnswerCorrection | SeatPlayers | ChooseDealer
Action = (StartDeal | NameTrump | ScanCard | EndScan | ShowCard | Announce | PlayCard | Claim | NewMatch | Revanche
          | EnterDeal | ProposeCorrection | AnswerCorrection | SeatPlayers | ChooseDealer)


@dataclass(frozen=True, slots=True)
class Outcome:
    """What an action did, beyond changing the game: faults found, an announcement made or made too late."""

    faults: tuple[Fault, ...] = ()
    announced: Announcement | None = None
    too_late: Announcement | None = None


class Game:
    """Matches and deals as folded from actions. Mutable; :meth:`replay` rebuilds one from scratch."""

    def __init__(self, rules: HouseRules, dealer: Seat, hand_scan: bool = False) -> None:
        self.rules = rules
        self.hand_scan = hand_scan
        self.matches: list[Match] = []
        self.deal: Deal | None = None  # the current (or just finished) deal
        self.started = False  # a deal is in progress (between StartDeal and its end)
        self.pending_trump: Suit | None = None  # hand-scan mode: trumps named before the scan
        self.pending_trump_card: Card | None = None  # hand-scan mode: the card forehand showed naming them
        self.scan: dict[Seat, list[Card]] = {}
        self.names: dict[Seat, str] = {}  # who sits where (kept from match to match until seated again)
        self.proposal: Proposal | None = None
        #: Cards entered by hand: (match number, deal number, seat, card).
        self.by_hand: set[tuple[int, int, Seat, Card]] = set()
        self._begin_match(Match(rules, dealer))

    @classmethod
    def replay(cls, rules: HouseRules, dealer: Seat, hand_scan: bool, actions: Iterable[Action]) -> Game:
        game = cls(rules, dealer, hand_scan)
        for action in actions:
            game.apply(action)
        return game

    # --- reading -----------------------------------------------------------------------------------------------

    @property
    def match(self) -> Match:
        return self.matches[-1]

    @property
    def dealer(self) -> Seat:
        if self.started and self.deal is not None:
            return self.deal.dealer
        return self.match.dealer

    @property
    def forehand(self) -> Seat:
        return self.rules.direction.next(self.dealer)

    @property
    def deal_number(self) -> int:
        """1-based number of the current deal in the match (the last one scored between deals)."""
        scored = len(self.match.slate.history)
        return scored + 1 if self.started else max(scored, 1)

    @property
    def phase(self) -> TablePhase:
        if not self.started:
            return TablePhase.MATCH_OVER if self.match.is_over else TablePhase.DEAL_OVER
        if self.deal is None:
            return TablePhase.TRUMPS if self.pending_trump is None else TablePhase.HAND_SCAN
        return TablePhase.TRUMPS if self.deal.phase is Phase.TRUMPS else TablePhase.PLAY

    @property
    def match_starting(self) -> bool:
        """A match is about to begin: no deal of it scored, its first trumps not named yet. The first dealer may
        be chosen only now (and the screen offers the players' names and the first dealer now)."""
        return (not self.match.slate.history and self.phase is TablePhase.TRUMPS and self.pending_trump is None
                and (self.deal is None or self.deal.trump is None))

    @property
    def scan_complete(self) -> bool:
        return all(len(self.scan.get(seat, ())) == TRICKS_PER_DEAL for seat in Seat)

    # --- acting ------------------------------------------------------------------------------------------------

    def apply(self, action: Action) -> Outcome:
        """Apply one action. Raises RulesError (game unchanged) when the rules refuse it."""
        if isinstance(action, StartDeal):
            return self._start_deal()
        if isinstance(action, NewMatch):
            self._begin_match(Match(self.rules, action.dealer))
            return Outcome()
        if isinstance(action, Revanche):
            self._begin_match(self.match.revanche())  # raises MATCH_NOT_OVER mid-match (rule 29)
            return Outcome()
        if isinstance(action, NameTrump):
            return self._name_trump(action)
        if isinstance(action, ScanCard):
            return self._scan(action)
        if isinstance(action, EndScan):
            if self.phase is not TablePhase.HAND_SCAN:
                raise RulesError("no hand scan to end", code=RulesCode.NO_SCAN)
            self._deal_after_scan(complete=False)
            return Outcome()
        if isinstance(action, EnterDeal | ProposeCorrection | AnswerCorrection | SeatPlayers | ChooseDealer):
            return self._by_hand(action)  # the gestures by hand (docs/table.md, "By hand")
        deal = self._playing_deal()
        if isinstance(action, ShowCard):
            return self._show(deal, action)
        if isinstance(action, Announce):
            deal.announce(action.seat, action.announcement, claim=True)
            return Outcome(announced=action.announcement)
        if isinstance(action, PlayCard):
            number = self.deal_number
            faults = deal.play(action.seat, action.card, check=False)
            if action.by_hand:
                self.by_hand.add((len(self.matches), number, action.seat, action.card))
            self._finish_if_over()
            return Outcome(faults=faults)
        if isinstance(action, Claim):
            deal.claim(action.team)
            self._finish_if_over()
            return Outcome()
        raise TypeError(f"not a table action: {action!r}")

    # --- by hand ----------------------------------------------------------------------------------------------

    def _by_hand(self, action: HandAction) -> Outcome:
        if isinstance(action, SeatPlayers):
            seated = dict(action.names)
            moved = {name.casefold() for name in seated.values()}
            if len(moved) < len(seated):
                raise RulesError("one name at two seats: a player sits at one seat (type another name for one of "
                                 "them)", code=RulesCode.NAME_TWICE)
            for seat in [s for s, name in self.names.items() if s not in seated and name.casefold() in moved]:
                del self.names[seat]  # a player sits at one seat: seated at another, he leaves his old one
            self.names.update(seated)
            return Outcome()
        if isinstance(action, ChooseDealer):
            if not self.match_starting:
                raise RulesError("the first dealer is chosen before the match's first trumps are named",
                                 code=RulesCode.NOT_BEFORE_PLAY)
            self.matches[-1] = Match(self.rules, action.seat)
            self.deal = None
            self.started = False
            self._start_deal()
            return Outcome()
        if isinstance(action, EnterDeal):
            if self.match.is_over:
                raise RulesError("the match is over; start a revanche or a new match (rule 29)",
                                 code=RulesCode.MATCH_OVER, rule=29)
            self._give_up_deal()
            self.match.enter_deal(action.entry)
            return Outcome()
        if isinstance(action, ProposeCorrection):
            if not 1 <= action.number <= len(self.match.slate.history):
                raise RulesError(f"there is no deal {action.number} to correct", code=RulesCode.NO_SUCH_DEAL)
            self.proposal = Proposal(action.number, action.entry)
            return Outcome()
        proposal = self.proposal
        if proposal is None:
            raise RulesError("no correction is waiting for an answer", code=RulesCode.NO_PROPOSAL)
        if not action.accept:
            self.proposal = None
            return Outcome()
        accepted = proposal.accepted | {action.team}
        if accepted != set(Team):
            self.proposal = Proposal(proposal.number, proposal.entry, frozenset(accepted))
            return Outcome()
        self.match.correct(proposal.number, proposal.entry)  # raises (unchanged) when the slate cannot take it
        self.proposal = None
        if self.match.is_over:
            # The corrected slate ends the match before the deal in progress: that deal is not played on (its cards
            # are gathered), whatever was played of it; a revanche or a new match follows (rule 29).
            self._give_up_deal()
        elif proposal.number == len(self.match.slate.history) and self._untouched():
            # The last deal's trump-namer corrected: the deal just dealt passes to its right dealer (rule 22).
            self._give_up_deal()
            self._start_deal()
        return Outcome()

    def _untouched(self) -> bool:
        """A deal has begun and nothing has happened in it yet (no trumps named, no card seen)."""
        if not self.started or self.pending_trump is not None:
            return False
        return self.deal is None or (self.deal.trump is None and not self.deal.played
                                     and not any(self.deal.evidence.known[seat] for seat in Seat))

    def _give_up_deal(self) -> None:
        """The deal in progress is not played on (it is told by hand, or the match ended under it)."""
        if self.started:
            self.match.abandon_deal()
            self.deal = None
            self.pending_trump, self.pending_trump_card = None, None
            self.started = False

    def _begin_match(self, match: Match) -> None:
        self.matches.append(match)
        self.proposal = None  # a correction belongs to its match: one still waiting lapses when a new match begins
        self.deal = None
        self.started = False
        self._start_deal()

    def _start_deal(self) -> Outcome:
        if self.started:
            raise RulesError("a deal is already in progress", code=RulesCode.DEAL_IN_PROGRESS)
        if self.match.is_over:
            raise RulesError("the match is over; start a revanche or a new match (rule 29)",
                             code=RulesCode.MATCH_OVER, rule=29)
        self.pending_trump, self.pending_trump_card = None, None
        self.scan = {seat: [] for seat in Seat}
        self.deal = None if self.hand_scan else self.match.new_deal()
        self.started = True
        return Outcome()

    def _name_trump(self, action: NameTrump) -> Outcome:
        phase = self.phase
        if phase is not TablePhase.TRUMPS:
            raise RulesError("trumps are named once, by forehand, before the play (rule 9)",
                             code=RulesCode.TRUMPS_NAMED, seat=action.seat, rule=9)
        if action.seat is not self.forehand:
            raise RulesError(f"{action.seat} cannot name trumps: forehand {self.forehand} names trumps (rule 9)",
                             code=RulesCode.NOT_FOREHAND, seat=action.seat, rule=9, holder=self.forehand)
        if self.deal is None:
            self.pending_trump, self.pending_trump_card = action.suit, action.card
        else:
            self.deal.choose_trump(action.suit, action.seat)
            if action.card is not None and action.card not in self.deal.played:
                self.deal.show(action.seat, action.card)
        return Outcome()

    def _scan(self, action: ScanCard) -> Outcome:
        if self.phase is not TablePhase.HAND_SCAN:
            raise RulesError("cards are scanned after trumps are named, before the first card",
                             code=RulesCode.NO_SCAN, seat=action.seat, card=action.card)
        for seat, cards in self.scan.items():
            if action.card in cards:
                if seat is action.seat:
                    return Outcome()  # scanned twice by the same player: nothing new
                raise RulesError(f"{action.seat} scans {action.card.display}, but {seat} scanned it (rule 8)",
                                 code=RulesCode.SCANNED_BY_OTHER, seat=action.seat, card=action.card, rule=8,
                                 holder=seat)
        if len(self.scan[action.seat]) >= TRICKS_PER_DEAL:
            raise RulesError(f"{action.seat} scans a seventh card, {action.card.display}; a hand has six (rule 8)",
                             code=RulesCode.SEVENTH_CARD, seat=action.seat, card=action.card, rule=8)
        self.scan[action.seat].append(action.card)
        if self.scan_complete:
            self._deal_after_scan(complete=True)
        return Outcome()

    def _deal_after_scan(self, complete: bool) -> None:
        assert self.pending_trump is not None
        deal = self.match.new_deal({s: list(c) for s, c in self.scan.items()} if complete else None)
        deal.choose_trump(self.pending_trump, self.forehand)
        if not complete:
            for seat, cards in self.scan.items():
                for card in cards:
                    deal.show(seat, card, public=False)  # the screen counts scanned cards, never shows them
        shown = self.pending_trump_card
        if shown is not None and deal.holder(shown) in (None, self.forehand):
            deal.show(self.forehand, shown)  # the trump card was shown to all; a scan placing it elsewhere wins
        self.deal = deal

    def _playing_deal(self) -> Deal:
        if self.phase is not TablePhase.PLAY or self.deal is None:
            raise RulesError("no deal is being played now", code=RulesCode.NOT_PLAYING)
        return self.deal

    def _show(self, deal: Deal, action: ShowCard) -> Outcome:
        seat, card = action.seat, action.card
        faults = deal.show(seat, card)  # raises (unchanged) when another seat holds it or it was played
        announcement = deal.announcement_shown(seat) if card.is_matador else None
        if announcement is None:
            return Outcome(faults=faults)
        if not deal.can_announce(seat):
            return Outcome(faults=faults, too_late=announcement)
        try:
            deal.announce(seat, announcement, shown=tuple(c for c in MATADORS if c in deal.evidence.known[seat]))
        except RulesError:  # another seat's standing announcement holds that part: the show stands on its own
            return Outcome(faults=faults)
        return Outcome(faults=faults, announced=announcement)

    def _finish_if_over(self) -> None:
        if self.deal is not None and self.deal.is_over:
            self.match.finish_deal()
            self.started = False
