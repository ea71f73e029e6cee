"""The game-record format (docs/records.md), the example records, and ``tablepi replay`` / ``tablepi export``."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest

from tablepi.cli import main
from tablepi.errors import RecordError
from tablepi.journal.journal import JournaledTable
from tablepi.journal.record import RecordHeader, load_record, read_record, record_lines, write_record
from tablepi.rules import Card, Seat, Team
from tablepi.table import Table, TableConfig
from tablepi.table.simulate import simulate_match

from .conftest import Rec

RECORDS = Path(__file__).parent.parent / "records"


def _replay(path: Path) -> Table:
    record = load_record(path)
    h = record.header
    return Table.replay(record.events, h.house_rules, h.dealer, h.table)


def _results(match_slate: object) -> list[tuple[object, ...]]:
    return [
        (e.stake, e.result.winner, dict(e.result.points), e.result.kapo, e.result.claimed_by)
        for e in match_slate.history  # type: ignore[attr-defined]
    ]


def test_full_match_record_of_more_than_ten_deals_rules_19_to_28() -> None:
    """The committed 11-deal match replays to the result the rules core gave the scripted players."""
    table = _replay(RECORDS / "full_match.jsonl")
    first = table.matches[0]
    assert len(first.slate.history) >= 10
    assert first.winner is not None
    expected = simulate_match(2, dealer=Seat.N, mistakes=True).match
    assert expected is not None
    assert _results(first.slate) == _results(expected.slate)
    # The match ended and a revanche was asked for (rule 29).
    assert len(table.matches) == 2 and table.state.phase.value == "trumps"
    codes = {w.code.value for w in table.warning_log}
    assert {"out_of_turn", "unknown_tag", "lifted_early", "revoke"} <= codes


def test_hand_scan_record_clockwise_rules_2_and_18() -> None:
    table = _replay(RECORDS / "hand_scan_match.jsonl")
    expected = simulate_match(
        7,
        rules=table.rules,
        dealer=Seat.E,
        config=TableConfig(hand_scan=True),
    ).match
    assert expected is not None
    assert _results(table.matches[0].slate) == _results(expected.slate)
    assert table.warning_log == ()


@pytest.mark.parametrize("seed", range(6))
def test_scripted_matches_agree_with_the_rules_core(seed: int) -> None:
    for mistakes in (False, True):
        script = simulate_match(seed, mistakes=mistakes)
        table = Table.replay(script.events, script.rules, script.dealer, script.config)
        assert script.match is not None
        assert _results(table.matches[0].slate) == _results(script.match.slate)


def test_record_round_trip_is_identical_text() -> None:
    text = (RECORDS / "full_match.jsonl").read_text(encoding="utf-8")
    record = read_record(text.splitlines())
    out = io.StringIO()
    write_record(out, record.header, record.events)
    assert out.getvalue() == text


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("{not json", "line 2: not JSON"),
        ('{"type": "jump", "t": 1}', "line 2: unknown event type 'jump'"),
        ('{"type": "place", "t": 1, "seat": "N", "card": "ZZ"}', "line 2: not a card: 'ZZ'"),
        ('{"type": "place", "t": 1, "seat": "X", "card": "AS"}', "line 2: not a seat: 'X'"),
        ('{"type": "place", "t": 1, "seat": "N"}', 'line 2: a place event needs "card" or "uid"'),
        ('{"type": "place", "t": 1, "zone": 7, "uid": "04A1B2C3"}', "line 2: zone 7 is not mapped"),
        ('{"type": "place", "t": -1, "seat": "N", "card": "AS"}', 'line 2: "t" must be seconds'),
        ('{"type": "button", "t": 1, "name": "explode"}', "line 2: unknown button 'explode'"),
        ('{"type": "tick", "t": 1, "colour": "red"}', "line 2: unknown key 'colour'"),
        ('{"type": "reader", "t": 1, "seat": "N", "state": "sleepy"}', "line 2: unknown reader state"),
        ("[1, 2]", "line 2: an event must be a JSON object"),
    ],
)
def test_malformed_lines_name_the_line_and_the_fault(line: str, message: str) -> None:
    header = json.dumps({"format": "tablepi-record", "version": 1, "dealer": "N"})
    with pytest.raises(RecordError, match=re.escape(message)):
        read_record([header, line])


def test_header_errors() -> None:
    with pytest.raises(RecordError, match="line 1: record version 3 is not supported"):
        read_record(['{"format": "tablepi-record", "version": 3}'])
    with pytest.raises(RecordError, match="line 1: not a tablepi record"):
        read_record(['{"format": "pgn", "version": 1}'])
    with pytest.raises(RecordError, match=r"house_rules\.tie"):
        read_record(['{"format": "tablepi-record", "version": 1, "house_rules": {"tie": "maybe"}}'])
    with pytest.raises(RecordError, match="empty"):
        read_record([])


def test_time_going_backwards_is_refused_with_its_line() -> None:
    header = json.dumps({"format": "tablepi-record", "version": 1})
    lines = [header, '{"type": "tick", "t": 5}', "", '{"type": "tick", "t": 4}']
    with pytest.raises(RecordError, match="line 4: time goes backwards"):
        read_record(lines)


def test_missing_time_means_the_previous_time() -> None:
    header = json.dumps({"format": "tablepi-record", "version": 1})
    record = read_record([header, '{"type": "tick", "t": 5}', '{"type": "button", "name": "undo"}'])
    assert record.events[1].time == 5.0


def test_header_round_trip_with_zones_and_deck() -> None:
    header = RecordHeader(
        zones=((0, Seat.N), (1, Seat.W)), deck=(("04A1B2C3D4E5F6", Card.parse("QS")),), deck_name="blue"
    )
    text = next(record_lines(header, ()))
    again = read_record([text]).header
    assert again == header


def test_replay_command_text(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(RECORDS / "full_match.jsonl")]) == 0
    out = capsys.readouterr().out
    assert "Match 1, deal 1: dealer N, forehand W, trumps ♠" in out  # suits as symbols: seat S is not spades
    assert "trick 1: W ♠A, S ♠10, E ♥Q, N ♠K -> W (9 points)" in out
    assert "[unknown_tag]" in out and "kapo:" in out and "stake" in out and "slate: NS" in out


def test_replay_command_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rec = Rec()
    rec.deal()
    path = tmp_path / "one.jsonl"
    path.write_text(rec.text(), encoding="utf-8")
    assert main(["replay", "--json", str(path)]) == 0
    report = json.loads(capsys.readouterr().out)
    assert set(report) == {"deals", "warnings", "matches", "match", "names"}
    deal = report["deals"][0]
    for key in ("dealer", "forehand", "trump", "announcements", "tricks", "points", "winner", "kapo", "stake", "slate"):
        assert key in deal
    assert deal["dealer"] == "N" and deal["forehand"] == "W" and deal["trump"] == "H"
    assert deal["tricks"][0]["cards"] == {"W": "KH", "S": "JH", "E": "AD", "N": "9H"}
    assert deal["tricks"][0]["winner"] == "W"
    assert deal["points"] == {"NS": 0, "EW": 40} and deal["winner"] == "EW"
    assert deal["kapo"] is True and deal["stake"] == 2 and deal["slate"] == {"NS": 9, "EW": 7}
    assert report["match"]["open_lines"] == {"NS": 9, "EW": 7}
    assert report["matches"] == [{"number": 1, "deals": 1, "open_lines": {"NS": 9, "EW": 7}, "winner": None,
                                  "begun": True}]


def test_replay_command_warnings_in_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rec = Rec()
    rec.trumps().place("W", "KH").tick().place("E", "AD").tick()
    path = tmp_path / "w.jsonl"
    path.write_text(rec.text(), encoding="utf-8")
    assert main(["replay", "--json", str(path)]) == 0
    warning = json.loads(capsys.readouterr().out)["warnings"][0]
    assert {k: warning[k] for k in ("code", "rule", "seat", "trick")} == {
        "code": "out_of_turn", "rule": 12, "seat": "E", "trick": 1,
    }
    assert "out of turn" in warning["message"]


def test_replay_command_reports_a_bad_record(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"format": "tablepi-record", "version": 1}\n{"type": "tick", "t": "soon"}\n')
    assert main(["replay", str(path)]) == 2
    assert "line 2" in capsys.readouterr().err


def test_export_command_writes_the_journal_as_a_record(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record = load_record(RECORDS / "full_match.jsonl")
    journal = tmp_path / "journal.sqlite3"
    with JournaledTable(journal, record.header) as session:
        for event in record.events[:200]:
            session.feed(event)
        live = session.state
    out = tmp_path / "bug.jsonl"
    assert main(["export", "--journal", str(journal), str(out)]) == 0
    exported = load_record(out)
    assert exported.header == record.header
    assert list(exported.events) == [e for e in record.events[:200]]
    table = Table.replay(exported.events, exported.header.house_rules, exported.header.dealer, exported.header.table)
    assert table.state == live
    assert main(["export", "--journal", str(journal)]) == 0
    assert capsys.readouterr().out.splitlines()[1:] == out.read_text().splitlines()[1:]


def test_export_without_a_journal_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["export", "--journal", str(tmp_path / "none.sqlite3")]) == 2
    assert "no journal there" in capsys.readouterr().err


def test_slate_lines_struck_and_added_rules_25_26_28() -> None:
    table = _replay(RECORDS / "full_match.jsonl")
    slate = table.matches[0].slate
    for team in Team:
        struck = sum(e.struck[team] for e in slate.history)
        added = sum(e.added[team] for e in slate.history)
        assert slate.open_lines(team) == 9 + added - struck
