"""Benchmark stage ``substrate-risk-engines`` (issue 52): ``kg query substrate-risk`` on Apache Jena and Virtuoso.

The slot of the engines benchmark. Its floor (``report_engines.portability_floors``): the query over
``--endpoint`` on Jena TDB2 and on Virtuoso within 2x of the Oxigraph server, on the bundled catalog.
The measuring code is ``benchmarks/engines_bench.py`` (branch ``engines``: ``started_engines(store,
folder)`` starts the three engines the tests start and pushes a store to each, ``engine_ratios(endpoints,
name, params, repeats)`` times the query's bound text on each); this stage builds the bundled catalog's
store and calls the two. Until that module is here, or where Jena or Virtuoso is not installed (Debian's
``libapache-jena-java`` and ``virtuoso-opensource``), the stage says so and its floor is "not measured".

When ``engines_bench.py`` lands, it becomes a module of this stage: its command line goes (run.py is the
one command; ``tests/test_benchmarks.py`` allows no other), and nothing else here changes.
"""

from __future__ import annotations

import importlib
import shutil
from pathlib import Path
from typing import Any

QUERY, PARAMS = "substrate-risk", {"system": "Anthropic"}


def _engines_bench() -> Any | None:
    """``engines_bench``, where it is here (None: not yet)."""
    try:
        return importlib.import_module("engines_bench")
    except ModuleNotFoundError as err:
        if err.name != "engines_bench":
            raise
        return None


def stage_substrate_risk_engines(spec: dict) -> dict:
    """``{"engines": {"oxigraph": {"seconds": S, ...}, "jena": {...}, "virtuoso": {...}}}``, or why not measured."""
    bench = _engines_bench()
    if bench is None:
        return {"available": False, "note": "benchmarks/engines_bench.py is not here yet (issue 52, branch engines)"}
    import engine_servers  # tests/engine_servers.py, which engines_bench puts on the path

    missing = [name for name, here in (("Apache Jena", engine_servers.jena_installed()),
                                       ("Virtuoso", engine_servers.virtuoso_installed())) if not here]
    if missing:
        return {"available": False, "note": f"{' and '.join(missing)} not installed (Debian's packages)"}
    import kg
    from kg.sources import bundled_paths
    from kg.store import GraphStore

    work = Path(spec["scratch"]) / "engines"
    shutil.rmtree(work, ignore_errors=True)
    try:
        store = GraphStore(work / "store")
        kg.ingest(store, bundled_paths())
        with bench.started_engines(store, work / "engines") as endpoints:
            found = bench.engine_ratios(endpoints, QUERY, PARAMS, int(spec.get("repeats", 5)))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return {"query": QUERY, "params": PARAMS, "engines": found}
