"""Benchmark stage ``serve-vs-oxigraph``: ``kg serve`` against the Oxigraph server on the same quads, under load.

The bundled catalog (``--quick``: the size's catalog) is built by ``kg ingest`` into a store of its
own; its N-Quads go into an Oxigraph server (``oxigraph load``, then ``oxigraph serve-read-only
--union-default-graph`` on loopback), and ``kg serve --workers N`` serves the store itself on
loopback. For each round, each number of clients and each workload, one run on each server,
interleaved: the two take turns of ``spec['slice']`` seconds (the side that starts alternating) until
each has had ``spec['seconds']``, so that both meet the same background load. A run is ``clients``
threads, one keep-alive ``http.client`` connection each, each sending its next query when the previous
answer is in (a closed loop), cycling through four catalog queries (``QUERIES``). ``repeated`` sends
the same four texts again (as pages and agents do: kg serve answers those from its answer cache);
``cold`` makes every text new (a comment with a fresh number as its first line), so that nothing a
server remembers of a text answers it. Every answer must be a 200; before the load both servers must
give the same rows for each query. The client runs in this process: its CPU time is reported beside
the servers' (from /proc), and the load average before and after each run.
"""

from __future__ import annotations

import http.client
import itertools
import json
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlencode, urlsplit

from bench_harness import kg_module

KG = [sys.executable, "-m", "kg.cli"]
PREFIXES = ("PREFIX kg: <https://w3id.org/agent-landscape/ontology#>\n"
            "PREFIX schema: <https://schema.org/>\nPREFIX dcterms: <http://purl.org/dc/terms/>\n")
QUERIES = {
    "protocol-support": PREFIXES + """SELECT ?protocol ?mode (COUNT(?system) AS ?systems) WHERE {
  ?system kg:protocolSupport ?support . ?support kg:protocol ?protocol ; kg:supportMode ?mode }
GROUP BY ?protocol ?mode ORDER BY ?protocol ?mode""",
    "one-system": PREFIXES + """SELECT ?p ?o WHERE { ?system dcterms:identifier "SYSTEM" ; ?p ?o }""",
    "mcp-list": PREFIXES + """SELECT ?id ?name WHERE {
  ?system kg:protocolSupport ?support ; dcterms:identifier ?id ; schema:name ?name .
  ?support kg:protocol kg:MCP ; kg:supportMode kg:NativeSupport } ORDER BY ?name LIMIT 50""",
    "name-filter": PREFIXES + """SELECT ?system ?name WHERE { ?system a kg:System ; schema:name ?name
  FILTER(CONTAINS(LCASE(?name), "memory")) } ORDER BY ?name""",
}
BUNDLED_SYSTEM = "mem0--mem0-ai"  # the one-system query's record in the bundled catalog
ACCEPT = "application/sparql-results+json"
WORKLOADS = ("repeated", "cold")
SIDES = ("oxigraph", "kg")
KG_TIMEOUT_S = 10.0  # kg serve's own default
_FRESH = itertools.count()  # numbers of cold texts: never the same twice in one sitting
_SITTING = f"{os.getpid()}-{time.time_ns()}"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_listening(port: int, process: subprocess.Popen, seconds: float = 60.0) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the server exited with {process.returncode}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"nothing listens on port {port}")


def start_oxigraph(nquads: Path, work: Path) -> tuple[subprocess.Popen, str]:
    """``oxigraph load`` of the quads into a new location, then ``serve-read-only`` on a free port: its query URL."""
    binary, location = shutil.which("oxigraph") or str(Path(sys.executable).parent / "oxigraph"), work / "oxigraph"
    if not os.path.exists(binary):
        raise RuntimeError("no oxigraph command: pip install oxigraph (it is in kg's test extra)")
    subprocess.run([binary, "load", "--location", str(location), "--file", str(nquads)], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    port = free_port()
    process = subprocess.Popen([binary, "serve-read-only", "--location", str(location), "--bind",
                                f"127.0.0.1:{port}", "--union-default-graph"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_listening(port, process)
    return process, f"http://127.0.0.1:{port}/query"


def start_kg(store: Path, workers: int) -> tuple[subprocess.Popen, str]:
    """``kg serve --workers N`` on a free port (kg serve's default timeout): its /sparql URL."""
    process = subprocess.Popen([*KG, "serve", "--store", str(store), "--port", "0", "--quiet", "--timeout",
                                str(KG_TIMEOUT_S), "--workers", str(workers)], stderr=subprocess.PIPE, text=True)
    line = process.stderr.readline()  # type: ignore[union-attr]
    found = re.search(r"SPARQL endpoint (http://[^ ]+)/sparql", line)
    if not found:
        process.kill()
        raise RuntimeError(f"kg serve did not start: {line}")
    threading.Thread(target=process.stderr.read, daemon=True).start()  # type: ignore[union-attr]
    return process, found.group(1) + "/sparql"


def cpu_seconds(pid: int) -> float:
    """CPU seconds used so far by ``pid`` and its live descendants (from /proc; 0 elsewhere)."""
    tick = os.sysconf("SC_CLK_TCK")
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


def _connection(url: str) -> http.client.HTTPConnection:
    parts = urlsplit(url)
    return http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port, timeout=60)


def _get(connection: http.client.HTTPConnection, url: str, text: str) -> tuple[int, bytes]:
    connection.request("GET", urlsplit(url).path + "?" + urlencode({"query": text}), headers={"Accept": ACCEPT})
    response = connection.getresponse()
    return response.status, response.read()


def run_load(side: str, url: str, pid: int, queries: dict[str, str], workload: str, clients: int,
             seconds: float) -> dict[str, Any]:
    """``clients`` closed-loop clients for ``seconds`` against ``url``: latencies, errors, CPU, load."""
    names, latencies, errors = list(queries), [], []
    lock, start, deadline = threading.Lock(), threading.Barrier(clients + 1), [0.0]

    def client(index: int) -> None:
        connection, mine, wrong, position = _connection(url), [], [], index
        start.wait()
        while time.perf_counter() < deadline[0]:
            text = queries[names[position % len(names)]]
            position += 1
            if workload == "cold":
                text = f"# cold {_SITTING} {next(_FRESH)}\n" + text
            began = time.perf_counter()
            try:
                status, body = _get(connection, url, text)
                if status != 200:
                    wrong.append(f"{status} {body[:100]!r}")
            except (OSError, http.client.HTTPException) as err:
                wrong.append(str(err))
                connection.close()
                connection = _connection(url)
            mine.append(time.perf_counter() - began)
        connection.close()
        with lock:
            latencies.extend(mine)
            errors.extend(wrong)

    threads = [threading.Thread(target=client, args=(i,), daemon=True) for i in range(clients)]
    for thread in threads:
        thread.start()
    load_before, cpu_client, cpu_server = os.getloadavg()[0], time.process_time(), cpu_seconds(pid)
    began = time.perf_counter()
    deadline[0] = began + seconds
    start.wait()
    for thread in threads:
        thread.join()
    return {"side": side, "workload": workload, "clients": clients, "seconds": time.perf_counter() - began,
            "latencies": latencies, "errors": errors, "client_cpu": time.process_time() - cpu_client,
            "server_cpu": cpu_seconds(pid) - cpu_server, "load": [load_before, os.getloadavg()[0]]}


def paired_runs(servers: dict, queries: dict[str, str], workload: str, clients: int, seconds: float, piece: float,
                first: int) -> dict[str, dict]:
    """One run a side, taken in turns of ``piece`` seconds (the side that starts alternating)."""
    done: dict[str, dict] = {}
    turns = max(1, round(seconds / piece))
    for turn in range(turns):
        for side in SIDES if (turn + first) % 2 == 0 else SIDES[::-1]:
            process, url = servers[side]
            part = run_load(side, url, process.pid, queries, workload, clients, seconds / turns)
            whole = done.setdefault(side, {**part, "latencies": [], "errors": [], "seconds": 0.0, "client_cpu": 0.0,
                                           "server_cpu": 0.0})
            for key in ("latencies", "errors"):
                whole[key] += part[key]
            for key in ("seconds", "client_cpu", "server_cpu"):
                whole[key] += part[key]
            whole["load"] = [whole["load"][0], part["load"][1]]
    return done


def _summary(run: dict, round_: int) -> dict[str, Any]:
    """A run as the results keep it: counts, qps, p50 and p99 (not every latency)."""
    ordered = sorted(run.pop("latencies"))
    run.update(round=round_, requests=len(ordered), qps=len(ordered) / run["seconds"] if run["seconds"] else 0.0,
               p50_ms=1000 * statistics.median(ordered) if ordered else None,
               p99_ms=1000 * ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))] if ordered else None,
               error_count=len(run["errors"]), errors=run["errors"][:3])
    return run


def check_same_answers(ox_url: str, kg_url: str, queries: dict[str, str]) -> dict[str, int]:
    """Each query's rows on both servers (the same, or an error); the number of rows of each."""
    rows = {}
    for name, text in queries.items():
        answers = [_get(_connection(url), url, text) for url in (ox_url, kg_url)]
        for status, body in answers:
            if status != 200:
                raise RuntimeError(f"{name}: {status} {body[:200]!r}")
        ox_rows, kg_rows = ([sorted(tuple(sorted((k, v["type"], v["value"]) for k, v in row.items()))
                                    for row in json.loads(body)["results"]["bindings"])] for _, body in answers)
        if ox_rows != kg_rows:
            raise RuntimeError(f"{name}: the servers differ ({len(ox_rows[0])} rows against {len(kg_rows[0])})")
        rows[name] = len(ox_rows[0])
    if not any(rows.values()):
        raise RuntimeError("no query has rows: the comparison would mean nothing")
    return rows


def _build(spec: dict, work: Path) -> tuple[Path, str]:
    """The catalog built by ``kg ingest`` into a store of its own, and the one-system query's record id."""
    store = work / "kg-store"
    if spec.get("quick"):
        paths, system = [spec["catalog"], spec["edges_file"]], _first_id(spec["catalog"])
    else:
        paths, system = [str(p) for p in kg_module("kg.sources").bundled_paths()], BUNDLED_SYSTEM
    done = subprocess.run([*KG, "ingest", "--store", str(store), *paths], capture_output=True, text=True)
    if done.returncode not in (0, 5):
        raise RuntimeError(f"kg ingest exited {done.returncode}: {done.stderr[-300:]}")
    return store, system


def _first_id(catalog: str) -> str:
    with open(catalog, encoding="utf-8") as fh:
        return next(json.loads(line.rstrip().rstrip(","))["id"] for line in fh if line.startswith('{"id"'))


def stage_serve_vs_oxigraph(spec: dict) -> dict:
    """Both servers on the same quads, the four queries under the closed loop, every round, level and workload."""
    from importlib.metadata import version

    work = Path(spec["scratch"]) / "serve"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    store, system = _build(spec, work)
    queries = {name: text.replace("SYSTEM", system) for name, text in QUERIES.items()}
    nquads = work / "all.nq"
    subprocess.run([*KG, "export", "--store", str(store), "--format", "nquads", "--output", str(nquads)],
                   check=True, capture_output=True)
    with nquads.open("rb") as text:
        quads = sum(1 for _ in text)
    servers: dict[str, tuple[subprocess.Popen, str]] = {}
    runs: list[dict] = []
    try:
        servers["oxigraph"] = start_oxigraph(nquads, work)
        servers["kg"] = start_kg(store, int(spec["workers"]))
        rows = check_same_answers(servers["oxigraph"][1], servers["kg"][1], queries)
        for side, (process, url) in servers.items():  # a warm-up, not reported
            run_load(side, url, process.pid, queries, "repeated", 4, 1.0)
        for round_ in range(int(spec["rounds"])):
            for clients in spec["levels"]:
                for workload in WORKLOADS:
                    first = (round_ + clients + len(workload)) % 2
                    done = paired_runs(servers, queries, workload, clients, float(spec["seconds"]),
                                       float(spec["slice"]), first)
                    runs += [_summary(done[side], round_ + 1) for side in SIDES]
    finally:
        for process, _ in servers.values():
            process.terminate()
            process.wait(30)
        shutil.rmtree(work, ignore_errors=True)
    return {"runs": runs, "rows": rows, "quads": quads,
            "system": system, "workers": spec["workers"], "seconds": spec["seconds"], "levels": spec["levels"],
            "rounds": spec["rounds"], "oxigraph_version": version("oxigraph"),
            "data": "the size's catalog" if spec.get("quick") else "the bundled catalog"}
