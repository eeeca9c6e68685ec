"""Benchmark stages ``bulk-load``, ``bulk-load-lenient`` and ``bulk-load-merged``: the ingest's floor in the store.

pyoxigraph's ``Store.bulk_load`` of the quads kg writes for the same records.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from bench_harness import measure
from stage_baselines import kg_quads


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
        for q in kg_quads(spec):
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
