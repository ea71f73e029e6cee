"""The tournament's configuration file (TOML, docs/tournament.md)."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tablepi.display.i18n import check_language
from tablepi.errors import ConfigError, TablepiError
from tablepi.feed.broker import SERVER_USER
from tablepi.feed.config import NAME, FeedConfig
from tablepi.players import check_name
from tablepi.safeinput import clean_text, load_toml, shown


class Entrants(enum.Enum):
    PAIRS = "pairs"  # fixed partnerships: a pair plays together every round
    INDIVIDUALS = "individuals"  # partners drawn anew each round; everyone is ranked alone


class RoundLength(enum.Enum):
    PARTIE = "partie"  # a round is one match, to the end of the slate
    DEALS = "deals"  # a round is a fixed number of deals


@dataclass(frozen=True)
class Pair:
    name: str
    players: tuple[str, str]


@dataclass(frozen=True)
class WebConfig:
    host: str = "127.0.0.1"
    port: int = 8080
    director_password: str = ""
    overlay_token: str = ""
    overlay_delay: float = 30.0
    language: str = "en"  # of the pages (lb, de, fr, en); a visitor may choose another with ?lang=
    certfile: Path | None = None  # TLS for the pages: the server's certificate (its chain after it), PEM
    keyfile: Path | None = None  # ... and its private key
    max_streams: int = 2000  # open live pages at most; beyond, a polite "try again shortly" (503, Retry-After)

    @property
    def tls(self) -> bool:
        return self.certfile is not None


@dataclass(frozen=True)
class TournamentConfig:
    name: str = "Konter a Matt"
    entrants: Entrants = Entrants.PAIRS
    round_length: RoundLength = RoundLength.PARTIE
    deals: int = 6
    rounds: int = 5
    drop_worst: bool = False
    seed: int = 1
    slow_minutes: float = 10.0
    store: Path = Path("tournament.sqlite3")
    tables: tuple[str, ...] = ()
    players: tuple[str, ...] = ()  # individuals
    pairs: tuple[Pair, ...] = ()  # pairs
    broker: FeedConfig = field(default_factory=lambda: FeedConfig(username=SERVER_USER))
    web: WebConfig = field(default_factory=WebConfig)
    source: Path | None = None

    @property
    def entrant_names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.pairs) if self.entrants is Entrants.PAIRS else self.players

    @property
    def per_table(self) -> int:
        return 2 if self.entrants is Entrants.PAIRS else 4

    @property
    def byes_per_round(self) -> int:
        """Entrants who sit out each round: what does not fill a table (docs/tournament.md, "Byes")."""
        return len(self.entrant_names) % self.per_table

    def table_ids(self) -> tuple[str, ...]:
        needed = len(self.entrant_names) // self.per_table
        return self.tables[:needed] if self.tables else tuple(str(i) for i in range(1, needed + 1))


def load_tournament_config(path: str | Path) -> TournamentConfig:
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        raise ConfigError(f"{path}: not UTF-8 text (byte {error.start}: {error.reason})", path=str(path)) from None
    except OSError as error:
        raise ConfigError(f"{path}: cannot read the tournament configuration: {error}", path=str(path)) from None
    return parse_tournament_config(text, path)


def parse_tournament_config(text: str, source: Path | None = None) -> TournamentConfig:
    where = str(source) if source is not None else "tournament configuration"
    try:
        data = load_toml(text)  # a BOM is accepted; hostile nesting, numbers and text are one-line errors
    except ValueError as error:
        raise ConfigError(clean_text(f"{where}: {error}"), path=where) from None
    try:
        return _build(data, source)
    except ConfigError as error:
        raise ConfigError(clean_text(f"{where}: {error}"), key=error.key, path=where) from None
    except TablepiError as error:
        raise ConfigError(clean_text(f"{where}: {error}"), path=where) from None


def _build(data: Mapping[str, Any], source: Path | None) -> TournamentConfig:
    base = source.resolve().parent if source is not None else Path.cwd()
    unknown = sorted(set(data) - {"tournament", "broker", "web"})
    if unknown:
        raise ConfigError.setting(f"[{unknown[0]}]", "unknown section (known: tournament, broker, web)")
    t = _table(data, "tournament")
    known = {"name", "format", "round", "deals", "rounds", "drop_worst", "seed", "slow_minutes", "store", "tables",
             "players", "pairs"}
    _no_unknown(t, known, "tournament")
    entrants = _enum(Entrants, t.get("format", "pairs"), "tournament.format")
    length = _enum(RoundLength, t.get("round", "partie"), "tournament.round")
    deals = _int(t.get("deals", 6), "tournament.deals", 1, 100)
    rounds = _int(t.get("rounds", 5), "tournament.rounds", 1, 50)
    seed = _int(t.get("seed", 1), "tournament.seed", 0, 2**63)
    slow = t.get("slow_minutes", 10.0)
    if isinstance(slow, bool) or not isinstance(slow, int | float) or not 0 < slow <= 600:
        raise ConfigError.setting("tournament.slow_minutes", f"expected minutes between 0 and 600, got {slow!r}")
    drop = t.get("drop_worst", False)
    if not isinstance(drop, bool):
        raise ConfigError.setting("tournament.drop_worst", f"expected true or false, got {drop!r}")
    tables = _names(t.get("tables", []), "tournament.tables")
    for table in tables:
        if not NAME.fullmatch(table):
            raise ConfigError.setting("tournament.tables", f"{table!r} is not a table id (letters, digits, - or _)")
    players: tuple[str, ...] = ()
    pairs: tuple[Pair, ...] = ()
    if entrants is Entrants.PAIRS:
        raw = t.get("pairs", [])
        if not isinstance(raw, list):
            raise ConfigError("tournament.pairs: expected a list of [\"player\", \"player\"]")
        found: list[Pair] = []
        for i, item in enumerate(raw):
            names = _players(item, f"tournament.pairs[{i}]")
            if len(names) != 2:
                raise ConfigError.setting(f"tournament.pairs[{i}]", f"a pair is two players, got {list(names)!r}")
            found.append(Pair(f"{names[0]} & {names[1]}", (names[0], names[1])))
        pairs = tuple(found)
        people = [p for pair in pairs for p in pair.players]
        count, per = len(pairs), 2
    else:
        players = _players(t.get("players", []), "tournament.players")
        people = list(players)
        count, per = len(players), 4
    if len(set(people)) != len(people):
        raise ConfigError("tournament: a player is listed twice")
    if count < per:
        what = "pairs" if per == 2 else "players"
        raise ConfigError.setting(f"tournament.{what}", f"{count} {what} do not fill one table of four players")
    if tables and len(tables) < count // per:
        raise ConfigError.setting("tournament.tables", f"{count // per} tables needed, {len(tables)} listed")
    store = t.get("store", "tournament.sqlite3")
    if not isinstance(store, str) or not store:
        raise ConfigError.setting("tournament.store", f"expected a file name, got {store!r}")
    broker = dict(_table(data, "broker"))
    broker.setdefault("username", SERVER_USER)
    broker_config = FeedConfig.from_mapping(broker, base, "broker")
    w = _table(data, "web")
    _no_unknown(w, {"host", "port", "director_password", "overlay_token", "overlay_delay", "language", "certfile",
                    "keyfile", "max_streams"}, "web")
    language = check_language(w.get("language", "en"), "web.language")
    delay = w.get("overlay_delay", 30.0)
    if isinstance(delay, bool) or not isinstance(delay, int | float) or not 0 <= delay <= 3600:
        raise ConfigError.setting("web.overlay_delay", f"expected seconds between 0 and 3600, got {delay!r}")
    password = w.get("director_password", "")
    token = w.get("overlay_token", "")
    if not isinstance(password, str) or not isinstance(token, str):
        raise ConfigError("web.director_password and web.overlay_token must be text")
    certfile, keyfile = _file(w.get("certfile"), "web.certfile", base), _file(w.get("keyfile"), "web.keyfile", base)
    if (certfile is None) != (keyfile is None):
        raise ConfigError("web.certfile and web.keyfile: TLS needs both the certificate and its key")
    host = w.get("host", "127.0.0.1")
    if not isinstance(host, str) or not host or any(c.isspace() for c in host):
        raise ConfigError.setting("web.host", f"expected an address to listen on, got {shown(host)}")
    web = WebConfig(host, _int(w.get("port", 8080), "web.port", 0, 65535), password, token, float(delay), language,
                    certfile, keyfile, _int(w.get("max_streams", 2000), "web.max_streams", 1, 100_000))
    path = Path(store).expanduser()
    return TournamentConfig(
        name=str(t.get("name", "Konter a Matt")), entrants=entrants, round_length=length, deals=deals,
        rounds=rounds, drop_worst=drop, seed=seed, slow_minutes=float(slow),
        store=path if path.is_absolute() else base / path, tables=tables, players=players, pairs=pairs,
        broker=broker_config, web=web, source=source,
    )


def _table(data: Mapping[str, Any], name: str) -> Mapping[str, Any]:
    value = data.get(name, {})
    if not isinstance(value, Mapping):
        raise ConfigError.setting(f"[{name}]", "expected a table of settings")
    return value


def _no_unknown(mapping: Mapping[str, Any], known: set[str], section: str) -> None:
    unknown = sorted(set(mapping) - known)
    if unknown:
        raise ConfigError.setting(f"{section}.{unknown[0]}", f"unknown setting (known: {', '.join(sorted(known))})")


def _file(value: object, key: str, base: Path) -> Path | None:
    if value is None:
        return None
    if not isinstance(value, str) or not value:
        raise ConfigError.setting(key, f"expected a file name, got {shown(value)}")
    path = Path(value).expanduser()
    return path if path.is_absolute() else base / path


def _int(value: object, key: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ConfigError.setting(key, f"expected a whole number from {low} to {high}, got {value!r}")
    return value


def _names(value: object, key: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise ConfigError.setting(key, f"expected a list of names, got {shown(value)}")
    return tuple(v.strip() for v in value)


def _players(value: object, key: str) -> tuple[str, ...]:
    """Players' names, each one the table can journal: checked by the same code as the table's record reader
    (:func:`tablepi.players.check_name`, at most :data:`~tablepi.players.MAX_NAME` characters), so a seating the
    server sends is always a seating the table can keep."""
    names = _names(value, key)
    for i, name in enumerate(names):
        try:
            check_name(name)
        except ConfigError as error:
            raise ConfigError.setting(f"{key}[{i}]", str(error)) from None
    return tuple(" ".join(name.split()) for name in names)


def _enum(kind: type[Any], value: object, key: str) -> Any:
    try:
        return kind(value)
    except ValueError:
        raise ConfigError.setting(key, f"{value!r} is not one of {', '.join(repr(k.value) for k in kind)}") from None
