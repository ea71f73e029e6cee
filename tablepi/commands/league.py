"""``tablepi league CONFIG``: the players' book and pages for a bar of several tables, fed over MQTT
(docs/players.md, "A bar with several tables")."""

from __future__ import annotations

import argparse
from pathlib import Path

HELP = "one players' book and its pages for a bar of several tables, fed by every table over MQTT"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("config", type=Path, help="the league's configuration file (TOML, docs/players.md)")
    parser.add_argument("--port", type=int, help="web port (overrides [web] port)")
    parser.add_argument("--log-level", default="INFO", choices=("DEBUG", "INFO", "WARNING", "ERROR"))


def run(args: argparse.Namespace) -> int:
    import logging

    from tablepi.book.league import LeagueServer, load_league_config
    from tablepi.book.pages import Pages, make_pages
    from tablepi.book.store import Book
    from tablepi.web.serve import WebServer

    logging.basicConfig(level=args.log_level, format="%(levelname)s %(name)s: %(message)s")
    config = load_league_config(args.config)
    web = config.server.web
    with Book(config.book, day_starts=config.players.day_starts) as book:
        server = LeagueServer(config.server, book, review=config.players.review)
        server.start()
        try:
            pages = Pages(book, config.players, server.live_now, server.hub.changes, lambda: server.record)
            site = WebServer(None, web.host, web.port if args.port is None else args.port,
                             app=lambda stopping: make_pages(pages, web.language, stopping=stopping),
                             changes=server.hub.changes)
            logging.getLogger("tablepi.league").info("%s: the players' pages on %s", config.server.name, site.url)
            site.serve_forever()
        finally:
            server.close()
    return 0
