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
from tablepi.display.i18n import check_language
from tablepi.errors import ConfigError, TablepiError
from tablepi.feed.config import FeedConfig
from tablepi.rules.house import HouseRules
from tablepi.rules.seats import Seat, Team
from tablepi.safeinput import clean_text, line_of, load_toml, shown
from tablepi.table.state import check_tap_window

#: The commented default configuration file, installed as /etc/tablepi/tablepi.toml (systemd/install.sh).
DEFAULT_CONFIG = resources.files("tablepi").joinpath("default-config.toml").read_text(encoding="utf-8")


#: Where the table keeps its files when the configuration names none: the one place these defaults are written.
DEFAULT_JOURNAL = Path("/var/lib/tablepi/journal.sqlite3")
DEFAULT_DECKS = (Path("/var/lib/tablepi/decks.toml"),)
DEFAULT_PLAYERS = Path("/var/lib/tablepi/players.toml")
DEFAULT_CONTROL = Path("/run/tablepi/control.sock")


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
class ControlsConfig:
    """The ``[controls]`` section: whether the GPIO buttons, LEDs and buzzer are used, and their pins (checked by
    :class:`tablepi.controls.pins.ControlPins`)."""

    enabled: bool = True
    pins: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Config:
    """Everything the app needs to build a table. ``source`` names the file it came from (None: defaults)."""

    journal: Path = DEFAULT_JOURNAL
    decks: tuple[Path, ...] = DEFAULT_DECKS
    players: Path = DEFAULT_PLAYERS
    control: Path = DEFAULT_CONTROL
    tap_seconds: float = 1.0
    hand_scan: bool = False
    keep_matches: int = 1000
    house_rules: HouseRules = field(default_factory=HouseRules)
    readers: ReaderConfig = field(default_factory=ReaderConfig)
    display: DisplayConfig = field(default_factory=DisplayConfig)
    controls: ControlsConfig = field(default_factory=ControlsConfig)
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
        raise ConfigError(f"{path}: no such configuration file", path=str(path)) from None
    except UnicodeDecodeError as error:
        raise ConfigError(f"{path}: not UTF-8 text (byte {error.start}: {error.reason})", path=str(path)) from None
    except OSError as error:
        raise ConfigError(f"{path}: cannot read the configuration file: {error}", path=str(path)) from None
    return parse_config(text, path)


def parse_config(text: str, source: Path | None = None) -> Config:
    """Validate configuration text; ``source`` is used in error messages and to resolve relative paths."""
    where = str(source) if source is not None else "configuration"
    try:
        data = load_toml(text)  # a BOM is accepted; deep nesting, huge numbers, bad text are one-line errors
    except ValueError as error:
        raise ConfigError(clean_text(f"{where}: {error}"), path=where) from None
    try:
        return _build(data, source)
    except ConfigError as error:
        found = error.located(where, _line_of_setting(text, error.key))
        raise ConfigError(clean_text(str(found)), key=found.key, path=found.path, line=found.line) from None
    except TablepiError as error:
        raise ConfigError(clean_text(f"{where}: {error}"), path=where) from None


def _line_of_setting(text: str, key: str | None) -> int | None:
    """The line of the setting ``key`` (``section.key``, ``section.key[2]``, ``[section]``) in ``text``, if found."""
    head = (key or "").strip("[]")
    if not head or " " in head:
        return None
    parts = [part.split("[")[0] for part in head.split(".")]
    candidates = [(None, parts[0])] if len(parts) == 1 else [(".".join(parts[:-1]), parts[-1]), (parts[0], parts[1])]
    for table, name in candidates:
        line = line_of(text, table, name)
        if line is not None:
            return line
    return None


#: A Unix socket's path fits in sun_path (108 bytes on Linux, the terminating zero included).
_SOCKET_PATH_MAX = 107

_SECTIONS = {"table", "house_rules", "readers", "display", "controls", "feed", "players", "web"}


def _build(data: Mapping[str, Any], source: Path | None) -> Config:
    _no_unknown(data, _SECTIONS, "")
    base = source.resolve().parent if source is not None else Path.cwd()
    table = _section(data, "table")
    _no_unknown(table, {"journal", "decks", "players", "control", "tap_seconds", "hand_scan",
                        "keep_matches"}, "table")
    journal = _path(table.get("journal", str(DEFAULT_JOURNAL)), "table.journal", base)
    decks_value = table.get("decks", [str(p) for p in DEFAULT_DECKS])
    if not isinstance(decks_value, list):
        raise ConfigError.setting("table.decks", f"expected a list of file names, got {shown(decks_value)}")
    decks = tuple(_path(item, f"table.decks[{i}]", base) for i, item in enumerate(decks_value))
    players = _path(table.get("players", str(DEFAULT_PLAYERS)), "table.players", base)
    control = _path(table.get("control", str(DEFAULT_CONTROL)), "table.control", base)
    if len(os.fsencode(control)) > _SOCKET_PATH_MAX:
        raise ConfigError.setting("table.control",
                                  f"{control} is longer than a socket path may be ({_SOCKET_PATH_MAX} bytes)")
    tap = check_tap_window(table.get("tap_seconds", 1.0), "table.tap_seconds")
    hand_scan = _bool(table, "hand_scan", False, "table")
    keep = table.get("keep_matches", 1000)
    if isinstance(keep, bool) or not isinstance(keep, int) or not 1 <= keep <= 1_000_000:
        raise ConfigError.setting("table.keep_matches",
                                  f"expected a number of matches from 1 to 1000000, got {shown(keep)}")

    house_rules = HouseRules.from_mapping(_section(data, "house_rules"), "house_rules")

    readers = _section(data, "readers")
    _no_unknown(readers, {"backend", "zones", "options"}, "readers")
    backend = readers.get("backend", "serial")
    if not isinstance(backend, str):
        raise ConfigError.setting("readers.backend", f"expected a backend name, got {shown(backend)}")
    zones = _zones(readers.get("zones", {"N": 0, "E": 1, "S": 2, "W": 3}))
    options = readers.get("options", {"port": "/dev/tablepi-reader"} if backend == "serial" else {})
    if not isinstance(options, Mapping):
        raise ConfigError.setting("readers.options", f"expected a table, got {shown(options)}")

    display = _section(data, "display")
    _no_unknown(
        display,
        {"language", "bottom_seat", "scorer_team", "learner", "fullscreen", "size", "names", "rotation",
         "video_drivers"},
        "display",
    )
    language = check_language(display.get("language", "lb"), "display.language")
    size = display.get("size", [800, 480])
    if (
        not isinstance(size, list)
        or len(size) != 2
        or not all(isinstance(v, int) and not isinstance(v, bool) and 160 <= v <= 4096 for v in size)
    ):
        raise ConfigError.setting("display.size", f"expected [width, height] in pixels, got {shown(size)}")
    names = display.get("names", {})
    if not isinstance(names, Mapping) or not all(isinstance(v, str) for v in names.values()):
        raise ConfigError.setting("display.names", f"expected a table of seat = \"name\", got {shown(names)}")
    rotation = display.get("rotation", 0)
    if isinstance(rotation, bool) or rotation not in (0, 90, 180, 270):
        raise ConfigError.setting("display.rotation",
                                  f"expected 0, 90, 180 or 270 (degrees clockwise), got {shown(rotation)}")
    drivers = display.get("video_drivers", ["kmsdrm", "wayland", "x11"])
    if not isinstance(drivers, list) or not drivers or not all(isinstance(d, str) and d for d in drivers):
        raise ConfigError.setting("display.video_drivers", f"expected a list of SDL video drivers such as "
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
        raise ConfigError.setting("controls.enabled", f"expected true or false, got {shown(enabled)}")
    if enabled:
        from tablepi.controls.pins import ControlPins  # checks pins now, not when the table starts

        ControlPins.from_mapping(controls)
    feed = FeedConfig.from_mapping(_section(data, "feed"), base)
    return Config(
        journal=journal,
        decks=decks,
        players=players,
        control=control,
        tap_seconds=tap,
        hand_scan=hand_scan,
        keep_matches=keep,
        house_rules=house_rules,
        readers=ReaderConfig(backend, zones, dict(options)),
        display=display_config,
        controls=ControlsConfig(enabled, controls),
        feed=feed,
        book=BookConfig.from_mapping(_section(data, "players"), base),
        web=WebConfig.from_mapping(_section(data, "web")),
        source=source,
    )


def _section(data: Mapping[str, Any], name: str) -> Mapping[str, Any]:
    value = data.get(name, {})
    if not isinstance(value, Mapping):
        raise ConfigError.setting(f"[{name}]", f"expected a table of settings, got {shown(value)}")
    return value


def _no_unknown(mapping: Mapping[str, Any], known: set[str], section: str) -> None:
    unknown = sorted(set(mapping) - known)
    if unknown:
        where = f"{section}." if section else ""
        raise ConfigError.setting(f"{where}{unknown[0]}", f"unknown setting (known: {', '.join(sorted(known))})")


def _bool(mapping: Mapping[str, Any], key: str, default: bool, section: str) -> bool:
    value = mapping.get(key, default)
    if not isinstance(value, bool):
        raise ConfigError.setting(f"{section}.{key}", f"expected true or false, got {shown(value)}")
    return value


def _path(value: object, key: str, base: Path) -> Path:
    if not isinstance(value, str) or not value or "\x00" in value or len(value) > 4096:
        raise ConfigError.setting(key, f"expected a file name, got {shown(value)}")
    path = Path(value).expanduser()
    return path if path.is_absolute() else base / path


def _seat(value: object, key: str) -> Seat:
    try:
        return Seat.parse(str(value))
    except TablepiError:
        raise ConfigError.setting(key, f"{shown(value)} is not a seat (N, E, S or W)") from None


def _team(value: object, key: str) -> Team:
    try:
        return Team.parse(str(value))
    except TablepiError:
        raise ConfigError.setting(key, f"{shown(value)} is not a team (NS or EW)") from None


def _zones(value: object) -> dict[int, Seat]:
    if not isinstance(value, Mapping):
        raise ConfigError.setting("readers.zones",
                                  f"expected a table like {{ N = 0, E = 1, S = 2, W = 3 }}, got {shown(value)}")
    zones: dict[int, Seat] = {}
    for key, zone in value.items():
        seat = _seat(key, f"readers.zones.{key}")
        if isinstance(zone, bool) or not isinstance(zone, int) or not 0 <= zone <= 15:
            raise ConfigError.setting(f"readers.zones.{key}", f"expected a zone number 0-15, got {shown(zone)}")
        if zone in zones:
            raise ConfigError.setting(f"readers.zones.{key}", f"zone {zone} is already the zone of {zones[zone]}")
        zones[zone] = seat
    if set(zones.values()) != set(Seat):
        missing = ", ".join(str(s) for s in Seat if s not in zones.values())
        raise ConfigError.setting("readers.zones", f"every seat needs a zone; missing {missing}")
    return zones
