"""``tablepi analyse`` and ``replay --json --analyse`` on the example records (tests/records)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tablepi.cli import main

RECORDS = Path(__file__).parent.parent / "records"
KEYS = {"number", "trump", "forehand", "par", "best", "played", "plays"}


@pytest.mark.parametrize("name", ["full_match.jsonl", "hand_scan_match.jsonl"])
def test_analyse_json_per_deal(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyse", "--json", str(RECORDS / name)]) == 0
    deals = json.loads(capsys.readouterr().out)["deals"]
    assert deals
    known = [d for d in deals if d["known"]]
    assert known
    for deal in known:
        assert set(deal) >= KEYS
        assert set(deal["par"]) == {"S", "H", "D", "C"}
        assert all(set(p) == {"NS", "EW"} and p["NS"] + p["EW"] == 40 for p in deal["par"].values())
        assert deal["best"] == deal["par"][deal["trump"]]
        for play in deal["plays"]:
            assert {"trick", "seat", "card", "value", "best_value", "best_cards", "dd_cost_lines", "sd"} <= set(play)
            assert play["value"] <= play["best_value"]
            sd = play["sd"]
            assert set(sd) == {"exact", "layouts", "stderr", "cards", "best_cards", "cost_lines", "cost_points"}
            assert (sd["stderr"] is None) == sd["exact"] and sd["cost_lines"] >= 0 and sd["best_cards"]
            for value in sd["cards"].values():
                assert set(value) == {"lines", "points", "win", "tie", "kapo_for", "kapo_against"}
        assert set(deal["sd_summary"]) == {"N", "E", "S", "W"}
        for seat, summary in deal["sd_summary"].items():
            mine = [p for p in deal["plays"] if p["seat"] == seat]
            assert summary["lines_lost"] == pytest.approx(sum(p["sd"]["cost_lines"] for p in mine), abs=1e-3)
            assert summary["lines_lost"] + summary["luck"] == pytest.approx(
                sum(p["dd_cost_lines"] for p in mine), abs=1e-3)
    for deal in deals:
        if not deal["known"]:
            assert deal["unknown"] and deal["par"] is None and deal["plays"] == [] and deal["sd_summary"] is None


def test_hand_scan_record_is_fully_analysed(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyse", "--json", str(RECORDS / "hand_scan_match.jsonl")]) == 0
    deals = json.loads(capsys.readouterr().out)["deals"]
    assert all(d["known"] for d in deals)  # hand scan: every card is known, claimed deals included


def test_analyse_text(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyse", str(RECORDS / "hand_scan_match.jsonl")]) == 0
    out = capsys.readouterr().out
    assert "par (NS-EW): S " in out and "trick " in out
    assert "single-dummy, trick " in out and "lines lost on what each could know / luck:" in out


def test_replay_json_analyse(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", "--json", "--analyse", str(RECORDS / "hand_scan_match.jsonl")]) == 0
    report = json.loads(capsys.readouterr().out)
    for deal in report["deals"]:
        analysis = deal["analysis"]
        assert analysis is not None and analysis["number"] == deal["number"]
        assert analysis["sd_summary"] is not None and all("sd" in p for p in analysis["plays"])
        assert analysis["played"] == deal["points"] or deal["revoke_by"] is not None
    assert main(["replay", "--json", str(RECORDS / "hand_scan_match.jsonl")]) == 0
    assert "analysis" not in json.loads(capsys.readouterr().out)["deals"][0]


def test_claims_without_hand_scan_are_judged_from_the_play(capsys: pytest.CaptureFixture[str]) -> None:
    """Claimers who lost a trick never had Kapo: their claim is safe, whoever held the unseen cards."""
    assert main(["analyse", "--json", str(RECORDS / "full_match.jsonl")]) == 0
    deals = json.loads(capsys.readouterr().out)["deals"]
    claims = [d["claim"] for d in deals if not d["known"] and d["claim"] is not None]
    assert claims and any(c["safe"] is True and c["layouts"] == 0 for c in claims)
