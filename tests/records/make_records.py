"""Write the example game records in this folder from the scripted players (tablepi.table.simulate).

Run from the repository root: ``python tests/records/make_records.py``. The records are committed; tests replay
them and check what the table made of them, so a change in the table that changes a result shows up in a diff.
"""

from __future__ import annotations

from pathlib import Path

from tablepi.journal.record import RecordHeader, write_record
from tablepi.rules.house import HouseRules
from tablepi.rules.seats import Seat
from tablepi.table.events import Button, ButtonName
from tablepi.table.simulate import simulate_match
from tablepi.table.state import TableConfig

HERE = Path(__file__).parent


def main() -> None:
    # A full match of at least ten deals with everyday mistakes, then a revanche asked for.
    script = simulate_match(2, dealer=Seat.N, mistakes=True)
    assert script.deals >= 10, script.deals
    events = list(script.events)
    end = events[-1].time
    events.append(Button(end + 5.0, ButtonName.REVANCHE))
    header = RecordHeader(script.rules, script.dealer, script.config)
    with open(HERE / "full_match.jsonl", "w", encoding="utf-8") as out:
        write_record(out, header, events)
    # A hand-scan match, clockwise, revokes lose the deal.
    rules = HouseRules.from_mapping({"direction": "clockwise", "revoke_penalty": "lose_deal", "start_lines": 5})
    script = simulate_match(7, rules=rules, dealer=Seat.E, config=TableConfig(hand_scan=True))
    header = RecordHeader(script.rules, script.dealer, script.config)
    with open(HERE / "hand_scan_match.jsonl", "w", encoding="utf-8") as out:
        write_record(out, header, script.events)


if __name__ == "__main__":
    main()
