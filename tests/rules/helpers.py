"""Small builders for rules tests: fixed deals, card sequences, results."""

from __future__ import annotations

from tablepi.rules import Announcement, Card, Deal, DealResult, Fault, HouseRules, Seat, Suit, Team, settle
from tablepi.rules.cards import parse_cards

#: A fixed deal (dealer N, so W is forehand), written so each test can reason about the hands.
FIXED_HANDS = {
    Seat.W: "KS AH JH QD TD AC",
    Seat.S: "AS 9H KH 9D JC 9C",
    Seat.E: "JS TS QS KD TC KC",
    Seat.N: "9S QH TH AD JD QC",
}


def scripted_deal(trump: str, dealer: str = "N", rules: HouseRules | None = None) -> Deal:
    """A full-knowledge deal of :data:`FIXED_HANDS` with trumps named."""
    hands = {seat: list(parse_cards(text)) for seat, text in FIXED_HANDS.items()}
    deal = Deal(Seat.parse(dealer), rules, hands=hands)
    deal.choose_trump(Suit.parse(trump))
    return deal


def deal_with(seat: str, shown: str, trump: str, dealer: str) -> Deal:
    """A partial-knowledge deal in which ``seat`` has shown the given cards."""
    deal = Deal(Seat.parse(dealer))
    deal.choose_trump(Suit.parse(trump))
    for card in parse_cards(shown):
        deal.show(Seat.parse(seat), card)
    return deal


def play_cards(deal: Deal, text: str, *, check: bool = True) -> list[Fault]:
    """Play the cards in order, each by the seat whose turn it is; return every fault reported."""
    faults: list[Fault] = []
    for card in parse_cards(text):
        seat = deal.to_play
        assert seat is not None, f"nobody is to play {card}"
        faults.extend(deal.play(seat, card, check=check))
    return faults


def result_of(
    points_ns: int,
    tricks_ns: int | None = None,
    trump_team: str = "NS",
    announced: list[tuple[str, str]] | None = None,
) -> DealResult:
    """A deal result from its totals, decided by the rules' own :func:`settle`."""
    if tricks_ns is None:
        tricks_ns = 6 if points_ns == 40 else 0 if points_ns == 0 else 3
    announcements = tuple((Seat.parse(s), Announcement(a)) for s, a in announced or [])
    return settle(
        Team.parse(trump_team),
        {Team.NS: points_ns, Team.EW: 40 - points_ns},
        {Team.NS: tricks_ns, Team.EW: 6 - tricks_ns},
        announcements,
    )


__all__ = ["Card", "deal_with", "play_cards", "result_of", "scripted_deal"]
