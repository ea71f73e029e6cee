"""``tablepi players``: the players' book — list, public / private, forget, stats, exports, rebuild (docs/players.md).

Works on the book file beside the journal (``players.sqlite3``), also while the table runs (SQLite takes turns).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

HELP = "the players' book: list players, make a name public or private, forget a player, statistics, exports"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", type=Path, default=Path("/etc/tablepi/tablepi.toml"),
                        help="configuration file naming the journal and the book, used when it exists "
                             "(default: %(default)s)")
    parser.add_argument("--book", type=Path, help="the book file (default: players.sqlite3 beside the journal)")
    parser.add_argument("--league", type=Path, metavar="CONFIG",
                        help="a bar's league (tablepi league CONFIG): its book, its [players] settings and the "
                             "address of its pages (link) instead of the table's")
    parser.add_argument("--journal", type=Path, help="the journal (default: the config's)")
    sub = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    sub.add_parser("list", help="every player: shown as, matches, deals, rating")
    for name, text in (("public", "show his name on the pages (he asked for it)"),
                       ("private", "show only his initials on the pages (the default)"),
                       ("forget", "remove him from the book and the pages (the journal keeps its records)"),
                       ("link", "the address of his own page (his statistics under his name, for him only)")):
        one = sub.add_parser(name, help=text)
        one.add_argument("name")
    stats = sub.add_parser("stats", help="a player's statistics")
    stats.add_argument("name")
    stats.add_argument("--partner", help="the partnership's figures instead")
    span = stats.add_mutually_exclusive_group()
    span.add_argument("--evening", metavar="YYYY-MM-DD")
    span.add_argument("--season", action="store_true", help="the configured season of today")
    stats.add_argument("--from", dest="first", metavar="YYYY-MM-DD")
    stats.add_argument("--to", dest="last", metavar="YYYY-MM-DD")
    export = sub.add_parser("export", help="a player's games as CSV (to OUT, - for standard output) or as game "
                                           "records (--records DIR)")
    export.add_argument("name")
    export.add_argument("out", nargs="?", default="-")
    export.add_argument("--records", type=Path, metavar="DIR", help="write his matches as game records into DIR")
    rebuild = sub.add_parser("rebuild", help="make the book again from the archive and the journal")
    rebuild.add_argument("--no-review", action="store_true", help="without the best-play review of each deal")
    sub.add_parser("leaderboard", help="the leaderboard (players with enough deals), as the pages show it")


def _paths(args: argparse.Namespace) -> tuple[Any, Path, Path, Path]:
    from tablepi.config import Config, load_config

    if args.league is not None:
        config = _league(args.league)
    else:
        config = load_config(args.config) if args.config.exists() else Config()
    journal = args.journal or config.journal
    book = args.book or config.book.path or journal.with_name("players.sqlite3")
    return config, journal, book, journal.with_name("archive")


def _league(path: Path) -> Any:
    """A league's configuration as a table's would say the same: its book and [players] settings, and its pages
    where ``tablepi league`` serves them (so a player's link has the league's address and port)."""
    import dataclasses

    from tablepi.book.config import WebConfig
    from tablepi.book.league import load_league_config
    from tablepi.config import Config

    league = load_league_config(path)
    web = league.server.web
    return dataclasses.replace(Config(), book=dataclasses.replace(league.players, path=league.book),
                               web=WebConfig(enabled=True, host=web.host, port=web.port))


def run(args: argparse.Namespace) -> int:
    from tablepi.book.store import Book

    config, journal, path, archive = _paths(args)
    with Book(path, day_starts=config.book.day_starts) as book:
        return _act(args, config, book, journal, archive)  # a BookError is one line, as every TablepiError


def _act(args: argparse.Namespace, config: Any, book: Any, journal: Path, archive: Path) -> int:
    from tablepi.book import stats as st
    from tablepi.book.export import archive_lookup, player_csv, shown_names, write_player_records
    from tablepi.book.fill import rebuild
    from tablepi.book.rating import ordinal

    action = args.action
    if action == "list":
        ratings = book.ratings()
        print(f"{'name':24} {'pages show':12} {'matches':>7} {'deals':>6}  rating")
        for p in book.players():
            mu, sigma, matches, deals = ratings.get(p.id, (0.0, 0.0, 0, 0))
            rating = f"{ordinal(mu, sigma):6.2f} (mu {mu:.1f} ± {sigma:.1f})" if matches else "-"
            print(f"{p.name[:24]:24} {('name' if p.public else p.initials)[:12]:12} {matches:>7} {deals:>6}  {rating}")
        return 0
    if action in ("public", "private"):
        p = book.set_public(args.name, action == "public")
        print(f"{p.name}: the pages show {'his name' if p.public else 'his initials ' + p.initials}")
        return 0
    if action == "forget":
        from tablepi.app.names import forget_name

        count = book.forget(args.name)
        offered = forget_name(journal.with_name("names.txt"), args.name)  # the keyboard's earlier names
        print(f"{args.name} forgotten: {count} matches now show a guest in his seat"
              + ("; the screen's keyboard no longer offers his name (after the table restarts)" if offered else ""))
        return 0
    if action == "link":
        p = book._need(args.name)
        from tablepi.book.config import page_address

        print(page_address(config.web) + f"me/{book.token(p)}")
        return 0
    if action == "stats":
        p = book._need(args.name)
        today = time.strftime("%Y-%m-%d")
        if args.evening:
            period = st.evening_period(st.check_date(args.evening, "--evening"))
        elif args.season:
            period = st.season_period(config.book.seasons, today)
        elif args.first or args.last:
            period = st.Period("dates", args.first and st.check_date(args.first, "--from"),
                               args.last and st.check_date(args.last, "--to"))
        else:
            period = st.ALL_TIME
        if args.partner:
            other = book._need(args.partner)
            result = st.partnership_stats(book, p, other, period)
        else:
            result = st.player_stats(book, p, period, min_together=config.book.min_together)
            names = shown_names(book, p)
            if result["best_partner"]:
                result["best_partner"]["name"] = names.get(result["best_partner"]["player"], "guest")
            for opp in result["toughest_opponents"]:
                opp["name"] = names.get(opp["player"], "guest")
        print(json.dumps(result, indent=2, ensure_ascii=False))
        return 0
    if action == "export":
        p = book._need(args.name)
        if args.records is not None:
            written = write_player_records(book, p, archive_lookup(archive), args.records)
            print(f"tablepi players: {len(written)} records written to {args.records}", file=sys.stderr)
            return 0
        text = player_csv(book, p)
        if args.out == "-":
            sys.stdout.write(text)
        else:
            Path(args.out).write_text(text, encoding="utf-8")
        return 0
    if action == "rebuild":
        table = config.feed.table or "1"
        count = rebuild(book, journal, archive, table, review=not args.no_review and config.book.review)
        print(f"tablepi players: the book holds {count} matches again")
        return 0
    if action == "leaderboard":
        names = shown_names(book)
        for row in st.leaderboard(book, min_deals=config.book.min_deals):
            print(f"{row['rank']:3} {names.get(row['player'], '?')[:24]:24} {row['rating']:7.2f} "
                  f"± {row['sigma']:.2f}  {row['deals']} deals")
        return 0
    raise AssertionError(action)
