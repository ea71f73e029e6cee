"""The table's configuration file (TOML), validated with errors that name the file and the key.

Every section is checked by the part of tablepi that owns it (house rules by the rules, ``[controls]`` by the
controls, reader options by the reader backend), and every error comes back as :class:`ConfigError` prefixed with
the file, so a bar owner reading ``journalctl -u tablepi`` knows exactly which line to fix.

The commented default file, :data:`DEFAULT_CONFIG`, is the reference; docs and the installer use it as is.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from tablepi.book.config import BookConfig, WebConfig
from tablepi.errors import ConfigError, TablepiError
from tablepi.feed.config import FeedConfig
from tablepi.rules.house import HouseRules
from tablepi.rules.seats import Seat, Team
from tablepi.safeinput import clean_text, load_toml, shown

#: The commented default configuration file, installed as /etc/tablepi/tablepi.toml (systemd/install.sh).
DEFAULT_CONFIG = resources.files("tablepi").joinpath("default-config.toml").read_text(encoding="utf-8")


@dataclass(frozen=True)
class ReaderConfig:
    backend: str = "serial"
    zones: Mapping[int, Seat] = field(default_factory=lambda: {0: Seat.N, 1: Seat.E, 2: Seat.S, 3: Seat.W})
    options: Mapping[str, Any] = field(default_factory=lambda: {"port": "/dev/tablepi-reader"})

    def seat_of_zone(self, zone: int) -> Seat | None:
        return self.zones.get(zone)


@dataclass(frozen=True)
class DisplayConfig:
    language: str = "lb"
    bottom_seat: Seat = Seat.S
    scorer_team: Team = Team.NS
    learner: bool = False
    fullscreen: bool = True
    size: tuple[int, int] = (800, 480)
    names: Mapping[Seat, str] = field(default_factory=dict)
    #: Degrees clockwise the picture is turned on the panel (0, 90, 180, 270); touches are turned with it.
    rotation: int = 0
    #: SDL video drivers tried in this order (tablepi.display.video.DRIVER_ORDER; SDL_VIDEODRIVER overrides).
    video_drivers: tuple[str, ...] = ("kmsdrm", "wayland", "x11")


@dataclass(frozen=True)
class Config:
    """Everything the app needs to build a table. ``source`` names the file it came from (None: defaults)."""

    journal: Path = Path("/var/lib/tablepi/journal.sqlite3")
    decks: tuple[Path, ...] = (Path("/var/lib/tablepi/decks.toml"),)
    players: Path = Path("/var/lib/tablepi/players.toml")
    control: Path = Path("/run/tablepi/control.sock")
    tap_seconds: float = 1.0
    hand_scan: bool = False
    keep_matches: int = 1000
    house_rules: HouseRules = field(default_factory=HouseRules)
    readers: ReaderConfig = field(default_factory=ReaderConfig)
    display: DisplayConfig = field(default_factory=DisplayConfig)
    controls_enabled: bool = True
    controls: Mapping[str, Any] = field(default_factory=dict)  # checked by tablepi.controls.ControlPins
    feed: FeedConfig = field(default_factory=FeedConfig)  # the MQTT feed (docs/feed.md); off by default
    book: BookConfig = field(default_factory=BookConfig)  # the players' book (docs/players.md)
    web: WebConfig = field(default_factory=WebConfig)  # the table's own pages; off by default
    source: Path | None = None


def load_config(path: str | Path) -> Config:
    """Read and validate a configuration file. Errors name the file and the key."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such configuration file") from None
    except UnicodeDecodeError as error:
        raise ConfigError(f"{path}: not UTF-8 text (byte {error.start}: {error.reason})") from None
    except OSError as error:
        raise ConfigError(f"{path}: cannot read the configuration file: {error}") from None
    return parse_config(text, path)


def parse_config(text: str, source: Path | None = None) -> Config:
    """Validate configuration text; ``source`` is used in error messages and to resolve relative paths."""
    where = str(source) if source is not None else "configuration"
    try:
        data = load_toml(text)  # a BOM is accepted; deep nesting, huge numbers, bad text are one-line errors
    except ValueError as error:
        raise ConfigError(clean_text(f"{where}: {error}")) from None
    try:
        return _build(data, source)
    except TablepiError as error:
        raise ConfigError(clean_text(f"{where}: {_with_line(text, str(error))}")) from None


def _with_line(text: str, message: str) -> str:
    """``message`` (``section.key: problem``) with the line of that key in ``text`` in front, when it is found."""
    from tablepi.deck import _line_of

    head = message.split(":", 1)[0].strip().strip("[]")
    if not head or " " in head:
        return message
    parts = [part.split("[")[0] for part in head.split(".")]
    candidates = [(None, parts[0])] if len(parts) == 1 else [(".".join(parts[:-1]), parts[-1]), (parts[0], parts[1])]
    for table, key in candidates:
        line = _line_of(text, table, key)
        if line.isdigit():
            return f"line {line}: {message}"
    return message


#: A Unix socket's path fits in sun_path (108 bytes on Linux, the terminating zero included).
_SOCKET_PATH_MAX = 107

_SECTIONS = {"table", "house_rules", "readers", "display", "controls", "feed", "players", "web"}


def _build(data: Mapping[str, Any], source: Path | None) -> Config:
    _no_unknown(data, _SECTIONS, "")
    base = source.resolve().parent if source is not None else Path.cwd()
    table = _section(data, "table")
    _no_unknown(table, {"journal", "decks", "players", "control", "tap_seconds", "hand_scan",
                        "keep_matches"}, "table")
    journal = _path(table.get("journal", "/var/lib/tablepi/journal.sqlite3"), "table.journal", base)
    decks_value = table.get("decks", ["/var/lib/tablepi/decks.toml"])
    if not isinstance(decks_value, list):
        raise ConfigError(f"table.decks: expected a list of file names, got {shown(decks_value)}")
    decks = tuple(_path(item, f"table.decks[{i}]", base) for i, item in enumerate(decks_value))
    players = _path(table.get("players", "/var/lib/tablepi/players.toml"), "table.players", base)
    control = _path(table.get("control", "/run/tablepi/control.sock"), "table.control", base)
    if len(os.fsencode(control)) > _SOCKET_PATH_MAX:
        raise ConfigError(f"table.control: {control} is longer than a socket path may be ({_SOCKET_PATH_MAX} bytes)")
    tap = table.get("tap_seconds", 1.0)
    if isinstance(tap, bool) or not isinstance(tap, int | float) or not 0.2 <= tap <= 5:
        raise ConfigError(f"table.tap_seconds: expected seconds between 0.2 and 5, got {shown(tap)}")
    hand_scan = _bool(table, "hand_scan", False, "table")
    keep = table.get("keep_matches", 1000)
    if isinstance(keep, bool) or not isinstance(keep, int) or not 1 <= keep <= 1_000_000:
        raise ConfigError(f"table.keep_matches: expected a number of matches from 1 to 1000000, got {shown(keep)}")

    house_rules = HouseRules.from_mapping(_section(data, "house_rules"), "house_rules")

    readers = _section(data, "readers")
    _no_unknown(readers, {"backend", "zones", "options"}, "readers")
    backend = readers.get("backend", "serial")
    if not isinstance(backend, str):
        raise ConfigError(f"readers.backend: expected a backend name, got {shown(backend)}")
    zones = _zones(readers.get("zones", {"N": 0, "E": 1, "S": 2, "W": 3}))
    options = readers.get("options", {"port": "/dev/tablepi-reader"} if backend == "serial" else {})
    if not isinstance(options, Mapping):
        raise ConfigError(f"readers.options: expected a table, got {shown(options)}")

    display = _section(data, "display")
    _no_unknown(
        display,
        {"language", "bottom_seat", "scorer_team", "learner", "fullscreen", "size", "names", "rotation",
         "video_drivers"},
        "display",
    )
    language = display.get("language", "lb")
    if language not in ("lb", "de", "fr", "en"):
        raise ConfigError(f"display.language: {shown(language)} is not one of 'lb', 'de', 'fr', 'en'")
    size = display.get("size", [800, 480])
    if (
        not isinstance(size, list)
        or len(size) != 2
        or not all(isinstance(v, int) and not isinstance(v, bool) and 160 <= v <= 4096 for v in size)
    ):
        raise ConfigError(f"display.size: expected [width, height] in pixels, got {shown(size)}")
    names = display.get("names", {})
    if not isinstance(names, Mapping) or not all(isinstance(v, str) for v in names.values()):
        raise ConfigError(f"display.names: expected a table of seat = \"name\", got {shown(names)}")
    rotation = display.get("rotation", 0)
    if isinstance(rotation, bool) or rotation not in (0, 90, 180, 270):
        raise ConfigError(f"display.rotation: expected 0, 90, 180 or 270 (degrees clockwise), got {shown(rotation)}")
    drivers = display.get("video_drivers", ["kmsdrm", "wayland", "x11"])
    if not isinstance(drivers, list) or not drivers or not all(isinstance(d, str) and d for d in drivers):
        raise ConfigError(f"display.video_drivers: expected a list of SDL video drivers such as "
                          f"[\"kmsdrm\", \"x11\"], got {shown(drivers)}")
    display_config = DisplayConfig(
        language=language,
        bottom_seat=_seat(display.get("bottom_seat", "S"), "display.bottom_seat"),
        scorer_team=_team(display.get("scorer_team", "NS"), "display.scorer_team"),
        learner=_bool(display, "learner", False, "display"),
        fullscreen=_bool(display, "fullscreen", True, "display"),
        size=(size[0], size[1]),
        names={_seat(key, f"display.names.{key}"): value for key, value in names.items()},
        rotation=rotation,
        video_drivers=tuple(d.lower() for d in drivers),
    )

    controls = dict(_section(data, "controls"))
    enabled = controls.pop("enabled", True)
    if not isinstance(enabled, bool):
        raise ConfigError(f"controls.enabled: expected true or false, got {shown(enabled)}")
    if enabled:
        from tablepi.controls.pins import ControlPins  # checks pins now, not when the table starts

        ControlPins.from_mapping(controls)
    feed = FeedConfig.from_mapping(_section(data, "feed"), base)
    return Config(
        journal=journal,
        decks=decks,
        players=players,
        control=control,
        tap_seconds=float(tap),
        hand_scan=hand_scan,
        keep_matches=keep,
        house_rules=house_rules,
        readers=ReaderConfig(backend, zones, dict(options)),
        display=display_config,
        controls_enabled=enabled,
        controls=controls,
        feed=feed,
        book=BookConfig.from_mapping(_section(data, "players"), base),
        web=WebConfig.from_mapping(_section(data, "web")),
        source=source,
    )


def _section(data: Mapping[str, Any], name: str) -> Mapping[str, Any]:
    value = data.get(name, {})
    if not isinstance(value, Mapping):
        raise ConfigError(f"[{name}]: expected a table of settings, got {shown(value)}")
    return value


def _no_unknown(mapping: Mapping[str, Any], known: set[str], section: str) -> None:
    unknown = sorted(set(mapping) - known)
    if unknown:
        where = f"{section}." if section else ""
        raise ConfigError(f"{where}{unknown[0]}: unknown setting (known: {', '.join(sorted(known))})")


def _bool(mapping: Mapping[str, Any], key: str, default: bool, section: str) -> bool:
    value = mapping.get(key, default)
    if not isinstance(value, bool):
        raise ConfigError(f"{section}.{key}: expected true or false, got {shown(value)}")
    return value


def _path(value: object, key: str, base: Path) -> Path:
    if not isinstance(value, str) or not value or "\x00" in value or len(value) > 4096:
        raise ConfigError(f"{key}: expected a file name, got {shown(value)}")
    path = Path(value).expanduser()
    return path if path.is_absolute() else base / path


def _seat(value: object, key: str) -> Seat:
    try:
        return Seat.parse(str(value))
    except TablepiError:
        raise ConfigError(f"{key}: {shown(value)} is not a seat (N, E, S or W)") from None


def _team(value: object, key: str) -> Team:
    try:
        return Team.parse(str(value))
    except TablepiError:
        raise ConfigError(f"{key}: {shown(value)} is not a team (NS or EW)") from None


def _zones(value: object) -> dict[int, Seat]:
    if not isinstance(value, Mapping):
        raise ConfigError(f"readers.zones: expected a table like {{ N = 0, E = 1, S = 2, W = 3 }}, got {shown(value)}")
    zones: dict[int, Seat] = {}
    for key, zone in value.items():
        seat = _seat(key, f"readers.zones.{key}")
        if isinstance(zone, bool) or not isinstance(zone, int) or not 0 <= zone <= 15:
            raise ConfigError(f"readers.zones.{key}: expected a zone number 0-15, got {shown(zone)}")
        if zone in zones:
            raise ConfigError(f"readers.zones.{key}: zone {zone} is already the zone of {zones[zone]}")
        zones[zone] = seat
    if set(zones.values()) != set(Seat):
        missing = ", ".join(str(s) for s in Seat if s not in zones.values())
        raise ConfigError(f"readers.zones: every seat needs a zone; missing {missing}")
    return zones
