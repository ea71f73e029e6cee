"""``tablepi doctor``: check everything a table needs and say how to fix what is wrong.

Each check returns a :class:`Finding` — ok, warn or fail, what was seen, and the fix in words a bar owner can follow.
Checks never raise: a check that breaks is itself a failed finding.
"""

from __future__ import annotations

import enum
import grp
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from tablepi.config import Config


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


def check_deck(config: Config) -> Iterator[Finding]:
    from tablepi.app.build import load_decks
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
    copy = path.with_name(path.name + ".events")
    if not path.exists() and not copy.exists():
        yield Finding("journal", Status.OK, f"{path} will be created at the first start")
        return
    from tablepi.journal import read_journal

    # Only read, never change: the table itself repairs a damaged journal at its next start, keeping the damaged
    # files in quarantine/ (docs/journal.md). No advice here moves or deletes a journal file.
    view = read_journal(path)
    rec = view.recovery
    if rec.damaged:
        yield Finding("journal", Status.WARN, f"{path} is damaged: {rec.summary()}"
                      + "".join(f"; {note}" for note in rec.notes),
                      "restart the table (sudo systemctl restart tablepi): it keeps the damaged files in "
                      f"{path.parent / 'quarantine'} and goes on with the {len(rec.lines)} intact events; "
                      f"`tablepi export --journal {path} OUT.jsonl` writes them for a bug report")
    try:
        from tablepi.table.machine import Table

        h = view.header
        state = Table.replay(view.events(), h.house_rules, h.dealer, h.table).state
    except Exception as error:
        yield Finding("journal", Status.FAIL, f"{path} does not replay: {error}",
                      f"attach `tablepi export --journal {path}` output to a bug report; leave the journal where "
                      "it is (the table keeps every event it holds)")
        return
    yield Finding("journal", Status.OK, f"{path}: {len(view)} events replay to match {state.match_number}, "
                  f"deal {state.deal_number} ({state.phase.value})")
    quarantine = path.parent / "quarantine"
    if quarantine.is_dir() and any(quarantine.iterdir()):
        yield Finding("journal", Status.WARN, f"damaged journal files from earlier starts are kept in {quarantine}",
                      "read their NOTE.txt; attach them to a bug report; delete them once you no longer need them")
    from tablepi import archive

    kept = archive.matches(path.parent / "archive")
    size = sum(p.stat().st_size for p in kept)
    yield Finding("journal", Status.OK, f"archive: {len(kept)} finished matches, {size // 1024} KB "
                  f"(the newest {config.keep_matches} are kept)")
    try:
        free = os.statvfs(path.parent)
        left = free.f_bavail * free.f_frsize
    except OSError:
        return
    if left < 20 * 1024 * 1024:
        yield Finding("journal", Status.WARN, f"only {left // 1024} KB free on the journal's card",
                      "free space on the card (old logs, the quarantine); the table keeps playing when it is full "
                      "but cannot save until there is room")


CHECKS: tuple[Check, ...] = (
    check_config, check_deck, check_readers, check_display, check_gpio, check_permissions, check_journal,
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
