"""The review worker never outlives the table: a table killed with SIGKILL (no close(), no atexit) leaves no
worker process behind."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest

from tests.waits import wait_until

TABLE = """
import os, sys, time
from tablepi.analysis.worker import ReviewWorker
worker = ReviewWorker()
assert worker.start().result(60)
print(*[p.pid for p in worker._pool._processes.values()], flush=True)
time.sleep(600)  # a table that runs on until it is killed
"""


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie waiting for its reaper is gone for our purpose
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_killed_table_leaves_no_review_worker() -> None:
    table = subprocess.Popen([sys.executable, "-c", TABLE], stdout=subprocess.PIPE, text=True)
    try:
        assert table.stdout is not None
        workers = [int(pid) for pid in table.stdout.readline().split()]
        assert workers and all(_alive(pid) for pid in workers)
        table.send_signal(signal.SIGKILL)
        table.wait(10)
        wait_until(lambda: not any(_alive(pid) for pid in workers), "the review worker to end with its table",
                   every=0.1)
    finally:
        if table.poll() is None:
            table.kill()
            table.wait()
