"""Benchmark stage ``substrate-risk-engines`` (issue 52): ``kg query substrate-risk`` on Apache Jena and Virtuoso.

The slot of the engines benchmark. Its floor (``report_engines.portability_floors``): the query over
``--endpoint`` on Jena TDB2 and on Virtuoso within 2x of the Oxigraph server, on the bundled catalog.
The measuring code is :mod:`engines_bench` (``started_engines(store, folder)`` starts the three engines
the tests start and pushes a store to each, ``engine_ratios(endpoints, name, params, repeats)`` times the
query's bound text on each); this stage builds the bundled catalog's store and calls the two. Where Jena
or Virtuoso is not installed (Debian's ``libapache-jena-java`` and ``virtuoso-opensource``), the stage
says so and its floor is "not measured".
"""

from __future__ import annotations

import shutil
from pathlib import Path

QUERY, PARAMS = "substrate-risk", {"system": "Anthropic"}


def stage_substrate_risk_engines(spec: dict) -> dict:
    """``{"engines": {"oxigraph": {"seconds": S, ...}, "jena": {...}, "virtuoso": {...}}}``, or why not measured."""
    import engines_bench as bench
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
