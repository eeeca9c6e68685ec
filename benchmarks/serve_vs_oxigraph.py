"""``kg serve`` against the Oxigraph server on the same quads: throughput and p99 of a closed-loop load.

Loads the N-Quads of a store (the bundled catalog, built here into a temporary store,
unless --store is given) into an Oxigraph server (``oxigraph load``, then
``oxigraph serve-read-only --union-default-graph`` on loopback) and starts ``kg serve``
(--workers 2) on loopback over the store itself. Then, for each round, each number of
clients and each workload, one timed run on each server, interleaved: the two sides take
turns of --slice seconds (the side that starts alternating) until each has had --seconds,
so that both meet the same background load on a shared machine. A run is ``clients``
threads, one keep-alive ``http.client`` connection each, each sending its next query when
the previous answer is in (a closed loop), cycling through four typical queries:

- protocol-support: a GROUP BY over every system's protocol readings;
- one-system: one system's facts (every statement about it);
- mcp-list: the systems that support MCP, ORDER BY name, LIMIT 50;
- name-filter: the systems whose name contains "memory" (a FILTER over every name).

Two workloads: ``repeated`` sends the same four texts again (as pages and agents do);
``cold`` makes every text new (a comment with a fresh number as its first line), so
nothing the server remembers of a text can answer it. Every answer must be a 200;
before the load, both servers must give the same rows for each query.

The client runs in this process: its CPU time per run is reported beside the servers'
(from /proc), so a client that saturates its core would show. The machine's load average
is read before and after each run.

    python benchmarks/serve_vs_oxigraph.py --seconds 6 --rounds 2 \\
        --output benchmarks/results/serve_vs_oxigraph.md --report benchmarks/REPORT.md
"""

from __future__ import annotations

import argparse
import http.client
import itertools
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import urlencode, urlsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from serve_load import start_server  # noqa: E402
from serve_vs_oxigraph_report import (ACCEPT, QUERIES, SIDES, WORKLOADS, Run, report, report_section,  # noqa: E402
                                      summary_rows, write_section)

KG_TIMEOUT_S = 10.0  # kg serve's own default

# ---------------------------------------------------------------------------
# The two servers


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def build_store(work: Path) -> Path:
    """The bundled catalog ingested into a fresh store under ``work``."""
    from kg.ingestion import ingest_paths
    from kg.sources import bundled_paths
    from kg.store import GraphStore

    path = work / "kg-store"
    store = GraphStore(path)
    ingest_paths(store, bundled_paths())
    store.flush()
    del store
    return path


def dump_nquads(store_path: Path, target: Path) -> int:
    """The store's quads written to ``target`` as N-Quads; how many there are."""
    from kg.store import GraphStore

    store = GraphStore.open_existing(store_path, read_only=True)
    store.dump(str(target), "nquads")
    count = len(store)
    del store
    return count


def start_oxigraph(nquads: Path, work: Path) -> tuple[subprocess.Popen, str]:
    binary, location = shutil.which("oxigraph") or str(Path(sys.executable).parent / "oxigraph"), work / "oxigraph"
    if not os.path.exists(binary):
        raise SystemExit("no oxigraph command: pip install oxigraph (it is in kg's test extra)")
    subprocess.run([binary, "load", "--location", str(location), "--file", str(nquads)], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    port = free_port()
    process = subprocess.Popen([binary, "serve-read-only", "--location", str(location), "--bind",
                                f"127.0.0.1:{port}", "--union-default-graph"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    wait_listening(port, process)
    return process, url + "/query"


def start_kg(store: Path, workers: int) -> tuple[subprocess.Popen, str]:
    """``kg serve --workers N`` on the store (serve_load's start, kg serve's default timeout): its /sparql URL."""
    process, base = start_server(str(store), workers, KG_TIMEOUT_S)
    return process, base + "/sparql"


def wait_listening(port: int, process: subprocess.Popen, seconds: float = 60.0) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"the server exited with {process.returncode}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.1)
    raise SystemExit(f"nothing listens on port {port}")


def cpu_seconds(pid: int) -> float:
    """CPU seconds used so far by ``pid`` and its live descendants (from /proc; 0 elsewhere)."""
    tick = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
    parents: dict[int, int] = {}
    times: dict[int, float] = {}
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parents[int(entry.name)] = int(fields[1])
        times[int(entry.name)] = (int(fields[11]) + int(fields[12])) / tick
    family, frontier = {pid}, [pid]
    while frontier:
        parent = frontier.pop()
        children = [p for p, pp in parents.items() if pp == parent and p not in family]
        family.update(children)
        frontier += children
    return sum(times.get(p, 0.0) for p in family)


# ---------------------------------------------------------------------------
# The load


def request_path(url: str, text: str) -> str:
    return urlsplit(url).path + "?" + urlencode({"query": text})


_FRESH = itertools.count()  # numbers of cold texts: never the same twice in one sitting
_SITTING = f"{os.getpid()}-{time.time_ns()}"


def ask(url: str, text: str) -> tuple[int, bytes]:
    parts = urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port, timeout=60)
    try:
        connection.request("GET", request_path(url, text), headers={"Accept": ACCEPT})
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


def rows_of(body: bytes) -> list[tuple]:
    bindings = json.loads(body)["results"]["bindings"]
    return sorted(tuple(sorted((k, v["type"], v["value"]) for k, v in row.items())) for row in bindings)


def run_load(side: str, url: str, pid: int, workload: str, clients: int, seconds: float) -> Run:
    """``clients`` closed-loop clients for ``seconds`` against ``url``."""
    parts = urlsplit(url)
    run = Run(side, workload, clients)
    names = list(QUERIES)
    fresh = _FRESH if workload == "cold" else None
    lock = threading.Lock()
    start = threading.Barrier(clients + 1)
    deadline = [0.0]

    def client(index: int) -> None:
        connection = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port, timeout=60)
        mine: list[float] = []
        errors: list[str] = []
        position = index
        start.wait()
        while time.perf_counter() < deadline[0]:
            text = QUERIES[names[position % len(names)]]
            position += 1
            if fresh is not None:
                text = f"# cold {_SITTING} {next(fresh)}\n" + text
            began = time.perf_counter()
            try:
                connection.request("GET", request_path(url, text), headers={"Accept": ACCEPT})
                response = connection.getresponse()
                body = response.read()
                if response.status != 200:
                    errors.append(f"{response.status} {body[:100]!r}")
            except (OSError, http.client.HTTPException) as err:
                errors.append(str(err))
                connection.close()
                connection = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port, timeout=60)
            mine.append(time.perf_counter() - began)
        connection.close()
        with lock:
            run.latencies += mine
            run.errors += errors

    threads = [threading.Thread(target=client, args=(i,), daemon=True) for i in range(clients)]
    for thread in threads:
        thread.start()
    load_before = os.getloadavg()[0]
    cpu_client, cpu_server = time.process_time(), cpu_seconds(pid)
    began = time.perf_counter()
    deadline[0] = began + seconds
    start.wait()
    for thread in threads:
        thread.join()
    run.seconds = time.perf_counter() - began
    run.client_cpu = time.process_time() - cpu_client
    run.server_cpu = cpu_seconds(pid) - cpu_server
    run.requests = len(run.latencies)
    run.load = (load_before, os.getloadavg()[0])
    return run


def paired_runs(servers: dict, workload: str, clients: int, seconds: float, piece: float,
                first: int) -> dict[str, Run]:
    """One run a side, taken in turns of ``piece`` seconds (the side that starts alternating),
    so that both sides meet the same background load on a shared machine."""
    done = {side: Run(side, workload, clients) for side in SIDES}
    turns = max(1, round(seconds / piece))
    for turn in range(turns):
        order = SIDES if (turn + first) % 2 == 0 else SIDES[::-1]
        for side in order:
            process, url = servers[side]
            part = run_load(side, url, process.pid, workload, clients, seconds / turns)
            whole = done[side]
            whole.latencies += part.latencies
            whole.errors += part.errors
            whole.requests += part.requests
            whole.seconds += part.seconds
            whole.client_cpu += part.client_cpu
            whole.server_cpu += part.server_cpu
            whole.load = (part.load[0], part.load[1]) if turn == 0 else (whole.load[0], part.load[1])
    return done


# ---------------------------------------------------------------------------
# The run


def check_same_answers(ox_url: str, kg_url: str) -> None:
    for name, text in QUERIES.items():
        answers = [ask(url, text) for url in (ox_url, kg_url)]
        for status, body in answers:
            if status != 200:
                raise SystemExit(f"{name}: {status} {body[:200]!r}")
        ox_rows, kg_rows = (rows_of(body) for _, body in answers)
        if ox_rows != kg_rows or not ox_rows:
            raise SystemExit(f"{name}: the servers differ ({len(ox_rows)} rows against {len(kg_rows)})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--store", help="a kg store (default: the bundled catalog, built into a temporary one)")
    parser.add_argument("--seconds", type=float, default=6.0, help="seconds per run")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--slice", type=float, default=2.0,
                        help="seconds of each turn: the sides take turns within a run")
    parser.add_argument("--levels", default="1,8,32", help="numbers of clients")
    parser.add_argument("--workloads", default=",".join(WORKLOADS))
    parser.add_argument("--workers", type=int, default=2, help="kg serve --workers")
    parser.add_argument("--output", help="write the markdown report here")
    parser.add_argument("--report", help="put the summary table into this REPORT.md")
    args = parser.parse_args()
    levels = [int(n) for n in args.levels.split(",")]
    workloads = [w for w in args.workloads.split(",") if w]
    started = time.strftime("%Y-%m-%d %H:%M")
    with tempfile.TemporaryDirectory(prefix="kg-vs-oxigraph-") as tmp:
        work = Path(tmp)
        store = Path(args.store) if args.store else build_store(work)
        quads = dump_nquads(store, work / "all.nq")
        ox, ox_url = start_oxigraph(work / "all.nq", work)
        kg, kg_url = start_kg(store, args.workers)
        servers = {"oxigraph": (ox, ox_url), "kg": (kg, kg_url)}
        runs: list[Run] = []
        try:
            check_same_answers(ox_url, kg_url)
            for side, (process, url) in servers.items():  # warm-up, not reported
                run_load(side, url, process.pid, "repeated", 4, 1.0)
            for round_ in range(args.rounds):
                for clients in levels:
                    for workload in workloads:
                        first = (round_ + clients + len(workload)) % 2
                        done = paired_runs(servers, workload, clients, args.seconds, args.slice, first)
                        for side in SIDES:
                            print(f"round {round_ + 1} {workload:8} {clients:3} clients {side:8} "
                                  f"{done[side].qps:6.0f} qps p99 {done[side].p99_ms:6.1f} ms "
                                  f"errors {len(done[side].errors)} load {os.getloadavg()[0]:.1f}",
                                  file=sys.stderr)
                        runs += [done["oxigraph"], done["kg"]]
        finally:
            for process, _ in servers.values():
                process.terminate()
                process.wait(30)
    rows = summary_rows(runs, levels)
    text = report(runs, rows, args, quads, started)
    print(text)
    if args.output:
        Path(args.output).parent.mkdir(parents=True, exist_ok=True)
        Path(args.output).write_text(text, encoding="utf-8")
        if args.report:
            write_section(Path(args.report), report_section(Path(args.output)))


if __name__ == "__main__":
    main()
