"""The screen's hand-entry panels: what a finger does between opening one and the gesture it makes.

A panel is a small frozen value held by the app while it is open (a card picker halfway, after its suit; the
name typed so far), never by the table and never in the journal: only the finished gesture is a table event
(a card entered by hand, a player seated, a deal entered...). :func:`press` is pure: a panel and a key in, the
next panel (or None: closed) and the gesture (or None) out, so every panel is unit-tested without pygame.

Panels:

- :class:`CardPicker` — a card by hand for a seat whose reader is off or misreads: suit, then rank, offering
  only the cards still possible for that seat (not played, not shown by another seat), then Confirm; for
  forehand before trumps are named, the trump suit, then Confirm;
- :class:`Keyboard` — a player's name, with the names of earlier matches offered first;
- :class:`DealerChoice` — the first dealer of the match;
- :class:`DealForm` — a whole deal by hand (who named trumps, announcements, the winner or a tie, points, Kapo,
  claim), or the correction of a past deal (any deal of the match, chosen with ◀ ▶, filled in as it was scored);
- :class:`HistoryPanel` — the evening's deals, scrollable; a touch on a deal of the match corrects it;
- :class:`Menu` — opened from the header: which of these can be opened now;
- :class:`MatchStart` — offered by itself as a match begins: the players' names, the first dealer, or play;
- :class:`Answering` — a correction proposed: each team accepts or refuses it;
- :class:`EnrolMenu` and :class:`Enrolling` — a deck or a player tag enrolled through the running table: the
  name on the keyboard, then each card laid when asked (Stop ends it, writing nothing).

Keys are values (:mod:`tablepi.display.keys`: ``SuitKey(Suit.HEARTS)``, ``CardKey(card)``, ``Word.OK``...): the
sheet draws a panel's keys, the hit-map carries the one touched back, and :func:`press` takes it as it is.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass, replace

from tablepi.display.keys import (
    AnswerKey,
    CardKey,
    CharKey,
    DealKey,
    DigitKey,
    Key,
    NameKey,
    Opening,
    OpenKey,
    RowKey,
    SeatKey,
    SeatRole,
    SuitKey,
    WinnerKey,
    Word,
)
from tablepi.display.view import PhoneCode
from tablepi.errors import RulesError
from tablepi.players import MAX_NAME
from tablepi.rules.cards import Card, Suit
from tablepi.rules.deal import WINNING_POINTS, Announcement, announcement_of_parts
from tablepi.rules.entry import TIE_POINTS, TOTAL_POINTS, DealEntry
from tablepi.rules.seats import Seat, Team

OK = Word.OK
CANCEL = Word.CANCEL
BACK = Word.BACK
CONFIRM = Word.CONFIRM

#: Letters of the on-screen keyboard by language, row by row (the layouts players know from their phones), with the
#: accented letters of the names at a Luxembourg table ("Marie-Thérèse", "Léon", "Jäng", "Ëmil", "François") and, at
#: the same two places in every language and on the digits face, the hyphen and the apostrophe.
KEY_ROWS: dict[str, tuple[str, ...]] = {
    "lb": ("qwertzuiopüè", "asdfghjkléäà", "yxcvbnmëöç-'"),
    "de": ("qwertzuiopüè", "asdfghjklöäé", "yxcvbnmßëç-'"),
    "fr": ("azertyuiopèé", "qsdfghjklmàù", "wxcvbnçêëï-'"),
    "en": ("qwertyuiopéè", "asdfghjklëäö", "zxcvbnmüç.-'"),
}
#: The keyboard's other face (its ``123`` key): digits and the signs names of decks and players use, as many
#: rows as the letters, the signs both faces have at the same places, so no key moves under a finger.
DIGIT_ROWS: tuple[str, ...] = ("1234567890", "@!?:*=%$€£", "_#&+/()<>.-'")
#: How many earlier names the keyboard offers at once (a row of their own, always there: nothing moves when they
#: come or go).
SUGGESTIONS = 4


# --- gestures: what a finished panel asks the table to do ---------------------------------------------------


@dataclass(frozen=True, slots=True)
class EnterCard:
    seat: Seat
    card: Card


@dataclass(frozen=True, slots=True)
class NameTrumps:
    """Forehand names trumps by hand (his reader is off): as the trump button, beginning the deal if need be."""

    seat: Seat
    suit: Suit


@dataclass(frozen=True, slots=True)
class SeatPlayer:
    seat: Seat
    name: str
    public: bool = False  # he chose to be named on the table's pages (docs/players.md)


@dataclass(frozen=True, slots=True)
class ChooseDealer:
    seat: Seat


@dataclass(frozen=True, slots=True)
class EnterDeal:
    entry: DealEntry
    correct: int | None = None  # the number of the deal this entry corrects; None: the next deal


@dataclass(frozen=True, slots=True)
class Answer:
    """A team's answer to the correction waiting on the slate."""

    team: Team
    accept: bool


class EnrolKind(enum.Enum):
    """What the enrol mode enrols: a deck (its cards laid one by one, under the deck's name) or a player's keyring
    tag (under his name)."""

    DECK = "deck"
    PLAYER = "player"


@dataclass(frozen=True, slots=True)
class StartEnrol:
    """The enrol mode, from the screen: a deck of that name, or a player's keyring tag."""

    kind: EnrolKind
    name: str
    public: bool = False  # a player enrolling his tag chose to be named on the table's pages


@dataclass(frozen=True, slots=True)
class StopEnrol:
    """Stop the enrolment on screen (nothing is written), or close its last word."""


@dataclass(frozen=True, slots=True)
class Open:
    """The menu chose another panel; ``deal``: the deal to correct (a touch on its row of the history), None: the
    last one."""

    what: Opening
    deal: int | None = None


Gesture = EnterCard | NameTrumps | SeatPlayer | ChooseDealer | EnterDeal | Answer | StartEnrol | StopEnrol | Open


# --- panels -----------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CardPicker:
    """Suit first, then rank (only ``possible`` cards are offered), then Confirm: nothing is played by a stray
    touch. With ``trumps`` (forehand, before trumps are named) the suit is the trump suit and there is no rank."""

    seat: Seat
    possible: tuple[Card, ...]
    suit: Suit | None = None
    card: Card | None = None  # chosen, waiting for Confirm
    trumps: bool = False

    def suits(self) -> tuple[Suit, ...]:
        if self.trumps:
            return tuple(Suit)
        return tuple(s for s in Suit if any(c.suit is s for c in self.possible))

    def cards(self) -> tuple[Card, ...]:
        return tuple(c for c in self.possible if c.suit is self.suit) if self.suit is not None else ()

    @property
    def confirming(self) -> bool:
        return self.card is not None or (self.trumps and self.suit is not None)

    def opened(self) -> CardPicker:
        """The picker as it opens: no choice asked that has one answer. One card possible: straight to Confirm
        (two touches in all); one suit: straight to its ranks (three touches); otherwise suit, rank, Confirm."""
        if self.trumps or self.suit is not None or not self.possible:
            return self
        suits = self.suits()
        if len(self.possible) == 1:
            return replace(self, suit=suits[0], card=self.possible[0])
        return replace(self, suit=suits[0]) if len(suits) == 1 else self

    def live_keys(self) -> tuple[Key, ...]:
        if self.confirming:
            return (CONFIRM, BACK, CANCEL)
        if self.suit is None:
            return (*(SuitKey(s) for s in self.suits()), CANCEL)
        return (*(CardKey(c) for c in self.cards()), BACK, CANCEL)


@dataclass(frozen=True, slots=True)
class Keyboard:
    """A name being typed for ``seat``; ``names`` are earlier players, most recent first. With ``enrol`` it names
    the deck or the player to enrol instead, and ``seat`` is not used."""

    seat: Seat
    language: str = "en"
    text: str = ""
    shift: bool = True  # a name starts with a capital
    names: tuple[str, ...] = ()
    enrol: EnrolKind | None = None
    digits: bool = False  # the digits face (DIGIT_ROWS) instead of the letters
    #: With the table's pages on: whether the player chose to be named on them (the opt-in key); None: no key.
    public: bool | None = None

    #: The names in the suggestion row's places ("" : an empty place), kept from key to key: a name stays in its
    #: place while it matches what is typed, and a new one only takes a free place.
    shown: tuple[str, ...] = ()

    def places(self) -> tuple[str, ...]:
        """The suggestion row, :data:`SUGGESTIONS` places: the names that start with what is typed (not the text
        itself), each where it was before."""
        typed = self.text.casefold()
        matching = [n for n in self.names if n.casefold().startswith(typed) and n != self.text]
        kept = [n if n in matching else "" for n in (self.shown or ("",) * SUGGESTIONS)]
        new = iter(n for n in matching if n not in kept)
        return tuple(n or next(new, "") for n in kept)

    def suggestions(self) -> tuple[str, ...]:
        return tuple(n for n in self.places() if n)

    def rows(self) -> tuple[str, ...]:
        if self.digits:
            return DIGIT_ROWS
        rows = KEY_ROWS.get(self.language, KEY_ROWS["en"])
        return tuple("".join(_upper(ch) for ch in r) if self.shift else r for r in rows)

    def live_keys(self) -> tuple[Key, ...]:
        letters = tuple(CharKey(ch) for row in self.rows() for ch in row)
        named = tuple(NameKey(n) for n in self.suggestions())
        shift = () if self.digits else (Word.SHIFT,)  # the digits face has no capitals: its ⇧ is drawn off
        ok = (OK,) if self.text.strip() else ()
        public = (Word.PUBLIC,) if self.public is not None and self.enrol is not EnrolKind.DECK else ()
        return (*named, *letters, *shift, Word.DIGITS, Word.SPACE, BACK, *ok, CANCEL, *public)


def _upper(ch: str) -> str:
    """A letter in capitals, one key for one key (ß has no capital of its own on a keyboard)."""
    up = ch.upper()
    return up if len(up) == 1 else ch


@dataclass(frozen=True, slots=True)
class DealerChoice:
    """Who deals first in this match (forehand, the next seat, names trumps)."""

    def live_keys(self) -> tuple[Key, ...]:
        return (*(SeatKey(SeatRole.DEALER, s) for s in Seat), CANCEL)


@dataclass(frozen=True, slots=True)
class DealForm:
    """A deal told by hand. ``winner`` None is a tie; ``matt``/``konter``: who announced them (None: nobody)."""

    trumps: Seat
    winner: Team | None = Team.NS
    points: int = WINNING_POINTS
    kapo: bool = False
    claimed: bool = False
    matt: Seat | None = None
    konter: Seat | None = None
    correct: int | None = None  # correcting deal number ``correct``
    last: int = 0  # correcting: the number of the last scored deal (``deal:-`` / ``deal:+`` choose among them)
    #: The winners' points being typed on the number pad (its digits so far); None: the form itself is up. The
    #: pad opens when the winners are chosen (or their points touched); two digits that make 21 to 40 go back to
    #: the form by themselves: a deal won with 33 points is six touches from the menu to OK.
    typing: str | None = None

    def announcements(self) -> tuple[tuple[Seat, Announcement], ...]:
        """Who announced what, as the rules put the parts together (one seat saying both: Konter a Matt)."""
        said = {"matt": self.matt, "konter": self.konter}
        out: list[tuple[Seat, Announcement]] = []
        for seat in dict.fromkeys(who for who in said.values() if who is not None):
            announcement = announcement_of_parts(part for part, who in said.items() if who is seat)
            assert announcement is not None  # "matt", "konter" or both: each is an announcement
            out.append((seat, announcement))
        return tuple(out)

    def entry(self) -> DealEntry:
        """The deal as the rules core will score it (RulesError: the form says something no deal can be)."""
        if self.winner is None:
            return DealEntry(self.trumps, None, announcements=self.announcements())
        return DealEntry(
            self.trumps, self.winner, points=TOTAL_POINTS if self.kapo else self.points, kapo=self.kapo,
            claimed_by=self.winner if self.claimed else None, announcements=self.announcements(),
        )

    def valid(self) -> bool:
        try:
            self.entry()
        except RulesError:
            return False
        return True

    def live_keys(self) -> tuple[Key, ...]:
        if self.typing is not None:
            digits = [DigitKey(d) for d in range(10)] if len(self.typing) < 2 else []
            return (*digits, Word.PAD_BACK, Word.PAD_CANCEL)
        keys: list[Key] = [*(SeatKey(SeatRole.TRUMPS, s) for s in Seat), WinnerKey(Team.NS), WinnerKey(Team.EW),
                           WinnerKey(None)]
        if self.winner is not None:
            keys += [Word.KAPO, Word.CLAIM] if self.kapo else [Word.POINTS, Word.KAPO, Word.CLAIM]
        keys += [*(SeatKey(SeatRole.MATT, s) for s in Seat), *(SeatKey(SeatRole.KONTER, s) for s in Seat)]
        if self.correct is not None and self.correct > 1:
            keys.append(DealKey(-1))
        if self.correct is not None and self.correct < self.last:
            keys.append(DealKey(1))
        if self.valid():
            keys.append(OK)
        keys.append(CANCEL)
        return tuple(keys)


@dataclass(frozen=True, slots=True)
class HistoryPanel:
    """The evening's deals, ``first`` being the index of the top row shown."""

    first: int = 0
    rows: int = 0  # how many deals there are (the app sets it when it opens the panel)
    page: int = 5
    #: Per row, the number of the deal a touch on it corrects (None: not correctable, a deal of an earlier match).
    correct: tuple[int | None, ...] = ()

    def row_keys(self) -> tuple[RowKey | None, ...]:
        """Per row shown, the key a touch on it sends (the correction of its deal), or None (not correctable)."""
        shown = range(self.first, min(self.rows, self.first + self.page))
        return tuple(RowKey(deal) if i < len(self.correct) and (deal := self.correct[i]) is not None else None
                     for i in shown)

    def live_keys(self) -> tuple[Key, ...]:
        keys: list[Key] = [k for k in self.row_keys() if k is not None]
        if self.first > 0:
            keys.append(Word.UP)
        if self.first + self.page < self.rows:
            keys.append(Word.DOWN)
        return (*keys, CANCEL)


@dataclass(frozen=True, slots=True)
class Menu:
    """Opened by a touch on the header: what can be done by hand now (the table says what is possible)."""

    can_enter: bool = True
    can_correct: bool = False
    can_choose_dealer: bool = False
    can_enrol: bool = False  # the running service hosts enrolment (a bare app does not)
    can_phone: bool = False  # the table serves its pages ([web] enabled): "On your phone" shows their QR code
    #: A correction waits for an answer (its sheet was closed): "Correct a deal" is "Answer the correction" then,
    #: in the same place.
    can_answer: bool = False

    def live_keys(self) -> tuple[Key, ...]:
        opens = [Opening.HISTORY, Opening.PLAYERS]
        if self.can_enter:
            opens.append(Opening.DEAL)
        if self.can_correct or self.can_answer:
            opens.append(Opening.CORRECT)
        if self.can_choose_dealer:
            opens.append(Opening.DEALER)
        if self.can_enrol:
            opens.append(Opening.ENROL)
        if self.can_phone:
            opens.append(Opening.PHONE)
        return (*(OpenKey(what) for what in opens), CANCEL)


@dataclass(frozen=True, slots=True)
class MatchStart:
    """Offered by itself when a match begins and not all four seats have names: names, the first dealer, or play.
    Nothing waits for it: a card laid names trumps as always, and the sheet closes once trumps are named (so while
    it is up the first dealer may always still be chosen)."""

    def live_keys(self) -> tuple[Key, ...]:
        return (OpenKey(Opening.PLAYERS), OpenKey(Opening.DEALER), CANCEL)


@dataclass(frozen=True, slots=True)
class EnrolMenu:
    """Enrol a deck (its 24 cards, laid one by one as asked) or a player's keyring tag, through the table."""

    def live_keys(self) -> tuple[Key, ...]:
        return (OpenKey(Opening.ENROL_DECK), OpenKey(Opening.ENROL_PLAYER), CANCEL)


@dataclass(frozen=True, slots=True)
class Enrolling:
    """The enrol mode runs (or has just ended): what it asks for now, as the enrolment's message keys and fields
    (tablepi.enroll.MESSAGES), said in the screen's language. Stop ends it, writing nothing; once ``over``,
    the key closes the sheet."""

    kind: EnrolKind
    name: str
    said: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = ()
    over: bool = False
    error: str = ""  # why it ended without a result (a line of the service's, untranslated detail)

    def live_keys(self) -> tuple[Key, ...]:
        return (Word.STOP,)


@dataclass(frozen=True, slots=True)
class Answering:
    """A correction waits for both teams (Bridgemate's "opponents accept"): each team that has not answered yet
    accepts or refuses. Opened by the table's state, not by a touch: it is up until both have answered, or until
    the players close it (Close sets the question aside, unanswered: the menu's "Answer the correction" brings it
    back, and it lapses when a new match begins), so it never hides the table's own controls for good (the match's
    end: New match, Revanche)."""

    number: int
    entry: DealEntry
    waiting: tuple[Team, ...]

    def live_keys(self) -> tuple[Key, ...]:
        return (*(AnswerKey(team, accept) for team in self.waiting for accept in (True, False)), CANCEL)


@dataclass(frozen=True, slots=True)
class PhonePanel:
    """The pages' QR code, large, with their address (menu → On your phone); only Close."""

    code: PhoneCode

    def live_keys(self) -> tuple[Key, ...]:
        return (CANCEL,)


Panel = (CardPicker | Keyboard | DealerChoice | DealForm | HistoryPanel | Menu | MatchStart | Answering | EnrolMenu
         | Enrolling | PhonePanel)


@dataclass(frozen=True, slots=True)
class Step:
    """What a key did: the panel now (None: closed) and the gesture to hand the table (None: nothing yet)."""

    panel: Panel | None
    gesture: Gesture | None = None


def press(panel: Panel, key: Key) -> Step:
    """The panel after ``key``. A key the panel does not show now changes nothing (a stale touch)."""
    if key not in panel.live_keys():
        return Step(panel)
    if key == CANCEL:
        return Step(None)
    if isinstance(panel, CardPicker):
        return _picker(panel, key)
    if isinstance(panel, Keyboard):
        return _keyboard(panel, key)
    if isinstance(panel, DealerChoice):
        assert isinstance(key, SeatKey)
        return Step(None, ChooseDealer(key.seat))
    if isinstance(panel, DealForm):
        return _form(panel, key)
    if isinstance(panel, Menu | MatchStart | EnrolMenu):
        assert isinstance(key, OpenKey)
        return Step(None, Open(key.what))
    if isinstance(panel, Enrolling):
        return Step(None, StopEnrol())
    if isinstance(panel, Answering):
        assert isinstance(key, AnswerKey)
        return Step(None, Answer(key.team, key.accept))
    if isinstance(panel, PhonePanel):
        return Step(panel)
    return _history(panel, key)


def _picker(panel: CardPicker, key: Key) -> Step:
    if key == BACK:  # one step back: from Confirm to the ranks (or suits), from the ranks to the suits
        if panel.card is not None:
            return Step(replace(panel, card=None))
        return Step(replace(panel, suit=None))
    if key == CONFIRM:
        if panel.card is not None:
            return Step(None, EnterCard(panel.seat, panel.card))
        assert panel.suit is not None
        return Step(None, NameTrumps(panel.seat, panel.suit))
    if isinstance(key, SuitKey):
        return Step(replace(panel, suit=key.suit))
    assert isinstance(key, CardKey)
    return Step(replace(panel, card=key.card))


def _keyboard(panel: Keyboard, key: Key) -> Step:
    if isinstance(key, NameKey):
        return Step(None, _named(panel, key.name))
    if key == OK:
        name = " ".join(panel.text.split())
        return Step(None, _named(panel, name)) if name else Step(panel)
    text, shift = panel.text, panel.shift
    if isinstance(key, CharKey):
        text, shift = text + key.char, False
    elif key is Word.SPACE:
        text, shift = text + " ", True
    elif key == BACK:
        text = text[:-1]
        shift = not text or text.endswith(" ")
    elif key is Word.SHIFT:
        shift = not shift
    elif key is Word.DIGITS:
        return Step(replace(panel, digits=not panel.digits))
    elif key is Word.PUBLIC:
        return Step(replace(panel, public=not panel.public))
    typed = replace(panel, text=text[:MAX_NAME], shift=shift, shown=panel.places())
    return Step(replace(typed, shown=typed.places()))


def _named(panel: Keyboard, name: str) -> SeatPlayer | StartEnrol:
    public = bool(panel.public) and panel.enrol is not EnrolKind.DECK
    return SeatPlayer(panel.seat, name, public) if panel.enrol is None else StartEnrol(panel.enrol, name, public)


def _form(panel: DealForm, key: Key) -> Step:
    if key == OK:
        return Step(None, EnterDeal(panel.entry(), panel.correct))
    if isinstance(key, DealKey):  # another deal to correct (the app fills the form in with what that deal was)
        assert panel.correct is not None
        return Step(replace(panel, correct=panel.correct + key.step))
    if isinstance(key, WinnerKey):
        winner = key.team
        points = TIE_POINTS if winner is None else max(panel.points, WINNING_POINTS)
        # The winners chosen, their points are asked at once (the number pad; ✕ keeps them as they were).
        return Step(replace(panel, winner=winner, points=points, kapo=panel.kapo and winner is not None,
                            claimed=panel.claimed and winner is not None,
                            typing="" if winner is not None and not panel.kapo else None))
    if key is Word.POINTS:
        return Step(replace(panel, typing=""))
    if isinstance(key, DigitKey):
        assert panel.typing is not None
        typed = panel.typing + str(key.digit)
        if len(typed) == 2 and WINNING_POINTS <= int(typed) <= TOTAL_POINTS:
            return Step(replace(panel, points=int(typed), typing=None))
        return Step(replace(panel, typing=typed))
    if key is Word.PAD_BACK:  # a digit back; with none, back to the form as it was
        assert panel.typing is not None
        return Step(replace(panel, typing=panel.typing[:-1] if panel.typing else None))
    if key is Word.PAD_CANCEL:  # ✕ on the number pad leaves the points as they were, and the form up
        return Step(replace(panel, typing=None))
    if key is Word.KAPO:
        return Step(replace(panel, kapo=not panel.kapo))
    if key is Word.CLAIM:
        return Step(replace(panel, claimed=not panel.claimed))
    assert isinstance(key, SeatKey)
    seat = key.seat
    if key.role is SeatRole.TRUMPS:
        return Step(replace(panel, trumps=seat))
    if key.role is SeatRole.MATT:
        return Step(replace(panel, matt=None if panel.matt is seat else seat))
    return Step(replace(panel, konter=None if panel.konter is seat else seat))


def _history(panel: HistoryPanel, key: Key) -> Step:
    if isinstance(key, RowKey):  # a deal of the match touched: its correction form
        return Step(None, Open(Opening.CORRECT, key.deal))
    delta = -panel.page if key is Word.UP else panel.page
    return Step(replace(panel, first=max(0, min(panel.rows - 1, panel.first + delta))))


def earlier_names_first(earlier: Sequence[str], known: Sequence[str]) -> tuple[str, ...]:
    """Names to offer: the earlier matches' players (most recent first), then the other known players (player
    tags), each once.

    >>> earlier_names_first(["Marie", "Jang", "marie"], ["Anna", "Jang"])
    ('Marie', 'Jang', 'Anna')
    """
    seen: set[str] = set()
    out = []
    for name in (*earlier, *known):
        if name.casefold() not in seen:
            seen.add(name.casefold())
            out.append(name)
    return tuple(out)
