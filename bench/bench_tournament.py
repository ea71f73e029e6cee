"""A big tournament on this machine: N simulated tables at S times real speed through a real mosquitto.

Run: ``python bench/bench_tournament.py [--tables 200] [--speed 10] [--seconds 60] [--journals DIR]``.

The tournament server runs as its own process (``tablepi tournament``, as in a real tournament), so its CPU time
and peak RSS are its own. The tables run in this process: each is a :class:`~tablepi.tournament.simulate.
SimulatedTable` (sim reader, app, journal with fsync, the real feed publisher and its paho client), driven by a
scheduler that moves every table's virtual clock at ``speed`` times the wall clock. A thread here reads the
projector's standings stream (``/standings/events``) like a browser would, and for every deal scored at a table
measures the time from the table journaling the scoring gesture to the standings stream showing that deal.

Prints: the speed the tables really reached, events/s through the server, deal-end -> standings-stream latency
p50/p99/max, the server's CPU (seconds and % of one core) and peak RSS. Journals go to a tmpfs (/dev/shm) when
there is one: the tables' fsyncs are the Pis' business, not the server's.
"""

from __future__ import annotations

import argparse
import heapq
import http.client
import json
import multiprocessing
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import Any

from tablepi.feed.broker import SERVER_USER, Mosquitto, free_port, table_user
from tablepi.feed.config import FeedConfig
from tablepi.tournament.simulate import SimulatedTable


def _percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


class Stream(threading.Thread):
    """Reads /standings/events; records when each table's deal count first reached each number."""

    def __init__(self, port: int) -> None:
        super().__init__(daemon=True)
        self.port = port
        self.seen: dict[tuple[str, int], float] = {}
        self.applied: dict[tuple[str, int], float] = {}  # when the server applied it (its own clock)
        self.updates = 0
        self.stop = False

    def run(self) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        conn.request("GET", "/standings/events")
        response = conn.getresponse()
        best: dict[str, int] = {}
        buffer = b""
        while not self.stop:
            try:
                chunk = response.read1(65536)
            except (OSError, http.client.HTTPException):
                break  # the server stopped
            if not chunk:
                break
            buffer += chunk
            while b"\n\n" in buffer:
                block, buffer = buffer.split(b"\n\n", 1)
                if not block.startswith(b"data: "):
                    continue
                now = time.time()
                self.updates += 1
                for table, progress in json.loads(block[6:]).get("tables", {}).items():
                    for n in range(best.get(table, 0) + 1, progress["deals"] + 1):
                        self.seen.setdefault((table, n), now)
                        self.applied.setdefault((table, n), progress.get("scored_at", 0.0))
                    best[table] = max(best.get(table, 0), progress["deals"])


def _post(port: int, path: str, body: bytes, headers: dict[str, str]) -> http.client.HTTPResponse:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request("POST", path, body, headers)
    return conn.getresponse()


def _server_usage(pid: int) -> tuple[float, int]:
    """(CPU seconds, peak RSS in kB) of a process, from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    cpu = (int(fields[11]) + int(fields[12])) / ticks
    peak = 0
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            peak = int(line.split()[1])
    return cpu, peak


def table_worker(names: list[str], port: int, passwords: dict[str, str], work: str, speed: float,
                 seconds: float, pipe: Connection) -> None:
    """One process's share of the tables: connect, wait for the seating, play on a common start, report."""
    sims = []
    for name in names:
        feed = FeedConfig(enabled=True, host="127.0.0.1", port=port, table=name, password=passwords[name])
        sims.append(SimulatedTable(name, Path(work) / f"t{name}", feed).connect())
    pipe.send("connected")
    deadline = time.monotonic() + 120
    for sim in sims:
        while sim.app.seating is None and time.monotonic() < deadline:
            sim.drain()
            time.sleep(0.01)
        sim.new_match(int(sim.name))
    pipe.send("seated")
    start = pipe.recv()
    elapsed, lag, ends = run(sims, speed, seconds, start)
    time.sleep(1.0)
    pipe.send({
        "elapsed": elapsed, "lag": lag, "ends": ends,
        "events": sum(len(sim.journaled.journal) for sim in sims),
        "published": sum(sim.feed.published for sim in sims if sim.feed is not None),
        "backlog": sum(sim.feed.backlog for sim in sims if sim.feed is not None),
    })
    for sim in sims:
        sim.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--speed", type=float, default=10.0, help="virtual seconds per wall second")
    parser.add_argument("--seconds", type=float, default=60.0, help="wall seconds of play")
    parser.add_argument("--procs", type=int, default=2, help="processes the simulated tables are spread over")
    parser.add_argument("--journals", default=None, help="where the tables' journals go (default: tmpfs)")
    args = parser.parse_args()

    base = Path(args.journals) if args.journals else Path("/dev/shm" if Path("/dev/shm").is_dir() else
                                                            tempfile.gettempdir())
    work = Path(tempfile.mkdtemp(prefix="tablepi-bench-", dir=base))
    tables = [str(i) for i in range(1, args.tables + 1)]
    broker = Mosquitto.for_tables(work / "broker", tables).start()
    web_port = free_port()
    pairs = ", ".join(f'["a{i}", "b{i}"]' for i in range(2 * args.tables))
    config = work / "tournament.toml"
    config.write_text(f"""
[tournament]
name = "Bench"
format = "pairs"
round = "partie"
rounds = 1
pairs = [{pairs}]
store = "{work / 'server.sqlite3'}"
[broker]
host = "127.0.0.1"
port = {broker.port}
password = "{broker.passwords[SERVER_USER]}"
[web]
port = {web_port}
director_password = "bench"
overlay_token = "bench"
""")
    server = subprocess.Popen([sys.executable, "-m", "tablepi", "tournament", str(config), "--log-level",
                               "WARNING"])
    context = multiprocessing.get_context("spawn")
    workers: list[tuple[BaseProcess, Connection]] = []
    stream: Stream | None = None
    results: list[dict[str, Any]] = []
    cookie = ""
    try:
        _wait_http(web_port)
        passwords = {t: broker.passwords[table_user(t)] for t in tables}
        for i in range(args.procs):
            mine, theirs = context.Pipe()
            share = tables[i :: args.procs]
            process = context.Process(target=table_worker, args=(share, broker.port, passwords, str(work),
                                                                  args.speed, args.seconds, theirs))
            process.start()
            workers.append((process, mine))
        for _, pipe in workers:
            assert pipe.recv() == "connected"
        login = _post(web_port, "/login", urllib.parse.urlencode({"password": "bench", "who": "bench"}).encode(),
                      {"Content-Type": "application/x-www-form-urlencoded"})
        cookie = login.getheader("set-cookie", "").split(";")[0]
        started = _post(web_port, "/director/next-round", b"{}", {"Cookie": cookie, "Content-Type":
                                                                   "application/json"})
        assert started.status == 200, started.read()
        for _, pipe in workers:
            assert pipe.recv() == "seated"
        stream = Stream(web_port)
        stream.start()
        time.sleep(0.5)
        cpu0, _ = _server_usage(server.pid)
        start = time.monotonic() + 0.5
        for _, pipe in workers:
            pipe.send(start)
        for process, pipe in workers:
            results.append(pipe.recv())
            process.join(30)
        time.sleep(1.0)
        stats: dict[str, Any] = {}
        try:
            conn = http.client.HTTPConnection("127.0.0.1", web_port, timeout=10)
            conn.request("GET", "/director/stats.json", headers={"Cookie": cookie})
            stats = json.loads(conn.getresponse().read())
        except Exception as error:  # the figures below say what is missing
            print("stats unavailable:", error)
        cpu, peak = _server_usage(server.pid)
    finally:
        if stream is not None:
            stream.stop = True
        for process, _ in workers:
            if process.is_alive():
                process.terminate()
        server.terminate()
        server.wait(10)
        broker.stop()
        shutil.rmtree(work, ignore_errors=True)
    report(args, results, stream, stats, cpu - cpu0, peak)


def _wait_http(port: int) -> None:
    deadline = time.monotonic() + 30
    while True:
        try:
            http.client.HTTPConnection("127.0.0.1", port, timeout=1).request("GET", "/standings.json")
            return
        except OSError:
            if time.monotonic() > deadline:
                raise RuntimeError("the tournament server did not start") from None
            time.sleep(0.1)


def run(sims: list[SimulatedTable], speed: float, seconds: float,
        start: float) -> tuple[float, float, dict[tuple[str, int], float]]:
    """Every table's virtual clock at ``speed`` x the wall clock from ``start`` (monotonic, shared by all the
    processes); returns (elapsed, worst lag in virtual seconds, when each deal was scored)."""
    while time.monotonic() < start:
        time.sleep(0.01)
    origin = {sim.name: sim.clock.now for sim in sims}
    heap = [(sim.next_time - origin[sim.name], i) for i, sim in enumerate(sims)]
    heapq.heapify(heap)
    lag = 0.0
    ends: dict[tuple[str, int], float] = {}
    while heap:
        when, i = heap[0]
        now = time.monotonic()
        if now - start > seconds:
            break
        virtual = (now - start) * speed
        if when > virtual:
            time.sleep(min(0.01, (when - virtual) / speed))
            continue
        heapq.heappop(heap)
        lag = max(lag, virtual - when)
        sim = sims[i]
        before = len(sim.journaled.state.slate)
        sim.step()
        if len(sim.journaled.state.slate) > before:
            ends[(sim.name, len(sim.journaled.state.slate))] = time.time()
        if sim.playing:
            heapq.heappush(heap, (sim.next_time - origin[sim.name], i))
    return time.monotonic() - start, lag, ends


def report(args: argparse.Namespace, results: list[dict[str, Any]], stream: Stream | None, stats: dict[str, Any],
           cpu: float, peak: int) -> None:
    elapsed = max((r["elapsed"] for r in results), default=0.0)
    lag = max((r["lag"] for r in results), default=0.0)
    ends: dict[tuple[str, int], float] = {}
    for r in results:
        ends.update(r["ends"])
    events = sum(r["events"] for r in results)
    published = sum(r["published"] for r in results)
    backlog = sum(r["backlog"] for r in results)
    latencies = [stream.seen[key] - t for key, t in ends.items() if stream and key in stream.seen]
    to_server = [stream.applied[key] - t for key, t in ends.items() if stream and key in stream.applied]
    to_page = [stream.seen[key] - stream.applied[key] for key in ends if stream and key in stream.applied]
    missing = len(ends) - len(latencies)
    print(f"bench_tournament: {args.tables} tables in {args.procs} processes, {elapsed:.0f} s at {args.speed:g}x "
          f"(worst scheduling lag {lag:.1f} virtual s: the tables kept up with {args.speed:g}x "
          f"{'yes' if lag < 5 else 'NO'})")
    print(f"  tables journaled {events} events ({events / max(elapsed, 1e-9):.0f}/s), published {published} "
          f"messages ({backlog} still unacknowledged at the end)")
    if stats:
        print(f"  server: received {stats['received']} messages, applied {stats['applied']}, "
              f"{stats['received'] / max(elapsed, 1e-9):.0f} messages/s, duplicates {stats['duplicates']}, "
              f"waiting {stats['waiting']}")
    if latencies:
        print(f"  deal end -> standings stream: {len(latencies)} deals, p50 {_percentile(latencies, 0.5) * 1000:.0f} "
              f"ms, p99 {_percentile(latencies, 0.99) * 1000:.0f} ms, max {max(latencies) * 1000:.0f} ms"
              f"{f', {missing} not seen' if missing else ''} (stream updates: {stream.updates if stream else 0})")
        print(f"    of which table -> broker -> server applied: p50 {_percentile(to_server, 0.5) * 1000:.0f} ms, "
              f"p99 {_percentile(to_server, 0.99) * 1000:.0f} ms; server applied -> stream: "
              f"p50 {_percentile(to_page, 0.5) * 1000:.0f} ms, p99 {_percentile(to_page, 0.99) * 1000:.0f} ms")
    share = 100 * cpu / max(elapsed, 1e-9)
    print(f"  server CPU {cpu:.1f} s = {share:.0f}% of one core; peak RSS {peak / 1024:.0f} MB")


if __name__ == "__main__":
    main()
