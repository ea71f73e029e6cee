"""Sentences from codes, in all four languages."""

from __future__ import annotations

import pytest

from tablepi.display import texts as tx
from tablepi.display.i18n import LANGUAGES, Translator, translator
from tablepi.display.view import Action
from tablepi.errors import ConfigError
from tablepi.rules.cards import Card, Suit
from tablepi.rules.seats import Seat, Team

#: The warning codes the table sends (issue 6); each must have a template.
TABLE_WARNING_CODES = (
    "out_of_turn", "unknown_tag", "card_already_played", "two_cards_on_zone", "lifted_early",
    "announcement_without_cards", "queen_shown_by_other_seat", "revoke", "illegal_play", "reader_offline",
)
PARAMS = {"seat": Seat.E, "card": Card.parse("QH"), "trick": 3, "rule": 13, "announcement": "Matt",
          "led": Card.parse("KS"), "held": "♠9", "holder": Seat.W}


def test_every_table_warning_code_has_a_template() -> None:
    from tablepi.table.warnings import WarningCode

    assert set(TABLE_WARNING_CODES) <= set(tx.WARNING_TEMPLATES)
    assert {code.value for code in WarningCode} == set(tx.WARNING_TEMPLATES)


@pytest.mark.parametrize("code", sorted(tx.WARNING_TEMPLATES))
def test_warning_sentences_are_translated_and_filled(code: str, tr: Translator) -> None:
    english = "ENGLISH FALLBACK"
    text = tx.warning_text(tr, code, PARAMS, english, {Seat.E: "Jos"})
    assert text != english
    assert "{" not in text and "}" not in text
    fields = tx.template_fields(tx.WARNING_TEMPLATES[code])
    if "seat" in fields:
        assert "Jos" in text
    if "card" in fields:
        assert "♥Q" in text
    if "rule" in fields:
        assert "13" in text
    if tr.language != "en":
        assert text != tx.warning_text(translator("en"), code, PARAMS, english, {Seat.E: "Jos"})


def test_unknown_warning_code_falls_back_to_the_tables_english_sentence(en: Translator) -> None:
    assert tx.warning_text(en, "new_kind_of_trouble", {}, "Something new went wrong.") == "Something new went wrong."


def test_warning_missing_a_parameter_falls_back_to_english(en: Translator) -> None:
    sentence = "Revoke by E in trick 3."
    assert tx.warning_text(en, "revoke", {"seat": Seat.E}, sentence) == sentence
    assert tx.warning_text(en, "revoke", {**PARAMS, "led": None}, sentence) == sentence


def test_revoke_reads_naturally_in_english_and_german_and_says_what_to_do() -> None:
    """The sentence shows the evidence (the card played, the card led, what he held); no rule number in it."""
    params = {"seat": Seat.E, "card": Card.parse("JH"), "trick": 3, "rule": 13, "led": Card.parse("TS"),
              "held": "♠K"}
    assert tx.warning_text(translator("en"), "revoke", params, "", {Seat.E: "Jos"}) == (
        "Jos revoked in trick 3: ♥J on ♠10 while holding ♠K. Press Confirm to play on."
    )
    assert tx.warning_text(translator("de"), "revoke", params, "") == (
        "O hat im Stich 3 nicht bedient: ♥J auf ♠10, hatte aber ♠K. Weiter mit Bestätigen."
    )
    assert tx.warning_text(translator("en"), "revoke_lose_deal", params, "") == (
        "E revoked in trick 3: ♥J on ♠10 while holding ♠K. The deal is lost."
    )


def test_prompts_from_the_brief(en: Translator) -> None:
    assert tx.prompt_text(en, "name_trumps", Seat.N) == "N: show a card of the suit you choose as trumps"
    assert tx.prompt_text(en, "sweep", Seat.W) == "Sweep the trick off (W won)"
    assert tx.prompt_text(en, "confirm_claim") == "Confirm the claim"


@pytest.mark.parametrize("code", sorted(tx.PROMPT_TEMPLATES))
def test_every_prompt_renders_in_every_language(code: str, tr: Translator) -> None:
    text = tx.prompt_text(tr, code, Seat.S, {Seat.S: "Marie"}, card=Card.parse("QS"))
    assert text and "{" not in text
    if "seat" in tx.template_fields(tx.PROMPT_TEMPLATES[code]):
        assert "Marie" in text


def test_prompt_errors_name_the_code(en: Translator) -> None:
    with pytest.raises(KeyError, match="no_such_prompt"):
        tx.prompt_text(en, "no_such_prompt")
    with pytest.raises(KeyError, match="'play' needs seat"):
        tx.prompt_text(en, "play")
    with pytest.raises(KeyError, match="'lift_card' needs card and seat"):
        tx.prompt_text(en, "lift_card", Seat.N)


def test_konter_a_matt_vocabulary() -> None:
    assert [tx.trumps_label(translator(lang)) for lang in ("de", "fr", "lb", "en")] == [
        "Trumpf", "Atout", "Trëmp", "Trumps"]
    assert tx.slate_title(translator("lb")) == "d'Lee"
    assert tx.trick_label(translator("de"), 3) == "Stich 3/6"
    assert tx.trick_label(translator("fr"), 3) == "Pli 3/6"
    assert tx.tie_text(translator("lb")).startswith("Stänner")
    for lang in LANGUAGES:  # the names of the announcements are the game's own words everywhere
        assert tx.announcement_name(translator(lang), True, True) == "Konter a Matt"


def test_stake_in_words(en: Translator) -> None:
    assert tx.stake_text(en, matt=True, konter=True, kapo=True, lines=4) == "Konter a Matt, Kapo: 4 lines"
    assert tx.stake_text(en, matt=True, konter=False, kapo=False, lines=2) == "Matt: 2 lines"
    assert tx.stake_text(en, matt=False, konter=False, kapo=False, lines=1) == "Simple: 1 line"
    assert tx.stake_text(translator("lb"), matt=False, konter=True, kapo=False, lines=2) == "Konter: 2 Strécher"


def test_seat_letters_follow_the_language() -> None:
    assert [tx.seat_letter(translator("de"), s) for s in Seat] == ["N", "O", "S", "W"]
    assert [tx.seat_letter(translator("fr"), s) for s in Seat] == ["N", "E", "S", "O"]
    assert tx.team_label(translator("lb"), Team.EW, {}) == "O+W"
    assert tx.team_label(translator("en"), Team.NS, {Seat.N: "Anna", Seat.S: " "}) == "Anna+S"


def test_params_show_cards_as_players_write_them(en: Translator) -> None:
    assert tx.format_params(en, {"card": Card.parse("TH"), "seat": Seat.W, "trick": 2}, {}) == {
        "card": "♥10", "seat": "W", "trick": "2"}


def test_buttons_have_action_names_and_translated_labels() -> None:
    de = translator("de")
    assert tx.button(de, Action.UNDO).label == "Rückgängig"  # "Zurück" is "back"
    trumps = [tx.button(de, Action.trump(suit)) for suit in Suit]
    assert [b.label for b in trumps] == ["♠", "♥", "♦", "♣"] and [b.suit for b in trumps] == list(Suit)


def test_seat_view_marks_are_words_of_the_language() -> None:
    seat = tx.seat_view(translator("de"), Seat.W, dealer=True, forehand=False)
    assert seat.marks == ("Geber",) and seat.dealer and not seat.forehand and seat.name == "W"


def test_unknown_language_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="'xx'"):
        Translator.load("xx")


def test_missing_catalog_names_the_compile_command(tmp_path) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ConfigError, match="pybabel compile"):
        Translator.load("lb", locale_dir=tmp_path)
