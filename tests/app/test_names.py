"""The names of earlier matches' players (names.txt beside the journal): most recent first, each once, a lost or
broken file never more than an empty list and one line in the log."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from tablepi.app.names import KEEP, RecentNames


def test_names_are_kept_most_recent_first_each_once_whatever_its_case(tmp_path: Path) -> None:
    path = tmp_path / "names.txt"
    names = RecentNames(path)
    assert names.names == ()  # no file yet
    names.add(["Marie", "Jang"])
    names.add(["jang", "Anna"])  # Jang again (another case): moved first, written once, as typed last
    assert names.names == ("jang", "Anna", "Marie")
    assert RecentNames(path).names == ("jang", "Anna", "Marie")  # read back by the next start


def test_bad_names_in_the_file_are_skipped_and_the_list_is_bounded(tmp_path: Path) -> None:
    path = tmp_path / "names.txt"
    path.write_text("Jang\n\n   \n" + "x" * 500 + "\nMarie\n", encoding="utf-8")
    assert RecentNames(path).names == ("Jang", "Marie")
    names = RecentNames(path)
    names.add(f"Player {i}" for i in range(KEEP + 10))
    assert len(names.names) == KEEP and names.names[0] == "Player 0"


def test_an_unreadable_or_unwritable_file_is_one_warning_never_a_crash(tmp_path: Path,
                                                                      caplog: pytest.LogCaptureFixture) -> None:
    broken = tmp_path / "names.txt"
    broken.write_bytes(b"\xff\xfe not text")
    with caplog.at_level(logging.WARNING):
        assert RecentNames(broken).names == ()
    assert "earlier names not offered" in caplog.text
    folder = tmp_path / "a folder"
    folder.mkdir()
    caplog.clear()
    with caplog.at_level(logging.WARNING):
        names = RecentNames(folder)  # a folder where the file should be: nothing to read, nothing written
        names.add(["Jang"])
    assert names.names == ("Jang",) and "earlier names not" in caplog.text
