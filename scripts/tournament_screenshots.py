"""Screenshots of the tournament pages for the README: a real broker, the server, simulated tables, chromium.

Run: ``.venv/bin/python scripts/tournament_screenshots.py docs/images`` (needs mosquitto, chromium and
chromium-driver: scripts/setup.sh installs them).
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

from selenium import webdriver
from selenium.webdriver.chrome.service import Service

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the simulated tables are the tests' harness

from tablepi.feed.broker import SERVER_USER, Mosquitto, table_user
from tablepi.feed.config import FeedConfig
from tablepi.tournament.config import parse_tournament_config
from tablepi.tournament.server import TournamentServer
from tablepi.web.serve import WebServer
from tests.tournament.simulate import SimulatedTable

PLAYERS = ["Anna", "Jos", "Marie", "Pit", "Lis", "Ben", "Tom", "Eva", "Jang", "Mia", "Luc", "Sara"]


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="tablepi-shots-"))
    tables = ["1", "2", "3"]
    broker = Mosquitto.for_tables(work / "broker", tables).start()
    players = ", ".join(f'"{p}"' for p in PLAYERS)
    config = parse_tournament_config(f"""
[tournament]
name = "Bettendorf Cup"
format = "individuals"
round = "deals"
deals = 4
rounds = 4
players = [{players}]
store = "{work / 'store.sqlite3'}"
[broker]
host = "127.0.0.1"
port = {broker.port}
password = "{broker.passwords[SERVER_USER]}"
[web]
director_password = "pw"
overlay_token = "tok"
overlay_delay = 0.0
""")
    server = TournamentServer(config).start()
    web = WebServer(server).start()
    sims = [SimulatedTable(t, work / t, FeedConfig(enabled=True, host="127.0.0.1", port=broker.port, table=t,
                                                   password=broker.passwords[table_user(t)]), mistakes=True).connect()
            for t in tables]
    try:
        for number, deals in ((1, 4), (2, 2)):
            server.start_next_round("director", force=True)
            for sim in sims:
                while sim.app.seating is None or sim.app.seating.round != number:
                    sim.drain()
                    time.sleep(0.01)
                sim.new_match(number * 10 + int(sim.name))
                while sim.playing and len(sim.journaled.state.slate) < deals:
                    sim.step()
        for sim in sims[:2]:  # mid-trick at two tables
            while sim.playing and not (sim.journaled.state.current_trick
                                       and len(sim.journaled.state.current_trick.plays) == 2):
                sim.step()
        for sim in sims:
            assert sim.feed is not None and sim.feed.wait_sent(10)
        time.sleep(1.0)
        os.environ["SE_OFFLINE"] = "true"
        options = webdriver.ChromeOptions()
        for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1100,700",
                    "--hide-scrollbars"):
            options.add_argument(arg)
        driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
        try:
            shots = [("standings", "/standings"), ("overlay", "/overlay/1?token=tok")]
            for name, path in shots:
                if name == "overlay":  # keep the page's transparency in the PNG, as OBS composes it
                    driver.execute_cdp_cmd("Emulation.setDefaultBackgroundColorOverride",
                                           {"color": {"r": 0, "g": 0, "b": 0, "a": 0}})
                driver.get(web.url + path)
                time.sleep(1.0)
                driver.save_screenshot(str(out / f"tournament-{name}.png"))
            driver.execute_cdp_cmd("Emulation.setDefaultBackgroundColorOverride", {})
            driver.get(web.url + "/login")
            driver.find_element("id", "password").send_keys("pw")
            driver.find_element("id", "login").click()
            time.sleep(0.5)
            for name, path in (("director", "/director"), ("table", "/tables/1")):
                driver.get(web.url + path)
                time.sleep(1.5)
                driver.save_screenshot(str(out / f"tournament-{name}.png"))
        finally:
            driver.quit()
    finally:
        web.close()
        for sim in sims:
            sim.close()
        server.close()
        broker.stop()
    print(f"screenshots in {out}")


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "docs/images"))
