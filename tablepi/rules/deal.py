"""One deal of Konter a Matt: trumps, announcements, six tricks and the result (RULES.md 8-22, 24).

A :class:`Deal` works with whatever the table knows about the hands:

- **full knowledge** (a simulation, or the table's hand-scan mode): ``Deal(dealer, hands=...)``; an illegal card is
  caught the moment it is played;
- **partial knowledge** (the usual bar table): only the cards a player has *shown* (the matadors at an
  announcement) are known to be in his hand. A revoke is then caught when a later play proves that the player held
  the led suit, or a trump, when he failed to play it (rule 18).

``play(..., check=True)`` is the checked path: any fault raises :class:`~tablepi.errors.IllegalPlay`, naming seat,
card, trick and rule. ``check=False`` is what the table uses: the card is on the table whatever the rules say, so
the deal records it and returns the faults found, for the table to warn about and the house rules to punish.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import NamedTuple

from tablepi.errors import IllegalPlay, RulesError
from tablepi.rules.cards import KONTER_DIAMONDS, KONTER_HEARTS, MATT, Card, Suit
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
    has_matt = MATT in shown
    has_konter = KONTER_HEARTS in shown and KONTER_DIAMONDS in shown
    if has_matt and has_konter:
        return Announcement.KONTER_A_MATT
    if has_konter:
        return Announcement.KONTER
    if has_matt:
        return Announcement.MATT
    return None


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


@dataclass(frozen=True, slots=True)
class Fault:
    """A breach of the rules found in a play: what, who, in which trick (1-based), and why.

    For a revoke found later, ``trick`` is the trick of the revoke and ``proof`` the card whose play proved it.
    """

    code: FaultCode
    rule: int
    seat: Seat
    trick: int
    card: Card
    message: str
    proof: Card | None = None


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


class Deal:
    """The state of one deal. Mutable for speed; :meth:`copy` gives an independent snapshot."""

    __slots__ = (
        "_after",
        "_next",
        "_trick",
        "_voids",
        "announcements",
        "claimed_by",
        "dealer",
        "faults",
        "forehand",
        "hands",
        "known",
        "played",
        "revoke_by",
        "rules",
        "seen_by",
        "tricks",
        "trump",
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
        # Cards known to be in a hand without the whole hand being known: shown at an announcement (rule 11).
        self.known: dict[Seat, set[Card]] = {seat: set() for seat in Seat}
        self.seen_by: dict[Card, Seat] = {}
        self.trump: Suit | None = None
        self.announcements: list[tuple[Seat, Announcement]] = []
        self.tricks: list[Trick] = []
        self.played: set[Card] = set()
        self.faults: list[Fault] = []
        # For rule 18 with partial knowledge: (trick number, suit he failed to follow, card he played instead).
        self._voids: dict[Seat, list[tuple[int, Suit, Card]]] = {seat: [] for seat in Seat}
        self.claimed_by: Team | None = None
        self.revoke_by: Seat | None = None
        # Who plays next; kept up to date by every action so the hot path never recomputes it.
        self._next: Seat | None = None
        self._trick: Trick | None = None  # the trick being played, None between tricks
        self._after = {seat: self.rules.direction.next(seat) for seat in Seat}

    # --- reading the state -------------------------------------------------------------------------------------

    @property
    def phase(self) -> Phase:
        if self.trump is None:
            return Phase.TRUMPS
        return Phase.OVER if self._next is None else Phase.PLAY

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
        return self._trick

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
        return self._next

    def hand(self, seat: Seat) -> tuple[Card, ...] | None:
        """The cards still in ``seat``'s hand when the hands are known, else None."""
        return None if self.hands is None else tuple(self.hands[seat])

    def legal_plays(self, seat: Seat | None = None) -> tuple[Card, ...]:
        """The legal cards for the player to move (full knowledge only)."""
        seat = seat or self.to_play
        if seat is None or self.hands is None or self.trump is None:
            raise RulesError("legal plays need known hands, chosen trumps and a player to move")
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

    # --- actions -----------------------------------------------------------------------------------------------

    def choose_trump(self, suit: Suit, seat: Seat | None = None) -> None:
        """Forehand names trumps after seeing three cards (rule 9). Any suit; no passing."""
        if self.trump is not None:
            raise RulesError(f"trumps are already {self.trump.symbol} in this deal (rule 9)")
        if seat is not None and seat is not self.forehand:
            raise RulesError(f"{seat} cannot name trumps: forehand {self.forehand} names trumps (rule 9)")
        self.trump = suit
        self._next = self.forehand  # rule 12: forehand leads to trick 1

    def can_announce(self, seat: Seat) -> bool:
        """Announcing is allowed only before the player's own card to trick 1 (rule 10)."""
        if self.phase is Phase.OVER:
            return False
        return not self.tricks or (len(self.tricks) == 1 and self.tricks[0].card_of(seat) is None)

    def announce(self, seat: Seat, announcement: Announcement, shown: Iterable[Card] = ()) -> None:
        """Record an announcement (rule 10), checked against what is known of the announcer's hand.

        ``shown`` are the queens the announcer showed (rule 11); they become known to be in his hand. With full
        knowledge the hand itself is checked. A Konter needs both red queens in this one hand.
        """
        if not self.can_announce(seat):
            raise RulesError(f"{seat} announces {announcement.label} too late: only before his first card (rule 10)")
        already = set().union(*(a.parts for a in self.announced_by(seat))) if self.announcements else set()
        taken = set().union(*(a.parts for _, a in self.announcements)) if self.announcements else set()
        if announcement.parts & taken:
            what = "/".join(sorted(announcement.parts & taken))
            who = "he" if announcement.parts & already else "another player"
            raise RulesError(f"{seat} announces {announcement.label}, but {who} already announced {what} (rule 10)")
        shown_cards = set(shown)
        for card in announcement.cards:
            holder = self.holder(card)
            if card in self.played:
                raise RulesError(f"{seat} announces {announcement.label}, but {card.display} was already played")
            if holder is not None and holder is not seat:
                raise RulesError(
                    f"{seat} announces {announcement.label}, but {card.display} is in {holder}'s hand (rule 10)"
                )
            if holder is None and card not in shown_cards:
                raise RulesError(
                    f"{seat} announces {announcement.label} without showing {card.display} (rules 10-11)"
                )
        for card in announcement.cards:
            self._remember(seat, card)
        self.announcements.append((seat, announcement))

    def show(self, seat: Seat, card: Card) -> None:
        """Remember that ``seat`` showed ``card``: it is in his hand until he plays it (rule 11)."""
        holder = self.holder(card)
        if card in self.played:
            raise RulesError(f"{card.display} was already played in this deal")
        if holder is not None and holder is not seat:
            raise RulesError(f"{seat} shows {card.display}, but it is in {holder}'s hand")
        self._remember(seat, card)

    def check_play(self, seat: Seat, card: Card) -> None:
        """Raise :class:`IllegalPlay` if ``seat`` may not play ``card`` now; the message says why and cites a rule."""
        self._check_order(seat, card)
        assert self.trump is not None
        faults = self._faults_of(seat, card, self._reneges(card))
        if faults:
            raise IllegalPlay(faults[0].message)

    def play(self, seat: Seat, card: Card, *, check: bool = True) -> tuple[Fault, ...]:
        """Play ``card`` from ``seat``. Returns the faults this play shows (only with ``check=False``).

        Out-of-turn play, a card already played and plays outside the play phase always raise: the table keeps
        such cards out of the deal and warns instead.
        """
        hand = self.hands[seat] if self.hands is not None else None
        if seat is not self._next or card in self.played or (hand is not None and card not in hand):
            self._check_order(seat, card)  # raises, saying which of these it is
        assert self.trump is not None
        reneges = self._reneges(card)
        faults = self._faults_of(seat, card, reneges)
        if faults and check:
            raise IllegalPlay(faults[0].message)
        trick = self._trick
        if trick is None:
            trick = self._trick = Trick(leader=seat)
            self.tricks.append(trick)
        self._note_void(seat, card, trick.led, len(self.tricks), faults, reneges)
        trick.plays.append(Play(seat, card))
        self.played.add(card)
        if hand is not None:
            hand.remove(card)
        self.known[seat].discard(card)
        if len(trick.plays) == 4:
            trick.winner = trick.plays[trick_winner(trick.cards, self.trump)].seat  # rule 17
            self._next = trick.winner if len(self.tricks) < TRICKS_PER_DEAL else None  # rule 12
            self._trick = None
        else:
            self._next = self._after[seat]
        if faults:
            self.faults.extend(faults)
            if self.rules.revoke_penalty is RevokePenalty.LOSE_DEAL:
                revoke = next((f for f in faults if f.code is FaultCode.REVOKE), None)
                if revoke is not None:
                    self.revoke_by = revoke.seat
                    self._next = None
        return tuple(faults) if faults else ()

    def claim(self, team: Team) -> None:
        """A team with 21 or more points in its tricks lays its cards down and takes the deal (rule 21)."""
        if not self.rules.claims:
            raise RulesError("claims are switched off by the house rules")
        if self.phase is not Phase.PLAY:
            raise RulesError("a claim is possible only while tricks are being played (rule 21)")
        if self.current_trick is not None:
            raise RulesError("claim between tricks: finish the trick first (rule 21)")
        points = self.points()[team]
        if points < WINNING_POINTS:
            raise RulesError(f"{team} claims with {points} points; a claim needs 21 or more (rule 21)")
        self.claimed_by = team
        self._next = None

    def result(self) -> DealResult:
        """The deal's outcome (rules 19-21, 24). Only when the deal is over."""
        if self.phase is not Phase.OVER:
            raise RulesError("the deal is not over yet")
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
        other.known = {s: set(c) for s, c in self.known.items()}
        other.seen_by = dict(self.seen_by)
        other.trump = self.trump
        other.announcements = list(self.announcements)
        other.tricks = [Trick(t.leader, list(t.plays), t.winner) for t in self.tricks]
        other.played = set(self.played)
        other.faults = list(self.faults)
        other._voids = {s: list(v) for s, v in self._voids.items()}
        other.claimed_by = self.claimed_by
        other.revoke_by = self.revoke_by
        other._next = self._next
        other._after = self._after
        other._trick = other.tricks[-1] if self._trick is not None else None
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
        return self.seen_by.get(card)

    def _remember(self, seat: Seat, card: Card) -> None:
        self.known[seat].add(card)
        self.seen_by[card] = seat

    def _check_order(self, seat: Seat, card: Card) -> None:
        phase = self.phase
        if phase is Phase.TRUMPS:
            raise IllegalPlay(f"{seat} plays {card.display} before trumps are named (rule 9)")
        if phase is Phase.OVER:
            raise IllegalPlay(f"{seat} plays {card.display}, but the deal is over")
        if card in self.played:
            raise IllegalPlay(f"{seat} plays {card.display}, which was already played in this deal")
        expected = self.to_play
        if seat is not expected:
            raise IllegalPlay(
                f"{seat} plays {card.display} out of turn in trick {self.trick_number}: {expected} is to play (rule 12)"
            )
        if self.hands is not None and card not in self.hands[seat]:
            raise IllegalPlay(f"{seat} plays {card.display}, which is not in his hand")

    def _reneges(self, card: Card) -> bool:
        """Whether ``card`` fails to answer the current trick's lead (rules 13, 15); False when it leads."""
        trick = self._trick
        assert self.trump is not None
        return trick is not None and _reneges(card, trick.plays[0].card, self.trump)

    def _faults_of(self, seat: Seat, card: Card, reneges: bool) -> list[Fault]:
        """Every breach of the rules that playing ``card`` now shows: the revoke at hand, revokes it proves in
        earlier tricks, and a queen shown by another seat. ``reneges``: the card does not answer the lead."""
        assert self.trump is not None
        trump = self.trump
        number = len(self.tricks) + (0 if self._trick is not None else 1)
        faults: list[Fault] = []
        holder = self.seen_by.get(card)
        if holder is not None and holder is not seat:
            faults.append(
                Fault(
                    FaultCode.QUEEN_SHOWN_BY_OTHER, 11, seat, number, card,
                    f"{seat} plays {card.display}, which {holder} showed (rule 11)",
                )
            )
        trick = self._trick
        led = trick.plays[0].card if trick else None
        if led is not None and reneges:
            # With the whole hand known this is exactly "not a legal play"; with only shown cards known it is a
            # revoke when one of them is of the suit he had to play (rules 13, 15).
            led_suit = effective_suit(led, trump)
            hand = self.hands[seat] if self.hands is not None else self.known[seat]
            held = [c for c in hand if effective_suit(c, trump) is led_suit]
            if held:
                rule = 15 if led_suit is trump else 13
                faults.append(
                    Fault(
                        FaultCode.REVOKE, rule, seat, number, card,
                        f"{seat} revokes in trick {number}: {card.display} on {led.display} while holding "
                        f"{_listing(held)} (rule {rule})",
                    )
                )
        # Rule 18, later proof: this card is of a suit he earlier failed to follow, so he held it then.
        voids = self._voids[seat]
        suit = effective_suit(card, trump) if voids else None
        for trick_no, void_suit, played_instead in voids:
            if void_suit is suit:
                rule = 15 if void_suit is trump else 13
                what = "trumps" if void_suit is trump else void_suit.symbol
                faults.append(
                    Fault(
                        FaultCode.REVOKE, rule, seat, trick_no, played_instead,
                        f"{seat} revoked in trick {trick_no}: played {played_instead.display} while holding "
                        f"{what}, as {card.display} now shows (rules 18, {rule})",
                        proof=card,
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
        voids = self._voids[seat]
        if faults:
            proved = {f.trick for f in faults if f.proof is not None}
            voids[:] = [v for v in voids if v[0] not in proved]
            if any(f.code is FaultCode.REVOKE and f.proof is None for f in faults):
                return
        if led is not None and reneges:
            led_suit = effective_suit(led, self.trump)
            if all(v[1] is not led_suit for v in voids):
                voids.append((number, led_suit, card))


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


def _check_hands(hands: Mapping[Seat, list[Card]]) -> None:
    if set(hands) != set(Seat):
        raise RulesError("hands must be given for all four seats N E S W")
    seen: dict[Card, Seat] = {}
    for seat, cards in hands.items():
        if len(cards) != TRICKS_PER_DEAL:
            raise RulesError(f"{seat} holds {len(cards)} cards; each player gets six (rule 8)")
        for card in cards:
            if card in seen:
                raise RulesError(f"{card.display} is dealt to both {seen[card]} and {seat}")
            seen[card] = seat
