"""``tablepi enroll``: tag a deck — lay each of the 24 cards on any zone when asked, and write the deck file."""

from __future__ import annotations

import argparse
from pathlib import Path

HELP = "enrol a deck of tagged cards: lay each card on any zone when asked"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("deck", help="a name for this deck, e.g. 'red' or 'club-2'")
    parser.add_argument("--config", type=Path, default=Path("/etc/tablepi/tablepi.toml"),
                        help="configuration file: the reader to use and the deck files (default: %(default)s)")
    parser.add_argument("--out", type=Path, help="deck file to write (default: the config's first deck file)")
    parser.add_argument("--timeout", type=float, default=None, help="give up after this many seconds")


def run(args: argparse.Namespace) -> int:
    from tablepi.app.build import load_decks
    from tablepi.config import load_config
    from tablepi.enroll import enroll
    from tablepi.readers import open_reader

    config = load_config(args.config)
    out = args.out or config.decks[0]
    others, _ = load_decks(tuple(p for p in config.decks if p != out))
    with open_reader(config.readers.backend, **dict(config.readers.options)) as reader:
        deck = enroll(reader, args.deck, out, lambda line: print(line, flush=True), others=others,
                      timeout=args.timeout)
    print(f"deck {deck.name!r}: all {len(deck.cards)} cards enrolled into {out}")
    return 0
