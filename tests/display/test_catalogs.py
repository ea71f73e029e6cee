"""The gettext catalogs: complete, consistent with the code, and compiled."""

from __future__ import annotations

import gettext
from pathlib import Path

import pytest
from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.pofile import read_po

from tablepi.display.i18n import DOMAIN, LANGUAGES, LOCALE_DIR
from tablepi.display.texts import template_fields

ROOT = Path(__file__).resolve().parents[2]
KEYWORDS = {**DEFAULT_KEYWORDS, "N_": None}


def _po(lang: str):  # type: ignore[no-untyped-def]
    with (LOCALE_DIR / lang / "LC_MESSAGES" / f"{DOMAIN}.po").open("rb") as fh:
        return read_po(fh, locale=lang)


def _code_messages() -> set[tuple[str | None, str]]:
    """(context, msgid) of every message the code marks, found exactly as ``pybabel extract -F babel.cfg``."""
    with (ROOT / "babel.cfg").open() as fh:
        method_map, options_map = parse_mapping_cfg(fh, "babel.cfg")
    found: set[tuple[str | None, str]] = set()
    for _file, _line, message, _comments, context in extract_from_dir(
        str(ROOT), method_map, options_map, keywords=KEYWORDS
    ):
        msgid = message[0] if isinstance(message, tuple) else message
        found.add((context, msgid))
    return found


def test_extraction_finds_the_screen_messages() -> None:
    messages = _code_messages()
    assert (None, "Trumps") in messages
    assert ("seat", "E") in messages
    assert (None, "{seat} revoked in trick {trick}: {card} on {led} while holding {held}. Press Confirm to play on.") \
        in messages
    assert len(messages) > 40


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_message_of_the_code_is_translated(lang: str) -> None:
    catalog = _po(lang)
    missing = []
    for context, msgid in sorted(_code_messages(), key=str):
        message = catalog.get(msgid, context=context)
        strings = () if message is None else (
            message.string if isinstance(message.string, tuple) else (message.string,))
        if message is None or message.fuzzy or not all(strings):
            missing.append(msgid if context is None else f"{context}|{msgid}")
    assert not missing, (
        f"{lang}: untranslated or fuzzy messages {missing}; run pybabel extract/update as docs/display.md says"
    )


@pytest.mark.parametrize("lang", LANGUAGES)
def test_translations_keep_the_placeholders(lang: str) -> None:
    for message in _po(lang):
        if not message.id:
            continue
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        for string in strings:
            assert template_fields(string) == template_fields(ids[0]), (lang, message.id, string)


def _stale(po, mo_path: Path) -> list[str]:  # type: ignore[no-untyped-def]
    """Messages whose compiled text differs from the .po (the .mo was not rebuilt after an edit)."""
    with mo_path.open("rb") as fh:
        compiled = gettext.GNUTranslations(fh)
    stale = []
    for message in po:
        if not message.id or message.fuzzy:
            continue
        if isinstance(message.id, tuple):
            for n, string in ((1, message.string[0]), (2, message.string[1])):
                got = (compiled.npgettext(message.context, *message.id, n) if message.context
                       else compiled.ngettext(*message.id, n))
                if got != string:
                    stale.append(message.id[0])
        else:
            got = compiled.pgettext(message.context, message.id) if message.context else compiled.gettext(message.id)
            if got != message.string:
                stale.append(message.id)
    return stale


@pytest.mark.parametrize("lang", LANGUAGES)
def test_compiled_catalog_says_what_the_po_says(lang: str) -> None:
    mo_path = LOCALE_DIR / lang / "LC_MESSAGES" / f"{DOMAIN}.mo"
    stale = _stale(_po(lang), mo_path)
    assert not stale, (
        f"{mo_path} for {lang} is older than its .po ({stale}); run: pybabel compile -d tablepi/locale -D tablepi"
    )


def test_an_edited_po_is_caught_as_stale() -> None:
    po = _po("lb")
    po.get("Undo").string = "Zeréck!"
    assert _stale(po, LOCALE_DIR / "lb" / "LC_MESSAGES" / f"{DOMAIN}.mo") == ["Undo"]


def test_catalogs_declare_their_language_and_plural_rule() -> None:
    assert _po("fr").plural_expr == "(n > 1)"
    for lang in LANGUAGES:
        assert str(_po(lang).locale) == lang
