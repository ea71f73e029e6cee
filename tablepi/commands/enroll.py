"""``tablepi enroll``: tag a deck (lay each of the 24 cards on any zone when asked) or a player's keyring tag.

When the table service runs, enrolment is done by the running table (its enrol mode, through the control socket):
only the table opens the reader, and the table uses the new deck or tag the moment it is saved. When no table
runs, this command opens the reader itself.
"""

from __future__ import annotations

import argparse
import itertools
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tablepi.config import Config

HELP = "enrol a deck of tagged cards (lay each card on any zone when asked), or a player's tag (--player NAME)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("deck", nargs="?", help="a name for this deck, e.g. 'red' or 'club-2'")
    parser.add_argument("--player", metavar="NAME", help="enrol NAME's own tag instead: tapped on a zone, it "
                        "seats him there")
    parser.add_argument("--config", type=Path, default=Path("/etc/tablepi/tablepi.toml"),
                        help="configuration file: the reader to use and the deck files (default: %(default)s)")
    parser.add_argument("--out", type=Path, help="deck file to write (default: the config's first deck file)")
    parser.add_argument("--timeout", type=float, default=None, help="give up after this many seconds")


def run(args: argparse.Namespace) -> int:
    from tablepi.config import load_config
    from tablepi.errors import ConfigError
    from tablepi.service_socket import ServiceUnreachable, Unreachable

    if (args.deck is None) == (args.player is None):
        raise ConfigError("name a deck (tablepi enroll red) or a player (tablepi enroll --player Jang), one of them")
    config = load_config(args.config)
    try:
        return _through_service(args, config)
    except ServiceUnreachable as err:
        if err.reason is Unreachable.NO_PERMISSION:
            print(f"tablepi enroll: the table is running, but this user may not use its control socket "
                  f"{err.path} ({err.detail}).\n"
                  f"Run it as the table's user:  sudo -u tablepi {_again(args)}\n"
                  f"or add yourself to its group:  sudo usermod -aG tablepi $USER  (then log in again)",
                  file=sys.stderr)
            return 2
    return _with_own_reader(args, config)


def _again(args: argparse.Namespace) -> str:
    import shlex

    what = f"--player {shlex.quote(args.player)}" if args.player is not None else shlex.quote(args.deck)
    return f"/opt/tablepi/venv/bin/tablepi enroll {what} --config {shlex.quote(str(args.config))}"


def _through_service(args: argparse.Namespace, config: Config) -> int:
    """Ask the running table to enrol; print what it says. ServiceUnreachable when no table answers."""
    from tablepi.service_socket import request

    op, fields = ("enroll_player", {"name": args.player}) if args.player is not None else \
        ("enroll_deck", {"name": args.deck})
    if args.out is not None and args.player is None:
        fields["out"] = str(args.out.resolve())
    if args.timeout is not None:
        fields["timeout"] = args.timeout
    replies = request(config.control, op, wait=None, **fields)
    first = next(replies)  # raises ServiceUnreachable before anything was printed
    print("the running table enrols (its reader, its screen); lay the cards on its zones", flush=True)
    for reply in itertools.chain([first], replies):
        if reply.get("say"):
            print(reply["say"], flush=True)
        if reply.get("end"):
            if not reply.get("ok"):
                print(f"tablepi enroll: {reply.get('error', 'the table refused')}", file=sys.stderr)
                return 2
            if "deck" in reply:
                print(f"deck {reply['deck']!r}: all {reply['cards']} cards enrolled into {reply['file']}; "
                      "the running table uses it now")
            else:
                print(f"player {reply['player']!r}: tag {reply['uid']} saved in {reply['file']}; "
                      "the running table seats him when he taps it")
            return 0
    return 2  # pragma: no cover - request() always ends with an end reply or raises


def _with_own_reader(args: argparse.Namespace, config: Config) -> int:
    from tablepi.app.reloads import load_decks
    from tablepi.app.simdrive import open_configured_reader
    from tablepi.enroll import enroll, enroll_player
    from tablepi.players import load_players_file

    say = lambda line: print(line, flush=True)  # noqa: E731
    with open_configured_reader(config.readers.backend, config.readers.options) as reader:
        if args.player is not None:
            decks, _ = load_decks(config.decks)
            uid = enroll_player(reader, args.player, config.players, say, decks=decks, timeout=args.timeout)
            print(f"player {args.player!r}: tag {uid} saved in {config.players}")
            return 0
        out = args.out or config.decks[0]
        others, _ = load_decks(tuple(p for p in config.decks if p != out))
        deck = enroll(reader, args.deck, out, say, others=others, timeout=args.timeout,
                      players=load_players_file(config.players))
    print(f"deck {deck.name!r}: all {len(deck.cards)} cards enrolled into {out}")
    return 0
