"""``tablepi screenshot``: render the screen of chosen moments of a game record to PNG files."""

from __future__ import annotations

import argparse
from pathlib import Path

from tablepi.display.scene import Scene

HELP = "render the screen at chosen moments of a game record to PNG (for docs and bug reports)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("record", type=Path, help="a game record (.jsonl), e.g. from `tablepi export`")
    parser.add_argument("--out", type=Path, default=Path("screenshots"),
                        help="folder for the PNG files (default: %(default)s)")
    parser.add_argument("--at", type=int, action="append", default=[],
                        help="event number to render after (repeatable; default: the end of the record)")
    parser.add_argument("--key-frames", action="store_true",
                        help="render every key moment instead: each phase, completed trick and warning")
    parser.add_argument("--size", default="800x480", help="screen size, e.g. 800x480 or 480x320 (default: %(default)s)")
    parser.add_argument("--language", default="en", choices=("lb", "de", "fr", "en"),
                        help="screen language (default: %(default)s)")
    parser.add_argument("--bottom-seat", default="S", help="the seat on the screen's side of the table")


def run(args: argparse.Namespace) -> int:
    import os
    import sys

    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")  # standard output lists the PNG files, nothing else
    from tablepi.app.screen import FrameSaver
    from tablepi.config import DisplayConfig
    from tablepi.display.render import render_to_png
    from tablepi.display.viewmodel import build_view
    from tablepi.errors import ConfigError, ParseError
    from tablepi.journal.record import load_record
    from tablepi.rules.seats import Seat
    from tablepi.table import Table

    try:
        size = tuple(int(v) for v in args.size.lower().split("x"))
        assert len(size) == 2
    except (ValueError, AssertionError):
        raise ConfigError(f"--size: expected WIDTHxHEIGHT such as 800x480, got {args.size!r}") from None
    try:
        bottom = Seat.parse(args.bottom_seat)
    except ParseError as error:
        raise ConfigError(f"--bottom-seat: {error}") from None
    settings = DisplayConfig(language=args.language, bottom_seat=bottom)
    record = load_record(args.record)
    h = record.header
    table = Table(h.house_rules, h.dealer, h.table)
    wanted = set(args.at) or ({len(record.events)} if not args.key_frames else set())
    for n in wanted:
        if not 0 <= n <= len(record.events):
            raise ConfigError(f"--at {n}: the record has events 1 to {len(record.events)}")
    frames = FrameSaver(args.out) if args.key_frames else None
    written = []
    if 0 in wanted:
        written.append(render_to_png(build_view(Scene(table.state, settings)), args.out / "event-0000.png", size))
    for number, event in enumerate(record.events, start=1):
        state = table.apply(event)
        if frames is not None:
            label = frames.wants(state)
            if label is not None:
                written.append(render_to_png(build_view(Scene(state, settings)),
                                             args.out / f"{len(written) + 1:04d}-{label}.png", size))
        if number in wanted:
            written.append(render_to_png(build_view(Scene(state, settings)), args.out / f"event-{number:04d}.png",
                                         size))
    if not written:  # a record with no key moment: the final screen is still worth having
        final = args.out / f"event-{len(record.events):04d}.png"
        written.append(render_to_png(build_view(Scene(table.state, settings)), final, size))
        print("no key moments in this record; wrote the final screen instead", file=sys.stderr)
    for path in written:
        print(path)
    return 0
