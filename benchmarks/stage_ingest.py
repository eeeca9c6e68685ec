"""Benchmark stages ``ingest`` and ``reingest-100``: the catalog into a new on-disk store, then the changed records.

Each runs in a fresh process (``bench_stages``); ``ingest`` also reports the quads in the store, its
bytes on disk and whether the catalog file was streamed.
"""

from __future__ import annotations

import os
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


def stage_reingest(spec: dict) -> dict:
    """The changed records ingested again into the store the ingest built."""
    from kg.store import GraphStore

    ingest = kg_module("kg.ingestion")
    store = GraphStore(spec["store"])

    def run() -> dict:
        report = ingest.ingest_paths(store, [spec["changed"]])
        return {"records": report.records, "quads_written": report.quads_written}

    return measure(run)
