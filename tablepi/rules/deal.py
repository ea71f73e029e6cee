"""One deal of Konter a Matt: trumps, announcements, six tricks and the result (RULES.md 8-22, 24).

A :class:`Deal` works with whatever the table knows about the hands:

- **full knowledge** (a simulation, or the table's hand-scan mode): ``Deal(dealer, hands=...)``; an illegal card is
  caught the moment it is played;
- **partial knowledge** (the usual bar table): only the cards a player has *shown* (the matadors at an
  announcement) are known to be in his hand. A revoke is then caught when a later play proves that the player held
  the led suit, or a trump, when he failed to play it (rule 18).

``play(..., check=True)`` is the checked path: any fault raises :class:`~tablepi.rules.errors.IllegalPlay`, naming seat,
card, trick and rule. ``check=False`` is what the table uses: the card is on the table whatever the rules say, so
the deal records it and returns the faults found, for the table to warn about and the house rules to punish.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import NamedTuple

from tablepi.rules.cards import DECK, KONTER_DIAMONDS, KONTER_HEARTS, MATADORS, MATT, Card, Suit
from tablepi.rules.errors import IllegalPlay, RulesCode, RulesError
from tablepi.rules.house import HouseRules, RevokePenalty
from tablepi.rules.play import legal_plays, trick_winner
from tablepi.rules.seats import Seat, Team
from tablepi.rules.trumps import effective_suit, effective_tables

TRICKS_PER_DEAL = 6
WINNING_POINTS = 21  # RULES.md 19: 21 or more of the 40 wins


class Announcement(enum.Enum):
    """What a player may announce before his first card (RULES.md 10) and what it adds to the stake (rule 24)."""

    MATT = "matt"
    KONTER = "konter"
    KONTER_A_MATT = "konter_a_matt"

    @property
    def cards(self) -> tuple[Card, ...]:
        """The queens the announcer must hold."""
        return _ANNOUNCEMENT_CARDS[self]

    @property
    def parts(self) -> frozenset[str]:
        """Konter a Matt is Matt and Konter together (rule 10)."""
        return _ANNOUNCEMENT_PARTS[self]

    @property
    def label(self) -> str:
        return {"matt": "Matt", "konter": "Konter", "konter_a_matt": "Konter a Matt"}[self.value]


_ANNOUNCEMENT_CARDS = {
    Announcement.MATT: (MATT,),
    Announcement.KONTER: (KONTER_HEARTS, KONTER_DIAMONDS),
    Announcement.KONTER_A_MATT: (MATT, KONTER_HEARTS, KONTER_DIAMONDS),
}
_ANNOUNCEMENT_PARTS = {
    Announcement.MATT: frozenset({"matt"}),
    Announcement.KONTER: frozenset({"konter"}),
    Announcement.KONTER_A_MATT: frozenset({"matt", "konter"}),
}


def announcement_for(cards: Iterable[Card]) -> Announcement | None:
    """The announcement that a set of shown matadors makes: ♠Q → Matt, ♥Q+♦Q → Konter, all three → both."""
    shown = set(cards)
    parts: set[str] = set()
    if MATT in shown:
        parts.add("matt")
    if KONTER_HEARTS in shown and KONTER_DIAMONDS in shown:
        parts.add("konter")
    return announcement_of_parts(parts)


def announcement_of_parts(parts: Iterable[str]) -> Announcement | None:
    """The one announcement made of ``parts`` ("matt", "konter"): Konter a Matt is both (rule 10)."""
    return _ANNOUNCEMENT_OF_PARTS.get(frozenset(parts))


_ANNOUNCEMENT_OF_PARTS = {parts: announcement for announcement, parts in _ANNOUNCEMENT_PARTS.items()}


class Phase(enum.Enum):
    """Where a deal stands."""

    TRUMPS = "trumps"  # forehand has seen three cards and must name trumps (rule 9)
    PLAY = "play"  # tricks are being played (rules 12-18)
    OVER = "over"  # six tricks played, a claim, or a revoke under the lose_deal house rule


class Play(NamedTuple):
    """One card played by one seat. A named tuple: plays are made in the hot path of every deal."""

    seat: Seat
    card: Card

    def __str__(self) -> str:
        return f"{self.seat}:{self.card}"


@dataclass(slots=True)
class Trick:
    """A trick: who led and the cards in playing order. ``winner`` is set when the fourth card is played."""

    leader: Seat
    plays: list[Play] = field(default_factory=list)
    winner: Seat | None = None

    @property
    def cards(self) -> tuple[Card, ...]:
        return tuple(play.card for play in self.plays)

    @property
    def led(self) -> Card | None:
        return self.plays[0].card if self.plays else None

    @property
    def complete(self) -> bool:
        return len(self.plays) == 4

    @property
    def points(self) -> int:
        return sum(play.card.points for play in self.plays)

    def card_of(self, seat: Seat) -> Card | None:
        for play in self.plays:
            if play.seat is seat:
                return play.card
        return None


class FaultCode(enum.Enum):
    REVOKE = "revoke"  # rule 18
    QUEEN_SHOWN_BY_OTHER = "queen_shown_by_other_seat"  # rule 11
    FALSE_ANNOUNCEMENT = "false_announcement"  # rules 10-11: a claimed queen turned up in another hand


@dataclass(frozen=True, slots=True)
class Fault:
    """A breach of the rules found in a play or a show: what, who, in which trick (1-based), and why.

    For a revoke, ``led`` is the card led and ``held`` the cards that prove he could answer it; for a revoke found
    later, ``trick`` is the trick of the revoke and ``proof`` the card whose play proved it (then ``held`` is
    ``(proof,)``). For a false announcement, ``seat`` is the announcer, ``card`` the queen he claimed,
    ``holder`` the seat it turned up at and ``announcement`` what is void. ``message`` is English for logs.
    """

    code: FaultCode
    rule: int
    seat: Seat
    trick: int
    card: Card
    message: str
    proof: Card | None = None
    led: Card | None = None
    held: tuple[Card, ...] = ()
    holder: Seat | None = None
    announcement: Announcement | None = None


@dataclass(frozen=True, slots=True)
class DealResult:
    """The outcome of a deal (RULES.md 19-21, 24) before the slate applies it."""

    trump_team: Team
    points: Mapping[Team, int]
    tricks: Mapping[Team, int]
    winner: Team | None  # None: a 20-20 tie
    kapo: bool
    claimed_by: Team | None
    revoke_by: Seat | None  # the deal was lost on a revoke (lose_deal house rule)
    announcements: tuple[tuple[Seat, Announcement], ...]

    @property
    def announced_lines(self) -> int:
        """+1 for Matt, +1 for Konter (Konter a Matt = both), each counted once (rule 24)."""
        parts: set[str] = set()
        for _, announcement in self.announcements:
            parts |= announcement.parts
        return len(parts)

    @property
    def stake(self) -> int:
        """Lines the deal is worth: 1 + announcements + 1 for Kapo (rule 24). A tie's stake: 1 + announcements."""
        return 1 + self.announced_lines + (1 if self.kapo else 0)

    @property
    def is_tie(self) -> bool:
        return self.winner is None

    def describe(self) -> str:
        """The result in words, e.g. ``'NS win 25-15, Konter a Matt, Kapo: 4 lines'``."""
        labels = [a.label for _, a in self.announcements]
        extras = ", ".join([*labels, *(["Kapo"] if self.kapo else [])])
        ns, ew = self.points[Team.NS], self.points[Team.EW]
        if self.winner is None:
            head = f"tie {ns}-{ew}"
        else:
            head = f"{self.winner} win {self.points[self.winner]}-{self.points[self.winner.other]}"
            if self.claimed_by is not None:
                head += " (claimed)"
            if self.revoke_by is not None:
                head += f" (revoke by {self.revoke_by})"
        lines = "line" if self.stake == 1 else "lines"
        return f"{head}{', ' + extras if extras else ''}: {self.stake} {lines}"


@dataclass(slots=True)
class Evidence:
    """What the table learned of the hands while the deal is played, without the whole hands being known.

    ``known``/``seen_by``: the cards seen in each hand (shown on the seat's zone, scanned; rule 11), until played.
    ``shown``: what the players saw, in order: (cards played before it, seat, card) for each card shown at the
    table (a tap, the trump card, a queen shown at an announcement); the review judges each card on what was seen
    then. ``claimed``: queens a standing announcement says are in the announcer's hand, not seen (STYLE.md 17): a
    claim raises the stake while it stands, is never evidence, and a sight of the queen elsewhere voids it.
    ``voids``: for rule 18, per seat, (trick, suit he failed to follow, card he played instead, card led).
    """

    known: dict[Seat, set[Card]]
    seen_by: dict[Card, Seat]
    shown: list[tuple[int, Seat, Card]]
    claimed: dict[Card, Seat]
    voids: dict[Seat, list[tuple[int, Suit, Card, Card]]]

    @classmethod
    def none(cls) -> Evidence:
        return cls({seat: set() for seat in Seat}, {}, [], {}, {seat: [] for seat in Seat})

    def copy(self) -> Evidence:
        return Evidence(
            {s: set(c) for s, c in self.known.items()},
            dict(self.seen_by),
            list(self.shown),
            dict(self.claimed),
            {s: list(v) for s, v in self.voids.items()},
        )


@dataclass(slots=True)
class _Turn:
    """Who plays next (None before trumps and once the deal is over), the trick being played (None between
    tricks), and the seat after each; kept up to date by every action so the hot path never recomputes them."""

    next: Seat | None
    trick: Trick | None
    after: dict[Seat, Seat]


class Deal:
    """The state of one deal. Mutable for speed; :meth:`copy` gives an independent snapshot."""

    __slots__ = (
        "_turn",
        "announced_at",
        "announcements",
        "claimed_by",
        "dealer",
        "evidence",
        "faults",
        "forehand",
        "hands",
        "played",
        "revoke_by",
        "rules",
        "tricks",
        "trump",
        "voided",
    )

    def __init__(
        self,
        dealer: Seat,
        rules: HouseRules | None = None,
        hands: Mapping[Seat, Iterable[Card]] | None = None,
    ) -> None:
        self.rules = rules or HouseRules()
        self.dealer = dealer
        self.forehand = self.rules.direction.next(dealer)  # rule 2
        self.hands: dict[Seat, list[Card]] | None = None
        if hands is not None:
            self.hands = {seat: list(cards) for seat, cards in hands.items()}
            _check_hands(self.hands)
        self.evidence = Evidence.none()
        self.trump: Suit | None = None
        self.announcements: list[tuple[Seat, Announcement]] = []  # the standing ones, one per seat
        # When each standing part ("matt", "konter") was announced: the cards played before it. A card played
        # before an announcement was played on the stake without it.
        self.announced_at: dict[str, int] = {}
        self.voided: list[tuple[Seat, Announcement]] = []  # announcements evidence proved false
        self.tricks: list[Trick] = []
        self.played: set[Card] = set()
        self.faults: list[Fault] = []
        self.claimed_by: Team | None = None
        self.revoke_by: Seat | None = None
        self._turn = _Turn(None, None, {seat: self.rules.direction.next(seat) for seat in Seat})

    # --- reading the state -------------------------------------------------------------------------------------

    @property
    def phase(self) -> Phase:
        if self.trump is None:
            return Phase.TRUMPS
        return Phase.OVER if self._turn.next is None else Phase.PLAY

    @property
    def is_over(self) -> bool:
        return self.phase is Phase.OVER

    @property
    def trump_team(self) -> Team:
        """Forehand's partnership (the one that named trumps)."""
        return self.forehand.team

    @property
    def current_trick(self) -> Trick | None:
        """The trick being played, or None between tricks (and before the first card)."""
        return self._turn.trick

    @property
    def completed_tricks(self) -> list[Trick]:
        return [trick for trick in self.tricks if trick.complete]

    @property
    def trick_number(self) -> int:
        """1-based number of the trick now being played (or about to be led)."""
        if self.tricks and not self.tricks[-1].complete:
            return len(self.tricks)
        return min(len(self.tricks) + 1, TRICKS_PER_DEAL)

    @property
    def to_play(self) -> Seat | None:
        """Who must play the next card (rule 12), or None before trumps and after the deal."""
        return self._turn.next

    def hand(self, seat: Seat) -> tuple[Card, ...] | None:
        """The cards still in ``seat``'s hand when the hands are known, else None."""
        return None if self.hands is None else tuple(self.hands[seat])

    def legal_plays(self, seat: Seat | None = None) -> tuple[Card, ...]:
        """The legal cards for the player to move (full knowledge only)."""
        seat = seat or self.to_play
        if seat is None or self.hands is None or self.trump is None:
            raise RulesError("legal plays need known hands, chosen trumps and a player to move",
                             code=RulesCode.NOT_PLAYING)
        trick = self.current_trick
        return legal_plays(self.hands[seat], trick.led if trick else None, self.trump)

    def points(self) -> dict[Team, int]:
        """Card points in each team's completed tricks so far (RULES.md 19)."""
        totals = {Team.NS: 0, Team.EW: 0}
        for trick in self.completed_tricks:
            assert trick.winner is not None
            totals[trick.winner.team] += trick.points
        return totals

    def tricks_won(self) -> dict[Team, int]:
        counts = {Team.NS: 0, Team.EW: 0}
        for trick in self.completed_tricks:
            assert trick.winner is not None
            counts[trick.winner.team] += 1
        return counts

    def announced_by(self, seat: Seat) -> tuple[Announcement, ...]:
        return tuple(a for s, a in self.announcements if s is seat)

    def may_hold(self, seat: Seat) -> tuple[Card, ...]:
        """The cards that may still be in ``seat``'s hand on what was seen (rule 11), in deck order: none played,
        none seen in another hand; only those seen in his once they are all his hand still holds (six cards a
        hand, rule 8, less those he played).

        >>> deal = Deal(Seat.N)
        >>> deal.show(Seat.E, Card.parse("QS"))
        ()
        >>> Card.parse("QS") in deal.may_hold(Seat.W), Card.parse("QS") in deal.may_hold(Seat.E)
        (False, True)
        """
        own = self.evidence.known[seat]
        played = sum(1 for trick in self.tricks if trick.card_of(seat) is not None)
        if own and len(own) + played >= TRICKS_PER_DEAL:
            return tuple(card for card in DECK if card in own)
        elsewhere = {card for other, cards in self.evidence.known.items() if other is not seat for card in cards}
        return tuple(card for card in DECK if card not in self.played and card not in elsewhere)

    # --- actions -----------------------------------------------------------------------------------------------

    def choose_trump(self, suit: Suit, seat: Seat | None = None) -> None:
        """Forehand names trumps after seeing three cards (rule 9). Any suit; no passing."""
        if self.trump is not None:
            raise RulesError(f"trumps are already {self.trump.symbol} in this deal (rule 9)",
                             code=RulesCode.TRUMPS_NAMED, seat=seat, rule=9)
        if seat is not None and seat is not self.forehand:
            raise RulesError(f"{seat} cannot name trumps: forehand {self.forehand} names trumps (rule 9)",
                             code=RulesCode.NOT_FOREHAND, seat=seat, rule=9, holder=self.forehand)
        self.trump = suit
        self._turn.next = self.forehand  # rule 12: forehand leads to trick 1

    def can_announce(self, seat: Seat) -> bool:
        """Announcing is allowed only before the player's own card to trick 1 (rule 10)."""
        if self.phase is not Phase.PLAY:
            return False
        return not self.tricks or (len(self.tricks) == 1 and self.tricks[0].card_of(seat) is None)

    def may_announce(self, seat: Seat) -> tuple[Announcement, ...]:
        """Every announcement ``seat`` may still make now (rule 10), as the table offers them.

        Before his first card; Matt and Konter once per deal whoever made them (a seat that announced Matt may add
        Konter: together one Konter a Matt); and never a queen the evidence puts elsewhere (played, seen in another
        hand, or missing from his scanned hand). This is the one place the announce rule lives.
        """
        if not self.can_announce(seat):
            return ()
        taken = self._taken_parts()
        return tuple(
            announcement for announcement in Announcement
            if not announcement.parts & taken and self._refusal(seat, announcement, claim=True) is None
        )

    def announce(
        self, seat: Seat, announcement: Announcement, shown: Iterable[Card] = (), *, claim: bool = False
    ) -> None:
        """Record an announcement (rule 10), checked against what is known of the announcer's hand.

        ``shown`` are the queens the announcer showed (rule 11); they become evidence of his hand. With full
        knowledge the hand itself is checked. ``claim``: the announcer says he holds the queens he did not show
        (a touch on the screen); they are *claimed*, not known: the announcement stands, raising the stake, until
        evidence contradicts it (:meth:`play`, :meth:`show`), and it never supports a revoke. Without ``claim`` a
        queen neither shown nor known is refused. A Konter needs both red queens in this one hand. Matt and Konter
        of the same seat make one Konter a Matt.
        """
        if not self.can_announce(seat):
            raise RulesError(f"{seat} announces {announcement.label} too late: only before his first card (rule 10)",
                             code=RulesCode.TOO_LATE, seat=seat, rule=10)
        taken = self._taken_parts()
        if announcement.parts & taken:
            already = set().union(*(a.parts for a in self.announced_by(seat)))
            what = "/".join(sorted(announcement.parts & taken))
            who = "he" if announcement.parts & already else "another player"
            raise RulesError(f"{seat} announces {announcement.label}, but {who} already announced {what} (rule 10)",
                             code=RulesCode.ALREADY_ANNOUNCED, seat=seat, rule=10)
        shown_cards = set(shown)
        refusal = self._refusal(seat, announcement, claim=claim, shown=shown_cards)
        if refusal is not None:
            raise refusal
        for card in announcement.cards:
            if card in shown_cards:
                self._remember(seat, card)
                self.evidence.shown.append((len(self.played), seat, card))
            elif self.holder(card) is seat:
                self._remember(seat, card)
            else:
                self.evidence.claimed[card] = seat
        self._add_announcement(seat, announcement)

    def announcement_shown(self, seat: Seat) -> Announcement | None:
        """What the matadors ``seat`` has shown announce beyond what he announced already (rule 10).

        Only shown cards count, even when the hands were scanned: announcing is the player's choice.
        """
        parts = _parts_of(announcement_for(c for c in MATADORS if c in self.evidence.known[seat]))
        parts -= _parts_of(*self.announced_by(seat))
        return announcement_of_parts(parts)

    def show(self, seat: Seat, card: Card, *, public: bool = True) -> tuple[Fault, ...]:
        """Remember that ``seat`` showed ``card``: it is in his hand until he plays it (rule 11).

        ``public``: the players saw it (a tap, the trump card, a queen shown at an announcement), so it joins
        :attr:`Evidence.shown`; a card of a partial hand scan is known to the table only.
        Returns the false announcement it proves, if another seat had claimed that queen.
        """
        holder = self.holder(card)
        if card in self.played:
            raise RulesError(f"{card.display} was already played in this deal",
                             code=RulesCode.ALREADY_PLAYED, seat=seat, card=card, rule=3)
        if holder is not None and holder is not seat:
            raise RulesError(f"{seat} shows {card.display}, but it is in {holder}'s hand",
                             code=RulesCode.HELD_ELSEWHERE, seat=seat, card=card, rule=11, holder=holder)
        self._remember(seat, card)
        if public:
            self.evidence.shown.append((len(self.played), seat, card))
        void = self._void_claim(seat, card, self.trick_number)
        return (void,) if void is not None else ()

    def play(self, seat: Seat, card: Card, *, check: bool = True) -> tuple[Fault, ...]:
        """Play ``card`` from ``seat``. Returns the faults this play shows (only with ``check=False``).

        Out-of-turn play, a card already played and plays outside the play phase always raise: the table keeps
        such cards out of the deal and warns instead.
        """
        hand = self.hands[seat] if self.hands is not None else None
        if seat is not self._turn.next or card in self.played or (hand is not None and card not in hand):
            self._check_order(seat, card)  # raises, saying which of these it is
        assert self.trump is not None
        reneges = self._reneges(card)
        faults = self._faults_of(seat, card, reneges)
        if faults and check:
            raise _illegal(faults[0])
        trick = self._turn.trick
        if trick is None:
            trick = self._turn.trick = Trick(leader=seat)
            self.tricks.append(trick)
        self._note_void(seat, card, trick.led, len(self.tricks), faults, reneges)
        trick.plays.append(Play(seat, card))
        self.played.add(card)
        if hand is not None:
            hand.remove(card)
        for known in self.evidence.known.values():  # a played card is in nobody's hand any more, whoever showed it
            known.discard(card)
        void = self._void_claim(seat, card, len(self.tricks))
        if void is not None:
            faults.append(void)
        if len(trick.plays) == 4:
            trick.winner = trick.plays[trick_winner(trick.cards, self.trump)].seat  # rule 17
            self._turn.next = trick.winner if len(self.tricks) < TRICKS_PER_DEAL else None  # rule 12
            self._turn.trick = None
        else:
            self._turn.next = self._turn.after[seat]
        if faults:
            self.faults.extend(faults)
            if self.rules.revoke_penalty is RevokePenalty.LOSE_DEAL:
                revoke = next((f for f in faults if f.code is FaultCode.REVOKE), None)
                if revoke is not None:
                    self.revoke_by = revoke.seat
                    self._turn.next = None
        return tuple(faults) if faults else ()

    def claim_refusal(self, team: Team) -> RulesError | None:
        """Why ``team`` may not claim now (rule 21 and the ``claims`` house rule), or None if it may."""
        if not self.rules.claims:
            return RulesError("claims are switched off by the house rules", code=RulesCode.CLAIMS_OFF, rule=21)
        if self.phase is not Phase.PLAY:
            return RulesError("a claim is possible only while tricks are being played (rule 21)",
                              code=RulesCode.NOT_PLAYING, rule=21)
        if self.current_trick is not None:
            return RulesError("claim between tricks: finish the trick first (rule 21)",
                              code=RulesCode.CLAIM_MID_TRICK, rule=21, trick=self.trick_number)
        points = self.points()[team]
        if points < WINNING_POINTS:
            return RulesError(f"{team} claims with {points} points; a claim needs 21 or more (rule 21)",
                              code=RulesCode.CLAIM_POINTS, rule=21)
        return None

    def claimable(self) -> Team | None:
        """The team that may claim now, if any (rule 21: at most one team can hold 21 of the 40 points)."""
        return next((team for team in Team if self.claim_refusal(team) is None), None)

    def claim(self, team: Team) -> None:
        """A team with 21 or more points in its tricks lays its cards down and takes the deal (rule 21)."""
        refusal = self.claim_refusal(team)
        if refusal is not None:
            raise refusal
        self.claimed_by = team
        self._turn.next = None

    def result(self) -> DealResult:
        """The deal's outcome (rules 19-21, 24). Only when the deal is over."""
        if self.phase is not Phase.OVER:
            raise RulesError("the deal is not over yet", code=RulesCode.NOT_OVER)
        return settle(
            self.trump_team,
            self.points(),
            self.tricks_won(),
            tuple(self.announcements),
            claimed_by=self.claimed_by,
            revoke_by=self.revoke_by,
        )

    def copy(self) -> Deal:
        """An independent copy (the table snapshots deals; a search may explore from one)."""
        other = Deal.__new__(Deal)
        other.rules = self.rules
        other.dealer = self.dealer
        other.forehand = self.forehand
        other.hands = None if self.hands is None else {s: list(c) for s, c in self.hands.items()}
        other.evidence = self.evidence.copy()
        other.trump = self.trump
        other.announcements = list(self.announcements)
        other.announced_at = dict(self.announced_at)
        other.voided = list(self.voided)
        other.tricks = [Trick(t.leader, list(t.plays), t.winner) for t in self.tricks]
        other.played = set(self.played)
        other.faults = list(self.faults)
        other.claimed_by = self.claimed_by
        other.revoke_by = self.revoke_by
        trick = other.tricks[-1] if self._turn.trick is not None else None
        other._turn = _Turn(self._turn.next, trick, self._turn.after)
        return other

    # --- internals ---------------------------------------------------------------------------------------------

    def holder(self, card: Card) -> Seat | None:
        """Who is known to hold ``card`` now: from the hands when known, else from what was shown (rule 11)."""
        if card in self.played:
            return None
        if self.hands is not None:
            for seat, cards in self.hands.items():
                if card in cards:
                    return seat
            return None
        return self.evidence.seen_by.get(card)

    def _remember(self, seat: Seat, card: Card) -> None:
        self.evidence.known[seat].add(card)
        self.evidence.seen_by[card] = seat

    def _taken_parts(self) -> set[str]:
        """Matt and Konter announced so far in this deal (each counts once, rule 24)."""
        return _parts_of(*(a for _, a in self.announcements))

    def _refusal(
        self, seat: Seat, announcement: Announcement, *, claim: bool, shown: set[Card] | None = None
    ) -> RulesError | None:
        """Why the evidence forbids ``seat`` this announcement (rule 10), or None."""
        shown = shown or set()
        for card in announcement.cards:
            holder = self.holder(card)
            if card in self.played:
                return RulesError(f"{seat} announces {announcement.label}, but {card.display} was already played",
                                  code=RulesCode.ALREADY_PLAYED, seat=seat, card=card, rule=10)
            if holder is not None and holder is not seat:
                return RulesError(
                    f"{seat} announces {announcement.label}, but {card.display} is in {holder}'s hand (rules 10-11)",
                    code=RulesCode.HELD_ELSEWHERE, seat=seat, card=card, rule=11, holder=holder,
                )
            if holder is None and self.hands is not None:
                return RulesError(
                    f"{seat} announces {announcement.label}, but {card.display} is not in his hand (rule 10)",
                    code=RulesCode.NOT_IN_HAND, seat=seat, card=card, rule=10,
                )
            if holder is None and card not in shown and not claim:
                return RulesError(
                    f"{seat} announces {announcement.label} without showing {card.display} (rules 10-11)",
                    code=RulesCode.NOT_SHOWN, seat=seat, card=card, rule=11,
                )
        return None

    def _add_announcement(self, seat: Seat, announcement: Announcement) -> None:
        """A seat's announcements are one: Matt, then Konter, is his Konter a Matt (rule 10)."""
        for part in announcement.parts:
            self.announced_at.setdefault(part, len(self.played))
        for i, (who, before) in enumerate(self.announcements):
            if who is seat:
                merged = announcement_of_parts(before.parts | announcement.parts)
                assert merged is not None
                self.announcements[i] = (seat, merged)
                return
        self.announcements.append((seat, announcement))

    def _void_claim(self, seat: Seat, card: Card, trick: int) -> Fault | None:
        """Evidence against a claim: ``card`` seen at ``seat`` while another seat's announcement claims it. That
        announcement is void (the stake drops back); nothing else follows from it (rules 10-11)."""
        announcer = self.evidence.claimed.pop(card, None)
        if announcer is None or announcer is seat:
            return None  # unclaimed, or the announcer's own queen: a claim proved true is evidence now
        announcement = next(a for s, a in self.announcements if s is announcer)
        self.announcements = [(s, a) for s, a in self.announcements if s is not announcer]
        self.voided.append((announcer, announcement))
        for part in announcement.parts:
            self.announced_at.pop(part, None)
        for other in [c for c, s in self.evidence.claimed.items() if s is announcer]:
            del self.evidence.claimed[other]
        return Fault(
            FaultCode.FALSE_ANNOUNCEMENT, 10, announcer, trick, card,
            f"{announcer} announced {announcement.label}, but {card.display} is {seat}'s: "
            "the announcement does not count (rules 10-11)",
            holder=seat, announcement=announcement,
        )

    def _check_order(self, seat: Seat, card: Card) -> None:
        phase = self.phase
        trick = self.trick_number
        if phase is Phase.TRUMPS:
            raise IllegalPlay(f"{seat} plays {card.display} before trumps are named (rule 9)",
                              code=RulesCode.NOT_PLAYING, rule=9, seat=seat, card=card, trick=trick)
        if phase is Phase.OVER:
            raise IllegalPlay(f"{seat} plays {card.display}, but the deal is over", code=RulesCode.NOT_PLAYING,
                              seat=seat, card=card, trick=trick)
        if card in self.played:
            raise IllegalPlay(f"{seat} plays {card.display}, which was already played in this deal",
                              code=RulesCode.ALREADY_PLAYED, rule=3, seat=seat, card=card, trick=trick)
        expected = self.to_play
        if seat is not expected:
            raise IllegalPlay(
                f"{seat} plays {card.display} out of turn in trick {trick}: {expected} is to play (rule 12)",
                code=RulesCode.OUT_OF_TURN, rule=12, holder=expected, seat=seat, card=card, trick=trick,
            )
        if self.hands is not None and card not in self.hands[seat]:
            raise IllegalPlay(f"{seat} plays {card.display}, which is not in his hand", code=RulesCode.NOT_IN_HAND,
                              seat=seat, card=card, trick=trick)

    def _reneges(self, card: Card) -> bool:
        """Whether ``card`` fails to answer the current trick's lead (rules 13, 15); False when it leads."""
        trick = self._turn.trick
        assert self.trump is not None
        return trick is not None and _reneges(card, trick.plays[0].card, self.trump)

    def _faults_of(self, seat: Seat, card: Card, reneges: bool) -> list[Fault]:
        """Every breach of the rules that playing ``card`` now shows: the revoke at hand, revokes it proves in
        earlier tricks, and a queen shown by another seat. ``reneges``: the card does not answer the lead."""
        assert self.trump is not None
        trump = self.trump
        number = len(self.tricks) + (0 if self._turn.trick is not None else 1)
        faults: list[Fault] = []
        holder = self.evidence.seen_by.get(card)
        if holder is not None and holder is not seat:
            faults.append(
                Fault(
                    FaultCode.QUEEN_SHOWN_BY_OTHER, 11, seat, number, card,
                    f"{seat} plays {card.display}, which {holder} showed (rule 11)",
                )
            )
        trick = self._turn.trick
        led = trick.plays[0].card if trick else None
        if led is not None and reneges:
            # With the whole hand known this is exactly "not a legal play"; with only shown cards known it is a
            # revoke when one of them is of the suit he had to play (rules 13, 15).
            led_suit = effective_suit(led, trump)
            # Only evidence counts: cards in the scanned hand or seen on his zone, never a claimed queen.
            hand = self.hands[seat] if self.hands is not None else self.evidence.known[seat]
            held = [c for c in hand if effective_suit(c, trump) is led_suit and c not in self.played]
            if held:
                rule = 15 if led_suit is trump else 13
                faults.append(
                    Fault(
                        FaultCode.REVOKE, rule, seat, number, card,
                        f"{seat} revokes in trick {number}: {card.display} on {led.display} while holding "
                        f"{_listing(held)} (rule {rule})",
                        led=led, held=tuple(held),
                    )
                )
        # Rule 18, later proof: this card is of a suit he earlier failed to follow, so he held it then.
        voids = self.evidence.voids[seat]
        suit = effective_suit(card, trump) if voids else None
        for trick_no, void_suit, played_instead, led_then in voids:
            if void_suit is suit:
                rule = 15 if void_suit is trump else 13
                faults.append(
                    Fault(
                        FaultCode.REVOKE, rule, seat, trick_no, played_instead,
                        f"{seat} revoked in trick {trick_no}: {played_instead.display} on {led_then.display} while "
                        f"holding {card.display}, as its play now shows (rules 18, {rule})",
                        proof=card, led=led_then, held=(card,),
                    )
                )
                break
        return faults

    def _note_void(
        self, seat: Seat, card: Card, led: Card | None, number: int, faults: list[Fault], reneges: bool
    ) -> None:
        """Keep the record rule 18 needs: which suits ``seat`` has failed to play, in which trick, with what card.

        A claim proved by this play is dropped (a revoke is reported once). A card that does not answer the lead,
        and is not itself a revoke already, makes a new claim: the player says he is void in the led suit.
        """
        assert self.trump is not None
        voids = self.evidence.voids[seat]
        if faults:
            proved = {f.trick for f in faults if f.proof is not None}
            voids[:] = [v for v in voids if v[0] not in proved]
            if any(f.code is FaultCode.REVOKE and f.proof is None for f in faults):
                return
        if led is not None and reneges:
            led_suit = effective_suit(led, self.trump)
            if all(v[1] is not led_suit for v in voids):
                voids.append((number, led_suit, card, led))


def settle(
    trump_team: Team,
    points: Mapping[Team, int],
    tricks: Mapping[Team, int],
    announcements: tuple[tuple[Seat, Announcement], ...] = (),
    *,
    claimed_by: Team | None = None,
    revoke_by: Seat | None = None,
) -> DealResult:
    """Decide a deal from its totals (rules 19-21): the winner, a tie, Kapo."""
    winner: Team | None
    if revoke_by is not None:
        winner = revoke_by.team.other  # house rule lose_deal
    elif claimed_by is not None:
        winner = claimed_by  # rule 21
    elif points[Team.NS] >= WINNING_POINTS:
        winner = Team.NS
    elif points[Team.EW] >= WINNING_POINTS:
        winner = Team.EW
    else:
        winner = None  # 20-20 (rule 19)
    # Rule 20: Kapo is all six tricks, not merely 40 points; never on a revoke.
    kapo = winner is not None and revoke_by is None and tricks[winner] == TRICKS_PER_DEAL
    return DealResult(
        trump_team=trump_team,
        points=dict(points),
        tricks=dict(tricks),
        winner=winner,
        kapo=kapo,
        claimed_by=claimed_by,
        revoke_by=revoke_by,
        announcements=announcements,
    )


def _reneges(card: Card, led: Card, trump: Suit) -> bool:
    """Whether ``card`` fails to answer ``led`` (rules 13, 15): legal only if the player was void."""
    effective, _ = effective_tables(trump)
    suit = effective[card.index]
    return suit is not trump and suit is not effective[led.index]


def _listing(cards: Iterable[Card]) -> str:
    return " ".join(card.display for card in cards)


def _parts_of(*announcements: Announcement | None) -> set[str]:
    parts: set[str] = set()
    for announcement in announcements:
        if announcement is not None:
            parts |= announcement.parts
    return parts


def _illegal(fault: Fault) -> IllegalPlay:
    code = RulesCode.REVOKE if fault.code is FaultCode.REVOKE else RulesCode.HELD_ELSEWHERE
    return IllegalPlay(fault.message, code=code, seat=fault.seat, card=fault.card, trick=fault.trick,
                       rule=fault.rule, holder=fault.holder)


def _check_hands(hands: Mapping[Seat, list[Card]]) -> None:
    if set(hands) != set(Seat):
        raise RulesError("hands must be given for all four seats N E S W", code=RulesCode.BAD_HANDS, rule=8)
    seen: dict[Card, Seat] = {}
    for seat, cards in hands.items():
        if len(cards) != TRICKS_PER_DEAL:
            raise RulesError(f"{seat} holds {len(cards)} cards; each player gets six (rule 8)",
                             code=RulesCode.BAD_HANDS, seat=seat, rule=8)
        for card in cards:
            if card in seen:
                raise RulesError(f"{card.display} is dealt to both {seen[card]} and {seat}",
                                 code=RulesCode.BAD_HANDS, seat=seat, card=card, rule=8, holder=seen[card])
            seen[card] = seat
