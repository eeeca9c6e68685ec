"""Benchmark stages ``ingest`` and ``reingest-100``: the catalog into a new on-disk store, then the changed records.

Each runs in a fresh process (``bench_stages``); ``ingest`` also reports the quads in the store, its
bytes on disk and whether the catalog file was streamed; ``reingest-100`` ingests the changed records
again ``spec['rounds']`` times (two versions in turn) and takes the median round.
"""

from __future__ import annotations

import json
import os
import statistics
import time
from pathlib import Path
from typing import Any

from bench_harness import disk_usage, kg_iris, kg_module, measure


def stage_ingest(spec: dict) -> dict:
    """``kg.ingestion.ingest_paths`` of the catalog and its edges into a new store (what ``kg ingest`` does)."""
    from kg.store import GraphStore

    ingest = kg_module("kg.ingestion")
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
    out["quads"] = kg_module("kg.description").read_description(holder["store"], kg_iris())["triples"]
    out["store_bytes"] = disk_usage(spec["store"])
    return out


def changed_versions(spec: dict) -> list[str]:
    """The changed records (a change of each record's name and tier), and a second version of them changed
    again (the name changed once more) in the scratch folder: rounds alternate, so that each one changes them."""
    first = Path(spec["changed"])
    records = json.loads(first.read_text(encoding="utf-8"))
    for record in records:
        record["name"] = record["name"] + " again"
    second = Path(spec["scratch"]) / ("again-" + first.name)
    second.write_text(json.dumps(records, ensure_ascii=False), encoding="utf-8")
    return [str(first), str(second)]


def stage_reingest(spec: dict) -> dict:
    """The changed records ingested again into the store the ingest built, ``spec['rounds']`` times (each
    round a change: the two versions in turn); the stage's time is the median round's."""
    from kg.store import GraphStore

    ingest = kg_module("kg.ingestion")
    store = GraphStore(spec["store"])
    versions = changed_versions(spec)
    rounds: list[float] = []
    written: list[int] = []

    def run() -> dict:
        for index in range(int(spec.get("rounds", 1))):
            started = time.perf_counter()
            report = ingest.ingest_paths(store, [versions[index % 2]])
            rounds.append(time.perf_counter() - started)
            written.append(report.quads_written)
        return {"records": report.records, "quads_written": written}

    return median_round(measure(run), rounds)


def median_round(out: dict, rounds: list[float]) -> dict:
    """A stage of several rounds: its time the median round's, its CPU time a round's share."""
    share = 1 / max(1, len(rounds))
    out.update(rounds_s=rounds, measured_wall_s=out["wall_s"], wall_s=statistics.median(rounds),
               cpu_s=out["cpu_s"] * share, children_cpu_s=out["children_cpu_s"] * share)
    return out
