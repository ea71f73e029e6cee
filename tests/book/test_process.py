"""The table's pages served by a process of their own (tablepi.book.process): a running table with ``[web]
enabled`` serves them from another process, live in a real headless Chromium as a deal is played; the table's
process only sends; a killed table leaves no pages process behind."""

from __future__ import annotations

import dataclasses
import json
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from tablepi.app.build import open_table
from tablepi.config import load_config
from tablepi.table.events import CardPlaced
from tablepi.table.simulate import simulate_match
from tests.app.test_commands import sim_config
from tests.book.helpers import browser_at, get
from tests.streams import read_event
from tests.waits import wait_until

pytestmark = pytest.mark.slow


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _web_config(tmp_path: Path, port: int) -> Path:
    return sim_config(tmp_path, f"[display]\nlanguage = \"en\"\n[web]\nenabled = true\nhost = \"127.0.0.1\"\n"
                                f"port = {port}\n")


def _gone(pid: int) -> bool:
    """No such process any more (or only its zombie, waiting for whoever adopted it to reap it)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return True
    return "\nState:\tZ" in status


def _pages_pid(port: int) -> int:
    """The process listening on ``port`` (from /proc: the socket's inode, then the process holding it)."""
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with open(table) as lines:
            for line in list(lines)[1:]:
                fields = line.split()
                if int(fields[1].rsplit(":", 1)[1], 16) == port and fields[3] == "0A":  # LISTEN
                    inodes.add(fields[9])
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if any(os.readlink(fd).removeprefix("socket:[").rstrip("]") in inodes
                       for fd in (entry / "fd").iterdir()):
                    return int(entry.name)
            except OSError:
                continue
    raise AssertionError(f"nothing listens on port {port}")


def test_a_running_tables_pages_come_from_another_process_and_follow_the_deal_live(tmp_path: Path) -> None:
    """``tablepi run``'s own path (open_table with ``[web] enabled``): the pages answer at once, from a process
    that is not the table's, and a real browser's live page shows the cards of the trick in play as they are
    laid; the pages take no write."""
    port = _free_port()
    running = open_table(load_config(_web_config(tmp_path, port)), headless=True, control=False)
    driver = None
    pid = 0
    try:
        base = f"http://127.0.0.1:{port}"
        status, page = get(f"{base}/")
        assert status == 200 and "At the table" in page
        pid = _pages_pid(port)
        assert pid != os.getpid()
        assert get(f"{base}/live.json", "POST")[0] == 405
        driver = browser_at((390, 844))
        driver.get(f"{base}/?lang=en")
        from selenium.webdriver.support.ui import WebDriverWait

        WebDriverWait(driver, 30).until(lambda d: "open" in d.find_element("id", "live").text)
        table = running.app.table
        start = table.journal.last_time + 5
        shown: list[str] = []
        trick = None
        for event in simulate_match(7).events:
            table.feed(dataclasses.replace(event, time=start + 1 + event.time))
            trick = table.state.deal.current_trick
            if isinstance(event, CardPlaced) and trick is not None and len(trick.plays) == 2:
                shown = [card.display for _, card in trick.plays]
                break
        assert shown and trick is not None
        WebDriverWait(driver, 30).until(lambda d: all(c in d.find_element("id", "live").text for c in shown))
        with socket.create_connection(("127.0.0.1", port), 10) as sock:  # a phone's stream: the same view
            sock.sendall(b"GET /events HTTP/1.1\r\nHost: x\r\n\r\n")
            live = json.loads(read_event(sock, bytearray()))["live"]
            assert [play[1] for play in live["tables"][0]["state"]["trick"]["plays"]] == [
                str(card) for _, card in trick.plays]
    finally:
        if driver is not None:
            driver.quit()
        running.close()
    if pid:
        wait_until(lambda: _gone(pid), "the pages process to end with the table", 30)


def test_a_killed_table_leaves_no_pages_process(tmp_path: Path) -> None:
    """``kill -9`` of the table's process: the kernel closes its end of the pipe and the pages process ends."""
    port = _free_port()
    config = _web_config(tmp_path, port)
    script = (
        "import sys, time\n"
        "from tablepi.app.build import open_table\n"
        "from tablepi.config import load_config\n"
        f"running = open_table(load_config(__import__('pathlib').Path({str(config)!r})), headless=True, "
        "control=False)\n"
        "print('up', flush=True)\n"
        "time.sleep(600)\n"
    )
    table = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True,
                             env={**os.environ, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"})
    try:
        assert table.stdout is not None and table.stdout.readline().strip() == "up"
        assert get(f"http://127.0.0.1:{port}/")[0] == 200
        pid = _pages_pid(port)
        assert pid != table.pid
        os.kill(table.pid, signal.SIGKILL)
        table.wait(10)
        wait_until(lambda: _gone(pid), "the pages process to end after its table was killed", 30)
    finally:
        if table.poll() is None:
            table.kill()
            table.wait(10)
