"""The developer and CI entry points: setup is idempotent, the test runner cannot pass on an empty run."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def bash(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
        stdin=subprocess.DEVNULL,
        env={**os.environ, **env},
    )


def test_ci_runs_exactly_the_readme_test_command() -> None:
    lines = [line for line in (ROOT / ".ci/run").read_text().splitlines() if line and not line.startswith("#")]
    assert lines[-1] == "exec bash scripts/test.sh"


def test_setup_twice_only_checks_the_second_time() -> None:
    first = bash("scripts/setup.sh")
    assert first.returncode == 0, first.stdout + first.stderr
    again = bash("scripts/setup.sh")
    assert again.returncode == 0, again.stdout + again.stderr
    assert "python environment up to date" in again.stdout
    assert "installing" not in again.stdout


def test_setup_rejects_unknown_options() -> None:
    unknown = bash("scripts/setup.sh", "--frobnicate")
    assert unknown.returncode == 2
    assert "unknown option: --frobnicate" in unknown.stderr


@pytest.mark.slow
def test_test_runner_fails_when_pytest_collects_nothing(tmp_path: Path) -> None:
    empty = tmp_path / "no_tests_here"
    empty.mkdir()
    result = bash("scripts/test.sh", str(empty))
    assert result.returncode == 1
    assert "pytest collected no tests" in result.stderr
    summary = result.stdout.strip().splitlines()[-1]
    assert summary.startswith("test summary: FAILED: pytest")
