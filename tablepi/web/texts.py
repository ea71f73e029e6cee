"""The pages' texts in the table screen's four languages (lb, de, fr, en), from the same gettext catalogs.

Each text has a key the pages use: ``[[key]]`` in a page's HTML is replaced by the text (escaped) when the page is
served, and the page's script gets them all as ``T`` (``T.round_of``, filled by ``fill(T.round_of, {...})``). The
message ids carry the context ``web`` so that a page's "Round" never collides with a screen's.

What the tables and the server say in their data (a warning's sentence, a slate line, the answer to a director's
action) is sent as it was made; only the pages' own words are translated here.
"""

from __future__ import annotations

import json
from functools import cache

from tablepi.display.i18n import check_language, translator
from tablepi.rules.seats import Seat

CONTEXT = "web"


def pgettext(context: str, message: str) -> str:
    """Mark ``message`` (in ``context``) for extraction; it is translated per page by :func:`texts`."""
    assert context == CONTEXT
    return message


#: key -> the English text (the message id).
TEXTS: dict[str, str] = {
    # standings (projector) and the printable page
    "standings": pgettext("web", "Standings"),
    "round_of": pgettext("web", "Round {round} of {rounds}"),
    "not_started": pgettext("web", "Not started"),
    "updated": pgettext("web", "updated"),
    "never": pgettext("web", "never"),
    "progress": pgettext("web", "{deals} deals scored, {done}/{tables} tables finished"),
    "name": pgettext("web", "Name"),
    "match_pts": pgettext("web", "Match pts"),
    "lines": pgettext("web", "Lines"),
    "card_pts": pgettext("web", "Card pts"),
    "round_dropped": pgettext("web", "round {round} dropped"),
    "round_disputed": pgettext("web", "round {round} disputed: the director decides"),
    "standings_after": pgettext("web", "Standings after round {round} — {date}"),
    "standings_during": pgettext("web", "Standings during round {round} — {date}"),
    "match_points": pgettext("web", "Match points"),
    "card_points": pgettext("web", "Card points"),
    "dropped_round": pgettext("web", "Dropped round"),
    "standings_of": pgettext("web", "{name} standings"),
    "bye": pgettext("web", "bye: {names}"),
    # the director's dashboard
    "director": pgettext("web", "Director"),
    "director_of": pgettext("web", "{name} — director"),
    "playing_tables": pgettext("web", "playing: table {tables}"),
    "no_table_playing": pgettext("web", "no table playing"),
    "printable": pgettext("web", "printable standings"),
    "projector": pgettext("web", "projector"),
    "log_out": pgettext("web", "log out"),
    "table": pgettext("web", "Table"),
    "seats": pgettext("web", "Seats"),
    "round": pgettext("web", "Round"),
    "deal": pgettext("web", "Deal"),
    "slate_open": pgettext("web", "Slate (open NS/EW)"),
    "last_event": pgettext("web", "Last event"),
    "warnings": pgettext("web", "Warnings"),
    "needs_attention": pgettext("web", "Needs attention"),
    "seconds_ago": pgettext("web", "{seconds} s ago"),
    "match_deal": pgettext("web", "match {match}, deal {deal}"),
    "journal": pgettext("web", "journal {id}"),
    "attention_warning": pgettext("web", "warning"),
    "attention_offline": pgettext("web", "offline"),
    "attention_slow": pgettext("web", "slow"),
    "attention_broken": pgettext("web", "broken"),
    "attention_gap": pgettext("web", "events missing"),
    "attention_conflict": pgettext("web", "two senders"),
    "attention_disputed": pgettext("web", "round disputed"),
    "attention_casual": pgettext("web", "this match does not count"),
    "gap": pgettext("web", "events {first}–{last} missing for {seconds} s, asked again {times}×"),
    "held": pgettext("web", "Held for the director (not counted)"),
    "deals": pgettext("web", "Deals"),
    "received": pgettext("web", "Received"),
    "pick": pgettext("web", "Count this one"),
    "none": pgettext("web", "none"),
    "quarantine": pgettext("web", "Messages not read: {count}"),
    "size": pgettext("web", "Bytes"),
    "undo": pgettext("web", "Undo correction"),
    "f_number": pgettext("web", "no."),
    "actions": pgettext("web", "Actions"),
    "announcement": pgettext("web", "Announcement to every table"),
    "announce": pgettext("web", "Announce"),
    "force": pgettext("web", "even if tables have not finished"),
    "next_round": pgettext("web", "Start next round"),
    "correction": pgettext("web", "Correction: entrant"),
    "f_round": pgettext("web", "round"),
    "f_match_pts": pgettext("web", "match pts"),
    "f_lines": pgettext("web", "lines"),
    "f_card_pts": pgettext("web", "card pts"),
    "f_why": pgettext("web", "why"),
    "correct": pgettext("web", "Correct"),
    "f_journal": pgettext("web", "journal"),
    "f_match": pgettext("web", "match"),
    "f_is_match_of_round": pgettext("web", "is its match of round"),
    "assign": pgettext("web", "Assign"),
    "audit": pgettext("web", "Audit trail"),
    "when": pgettext("web", "When"),
    "who": pgettext("web", "Who"),
    "what": pgettext("web", "What"),
    "why": pgettext("web", "Why"),
    "details": pgettext("web", "Details"),
    # the login
    "login_title": pgettext("web", "Director login"),
    "password": pgettext("web", "Password"),
    "log_in": pgettext("web", "Log in"),
    "wrong_password": pgettext("web", "Wrong password."),
    # a table's live view and the overlay
    "overlay": pgettext("web", "Overlay"),
    "trick": pgettext("web", "Trick"),
    "to_play": pgettext("web", "to play"),
    "trumps": pgettext("web", "trumps"),
    "slate": pgettext("web", "Slate"),
    "online": pgettext("web", "online"),
    "offline": pgettext("web", "offline"),
    "no_events": pgettext("web", "no events yet"),
    "where": pgettext("web", "round {round} · match {match} · deal {deal} · {phase}"),
    "open_lines": pgettext("web", "N+S {ns} open · E+W {ew} open"),
    "phase_trumps": pgettext("web", "naming trumps"),
    "phase_hand_scan": pgettext("web", "hand scan"),
    "phase_play": pgettext("web", "playing"),
    "phase_deal_over": pgettext("web", "deal over"),
    "phase_match_over": pgettext("web", "match over"),
}


@cache
def texts(language: str) -> dict[str, str]:
    """Every page text in ``language`` (loaded once per language), and the seats' letters as the screen writes
    them (``seat_E``: "O" in lb and de)."""
    tr = translator(check_language(language))
    out = {key: tr.pgettext(CONTEXT, message) for key, message in TEXTS.items()}
    out.update({f"seat_{seat.value}": tr.pgettext("seat", seat.value) for seat in Seat})
    return out


@cache
def texts_json(language: str) -> str:
    """:func:`texts` as a JavaScript object literal that is safe inside a ``<script>`` element."""
    return json.dumps(texts(language), ensure_ascii=False).replace("</", "<\\/")
