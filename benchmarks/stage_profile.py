"""Benchmark stage ``profile``: cProfile of the ingest, or of the validation in one process.
"""

from __future__ import annotations

import time

from bench_harness import ROOT, kg_module


def stage_profile(spec: dict) -> dict:
    """cProfile of one stage (ingest into a new store, or validation in one process)."""
    import cProfile
    import io
    import pstats

    from kg.store import GraphStore

    profiler = cProfile.Profile()
    what = spec["what"]
    if what == "ingest":
        ingest = kg_module("kg.ingestion")
        store = GraphStore(spec["store"])
        started = time.perf_counter()
        profiler.enable()
        ingest.ingest_paths(store, [spec["catalog"], spec["edges_file"]])
        profiler.disable()
    else:
        V = kg_module("kg.validation")

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
    """A profiled file's path from its package on."""
    for marker in ("site-packages/", "/work/main/", str(ROOT) + "/", "lib/python3"):
        if marker in file:
            return file.split(marker, 1)[1]
    return file
