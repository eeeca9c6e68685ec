#!/usr/bin/env python3
"""Benchmarks of kg at several catalog sizes, against an rdflib-only pipeline and a floor.

    python benchmarks/run.py --sizes 912,9120,45600 --repeats 3

For each size the full-shape synthetic catalog of ``benchmarks/generate.py`` is
generated once (cached in ``--work``), then every stage is timed in a fresh
process, ``--repeats`` times (sizes of ``--large-size`` records or more: at most
``--large-repeats`` times):

* ``ingest``: ``kg.ingestion.ingest_paths`` into a new on-disk store (what ``kg ingest``
  does; bulk catalog files of 64 MiB or more are streamed);
* ``validate-full``: ``kg.validation.validate`` of the whole store (sizes up to
  ``--full-validate-max``);
* ``reingest-100`` and ``validate-incremental``: 100 records (``--changed``) are changed and
  ingested again, then ``kg.validation.revalidate`` checks only them (plus the
  catalog-wide rules);
* ``export-<format>``: ``kg.export.export`` to a file, for Turtle, JSON-LD, N-Quads
  and catalog JSON (sizes up to ``--export-max``);
* ``queries``: every named query of ``queries/*.rq``: a cold run (the first in the
  process), then ``--query-warm`` warm runs (``--large-query-warm`` from ``--large-size``;
  none after a cold run of 10 s or more); a query running past ``--query-timeout`` is
  recorded as such; the stage's time is the total of the cold runs; the floors are
  checked on the warm medians where there are some;
* ``analyse``: ``kg.analyse.analyze`` with its default measures;
* ``store-dump-nquads``: the store's own N-Quads dump (pyoxigraph, nothing in Python),
  the floor the exports are compared with (sizes up to ``--export-max``);
* ``validate-dask``: ``validate`` with ``scheduler=`` a LocalCluster of two single-thread
  worker processes, started before the timer (sizes up to ``--dask-max``).

Baselines on the same data, in the same run:

* ``rdflib``: an rdflib-only pipeline (``benchmarks/baseline_rdflib.py``): the same
  records mapped by ``kg.mapping``, converted to rdflib terms, added to an
  ``rdflib.Dataset`` (ingest); stock pySHACL once over the whole graph
  (``kg.validation.validate_monolithic``); rdflib's serialisers (export); rdflib's
  SPARQL engine (queries). Sizes up to ``--rdflib-max``. Graphs a stage needs are
  built before its timer starts.
* ``floor``: the same records mapped to the same triples, written as N-Triples
  text: what a pipeline costs that does nothing but produce the triples.
* ``bulk-load``: pyoxigraph's ``Store.bulk_load`` of the same quads (an N-Quads file
  written before the timer) into a fresh on-disk store: the ingest's floor in the store.
  ``bulk-load-lenient``: the same with ``lenient=True`` (no second check of IRIs and
  language tags), as kg loads its own text (``kg.streamload.LENIENT``).
  ``bulk-load-merged``: ``bulk_load`` then ``Store.optimize``, the merge of the load's files
  that a build does before it commits (the same end state as the ingest's store).

``store-dump-nquads``, ``validate-dask`` and the bulk loads do not run in ``--quick``.

Every child reports wall time, CPU time (its own and its worker processes'), peak
RSS (``ru_maxrss``: the process peak, so it includes what a stage loaded before
its timer started) and how busy the machine was meanwhile (load average, and the
CPU share of other processes: the machine's busy time from /proc/stat less the child's
whole CPU, its set-up before the timer included). Each timer starts after a sync of the
disk, so that no stage pays for the write-back of what came before it. Raw results go to
``benchmarks/results/run-<timestamp>.json``; the report (``benchmarks/REPORT.md``)
and its plot are rendered from them (``--report-only RESULTS.json`` renders again).

``--quick`` is the CI-sized run (tests/test_benchmarks.py): one repeat, no
profiles, one warm run per query, two export formats (Turtle and catalog JSON), the
floor and the rdflib baseline on the first 20 records only.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import functools
import gc
import hashlib
import json
import os
import platform
import resource
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "benchmarks"
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))

import baseline_rdflib as baseline  # noqa: E402  (the rdflib pipeline and the floor)
GENERATOR = BENCH / "generate.py"
DEFAULT_WORK = Path(tempfile.gettempdir()) / "kg-bench"
DEFAULT_SEED = 20261129
CHANGED = 100  # records changed for the incremental revalidation
QUICK_CHANGED = 20  # --quick: the records changed (the same code path, a fifth of the work)
EXPORT_FORMATS = ("turtle", "trig", "jsonld", "nquads", "catalog-json")
QUICK_EXPORT_FORMATS = ("turtle", "catalog-json")  # --quick: one RDF writer and the JSON rebuild
QUICK_SUBSET = 10  # records of the rdflib baseline in --quick runs
QUICK_RDFLIB_QUERY_TIMEOUT = 1.0  # seconds per rdflib query in --quick runs (kg's queries: 3 s)

# stage -> the baseline stage it is compared with (same size)
RATIOS = {
    "ingest": ("rdflib-ingest", "floor-ntriples"),
    "validate-full": ("rdflib-validate",),
    **{f"export-{fmt}": (f"rdflib-export-{fmt}",) for fmt in baseline.EXPORT_FORMATS},
    "queries": ("rdflib-queries",),
}
OUR_STAGES = ("ingest", "validate-full", "reingest-100", "validate-incremental",
              *[f"export-{fmt}" for fmt in EXPORT_FORMATS], "queries", "analyse")
# the store's own speed and the cluster path: none of them in --quick runs
STORE_STAGES = ("store-dump-nquads", "bulk-load", "bulk-load-lenient", "bulk-load-merged", "validate-dask")
for _fmt in ("turtle", "jsonld", "nquads"):  # an export against the store's own dump of the same store
    RATIOS[f"export-{_fmt}"] = (*RATIOS.get(f"export-{_fmt}", ()), "store-dump-nquads")
RATIOS["ingest"] = (*RATIOS["ingest"], "bulk-load", "bulk-load-lenient", "bulk-load-merged")
RATIOS["validate-dask"] = ("validate-full",)
# the other loads the ingest is compared with, beside the floor's plain bulk_load
INGEST_ALSO_AGAINST = (("bulk-load-lenient", "bulk_load(lenient=True), as kg loads its own text"),
                       ("bulk-load-merged", "bulk_load then optimize (the merged store a build leaves)"))


# ---------------------------------------------------------------------------
# Data


def generator_digest() -> str:
    return hashlib.sha256(GENERATOR.read_bytes()).hexdigest()[:16]


def data_dir(work: Path, size: int) -> Path:
    return work / "data" / f"gen-{size}"


def ensure_data(work: Path, size: int, seed: int, log: Callable[[str], None],
                changed_count: int = CHANGED) -> dict[str, Any]:
    """The generated catalog of ``size`` records (made once, reused while the generator is unchanged),
    and ``changed_count`` of its records changed."""
    folder = data_dir(work, size)
    stamp_file = folder / "stamp.json"
    stamp = {"records": size, "seed": seed, "generator": generator_digest()}
    catalog, edges = folder / "catalog.json", folder / "edges.json"
    fresh = (stamp_file.is_file() and json.loads(stamp_file.read_text()) == stamp
             and catalog.is_file() and edges.is_file())
    if not fresh:
        log(f"generating {size} records into {folder} ...")
        shutil.rmtree(folder, ignore_errors=True)
        started = time.perf_counter()
        subprocess.run([sys.executable, str(GENERATOR), "--records", str(size), "--seed", str(seed),
                        "--out", str(folder), "--jobs", "2"], check=True, cwd=ROOT, stdout=subprocess.DEVNULL)
        log(f"  generated in {time.perf_counter() - started:.0f} s")
        stamp_file.write_text(json.dumps(stamp))
    changed = folder / f"changed-{changed_count}.json"
    if not changed.is_file() or changed.stat().st_mtime < catalog.stat().st_mtime:
        write_changed_records(catalog, changed, size, changed_count)
    n_edges = sum(1 for line in edges.open(encoding="utf-8") if line.startswith("{\"source\""))
    return {"records": size, "edges": n_edges, "catalog_bytes": catalog.stat().st_size,
            "edges_bytes": edges.stat().st_size, "catalog": str(catalog), "edges_file": str(edges),
            "changed": str(changed)}


def changed_indexes(size: int, count: int = CHANGED) -> list[int]:
    step = max(1, size // count)
    return [i * step for i in range(min(count, size))]


def write_changed_records(catalog: Path, out: Path, size: int, count: int = CHANGED) -> None:
    """``count`` records of the catalog spread over it, each with a changed name and tier: the
    input of the re-ingest and the incremental revalidation. The generator writes one record
    per line, so only the chosen lines are parsed."""
    wanted = set(changed_indexes(size, count))
    records, index = [], -1
    with catalog.open(encoding="utf-8") as fh:
        for line in fh:
            if not line.startswith("{\"id\""):
                continue
            index += 1
            if index in wanted:
                record = json.loads(line.rstrip().rstrip(","))
                record["name"] = f"{record['name']} (changed)"
                record["tier"] = record["tier"] % 5 + 1
                records.append(record)
    out.write_text(json.dumps(records, ensure_ascii=False), encoding="utf-8")


# ---------------------------------------------------------------------------
# Measuring inside a child process


def _cpu(usage: resource.struct_rusage) -> float:
    return usage.ru_utime + usage.ru_stime


def measure(func: Callable[[], dict[str, Any] | None]) -> dict[str, Any]:
    """Wall and CPU time of ``func()``, peak RSS of this process and of its children.

    The disk's pending writes are flushed first: a stage that has just written its input (the
    bulk loads write the N-Quads file they read) would otherwise be timed while the kernel
    writes that file back (9,120 records: ``bulk_load`` 72-79 s against 68-69 s after a sync)."""
    gc.collect()
    os.sync()
    self0, kids0 = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    extra = func() or {}
    wall = time.perf_counter() - started
    self1, kids1 = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return {
        "wall_s": wall,
        "cpu_s": _cpu(self1) - _cpu(self0),
        "children_cpu_s": _cpu(kids1) - _cpu(kids0),
        "peak_rss_mb": self1.ru_maxrss / 1024,
        "children_peak_rss_mb": kids1.ru_maxrss / 1024,
        **extra,
    }


class Timeout(Exception):
    pass


def _alarm(signum: int, frame: Any) -> None:
    raise Timeout


def with_alarm(seconds: float, func: Callable[[], Any]) -> Any:
    """``func()``, interrupted after ``seconds`` (pure-Python work only: rdflib)."""
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        return func()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _module(name: str) -> Any:
    """A kg submodule, by name."""
    import importlib

    return importlib.import_module(name)


def _kg_ingest():
    return _module("kg.ingestion")


def available(module: str, *names: str) -> str | None:
    """None when ``module`` has every one of ``names``; else why the stage cannot run."""
    import importlib

    try:
        found = importlib.import_module(module)
    except ImportError as err:
        return f"{module} not available ({err})"
    missing = [n for n in names if not hasattr(found, n)]
    return f"{module} has no {', '.join(missing)}" if missing else None


# ---------------------------------------------------------------------------
# Our stages (each runs in a fresh child process)


def stage_ingest(spec: dict) -> dict:
    from kg.store import GraphStore

    ingest = _kg_ingest()
    from kg.sources import STREAM_MIN_BYTES

    holder: dict[str, Any] = {}

    def run() -> dict:
        store = GraphStore(spec["store"])
        report = ingest.ingest_paths(store, [spec["catalog"], spec["edges_file"]])
        holder["store"] = store
        return {"records": report.records, "edges": report.edges, "quads_written": report.quads_written,
                "quarantined": len(report.quarantined), "warnings": len(report.warnings)}

    out = measure(run)
    out["streamed"] = os.path.getsize(spec["catalog"]) >= STREAM_MIN_BYTES
    out["quads"] = _module("kg.description").read_description(holder["store"], _iris())["triples"]
    out["store_bytes"] = _du(spec["store"])
    return out


def _iris():
    from kg.vocab import Iris

    return Iris()


def _du(path: str) -> int:
    return sum(p.stat().st_size for p in Path(path).rglob("*") if p.is_file())


def stage_validate_full(spec: dict) -> dict:
    missing = available("kg.validation", "validate")
    if missing:
        return {"available": False, "note": missing}
    V = _module("kg.validation")
    from kg.store import GraphStore

    store = GraphStore(spec["store"])

    def run() -> dict:
        report = V.validate(store)
        return {"results": len(report.results), "violations": report.violations, "records": report.records,
                "timings": dict(report.timings)}

    return _worker_cpu(measure(run))


def _worker_cpu(out: dict) -> dict:
    """Add the validation workers' CPU time (they are the forkserver's children, not ours)."""
    worker = (out.get("timings") or {}).get("worker_cpu_s")
    if worker and not out.get("children_cpu_s"):
        out["children_cpu_s"] = worker
    return out


def stage_reingest(spec: dict) -> dict:
    from kg.store import GraphStore

    ingest = _kg_ingest()
    store = GraphStore(spec["store"])

    def run() -> dict:
        report = ingest.ingest_paths(store, [spec["changed"]])
        return {"records": report.records, "quads_written": report.quads_written}

    return measure(run)


def stage_validate_incremental(spec: dict) -> dict:
    missing = available("kg.validation", "revalidate", "ValidationReport", "load_rules")
    if missing:
        return {"available": False, "note": missing}
    V = _module("kg.validation")
    from kg.store import GraphStore

    store = GraphStore(spec["store"])
    ids = [r["id"] for r in json.loads(Path(spec["changed"]).read_text(encoding="utf-8"))]
    # the report before the change: its record-local results are kept for the other records
    before = V.ValidationReport(results=[], rules=V.load_rules(_iris()))

    def run() -> dict:
        report = V.revalidate(before, store, ids)
        return {"records": len(ids), "results": len(report.results), "timings": dict(report.timings)}

    return _worker_cpu(measure(run))


def stage_export(spec: dict) -> dict:
    from kg.exports import export
    from kg.store import GraphStore

    fmt = spec["format"]
    store = GraphStore(spec["store"], read_only=True)
    target = Path(spec["scratch"]) / f"export-{fmt}.out"

    def run() -> dict:
        with open(target, "wb") as fh:
            export(store, fmt, fh, _iris())
        return {}

    out = measure(run)
    out["bytes"] = target.stat().st_size
    target.unlink()
    return out


def stage_store_dump(spec: dict) -> dict:
    """The store's own dump (pyoxigraph, nothing in Python) of every quad as N-Quads: the exports' floor."""
    from kg.store import GraphStore

    store = GraphStore(spec["store"], read_only=True)
    target = Path(spec["scratch"]) / "dump.nq"

    def run() -> dict:
        with open(target, "wb") as fh:
            store.dump(fh, "nquads")
        return {}

    out = measure(run)
    out["bytes"] = target.stat().st_size
    target.unlink()
    return out


def stage_bulk_load(spec: dict, lenient: bool = False, merged: bool = False) -> dict:
    """pyoxigraph's ``bulk_load`` of the quads kg writes (an N-Quads file made before the timer) into a
    fresh on-disk store: the ingest's floor in the store itself (``lenient``: without checking IRIs
    and language tags again, as kg loads its own text; ``merged``: then ``Store.optimize``, the merge
    of the load's files that a build does before it commits, so that both end with the same store)."""
    import pyoxigraph

    source = Path(spec["scratch"]) / "bulk.nq"
    target = Path(spec["scratch"]) / "bulk-store"
    shutil.rmtree(target, ignore_errors=True)
    with open(source, "w", encoding="utf-8") as fh:
        for q in _quads(spec):
            fh.write(f"{q} .\n")

    def run() -> dict:
        store = pyoxigraph.Store(str(target))
        store.bulk_load(path=str(source), format=pyoxigraph.RdfFormat.N_QUADS, lenient=lenient)
        store.flush()
        if merged:
            store.optimize()
        return {"quads": len(store)}

    out = measure(run)
    source.unlink()
    shutil.rmtree(target, ignore_errors=True)
    return out


def stage_validate_dask(spec: dict) -> dict:
    """``validate`` on a LocalCluster of two single-thread worker processes (started before the timer)."""
    missing = available("distributed", "LocalCluster")
    if missing:
        return {"available": False, "note": missing}
    import distributed
    from kg.store import GraphStore

    V = _module("kg.validation")
    store = GraphStore(spec["store"])
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=":0") as cluster:
        def run() -> dict:
            report = V.validate(store, scheduler=cluster.scheduler_address)
            return {"results": len(report.results), "violations": report.violations, "records": report.records,
                    "timings": dict(report.timings)}

        return _worker_cpu(measure(run))


def query_params(query: Any, ids: list[str]) -> dict[str, str] | None:
    """Values for the required parameters of a named query (None: cannot fill one)."""
    values: dict[str, str] = {}
    id_values = iter(ids)
    for param in query.params:
        if param.optional or param.default is not None:
            continue
        name = param.name.lower()
        if param.type in ("system", "iri") or name in ("id", "a", "b", "system", "source", "target"):
            values[param.name] = next(id_values, ids[0])
        elif param.type == "integer":
            values[param.name] = "2"
        elif param.type == "decimal":
            values[param.name] = "1.5"
        elif param.type == "boolean":
            values[param.name] = "true"
        elif param.type == "date":
            values[param.name] = "2025-01-01"
        elif name == "framework":
            values[param.name] = "SOC 2"
        elif param.type == "string":
            values[param.name] = "memory"
        else:
            return None
    return values


def _query_ids(spec: dict) -> list[str]:
    """Two record ids to bind: the record with most incoming edges (a hub), and the first record."""
    edges = json.loads(Path(spec["edges_file"]).read_text(encoding="utf-8"))["edges"]
    inbound: dict[str, int] = {}
    for edge in edges:
        inbound[edge["target"]] = inbound.get(edge["target"], 0) + 1
    hub = max(sorted(inbound), key=lambda k: inbound[k]) if inbound else None
    with open(spec["catalog"], encoding="utf-8") as fh:
        for line in fh:
            if line.startswith("{\"id\""):
                first = json.loads(line.rstrip().rstrip(","))["id"]
                break
    return [hub or first, first] if hub != first else [hub, first]


WARM_IF_UNDER = 10.0  # seconds: a query whose cold run takes longer is not run again warm


def _timed_runs(run_once: Callable[[], int], warm: int, timeout: float | None = None) -> dict:
    started = time.perf_counter()
    rows = with_alarm(timeout, run_once) if timeout else run_once()
    cold = time.perf_counter() - started
    times = []
    for _ in range(warm if cold < WARM_IF_UNDER else 0):
        started = time.perf_counter()
        with_alarm(timeout, run_once) if timeout else run_once()
        times.append(time.perf_counter() - started)
    return {"rows": rows, "cold_s": cold, "warm_min_s": min(times) if times else None,
            "warm_median_s": statistics.median(times) if times else None}


def stage_queries(spec: dict) -> dict:
    """Every named query (or those of ``spec['only']``), one after the other. Each result is
    appended to ``spec['progress']`` as it comes; a query running past ``spec['query_timeout']``
    is written down as a timeout and the process exits (the parent starts another one for the
    rest: a query inside the store cannot be interrupted)."""
    import threading

    Q = _module("kg.queries")
    from kg.store import GraphStore

    store = GraphStore(spec["store"], read_only=True)
    ids = _query_ids(spec)
    iris = _iris()
    progress = Path(spec["progress"])

    def note(entry: dict) -> None:
        with progress.open("a", encoding="utf-8") as fh:
            fh.write(json.dumps(entry) + "\n")

    def run() -> dict:
        for name in spec.get("only") or Q.available():
            query = Q.load(name)
            params = query_params(query, ids)
            if params is None:
                note({"name": name, "skipped": "cannot fill a parameter"})
                continue

            def once() -> int:
                return _consume_ox(Q.run(store, query, params, iris))

            def give_up() -> None:
                note({"name": name, "params": params, "timeout_s": spec["query_timeout"]})
                os._exit(3)

            watchdog = threading.Timer(spec["query_timeout"], give_up)
            watchdog.start()
            try:
                note({"name": name, "params": params, **_timed_runs(once, spec["warm"])})
            except Exception as err:  # a query that fails is reported, the others still run
                note({"name": name, "params": params, "error": f"{type(err).__name__}: {err}"})
            finally:
                watchdog.cancel()
        return {}

    return measure(run)


def run_queries(spec: dict, timeout: float) -> dict:
    """The queries stage: children until every query has an answer, a timeout or an error."""
    Q = _module("kg.queries")
    progress = Path(spec["scratch"]) / f"queries-{os.getpid()}.jsonl"
    names = Q.available()
    per_query: dict[str, Any] = {}
    children = []
    while True:
        remaining = [n for n in names if n not in per_query]
        if not remaining:
            break
        progress.unlink(missing_ok=True)
        out = run_child({**spec, "only": remaining, "progress": str(progress)}, timeout)
        children.append(out)
        if progress.exists():
            for line in progress.read_text(encoding="utf-8").splitlines():
                entry = json.loads(line)
                per_query[entry.pop("name")] = entry
        if all(n not in per_query for n in remaining):  # no progress: the child failed
            if not per_query:
                return out
            break
    progress.unlink(missing_ok=True)
    ran = [q for q in per_query.values() if "cold_s" in q]
    cold = sum(q["cold_s"] for q in ran)
    measured = [c for c in children if c.get("wall_s") is not None]
    return {
        "ok": True, "available": True, "wall_s": cold, "cold_total_s": cold,
        "warm_total_s": sum(q["warm_median_s"] or 0 for q in ran) if spec["warm"] else None,
        "cpu_s": sum(c.get("cpu_s", 0) for c in measured), "children_cpu_s": 0.0,
        "peak_rss_mb": max((c.get("peak_rss_mb", 0) for c in measured), default=0), "children_peak_rss_mb": 0,
        "processes": len(children), "queries": len(per_query), "ran": len(ran),
        "timeouts": sorted(n for n, q in per_query.items() if "timeout_s" in q),
        "errors": sorted(n for n, q in per_query.items() if "error" in q),
        "per_query": per_query, "noise": children[-1].get("noise", {}) if children else {},
    }


def _consume_ox(result: Any) -> int:
    """Materialise a pyoxigraph result (every value decoded); the number of rows or triples."""
    from pyoxigraph import QueryBoolean, QuerySolutions

    if isinstance(result, QueryBoolean):
        return int(bool(result))
    n = 0
    if isinstance(result, QuerySolutions) or hasattr(result, "variables"):
        names = [v.value for v in result.variables]
        for row in result:
            for name in names:
                row[name]
            n += 1
        return n
    for _ in result:
        n += 1
    return n


def stage_analyse(spec: dict) -> dict:
    missing = available("kg.analyse", "analyze")
    if missing:
        return {"available": False, "note": missing}
    from kg.analyse import analyze
    from kg.store import GraphStore

    store = GraphStore(spec["store"], read_only=True)

    def run() -> dict:
        analysis = analyze(store)
        return {"nodes": analysis.node_count, "edges": analysis.edge_count, "backend": analysis.backend,
                "seconds": {k: round(v, 4) for k, v in analysis.seconds.items()}}

    return measure(run)


# ---------------------------------------------------------------------------
# Baselines (the pipelines themselves are in baseline_rdflib.py)


def _quads(spec: dict) -> Any:
    return baseline.kg_quads(spec["catalog"], spec["edges_file"], spec.get("limit"))


def stage_floor(spec: dict) -> dict:
    """The floor: the same records, mapped to the same triples, written as N-Triples text."""
    target = Path(spec["scratch"]) / "floor.nt"
    count = [0]

    def run() -> dict:
        count[0] = baseline.write_ntriples(_quads(spec), target)
        return {}

    out = measure(run)
    out["triples"] = count[0]
    out["bytes"] = target.stat().st_size
    target.unlink()
    return out


def stage_rdflib_ingest(spec: dict) -> dict:
    holder: dict[str, Any] = {}

    def run() -> dict:
        holder["ds"] = baseline.build_dataset(_quads(spec))
        return {}

    out = measure(run)
    out["quads"] = len(holder["ds"])
    return out


def stage_rdflib_validate(spec: dict) -> dict:
    missing = available("kg.validation", "validate_monolithic")
    if missing:
        return {"available": False, "note": missing}
    graph = baseline.build_union_graph(_quads(spec))  # not timed: built as the ingest stage builds it

    def run() -> dict:
        report = baseline.validate(graph)
        return {"results": len(report.results), "violations": report.violations}

    out = measure(run)
    out["triples"] = len(graph)
    return out


def stage_rdflib_exports(spec: dict) -> dict:
    dataset = baseline.build_dataset(_quads(spec))  # not timed
    formats: dict[str, Any] = {}

    def run() -> dict:
        union = baseline.union_of(dataset)  # Turtle holds triples: the union, as kg writes it
        for fmt in baseline.EXPORT_FORMATS:
            target = Path(spec["scratch"]) / f"rdflib-{fmt}.out"
            started = time.perf_counter()
            try:
                with_alarm(spec["timeout_each"], lambda: baseline.export(dataset, union, fmt, target))
                formats[fmt] = {"wall_s": time.perf_counter() - started, "bytes": target.stat().st_size}
            except Timeout:
                formats[fmt] = {"timeout_s": spec["timeout_each"]}
            target.unlink(missing_ok=True)
        return {}

    out = measure(run)
    out["formats"] = formats
    return out


def stage_rdflib_queries(spec: dict) -> dict:
    Q = _module("kg.queries")
    dataset = baseline.build_dataset(_quads(spec))  # not timed
    ids = _query_ids(spec)
    iris = _iris()
    per_query: dict[str, Any] = {}

    def run() -> dict:
        for name in Q.available():
            query = Q.load(name)
            params = query_params(query, ids)
            if params is None:
                per_query[name] = {"skipped": "cannot fill a parameter"}
                continue
            text = Q.bound_text(query, params, iris)  # the very text kg sends to its store
            limit = Q.row_limit(query, params)
            try:
                per_query[name] = {"params": params, **_timed_runs(
                    lambda: baseline.query_rows(dataset, text, limit), spec["warm"], spec["query_timeout"])}
            except Timeout:
                per_query[name] = {"params": params, "timeout_s": spec["query_timeout"]}
            except Exception as err:
                per_query[name] = {"params": params, "error": f"{type(err).__name__}: {str(err)[:200]}"}
        ran = [q for q in per_query.values() if "cold_s" in q]
        return {"queries": len(per_query), "ran": len(ran), "cold_total_s": sum(q["cold_s"] for q in ran)}

    out = measure(run)
    out["per_query"] = per_query
    out["measured_wall_s"], out["wall_s"] = out["wall_s"], out["cold_total_s"]  # as kg's queries stage
    return out


# ---------------------------------------------------------------------------
# Profiles


def stage_profile(spec: dict) -> dict:
    """cProfile of one stage (ingest into a new store, or validation in one process)."""
    import cProfile
    import io
    import pstats

    from kg.store import GraphStore

    profiler = cProfile.Profile()
    what = spec["what"]
    if what == "ingest":
        ingest = _kg_ingest()
        store = GraphStore(spec["store"])
        started = time.perf_counter()
        profiler.enable()
        ingest.ingest_paths(store, [spec["catalog"], spec["edges_file"]])
        profiler.disable()
    else:
        V = _module("kg.validation")

        store = GraphStore(spec["store"])
        started = time.perf_counter()
        profiler.enable()
        # one process, so the profile sees the pySHACL work (stock pySHACL: the speed-ups run in workers only)
        V.validate(store, jobs=1)
        profiler.disable()
    wall = time.perf_counter() - started
    stats = pstats.Stats(profiler)
    rows = []
    for (file, line, func), (cc, nc, tt, ct, _) in stats.stats.items():
        rows.append({"file": _short_path(file), "line": line, "func": func, "calls": nc, "tottime": tt, "cumtime": ct})
    rows.sort(key=lambda r: -r["tottime"])
    text = io.StringIO()
    pstats.Stats(profiler, stream=text).sort_stats("cumulative").print_stats(25)
    return {"wall_s": wall, "total_tottime": sum(r["tottime"] for r in rows), "top": rows[:400],
            "cumulative_text": text.getvalue()[-6000:]}


def _short_path(file: str) -> str:
    for marker in ("site-packages/", "/work/main/", str(ROOT) + "/", "lib/python3"):
        if marker in file:
            return file.split(marker, 1)[1]
    return file


STAGES: dict[str, Callable[[dict], dict]] = {
    "ingest": stage_ingest,
    "validate-full": stage_validate_full,
    "reingest-100": stage_reingest,
    "validate-incremental": stage_validate_incremental,
    **{f"export-{fmt}": stage_export for fmt in EXPORT_FORMATS},
    "queries": stage_queries,
    "analyse": stage_analyse,
    "floor-ntriples": stage_floor,
    "rdflib-ingest": stage_rdflib_ingest,
    "rdflib-validate": stage_rdflib_validate,
    "rdflib-exports": stage_rdflib_exports,
    "rdflib-queries": stage_rdflib_queries,
    "profile": stage_profile,
    "store-dump-nquads": stage_store_dump,
    "bulk-load": stage_bulk_load,
    "bulk-load-lenient": functools.partial(stage_bulk_load, lenient=True),
    "bulk-load-merged": functools.partial(stage_bulk_load, merged=True),
    "validate-dask": stage_validate_dask,
}


def child_main(spec_text: str) -> int:
    spec = json.loads(spec_text)
    try:
        out = STAGES[spec["stage"]](spec)
        out.setdefault("available", True)
        out["ok"] = True
    except Exception as err:
        out = {"ok": False, "available": True, "error": f"{type(err).__name__}: {err}",
               "traceback": traceback.format_exc()[-3000:]}
    sys.stdout.write("\n@@RESULT@@" + json.dumps(out, default=str) + "\n")
    sys.stdout.flush()
    return 0


# ---------------------------------------------------------------------------
# The parent: runs children, watches the machine


def _proc_stat() -> tuple[float, float]:
    """(busy, total) CPU jiffies of the whole machine."""
    with open("/proc/stat") as fh:
        fields = [float(x) for x in fh.readline().split()[1:]]
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)
    return sum(fields) - idle, sum(fields)


def _loadavg() -> float:
    with open("/proc/loadavg") as fh:
        return float(fh.read().split()[0])


def _limit_memory(megabytes: int | None) -> Callable[[], None] | None:
    """A pre-exec hook capping the child's data segment (a runaway stage fails, instead of
    the machine's OOM killer picking some process)."""
    if not megabytes:
        return None

    def cap() -> None:
        limit = megabytes * 2**20
        resource.setrlimit(resource.RLIMIT_DATA, (limit, limit))

    return cap


def run_child(spec: dict, timeout: float) -> dict:
    """One stage in a fresh process, with the machine's load around it."""
    busy0, total0 = _proc_stat()
    load0 = _loadavg()
    kids0 = _cpu(resource.getrusage(resource.RUSAGE_CHILDREN))
    started = time.perf_counter()
    try:
        done = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--child", json.dumps(spec)],
                              cwd=ROOT, capture_output=True, text=True, timeout=timeout,
                              preexec_fn=_limit_memory(spec.get("memory_mb")))
        marker = done.stdout.rfind("@@RESULT@@")
        if marker >= 0:
            out = json.loads(done.stdout[marker + len("@@RESULT@@"):].strip().splitlines()[0])
        else:
            out = {"ok": False, "available": True, "error": f"child exited {done.returncode}",
                   "stderr": done.stderr[-3000:]}
    except subprocess.TimeoutExpired:
        out = {"ok": False, "available": True, "error": f"timeout after {timeout:.0f} s"}
    elapsed = time.perf_counter() - started
    busy1, total1 = _proc_stat()
    ticks = os.sysconf("SC_CLK_TCK")
    cores = os.cpu_count() or 1
    # the child's whole CPU, the untimed set-up included (a bulk load writes its N-Quads file first)
    own = _cpu(resource.getrusage(resource.RUSAGE_CHILDREN)) - kids0
    busy_s = (busy1 - busy0) / ticks
    out["noise"] = {
        "load1_before": load0, "load1_after": _loadavg(),
        # CPU time used by other processes while the child ran, as a share of the machine
        "others_cpu_share": min(1.0, max(0.0, (busy_s - own) / (elapsed * cores))) if elapsed > 0 else None,
        "child_elapsed_s": elapsed,
    }
    return out


def machine_info() -> dict[str, Any]:
    import importlib.metadata as md

    cpu = ""
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = 0
    try:
        for line in open("/proc/meminfo"):
            if line.startswith("MemTotal"):
                mem = int(line.split()[1]) // 1024
    except OSError:
        pass
    versions = {}
    for name in ("pyoxigraph", "rdflib", "pyshacl", "networkx", "igraph", "scipy", "matplotlib"):
        try:
            versions[name] = md.version(name)
        except md.PackageNotFoundError:
            versions[name] = None
    commit = None
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                                text=True).stdout.strip() or None
    except OSError:
        pass
    return {"platform": platform.platform(), "python": platform.python_version(), "cpu": cpu,
            "cores": os.cpu_count(), "memory_mb": mem, "versions": versions, "git_commit": commit}


def plan(size: int, args: argparse.Namespace) -> list[tuple[str, dict]]:
    """(stage, extra spec) in the order they run for one repeat at ``size``."""
    steps: list[tuple[str, dict]] = [("ingest", {})]
    if size <= args.full_validate_max:
        steps.append(("validate-full", {}))
    if size <= args.export_max:
        formats = QUICK_EXPORT_FORMATS if args.quick else EXPORT_FORMATS
        steps += [(f"export-{fmt}", {"format": fmt}) for fmt in formats]
        steps += [] if args.quick else [("store-dump-nquads", {})]
    if size <= min(args.full_validate_max, args.dask_max) and not args.quick:
        steps.append(("validate-dask", {}))
    steps += [("queries", {}), ("analyse", {}), ("reingest-100", {}), ("validate-incremental", {})]
    return steps


def baseline_plan(size: int, repeat: int, args: argparse.Namespace) -> list[tuple[str, dict]]:
    limit = {"limit": QUICK_SUBSET} if args.quick else {}
    steps: list[tuple[str, dict]] = [("floor-ntriples", dict(limit))]
    steps += [] if args.quick else [("bulk-load", {}), ("bulk-load-lenient", {}), ("bulk-load-merged", {})]
    if size <= args.rdflib_max:
        steps.append(("rdflib-ingest", dict(limit)))
        steps.append(("rdflib-validate", dict(limit)))
        if repeat < args.baseline_repeats:
            steps.append(("rdflib-exports", dict(limit)))
            # --quick: cold runs only (rdflib takes seconds over some queries even on the subset)
            steps.append(("rdflib-queries", {**limit, "warm": 0, "query_timeout": QUICK_RDFLIB_QUERY_TIMEOUT}
                          if args.quick else {}))
    return steps


def run_all(args: argparse.Namespace) -> Path:
    work = Path(args.work)
    scratch = work / "scratch"
    scratch.mkdir(parents=True, exist_ok=True)
    stamp = _dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    out_path = Path(args.out) / f"run-{stamp}.json"
    out_path.parent.mkdir(parents=True, exist_ok=True)
    results: dict[str, Any] = {
        "meta": {"command": "python benchmarks/run.py " + " ".join(args.argv), "started": _dt.datetime.now().isoformat(
            timespec="seconds"), "machine": machine_info(), "args": {k: v for k, v in vars(args).items() if k != "argv"}},
        "data": {}, "runs": [], "profiles": {},
    }

    def log(text: str) -> None:
        if not args.silent:
            print(text, file=sys.stderr, flush=True)

    def save() -> None:
        results["meta"]["finished"] = _dt.datetime.now().isoformat(timespec="seconds")
        out_path.write_text(json.dumps(results, indent=1, default=str), encoding="utf-8")

    for size in args.sizes:
        data = ensure_data(work, size, args.seed, log, args.changed)
        results["data"][str(size)] = {k: v for k, v in data.items() if k not in ("catalog", "edges_file", "changed")}
        repeats = args.repeats if size < args.large_size else min(args.repeats, args.large_repeats)
        base = {"size": size, "catalog": data["catalog"], "edges_file": data["edges_file"],
                "changed": data["changed"], "scratch": str(scratch), "warm": args.query_warm if size < args.large_size
                else args.large_query_warm, "timeout_each": args.rdflib_timeout,
                "query_timeout": args.query_timeout, "memory_mb": args.memory_limit}
        for repeat in range(repeats):
            store = work / f"store-{size}"
            if not args.reuse_store:
                shutil.rmtree(store, ignore_errors=True)
            steps = [("kg", s, e) for s, e in plan(size, args)] if not args.baselines_only else []
            if not args.no_baselines:
                steps += [("baseline", s, e) for s, e in baseline_plan(size, repeat, args)]
            for impl, stage, extra in steps:
                if args.stages and stage not in args.stages:
                    continue
                if stage != "ingest" and impl == "kg" and not store.exists():
                    continue
                spec = {**base, **extra, "stage": stage, "store": str(store)}
                log(f"[{size} #{repeat + 1}] {stage} ...")
                out = run_queries(spec, args.timeout) if stage == "queries" else run_child(spec, args.timeout)
                out.update(size=size, repeat=repeat, stage=stage, impl=impl, limit=spec.get("limit"))
                results["runs"].append(out)
                shown = (f"{out['wall_s']:.2f} s, {out['peak_rss_mb']:.0f} MB" if out.get("wall_s") is not None
                         else out.get("note") or out.get("error"))
                log(f"    {shown}  (others' CPU {out['noise']['others_cpu_share'] or 0:.0%})")
                save()
            if not args.reuse_store:
                shutil.rmtree(store, ignore_errors=True)
        if args.profile and size == min(args.sizes):
            store = work / f"store-profile-{size}"
            shutil.rmtree(store, ignore_errors=True)
            for what in ("ingest", "validate"):
                log(f"[{size}] profile {what} ...")
                out = run_child({**base, "stage": "profile", "what": what, "store": str(store)}, args.timeout)
                results["profiles"][f"{what}-{size}"] = out
                save()
            shutil.rmtree(store, ignore_errors=True)
    save()
    if not args.keep_data:
        shutil.rmtree(scratch, ignore_errors=True)
    if args.merge_into:
        return merge_results(Path(args.merge_into), results, Path(args.out) / f"run-{stamp}-merged.json")
    return out_path


def merge_results(earlier_path: Path, later: dict, out_path: Path) -> Path:
    """``earlier_path``'s results with every (size, stage) that ``later`` measured replaced
    by the later runs (stages run again after a fix); the reruns are listed in the meta."""
    earlier = json.loads(earlier_path.read_text(encoding="utf-8"))
    redone = {(r["size"], r["stage"]) for r in later["runs"]}
    merged = dict(earlier)
    merged["runs"] = [r for r in earlier["runs"] if (r["size"], r["stage"]) not in redone] + [
        {**r, "rerun": True} for r in later["runs"]]
    merged["data"] = {**earlier["data"], **later["data"]}
    merged["profiles"] = {**earlier.get("profiles", {}), **later.get("profiles", {})}
    merged["meta"] = {**earlier["meta"], "reruns": earlier["meta"].get("reruns", []) + [{
        "command": later["meta"]["command"], "started": later["meta"]["started"],
        "finished": later["meta"].get("finished"), "git_commit": later["meta"]["machine"].get("git_commit"),
        "from": _rel(earlier_path), "stages": sorted({f"{stage} at {size:,}" for size, stage in redone})}]}
    out_path.write_text(json.dumps(merged, indent=1, default=str), encoding="utf-8")
    return out_path


# ---------------------------------------------------------------------------
# Summaries (used by the report and by tests)


def median(values: list[float]) -> float | None:
    return statistics.median(values) if values else None


def summarise(results: dict) -> dict[tuple[str, int], dict[str, Any]]:
    """(stage, size) -> median/min wall, CPU, peak RSS over the repeats that succeeded.

    The rdflib exports and queries children are split into one entry per format /
    the query total, so they line up with ours.
    """
    rows: dict[tuple[str, int], list[dict]] = {}
    for run in results["runs"]:
        if not run.get("ok") or not run.get("available", True):
            continue
        if run["stage"] == "rdflib-exports":
            for fmt, got in run.get("formats", {}).items():
                if "wall_s" in got:
                    rows.setdefault((f"rdflib-export-{fmt}", run["size"]), []).append(
                        {**got, "peak_rss_mb": run["peak_rss_mb"], "subset": run.get("limit")})
            continue
        rows.setdefault((run["stage"], run["size"]), []).append(run)
    out = {}
    for key, runs in rows.items():
        walls = [r["wall_s"] for r in runs]
        out[key] = {
            "n": len(runs), "median_s": median(walls), "min_s": min(walls), "max_s": max(walls),
            "cpu_median_s": median([r.get("cpu_s", 0) + r.get("children_cpu_s", 0) for r in runs if "cpu_s" in r]),
            "peak_rss_mb": max(r.get("peak_rss_mb", 0) for r in runs),
            "children_peak_rss_mb": max(r.get("children_peak_rss_mb", 0) or 0 for r in runs),
            "runs": runs,
        }
    return out


def per_record_ms(entry: dict | None, records: int, which: str = "median_s") -> float | None:
    if not entry or entry.get(which) is None or not records:
        return None
    return 1000 * entry[which] / records


def stage_records(stage: str, size: int, results: dict) -> int:
    """How many records a stage's time is divided by (the incremental stages handle the changed
    records: 100, or ``--changed``)."""
    if stage in ("reingest-100", "validate-incremental"):
        return min(changed_count(results), size)
    return size


def changed_count(results: dict) -> int:
    """The records changed for the incremental stages of a run (runs before ``--changed``: 100)."""
    return results["meta"]["args"].get("changed") or CHANGED


def floors(results: dict) -> list[dict[str, Any]]:
    """The issue's floors, each with the figures it was decided on."""
    summary = summarise(results)
    sizes = sorted(int(s) for s in results["data"])
    small = 912 if 912 in sizes else (sizes[0] if sizes else None)
    checks = []

    def get(stage: str, size: int | None) -> dict | None:
        entry = summary.get((stage, size)) if size is not None else None
        if entry and any(r.get("limit") or r.get("subset") for r in entry["runs"]):
            return None  # a subset run (--quick) decides nothing
        return entry

    big = 45600 if 45600 in sizes else None
    mid = 9120 if 9120 in sizes else None
    ingest_big = get("ingest", big)
    checks.append({
        "floor": "ingest of 45,600 full-shape records streams with peak memory under 4 GB",
        "value": f"{ingest_big['peak_rss_mb']:,.0f} MB peak RSS" if ingest_big else None,
        "holds": (ingest_big["peak_rss_mb"] < 4096) if ingest_big else None,
    })
    for stage, other, label in (("ingest", big, "50x"), ("validate-full", mid, "10x"), ("validate-full", big, "50x")):
        a, b = get(stage, small), get(stage, other)
        if a and b:
            ratio = per_record_ms(b, other) / per_record_ms(a, small)
            ratio_min = per_record_ms(b, other, "min_s") / per_record_ms(a, small, "min_s")
            value = (f"{per_record_ms(a, small):.2f} ms/record at {small:,} -> {per_record_ms(b, other):.2f} at "
                     f"{other:,}: {ratio:.2f}x (medians; {ratio_min:.2f}x on the minima)")
            holds = ratio <= 1.3
        else:
            value, holds = None, None
        checks.append({"floor": f"{stage}: time per record at {label} within 1.3x of the time per record at 1x",
                       "value": value, "holds": holds})
    checks += _scale_floors(results, get, 912 if 912 in sizes else None, big)  # these name 912 and 45,600
    ours, theirs = get("ingest", small), get("rdflib-ingest", small)
    if ours and theirs:
        ratio = theirs["median_s"] / ours["median_s"]
        checks.append({"floor": "912 records: ingest at least 4x faster than the rdflib-only pipeline",
                       "value": f"rdflib {theirs['median_s']:.1f} s / kg {ours['median_s']:.1f} s = {ratio:.2f}x",
                       "holds": ratio >= 4})
    else:
        checks.append({"floor": "912 records: ingest at least 4x faster than the rdflib-only pipeline",
                       "value": None, "holds": None})
    ov, tv = get("validate-full", small), get("rdflib-validate", small)
    if ours and theirs and ov and tv:
        mine = ours["median_s"] + ov["median_s"]
        other = theirs["median_s"] + tv["median_s"]
        checks.append({"floor": "912 records: ingest plus validation at least 2.5x faster than the rdflib-only pipeline",
                       "value": f"rdflib {theirs['median_s']:.1f} + {tv['median_s']:.1f} s / kg {ours['median_s']:.1f} + "
                                f"{ov['median_s']:.1f} s = {other / mine:.2f}x",
                       "holds": other / mine >= 2.5})
    else:
        checks.append({"floor": "912 records: ingest plus validation at least 2.5x faster than the rdflib-only pipeline",
                       "value": None, "holds": None})
    return checks


def _scale_floors(results: dict, get: Callable[[str, int | None], dict | None], small: int | None,
                  big: int | None) -> list[dict[str, Any]]:
    """Issue 16's floors: incremental work flat in the store's size, queries at 50x, exports against
    the store's own dump, ingest against its bulk load, memory at 50x."""
    checks: list[dict[str, Any]] = []
    changed = changed_count(results)
    for stage, what in (("reingest-100", "re-ingest"), ("validate-incremental", "revalidation")):
        a, b = get(stage, small), get(stage, big)
        floor = f"{what} of {changed} changed records, per record: at 45,600 within 1.5x of 912"
        if a and b:
            ratio = b["median_s"] / a["median_s"]
            checks.append({"floor": floor, "holds": ratio <= 1.5, "value": (
                f"{1000 * a['median_s'] / changed:.1f} ms at {small:,} -> {1000 * b['median_s'] / changed:.1f} at "
                f"{big:,}: {ratio:.2f}x")})
        else:
            checks.append({"floor": floor, "value": None, "holds": None})
    for size, limit in ((big, 1.0), (small, 0.1)):
        if size is None:
            continue
        entry = get("queries", size)
        floor = f"every named query at {size:,} records under {limit:g} s"
        if not entry:
            checks.append({"floor": floor, "value": None, "holds": None})
            continue
        per = entry["runs"][-1].get("per_query") or {}
        times = {name: q.get("warm_median_s") if q.get("warm_median_s") is not None else q.get("cold_s")
                 for name, q in per.items()}
        slow = sorted(((t, n) for n, t in times.items() if t is None or t >= limit), key=lambda x: -(x[0] or 1e9))
        shown = ", ".join(f"{n} {t:.2f} s" if t is not None else f"{n} (no time)" for t, n in slow[:6])
        kind = "warm medians" if any(q.get("warm_median_s") is not None for q in per.values()) else "cold, one run each"
        checks.append({"floor": floor, "holds": not slow, "value": (
            f"{len(times) - len(slow)} of {len(times)} under ({kind})" + (f"; slowest: {shown}" if slow else ""))})
    for size in [n for n in (small, big) if n is not None]:
        dump = get("store-dump-nquads", size)
        for fmt, limit in (("nquads", 1.3), ("trig", 1.3), ("turtle", 1.3), ("jsonld", 2.0)):
            entry = get(f"export-{fmt}", size)
            floor = f"export {fmt} at {size:,} records within {limit:g}x of the store's own N-Quads dump"
            if entry and dump:
                ratio = entry["median_s"] / dump["median_s"]
                checks.append({"floor": floor, "holds": ratio <= limit, "value": (
                    f"{entry['median_s']:.1f} s / dump {dump['median_s']:.1f} s = {ratio:.2f}x (wall); CPU "
                    f"{entry['cpu_median_s'] / dump['cpu_median_s']:.2f}x")})
            elif entry or dump:
                checks.append({"floor": floor, "value": None, "holds": None})
        ours, bulk = get("ingest", size), get("bulk-load", size)
        if ours and bulk:
            ratio = ours["median_s"] / bulk["median_s"]
            also = ""
            for stage, label in INGEST_ALSO_AGAINST:
                other = get(stage, size)
                if other:
                    also += (f"; against {label}, {other['median_s']:.1f} s: "
                             f"{ours['median_s'] / other['median_s']:.2f}x")
            checks.append({"floor": f"ingest at {size:,} records within 1.5x of pyoxigraph's bulk_load of the same quads",
                           "holds": ratio <= 1.5, "value": (
                               f"{ours['median_s']:.1f} s / bulk_load {bulk['median_s']:.1f} s = {ratio:.2f}x (wall); "
                               f"CPU {ours['cpu_median_s']:.0f} s / {bulk['cpu_median_s']:.0f} s{also}")})
    if big is not None:
        measured = {stage: entry for (stage, size), entry in summarise(results).items()
                    if size == big and not stage.startswith(("rdflib", "floor"))}
        if measured:
            top = max(measured.items(), key=lambda kv: max(kv[1]["peak_rss_mb"], kv[1]["children_peak_rss_mb"]))
            peak = max(top[1]["peak_rss_mb"], top[1]["children_peak_rss_mb"])
            checks.append({"floor": "peak RSS under 4 GB for every stage at 45,600", "holds": peak < 4096,
                           "value": f"highest: {top[0]} {peak:,.0f} MB ({len(measured)} stages)"})
    return checks


# ---------------------------------------------------------------------------
# Report


def _fmt_s(value: float | None) -> str:
    if value is None:
        return "–"
    if value >= 100:
        return f"{value:,.0f}"
    if value >= 10:
        return f"{value:.1f}"
    if value >= 0.1:
        return f"{value:.2f}"
    return f"{value:.3f}"


def _fmt_ms(value: float | None) -> str:
    return "–" if value is None else (f"{value:.1f}" if value >= 10 else f"{value:.2f}")


def plot(results: dict, path: Path) -> Path | None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    summary = summarise(results)
    sizes = sorted(int(s) for s in results["data"])
    fig, ax = plt.subplots(figsize=(9, 5.5), dpi=110)
    stages = [s for s in OUR_STAGES if any((s, n) in summary for n in sizes)]
    baselines = [s for s in ("floor-ntriples", "rdflib-ingest", "rdflib-validate") if any((s, n) in summary for n in sizes)]
    for stage in stages + baselines:
        xs, ys = [], []
        for n in sizes:
            entry = summary.get((stage, n))
            if entry and not any(r.get("limit") for r in entry["runs"]):
                xs.append(n)
                ys.append(per_record_ms(entry, stage_records(stage, n, results)))
        if not xs:
            continue
        style = "--" if stage in baselines else "-"
        ax.plot(xs, ys, style, marker="o", label=stage)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xticks(sizes)
    ax.set_xticklabels([f"{n:,}" for n in sizes])
    ax.set_xlabel("catalog size (records)")
    ax.set_ylabel("median wall time per record (ms)")
    ax.set_title("kg: time per record by stage (flat line = linear cost)")
    ax.grid(True, which="both", alpha=0.3)
    if ax.lines:
        ax.legend(fontsize=8, ncol=2)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path


def _profile_buckets(profile: dict, what: str) -> list[tuple[str, float]]:
    """Shares of the profiled time by where it goes (functions' own time, by module)."""
    def bucket(row: dict) -> str:
        file, func = row["file"], row["func"]
        if what == "ingest":
            if "pyoxigraph.Store" in func and ("extend" in func or "bulk" in func):
                return "store writes (pyoxigraph bulk insert)"
            if "pyoxigraph.Store" in func:
                return "SPARQL in the store (clean-up, description)"
            if file.startswith("json/") or func in ("_no_duplicate_keys", "_finite", "_integer") \
                    or "raw_decode" in func or "scan_once" in func:
                return "JSON parsing"
            # file names of the layout before and after the re-partition, so older raw results still classify
            if file.startswith(("kg/mapping", "kg/normalise", "kg/vocab.py")) \
                    or "pyoxigraph.Quad" in func or "pyoxigraph.Literal" in func or "pyoxigraph.NamedNode" in func:
                return "mapping records to quads"
            if file.startswith(("kg/records.py", "kg/ingest", "kg/sources")):
                return "checking records (kg.records, kg.ingestion, kg.sources)"
            return "other"
        if file.startswith("pyshacl/"):
            return "pySHACL"
        if file.startswith("rdflib/"):
            return "rdflib (graph lookups, terms)"
        if file.startswith(("kg/validation/", "kg/validate.py")):
            return "kg.validation (conversion to rdflib, results)"
        if "pyoxigraph" in func:
            return "pyoxigraph (reading the store, SPARQL checks)"
        return "other"

    totals: dict[str, float] = {}
    for row in profile.get("top", []):
        totals[bucket(row)] = totals.get(bucket(row), 0) + row["tottime"]
    whole = profile.get("total_tottime") or sum(totals.values()) or 1
    listed = sum(totals.values())
    if whole > listed:
        totals["other"] = totals.get("other", 0) + whole - listed
    return sorted(((k, v / whole) for k, v in totals.items()), key=lambda kv: -kv[1])


def render_report(results: dict, results_path: Path, report_path: Path, plot_path: Path) -> str:
    summary = summarise(results)
    meta = results["meta"]
    machine = meta["machine"]
    sizes = sorted(int(s) for s in results["data"])
    lines: list[str] = []
    add = lines.append
    add("# Benchmarks: kg at 1x, 10x and 50x the catalog")
    add("")
    add(f"Generated by `{meta['command']}` ({meta['started']} to {meta.get('finished', '?')}); raw results: "
        f"`{_rel(results_path)}`. Every figure below comes from that file; `python benchmarks/run.py "
        f"--report-only {_rel(results_path)}` renders this page again.")
    if meta.get("note"):  # what a person running the benchmark had to say about how it ran
        add("")
        add(meta["note"])
    add("")
    add("## Machine and versions")
    add("")
    versions = ", ".join(f"{k} {v}" for k, v in machine["versions"].items() if v)
    add(f"{machine['cpu'] or 'unknown CPU'}, {machine['cores']} cores, {machine['memory_mb']:,} MB memory; "
        f"{machine['platform']}; Python {machine['python']}; {versions}; kg at commit {machine.get('git_commit') or '?'} "
        "(plus the working tree).")
    for rerun in meta.get("reruns", []):
        add("")
        add(f"**Stages run again** with `{rerun['command']}` ({rerun['started']} to {rerun.get('finished', '?')}, kg at "
            f"commit {rerun.get('git_commit') or '?'}), their runs replacing those of `{rerun['from']}`: "
            + ", ".join(rerun["stages"]) + ".")
    add("")
    add(_noise_paragraph(results))
    add("")
    add("## Data")
    add("")
    add("Full-shape synthetic catalogs from `benchmarks/generate.py` (deterministic, seed "
        f"{meta['args']['seed']}; 107 cells per record, the seed record's shape), plus their edges files.")
    add("")
    add("| records | edges | catalog JSON | quads in the store | store on disk |")
    add("|---:|---:|---:|---:|---:|")
    for n in sizes:
        d = results["data"][str(n)]
        ing = summary.get(("ingest", n))
        quads = ing["runs"][0].get("quads") if ing else None
        store = ing["runs"][0].get("store_bytes") if ing else None
        add(f"| {n:,} | {d['edges']:,} | {d['catalog_bytes'] / 2**20:,.0f} MiB | "
            f"{f'{quads:,}' if quads else '–'} | {f'{store / 2**20:,.0f} MiB' if store else '–'} |")
    add("")
    add("## Floors")
    add("")
    add("| floor | measured | holds |")
    add("|---|---|---|")
    for check in floors(results):
        verdict = {True: "**yes**", False: "**no**", None: "not measured"}[check["holds"]]
        add(f"| {check['floor']} | {check['value'] or '–'} | {verdict} |")
    add("")
    add(_reading(results, summary, sizes))
    add("## Stages")
    add("")
    add("Wall time is the median over the repeats (min in brackets); per record divides by the records the stage "
        f"handles ({changed_count(results)} for `reingest-100` and `validate-incremental`); CPU is the stage's "
        "own plus its worker processes'; RSS is the process peak (workers in brackets).")
    add("")
    add("| stage | records | runs | wall s | per record ms | records/s | CPU s | peak RSS MB |")
    add("|---|---:|---:|---:|---:|---:|---:|---:|")
    for stage in list(OUR_STAGES) + list(STORE_STAGES) + ["floor-ntriples", "rdflib-ingest", "rdflib-validate",
                                     *[f"rdflib-export-{f}" for f in baseline.EXPORT_FORMATS], "rdflib-queries"]:
        for n in sizes:
            entry = summary.get((stage, n))
            if not entry:
                continue
            handled = stage_records(stage, n, results)
            subset = entry["runs"][0].get("limit") or entry["runs"][0].get("subset")
            if subset:
                handled = subset
            rss = f"{entry['peak_rss_mb']:,.0f}"
            if entry["children_peak_rss_mb"] > 0 and stage in ("validate-full", "validate-incremental"):
                rss += f" ({entry['children_peak_rss_mb']:,.0f})"
            add(f"| {stage}{' (subset)' if subset else ''} | {handled:,} | {entry['n']} | {_fmt_s(entry['median_s'])} "
                f"({_fmt_s(entry['min_s'])}) | {_fmt_ms(per_record_ms(entry, handled))} | "
                f"{handled / entry['median_s']:,.0f} | {_fmt_s(entry['cpu_median_s'])} | {rss} |")
    add("")
    skipped = _skipped(results, sizes)
    if skipped:
        add("Not run: " + "; ".join(skipped) + ".")
        add("")
    add("## Ratios: kg over the baselines")
    add("")
    add("Our median wall time divided by the baseline's (below 1: kg is faster; `1/x` is how many times faster).")
    add("")
    add("| stage | size | kg s | baseline | baseline s | kg / baseline | baseline / kg |")
    add("|---|---:|---:|---|---:|---:|---:|")
    for stage, bases in RATIOS.items():
        for n in sizes:
            ours = summary.get((stage, n))
            for base in bases:
                theirs = summary.get((base, n))
                if not ours or not theirs:
                    continue
                if any(r.get("limit") or r.get("subset") for r in theirs["runs"]):
                    continue
                if stage == "queries":
                    ours_s, theirs_s = _common_query_totals(ours["runs"], theirs["runs"])
                else:
                    ours_s, theirs_s = ours["median_s"], theirs["median_s"]
                if not ours_s or not theirs_s:
                    continue
                add(f"| {stage} | {n:,} | {_fmt_s(ours_s)} | {base} | {_fmt_s(theirs_s)} | {ours_s / theirs_s:.2f} | "
                    f"{theirs_s / ours_s:.1f}x |")
    add("")
    add("For queries the totals are of the cold runs of the queries both engines answered.")
    add("")
    add("## Time per record against size")
    add("")
    if plot_path.exists():
        add(f"![time per record by stage]({plot_path.name})")
        add("")
    add("A flat line is a cost that grows linearly with the catalog; a rising one grows faster.")
    add("")
    add(_query_table(results, summary, sizes))
    add(_profile_section(results))
    add(_endpoint_section())
    add("## Reproduce")
    add("")
    add("```")
    add(meta["command"])
    add("```")
    add("")
    add("Generated data and stores go to `--work` (default `/tmp/kg-bench`; the catalogs are cached there while "
        "`benchmarks/generate.py` is unchanged). The CI-sized run is `python benchmarks/run.py --sizes 60 "
        "--repeats 1 --quick` (tests/test_benchmarks.py).")
    add("")
    text = "\n".join(lines)
    report_path.write_text(text, encoding="utf-8")
    return text


def _reading(results: dict, summary: dict, sizes: list[int]) -> str:
    """What the figures say, in sentences computed from them."""
    out = ["### What the figures say", ""]
    small = sizes[0] if sizes else None

    def med(stage: str, n: int, key: str = "median_s") -> float | None:
        entry = summary.get((stage, n))
        if not entry or any(r.get("limit") for r in entry["runs"]):
            return None
        return entry[key]

    ingest, floor_s, rd = med("ingest", small), med("floor-ntriples", small), med("rdflib-ingest", small)
    if ingest and floor_s:
        cpu, floor_cpu = med("ingest", small, "cpu_median_s"), med("floor-ntriples", small, "cpu_median_s")
        out.append(
            f"- **Where ingest time goes.** At {small:,} records kg's ingest takes {ingest:.1f} s ({cpu:.1f} s CPU). "
            f"The floor, which reads, checks and maps the same records into the same triples and only writes them "
            f"as text, takes {floor_s:.1f} s ({floor_cpu:.1f} s CPU): producing the triples is about "
            f"{floor_cpu / cpu:.0%} of ingest's CPU, and indexing them in the on-disk store (plus the dataset "
            f"description and clean-up) the other {1 - floor_cpu / cpu:.0%}.")
    if ingest and rd:
        rd_cpu = med("rdflib-ingest", small, "cpu_median_s")
        out.append(
            f"- **Against rdflib.** The rdflib-only pipeline builds its in-memory Dataset from the same records in "
            f"{rd:.1f} s ({rd_cpu:.1f} s CPU): {rd / ingest:.1f}x kg's wall time. Both pipelines share the parsing, "
            f"checking and mapping (the floor's {floor_s or 0:.1f} s); the difference is rdflib's term objects and "
            f"its in-memory indexes against Oxigraph's on-disk indexes.")
    streamed = [(n, summary[("ingest", n)]) for n in sizes if ("ingest", n) in summary
                and summary[("ingest", n)]["runs"][0].get("streamed")]
    if streamed:
        out.append("- **Streaming.** " + "; ".join(
            f"at {n:,} records (a {results['data'][str(n)]['catalog_bytes'] / 2**20:,.0f} MiB catalog file) ingest "
            f"streamed the file and peaked at {e['peak_rss_mb']:,.0f} MB" for n, e in streamed)
            + f"; reading the {small:,}-record file whole peaked at "
            f"{summary[('ingest', small)]['peak_rss_mb']:,.0f} MB." if ("ingest", small) in summary else "")
    per = [(n, per_record_ms(summary.get(("ingest", n)), n)) for n in sizes if summary.get(("ingest", n))]
    if len(per) > 1:
        out.append("- **Ingest per record:** " + ", ".join(f"{ms:.1f} ms at {n:,}" for n, ms in per) + ".")
    per = [(n, per_record_ms(summary.get(("validate-full", n)), n)) for n in sizes if summary.get(("validate-full", n))]
    if per:
        inc = [(n, per_record_ms(summary.get(("validate-incremental", n)),
                                 stage_records("validate-incremental", n, results)))
               for n in sizes if summary.get(("validate-incremental", n))]
        out.append("- **Validation per record:** full run " + ", ".join(f"{ms:.1f} ms at {n:,}" for n, ms in per)
                   + (f"; incremental revalidation of {changed_count(results)} changed records (their graphs "
                      "plus every catalog-wide query) " + ", ".join(f"{ms:.1f} ms per changed record at {n:,}" for n, ms in inc) if inc else "")
                   + ".")
    timeouts = {}
    for run in results["runs"]:
        if run["stage"] == "queries" and run.get("ok"):
            for name in run.get("timeouts", []):
                timeouts.setdefault(name, set()).add(run["size"])
    if timeouts:
        limit = results["meta"]["args"].get("query_timeout")
        out.append("- **Queries over the time limit** (" + (f"{limit:.0f} s" if limit else "the limit") + "): "
                   + "; ".join(f"`{name}` at {', '.join(f'{n:,}' for n in sorted(ns))}"
                               for name, ns in sorted(timeouts.items()))
                   + ". They are left out of the queries totals.")
    out.append("")
    return "\n".join(out) if len(out) > 3 else ""


def _common_query_totals(ours: list[dict], theirs: list[dict]) -> tuple[float, float]:
    """Total cold time of the queries both engines answered (medians over the repeats)."""
    def cold(runs: list[dict]) -> dict[str, float]:
        times: dict[str, list[float]] = {}
        for run in runs:
            for name, got in run.get("per_query", {}).items():
                if "cold_s" in got:
                    times.setdefault(name, []).append(got["cold_s"])
        return {name: statistics.median(values) for name, values in times.items()}

    mine, other = cold(ours), cold(theirs)
    common = set(mine) & set(other)
    return sum(mine[n] for n in common), sum(other[n] for n in common)


def _rel(path: Path) -> str:
    try:
        return str(Path(path).resolve().relative_to(ROOT))
    except ValueError:
        return str(path)


def _noise_paragraph(results: dict) -> str:
    shares = [r["noise"]["others_cpu_share"] for r in results["runs"] if r.get("noise", {}).get("others_cpu_share")
              is not None]
    loads = [r["noise"]["load1_before"] for r in results["runs"] if "noise" in r]
    if not shares:
        return ""
    busy = sum(1 for s in shares if s > 0.25)
    return (f"**Noise.** The machine was shared with other work while this ran: other processes used a median "
            f"{statistics.median(shares):.0%} (max {max(shares):.0%}) of the machine's CPU during a stage, and "
            f"{busy} of {len(shares)} stages ran while others took more than a quarter of it; the 1-minute load "
            f"average was {min(loads):.1f} to {max(loads):.1f} on {results['meta']['machine']['cores']} cores. Noise "
            "only slows a run down, so the minima are the better estimate of the cost; the CPU column is less "
            "sensitive to it than wall time. Each stage's own figures are in the raw results "
            "(`noise` of each run).")


def _skipped(results: dict, sizes: list[int]) -> list[str]:
    args = results["meta"]["args"]
    notes = []
    ran = {(r["stage"], r["size"]) for r in results["runs"]}  # a merged run may hold what these limits left out
    big = [n for n in sizes if n > args["full_validate_max"] and ("validate-full", n) not in ran]
    if big:
        notes.append(f"full validation at {', '.join(f'{n:,}' for n in big)} (the incremental revalidation of "
                     f"{changed_count(results)} changed records stands for it there)")
    big = [n for n in sizes if n > args["export_max"] and not any(st.startswith("export-") for st, m in ran if m == n)]
    if big:
        notes.append(f"exports at {', '.join(f'{n:,}' for n in big)} (reading the on-disk store runs at about "
                     "110k quads/s, so each format would take 7 minutes or more; the exports stream, so memory "
                     "is not what stops them)")
    big = [n for n in sizes if n > args["rdflib_max"]]
    if big:
        notes.append(f"the rdflib baseline at {', '.join(f'{n:,}' for n in big)} (about 1 KB of memory per triple "
                     "and minutes of loading; research/perf-anchors.md §2 and §8)")
    for run in results["runs"]:
        if not run.get("available", True):
            notes.append(f"{run['stage']} at {run['size']:,}: {run.get('note')}")
        elif not run.get("ok"):
            notes.append(f"{run['stage']} at {run['size']:,} (repeat {run['repeat'] + 1}) failed: "
                         f"{str(run.get('error'))[:160]}")
    return list(dict.fromkeys(notes))


def _query_table(results: dict, summary: dict, sizes: list[int]) -> str:
    per: dict[str, dict[int, dict]] = {}
    rd: dict[str, dict[int, dict]] = {}
    for run in results["runs"]:
        if run.get("ok") and run["stage"] in ("queries", "rdflib-queries") and not run.get("limit"):
            target = per if run["stage"] == "queries" else rd
            for name, got in run.get("per_query", {}).items():
                target.setdefault(name, {}).setdefault(run["size"], []).append(got)
    if not per:
        return ""
    lines = ["## Named queries", "",
             "Cold is the first run in a fresh process; warm the median of the following runs. rdflib is the "
             "same query text, with the same bound values, on the rdflib Dataset (union default graph); "
             "'same rows' compares the number of rows the two engines returned.", ""]
    base = 912 if 912 in sizes else min(sizes)
    head = ("| query |" + "".join(f" {n:,}: rows | cold s | warm s |" for n in sizes)
            + f" rdflib warm s ({base:,}) | same rows |")
    lines += [head, "|---|" + "---:|---:|---:|" * len(sizes) + "---:|---|"]
    for name in sorted(per):
        cells = []
        for n in sizes:
            got = per[name].get(n)
            if not got or "cold_s" not in got[0]:
                note = got[0].get("error", got[0].get("skipped", "")) if got else ""
                cells.append(f" – | – | {note[:40] or '–'} |")
                continue
            cold = median([g["cold_s"] for g in got if "cold_s" in g])
            warm = median([g["warm_median_s"] for g in got if g.get("warm_median_s") is not None])
            cells.append(f" {got[0]['rows']:,} | {_fmt_s(cold)} | {_fmt_s(warm)} |")
        theirs = rd.get(name, {}).get(base)
        mine = per[name].get(base)
        same = "–"
        if theirs and mine and "rows" in theirs[0] and "rows" in mine[0]:
            same = "yes" if theirs[0]["rows"] == mine[0]["rows"] else f"no ({theirs[0]['rows']:,})"
        if theirs and theirs[0].get("warm_median_s") is not None:
            rcell = _fmt_s(theirs[0]["warm_median_s"])
        elif theirs and "timeout_s" in theirs[0]:
            rcell = f"> {theirs[0]['timeout_s']:.0f} (timeout)"
        elif theirs and "error" in theirs[0]:
            rcell = "error: " + theirs[0]["error"][:50].replace("|", "/")
        else:
            rcell = "–"
        lines.append(f"| {name} |" + "".join(cells) + f" {rcell} | {same} |")
    lines.append("")
    return "\n".join(lines)


def _endpoint_section() -> str:
    """The endpoint under load: the first table of results/serve.md (benchmarks/serve_load.py),
    which this harness does not run itself."""
    serve = BENCH / "results" / "serve.md"
    if not serve.is_file():
        return ""
    text = serve.read_text(encoding="utf-8")
    lines = text.splitlines()
    first = next((i for i, line in enumerate(lines) if line.startswith("| clients")), None)
    if first is None:
        return ""
    table = []
    for line in lines[first:]:
        if not line.startswith("|"):
            break
        table.append(line)
    run = next((line for line in lines if line.startswith("Run ")), "")
    return "\n".join([
        "## The endpoint under load", "",
        f"From [`results/serve.md`](results/serve.md) (`benchmarks/serve_load.py`, run on its own; it is not a "
        f"stage of this harness). {run}", "", *table, "",
        "The same file compares it, in the same sitting, with the http.server stack of before and with the "
        "figures of 2026-11-29.", ""])


def _profile_section(results: dict) -> str:
    profiles = {k: v for k, v in results.get("profiles", {}).items() if v.get("top")}
    if not profiles:
        return ""
    lines = ["## Where the time goes (cProfile)", ""]
    for key, profile in sorted(profiles.items()):
        what, size = key.split("-", 1)
        title = ("ingest" if what == "ingest" else "validation in one process (`validate(store, jobs=1)`)")
        lines.append(f"### {title}, {int(size):,} records ({profile['wall_s']:.1f} s under the profiler)")
        lines.append("")
        buckets = _profile_buckets(profile, what)
        lines.append("Own time by part: " + "; ".join(f"{name} {share:.0%}" for name, share in buckets) + ".")
        lines.append("")
        lines.append("| function | calls | own s | with callees s |")
        lines.append("|---|---:|---:|---:|")
        for row in profile["top"][:12]:
            func = row["func"].replace("|", "/")
            where = f"{row['file']}:{row['line']}" if row["file"] != "~" else "built-in"
            lines.append(f"| `{func}` ({where}) | {row['calls']:,} | {row['tottime']:.2f} | {row['cumtime']:.2f} |")
        lines.append("")
    return "\n".join(lines)


# ---------------------------------------------------------------------------
# Command line


def parse_args(argv: list[str]) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="912,9120,45600", help="catalog sizes in records (default %(default)s)")
    ap.add_argument("--repeats", type=int, default=3, help="repeats per stage (default %(default)s)")
    ap.add_argument("--large-size", type=int, default=20000,
                    help="sizes from this many records up run at most --large-repeats times (default %(default)s)")
    ap.add_argument("--large-repeats", type=int, default=1, help="(default %(default)s)")
    ap.add_argument("--dask-max", type=int, default=9120,
                    help="largest size validated on a Dask LocalCluster too (default %(default)s; not in --quick)")
    ap.add_argument("--full-validate-max", type=int, default=9120,
                    help="largest size validated in full (default %(default)s)")
    ap.add_argument("--export-max", type=int, default=9120, help="largest size exported (default %(default)s)")
    ap.add_argument("--rdflib-max", type=int, default=912,
                    help="largest size the rdflib baseline runs at (default %(default)s)")
    ap.add_argument("--baseline-repeats", type=int, default=1,
                    help="repeats of the rdflib exports and queries (default %(default)s; "
                         "rdflib ingest and validation run --repeats times)")
    ap.add_argument("--query-warm", type=int, default=3, help="warm runs per query (default %(default)s)")
    ap.add_argument("--large-query-warm", type=int, default=2,
                    help="warm runs per query from --large-size records (default %(default)s)")
    ap.add_argument("--query-timeout", type=float, default=120,
                    help="limit for each named query (kg and rdflib), seconds (default %(default)s)")
    ap.add_argument("--rdflib-timeout", type=float, default=600,
                    help="limit for each rdflib serialisation, seconds (default %(default)s)")
    ap.add_argument("--timeout", type=float, default=7200, help="limit per stage process, seconds")
    ap.add_argument("--memory-limit", type=int, default=12000,
                    help="data-segment limit of each stage process, MB (0: none; default %(default)s)")
    ap.add_argument("--quick", action="store_true",
                    help="CI-sized: one repeat, one warm run per query, 3 s per query (rdflib: 1 s), no profiles, "
                         f"exports to {' and '.join(QUICK_EXPORT_FORMATS)} only, "
                         f"the floor and the rdflib baseline on {QUICK_SUBSET} records")
    ap.add_argument("--changed", type=int, default=None, metavar="N",
                    help=f"records changed for reingest-100 and validate-incremental (default {CHANGED}; "
                         f"--quick: {QUICK_CHANGED})")
    ap.add_argument("--stages", default="", help="only these stages (comma-separated)")
    ap.add_argument("--no-baselines", action="store_true")
    ap.add_argument("--baselines-only", action="store_true")
    ap.add_argument("--no-profile", dest="profile", action="store_false")
    ap.add_argument("--seed", type=int, default=DEFAULT_SEED)
    ap.add_argument("--work", default=os.environ.get("KG_BENCH_WORK", str(DEFAULT_WORK)),
                    help="data and stores (default %(default)s)")
    ap.add_argument("--out", default=str(BENCH / "results"), help="folder for run-*.json (default %(default)s)")
    ap.add_argument("--report", default=str(BENCH / "REPORT.md"), help="report to write ('' for none)")
    ap.add_argument("--plot", default=str(BENCH / "plot_time_per_record.png"))
    ap.add_argument("--report-only", metavar="RESULTS", help="render the report from a results file and stop")
    ap.add_argument("--merge-into", metavar="RESULTS",
                    help="after the run, write RESULTS with the (size, stage) pairs of this run replaced by its runs "
                         "(to run stages again after a fix) as run-<timestamp>-merged.json, and report on that")
    ap.add_argument("--keep-data", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--reuse-store", action="store_true",
                    help="run the stages on the store an earlier run left in --work (store-SIZE), and keep it: "
                         "for stages after an ingest too long to repeat (without ingest in --stages)")
    ap.add_argument("--silent", action="store_true", help="no progress on stderr")
    args = ap.parse_args(argv)
    args.argv = argv
    args.sizes = [int(s) for s in str(args.sizes).split(",") if s.strip()]
    args.stages = {s.strip() for s in args.stages.split(",") if s.strip()}
    if args.changed is None:
        args.changed = QUICK_CHANGED if args.quick else CHANGED
    if args.quick:
        args.repeats, args.query_warm, args.profile, args.baseline_repeats = 1, 1, False, 1
        # a query past 3 s is noted as timed out (rdflib takes minutes over some, even on the subset:
        # its queries stop at QUICK_RDFLIB_QUERY_TIMEOUT)
        args.query_timeout, args.rdflib_timeout = min(args.query_timeout, 3), min(args.rdflib_timeout, 15)
    return args


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--child"]:
        return child_main(argv[1])
    args = parse_args(argv)
    if args.report_only:
        path = Path(args.report_only)
        results = json.loads(path.read_text(encoding="utf-8"))
    else:
        path = run_all(args)
        results = json.loads(path.read_text(encoding="utf-8"))
        print(f"results: {path}", file=sys.stderr)
    if args.report:
        plot_path = Path(args.plot)
        plot(results, plot_path)
        render_report(results, path, Path(args.report), plot_path)
        print(f"report: {args.report}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
