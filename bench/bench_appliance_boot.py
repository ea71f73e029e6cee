"""Boot to slate in the appliance: how long after the kernel starts the table's first frame is on the screen, and
how much of that the service itself takes, relative to the guest's own boot.

Boots an installed appliance (the disk an appliance run kept: ``bash scripts/appliance.sh --arch arm64 --keep DIR``
leaves ``DIR/run/disk.qcow2``) several times, each on a fresh overlay, reader attached, and reads systemd's own
monotonic timestamps in the guest (seconds since the kernel started):

- ``basic.target``: the guest's own boot, all of the system before the services (multi-user.target is no
  measure: it waits for tablepi, which it wants);
- ``first frame``: tablepi.service active, i.e. READY=1, which the table sends after its first frame is drawn;
- ``service``: from the service's start to its first frame (its own share; the unit allows 60 s);
- ``ratio``: first frame / basic.target.

    python bench/bench_appliance_boot.py --arch arm64 --base /var/cache/tablepi-appliance/arm64-full-HASH \\
        --disk DIR/run/disk.qcow2 [--runs 3]

Leaves out: the firmware's (host) time to report a card; the host's load (everything runs under TCG, software
emulation, so absolute seconds depend on the machine and what else runs on it: compare the ratio). QEMU's own
start before the kernel is not counted.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tablepi.emulator.runner import FirmwareRunner
from tests.appliance.vm import Guest, GuestError, wait_for


def one_boot(arch: str, base: Path, disk: Path, work: Path) -> dict[str, float]:
    work.mkdir(parents=True)
    subprocess.run(["qemu-img", "create", "-q", "-f", "qcow2", "-b", str(disk.resolve()), "-F", "qcow2",
                    str(work / "disk.qcow2")], check=True, timeout=60)
    share = work / "share"
    share.mkdir()
    with FirmwareRunner.on_pty() as board:
        guest = Guest(arch, base, share, work, board.path, work / "console.log")
        try:
            guest.power_on(900)
            wait_for("tablepi.service active", lambda: guest.sh("systemctl is-active tablepi", check=False)
                     .out.strip() == "active", 300, every=2.0)
            return guest.boot_figures()
        finally:
            guest.stop()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--arch", choices=("arm64", "amd64"), required=True)
    parser.add_argument("--base", type=Path, required=True, help="the cached system (kernel and initrd)")
    parser.add_argument("--disk", type=Path, required=True, help="an installed appliance's disk (qcow2)")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    runs: list[dict[str, float]] = []
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(args.runs):
            try:
                runs.append(one_boot(args.arch, args.base, args.disk, Path(tmp) / f"boot{i}"))
            except GuestError as error:
                print(f"boot {i + 1}: {error}", file=sys.stderr)
                return 1
            print(f"boot {i + 1}: {runs[-1]}", flush=True)
    print(f"{args.arch}, {len(runs)} boots (seconds since the kernel started; min / median / max):")
    for key, label in (("boot_to_basic_target", "basic.target (the guest's own boot)"),
                       ("boot_to_first_frame", "tablepi's first frame (READY=1)"),
                       ("service_start_to_first_frame", "the service's own share (start to first frame)"),
                       ("first_frame_over_boot", "ratio first frame / own boot")):
        values = [run[key] for run in runs]
        print(f"  {label}: {min(values)} / {statistics.median(values)} / {max(values)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
