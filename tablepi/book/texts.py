"""The players' pages' own words, in lb / de / fr / en from the same catalogs as the tournament's pages (context
``web``); the pages also use those (trumps, slate, the phases, the seats' letters)."""

from __future__ import annotations

import json
from functools import cache

from tablepi.display.i18n import check_language, translator
from tablepi.web.texts import CONTEXT, pgettext
from tablepi.web.texts import texts as web_texts

TEXTS: dict[str, str] = {
    "live": pgettext("web", "At the table"),
    "evening": pgettext("web", "This evening"),
    "evening_of": pgettext("web", "The evening of {date}"),
    "players": pgettext("web", "Players"),
    "leaderboard": pgettext("web", "Leaderboard"),
    "guest": pgettext("web", "guest"),
    "waiting": pgettext("web", "Waiting for the table…"),
    "dealer": pgettext("web", "dealer"),
    "forehand": pgettext("web", "forehand"),
    "announced": pgettext("web", "announced"),
    "result": pgettext("web", "result"),
    "no_matches": pgettext("web", "No match finished this evening yet."),
    "match_n": pgettext("web", "Match {number} — table {table}"),
    "deal_n": pgettext("web", "Deal {number}"),
    "cost": pgettext("web", "cost {points} points (best {cards})"),
    "not_reviewed": pgettext("web", "not reviewed (not every card was seen)"),
    "best_play": pgettext("web", "every card a best card"),
    "all_time": pgettext("web", "All time"),
    "season": pgettext("web", "Season"),
    "matches_won": pgettext("web", "Matches won"),
    "deals_won": pgettext("web", "Deals won"),
    "as_trump_team": pgettext("web", "As trump team"),
    "as_defenders": pgettext("web", "As defenders"),
    "trumps_named": pgettext("web", "Trumps named (won)"),
    "announcements": pgettext("web", "Matt / Konter / Konter a Matt (won)"),
    "kapos": pgettext("web", "Kapo made / conceded"),
    "revokes": pgettext("web", "Revokes"),
    "lines_per_deal": pgettext("web", "Lines per deal"),
    "best_partner": pgettext("web", "Best partner"),
    "toughest": pgettext("web", "Toughest opponents"),
    "points_lost": pgettext("web", "Points lost to choices (per reviewed deal)"),
    "rating": pgettext("web", "Rating"),
    "rating_note": pgettext("web", "mu − 3 sigma; shown after {deals} deals"),
    "deals": pgettext("web", "Deals"),
    "matches": pgettext("web", "Matches"),
    "not_yet": pgettext("web", "not yet (after {deals} deals)"),
    "print": pgettext("web", "print"),
    "take_home": pgettext("web", "Your games to take home:"),
    "games_csv": pgettext("web", "table (CSV)"),
    "game_records": pgettext("web", "game records (ZIP)"),
    "read_only": pgettext("web", "Read-only pages of the table: nothing here changes the game."),
    "private_note": pgettext("web", "Players who have not chosen to be named are shown by their initials."),
}


@cache
def texts(language: str) -> dict[str, str]:
    """The tournament pages' texts and these, in ``language``."""
    tr = translator(check_language(language))
    out = dict(web_texts(language))
    out.update({key: tr.pgettext(CONTEXT, message) for key, message in TEXTS.items()})
    return out


@cache
def texts_json(language: str) -> str:
    """:func:`texts` as a JavaScript object literal that is safe inside a ``<script>`` element or a data attribute."""
    return json.dumps(texts(language), ensure_ascii=False).replace("</", "<\\/")
