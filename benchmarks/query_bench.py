#!/usr/bin/env python3
"""Latency of every named query on the bundled catalog: our store vs rdflib's SPARQL engine.

For each query in queries/ (with the sample parameters below) this measures the median
wall time of ``kg.queries``' bound query text

* through ``kg.store.GraphStore`` on disk, as ``kg query`` uses it (union default graph; each
  query in a fresh process, as one ``kg query`` runs one),
* through the same ``GraphStore`` class in memory (the store's N-Quads loaded into it),
* through rdflib's own SPARQL engine, on an ``rdflib.Dataset(default_union=True)`` holding
  the store's N-Quads,

and checks that rdflib returns the same rows (as multisets; the order of rows that tie,
and of values inside GROUP_CONCAT, is left free by SPARQL and is normalised here).

Each timing covers running the query and reading every value of every result row (the
conversion for the comparison with rdflib is done afterwards, untimed). Each engine gets one
warm-up run. The floor the project sets: every named query under 100 ms through our store
on the bundled catalog.

Usage::

    python benchmarks/query_bench.py [--runs 7] [--rdflib-runs 3 | --no-rdflib] [--out benchmarks/results/queries.md]
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import platform
import shutil
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import pyoxigraph  # noqa: E402
import rdflib  # noqa: E402
from pyoxigraph import QueryBoolean, QuerySolutions, QueryTriples  # noqa: E402

from kg import queries  # noqa: E402
from kg.ingestion import ingest_paths  # noqa: E402
from kg.sources import bundled_paths  # noqa: E402
from kg.store import GraphStore  # noqa: E402

FLOOR_MS = 100.0
RDFLIB_SLOW_S = 2.0  # an rdflib query slower than this is timed once
RDFLIB_TIMEOUT_S = 60.0  # and one slower than this is stopped
XSD_STRING = "http://www.w3.org/2001/XMLSchema#string"

# Parameters for the queries that need them (real ids and names from the bundled catalog).
PARAMS: dict[str, dict[str, str]] = {
    "search": {"text": "memory"},
    "show": {"id": "mem0--mem0-ai"},
    "related": {"id": "mem0--mem0-ai"},
    "compare": {"a": "mem0--mem0-ai", "b": "zep-graphiti--getzep-com"},
    "recent": {"since": "2026-01-01"},
    "substrate-risk": {"system": "anthropic-claude-foundation-models--anthropic-com"},
    "decay-cause": {"cause": "acquired"},
    "compliant-systems": {"framework": "SOC 2"},
    "field-history": {"system": "smolagents-memory--huggingface-co", "column": "latest-release"},
}
# Extra runs of some queries with other parameters (a name key "query@label").
VARIANTS: dict[str, tuple[str, dict[str, str]]] = {
    "search@tier+section": ("search", {"text": "graph", "tier": "1", "section": "memory"}),
    "show@seed record": ("show", {"id": "smolagents-memory--huggingface-co"}),
    "substrate-risk@by id": ("substrate-risk", {"system": "neo4j--neo4j-com"}),
    "compare@seed vs site": ("compare", {"a": "smolagents-memory--huggingface-co", "b": "mem0--mem0-ai"}),
    "recent@20 most recent": ("recent", {}),
    "recent@since quarter": ("recent", {"since": "2026-Q1", "limit": "1000"}),
    "related@type+direction": ("related", {"id": "mem0--mem0-ai", "edge_type": "runtime-dependency",
                                           "edge_direction": "incoming"}),
    "substrate-risk@direct": ("substrate-risk", {"system": "anthropic-claude-foundation-models--anthropic-com",
                                                 "direct": "true"}),
    "coverage@by feature": ("coverage", {"by": "feature"}),
    "search@padded text": ("search", {"text": "  Temporal  KNOWLEDGE graph "}),
    "find@issue question": ("find", {"open": "true", "selfhost": "true", "protocol": "mcp",
                                     "section": "memory layers"}),
    "find@text+taxonomy": ("find", {"text": "graph", "storage": "graph"}),
}


# ---------------------------------------------------------------------------
# comparable results


def _ox_term(term):
    if term is None:
        return None
    if isinstance(term, pyoxigraph.Literal):
        return ("literal", term.value, term.language or term.datatype.value)
    if isinstance(term, pyoxigraph.NamedNode):
        return ("iri", term.value)
    return ("bnode",)


def _rdflib_term(term):
    if term is None:
        return None
    if isinstance(term, rdflib.Literal):
        return ("literal", str(term), term.language or (str(term.datatype) if term.datatype else XSD_STRING))
    if isinstance(term, rdflib.URIRef):
        return ("iri", str(term))
    return ("bnode",)


def _normalise(value):
    """GROUP_CONCAT lists have no set order: compare their parts as a sorted list."""
    if value and value[0] == "literal":
        for sep in ("; ", ", "):
            if sep in value[1]:
                return ("literal", sep.join(sorted(value[1].split(sep))), value[2])
    return value


def read_all(result):
    """Every row's every value read (what any consumer of the answer does), as plain tuples."""
    if isinstance(result, QueryBoolean):
        return bool(result)
    if isinstance(result, QueryTriples):
        return {(tr.subject, tr.predicate, tr.object) for tr in result}
    return [tuple(row) for row in result]  # by position, as kg.queries reads rows


def ox_result(read):
    """The rows ``read_all`` read, comparable with rdflib's (outside the timed part)."""
    if isinstance(read, bool):
        return read
    if isinstance(read, set):
        return {tuple(_ox_term(t) for t in triple) for triple in read}
    return Counter(tuple(_normalise(_ox_term(value)) for value in row) for row in read)


def rdflib_result(result):
    if result.type == "ASK":
        return bool(result.askAnswer)
    if result.type in ("CONSTRUCT", "DESCRIBE"):
        return {tuple(_rdflib_term(t) for t in triple) for triple in result.graph}
    names = [str(v) for v in result.vars]
    return Counter(tuple(_normalise(_rdflib_term(row[n])) for n in names) for row in result)


def size(result) -> int:
    if isinstance(result, bool):
        return 1
    return sum(result.values()) if isinstance(result, Counter) else len(result)


# ---------------------------------------------------------------------------
# timing


def _rdflib_worker(conn, nquads_path: str, runs: int) -> None:
    """A process holding the rdflib Dataset; times each query it is sent (it can be killed)."""
    started = time.perf_counter()
    dataset = rdflib.Dataset(default_union=True)
    dataset.parse(nquads_path, format="nquads")
    conn.send(time.perf_counter() - started)
    while True:
        text = conn.recv()
        if text is None:
            return
        started = time.perf_counter()
        result = rdflib_result(dataset.query(text))
        times = [(time.perf_counter() - started) * 1000]
        if times[0] < RDFLIB_SLOW_S * 1000:  # that was the warm-up: now the timed runs
            times = []
            for _ in range(runs):
                started = time.perf_counter()
                result = rdflib_result(dataset.query(text))
                times.append((time.perf_counter() - started) * 1000)
        conn.send((times, result))


class RdflibEngine:
    """rdflib's SPARQL engine in a worker process, restarted when a query runs too long."""

    def __init__(self, nquads_path: str, runs: int) -> None:
        self.path, self.runs = nquads_path, runs
        self.load_s = 0.0
        self._start()

    def _start(self) -> None:
        context = multiprocessing.get_context("spawn")
        self.conn, child = context.Pipe()
        self.process = context.Process(target=_rdflib_worker, args=(child, self.path, self.runs), daemon=True)
        self.process.start()
        self.load_s = self.conn.recv()

    def run(self, text: str):
        """(times in ms, comparable result), or (None, None) when it ran past the timeout."""
        self.conn.send(text)
        if self.conn.poll(RDFLIB_TIMEOUT_S):
            return self.conn.recv()
        self.process.kill()
        self.process.join()
        self._start()
        return None, None

    def close(self) -> None:
        self.conn.send(None)
        self.process.join(timeout=10)


def timed(run, runs: int) -> tuple[list[float], object]:
    result = run()  # warm-up
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        result = run()
        times.append((time.perf_counter() - started) * 1000)
    return times, result


def _disk_runs(path: str, text: str, limit: int | None, runs: int):
    """(times, comparable result) of ``text`` on the on-disk store at ``path``, opened read-only."""
    store = GraphStore(path, read_only=True)

    def ours():
        result = store.query(text)
        if isinstance(result, QuerySolutions) and limit is not None:
            result = queries.LimitedSolutions(result, limit)
        return read_all(result)

    times, read = timed(ours, runs)
    return times, ox_result(read)


def timed_on_disk(path: Path, text: str, limit: int | None, runs: int):
    """``_disk_runs`` in a fresh process, as ``kg query`` runs one query: the queries timed
    before it leave nothing behind (in one long process, find took 1.5x as long after ten others)."""
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        return pool.apply(_disk_runs, (str(path), text, limit, runs))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=7, help="timed runs per query through our store (default 7)")
    parser.add_argument("--rdflib-runs", type=int, default=3, help="timed runs per query through rdflib (default 3)")
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "queries.md"),
                        help="where to write the Markdown report ('-' for stdout only)")
    parser.add_argument("--only", action="append", metavar="NAME", help="only this query (repeatable)")
    parser.add_argument("--no-rdflib", action="store_true",
                        help="time our store only (rdflib's load and runs take minutes)")
    args = parser.parse_args(argv)

    work = Path(tempfile.mkdtemp(prefix="kg-query-bench-"))
    store = GraphStore(work / "kg-store")
    started = time.perf_counter()
    ingest_paths(store, bundled_paths())
    ingest_s = time.perf_counter() - started
    nquads = store.dump(None, "nquads")
    memory = GraphStore()
    memory.replace_graphs({}, list(pyoxigraph.parse(nquads, pyoxigraph.RdfFormat.N_QUADS)))
    nquads_path = work / "bundled.nq"
    nquads_path.write_bytes(nquads)
    engine = None if args.no_rdflib else RdflibEngine(str(nquads_path), args.rdflib_runs)
    rdflib_load_s = engine.load_s if engine is not None else 0.0
    print(f"bundled catalog: {len(store)} quads; ingest {ingest_s:.1f} s; rdflib load {rdflib_load_s:.1f} s",
          file=sys.stderr)

    jobs = [(name, name, PARAMS.get(name, {})) for name in queries.available()]
    jobs += [(label, name, params) for label, (name, params) in VARIANTS.items()]
    if args.only:
        jobs = [job for job in jobs if job[1] in args.only or job[0] in args.only]
    rows = []
    for label, name, params in jobs:
        query = queries.load(name)
        missing = [p.name for p in query.params if not p.optional and p.name not in params]
        if missing:
            print(f"skip {label}: needs {', '.join(missing)}", file=sys.stderr)
            continue
        planned = queries.plan(query, params, memory)  # in memory: no words index, the SPARQL as written
        text, limit = planned.text, planned.limit

        def ours(st):
            result = st.query(text)
            if isinstance(result, QuerySolutions) and limit is not None:
                result = queries.LimitedSolutions(result, limit)
            return read_all(result)

        disk_times, ox = timed_on_disk(work / "kg-store", text, limit, args.runs)
        mem_times, _ = timed(lambda: ours(memory), args.runs)
        rd_times, rd = engine.run(text) if engine is not None else (None, None)
        if rd_times is None:
            same = None
        elif limit is not None and isinstance(rd, Counter):
            # the cap keeps the first rows in the query's order: ours must all be among rdflib's
            same = all(rd[row] >= n for row, n in ox.items())
        else:
            same = ox == rd
        row = {
            "query": label, "params": ", ".join(f"{k}={v}" for k, v in params.items()),
            "rows": size(ox), "disk_median": statistics.median(disk_times), "disk_max": max(disk_times),
            "mem_median": statistics.median(mem_times),
            "rdflib_median": statistics.median(rd_times) if rd_times else None,
            "rdflib_runs": len(rd_times) if rd_times else 0, "same": same,
        }
        row["ratio"] = row["rdflib_median"] / row["disk_median"] if rd_times else None
        rows.append(row)
        rd_text = f"{row['rdflib_median']:9.1f} ms  x{row['ratio']:.1f}" if rd_times else f"> {RDFLIB_TIMEOUT_S:.0f} s"
        print(f"{label:32} {row['rows']:5} rows  disk {row['disk_median']:8.1f} ms  memory {row['mem_median']:7.1f} ms"
              f"  rdflib {rd_text}  {({True: 'same', False: 'DIFFERENT', None: '?'})[same]}", file=sys.stderr)
    if engine is not None:
        engine.close()
    quads = len(store)
    del store, memory
    shutil.rmtree(work, ignore_errors=True)

    report = render(rows, args, ingest_s, rdflib_load_s, quads)
    if args.out != "-":
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(report, encoding="utf-8")
        print(f"wrote {args.out}", file=sys.stderr)
    else:
        print(report)
    slow = [r["query"] for r in rows if r["disk_median"] >= FLOOR_MS]
    different = [r["query"] for r in rows if r["same"] is False]
    if slow:
        print(f"over the {FLOOR_MS:.0f} ms floor: {', '.join(slow)}", file=sys.stderr)
    if different:
        print(f"rdflib disagrees on: {', '.join(different)}", file=sys.stderr)
    return 1 if different else 0


def render(rows, args, ingest_s, rdflib_load_s, quads) -> str:
    load = os.getloadavg() if hasattr(os, "getloadavg") else ("?", "?", "?")
    lines = [
        "# Named query latency on the bundled catalog",
        "",
        "Generated by `python benchmarks/query_bench.py` "
        f"(runs: {args.runs} per query through our store, {args.rdflib_runs} through rdflib; median ms, "
        "after one warm-up run; timing covers running the query and reading every value of every row; the conversion for the comparison with rdflib is not timed).",
        "",
        f"- Data: the bundled catalog (912 records, 528 edges) = {quads} quads; ingest {ingest_s:.1f} s.",
        "- **disk**: `kg.store.GraphStore` on disk (RocksDB, compacted as a build leaves it), union default graph, as `kg query` runs it: each query in a fresh process (warm-up, then the timed runs).",
        "- **memory**: the same `GraphStore` class in memory, holding the store's N-Quads.",
        f"- **rdflib**: rdflib {rdflib.__version__}'s own SPARQL engine on `Dataset(default_union=True)` "
        f"loaded from the same N-Quads (load {rdflib_load_s:.1f} s).",
        f"- rdflib runs: a warm-up, then the timed runs; a query whose warm-up took over {RDFLIB_SLOW_S:.0f} s is "
        f"timed by that one run (\"1 run\"), one past {RDFLIB_TIMEOUT_S:.0f} s is stopped.",
        "- **ratio** = rdflib / disk. **same** = rdflib returns the same rows (multisets; GROUP_CONCAT parts "
        "sorted; for a query with a row limit, our capped rows are all among rdflib's).",
        f"- Machine: {platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}, "
        f"pyoxigraph {pyoxigraph.__version__ if hasattr(pyoxigraph, '__version__') else '?'}; "
        f"load average at the end {', '.join(f'{x:.1f}' if isinstance(x, float) else x for x in load)} "
        "(the machine is shared; numbers are wall times under that load).",
        "",
        "| query | parameters | rows | disk ms (median) | disk ms (max) | memory ms | rdflib ms | ratio | same |",
        "|---|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    for r in rows:
        if args.no_rdflib:
            rd, ratio = "not run", "—"
        elif r["rdflib_median"] is None:
            rd, ratio = f"> {RDFLIB_TIMEOUT_S * 1000:.0f}", "—"
        else:
            rd = f"{r['rdflib_median']:.0f}" + (" (1 run)" if r["rdflib_runs"] == 1 and args.rdflib_runs != 1 else "")
            ratio = f"{r['ratio']:.0f}×" if r["ratio"] >= 10 else f"{r['ratio']:.1f}×"
        same = {True: "yes", False: "**no**", None: "not run"}[r["same"]]
        lines.append(f"| {r['query']} | {r['params'] or '—'} | {r['rows']} | {r['disk_median']:.1f} | "
                     f"{r['disk_max']:.1f} | {r['mem_median']:.1f} | {rd} | {ratio} | {same} |")
    worst = max(rows, key=lambda r: r["disk_median"]) if rows else None
    over = [r["query"] for r in rows if r["disk_median"] >= FLOOR_MS]
    lines += ["", "## Floor: every named query under 100 ms through our store on disk", ""]
    if worst is not None:
        lines.append(f"Slowest of all {len(rows)} runs (every named query, and the variants): {worst['query']} at "
                     f"{worst['disk_median']:.1f} ms median on disk ({worst['disk_max']:.1f} ms at most).")
    lines.append(f"Over {FLOOR_MS:.0f} ms: {', '.join(over) if over else 'none'}.")
    ratios = sorted(r["ratio"] for r in rows if r["ratio"] is not None)
    if ratios:
        lines.append(f"rdflib / our store: median {statistics.median(ratios):.0f}×, range "
                     f"{ratios[0]:.0f}× – {ratios[-1]:.0f}×.")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
