"""The pages speak the table screen's four languages: chosen by ``[web] language`` or ``?lang=`` (kept in a
cookie for the next pages), from the same gettext catalogs."""

from __future__ import annotations

import re
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import replace
from http.cookiejar import CookieJar
from importlib import resources

import pytest

from tablepi.display.i18n import LANGUAGES
from tablepi.web.serve import WebServer
from tablepi.web.texts import TEXTS, texts
from tests.tournament.conftest import Tournament
from tests.tournament.test_pages import CUP, _text, browser  # noqa: F401 (the fixture)

PAGES = ("standings.html", "director.html", "table.html", "overlay.html", "login.html", "view.js")


def _source(name: str) -> str:
    return resources.files("tablepi.web").joinpath("pages", name).read_text(encoding="utf-8")


def test_every_text_a_page_uses_exists_in_every_language() -> None:
    used: set[str] = set()
    for name in PAGES:
        source = _source(name)
        used |= set(re.findall(r"\[\[(\w+)\]\]", source)) - {"texts", "lang", "head"}
        used |= set(re.findall(r"\bT\.(\w+)", source))
    assert used - set(TEXTS) == set(), "a page uses a text that tablepi/web/texts.py does not define"
    for lang in LANGUAGES:
        words = texts(lang)
        assert set(TEXTS) <= set(words) and all(words.values())
        letters = {"lb": "NOSW", "de": "NOSW", "fr": "NESO", "en": "NESW"}[lang]  # as the screen writes them
        assert "".join(words[f"seat_{s}"] for s in "NESW") == letters
    assert texts("de")["standings"] == "Rangliste" and texts("fr")["not_started"] == "Pas encore commencé"
    assert texts("lb")["round_of"] == "Tour {round} vun {rounds}"


@pytest.fixture
def cup(make_tournament: Callable[[str], Tournament]) -> Tournament:
    return make_tournament(CUP)


@pytest.mark.slow
def test_language_from_the_config_then_the_query_then_the_cookie(cup: Tournament) -> None:
    cup.server.config = replace(cup.server.config, web=replace(cup.server.config.web, language="fr"))
    web = WebServer(cup.server).start()
    try:
        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(CookieJar()))

        def get(path: str) -> str:
            with opener.open(f"{web.url}{path}", timeout=10) as response:
                return str(response.read().decode("utf-8"))

        login = get("/login")
        assert '<html lang="fr">' in login and "Mot de passe" in login and "Se connecter" in login
        standings = get("/standings?lang=de")
        assert '<html lang="de">' in standings and "<title>Rangliste</title>" in standings
        assert '"not_started": "Noch nicht begonnen"' in standings  # the script's texts
        assert "<p>Noch nicht begonnen</p>" in get("/print")  # the cookie keeps German (no round yet)
        assert "<p>Nach net ugefaangen</p>" in get("/print?lang=lb")
        assert "<p>Not started</p>" in get("/print?lang=en")
        assert "Passwort" in get("/login?lang=xx")  # an unknown language: the last one chosen
    finally:
        web.close()


@pytest.mark.slow
def test_the_standings_page_draws_its_texts_in_the_chosen_language(cup: Tournament, web: WebServer,
                                                                   browser: object) -> None:  # noqa: F811
    from selenium.webdriver.support.ui import WebDriverWait

    browser.get(f"{web.url}/standings?lang=lb")  # type: ignore[attr-defined]
    WebDriverWait(browser, 20).until(lambda d: "Nach net ugefaangen" in _text(d, "#round"))
    cup.start_round(1)
    WebDriverWait(browser, 20).until(lambda d: "Tour 1 vun 2" in _text(d, "#round"))
    assert "0 Spiller gezielt, 0/1 Dëscher fäerdeg" in _text(browser, "#progress")
    assert _text(browser, "#standings thead") == "# Numm Matchpunkten Strécher Kaartepunkten"


@pytest.fixture
def web(cup: Tournament) -> Iterator[WebServer]:
    server = WebServer(cup.server).start()
    yield server
    server.close()
