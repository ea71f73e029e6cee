"""``tablepi tournament CONFIG``: the tournament server and its pages (docs/tournament.md)."""

from __future__ import annotations

import argparse
from pathlib import Path

HELP = "run the tournament server and its pages, or write the broker's configuration for a tournament"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("config", type=Path, help="the tournament's configuration file (TOML)")
    parser.add_argument("--broker-config", type=Path, metavar="DIR",
                        help="write mosquitto.conf, passwd, acl and each table's password into DIR, then stop")
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
        return write_broker(config, args.broker_config)
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
    server = TournamentServer(config).start()
    try:
        web = WebServer(server, config.web.host, config.web.port if args.port is None else args.port)
        log.info("%s: pages on %s (standings: /standings, director: /director)", config.name, web.url)
        web.serve_forever()
    finally:
        server.close()
    return 0


def write_broker(config: object, directory: Path) -> int:
    import secrets

    from tablepi.feed.broker import SERVER_USER, table_user, write_broker_config
    from tablepi.tournament.config import TournamentConfig

    assert isinstance(config, TournamentConfig)
    tables = config.table_ids()
    passwords = {SERVER_USER: config.broker.secret() or secrets.token_urlsafe(12)}
    passwords.update({table_user(t): secrets.token_urlsafe(12) for t in tables})
    conf = write_broker_config(directory, passwords, tables, port=config.broker.port, prefix=config.broker.prefix)
    lines = [f"{user} {password}" for user, password in passwords.items()]
    secret = directory / "passwords.txt"
    secret.write_text("# user password: put each table's into its [feed] password_file\n" + "\n".join(lines) + "\n")
    secret.chmod(0o600)
    print(f"wrote {conf}, {directory / 'passwd'}, {directory / 'acl'} and {secret} ({len(tables)} tables)")
    print(f"start the broker: mosquitto -c {conf}")
    return 0
