"""``tablepi demo``: a whole match by simulated players on simulated zones, in a window or headless to PNG."""

from __future__ import annotations

import argparse
from pathlib import Path

HELP = "play a whole demo match on simulated reader zones (no hardware, no configuration)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--headless", action="store_true", help="no window: play at full speed")
    parser.add_argument("--out", type=Path, help="write the key frames as PNG files into this folder")
    parser.add_argument("--seed", type=int, default=None, help="which simulated match to play (default: 24)")
    parser.add_argument("--speed", type=float, default=2.0, help="demo seconds per real second in a window")
    parser.add_argument("--language", default="en", choices=("lb", "de", "fr", "en"), help="screen language")
    parser.add_argument("--size", default="800x480", help="window size, e.g. 800x480 or 480x320")
    parser.add_argument("--fullscreen", action="store_true", help="fill the screen (on the Pi)")
    parser.add_argument("--journal", type=Path, help="keep the demo's journal in this file (default: temporary)")
    parser.add_argument("--via", choices=("sim", "firmware"), default="sim",
                        help="readers: 'sim' (instant) or 'firmware' (the real firmware on emulated MFRC522 chips, "
                        "over a pseudo-terminal to the serial backend; slower)")
    parser.add_argument("--deals", type=int, default=None, help="stop after this many deals")


def run(args: argparse.Namespace) -> int:
    import logging

    from tablepi.app.demo import DEFAULT_SEED, run_demo

    logging.basicConfig(level=logging.ERROR, format="%(levelname)s %(name)s: %(message)s")  # the summary says it all
    from tablepi.errors import ConfigError

    try:
        width, height = (int(v) for v in args.size.lower().split("x"))
    except ValueError:
        raise ConfigError(f"--size: expected WIDTHxHEIGHT such as 800x480, got {args.size!r}") from None
    if args.speed <= 0:
        raise ConfigError(f"--speed: expected a positive number, got {args.speed}")
    if args.deals is not None and args.deals < 1:
        raise ConfigError(f"--deals: expected a whole number of at least 1, got {args.deals}")
    summary = run_demo(
        headless=args.headless,
        out=args.out,
        seed=DEFAULT_SEED if args.seed is None else args.seed,
        speed=args.speed,
        journal=args.journal,
        language=args.language,
        size=(width, height),
        fullscreen=args.fullscreen,
        via=args.via,
        deals=args.deals,
    )
    print("\n".join(summary.lines()))
    return 0
