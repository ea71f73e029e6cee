"""The lock files the Pi installs from (requirements-pi.txt, requirements-build.txt): pinned, hashed, complete,
in agreement with pyproject.toml, and enforced by pip (a wrong hash stops the install)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tomllib
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[1]
LOCKS = (ROOT / "requirements-pi.txt", ROOT / "requirements-build.txt")


def _entries(path: Path) -> dict[str, tuple[str, list[str]]]:
    """name -> (version, hashes) of a pip requirements file with hashes."""
    text = re.sub(r"\\\n", " ", path.read_text())
    out: dict[str, tuple[str, list[str]]] = {}
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        spec, *options = line.split()
        name, _, version = spec.partition("==")
        assert version, f"{path.name}: {spec} is not pinned to one version"
        hashes = [o.removeprefix("--hash=sha256:") for o in options if o.startswith("--hash=sha256:")]
        assert hashes and len(hashes) == len(options), f"{path.name}: {spec}: every file needs a sha256 hash"
        assert all(re.fullmatch(r"[0-9a-f]{64}", h) for h in hashes)
        out[name.lower()] = (version, hashes)
    return out


def test_every_dependency_the_pi_installs_is_pinned_with_hashes() -> None:
    """The table's own needs, its readers (pcsc), its MQTT feed and its players' pages (the tournament stack): a Pi
    installed by systemd/install.sh runs every one of them, so each is locked, and so is all they need in turn."""
    lock = {canonicalize_name(name): entry for name, entry in _entries(LOCKS[0]).items()}
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    wanted = [Requirement(r) for r in [*project["dependencies"], *extras["pcsc"], *extras["feed"],
                                       *extras["tournament"]]]
    for req in wanted:
        name = canonicalize_name(req.name)
        assert name in lock, f"{req.name} (pyproject.toml) is missing from requirements-pi.txt"
        assert req.specifier.contains(lock[name][0], prereleases=True), (req, lock[name][0])
    # ... and what those need in turn, all the way down (as installed here from the same versions): nothing comes
    # unpinned. install.sh installs the build lock first (setuptools and wheel), so what it holds counts too.
    installed = lock | {canonicalize_name(name): entry for name, entry in _entries(LOCKS[1]).items()}
    seen: set[str] = set()
    todo = [req.name for req in wanted]
    while todo:
        name = todo.pop()
        if canonicalize_name(name) in seen:
            continue
        seen.add(canonicalize_name(name))
        for sub in metadata.requires(name) or []:
            dep = Requirement(sub)
            if dep.marker is None or dep.marker.evaluate({"extra": ""}):
                assert canonicalize_name(dep.name) in installed, f"{dep.name} (needed by {name}) is not locked"
                todo.append(dep.name)


def test_the_build_lock_has_what_building_needs() -> None:
    build = _entries(LOCKS[1])
    requires = tomllib.loads((ROOT / "pyproject.toml").read_text())["build-system"]["requires"]
    for spec in requires:
        req = Requirement(spec)
        assert req.name.lower() in build and req.specifier.contains(build[req.name.lower()][0])
    assert "swig" in build  # pyscard's sdist builds with it


def _download(lines: str, folder: Path) -> subprocess.CompletedProcess[str]:
    folder.mkdir()
    req = folder / "req.txt"
    req.write_text(lines)
    return subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--require-hashes",
                           "--no-cache-dir", "-d", str(folder / "dl"), "-r", str(req)],
                          capture_output=True, text=True, timeout=300, check=False)


@pytest.mark.slow
def test_pip_refuses_a_file_whose_hash_is_not_the_locked_one(tmp_path: Path) -> None:
    version, hashes = _entries(LOCKS[0])["pyserial"]
    good = _download(f"pyserial=={version} --hash=sha256:{hashes[0]}\n", tmp_path / "good")
    if good.returncode != 0:
        if os.environ.get("CI"):
            pytest.fail(good.stderr)
        pytest.skip(f"no package registry reachable: {good.stderr.strip()[-200:]}")
    wrong = hashes[0][:-1] + ("0" if hashes[0][-1] != "0" else "1")
    bad = _download(f"pyserial=={version} --hash=sha256:{wrong}\n", tmp_path / "bad")
    assert bad.returncode != 0 and "DO NOT MATCH THE HASHES" in bad.stderr.upper()
    unpinned = _download("pyserial>=3.5 --hash=sha256:" + hashes[0] + "\n", tmp_path / "loose")
    assert unpinned.returncode != 0  # --require-hashes also demands an exact ==
