"""Benchmark stages ``export-<format>`` and ``store-dump-nquads``: kg's exports and the store's own dump.

The dump (pyoxigraph's serialiser, nothing in Python) is the floor the exports are compared with.
"""

from __future__ import annotations

from pathlib import Path

from bench_harness import kg_iris, measure


def stage_export(spec: dict) -> dict:
    """``kg.exports.export`` of the store to a file in ``spec['format']``."""
    from kg.exports import export
    from kg.store import GraphStore

    fmt = spec["format"]
    store = GraphStore(spec["store"], read_only=True)
    target = Path(spec["scratch"]) / f"export-{fmt}.out"

    def run() -> dict:
        with open(target, "wb") as fh:
            export(store, fmt, fh, kg_iris())
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
