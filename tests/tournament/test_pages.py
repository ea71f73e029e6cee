"""The pages in a real headless chromium (selenium): the standings update after a deal ends, the overlay keeps
its delay, the dashboard needs its password."""

from __future__ import annotations

import os
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator

import pytest

from tablepi.web.serve import WebServer
from tests.tournament.conftest import Tournament
from tests.waits import wait_until

pytestmark = pytest.mark.slow

CUP = """
[tournament]
name = "Browser cup"
format = "individuals"
round = "deals"
deals = 2
rounds = 2
players = ["Anna", "Jos", "Marie", "Pit"]
"""


@pytest.fixture
def cup(make_tournament: Callable[[str], Tournament]) -> Tournament:
    return make_tournament(CUP)


@pytest.fixture
def web(cup: Tournament) -> Iterator[WebServer]:
    server = WebServer(cup.server).start()
    yield server
    server.close()


@pytest.fixture
def browser(web: WebServer) -> Iterator[object]:
    """Headless chromium; depends on the web server so that it quits first (an open stream holds uvicorn)."""
    webdriver = pytest.importorskip("selenium.webdriver")
    from selenium.webdriver.chrome.service import Service

    if not os.path.exists("/usr/bin/chromedriver"):
        pytest.skip("chromium-driver is not installed (scripts/setup.sh installs it)")
    os.environ["SE_OFFLINE"] = "true"
    options = webdriver.ChromeOptions()
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1200,900"):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    yield driver
    driver.quit()


def _text(driver: object, css: str) -> str:
    """The element's text, or "" while the page is being replaced (a form just posted: the element went stale)."""
    from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException
    from selenium.webdriver.common.by import By

    try:
        return str(driver.find_element(By.CSS_SELECTOR, css).text)  # type: ignore[attr-defined]
    except (NoSuchElementException, StaleElementReferenceException):
        return ""


def test_standings_page_updates_when_a_deal_ends(cup: Tournament, web: WebServer, browser: object) -> None:
    from selenium.webdriver.support.ui import WebDriverWait

    cup.start_round(1)
    browser.get(f"{web.url}/standings")  # type: ignore[attr-defined]
    WebDriverWait(browser, 20).until(lambda d: "Round 1 of 2" in _text(d, "#round"))
    assert "0 deals scored" in _text(browser, "#progress")
    table = cup.tables["1"]
    # Play up to the end of the first deal: the gesture that scores it.
    while table.playing and not table.journaled.state.match.slate:
        table.step()
    ended = time.monotonic()
    WebDriverWait(browser, 20).until(lambda d: "1 deals scored" in _text(d, "#progress"))
    assert time.monotonic() - ended < 2.0  # the bound: within 2 s of the deal ending
    table.play()
    cup.settle()
    WebDriverWait(browser, 20).until(lambda d: "1/1 tables finished" in _text(d, "#progress"))
    names = [row.split("\n")[0] for row in _text(browser, "#standings tbody").split("\n")]
    assert len([n for n in names if n]) >= 4


def test_dashboard_needs_the_password(cup: Tournament, web: WebServer, browser: object) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(f"{web.url}/director/events", timeout=5)
    assert refused.value.code == 401
    browser.get(f"{web.url}/director")  # type: ignore[attr-defined]
    assert "/login" in browser.current_url  # type: ignore[attr-defined]
    browser.find_element(By.ID, "password").send_keys("wrong")  # type: ignore[attr-defined]
    browser.find_element(By.ID, "login").click()  # type: ignore[attr-defined]
    WebDriverWait(browser, 20).until(lambda d: "Wrong password" in _text(d, "#message"))
    browser.find_element(By.ID, "password").send_keys("secret")  # type: ignore[attr-defined]
    browser.find_element(By.ID, "login").click()  # type: ignore[attr-defined]
    WebDriverWait(browser, 20).until(lambda d: d.current_url.endswith("/director"))
    WebDriverWait(browser, 20).until(lambda d: "Not started" in _text(d, "#round"))
    browser.find_element(By.ID, "next-round").click()  # type: ignore[attr-defined]
    WebDriverWait(browser, 20).until(lambda d: "Round 1 of 2" in _text(d, "#round"))
    assert cup.server.audit[-1]["who"] == "director"
    wait_until(lambda: all((t.drain() or True) and t.app.seating is not None for t in cup.tables.values()),
               "every table's seating")


def test_overlay_needs_its_token_and_keeps_its_delay(cup: Tournament, web: WebServer, browser: object) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(f"{web.url}/overlay/1", timeout=5)
    assert refused.value.code == 403
    cup.start_round(1)
    table = cup.tables["1"]
    browser.get(f"{web.url}/overlay/1?token=tok")  # type: ignore[attr-defined]
    background = browser.execute_script(  # type: ignore[attr-defined]
        "return getComputedStyle(document.body).backgroundColor")
    assert background in ("rgba(0, 0, 0, 0)", "transparent")
    while table.playing and not table.journaled.state.deal.tricks:
        table.step()
    while table.playing and len(table.journaled.state.deal.tricks[-1].plays) < 1:
        table.step()
    played = time.monotonic()
    card = str(table.journaled.state.deal.tricks[-1].plays[0][1])
    # Watched closely from the play on: the page shows the card once the 2 s delay has passed, never earlier (a
    # loaded machine may only see it later).
    WebDriverWait(browser, 20, poll_frequency=0.02).until(
        lambda d: d.find_elements(By.CSS_SELECTOR, f'#trick [data-card="{card}"]'))
    assert time.monotonic() - played >= 2.0


def test_the_director_settles_a_disputed_round_on_the_dashboard(cup: Tournament, web: WebServer,
                                                                 browser: object) -> None:
    """A journal made up for table 1's round arrives before the table's own: the projector marks the round
    disputed for its players; on the dashboard, *Count this one* on the table's own held journal fills the assign
    form, and with a reason the round counts."""
    import json

    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    from tests.tournament.test_attacks import forged_journal

    cup.start_round(1)
    cup.server.receive([("tablepi/v1/tables/1/events", json.dumps(m).encode(), 0, 1, time.time())
                        for m in forged_journal("f" * 32, "1", 1, 11)])
    table = cup.tables["1"]
    table.play()
    cup.settle()
    real = table.journaled.journal.id
    browser.get(f"{web.url}/standings")  # type: ignore[attr-defined]
    WebDriverWait(browser, 20).until(
        lambda d: _text(d, "#standings tbody").count("round 1 disputed: the director decides") == 4)
    browser.get(f"{web.url}/login")  # type: ignore[attr-defined]
    browser.find_element(By.ID, "password").send_keys("secret")  # type: ignore[attr-defined]
    browser.find_element(By.ID, "login").click()  # type: ignore[attr-defined]
    WebDriverWait(browser, 20).until(lambda d: d.current_url.endswith("/director"))
    WebDriverWait(browser, 20).until(lambda d: "round disputed" in _text(d, '#tables tr[data-table="1"]'))
    assert _text(browser, "#held tbody").count("2 journals for table 1 round 1") == 2
    browser.find_element(By.CSS_SELECTOR, f'button.pick[data-journal="{real}"]').click()  # type: ignore[attr-defined]
    form = browser.find_element(By.ID, "assign")  # type: ignore[attr-defined]
    assert form.find_element(By.NAME, "journal").get_attribute("value") == real
    form.find_element(By.NAME, "why").send_keys("the table's own: its deals came over the match")
    form.find_element(By.TAG_NAME, "button").click()
    WebDriverWait(browser, 20).until(lambda d: "journal assigned" in _text(d, "#result"))
    assert cup.server.disputed() == [] and cup.server.audit[-1]["what"] == "assign"
    WebDriverWait(browser, 20).until(lambda d: "table 1's round 1 is journal" in _text(d, "#held tbody"))
