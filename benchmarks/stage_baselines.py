"""Benchmark baselines ``floor-ntriples`` and ``rdflib-*``: the same records without kg's store.

The floor writes the records' triples as N-Triples text; the rdflib-only pipeline ingests them into
an ``rdflib.Dataset``, validates with stock pySHACL, serialises and queries with rdflib (the
pipelines themselves are in ``baseline_rdflib.py``). Graphs a stage needs are built before its timer.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import baseline_rdflib as baseline
from bench_harness import Timeout, available, kg_iris, kg_module, measure, with_alarm
from stage_queries import query_ids, query_params, timed_runs


def kg_quads(spec: dict) -> Any:
    """The quads kg maps the catalog's records and edges to (the first ``spec['limit']`` records)."""
    return baseline.kg_quads(spec["catalog"], spec["edges_file"], spec.get("limit"))


def stage_floor(spec: dict) -> dict:
    """The floor: the same records, mapped to the same triples, written as N-Triples text."""
    target = Path(spec["scratch"]) / "floor.nt"
    count = [0]

    def run() -> dict:
        count[0] = baseline.write_ntriples(kg_quads(spec), target)
        return {}

    out = measure(run)
    out["triples"] = count[0]
    out["bytes"] = target.stat().st_size
    target.unlink()
    return out


def stage_rdflib_ingest(spec: dict) -> dict:
    """The records into an in-memory ``rdflib.Dataset``."""
    holder: dict[str, Any] = {}

    def run() -> dict:
        holder["ds"] = baseline.build_dataset(kg_quads(spec))
        return {}

    out = measure(run)
    out["quads"] = len(holder["ds"])
    return out


def stage_rdflib_validate(spec: dict) -> dict:
    """Stock pySHACL once over the union graph (built before the timer)."""
    missing = available("kg.validation", "validate_monolithic")
    if missing:
        return {"available": False, "note": missing}
    graph = baseline.build_union_graph(kg_quads(spec))  # not timed: built as the ingest stage builds it

    def run() -> dict:
        report = baseline.validate(graph)
        return {"results": len(report.results), "violations": report.violations}

    out = measure(run)
    out["triples"] = len(graph)
    return out


def stage_rdflib_exports(spec: dict) -> dict:
    """rdflib's serialisers, one format after the other, each with its time limit."""
    dataset = baseline.build_dataset(kg_quads(spec))  # not timed
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
    """Every named query, as the text kg sends its store, on rdflib's SPARQL engine."""
    Q = kg_module("kg.queries")
    dataset = baseline.build_dataset(kg_quads(spec))  # not timed
    ids = query_ids(spec)
    iris = kg_iris()
    per_query: dict[str, Any] = {}

    def run() -> dict:
        for name in Q.available():
            query = Q.load(name)
            params = query_params(query, ids)
            if getattr(query, "compute", None) is not None:  # answered in Python: no SPARQL of its own to compare
                per_query[name] = {"skipped": "answered in Python"}
                continue
            if params is None:
                per_query[name] = {"skipped": "cannot fill a parameter"}
                continue
            planned = Q.plan(query, params, None, iris)  # the text kg sends a store without a words index
            text, limit = planned.text, planned.limit
            try:
                per_query[name] = {"params": params, **timed_runs(
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
