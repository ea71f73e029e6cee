"""``tablepi run``: the table itself — readers, referee, journal, screen and buttons, until stopped."""

from __future__ import annotations

import argparse
import logging
import signal
import threading
from pathlib import Path

HELP = "run the table from a configuration file (the systemd service runs this)"

DEFAULT_CONFIG_PATH = Path("/etc/tablepi/tablepi.toml")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", type=Path, default=DEFAULT_CONFIG_PATH,
                        help="configuration file (TOML; default: %(default)s)")
    parser.add_argument("--headless", action="store_true", help="no screen (draw off-screen): for tests")
    parser.add_argument("--journal", type=Path, help="journal file (overrides table.journal of the config)")
    parser.add_argument("--log-level", default="INFO", choices=("DEBUG", "INFO", "WARNING", "ERROR"),
                        help="how much to log (default: %(default)s; the service's log is journalctl -u tablepi)")


def run(args: argparse.Namespace) -> int:
    from tablepi.app.build import open_table
    from tablepi.app.screen import WindowClosed
    from tablepi.config import load_config

    logging.basicConfig(level=args.log_level, format="%(levelname)s %(name)s: %(message)s")
    config = load_config(args.config)
    stop = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, lambda *_: stop.set())
    running = open_table(config, headless=args.headless, journal=args.journal)
    log = logging.getLogger("tablepi")
    log.info("table running: readers %s, journal %s, %d events replayed",
             config.readers.backend, args.journal or config.journal, len(running.app.table.journal))
    try:
        running.app.run(stop)
    except WindowClosed:
        pass
    finally:
        running.close()
        journal = running.app.table.journal
        if journal.unsaved:
            log.error("table stopped with %d events not saved (storage fault: %s)", journal.unsaved, journal.fault)
        else:
            log.info("table stopped; every event is in the journal")
    return 0
