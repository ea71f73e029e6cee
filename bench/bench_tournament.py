"""A big tournament on this machine: N simulated tables at S times real speed through a real mosquitto.

Run: ``python bench/bench_tournament.py [--tables 200] [--speed 10] [--seconds 60] [--runs 3] [--live]
[--pages 1500] [--poison-rates 250,1000,4000] [--distinct 20]``.

Three scenarios in one invocation, on the same recorded tables: ``base``; ``pages`` — the same with ``--pages``
projector pages connected to ``/standings/events`` the whole run (sockets read and discarded, as many browsers
would); ``poison`` — the same while a client with its own table's password (a table that is not seated)
publishes messages the server must quarantine (nested too deep, not JSON, speaking for another table), one run per
rate of ``--poison-rates``: the highest rate at which the other tables' deal end -> standings stays under 1 s p99
is what the server can absorb.

The tournament server runs as its own process (``tablepi tournament``, as in a real tournament), so its CPU time
and peak RSS are its own. The tables are the demo's simulated players through the real table path — sim reader,
app, journal, table and rules code — recorded beforehand (every table its own seed, at least ``seconds x speed``
of its own clock) and then sent as its feed sends them: its own broker user and connection, the same messages,
QoS 1, each event at its time on the table's clock at ``speed`` times the wall clock. Recorded, because 200 whole
tables playing live in one machine's two cores (``--live``: app, journal fsync, feed thread and paho client each)
need more CPU than the server and reached only about 5x; a real table is a Pi of its own. The connections of a
process's tables are driven from one thread (paho's external loop over a selector). ``--distinct N`` records only
N tables and gives each of the others one of those recordings under journal ids of its own, started a few virtual
seconds later than the table it copies (recording 200 tables took most of an hour on a loaded 2-core machine; the
server cannot tell: every table is its own user, connection and journals).

A thread here reads the projector's standings stream (``/standings/events``) like a browser would, and for every
deal scored in a table's first match measures the time from the table handing the scoring event to its MQTT client
to the standings stream showing that deal. Left out: the table's own journaling before it sends (an fsync on the
Pi), the network between a Pi and the broker (loopback here), and the browser drawing the page.

Prints per run: how well the tables kept to the speed (worst lag), events/s through the server, deal-end ->
standings-stream latency p50/p99/max, the server's CPU (% of one core) and peak RSS; with ``--runs`` > 1 the
min / median / max of each over the runs. Journals go to a tmpfs (/dev/shm) when there is one.
"""

from __future__ import annotations

import argparse
import contextlib
import heapq
import http.client
import json
import multiprocessing
import os
import pickle
import shutil
import statistics
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

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tablepi.feed.broker import SERVER_USER, Mosquitto, free_port, table_user
from tablepi.feed.config import FeedConfig
from tests.tournament.simulate import SimulatedTable


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


class Pages(threading.Thread):
    """``count`` open /standings/events streams, every byte read and dropped (the projectors and phones)."""

    def __init__(self, port: int, count: int) -> None:
        super().__init__(daemon=True)
        import selectors
        import socket

        self.selector = selectors.DefaultSelector()
        self.socks = []
        self.refused = 0
        for _ in range(count):
            sock = socket.create_connection(("127.0.0.1", port), 30)
            sock.sendall(b"GET /standings/events HTTP/1.1\r\nHost: bench\r\n\r\n")
            sock.setblocking(False)
            self.selector.register(sock, selectors.EVENT_READ)
            self.socks.append(sock)
        self.bytes = 0
        self.stop = False

    def run(self) -> None:
        while not self.stop:
            for key, _ in self.selector.select(0.2):
                try:
                    data = key.fileobj.recv(65536)  # type: ignore[union-attr]
                except OSError:
                    data = b""
                if data.startswith(b"HTTP/1.1 503"):
                    self.refused += 1
                if not data:
                    self.selector.unregister(key.fileobj)
                self.bytes += len(data)

    def close(self) -> None:
        self.stop = True
        self.join(5)
        for sock in self.socks:
            sock.close()


def poisoner(port: int, password: str, rate: float, seconds: float, start: float, pipe: Connection) -> None:
    """Publishes ``rate`` unreadable messages a second on the events topic of table ``poison`` (its own password:
    it is not seated), QoS 1, from ``start`` for ``seconds``."""
    from tablepi.feed.client import make_client

    feed = FeedConfig(enabled=True, host="127.0.0.1", port=port, table="poison", password=password)
    client = make_client(feed, "poisoner")
    client.connect("127.0.0.1", port, 60)
    client.loop_start()
    kinds = [b'{"v":1,"table":"poison","journal":"x","seq":1,"event":' + b"[" * 2000 + b"]" * 2000 + b"}",
             b"\xff not text", b'{"v":1,"table":"7","journal":"j","seq":1,"event":{}}']
    while time.monotonic() < start:
        time.sleep(0.005)
    sent = 0
    while time.monotonic() - start < seconds:
        due = int((time.monotonic() - start) * rate)
        while sent < due:
            client.publish("tablepi/v1/tables/poison/events", kinds[sent % len(kinds)], qos=1)
            sent += 1
        time.sleep(0.002)
    client.disconnect()
    client.loop_stop()
    pipe.send(sent)


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
    """``--live``: one process's share of whole simulated tables (app, journal, feed thread and paho client each)
    playing on a common start."""
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
        "published": sum(sim.feed.health.published for sim in sims if sim.feed is not None),
        "backlog": sum(sim.feed.backlog for sim in sims if sim.feed is not None),
    })
    for sim in sims:
        sim.close()


# --- recorded tables: each table's journals made beforehand by the real table path, sent at their own times ----

#: One journal of a recorded table: (journal id, header object, [(seq, line, deals scored by it)]).
Recorded = tuple[str, dict[str, Any], list[tuple[int, str, int]]]


def copies(recorded: dict[str, list[Recorded]], distinct: list[str],
           tables: list[str]) -> dict[str, tuple[list[Recorded], float]]:
    """Every table's journals and start delay (virtual seconds): a recorded table its own; the others a copy of
    one, under journal ids of their own, each copy of the same one started later (up to 50 virtual s)."""
    out: dict[str, tuple[list[Recorded], float]] = {}
    rounds = -(-len(tables) // len(distinct))
    for i, name in enumerate(tables):
        original, copy = distinct[i % len(distinct)], i // len(distinct)
        journals = recorded[original]
        if copy:
            journals = [(f"{jid}-{name}", header, lines) for jid, header, lines in journals]
        out[name] = (journals, 50.0 * copy / rounds)
    return out


def record_table(name: str, work: str, virtual: float) -> list[Recorded]:
    """Play table ``name`` (its own seed) through the real path — sim reader, app, journal, table, rules — for at
    least ``virtual`` seconds of its own clock, without a feed; return its journals in the order they began, each
    event marked with the deals it scored."""
    from tablepi.feed.outbox import read_journal_file
    from tablepi.journal.record import parse_event, parse_header
    from tablepi.table import Table

    sim = SimulatedTable(name, Path(work) / f"rec{name}", FeedConfig(table=name))
    seed = int(name) * 7919
    while sim.clock.now < virtual:
        sim.new_match(seed)
        sim.play()
        seed += 1
    files = sim.journal_files()
    sim.close()
    out: list[Recorded] = []
    for path in files:
        found = read_journal_file(path, 0)
        if found is None:
            continue
        jid, header_obj, lines = found
        header = parse_header(header_obj, 0)
        table = Table(header.house_rules, header.dealer, header.table)
        previous, marked = 0.0, []
        for seq, line in lines:
            event = parse_event(json.loads(line), header, seq, previous)
            previous = event.time
            before, matches = len(table.matches[-1].slate.history), len(table.matches)
            table.advance(event)
            after = len(table.matches[-1].slate.history)
            marked.append((seq, line, max(0, after - before) if len(table.matches) == matches else 0))
        out.append((jid, header_obj, marked))
    shutil.rmtree(Path(work) / f"rec{name}", ignore_errors=True)
    return out


def _record_share(args: tuple[list[str], str, float]) -> dict[str, list[Recorded]]:
    names, work, virtual = args
    return {name: record_table(name, work, virtual) for name in names}


class RecordedTable:
    """One table's recorded journals sent as the table's feed would send them (its own broker user and
    connection, the same messages, QoS 1), each event at its own time on the table's clock."""

    def __init__(self, name: str, journals: list[Recorded], port: int, password: str, delay: float = 0.0) -> None:
        from tablepi.feed.client import make_client
        from tablepi.feed.messages import events_topic

        self.name = name
        self.topic = events_topic("tablepi/v1", name)
        self.items: list[tuple[float, bytes, int]] = []  # (virtual time, payload, deals scored)
        for index, (jid, header, lines) in enumerate(journals, start=1):
            head = {"v": 1, "kind": "header", "table": name, "journal": jid, "seq": 0, "index": index,
                    "header": header}
            # A table claims its round once, with its first match (begun in its first journal); the matches it
            # plays on in later journals under the same seating carry no round, as a real table's feed sends them.
            number = "1" if index == 1 else "null"
            for seq, line, scored in lines:
                t = float(json.loads(line)["t"])
                if seq == 1:
                    self.items.append((t, json.dumps(head).encode(), 0))
                self.items.append((t, (f'{{"v":1,"kind":"event","table":{json.dumps(name)},"journal":"{jid}",'
                                       f'"seq":{seq},"round":{number},"event":{line}}}').encode(), scored))
        self.first_journal = len(journals[0][2]) + 1 if journals else 0  # its items (header included)
        self.origin = (self.items[0][0] if self.items else 0.0) - delay  # a copy starts ``delay`` later
        self.index = 0
        self.deals = 0
        self.acked = 0
        feed = FeedConfig(enabled=True, host="127.0.0.1", port=port, table=name, password=password)
        self.client = make_client(feed, f"tablepi-table-{name}")
        self.client.on_publish = self._on_publish
        self.client.connect("127.0.0.1", port, 60)

    def _on_publish(self, client: Any, userdata: Any, mid: int, reason: Any, properties: Any = None) -> None:
        self.acked += 1

    def next_time(self) -> float:
        return self.items[self.index][0] - self.origin if self.index < len(self.items) else float("inf")

    def send_next(self) -> int:
        """Publish the next message; the deals it scored in the table's first match (0 otherwise)."""
        _, payload, scored = self.items[self.index]
        first = self.index < self.first_journal
        self.index += 1
        self.client.publish(self.topic, payload, qos=1)
        return scored if first else 0


def recorded_worker(tables: dict[str, tuple[list[Recorded], float]], port: int, passwords: dict[str, str],
                    speed: float, seconds: float, pipe: Connection) -> None:
    """``--recorded`` (default): one process's share of recorded tables, every connection driven from one
    thread (paho's external loop over a selector): the tables cost a few percent of a core, not the run."""
    import selectors

    recorded = [RecordedTable(name, journals, port, passwords[name], delay)
                for name, (journals, delay) in tables.items()]
    selector = selectors.DefaultSelector()
    by_fd: dict[int, RecordedTable] = {}
    for rt in recorded:
        sock = rt.client.socket()
        by_fd[sock.fileno()] = rt
        selector.register(sock, selectors.EVENT_READ, rt)
    def pump(timeout: float) -> None:
        for rt in recorded:
            if rt.client.want_write():
                rt.client.loop_write()
        for key, _ in selector.select(timeout):
            key.data.client.loop_read()
    settle = time.monotonic() + 2.0
    while time.monotonic() < settle:  # CONNACKs
        pump(0.05)
    pipe.send("connected")
    pipe.send("seated")
    start = pipe.recv()
    while time.monotonic() < start:
        pump(0.01)
    cpu = time.process_time()
    heap = [(rt.next_time(), i) for i, rt in enumerate(recorded)]
    heapq.heapify(heap)
    lag = 0.0
    ends: dict[tuple[str, int], float] = {}
    sent = 0
    misc = time.monotonic()
    while heap:
        now = time.monotonic()
        if now - start > seconds:
            break
        if now - misc > 1.0:
            misc = now
            for rt in recorded:
                rt.client.loop_misc()
        virtual = (now - start) * speed
        when, i = heap[0]
        if when > virtual:
            pump(min(0.005, (when - virtual) / speed))
            continue
        heapq.heappop(heap)
        lag = max(lag, virtual - when)
        rt = recorded[i]
        scored = rt.send_next()
        sent += 1
        if scored:
            rt.deals += scored
            ends[(rt.name, rt.deals)] = time.time()
        if rt.index < len(rt.items):
            heapq.heappush(heap, (rt.next_time(), i))
        if sent % 20 == 0:
            pump(0)
    elapsed = time.monotonic() - start
    drain = time.monotonic() + 5.0
    while time.monotonic() < drain and sum(rt.acked for rt in recorded) < sent:
        pump(0.05)
    acked = sum(rt.acked for rt in recorded)
    pipe.send({"elapsed": elapsed, "lag": lag, "ends": ends, "events": sent, "published": sent,
               "backlog": sent - acked, "cpu": time.process_time() - cpu})
    for rt in recorded:
        rt.client.disconnect()
        with contextlib.suppress(Exception):
            rt.client.loop_write()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--speed", type=float, default=10.0, help="virtual seconds per wall second")
    parser.add_argument("--seconds", type=float, default=60.0, help="wall seconds of play")
    parser.add_argument("--runs", type=int, default=3, help="runs (each with a fresh broker and server)")
    parser.add_argument("--procs", type=int, default=2, help="processes the simulated tables are spread over")
    parser.add_argument("--live", action="store_true",
                        help="whole simulated tables playing live (app, journal, feed thread each) instead of "
                             "recorded ones: the tables then need more CPU than the server")
    parser.add_argument("--journals", default=None, help="where the tables' journals go (default: tmpfs)")
    parser.add_argument("--pages", type=int, default=1500, help="open projector streams in the 'pages' scenario")
    parser.add_argument("--poison-rates", default="250,1000,4000",
                        help="quarantined messages per second tried in the 'poison' scenario (one run each)")
    parser.add_argument("--scenarios", default="base,pages,poison")
    parser.add_argument("--distinct", type=int, default=0, metavar="N",
                        help="record only N tables; the others send copies of them under journal ids of their own "
                             "(default: every table recorded)")
    parser.add_argument("--keep-recording", default=None, metavar="FILE",
                        help="keep the recorded tables in FILE and reuse them when it exists (same --tables, "
                             "--speed and --seconds)")
    args = parser.parse_args()

    base = Path(args.journals) if args.journals else Path("/dev/shm" if Path("/dev/shm").is_dir() else
                                                            tempfile.gettempdir())
    tables = [str(i) for i in range(1, args.tables + 1)]
    distinct = tables[: args.distinct] if 0 < args.distinct < args.tables else tables
    recorded: dict[str, list[Recorded]] = {}
    cache = Path(args.keep_recording) if args.keep_recording else None
    if not args.live and cache is not None and cache.exists():
        with cache.open("rb") as f:
            recorded = pickle.load(f)
        assert sorted(recorded) == sorted(distinct), f"{cache} holds other tables"
    elif not args.live:
        began = time.monotonic()
        scratch = tempfile.mkdtemp(prefix="tablepi-bench-rec-", dir=base)
        virtual = args.seconds * args.speed + 60.0
        with multiprocessing.get_context("spawn").Pool(args.procs) as pool:
            for part in pool.map(_record_share, [(distinct[i :: args.procs], scratch, virtual)
                                                 for i in range(args.procs)]):
                recorded.update(part)
        shutil.rmtree(scratch, ignore_errors=True)
        events = sum(len(lines) for journals in recorded.values() for _, _, lines in journals)
        print(f"recorded {len(distinct)} tables through the real table path: {events} events "
              f"({events / len(distinct):.0f} per table, {virtual:.0f} virtual s each) in "
              f"{time.monotonic() - began:.0f} s", flush=True)
        if cache is not None:
            with cache.open("wb") as f:
                pickle.dump(recorded, f)
    sending = copies(recorded, distinct, tables) if not args.live else {}
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(max(soft, args.pages + 1024), hard), hard))
    scenarios = args.scenarios.split(",")
    for scenario in ("base", "pages"):
        if scenario not in scenarios:
            continue
        print(f"--- scenario {scenario}" + (f": {args.pages} projector pages open" if scenario == "pages" else ""),
              flush=True)
        figures = []
        for number in range(1, args.runs + 1):
            figure = one_run(args, base, tables, sending, pages=args.pages if scenario == "pages" else 0)
            print(f"run {number}: " + ", ".join(f"{k} {v:.3g}" for k, v in figure.items()), flush=True)
            figures.append(figure)
        if len(figures) > 1:
            print(f"{scenario} over {len(figures)} runs (min / median / max):")
            for key in figures[0]:
                values = sorted(f[key] for f in figures)
                print(f"  {key}: {values[0]:.3g} / {statistics.median(values):.3g} / {values[-1]:.3g}")
    if "poison" in scenarios:
        print("--- scenario poison: one run per rate; absorbed while the others' p99 stays under 1 s", flush=True)
        absorbed = 0.0
        for rate in (float(r) for r in args.poison_rates.split(",")):
            figure = one_run(args, base, tables, sending, poison=rate)
            print(f"rate {rate:g}/s: " + ", ".join(f"{k} {v:.3g}" for k, v in figure.items()), flush=True)
            if figure.get("p99_ms", 1e9) < 1000:
                absorbed = max(absorbed, figure.get("quarantined_per_s", 0.0))
        print(f"poison: up to {absorbed:.0f} quarantined messages/s absorbed with deal end -> standings p99 < 1 s")


def one_run(args: argparse.Namespace, base: Path, tables: list[str], recorded: dict[str, tuple[list[Recorded], float]],
            pages: int = 0, poison: float = 0.0) -> dict[str, float]:
    work = Path(tempfile.mkdtemp(prefix="tablepi-bench-", dir=base))
    broker = Mosquitto.for_tables(work / "broker", [*tables, "poison"]).start()
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
max_streams = {max(2000, pages + 100)}
""")
    server = subprocess.Popen([sys.executable, "-m", "tablepi", "tournament", str(config), "--log-level",
                               "WARNING"])
    context = multiprocessing.get_context("spawn")
    workers: list[tuple[BaseProcess, Connection]] = []
    stream: Stream | None = None
    viewers: Pages | None = None
    poisoned: tuple[BaseProcess, Connection] | None = None
    results: list[dict[str, Any]] = []
    cookie = ""
    cpu0 = cpu = 0.0
    peak = 0
    try:
        _wait_http(web_port)
        passwords = {t: broker.passwords[table_user(t)] for t in tables}
        for i in range(args.procs):
            mine, theirs = context.Pipe()
            share = tables[i :: args.procs]
            if args.live:
                process = context.Process(target=table_worker, args=(share, broker.port, passwords, str(work),
                                                                      args.speed, args.seconds, theirs))
            else:
                process = context.Process(target=recorded_worker, args=(
                    {t: recorded[t] for t in share}, broker.port, passwords, args.speed, args.seconds, theirs))
            process.start()
            workers.append((process, mine))
        for _, pipe in workers:
            assert pipe.recv() == "connected"
        login = _post(web_port, "/login", urllib.parse.urlencode({"password": "bench", "who": "bench"}).encode(),
                      {"Content-Type": "application/x-www-form-urlencoded"})
        cookie = login.getheader("set-cookie", "").split(";")[0]
        conn = http.client.HTTPConnection("127.0.0.1", web_port, timeout=30)
        conn.request("GET", "/director", headers={"Cookie": cookie})
        page = conn.getresponse().read().decode()
        csrf = page.split('<meta name="csrf" content="', 1)[1].split('"', 1)[0]
        started = _post(web_port, "/director/next-round", b"{}", {"Cookie": cookie, "Content-Type":
                                                                   "application/json", "X-CSRF-Token": csrf})
        assert started.status == 200, started.read()
        for _, pipe in workers:
            assert pipe.recv() == "seated"
        stream = Stream(web_port)
        stream.start()
        if pages:
            viewers = Pages(web_port, pages)
            viewers.start()
        time.sleep(0.5)
        cpu0, _ = _server_usage(server.pid)
        start = time.monotonic() + 0.5
        if poison:
            mine, theirs = context.Pipe()
            process = context.Process(target=poisoner, args=(broker.port, broker.passwords[table_user("poison")],
                                                             poison, args.seconds, start, theirs))
            process.start()
            poisoned = (process, mine)
        for _, pipe in workers:
            pipe.send(start)
        for process, pipe in workers:
            results.append(pipe.recv())
            process.join(30)
        if poisoned is not None:
            results[0]["poison_sent"] = poisoned[1].recv()
            poisoned[0].join(30)
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
        if viewers is not None:
            results and results[0].update(pages_refused=viewers.refused, pages_bytes=viewers.bytes)
            viewers.close()
        if poisoned is not None and poisoned[0].is_alive():
            poisoned[0].terminate()
        if stream is not None:
            stream.stop = True
        for process, _ in workers:
            if process.is_alive():
                process.terminate()
        server.terminate()
        try:
            server.wait(30)  # 1,500 open streams take a moment to close
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        broker.stop()
        shutil.rmtree(work, ignore_errors=True)
    return report(args, results, stream, stats, cpu - cpu0, peak)


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
        before = len(sim.journaled.state.match.slate)
        sim.step()
        if len(sim.journaled.state.match.slate) > before:
            ends[(sim.name, len(sim.journaled.state.match.slate))] = time.time()
        if sim.playing:
            heapq.heappush(heap, (sim.next_time - origin[sim.name], i))
    return time.monotonic() - start, lag, ends


def report(args: argparse.Namespace, results: list[dict[str, Any]], stream: Stream | None, stats: dict[str, Any],
           cpu: float, peak: int) -> dict[str, float]:
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
    kind = "live" if args.live else "recorded"
    print(f"bench_tournament: {args.tables} {kind} tables in {args.procs} processes, {elapsed:.0f} s at "
          f"{args.speed:g}x (worst scheduling lag {lag:.1f} virtual s: the tables kept up with {args.speed:g}x "
          f"{'yes' if lag < 5 else 'NO'})")
    print(f"  tables sent {events} events ({events / max(elapsed, 1e-9):.0f}/s), published {published} "
          f"messages ({backlog} still unacknowledged at the end)")
    figure: dict[str, float] = {"worst_lag_virtual_s": lag, "load_average": os.getloadavg()[0]}
    if results and "pages_refused" in results[0]:
        figure["pages_refused"] = results[0]["pages_refused"]
        print(f"  {args.pages} pages open: {results[0]['pages_refused']} refused, "
              f"{results[0]['pages_bytes'] / 1e6:.1f} MB streamed to them")
    if stats:
        rate = stats["received"] / max(elapsed, 1e-9)
        figure["server_events_per_s"] = rate
        if results and "poison_sent" in results[0]:
            figure["quarantined_per_s"] = stats.get("quarantined", 0) / max(elapsed, 1e-9)
            print(f"  poison: {results[0]['poison_sent']} sent, {stats.get('quarantined', 0)} quarantined "
                  f"({figure['quarantined_per_s']:.0f}/s)")
        print(f"  server: received {stats['received']} messages, applied {stats['applied']}, "
              f"{rate:.0f} messages/s, duplicates {stats['duplicates']}, waiting {stats['waiting']}, "
              f"queued {stats.get('queued', 0)}")
    if latencies:
        p50, p99 = _percentile(latencies, 0.5), _percentile(latencies, 0.99)
        figure.update(p50_ms=p50 * 1000, p99_ms=p99 * 1000, max_ms=max(latencies) * 1000, deals=len(latencies))
        print(f"  deal end -> standings stream: {len(latencies)} deals, p50 {p50 * 1000:.0f} ms, "
              f"p99 {p99 * 1000:.0f} ms, max {max(latencies) * 1000:.0f} ms"
              f"{f', {missing} not seen' if missing else ''} (stream updates: {stream.updates if stream else 0})")
        print(f"    of which table -> broker -> server applied: p50 {_percentile(to_server, 0.5) * 1000:.0f} ms, "
              f"p99 {_percentile(to_server, 0.99) * 1000:.0f} ms; server applied -> stream: "
              f"p50 {_percentile(to_page, 0.5) * 1000:.0f} ms, p99 {_percentile(to_page, 0.99) * 1000:.0f} ms")
    share = 100 * cpu / max(elapsed, 1e-9)
    figure.update(server_cpu_pct=share, server_peak_rss_mb=peak / 1024)
    tables_cpu = sum(r.get("cpu", 0.0) for r in results)
    print(f"  server CPU {cpu:.1f} s = {share:.0f}% of one core; peak RSS {peak / 1024:.0f} MB; the tables' "
          f"processes {tables_cpu:.1f} s = {100 * tables_cpu / max(elapsed, 1e-9):.0f}% of one core"
          f"{'' if args.live else ' (sending only: recorded beforehand)'}; load average "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    return figure


if __name__ == "__main__":
    main()
