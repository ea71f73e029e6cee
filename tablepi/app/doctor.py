"""``tablepi doctor``: check everything a table needs and say how to fix what is wrong.

Each check returns a :class:`Finding` — ok, warn or fail, what was seen, and the fix in words a bar owner can follow.
Checks never raise: a check that breaks is itself a failed finding.
"""

from __future__ import annotations

import enum
import grp
import os
import shlex
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tablepi.config import Config
from tablepi.service_socket import Unreachable

if TYPE_CHECKING:
    from tablepi.display.video import ScreenReport


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
    from tablepi.service_socket import ServiceUnreachable, ask

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
    from tablepi.app.reloads import load_decks
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
    from tablepi.app.reloads import load_decks
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
            return
        refused = status.get("reader_refused")
        if isinstance(refused, dict):  # the port is there, the system will not let the table open it
            yield Finding("readers", Status.FAIL, f"the running table's reader: {refused.get('why')} "
                          f"(zones {', '.join(down)} offline)", str(refused.get("fix")))
            return
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

    from tablepi.app.simdrive import open_configured_reader
    from tablepi.readers import ZoneStatus
    from tablepi.readers.events import ZoneState

    try:
        reader = open_configured_reader(backend, options)
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


#: Where install.sh puts the unit; its Environment= lines (and drop-ins') are the service's environment.
SERVICE_UNIT = Path("/etc/systemd/system/tablepi.service")
#: What systemd gives a system service besides the unit's Environment= (no DISPLAY, no desktop session).
_SERVICE_BASE_ENV = ("PATH", "LANG", "HOME", "USER", "LOGNAME")


def service_environment(unit: Path | None = None, base: dict[str, str] | None = None) -> dict[str, str]:
    """The environment ``tablepi run`` gets under systemd: a plain base plus the unit's ``Environment=`` lines.

    The installed unit and its drop-ins are read when they exist, else the unit in this checkout.
    """
    base = dict(os.environ) if base is None else base
    env = {key: base[key] for key in _SERVICE_BASE_ENV if key in base}
    env.setdefault("PATH", "/usr/local/bin:/usr/bin:/bin")
    if unit is None:
        checkout = Path(__file__).resolve().parents[2] / "systemd" / "tablepi.service"
        unit = SERVICE_UNIT if SERVICE_UNIT.exists() else checkout
    files = [unit, *sorted(Path(f"{unit}.d").glob("*.conf"))] if unit.exists() else []
    for path in files:
        for line in path.read_text(encoding="utf-8").splitlines():
            key, _, value = line.strip().partition("=")
            if key.strip() != "Environment":
                continue
            for item in shlex.split(value):
                name, eq, val = item.partition("=")
                if eq:
                    env[name] = val
    return env


def probe_screen(config: Config, env: dict[str, str], timeout: float = 20.0) -> tuple[ScreenReport | None, str]:
    """Open the screen in a child process with ``env``, as the service would; (report or None, error text)."""
    import subprocess
    import sys

    from tablepi.display.video import ScreenReport, drivers_to_try

    drivers = drivers_to_try(config.display.video_drivers, env)
    child_env = dict(env, PYGAME_HIDE_SUPPORT_PROMPT="1", SDL_AUDIODRIVER=env.get("SDL_AUDIODRIVER", "dummy"))
    child_env.pop("SDL_VIDEODRIVER", None)  # the drivers to try are passed explicitly, in order
    try:
        size = "x".join(str(v) for v in config.display.size)
        windowed = [] if config.display.fullscreen else ["--windowed"]
        out = subprocess.run([sys.executable, "-m", "tablepi.display.video", "--size", size, *windowed, *drivers],
                             env=child_env,
                             capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, f"opening the screen took longer than {timeout:.0f} s"
    lines = [line for line in out.stdout.splitlines() if line.startswith("{")]
    if not lines:
        return None, (out.stderr.strip().splitlines() or ["the screen probe printed nothing"])[-1]
    return ScreenReport.from_json(lines[-1]), ""


def _screen_fix(driver: str, compiled: Sequence[str], error: str = "") -> str:
    """The exact fix for a video driver that did not open (``error``: what SDL said)."""
    from tablepi.display.video import KMS_LIBRARIES, kms_libraries

    if driver not in compiled:
        if driver == "kmsdrm":
            return ("the installed SDL has no KMSDRM driver (pygame's wheel instead of pygame-ce?): "
                    "sudo /opt/tablepi/venv/bin/pip uninstall -y pygame pygame-ce && "
                    "sudo bash systemd/install.sh (it installs pygame-ce)")
        return f"this SDL has no {driver} driver (it has: {', '.join(compiled)}); " \
               "change display.video_drivers"
    if driver == "kmsdrm":
        missing = [KMS_LIBRARIES[name] for name, ok in kms_libraries().items() if not ok]
        if missing:
            return (f"SDL's KMS driver cannot load {', '.join(missing)}: sudo apt install {' '.join(missing)} "
                    "libgl1-mesa-dri (systemd/install.sh installs them), then sudo systemctl restart tablepi")
        if "egl" in error.lower():
            return ("EGL found no driver for this screen: sudo apt install libgl1-mesa-dri libegl1 libgles2 "
                    "(systemd/install.sh installs them), then sudo systemctl restart tablepi")
        cards = sorted(Path("/dev/dri").glob("card*")) if Path("/dev/dri").exists() else []
        if not cards:
            return ("no /dev/dri/card*: the KMS driver is off. In /boot/firmware/config.txt keep "
                    "dtoverlay=vc4-kms-v3d (and the panel's overlay, docs/install.md), then reboot")
        if not any(os.access(card, os.R_OK | os.W_OK) for card in cards):
            return f"{cards[0]} is not readable and writable here: sudo usermod -aG video,render $USER"
        return ("the display is held by a desktop or another program: boot to the console "
                "(sudo raspi-config nonint do_boot_behaviour B1, then reboot), or stop it: sudo systemctl stop "
                "lightdm; to run inside the desktop instead set display.video_drivers = [\"x11\"]")
    if driver in ("x11", "wayland"):
        return f"{driver} needs a desktop session; the service has none: use kmsdrm (docs/install.md)"
    return "see docs/display.md, 'Video drivers'"


def check_display(config: Config) -> Iterator[Finding]:
    """The font, the screen and the touch screen. The running table holds the screen: it is asked what it opened
    (the control socket's status); only when no table runs is the screen opened here, as the service would."""
    try:
        from tablepi.display.fonts import find_font

        font = find_font()
        yield Finding("display", Status.OK, f"font with suit symbols: {font}")
    except Exception as error:
        yield Finding("display", Status.FAIL, str(error), "sudo apt install fonts-dejavu-core")
    status = _running(config)
    if isinstance(status, dict) and isinstance(status.get("screen"), dict):
        yield from _running_screen(config, status["screen"])
    elif status is Unreachable.NO_PERMISSION:
        yield Finding("display", Status.WARN, "not probed: a table runs and holds the screen, and this user may "
                      "not ask it what it opened")
    else:
        yield from _probed_screen(config)
    yield from _touch_screens()


def _running_screen(config: Config, screen: dict[str, Any]) -> Iterator[Finding]:
    from tablepi.display.video import video_drivers

    driver = screen.get("driver")
    if driver:
        w, h = screen.get("size") or (0, 0)
        renderer = f", renderer {screen['renderer']}" if screen.get("renderer") else ""
        yield Finding("display", Status.OK, f"the running table draws with video driver {driver}: {w}x{h}"
                      f"{renderer}, rotation {config.display.rotation}")
        return
    error = str(screen.get("error") or "")
    if not error:
        yield Finding("display", Status.WARN, "the running table runs without a screen (headless)",
                      "run it as the service does: sudo systemctl restart tablepi")
        return
    errors = screen.get("errors") or {"kmsdrm": error}
    compiled = video_drivers()
    for name, why in errors.items():
        yield Finding("display", Status.FAIL, f"the running table has no screen: video driver {name}: {why}",
                      _screen_fix(str(name), compiled, str(why)))


def _probed_screen(config: Config) -> Iterator[Finding]:
    env = service_environment()
    report, trouble = probe_screen(config, env)
    if report is None:
        yield Finding("display", Status.FAIL, f"the screen could not be probed: {trouble}",
                      "run `python -m tablepi.display.video` to see the error")
        return
    if report.driver is None:
        for driver in report.tried:
            why = report.errors.get(driver, "refused")
            yield Finding("display", Status.FAIL, f"video driver {driver} (the service's): {why}",
                          _screen_fix(driver, report.compiled, why))
        if not report.tried:
            yield Finding("display", Status.FAIL, "no video driver to try (display.video_drivers)",
                          'set display.video_drivers = ["kmsdrm"]')
        return
    w, h = report.mode or (0, 0)
    status = Status.WARN if report.driver in ("dummy", "offscreen") else Status.OK
    yield Finding("display", status, f"video driver {report.driver} opened the screen: {w}x{h}, "
                  f"rotation {config.display.rotation}", "" if status is Status.OK else
                  "this driver draws nowhere: nothing will be seen on the screen")


def _touch_screens() -> Iterator[Finding]:
    from tablepi.display.video import touch_devices

    touch = touch_devices()
    if not touch:
        yield Finding("display", Status.WARN, "no touch screen found (no input device with touch axes)",
                      "check the panel's touch cable or overlay (docs/install.md); the buttons still work")
    for device in touch:
        if device.readable:
            yield Finding("display", Status.OK, f"touch screen {device.name!r} at {device.path}")
        else:
            yield Finding("display", Status.WARN, f"touch screen {device.name!r} at {device.path} is not readable "
                          "by this user", "the service reads it as group input: sudo usermod -aG input $USER")


def check_gpio(config: Config) -> Iterator[Finding]:
    if not config.controls.enabled:
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
    from tablepi.journal.journal import read_journal

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
        salvaged: list[str] = []
        state = Table.replay(view.events(salvaged), h.house_rules, h.dealer, h.table).state
        for note in salvaged:  # an earlier tablepi's name: read as it fits (docs/records.md, "Salvage")
            yield Finding("journal", Status.WARN, note, "nothing to do: the table reads it so, and says so in its log")
    except Exception as error:
        yield Finding("journal", Status.FAIL, f"{path} does not replay: {error}",
                      f"attach `tablepi export --journal {path}` output to a bug report; leave the journal where "
                      "it is (the table keeps every event it holds)")
        return
    yield Finding("journal", Status.OK, f"{path}: {len(view)} events replay to match {state.match.number}, "
                  f"deal {state.deal.number} ({state.phase.value})")
    quarantine = path.parent / "quarantine"
    if quarantine.is_dir() and any(quarantine.iterdir()):
        yield Finding("journal", Status.WARN, f"damaged journal files from earlier starts are kept in {quarantine}",
                      "read their NOTE.txt; attach them to a bug report; delete them once you no longer need them")
    from tablepi.journal import archive

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


def check_feed(config: Config) -> Iterator[Finding]:
    """The MQTT feed: the broker answers, takes this table's credentials, lets it publish to its own topics and
    refuses it another table's (MQTT v5 reason codes; docs/feed.md)."""
    feed = config.feed
    if not feed.enabled:
        yield Finding("feed", Status.OK, "the MQTT feed is off ([feed] enabled = false)")
        return
    try:
        from tablepi.feed.probe import probe
    except ImportError:
        yield Finding("feed", Status.FAIL, "the feed is enabled but paho-mqtt is not installed",
                      "pip install 'tablepi[feed]' into the table's venv")
        return
    where = f"{feed.host}:{feed.port}{' (TLS)' if feed.tls else ''}"
    result = probe(feed)
    if result.errors or not result.connected:
        why = "; ".join(result.errors) or f"the broker refused: {result.connect_reason}"
        fix = ("check [feed] username and password (the broker's password file)" if result.connect_reason
               else f"check [feed] host and port, the network, and that the broker runs on {where}")
        if result.tls is not None and result.tls.untrusted:
            fix = "set [feed] ca_file to the CA certificate that signed the broker's (docs/feed.md, TLS)"
        yield Finding("feed", Status.FAIL, f"cannot connect to the broker at {where} as {feed.user}: {why}", fix)
        return
    yield Finding("feed", Status.OK, f"connected to {where} as {feed.user} (MQTT v5)")
    if result.own_ok:
        yield Finding("feed", Status.OK, f"may publish to its own topics ({feed.prefix}/tables/{feed.table}/...)")
    else:
        yield Finding("feed", Status.FAIL, f"the broker does not let table {feed.table} publish to its own topics "
                      f"({result.own or 'no answer'}): events would stay in the outbox",
                      "add this table's lines to the broker's ACL (docs/feed.md, 'The broker')")
    if result.other_refused:
        yield Finding("feed", Status.OK, f"may not publish as another table ({result.other}): the ACL is tight")
    else:
        yield Finding("feed", Status.WARN, "the broker also lets this table publish as another table "
                      f"({result.other or 'no answer'})", "give each table its own user and ACL (docs/feed.md)")


CHECKS: tuple[Check, ...] = (
    check_config, check_service, check_deck, check_readers, check_display, check_gpio, check_permissions, check_journal,
    check_feed,
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
