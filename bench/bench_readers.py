"""Reader latency: from a protocol line written to the serial link to the ZoneEvent in the host's hands.

Runs the serial backend on a real pseudo-terminal against the protocol emulator and prints p50/p99/max for
(1) ``recv()`` called directly and (2) the app's path through a ReaderPump thread and a queue.Queue; then the
pure parser's throughput. Target: p99 under 2 ms from line written to event delivered.

    python bench/bench_readers.py [--n 2000]
"""

from __future__ import annotations

import argparse
import os
import queue
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the device emulator is the tests' harness

from tablepi.readers import ReaderPump, ZoneEvent, open_reader
from tablepi.readers import protocol as p
from tablepi.readers.events import ReaderEvent
from tests.readers.device import DeviceEmulator


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def report(name: str, samples: list[float]) -> float:
    ms = [s * 1000 for s in samples]
    p99 = percentile(ms, 0.99)
    print(
        f"{name:<34} n={len(ms):5d}  p50={statistics.median(ms):6.3f} ms  p99={p99:6.3f} ms  max={max(ms):6.3f} ms"
    )
    return p99


def uid(i: int) -> str:
    return f"04{i:012X}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=2000, help="events per measurement")
    args = parser.parse_args()

    master, slave = os.openpty()
    with tempfile.TemporaryDirectory() as tmp:
        link = Path(tmp) / "tablepi-reader"
        link.symlink_to(os.ttyname(slave))
        device = DeviceEmulator(master, heartbeat=None)
        reader = open_reader("serial", port=str(link))
        deadline = time.monotonic() + 5
        while sum(1 for z in reader.states if z.name == "ONLINE") < 4:
            reader.recv(0.05)
            if time.monotonic() > deadline:
                print("reader did not come online", file=sys.stderr)
                return 1

        def one(i: int, wait: object) -> float:
            zone = i % 4
            msg: p.Message = p.Place(zone, uid(i)) if (i // 4) % 2 == 0 else p.Lift(zone, uid(i - 4))
            line = device.encode(msg)
            start = time.perf_counter()
            device.send_raw(line)
            ev = wait()  # type: ignore[operator]
            elapsed = time.perf_counter() - start
            assert isinstance(ev, ZoneEvent) and ev.zone == zone, ev
            return elapsed

        direct = [one(i, lambda: reader.recv(1.0)) for i in range(args.n)]
        worst = report("serial: line -> recv()", direct)

        q: queue.Queue[ReaderEvent] = queue.Queue()
        with ReaderPump(reader, q.put, poll=0.1):
            base = args.n + (4 - args.n % 4) % 4 + 8  # keep place/lift alternation per zone
            pumped = [one(base + i, lambda: q.get(timeout=1.0)) for i in range(args.n)]
        worst = max(worst, report("serial: line -> pump -> queue.get()", pumped))
        print(f"counters: {dict(reader.health().counters)}")
        reader.close()
        device.close()
        os.close(slave)

    line = p.encode_line(1234, p.Place(2, "04A1B2C3D4E5F6"))
    rounds = 20000
    start = time.perf_counter()
    for _ in range(rounds):
        p.parse_line(line)
    per = (time.perf_counter() - start) / rounds
    print(f"{'protocol: parse_line':<34} {per * 1e6:6.1f} us per line ({1 / per:,.0f} lines/s)")
    print(f"target p99 < 2 ms: {'met' if worst < 2.0 else 'NOT met'} (worst p99 {worst:.3f} ms)")
    return 0 if worst < 2.0 else 1


if __name__ == "__main__":
    sys.exit(main())
