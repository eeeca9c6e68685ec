"""Benchmark stage ``analyse``: ``kg.analyse.analyze`` of the store with its default measures.
"""

from __future__ import annotations

from bench_harness import available, measure


def stage_analyse(spec: dict) -> dict:
    """The analysis of the systems' graph: nodes, edges, the backend and each measure's seconds."""
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
