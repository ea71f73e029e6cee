"""docs/tournament.md's organiser walk-through, followed line by line — as root and as an ordinary user — from the
install (apt, a clone of the repository, a virtualenv with ``pip install``: the package registries must be
reachable) to a real mosquitto started on the files it writes and a real table with its generated password file: a
round is seated and played, and the standings page counts it.

The commands are read from the document (the blocks after ``<!-- walkthrough -->``), so the document and this test
cannot drift apart. Only what a fresh machine would differ in is changed: ``<the tablepi repository>`` is a clone of
this checkout's commit (so uncommitted changes are not installed), owned by the user as his own would be; the
example config's ports are free ones here; ``sudo`` runs the line as this process (root in CI). Each user starts
from a clean environment with Debian's default ``PATH``.
"""

from __future__ import annotations

import json
import os
import pwd
import re
import shlex
import shutil
import signal
import subprocess
import tempfile
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from tablepi.feed.broker import free_port
from tablepi.feed.config import FeedConfig
from tests.tournament.simulate import SimulatedTable
from tests.waits import wait_until

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
#: Debian's default PATH for root and for an ordinary user (an ordinary user's has no sbin).
ROOT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
USER_PATH = "/usr/local/bin:/usr/bin:/bin"
#: The install steps fetch and build (apt, pip): minutes on a loaded machine.
INSTALL_SECONDS = 900


def walkthrough() -> list[str]:
    text = (ROOT / "docs" / "tournament.md").read_text(encoding="utf-8")
    part = text.split("<!-- walkthrough -->", 1)[1].split("What each step does", 1)[0]
    blocks = [block.split("```", 1)[0] for block in part.split("```sh\n")[1:]]
    return [line for block in blocks for line in block.splitlines() if line.strip()]


def test_the_walkthrough_is_in_the_document() -> None:
    lines = walkthrough()
    assert lines[0].startswith("sudo apt install") and any("pip install" in line for line in lines)
    assert any("--broker-config broker" in line for line in lines)
    assert any(line.startswith("/usr/sbin/mosquitto -c broker/mosquitto.conf") for line in lines)


class Runner:
    """Runs the walk-through's lines in ``home`` as ``user`` (None: as this process, root in CI)."""

    def __init__(self, home: Path, user: str | None, repository: Path) -> None:
        self.home = home
        self.user = user
        self.repository = repository
        self.cwd = home
        self.path = USER_PATH if user is not None or os.geteuid() != 0 else ROOT_PATH
        self.background: list[subprocess.Popen[bytes]] = []
        self.web_port = free_port()
        self.broker_port = free_port()

    def words(self, line: str) -> tuple[list[str], bool]:
        """The command's words, ``~`` expanded as a shell would, and whether it runs as root (``sudo``)."""
        line = line.replace("<the tablepi repository>", str(self.repository))
        words = [str(self.home) + word[1:] if word.startswith("~/") else word for word in shlex.split(line)]
        root = words[0] == "sudo"
        if root:
            words = words[1:]
            assert os.geteuid() == 0 or shutil.which("sudo") is not None, "the install needs root or sudo"
            if os.geteuid() != 0:
                words = ["sudo", *words]
        elif self.user is not None:
            words = ["setpriv", f"--reuid={self.user}", f"--regid={pwd.getpwnam(self.user).pw_gid}",
                     "--clear-groups", "--", *words]
        return words, root

    def run(self, line: str) -> None:
        running = "leave running" in line
        for part in line.split("  #", 1)[0].split("&&"):
            part = part.strip()
            if part.startswith("cd "):
                self.cwd = self.cwd / part[3:].strip()
                continue
            if part.startswith("export PATH="):
                self.path = part.split("=", 1)[1].replace("~/", f"{self.home}/").replace("$PATH", self.path)
                continue
            words, root = self.words(part)
            if running:
                self.background.append(subprocess.Popen(words, cwd=self.cwd, env=self.env(root),
                                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
                continue
            done = subprocess.run(words, cwd=self.cwd, env=self.env(root), capture_output=True, text=True,
                                  timeout=INSTALL_SECONDS, check=False, stdin=subprocess.DEVNULL)
            assert done.returncode == 0, f"{part}: {done.stdout[-3000:]}{done.stderr[-3000:]}"
            if part.startswith("cp ") and part.split()[-1] == "cup.toml":
                self.edit(self.cwd / "cup.toml")

    def env(self, root: bool = False) -> dict[str, str]:
        """A login's environment: this process's minus its virtualenv, with the user's home and PATH."""
        keep = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME")}
        if root:
            return {**keep, "PATH": ROOT_PATH, "DEBIAN_FRONTEND": "noninteractive"}
        return {**keep, "HOME": str(self.home), "PATH": self.path}

    def edit(self, path: Path) -> None:
        """The organiser's edits: ports free on this machine, four tables of the example's eight pairs."""
        text = path.read_text()
        text = re.sub(r"(\[broker\]\nhost = \"localhost\"\nport = )1883", rf"\g<1>{self.broker_port}", text)
        text = re.sub(r"(\[web\]\nhost = )\"0.0.0.0\"([^\n]*)\nport = 8080",
                      rf'\g<1>"127.0.0.1"\g<2>\nport = {self.web_port}', text)
        assert str(self.web_port) in text and str(self.broker_port) in text
        path.write_text(text)

    def stop(self) -> None:
        for process in self.background:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
                try:
                    process.wait(15)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()


@pytest.fixture(params=["root", "user"])
def runner(request: pytest.FixtureRequest) -> Iterator[Runner]:
    user = None
    if request.param == "user":
        if os.geteuid() == 0:
            user = "nobody"  # else this test process is the ordinary user already
    elif os.geteuid() != 0:
        pytest.skip("the root walk-through needs root")
    # A home every user can reach (mosquitto reads the broker's files there): under /tmp, not pytest's tmp_path,
    # whose base folder is private to this user (0700) and made so again by every other pytest run that starts.
    base = Path(tempfile.mkdtemp(prefix="tablepi-walkthrough-", dir="/tmp"))
    home = base / "home"
    home.mkdir()
    for folder in (base, home):
        folder.chmod(0o755)
    # "<the tablepi repository>": this checkout's commit, in a repository of the user's (git refuses to clone
    # one another user owns, which a repository on the network is not)
    repository = base / "tablepi.git"
    subprocess.run(["git", "clone", "-q", "--bare", "--no-hardlinks", str(ROOT), str(repository)], check=True,
                   timeout=120)
    if user is not None:
        uid, gid = pwd.getpwnam(user).pw_uid, pwd.getpwnam(user).pw_gid
        subprocess.run(["chown", "-R", f"{uid}:{gid}", str(home), str(repository)], check=True, timeout=60)
    running = Runner(home, user, repository)
    yield running
    running.stop()
    shutil.rmtree(base, ignore_errors=True)


def test_the_organisers_walkthrough_works_as_written(runner: Runner) -> None:
    for line in walkthrough():
        runner.run(line)
    assert (runner.home / "tablepi" / "bin" / "tablepi").is_file()  # the organiser's own install ran the server
    cup = runner.cwd
    broker = cup / "broker"
    assert (broker / "passwords" / "table-1").is_file() and (cup / "tournament-password").is_file()
    if runner.user is None and os.geteuid() == 0:
        assert (broker / "passwd").stat().st_uid == pwd.getpwnam("mosquitto").pw_uid  # mosquitto reads it
    url = f"http://127.0.0.1:{runner.web_port}"

    def standings() -> str:
        with urllib.request.urlopen(f"{url}/standings.json", timeout=5) as response:
            return str(response.read().decode())

    wait_until(lambda: _answers(url), "the pages", 60, every=0.2, ignore=(OSError,))
    # the director logs in and starts round 1; table 1 plays with its generated password file
    opener = urllib.request.build_opener(_NoRedirect)
    body = urllib.parse.urlencode({"password": "change me", "who": "walk"}).encode()
    with pytest.raises(urllib.error.HTTPError) as moved:
        opener.open(urllib.request.Request(f"{url}/login", body), timeout=10)
    cookie = str(moved.value.headers["set-cookie"]).split(";")[0]
    page = urllib.request.urlopen(urllib.request.Request(f"{url}/director", headers={"Cookie": cookie}),
                                  timeout=10).read().decode()
    token = re.search(r'name="csrf" content="([^"]+)"', page)
    assert token is not None
    request = urllib.request.Request(f"{url}/director/next-round", b"{}", {
        "Cookie": cookie, "Content-Type": "application/json", "X-CSRF-Token": token.group(1)})
    assert urllib.request.urlopen(request, timeout=20).status == 200
    feed = FeedConfig(enabled=True, host="127.0.0.1", port=runner.broker_port, table="1",
                      password_file=broker / "passwords" / "table-1")
    table = SimulatedTable("1", runner.home / "table-1", feed).connect()
    try:
        wait_until(lambda: (table.drain() or True) and table.app.seating is not None, "table 1's seating")
        table.new_match(7)
        table.play(until=table.clock.now + 200)
        assert table.feed is not None and table.feed.wait_sent(30)
        wait_until(lambda: json.loads(standings())["tables"].get("1", {}).get("deals", 0) > 0,
                   "the standings to count table 1's deals")
    finally:
        table.close()


def _answers(url: str) -> bool:
    with urllib.request.urlopen(f"{url}/standings", timeout=2):
        return True


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: object, **kwargs: object) -> None:
        return None
