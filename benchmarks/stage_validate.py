"""Benchmark stages ``validate-full``, ``validate-incremental`` and ``validate-dask``: kg's SHACL validation.

The whole store in one process (so that its time per record compares across sizes); the changed
records only (``kg.validation.revalidate``, plus the catalog-wide rules; ``spec['rounds']`` times, the
median round); the whole store on a Dask LocalCluster of two single-thread workers.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from bench_harness import available, kg_iris, kg_module, measure
from stage_ingest import median_round


def stage_validate_full(spec: dict) -> dict:
    """``kg.validation.validate`` of the whole store."""
    missing = available("kg.validation", "validate")
    if missing:
        return {"available": False, "note": missing}
    V = kg_module("kg.validation")
    from kg.store import GraphStore

    store = GraphStore(spec["store"])

    def run() -> dict:
        report = V.validate(store, jobs=1)  # one process: the time per record compares across sizes
        return {"results": len(report.results), "violations": report.violations, "records": report.records,
                "timings": dict(report.timings)}

    return _worker_cpu(measure(run))


def _worker_cpu(out: dict) -> dict:
    """Add the validation workers' CPU time (they are the forkserver's children, not ours)."""
    worker = (out.get("timings") or {}).get("worker_cpu_s")
    if worker and not out.get("children_cpu_s"):
        out["children_cpu_s"] = worker
    return out


def stage_validate_incremental(spec: dict) -> dict:
    """``kg.validation.revalidate`` of the changed records, against an empty report of before."""
    missing = available("kg.validation", "revalidate", "ValidationReport", "load_rules")
    if missing:
        return {"available": False, "note": missing}
    V = kg_module("kg.validation")
    from kg.store import GraphStore

    store = GraphStore(spec["store"])
    ids = [r["id"] for r in json.loads(Path(spec["changed"]).read_text(encoding="utf-8"))]
    # the report before the change: its record-local results are kept for the other records
    before = V.ValidationReport(results=[], rules=V.load_rules(kg_iris()))

    rounds: list[float] = []

    def run() -> dict:
        for _ in range(int(spec.get("rounds", 1))):
            started = time.perf_counter()
            report = V.revalidate(before, store, ids)
            rounds.append(time.perf_counter() - started)
        return {"records": len(ids), "results": len(report.results), "timings": dict(report.timings)}

    return median_round(_worker_cpu(measure(run)), rounds)


def stage_validate_dask(spec: dict) -> dict:
    """``validate`` on a LocalCluster of two single-thread worker processes (started before the timer)."""
    missing = available("distributed", "LocalCluster")
    if missing:
        return {"available": False, "note": missing}
    import distributed
    from kg.store import GraphStore

    V = kg_module("kg.validation")
    store = GraphStore(spec["store"])
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=":0") as cluster:
        def run() -> dict:
            report = V.validate(store, scheduler=cluster.scheduler_address)
            return {"results": len(report.results), "violations": report.violations, "records": report.records,
                    "timings": dict(report.timings)}

        return _worker_cpu(measure(run))
