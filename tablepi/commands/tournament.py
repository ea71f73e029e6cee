"""``tablepi tournament CONFIG``: the tournament server and its pages (docs/tournament.md)."""

from __future__ import annotations

import argparse
from pathlib import Path

HELP = "run the tournament server and its pages, or write the broker's configuration for a tournament"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("config", type=Path, help="the tournament's configuration file (TOML)")
    parser.add_argument("--broker-config", type=Path, metavar="DIR",
                        help="write mosquitto.conf, passwd, acl and each table's password into DIR, then stop")
    parser.add_argument("--broker-listen", default="0.0.0.0", metavar="ADDRESS",
                        help="with --broker-config: the address the broker listens on (default 0.0.0.0: every "
                             "interface; e.g. the address of the tables' network only)")
    parser.add_argument("--port", type=int, help="web port (overrides [web] port)")
    parser.add_argument("--log-level", default="INFO", choices=("DEBUG", "INFO", "WARNING", "ERROR"))


def run(args: argparse.Namespace) -> int:
    import logging
    import secrets
    from dataclasses import replace

    from tablepi.tournament.config import load_tournament_config

    logging.basicConfig(level=args.log_level, format="%(levelname)s %(name)s: %(message)s")
    config = load_tournament_config(args.config)
    if args.broker_config is not None:
        return write_broker(config, args.broker_config, args.broker_listen)
    from tablepi.tournament.server import TournamentServer
    from tablepi.web.serve import WebServer

    log = logging.getLogger("tablepi.tournament")
    if not config.web.director_password:
        password = secrets.token_urlsafe(9)
        config = replace(config, web=replace(config.web, director_password=password))
        log.warning("no [web] director_password: this run's is %s", password)
    if not config.web.overlay_token:
        token = secrets.token_urlsafe(9)
        config = replace(config, web=replace(config.web, overlay_token=token))
        log.warning("no [web] overlay_token: this run's is %s", token)
    from tablepi.web.serve import SPARE_CONNECTIONS, raise_file_limit

    files = raise_file_limit(config.web.max_streams + SPARE_CONNECTIONS + 256)
    if files < config.web.max_streams + SPARE_CONNECTIONS + 64:
        log.warning("this process may open %d files: fewer live pages than [web] max_streams = %d will be served "
                    "(the unit sets LimitNOFILE=; as a user: ulimit -n)", files, config.web.max_streams)
    server = TournamentServer(config).start()
    try:
        web = WebServer(server, config.web.host, config.web.port if args.port is None else args.port)
        log.info("%s: pages on %s (standings: /standings, director: /director)", config.name, web.url)
        web.serve_forever()
    finally:
        server.close()
    return 0


def write_broker(config: object, directory: Path, listen: str = "0.0.0.0") -> int:
    """The broker's files for this tournament (docs/feed.md, "The broker"), and a password file per user.

    The server's password is ``[broker] password`` or the first line of ``[broker] password_file``; a
    ``password_file`` that does not exist yet is made here with a new password. Every table gets its own file,
    ``DIR/passwords/table-<id>``, to copy to the table as its ``[feed] password_file``. Run as root, the files
    mosquitto reads go to the user ``mosquitto`` (the broker drops root before reading them)."""
    import os
    import pwd
    import secrets

    from tablepi.feed.broker import SERVER_USER, table_user, write_broker_config
    from tablepi.tournament.config import TournamentConfig

    assert isinstance(config, TournamentConfig)
    tables = config.table_ids()
    broker = config.broker
    own = broker.password_file
    if own is not None and not own.exists():
        own.parent.mkdir(parents=True, exist_ok=True)
        _private(own, secrets.token_urlsafe(12) + "\n")
        print(f"wrote the server's broker password to {own} ([broker] password_file)")
    passwords = {SERVER_USER: broker.secret() or secrets.token_urlsafe(12)}
    passwords.update({table_user(t): secrets.token_urlsafe(12) for t in tables})
    owner = None
    if os.geteuid() == 0:
        try:
            owner = pwd.getpwnam("mosquitto").pw_name
        except KeyError:
            owner = None
    conf = write_broker_config(directory, passwords, tables, port=broker.port, bind=listen, prefix=broker.prefix,
                               owner=owner)
    folder = directory / "passwords"
    folder.mkdir(mode=0o700, exist_ok=True)
    for user, password in passwords.items():
        _private(folder / user, password + "\n")
    lines = [f"{user} {password}" for user, password in passwords.items()]
    _private(directory / "passwords.txt",
             "# user password (each is also in passwords/<user>: a table's [feed] password_file)\n"
             + "\n".join(lines) + "\n")
    print(f"wrote {conf}, {directory / 'passwd'}, {directory / 'acl'} ({len(tables)} tables, listening on "
          f"{listen}:{broker.port}{', readable by the user mosquitto' if owner else ''})")
    print(f"each table's password: {folder}/table-<id> -> copy to that table as its [feed] password_file")
    print(f"start the broker: mosquitto -c {conf}")
    return 0


def _private(path: Path, text: str) -> None:
    """A file only its owner may read, never briefly readable by others."""
    import os

    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(text)
    os.chmod(path, 0o600)
