"""The `tablepi` commands as a user types them: help, errors, doctor, screenshot, demo."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

from tablepi.app.demo import demo_deck
from tablepi.cli import main
from tablepi.deck import write_deck_file

RECORDS = Path(__file__).parent.parent / "records"


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()[:24]
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    return struct.unpack(">II", data[16:24])


def sim_config(tmp_path: Path, extra: str = "") -> Path:
    path = tmp_path / "t.toml"
    path.write_text(
        f'[table]\njournal = "j.sqlite3"\ndecks = ["decks.toml"]\n[readers]\nbackend = "sim"\n'
        f"[readers.options]\n[controls]\nenabled = false\n{extra}",
        encoding="utf-8",
    )
    return path


def test_help_lists_every_command(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["--help"])
    assert info.value.code == 0
    out = capsys.readouterr().out
    for command in ("run", "demo", "enroll", "replay", "export", "screenshot", "doctor"):
        assert command in out


def test_broken_config_is_a_clear_error_not_a_traceback(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = sim_config(tmp_path, "[display]\nlanguage = 'xx'\n")
    assert main(["run", "--headless", "--config", str(path)]) == 2
    err = capsys.readouterr().err
    assert str(path) in err and "display.language: 'xx'" in err and "Traceback" not in err


def test_doctor_says_what_is_wrong_and_how_to_fix_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = sim_config(tmp_path)
    (tmp_path / "j.sqlite3").write_bytes(b"this is not a database, it is a beer mat" * 100)
    assert main(["doctor", "--config", str(path)]) == 1
    out = capsys.readouterr().out
    assert "[FAIL] deck: deck file" in out and "tablepi enroll" in out
    assert "[  ok] readers: sim reader: all 4 zones online" in out
    assert "[warn] journal:" in out and "is damaged" in out and "quarantine" in out
    assert "aside" not in out and " mv " not in out  # no advice may lose the match
    assert (tmp_path / "j.sqlite3").read_bytes().startswith(b"this is not")  # doctor only reads


def test_doctor_passes_deck_and_journal_when_they_are_fine(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = sim_config(tmp_path)
    write_deck_file(tmp_path / "decks.toml", [demo_deck()])
    main(["doctor", "--config", str(path)])
    out = capsys.readouterr().out
    assert "[  ok] deck: deck 'demo': all 24 cards enrolled" in out
    assert "[  ok] journal:" in out and "will be created" in out


def test_screenshot_renders_chosen_moments_of_a_record(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "shots"
    record = RECORDS / "full_match.jsonl"
    assert main(["screenshot", str(record), "--out", str(out), "--at", "30", "--size", "480x320"]) == 0
    assert png_size(out / "event-0030.png") == (480, 320)
    assert main(["screenshot", str(record), "--out", str(out), "--at", "99999"]) == 2


@pytest.mark.slow
def test_headless_demo_plays_a_whole_match_and_writes_frames(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "frames"
    assert main(["demo", "--headless", "--out", str(out)]) == 0
    summary = capsys.readouterr().out
    assert "match won by" in summary
    assert "revoke" in summary and "Matt" in summary and "unknown_tag" in summary
    frames = sorted(out.glob("*.png"))
    assert len(frames) > 20
    assert any("match_over" in f.name for f in frames) and any("warning-revoke" in f.name for f in frames)
    assert png_size(frames[0]) == (800, 480)


@pytest.mark.slow
def test_demo_through_the_real_firmware_plays_the_same_deal_as_the_simulator() -> None:
    """The hidden build end to end: firmware on emulated MFRC522 chips -> pty -> serial backend -> table."""
    from tablepi.app.demo import run_demo

    via_sim = run_demo(headless=True, deals=1)
    via_firmware = run_demo(headless=True, deals=1, via="firmware")
    assert via_firmware.lines() == via_sim.lines()
    assert via_firmware.state is not None and len(via_firmware.state.match.slate) == 1


def test_windowed_demo_runs_its_window_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    """The window path (set_mode, event polling, pacing) on SDL's dummy video driver."""
    from tablepi.app.demo import run_demo

    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    summary = run_demo(headless=False, deals=1, speed=1e6)
    assert summary.state is not None and len(summary.state.match.slate) == 1


@pytest.mark.slow
def test_enroll_command_tags_a_deck_from_cards_laid_on_the_zones(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tablepi.deck import DeckRegistry
    from tablepi.rules import DECK

    steps = []
    for i, _card in enumerate(DECK):
        uid = f"04E1{i:02X}A1B2C3D4"
        steps.append(f'"{0.5 + i * 0.1:.2f} place {i % 4} {uid}"')
        steps.append(f'"{0.55 + i * 0.1:.2f} lift {i % 4}"')
    path = sim_config(tmp_path).read_text(encoding="utf-8").replace(
        "[readers.options]\n", f"[readers.options]\nscript = [{', '.join(steps)}]\n"
    )
    (tmp_path / "t.toml").write_text(path, encoding="utf-8")
    assert main(["enroll", "red", "--config", str(tmp_path / "t.toml"), "--timeout", "30"]) == 0
    out = capsys.readouterr().out
    assert "deck 'red': all 24 cards enrolled" in out
    registry = DeckRegistry.load(tmp_path / "decks.toml")
    assert registry.lookup("04E100A1B2C3D4") == ("red", DECK[0])
    assert registry.lookup("04E117A1B2C3D4") == ("red", DECK[23])


def test_export_never_replaces_a_device_and_names_an_unwritable_path(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import os

    from tablepi.journal.journal import Journal
    from tablepi.journal.record import RecordHeader

    journal = tmp_path / "j.sqlite3"
    Journal(journal, RecordHeader()).close()
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # someone reads the pipe
    try:
        assert main(["export", "--journal", str(journal), str(fifo)]) == 0
        assert fifo.is_fifo(), "the pipe was replaced by a regular file"
        assert os.read(reader, 4096).startswith(b'{"format": "tablepi-record"')
    finally:
        os.close(reader)
    assert main(["export", "--journal", str(journal), str(tmp_path / "no" / "such" / "dir.jsonl")]) == 2
    err = capsys.readouterr().err
    assert "cannot write the record" in err and "Traceback" not in err


def test_demo_and_screenshot_name_an_output_folder_that_is_not_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    assert main(["demo", "--headless", "--deals", "1", "--out", str(blocker)]) == 2
    assert main(["demo", "--headless", "--deals", "0"]) == 2
    assert main(["screenshot", str(RECORDS / "full_match.jsonl"), "--out", str(blocker)]) == 2
    err = capsys.readouterr().err
    assert err.count(str(blocker)) == 2 and "--deals: expected a whole number of at least 1" in err
    assert "Traceback" not in err


def test_demo_keeps_a_frame_of_the_slate_after_each_deal(tmp_path: Path) -> None:
    from tablepi.app.demo import run_demo

    summary = run_demo(headless=True, deals=2, out=tmp_path / "frames")
    assert len([f for f in summary.frames if f.name.endswith("-slate.png")]) == 2


def test_doctor_names_the_line_of_a_broken_deck_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = sim_config(tmp_path)
    (tmp_path / "decks.toml").write_text('[decks.red]\nXC = "04A1B2C3D4E5F6"\n', encoding="utf-8")
    main(["doctor", "--config", str(path)])
    out = capsys.readouterr().out
    assert "[FAIL] deck:" in out and "decks.red.XC" in out and "check itself failed" not in out


def test_without_a_screen_the_table_still_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No video device (unplugged display, wrong driver): the table referees and journals without a screen."""
    from tablepi.app.build import open_table
    from tablepi.config import load_config

    monkeypatch.setenv("SDL_VIDEODRIVER", "no-such-driver")
    running = open_table(load_config(sim_config(tmp_path)))
    try:
        assert running.app.screen is not None and running.app.screen.headless  # type: ignore[attr-defined]
        running.app.step(0.2)
    finally:
        running.close()


def test_replay_text_prints_suits_as_symbols(capsys) -> None:  # type: ignore[no-untyped-def]
    """Seat S and spades (S) cannot be confused: the text says ``S ♠Q``, never ``S:QS``."""
    import re
    from pathlib import Path

    from tablepi.cli import main

    record = Path(__file__).parents[1] / "records" / "full_match.jsonl"
    assert main(["replay", str(record)]) == 0
    out = capsys.readouterr().out
    assert "trumps ♠" in out or "trumps ♥" in out or "trumps ♦" in out or "trumps ♣" in out
    assert re.search(r"trick 1: [NESW] [♠♥♦♣](A|K|Q|J|10|9), ", out)
    assert not re.search(r"\b[NESW]:[AKQJT9][SHDC]\b", out)


def test_replay_names_the_players_where_the_table_seated_them() -> None:
    """Issue 20: `tablepi replay` printed seat letters where the table showed the players' names."""
    from tablepi.commands.replay import format_text

    report = {
        "deals": [{"match": 1, "number": 1, "dealer": "N", "forehand": "W", "trump": "H",
                   "announcements": [{"seat": "E", "announcement": "matt"}],
                   "tricks": [{"order": ["W:AH", "S:9H", "E:KH", "N:TH"], "winner": "W", "points": 25}],
                   "points": {"NS": 15, "EW": 25}, "result": "EW win", "kapo": False, "stake": 2,
                   "slate": {"NS": 9, "EW": 7}}],
        "names": {"W": "Léon", "E": "Jos", "N": "Fernand"},
        "warnings": [],
        "matches": [{"number": 1, "begun": True, "deals": 1, "open_lines": {"NS": 9, "EW": 7}, "winner": None}],
    }
    text = format_text(report)
    assert "dealer Fernand, forehand Léon" in text and "  Jos announces matt" in text
    assert "trick 1: Léon ♥A, S ♥9, Jos ♥K, Fernand ♥10 -> Léon (25 points)" in text
