"""Benchmark stages of kg as a user runs it, whole commands (Python's start-up and imports included).

* ``commands``: on the store the ``ingest`` stage built, every named query (``kg query NAME``),
  ``kg info`` and ``kg validate --record`` of the changed records (one command, its time per record),
  each after a warm-up run (a warm page cache), ``spec['runs']`` times;
* ``build-vs-bulk-load``: ``kg ingest`` of the catalog and its edges into a new store, against a
  ``python -c`` that bulk-loads the very quads that build wrote (an N-Quads file dumped from it
  before the timing) into a new on-disk pyoxigraph store; the two in turn, ``spec['rounds']`` times,
  so that the machine's drift touches both alike;
* ``bundled-vs-bulk-load``: the same for the bundled catalog (``kg ingest`` with no path given to
  ``kg build``: ``kg.sources.bundled_paths``), whatever the run's size.
"""

from __future__ import annotations

import json
import shutil
import statistics
import sys
from pathlib import Path
from typing import Any

from bench_harness import kg_module, run_command
from stage_queries import query_ids, query_params

KG = [sys.executable, "-m", "kg.cli"]
# pyoxigraph alone: a fresh on-disk store, the N-Quads file bulk-loaded as any user would (the
# strict parser), flushed; argv: the file, the store folder
BULK_LOAD = ("import sys, pyoxigraph as ox; store = ox.Store(sys.argv[2]); "
             "store.bulk_load(path=sys.argv[1], format=ox.RdfFormat.N_QUADS); store.flush()")
TIMEOUT_S = 7200.0


def _timed(argv: list[str], runs: int) -> dict[str, Any]:
    """One warm-up run of ``argv``, then ``runs`` timed runs: median, min, max, CPU, peak RSS, exit code."""
    run_command(argv, timeout=TIMEOUT_S)
    done = [run_command(argv, timeout=TIMEOUT_S) for _ in range(runs)]
    seconds = [d["seconds"] for d in done]
    return {"median_s": statistics.median(seconds), "min_s": min(seconds), "max_s": max(seconds),
            "cpu_median_s": statistics.median(d["cpu_s"] for d in done),
            "peak_rss_mb": max(d["peak_rss_mb"] for d in done), "code": max(d["code"] for d in done)}


def _changed_ids(spec: dict) -> list[str]:
    return [record["id"] for record in json.loads(Path(spec["changed"]).read_text(encoding="utf-8"))]


def stage_commands(spec: dict) -> dict:
    """Every named query, ``kg info`` and ``kg validate --record`` as whole commands on the stage's store."""
    queries = kg_module("kg.queries")
    store = ["--store", spec["store"]]
    runs = int(spec.get("runs", 3))
    ids = query_ids(spec)
    per_query: dict[str, Any] = {}
    for name in queries.available():
        params = query_params(queries.load(name), ids)
        if params is None:
            per_query[name] = {"skipped": "cannot fill a parameter"}
            continue
        bound = [part for key, value in params.items() for part in ("-p", f"{key}={value}")]
        per_query[name] = _timed([*KG, "query", name, *bound, *store], runs)
    info = _timed([*KG, "info", *store], runs)
    changed = _changed_ids(spec)
    records = [part for record_id in changed for part in ("--record", record_id)]
    validate = _timed([*KG, "validate", *records, *store], runs)
    validate["records"] = len(changed)
    validate["per_record_ms"] = 1000 * validate["median_s"] / max(1, len(changed))
    return {"wall_s": sum(q.get("median_s", 0) for q in per_query.values()) + info["median_s"] + validate["median_s"],
            "per_query": per_query, "info": info, "validate_records": validate, "runs": runs,
            "peak_rss_mb": max(entry.get("peak_rss_mb", 0) for entry in [*per_query.values(), info, validate])}


def _nquads_of(store: Path, target: Path) -> int:
    """The quads of the store's current version as an N-Quads file; how many."""
    from kg.store import GraphStore

    with open(target, "wb") as out:
        GraphStore(store, read_only=True).dump(out, "nquads")
    with open(target, "rb") as text:
        return sum(1 for _ in text)


def build_against_bulk_load(paths: list[str], scratch: Path, rounds: int) -> dict[str, Any]:
    """``kg ingest PATHS`` into a new store against ``bulk_load`` of the same quads, in turn."""
    ours_store, theirs_store, nquads = scratch / "build-store", scratch / "bulk-store", scratch / "build.nq"
    ours_cmd = [*KG, "ingest", "--store", str(ours_store), *paths]
    theirs_cmd = [sys.executable, "-c", BULK_LOAD, str(nquads), str(theirs_store)]
    shutil.rmtree(ours_store, ignore_errors=True)
    first = run_command(ours_cmd, timeout=TIMEOUT_S)  # a warm-up, and the quads the other side loads
    if first["code"] not in (0, 5):  # 5: records quarantined, the rest built
        raise RuntimeError(f"kg ingest exited {first['code']}")
    quads = _nquads_of(ours_store, nquads)
    ours, theirs = [], []
    for _ in range(rounds):
        for folder, command, into in ((ours_store, ours_cmd, ours), (theirs_store, theirs_cmd, theirs)):
            shutil.rmtree(folder, ignore_errors=True)
            into.append(run_command(command, timeout=TIMEOUT_S))
    for folder in (ours_store, theirs_store):
        shutil.rmtree(folder, ignore_errors=True)
    nquads.unlink()
    ratios = [a["seconds"] / b["seconds"] for a, b in zip(ours, theirs)]
    return {"wall_s": statistics.median(a["seconds"] for a in ours),
            "bulk_load_s": statistics.median(b["seconds"] for b in theirs),
            "ratio_median": statistics.median(ratios), "ratios": ratios,
            "ours": ours, "theirs": theirs, "quads": quads, "rounds": rounds,
            "cpu_s": statistics.median(a["cpu_s"] for a in ours), "peak_rss_mb": max(a["peak_rss_mb"] for a in ours),
            "bulk_load_cpu_s": statistics.median(b["cpu_s"] for b in theirs)}


def stage_build_vs_bulk_load(spec: dict) -> dict:
    """The size's generated catalog, built by ``kg ingest`` and bulk-loaded, whole commands in turn."""
    return build_against_bulk_load([spec["catalog"], spec["edges_file"]], Path(spec["scratch"]),
                                   int(spec.get("rounds", 3)))


def stage_bundled_vs_bulk_load(spec: dict) -> dict:
    """The bundled catalog (what a user's first ``kg build`` reads), built and bulk-loaded in turn."""
    paths = kg_module("kg.sources").bundled_paths()
    return build_against_bulk_load([str(p) for p in paths], Path(spec["scratch"]), int(spec.get("rounds", 5)))

