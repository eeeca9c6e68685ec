"""Load on ``kg serve`` from a second process, over loopback, under attack.

Starts ``kg serve`` as a subprocess on a free port (over a store built from the bundled
catalog unless --store is given), then drives it from this process with N concurrent
clients (threads, one keep-alive connection each) that cycle through a mix of simple
named queries and system pages. Each level is bounded in requests and in time. All the
while, a runaway query (a cartesian product, sent again each time it is stopped at the
time limit) holds one worker, and --trickle slow connections (at most that many open at
once, from 127.0.0.2, a byte every 2 s, reconnecting when cut) try to hold the server's
connections. Reports throughput, p50 and p99 latency and errors per level, and what the
runaway query and the slow connections got.

``--kg-root DIR`` serves from another checkout (say, an older commit unpacked with
``git archive``) to compare stacks on one machine in one sitting.

    python benchmarks/serve_load.py --levels 1,8,32,64 --requests 300 --trickle 200 \\
        --output benchmarks/results/serve.md
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import platform
import re
import selectors
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path
from urllib.parse import urlencode, urlsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

PREFIXES = ("PREFIX kg: <https://w3id.org/agent-landscape/ontology#>\n"
            "PREFIX schema: <https://schema.org/>\nPREFIX dcterms: <http://purl.org/dc/terms/>\n")
QUERIES = {
    "count-systems": PREFIXES + "SELECT (COUNT(*) AS ?n) WHERE { ?s a kg:System }",
    "mcp-native": PREFIXES + """SELECT ?name WHERE { ?s schema:name ?name ; kg:protocolSupport ?ps .
  ?ps kg:protocol kg:MCP ; kg:supportMode kg:NativeSupport } ORDER BY ?name LIMIT 50""",
    "tier-histogram": PREFIXES + "SELECT ?tier (COUNT(*) AS ?n) WHERE { ?s a kg:System ; kg:tier ?tier } GROUP BY ?tier",
    "top-dependencies": PREFIXES + """SELECT ?dep (COUNT(?s) AS ?n) WHERE { ?s kg:runtimeDependency ?dep }
GROUP BY ?dep ORDER BY DESC(?n) LIMIT 10""",
    "one-system-cells": PREFIXES + """SELECT ?slug ?value WHERE { ?s dcterms:identifier "mem0--mem0-ai" ; kg:cell ?c .
  ?c kg:column/dcterms:identifier ?slug . OPTIONAL { ?c kg:value ?value } }""",
}
CARTESIAN = "SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i }"


def start_server(store: str, workers: int | None, timeout: float, root: Path = ROOT) -> tuple[subprocess.Popen, str]:
    cmd = [sys.executable, "-m", "kg.cli", "serve", "--store", store, "--port", "0", "--quiet",
           "--timeout", str(timeout)]
    if workers:
        cmd += ["--workers", str(workers)]
    env = {**os.environ, "PYTHONPATH": str(root)}
    process = subprocess.Popen(cmd, stderr=subprocess.PIPE, text=True, env=env)
    line = process.stderr.readline()
    match = re.search(r"SPARQL endpoint (http://[^ ]+)/sparql", line)
    if not match:
        process.kill()
        raise SystemExit(f"kg serve did not start: {line}{process.stderr.read()}")
    threading.Thread(target=process.stderr.read, daemon=True).start()  # drain
    return process, match.group(1)


def requests_mix(ids: list[str]) -> list[tuple[str, str, dict]]:
    mix = [(name, "/sparql?" + urlencode({"query": text}), {"Accept": "application/sparql-results+json"})
           for name, text in QUERIES.items()]
    mix += [("system-page", f"/id/system/{i}", {"Accept": "text/html"}) for i in ids[:5]]
    return mix


def run_level(url: str, clients: int, total: int, seconds: float, mix: list) -> dict:
    parts = urlsplit(url)
    latencies: list[float] = []
    errors: list[str] = []
    lock = threading.Lock()
    counter = iter(range(total))
    deadline = time.monotonic() + seconds

    def client(index: int) -> None:
        connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=60)
        position = index
        while time.monotonic() < deadline:
            with lock:
                if next(counter, None) is None:
                    break
            name, path, headers = mix[position % len(mix)]
            position += 1
            started = time.perf_counter()
            try:
                connection.request("GET", path, headers=headers)
                response = connection.getresponse()
                body = response.read()
                elapsed = time.perf_counter() - started
                ok = response.status == 200 and body
                if response.getheader("Connection", "").lower() == "close":
                    connection.close()
                    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=60)
            except (OSError, http.client.HTTPException) as err:
                elapsed = time.perf_counter() - started
                ok = False
                connection.close()
                connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=60)
                response = None
                body = str(err).encode()
            with lock:
                latencies.append(elapsed)
                if not ok:
                    errors.append(f"{name}: {getattr(response, 'status', 'no response')} {body[:120]!r}")
        connection.close()

    threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    wall = time.perf_counter() - started
    ordered = sorted(latencies)
    return {
        "clients": clients, "requests": len(latencies), "seconds": wall,
        "throughput": len(latencies) / wall if wall else 0.0,
        "p50_ms": 1000 * statistics.median(ordered) if ordered else 0.0,
        "p99_ms": 1000 * ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))] if ordered else 0.0,
        "errors": len(errors), "error_samples": errors[:5],
    }


def runaway(url: str, stop: threading.Event, result: Counter) -> None:
    """Send the cartesian product again each time it is stopped, until ``stop``."""
    parts = urlsplit(url)
    while not stop.is_set():
        connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=120)
        started = time.perf_counter()
        try:
            connection.request("GET", "/sparql?" + urlencode({"query": CARTESIAN}),
                               headers={"Accept": "application/sparql-results+json"})
            response = connection.getresponse()
            response.read()
            result[response.status] += 1
            result["seconds"] = max(result["seconds"], round(time.perf_counter() - started, 1))
        except (OSError, http.client.HTTPException):
            result["no answer"] += 1
        finally:
            connection.close()


def trickle(url: str, count: int, stop: threading.Event, result: Counter, source: str = "127.0.0.2") -> None:
    """Keep up to ``count`` connections from ``source`` sending a request head a byte every
    2 s; a connection the server ends is counted by what it got (503, 408, closed) and
    opened again a second later."""
    parts = urlsplit(url)
    selector = selectors.DefaultSelector()
    open_: dict[socket.socket, float] = {}  # socket -> when it next sends a byte
    retry_at = 0.0

    def end(sock: socket.socket, answer: bytes) -> None:
        nonlocal retry_at
        status = answer.split(b" ", 2)[1].decode() if answer.startswith(b"HTTP/1.") else "closed"
        result[status] += 1
        # refused: come back later (a real attacker would; hammering only measures the loop)
        retry_at = max(retry_at, time.monotonic() + (5.0 if status == "503" else 1.0))
        selector.unregister(sock)
        sock.close()
        del open_[sock]

    while not stop.is_set():
        now = time.monotonic()
        while len(open_) < count and now >= retry_at:
            try:
                sock = socket.create_connection((parts.hostname, parts.port), timeout=2, source_address=(source, 0))
                sock.sendall(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            except OSError:
                result["connect failed"] += 1
                retry_at = now + 1.0
                break
            sock.setblocking(False)
            selector.register(sock, selectors.EVENT_READ)
            open_[sock] = now + 2.0
            result["opened"] += 1
        for key, _ in selector.select(timeout=0.2):
            sock = key.fileobj  # type: ignore[assignment]
            try:
                answer = sock.recv(4096)
            except OSError:
                answer = b""
            end(sock, answer)
        for sock, when in list(open_.items()):
            if time.monotonic() >= when:
                try:
                    sock.send(b"X")
                    open_[sock] = time.monotonic() + 2.0
                except OSError:
                    end(sock, b"")
        result["held at most"] = max(result["held at most"], len(open_))
    for sock in list(open_):
        sock.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--store", help="store directory (default: build the bundled catalog in a temp dir)")
    parser.add_argument("--levels", default="1,8,32,64", help="concurrent clients per level")
    parser.add_argument("--requests", type=int, default=300, help="requests per level (bound)")
    parser.add_argument("--trickle", type=int, default=200, help="slow connections open at once (bound)")
    parser.add_argument("--kg-root", type=Path, default=ROOT, help="the checkout whose kg serve runs")
    parser.add_argument("--calm", action="store_true", help="no runaway query, no slow connections (a baseline)")
    parser.add_argument("--seconds", type=float, default=30.0, help="time per level (bound)")
    parser.add_argument("--workers", type=int, help="kg serve --workers (default: its own default)")
    parser.add_argument("--timeout", type=float, default=5.0, help="kg serve --timeout")
    parser.add_argument("--output", help="write a markdown report here")
    args = parser.parse_args()

    from kg.ingestion import ingest_paths
    from kg.sources import bundled_paths
    from kg.store import GraphStore

    tmp = None
    store_path = args.store
    if store_path is None:
        tmp = tempfile.TemporaryDirectory()
        store_path = os.path.join(tmp.name, "store")
        store = GraphStore(store_path)
        ingest_paths(store, bundled_paths())
        store.flush()
        del store
    reader = GraphStore(store_path, read_only=True)
    quads = len(reader)
    del reader
    edges = json.loads((ROOT / "data" / "landscape.edges.json").read_text(encoding="utf-8"))["edges"]
    ids = [i for i, _ in Counter(e["target"] for e in edges).most_common(5)]  # the busiest system pages
    process, url = start_server(store_path, args.workers, args.timeout, args.kg_root)
    stop = threading.Event()
    slow: Counter = Counter()
    slow_clients: Counter = Counter()
    attackers = [threading.Thread(target=runaway, args=(url, stop, slow), daemon=True),
                 threading.Thread(target=trickle, args=(url, args.trickle, stop, slow_clients), daemon=True)]
    try:
        health = json.loads(http_get(url + "/health"))
        mix = requests_mix(ids)
        run_level(url, 4, 40, 10, mix)  # warm-up, not reported
        if not args.calm:
            for thread in attackers:
                thread.start()
            time.sleep(3.0)  # the slow connections open, the runaway query takes its worker
        rows = [run_level(url, int(n), args.requests, args.seconds, mix) for n in args.levels.split(",")]
    finally:
        stop.set()
        for thread in attackers:
            if thread.is_alive():
                thread.join(30)
        process.terminate()
        process.wait(30)
        if tmp is not None:
            tmp.cleanup()

    from importlib.metadata import version

    lines = ["# kg serve under load", "",
             f"Run {time.strftime('%Y-%m-%d %H:%M')} with `benchmarks/serve_load.py --levels {args.levels} "
             f"--requests {args.requests} --seconds {args.seconds:g} --timeout {args.timeout:g} "
             f"--trickle {args.trickle}" + (f" --workers {args.workers}" if args.workers else "")
             + (" --calm" if args.calm else "") + ("" if args.kg_root == ROOT else f" --kg-root {args.kg_root}")
             + "`.", "",
             f"- machine: {platform.machine()}, {os.cpu_count()} CPUs shared with other jobs (load average "
             f"{os.getloadavg()[0]:.1f} at the end of the run), "
             f"Python {platform.python_version()}, pyoxigraph {version('pyoxigraph')}",
             f"- server: `kg serve` in its own process, {health['workers']} query worker processes, "
             f"--timeout {args.timeout:g} s; load from a second process over loopback (threads, one "
             "keep-alive connection per client)",
             f"- store: {'the bundled catalog' if args.store is None else args.store} ({quads} quads)",
             "- request mix, round robin: " + ", ".join(QUERIES) + ", and HTML system pages (5 systems)",
             ("- calm: no runaway query, no slow connections" if args.calm else
              f"- all the while: a runaway query, sent again whenever stopped (answers: {_counts(slow)}), and "
              f"{args.trickle} slow-trickle connections from 127.0.0.2 (what they got: {_counts(slow_clients)})"), "",
             "| clients | requests | seconds | throughput (req/s) | p50 (ms) | p99 (ms) | errors |",
             "|---:|---:|---:|---:|---:|---:|---:|"]
    for row in rows:
        label = str(row["clients"])
        lines.append(f"| {label} | {row['requests']} | {row['seconds']:.1f} | {row['throughput']:.0f} | "
                     f"{row['p50_ms']:.1f} | {row['p99_ms']:.1f} | {row['errors']} |")
    lines += ["", "Reading: every request is evaluated in one of the query worker processes, and one of them is "
              "always busy with the runaway query until it is killed at the time limit, so throughput is bounded "
              "by the other workers and the CPUs; past that, more clients only queue, which raises p50/p99 but "
              "gives no errors. Latencies are from a small, shared machine: compare rows of one run, not runs.", ""]
    for row in rows:
        for sample in row["error_samples"]:
            lines.append(f"- error at {row['clients']} clients: {sample}")
    report = "\n".join(lines) + "\n"
    print(report)
    if args.output:
        Path(args.output).parent.mkdir(parents=True, exist_ok=True)
        Path(args.output).write_text(report, encoding="utf-8")


def _counts(counter: Counter) -> str:
    return ", ".join(f"{key}: {value}" for key, value in sorted(counter.items(), key=lambda kv: str(kv[0]))) or "none"


def http_get(url: str) -> bytes:
    parts = urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
    connection.request("GET", parts.path)
    body = connection.getresponse().read()
    connection.close()
    return body


if __name__ == "__main__":
    main()
