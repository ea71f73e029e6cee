"""The offline bundle (scripts/bundle.sh) for the Pi's architecture: every package of systemd/debian-packages.txt
resolves, with its dependencies, from Debian bookworm for arm64 (a misspelt or vanished package stops here, in a
minute, without building a system), the KMS libraries SDL loads are in it, and the wheels are the pinned files."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tablepi.display.video import KMS_LIBRARIES

ROOT = Path(__file__).resolve().parents[2]

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("dpkg-scanpackages") is None or shutil.which("apt-get") is None,
                       reason="needs apt and dpkg-dev (scripts/setup.sh installs them)"),
]


def test_the_arm64_bundle_holds_every_package_and_wheel(tmp_path: Path) -> None:
    out = tmp_path / "bundle"
    done = subprocess.run(["bash", str(ROOT / "scripts/bundle.sh"), "--arch", "arm64", "--out", str(out), "--tar"],
                          capture_output=True, text=True, timeout=900, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "arch=arm64" in (out / "BUNDLE-INFO").read_text()
    index = (out / "debs" / "Packages").read_text()
    listed = set(re.findall(r"^Package: (\S+)$", index, re.M))
    wanted = {line.split("#")[0].strip() for line in (ROOT / "systemd/debian-packages.txt").read_text().splitlines()}
    wanted.discard("")
    assert wanted <= listed, wanted - listed
    assert set(KMS_LIBRARIES.values()) | {"libgl1-mesa-dri"} <= listed
    assert set(re.findall(r"^Architecture: (\S+)$", index, re.M)) <= {"arm64", "all"}
    wheels = sorted(p.name for p in (out / "wheels").iterdir())
    assert any(re.match(r"pygame_ce-2\.5\.8-cp311-cp311-.*aarch64.*\.whl", w) for w in wheels), wheels
    assert any(w.startswith("pyscard-") and w.endswith(".tar.gz") for w in wheels), wheels
    assert (out / "src" / "systemd" / "install.sh").is_file()
    assert Path(f"{out}.tar").is_file()
