"""Languages of the screen: gettext catalogs for Luxembourgish, German, French and English.

The catalogs live in ``tablepi/locale/<lang>/LC_MESSAGES/tablepi.po`` and are compiled to ``.mo`` beside them
(both are committed; a test checks that each ``.mo`` says what its ``.po`` says). Message ids are the English
text. English has its own catalog too, so a missing English string is caught like any other.

A :class:`Translator` is passed in wherever text is made; there is no process-wide current language, so two
screens in two languages can coexist (and the tests render both).
"""

from __future__ import annotations

import gettext
from functools import cache
from pathlib import Path

from tablepi.errors import ConfigError
from tablepi.safeinput import shown

DOMAIN = "tablepi"
LOCALE_DIR = Path(__file__).resolve().parent.parent / "locale"

#: Languages the screen speaks, in the order a settings menu lists them: the one list every setting of a language
#: (the table's screen, the pages, the tournament's and the league's) is checked against.
LANGUAGES: tuple[str, ...] = ("lb", "de", "fr", "en")


def check_language(language: object, key: str = "web.language") -> str:
    """``language`` when it is one of :data:`LANGUAGES`; else a ConfigError naming the setting ``key``.

    >>> check_language("nl", "display.language")
    Traceback (most recent call last):
    ...
    tablepi.rules.errors.ConfigError: display.language: 'nl' is not one of 'lb', 'de', 'fr', 'en'
    """
    if not isinstance(language, str) or language not in LANGUAGES:
        raise ConfigError.setting(key, f"{shown(language)} is not one of {', '.join(repr(x) for x in LANGUAGES)}")
    return language


def N_(message: str) -> str:
    """Mark ``message`` for extraction without translating it now (it is translated where it is shown)."""
    return message


class Translator:
    """Translates message ids into one language, from that language's compiled catalog."""

    def __init__(self, language: str, catalog: gettext.NullTranslations) -> None:
        self.language = language
        self._catalog = catalog

    @classmethod
    def load(cls, language: str, locale_dir: Path = LOCALE_DIR) -> Translator:
        """The translator for ``language``; a language without a compiled catalog is a configuration error."""
        if language not in LANGUAGES:
            raise ConfigError(f"display language {language!r} is not available (choose one of {', '.join(LANGUAGES)})")
        path = locale_dir / language / "LC_MESSAGES" / f"{DOMAIN}.mo"
        try:
            with path.open("rb") as handle:
                catalog = gettext.GNUTranslations(handle)
        except FileNotFoundError:
            raise ConfigError(
                f"no compiled catalog for display language {language!r}: {path} is missing "
                "(compile it with: pybabel compile -d tablepi/locale -D tablepi)"
            ) from None
        return cls(language, catalog)

    def gettext(self, message: str) -> str:
        return self._catalog.gettext(message)

    def ngettext(self, singular: str, plural: str, n: int) -> str:
        return self._catalog.ngettext(singular, plural, n)

    def pgettext(self, context: str, message: str) -> str:
        return self._catalog.pgettext(context, message)

    def format(self, template: str, **params: object) -> str:
        """Translate ``template`` and fill its ``{named}`` fields."""
        return self.gettext(template).format(**params)

    def __repr__(self) -> str:
        return f"Translator({self.language!r})"


@cache
def translator(language: str) -> Translator:
    """A shared, loaded-once translator per language (catalogs never change while the table runs)."""
    return Translator.load(language)
