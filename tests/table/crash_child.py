"""The process the crash test kills: feeds a scripted match into table + journal, acknowledging each event.

Usage: ``python crash_child.py JOURNAL RECORD [paced]``. On start it opens (or resumes) the journal, says
``start N`` (N events already journaled) and goes on from event N+1 of the record, printing ``ack K`` after
event K is journaled and applied: the moment the screen would show it. Paced, it waits for a line on stdin
after each acknowledgement before taking the next event, as a table waits for the player's next gesture (stdin
closed: no more waiting).
"""

from __future__ import annotations

import sys

from tablepi.journal.journal import JournaledTable
from tablepi.journal.record import load_record


def main(journal: str, record_path: str, paced: bool = False) -> int:
    record = load_record(record_path)
    with JournaledTable(journal, record.header) as session:
        done = len(session.journal)
        print(f"start {done}", flush=True)
        for number, event in enumerate(record.events[done:], start=done + 1):
            session.feed(event)
            print(f"ack {number}", flush=True)
            if paced:
                sys.stdin.readline()
    print("done", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2], sys.argv[3:] == ["paced"]))
