"""The service unit, udev rule and install/update scripts for Raspberry Pi OS, checked without a Pi."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SYSTEMD = ROOT / "systemd"
UNIT = SYSTEMD / "tablepi.service"
DEFAULT_CONFIG_FILE = ROOT / "tablepi" / "default-config.toml"
UDEV = SYSTEMD / "99-tablepi-reader.rules"
INSTALL = SYSTEMD / "install.sh"
UPDATE = SYSTEMD / "update.sh"


def parse_unit(path: Path) -> dict[str, dict[str, list[str]]]:
    """Sections of a unit file as {section: {key: [values in order]}} (keys may repeat, like DeviceAllow)."""
    sections: dict[str, dict[str, list[str]]] = {}
    current: dict[str, list[str]] | None = None
    for number, raw in enumerate(path.read_text().splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("["):
            assert line.endswith("]"), f"{path.name}:{number}: bad section header {line!r}"
            current = sections.setdefault(line[1:-1], {})
            continue
        assert current is not None, f"{path.name}:{number}: setting outside a section"
        assert "=" in line, f"{path.name}:{number}: not a key=value line: {line!r}"
        key, value = line.split("=", 1)
        current.setdefault(key.strip(), []).append(value.strip())
    return sections


@pytest.fixture(scope="module")
def unit() -> dict[str, dict[str, list[str]]]:
    return parse_unit(UNIT)


def one(unit: dict[str, dict[str, list[str]]], section: str, key: str) -> str:
    values = unit[section].get(key, [])
    assert len(values) == 1, f"[{section}] {key} should be set once, got {values}"
    return values[0]


def test_unit_is_a_watched_notify_service(unit: dict[str, dict[str, list[str]]]) -> None:
    assert one(unit, "Service", "Type") == "notify"
    assert one(unit, "Service", "NotifyAccess") == "main"
    assert int(one(unit, "Service", "WatchdogSec")) >= 5
    assert one(unit, "Service", "Restart") == "on-failure"
    assert one(unit, "Install", "WantedBy") == "multi-user.target"
    exec_start = one(unit, "Service", "ExecStart").split()
    assert exec_start[0] == "/opt/tablepi/venv/bin/tablepi"
    assert "%E/tablepi/tablepi.toml" in exec_start


def test_unit_runs_unprivileged_with_the_hardware_groups(unit: dict[str, dict[str, list[str]]]) -> None:
    assert one(unit, "Service", "User") == "tablepi"
    groups = set(one(unit, "Service", "SupplementaryGroups").split())
    assert {"dialout", "gpio", "video", "render", "input", "plugdev"} <= groups
    assert one(unit, "Service", "CapabilityBoundingSet") == ""


def test_unit_is_hardened_and_keeps_its_journal(unit: dict[str, dict[str, list[str]]]) -> None:
    expected = {
        "NoNewPrivileges": "yes",
        "ProtectSystem": "strict",
        "ProtectHome": "yes",
        "PrivateTmp": "yes",
        "StateDirectory": "tablepi",
        "ConfigurationDirectory": "tablepi",
        "DevicePolicy": "closed",
    }
    for key, value in expected.items():
        assert one(unit, "Service", key) == value, key
    # PrivateDevices would hide the reader, GPIO and screen; ProtectKernelTunables would make sysfs read-only.
    assert "PrivateDevices" not in unit["Service"]
    assert "ProtectKernelTunables" not in unit["Service"]


def test_unit_allows_exactly_the_devices_the_table_uses(unit: dict[str, dict[str, list[str]]]) -> None:
    allowed = dict(v.split() for v in unit["Service"]["DeviceAllow"])
    for device in ("char-ttyACM", "char-gpiochip", "char-drm", "char-input"):
        assert device in allowed, device
    assert all(set(rights) <= set("rwm") for rights in allowed.values())
    assert allowed["char-input"] == "r"


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze not installed")
def test_systemd_analyze_verify_is_silent(tmp_path: Path) -> None:
    # verify also checks that ExecStart exists; the venv is not installed here, so point it at true(1).
    text = UNIT.read_text().replace("/opt/tablepi/venv/bin/tablepi", shutil.which("true") or "/bin/true")
    copy = tmp_path / "tablepi.service"
    copy.write_text(text)
    result = subprocess.run(
        ["systemd-analyze", "verify", str(copy)], capture_output=True, text=True, timeout=60, check=False
    )
    # verify exits 0 even for ignored settings: any line about our unit is a mistake in it.
    complaints = [line for line in (result.stdout + result.stderr).splitlines() if "tablepi" in line]
    assert result.returncode == 0 and not complaints, result.stdout + result.stderr


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze not installed")
def test_systemd_analyze_catches_a_broken_unit(tmp_path: Path) -> None:
    """The check above can fail: a misspelt setting is reported."""
    text = UNIT.read_text().replace("Type=notify", "Type=notifyy").replace("/opt/tablepi/venv/bin/tablepi", "/bin/true")
    copy = tmp_path / "tablepi.service"
    copy.write_text(text)
    result = subprocess.run(["systemd-analyze", "verify", str(copy)], capture_output=True, text=True, check=False)
    assert "notifyy" in result.stdout + result.stderr


# ---------------------------------------------------------------- udev

UDEV_PAIR = re.compile(r'\s*([A-Z_]+(?:\{[^}]+\})?)\s*(==|!=|\+=|-=|:=|=)\s*"([^"]*)"\s*(?:,|$)')
MATCH_KEYS = {"ACTION", "SUBSYSTEM", "SUBSYSTEMS", "KERNEL", "KERNELS", "ATTRS", "ATTR", "ENV", "DRIVERS", "TAG"}
ASSIGN_KEYS = {"SYMLINK", "GROUP", "MODE", "OWNER", "ENV", "TAG", "RUN", "NAME"}


def parse_udev(text: str) -> list[list[tuple[str, str, str]]]:
    """Rules as lists of (key, operator, value); raises on anything udev would not read."""
    rules = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        pairs, pos = [], 0
        while pos < len(line):
            match = UDEV_PAIR.match(line, pos)
            if not match:
                raise ValueError(f"line {number}: cannot parse udev rule at {line[pos:]!r}")
            key, op, value = match.groups()
            base = key.split("{")[0]
            if op in ("==", "!="):
                assert base in MATCH_KEYS, f"line {number}: {key} cannot be matched"
            else:
                assert base in ASSIGN_KEYS, f"line {number}: {key} cannot be assigned"
            pairs.append((key, op, value))
            pos = match.end()
        rules.append(pairs)
    return rules


def test_udev_rule_names_the_pico_and_opens_it_to_dialout() -> None:
    (rule,) = parse_udev(UDEV.read_text())
    assert ("SUBSYSTEM", "==", "tty") in rule
    assert ("ATTRS{idVendor}", "==", "2e8a") in rule
    # Only our firmware, by the product string it announces (firmware/config.py, set in firmware/boot.py).
    product = re.search(r'USB_PRODUCT = "([^"]+)"', (ROOT / "firmware/config.py").read_text()).group(1)  # type: ignore[union-attr]
    assert ("ATTRS{product}", "==", product) in rule
    assert "config.USB_PRODUCT" in (ROOT / "firmware/boot.py").read_text()
    assert ("SYMLINK", "+=", "tablepi-reader") in rule
    assert ("GROUP", "=", "dialout") in rule
    assert ("MODE", "=", "0660") in rule
    assert ("ENV{ID_MM_DEVICE_IGNORE}", "=", "1") in rule


def test_udev_parser_rejects_broken_rules() -> None:
    with pytest.raises(ValueError, match="cannot parse"):
        parse_udev('SUBSYSTEM=="tty", ATTRS{idVendor}=="2e8a" SYMLINK+="x"')
    with pytest.raises(ValueError, match="cannot parse"):
        parse_udev('SUBSYSTEM=="tty", GROUP="dialout')
    with pytest.raises(AssertionError, match="cannot be assigned"):
        parse_udev('SUBSYSTEM="tty"')


@pytest.mark.skipif(shutil.which("udevadm") is None, reason="udevadm not installed")
def test_udevadm_verify_if_this_udev_has_it() -> None:
    help_text = subprocess.run(["udevadm", "--help"], capture_output=True, text=True, check=False).stdout
    if "verify" not in help_text:
        pytest.skip("udevadm verify needs systemd 253 or newer")
    result = subprocess.run(["udevadm", "verify", str(UDEV)], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stdout + result.stderr


# ---------------------------------------------------------------- install and update scripts


def run_script(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", *args],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
        env={**os.environ, **(env or {})},
        stdin=subprocess.DEVNULL,
    )


LIVE_PATHS = [Path("/etc/systemd/system/tablepi.service"), Path("/etc/tablepi"), Path("/opt/tablepi")]


def test_install_dry_run_shows_every_system_step_and_changes_nothing() -> None:
    before = {path: path.exists() for path in LIVE_PATHS}
    result = run_script(str(INSTALL), "--dry-run")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "dry run: nothing is changed" in out
    assert "would run: systemctl enable tablepi.service" in out
    assert "would run: systemctl restart tablepi.service" in out
    assert "udevadm control --reload-rules" in out
    assert "99-tablepi-reader.rules /etc/udev/rules.d/99-tablepi-reader.rules" in out
    assert "usermod --append --groups dialout,gpio,video,render,input,plugdev tablepi" in out
    assert ("useradd --system" in out) or ("user tablepi exists" in out)
    # Only pinned, hash-checked files; tablepi itself from the checkout, fetching nothing more.
    assert re.search(r"pip install .*--require-hashes -r \S+/requirements-build.txt", out)
    assert re.search(r"pip install .*--require-hashes --no-build-isolation -r \S+/requirements-pi.txt", out)
    assert re.search(r"pip install .*--no-deps --no-build-isolation --no-index", out)
    assert "--upgrade" not in out
    assert {path: path.exists() for path in LIVE_PATHS} == before


def test_install_into_destdir_stages_files_and_keeps_an_edited_config(tmp_path: Path) -> None:
    dest = tmp_path / "root"
    result = run_script(str(INSTALL), "--destdir", str(dest), "--no-venv")
    assert result.returncode == 0, result.stderr
    assert "skipping apt" in result.stdout
    unit = dest / "etc/systemd/system/tablepi.service"
    rule = dest / "etc/udev/rules.d/99-tablepi-reader.rules"
    config = dest / "etc/tablepi/tablepi.toml"
    assert unit.read_text() == UNIT.read_text()
    assert rule.read_text() == UDEV.read_text()
    assert config.read_text() == DEFAULT_CONFIG_FILE.read_text()
    assert oct(config.stat().st_mode & 0o777) == "0o640"

    # A second run (an update) refreshes the unit but never overwrites the operator's configuration.
    config.write_text("# mine\n")
    unit.write_text("stale")
    again = run_script(str(INSTALL), "--destdir", str(dest), "--no-venv")
    assert again.returncode == 0, again.stderr
    assert "keeping the existing /etc/tablepi/tablepi.toml" in again.stdout
    assert config.read_text() == "# mine\n"
    assert unit.read_text() == UNIT.read_text()


@pytest.mark.parametrize("section", ["feed", "web"])
def test_install_allows_network_only_when_the_feed_or_the_pages_are_on(tmp_path: Path, section: str) -> None:
    dest = tmp_path / "root"
    dropin = dest / "etc/systemd/system/tablepi.service.d/feed-network.conf"
    assert run_script(str(INSTALL), "--destdir", str(dest), "--no-venv").returncode == 0
    assert not dropin.exists()  # the default configuration has [feed] and [web] enabled = false
    config = dest / "etc/tablepi/tablepi.toml"
    off, on = f"[{section}]\nenabled = false", f"[{section}]\nenabled = true"
    assert off in config.read_text()
    config.write_text(config.read_text().replace(off, on))
    assert run_script(str(INSTALL), "--destdir", str(dest), "--no-venv").returncode == 0
    assert "IPAddressAllow=any" in dropin.read_text()
    config.write_text(config.read_text().replace(on, off))
    assert run_script(str(INSTALL), "--destdir", str(dest), "--no-venv").returncode == 0
    assert not dropin.exists()


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze not installed")
@pytest.mark.parametrize("with_feed", [False, True])
def test_systemd_analyze_security_exposure_is_at_most_2(tmp_path: Path, with_feed: bool) -> None:
    copy = tmp_path / "tablepi.service"
    copy.write_text(UNIT.read_text())
    if with_feed:  # the drop-in the feed needs may cost a little, never past the bar
        (tmp_path / "tablepi.service.d").mkdir()
        (tmp_path / "tablepi.service.d" / "feed-network.conf").write_text((SYSTEMD / "feed-network.conf").read_text())
        text = copy.read_text().replace("IPAddressAllow=localhost", "IPAddressAllow=localhost\nIPAddressAllow=any")
        copy.write_text(text)
    result = subprocess.run(["systemd-analyze", "security", "--offline=yes", str(copy)], capture_output=True,
                            text=True, timeout=120, check=False)
    found = re.search(r"Overall exposure level for \S+: (\d+\.\d+)", result.stdout + result.stderr)
    if found is None and "offline" in result.stderr:
        pytest.skip("this systemd-analyze has no --offline")
    assert found is not None, result.stdout + result.stderr
    assert float(found.group(1)) <= 2.0, result.stdout


def test_update_refuses_to_run_as_root_code_another_user_can_change(tmp_path: Path) -> None:
    """update.sh run as root on a checkout a non-root user owns (or can write) stops before running anything."""
    checkout = _trusted_checkout(tmp_path)
    env = {"TABLEPI_UPDATE_CHECK_OWNER": "1"}
    if os.geteuid() == 0:
        os.chown(checkout / "systemd" / "install.sh", 65534, 65534)  # nobody could now change what root runs
    # (not root: every file belongs to this user, which is not root either: refused the same way)
    result = run_script(str(checkout / "systemd" / "update.sh"), "--dry-run", "--no-pull", env=env)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "refusing to run as root" in result.stderr and "would run" not in result.stdout
    if os.geteuid() != 0:
        return
    os.chown(checkout / "systemd" / "install.sh", 0, 0)
    os.chmod(checkout / "systemd" / "install.sh", 0o777)  # root's file, but anyone may write it
    result = run_script(str(checkout / "systemd" / "update.sh"), "--dry-run", "--no-pull", env=env)
    assert result.returncode == 1 and "refusing to run as root" in result.stderr


def test_default_config_is_valid_toml() -> None:
    import tomllib

    tomllib.loads(DEFAULT_CONFIG_FILE.read_text())
    # The documented controls defaults, uncommented, are what ControlPins accepts.
    text = DEFAULT_CONFIG_FILE.read_text()
    text = text[text.index("\n[controls]"):]
    text = text[: text.find("\n[", 1)] if "\n[" in text[1:] else text  # the [controls] section only
    block = "\n".join(m[1] for m in re.finditer(r"^# ([a-z_]+ = .*)$", text, re.MULTILINE))
    data = tomllib.loads("[controls]\n" + block)["controls"]
    from tablepi.controls import ControlPins

    assert ControlPins.from_mapping(data) == ControlPins()


def test_install_refuses_a_directory_that_is_no_checkout(tmp_path: Path) -> None:
    result = run_script(str(INSTALL), "--dry-run", "--source", str(tmp_path))
    assert result.returncode != 0
    assert "is not a tablepi checkout" in result.stderr


def _trusted_checkout(tmp_path: Path) -> Path:
    """A copy of what update.sh and install.sh read, in a folder only root (or this user) can write."""
    checkout = tmp_path / "src"
    for part in ("systemd", "tablepi", "docs"):
        shutil.copytree(ROOT / part, checkout / part, ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "requirements-pi.txt", "requirements-build.txt"):
        shutil.copy(ROOT / name, checkout / name)
    os.chmod(tmp_path, 0o755)
    return checkout


def test_update_dry_run_pulls_fast_forward_then_reinstalls(tmp_path: Path) -> None:
    update = _trusted_checkout(tmp_path) / "systemd" / "update.sh"
    result = run_script(str(update), "--dry-run", env={"TABLEPI_UPDATE_CHECK_OWNER": "1"} if os.geteuid() == 0 else {})
    assert result.returncode == 0, result.stderr
    assert re.search(r"would run: .*git -C \S+ pull --ff-only", result.stdout)
    assert "would run: systemctl restart tablepi.service" in result.stdout
    no_pull = run_script(str(update), "--dry-run", "--no-pull")
    assert "pull --ff-only" not in no_pull.stdout


@pytest.mark.slow
def test_install_builds_a_working_venv_from_the_checkout(tmp_path: Path) -> None:
    """A real (non-editable) install: the console script must run from the copy, without the checkout."""
    dest = tmp_path / "root"
    result = run_script(str(INSTALL), "--destdir", str(dest), env={"PYTHON": sys.executable})
    assert result.returncode == 0, result.stdout + result.stderr
    venv = dest / "opt/tablepi/venv"
    tablepi = venv / "bin/tablepi"
    check = subprocess.run(
        [str(tablepi), "--version"], capture_output=True, text=True, timeout=60, check=False, cwd=tmp_path
    )
    assert check.returncode == 0, check.stderr
    assert check.stdout.startswith("tablepi ")
    where = subprocess.run(
        [str(venv / "bin/python"), "-c", "import tablepi; print(tablepi.__file__)"],
        capture_output=True,
        text=True,
        check=True,
        cwd=tmp_path,
    ).stdout
    assert str(venv) in where  # copied into the venv, not pointing back into the checkout
    assert (dest / "opt/tablepi/docs/install.md").exists()


SHELL_SCRIPTS = [
    ROOT / ".ci/run",
    *sorted((ROOT / "scripts").glob("*.sh")),
    *sorted(SYSTEMD.glob("*.sh")),
]


@pytest.mark.skipif(shutil.which("shellcheck") is None, reason="shellcheck not installed")
def test_shell_scripts_pass_shellcheck() -> None:
    result = subprocess.run(
        ["shellcheck", "--shell=bash", *map(str, SHELL_SCRIPTS)], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stdout


# ---------------------------------------------------------------- the KMS libraries, boot-time drivers, offline


def test_install_brings_every_library_sdls_kms_driver_loads() -> None:
    """pygame-ce's SDL dlopens these on KMS; without them the service runs headless ("EGL not initialized")."""
    from tablepi.display.video import KMS_LIBRARIES

    packages = {line.split("#")[0].strip() for line in (SYSTEMD / "debian-packages.txt").read_text().splitlines()}
    assert set(KMS_LIBRARIES.values()) <= packages
    assert "libgl1-mesa-dri" in packages  # Mesa's EGL needs its DRI driver (vc4/v3d, virtio-gpu, llvmpipe)


def test_the_device_classes_the_unit_allows_are_loaded_at_boot(tmp_path: Path) -> None:
    """DeviceAllow=char-NAME is resolved when the service starts: the serial and display drivers are loaded at
    boot (modules-load.d), so a reader plugged at boot, later or again is never refused."""
    dest = tmp_path / "root"
    assert run_script(str(INSTALL), "--destdir", str(dest), "--no-venv").returncode == 0
    modules = (dest / "etc/modules-load.d/tablepi.conf").read_text()
    loaded = {line.strip() for line in modules.splitlines() if line.strip() and not line.startswith("#")}
    assert {"cdc_acm", "usbserial", "drm"} <= loaded
    allowed = {v.split()[0] for v in UNIT.read_text().splitlines() if v.startswith("DeviceAllow=")}
    assert {"DeviceAllow=char-ttyACM", "DeviceAllow=char-ttyUSB", "DeviceAllow=char-drm"} <= allowed
    dry = run_script(str(INSTALL), "--dry-run").stdout
    assert dry.index("systemctl restart systemd-modules-load.service") < dry.index("systemctl restart tablepi")


def test_install_offline_takes_packages_and_wheels_only_from_the_bundle(tmp_path: Path) -> None:
    bundle = tmp_path / "bundle"
    (bundle / "debs").mkdir(parents=True)
    (bundle / "wheels").mkdir()
    arch = subprocess.run(["dpkg", "--print-architecture"], capture_output=True, text=True).stdout.strip() \
        if shutil.which("dpkg") else "amd64"
    (bundle / "BUNDLE-INFO").write_text(f"arch={arch}\nmade=2026-01-01\n")
    # A machine that lacks every package (the bare system the bundle is for), whatever this one has installed.
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "dpkg-query").write_text("#!/bin/sh\nexit 1\n")
    (bin_dir / "dpkg-query").chmod(0o755)
    bare = {"PATH": f"{bin_dir}:{os.environ['PATH']}"}
    before = sorted(bundle.rglob("*"))
    result = run_script(str(INSTALL), "--dry-run", "--offline", str(bundle), env=bare)
    assert result.returncode == 0, result.stderr
    # The bundle is only read: on a read-only share or stick a file written into it failed the install.
    assert sorted(bundle.rglob("*")) == before
    out = result.stdout
    assert f"offline: packages and wheels from {bundle}" in out
    assert "apt-get" in out and "install -y" in out, out
    for line in out.splitlines():
        if "pip install" in line:
            assert "--no-index" in line, line
        if "requirements-" in line:
            assert f"--find-links {bundle}/wheels" in line, line
        if "apt-get" in line:
            source_list = re.search(r"Dir::Etc::SourceList=(\S+)", line)
            assert source_list and not source_list[1].startswith(str(bundle)), line
    missing = run_script(str(INSTALL), "--dry-run", "--offline", str(tmp_path))
    assert missing.returncode != 0 and "not a tablepi bundle" in missing.stderr
    # The same bundle as one .tar file (what scripts/bundle.sh --tar writes): unpacked into a temporary folder.
    subprocess.run(["tar", "-cf", str(tmp_path / "bundle.tar"), "-C", str(tmp_path), "bundle"], check=True)
    packed = run_script(str(INSTALL), "--dry-run", "--offline", str(tmp_path / "bundle.tar"))
    assert packed.returncode == 0, packed.stderr
    assert re.search(r"offline: packages and wheels from /\S+/bundle \(", packed.stdout), packed.stdout
    assert "--find-links /" in packed.stdout and f"{tmp_path}/bundle/wheels" not in packed.stdout


TOURNAMENT_UNIT = SYSTEMD / "tablepi-tournament.service"


def test_the_tournament_unit_holds_enough_files_for_its_pages_and_verifies(tmp_path: Path) -> None:
    """1,500 open pages are 1,500 sockets: the unit raises the file limit above [web] max_streams."""
    from tablepi.tournament.config import WebConfig
    from tablepi.web.serve import SPARE_CONNECTIONS

    tournament = parse_unit(TOURNAMENT_UNIT)
    assert int(one(tournament, "Service", "LimitNOFILE")) > WebConfig().max_streams + SPARE_CONNECTIONS + 256
    if shutil.which("systemd-analyze") is None:
        return
    copy = tmp_path / "tablepi-tournament.service"
    copy.write_text(TOURNAMENT_UNIT.read_text().replace("/opt/tablepi/venv/bin/tablepi", shutil.which("true")
                                                        or "/bin/true"))
    result = subprocess.run(["systemd-analyze", "verify", str(copy)], capture_output=True, text=True, timeout=60,
                            check=False)
    complaints = [line for line in (result.stdout + result.stderr).splitlines() if "tablepi" in line]
    assert result.returncode == 0 and not complaints, result.stdout + result.stderr


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze not installed")
def test_the_tournament_unit_is_hardened(tmp_path: Path) -> None:
    """The server faces the bar's network: its unit keeps the table unit's bar (exposure at most 2), with the
    network it needs and nothing of the machine's it does not."""
    tournament = parse_unit(TOURNAMENT_UNIT)
    for key, value in (("DynamicUser", "yes"), ("NoNewPrivileges", "yes"), ("ProtectSystem", "strict"),
                       ("ProtectHome", "yes"), ("PrivateDevices", "yes"), ("CapabilityBoundingSet", ""),
                       ("SystemCallFilter", "@system-service"), ("UMask", "0077")):
        assert one(tournament, "Service", key) == value, key
    copy = tmp_path / "tablepi-tournament.service"
    copy.write_text(TOURNAMENT_UNIT.read_text())
    result = subprocess.run(["systemd-analyze", "security", "--offline=yes", str(copy)], capture_output=True,
                            text=True, timeout=120, check=False)
    found = re.search(r"Overall exposure level for \S+: (\d+\.\d+)", result.stdout + result.stderr)
    if found is None and "offline" in result.stderr:
        pytest.skip("this systemd-analyze has no --offline")
    assert found is not None, result.stdout + result.stderr
    assert float(found.group(1)) <= 2.0, result.stdout
