"""``tablepi doctor``: check everything a table needs and say how to fix what is wrong.

Each check returns a :class:`Finding` — ok, warn or fail, what was seen, and the fix in words a bar owner can follow.
Checks never raise: a check that breaks is itself a failed finding.
"""

from __future__ import annotations

import enum
import grp
import os
import sqlite3
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tablepi.config import Config
from tablepi.control import Unreachable


class Status(enum.Enum):
    OK = "ok"
    WARN = "warn"
    FAIL = "FAIL"


@dataclass(frozen=True, slots=True)
class Finding:
    area: str
    status: Status
    what: str
    fix: str = ""

    def lines(self) -> list[str]:
        out = [f"[{self.status.value:>4}] {self.area}: {self.what}"]
        if self.fix:
            out.append(f"       fix: {self.fix}")
        return out


Check = Callable[[Config], Iterator[Finding]]


def check_config(config: Config) -> Iterator[Finding]:
    where = config.source or "built-in defaults"
    yield Finding("config", Status.OK, f"read {where}: readers {config.readers.backend}, "
                  f"{config.house_rules.start_lines} lines, language {config.display.language}")


def _running(config: Config) -> dict[str, Any] | Unreachable:
    """What the running table says about itself, or why no table answers."""
    from tablepi.control import ServiceUnreachable, ask

    try:
        return ask(config.control, "status")
    except ServiceUnreachable as error:
        return error.reason
    except (OSError, ValueError):  # a table too busy to answer in time, or a garbled answer
        return Unreachable.NOT_RUNNING


def check_service(config: Config) -> Iterator[Finding]:
    status = _running(config)
    if status is Unreachable.NO_PERMISSION:
        yield Finding("service", Status.WARN, f"a table runs, but this user may not ask it ({config.control}); "
                      "the checks below cannot say what it uses",
                      f"sudo -u tablepi /opt/tablepi/venv/bin/tablepi doctor --config {config.source or 'FILE'}")
        return
    if status is Unreachable.NOT_RUNNING:
        yield Finding("service", Status.WARN, f"no table runs (nobody answers on {config.control})",
                      "sudo systemctl start tablepi  (journalctl -u tablepi says why it stopped)")
        return
    assert isinstance(status, dict)
    mode = f", {status['mode']}" if status.get("mode") else ""
    yield Finding("service", Status.OK, f"a table runs (pid {status.get('pid')}): journal {status.get('journal')}, "
                  f"match {status.get('match')} deal {status.get('deal')} ({status.get('phase')}){mode}")


def check_deck(config: Config) -> Iterator[Finding]:
    status = _running(config)
    if isinstance(status, dict):
        yield from _running_decks(config, status)
        return
    yield from _deck_files(config)


def _running_decks(config: Config, status: dict[str, Any]) -> Iterator[Finding]:
    """The decks the running table uses, and whether the files on disk still say the same."""
    from tablepi.app.service import load_decks
    from tablepi.errors import ConfigError

    using = {deck["name"]: deck for deck in status.get("decks", [])}
    for problem in status.get("problems", []):
        yield Finding("deck", Status.FAIL, f"the running table: {problem}",
                      "tag a deck, laying each card on a zone when asked (the table takes it at once): "
                      f"sudo -u tablepi /opt/tablepi/venv/bin/tablepi enroll NAME --config {config.source or 'FILE'}")
    for name, deck in using.items():
        yield Finding("deck", Status.OK, f"the running table uses deck {name!r}: {deck['cards']} cards "
                      f"({deck.get('source')})")
    players = status.get("players", {})
    yield Finding("players", Status.OK, f"the running table knows {players.get('count', 0)} player tag(s) "
                  f"({players.get('file')})")
    try:
        on_disk, _ = load_decks(config.decks)
    except ConfigError as error:
        yield Finding("deck", Status.FAIL, f"the deck file on disk does not read, so the table keeps the decks "
                      f"above: {error}", "correct that line of the deck file, or tag the deck again")
        return
    disk = {name: len(deck.cards) for name, deck in on_disk.decks.items()}
    if disk != {name: deck["cards"] for name, deck in using.items()}:
        yield Finding("deck", Status.WARN, f"the deck files on disk hold {sorted(disk)}, the table uses "
                      f"{sorted(using)}: it reloads changed files within a second; if this stays, "
                      "see journalctl -u tablepi")


def _deck_files(config: Config) -> Iterator[Finding]:
    from tablepi.app.service import load_decks
    from tablepi.errors import ConfigError

    try:
        registry, problems = load_decks(config.decks)
    except ConfigError as error:
        yield Finding("deck", Status.FAIL, str(error),
                      "correct that line of the deck file, or tag the deck again: tablepi enroll NAME --config FILE")
        return
    for problem in problems:
        yield Finding("deck", Status.FAIL, problem,
                      "tag a deck, laying each card on a zone when asked: "
                      f"sudo -u tablepi /opt/tablepi/venv/bin/tablepi enroll NAME --config {config.source or 'FILE'}")
    for name, deck in registry.decks.items():
        yield Finding("deck", Status.OK, f"deck {name!r}: all {len(deck.cards)} cards enrolled ({deck.source})")


def check_readers(config: Config) -> Iterator[Finding]:
    status = _running(config)
    if isinstance(status, dict):
        # The table owns the reader: opening it here too would fight it over the port. Ask it instead.
        zones = status.get("zones", {})
        down = {seat: state for seat, state in zones.items() if state != "online"}
        if not down:
            yield Finding("readers", Status.OK, f"the running table's {status.get('reader')} reader: "
                          f"all {len(zones)} zones online")
        for seat, state in down.items():
            yield Finding("readers", Status.FAIL, f"the running table's zone {seat}: {state}",
                          "check the reader's cable and power (hw/README.md, 'pitfalls')")
        return
    if status is Unreachable.NO_PERMISSION:
        yield Finding("readers", Status.WARN, "not probed: the running table owns the reader")
        return
    backend = config.readers.backend
    options = dict(config.readers.options)
    if backend == "serial":
        port = options.get("port", "/dev/tablepi-reader")
        ports = [port] if isinstance(port, str) else list(port)
        present = [p for p in ports if os.path.exists(p)]
        if not present:
            yield Finding("readers", Status.FAIL, f"no serial port {', '.join(ports)}",
                          "plug the reader's USB cable into the Pi; if it still does not show, install the udev "
                          "rule (systemd/install.sh) and check `ls /dev/serial/by-id/`")
            return
        for path in present:
            if not os.access(path, os.R_OK | os.W_OK):
                yield Finding("readers", Status.FAIL, f"{path} is there but not readable and writable by this user",
                              "add the user to the dialout group: sudo usermod -aG dialout $USER (then log in again)")
                return
    if backend == "pcsc":
        try:
            import smartcard  # noqa: F401
        except ImportError:
            yield Finding("readers", Status.FAIL, "the pcsc backend needs pyscard, which is not installed",
                          "pip install 'tablepi[pcsc]' (and apt install pcscd libpcsclite-dev)")
            return
        if not Path("/run/pcscd/pcscd.comm").exists():
            yield Finding("readers", Status.FAIL, "pcscd is not running",
                          "sudo apt install pcscd && sudo systemctl enable --now pcscd.socket")
            return
    yield from _probe_reader(backend, options)


def _probe_reader(backend: str, options: dict[str, object]) -> Iterator[Finding]:
    """Open the reader for a moment and see whether its zones come online."""
    import time

    from tablepi.readers import ZoneStatus, open_reader
    from tablepi.readers.events import ZoneState

    try:
        reader = open_reader(backend, **options)
    except Exception as error:  # any failure to open is the finding
        yield Finding("readers", Status.FAIL, f"cannot open the {backend} reader: {error}",
                      "see docs/readers.md for the backend's options")
        return
    online: set[int] = set()
    problems: dict[int, str] = {}
    deadline = time.monotonic() + 4.0
    with reader:
        while time.monotonic() < deadline and len(online) < reader.zones:
            event = reader.recv(0.2)
            if isinstance(event, ZoneStatus):
                if event.state is ZoneState.ONLINE:
                    online.add(event.zone)
                    problems.pop(event.zone, None)
                else:
                    problems[event.zone] = f"{event.state.value} ({event.detail})"
    if len(online) == reader.zones:
        yield Finding("readers", Status.OK, f"{backend} reader: all {reader.zones} zones online")
    for zone in range(reader.zones):
        if zone not in online:
            why = problems.get(zone, "no answer within 4 s")
            yield Finding("readers", Status.FAIL, f"zone {zone}: {why}",
                          "check the reader's cable and power (hw/README.md, 'pitfalls')")


def check_display(config: Config) -> Iterator[Finding]:
    try:
        from tablepi.display.fonts import find_font

        font = find_font()
        yield Finding("display", Status.OK, f"font with suit symbols: {font}")
    except Exception as error:
        yield Finding("display", Status.FAIL, str(error), "sudo apt install fonts-dejavu-core")
    if os.environ.get("SDL_VIDEODRIVER") == "dummy":
        yield Finding("display", Status.WARN, "SDL_VIDEODRIVER=dummy: nothing will be shown on a screen")
    elif not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY") or Path("/dev/dri").exists()
              or Path("/dev/fb0").exists()):
        yield Finding("display", Status.FAIL, "no screen found (no X11/Wayland, no /dev/dri, no /dev/fb0)",
                      "connect the display and enable its overlay in /boot/firmware/config.txt")
    else:
        yield Finding("display", Status.OK, "a screen is available")


def check_gpio(config: Config) -> Iterator[Finding]:
    if not config.controls_enabled:
        yield Finding("gpio", Status.OK, "controls disabled in the configuration")
        return
    try:
        from gpiozero import Device
        from gpiozero.pins.mock import MockFactory

        factory = Device.pin_factory or Device._default_pin_factory()
        name = type(factory).__name__
        if isinstance(factory, MockFactory):
            yield Finding("gpio", Status.WARN, "GPIO is simulated (GPIOZERO_PIN_FACTORY=mock): buttons do nothing")
        else:
            yield Finding("gpio", Status.OK, f"GPIO pin factory {name}")
    except Exception as error:
        yield Finding("gpio", Status.FAIL, f"no GPIO here: {error}",
                      "on a Raspberry Pi: sudo apt install python3-lgpio; elsewhere set [controls] enabled = false")


def check_permissions(config: Config) -> Iterator[Finding]:
    try:
        groups = {grp.getgrgid(g).gr_name for g in os.getgroups()}
    except KeyError:
        groups = set()
    if os.geteuid() == 0:
        yield Finding("permissions", Status.WARN, "running as root: the service runs as the user 'tablepi'")
        return
    wanted = {"dialout": "the serial reader", "gpio": "the buttons and LEDs", "video": "the screen",
              "input": "the touch screen"}
    for group, what in wanted.items():
        if group not in groups:
            yield Finding("permissions", Status.WARN, f"not in group {group} ({what})",
                          f"sudo usermod -aG {group} $USER")


def check_journal(config: Config) -> Iterator[Finding]:
    path = config.journal
    directory = path.parent
    if not directory.exists():
        yield Finding("journal", Status.FAIL, f"{directory} does not exist",
                      f"sudo install -d -o tablepi {directory} (systemd's StateDirectory makes it)")
        return
    if not os.access(directory, os.W_OK):
        yield Finding("journal", Status.FAIL, f"{directory} is not writable by this user",
                      f"sudo chown tablepi {directory}")
        return
    if not path.exists():
        yield Finding("journal", Status.OK, f"{path} will be created at the first start")
        return
    try:
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
            result = db.execute("PRAGMA integrity_check").fetchone()[0]
            count = db.execute("SELECT COUNT(*) FROM events").fetchone()[0]
    except sqlite3.Error as error:
        yield Finding("journal", Status.FAIL, f"{path} cannot be read: {error}",
                      f"keep the file for a bug report, then move it aside: mv {path} {path}.broken")
        return
    if result != "ok":
        yield Finding("journal", Status.FAIL, f"{path} is damaged: {result}",
                      f"export what can be read (tablepi export --journal {path}), then move it aside")
        return
    try:
        from tablepi.journal import JournaledTable

        with JournaledTable(path) as table:
            state = table.state
        yield Finding("journal", Status.OK, f"{path}: {count} events replay to match {state.match_number}, "
                      f"deal {state.deal_number} ({state.phase.value})")
    except Exception as error:
        yield Finding("journal", Status.FAIL, f"{path} does not replay: {error}",
                      "attach `tablepi export` output to a bug report, then move the journal aside")


CHECKS: tuple[Check, ...] = (
    check_config, check_service, check_deck, check_readers, check_display, check_gpio, check_permissions, check_journal,
)


def diagnose(config: Config, checks: tuple[Check, ...] = CHECKS) -> list[Finding]:
    """Run every check; a check that breaks becomes a failed finding."""
    findings: list[Finding] = []
    for check in checks:
        area = check.__name__.removeprefix("check_")
        try:
            findings.extend(check(config))
        except Exception as error:
            findings.append(Finding(area, Status.FAIL, f"the check itself failed: {error!r}"))
    return findings
