"""The benchmark stages by name, what each is compared with, and the entry of a stage's own process.

Every stage runs in a fresh process, ``python benchmarks/bench_stages.py --child SPEC`` (SPEC: the
stage's JSON spec), which prints its result for ``bench_harness.run_child``. The stages themselves
are in the ``stage_*.py`` modules, one module a stage (or a family of stages).
"""

from __future__ import annotations

import functools
import json
import sys
import traceback
from pathlib import Path
from typing import Callable

import baseline_rdflib as baseline
from bench_harness import child_result
from stage_analyse import stage_analyse
from stage_baselines import (stage_floor, stage_rdflib_exports, stage_rdflib_ingest, stage_rdflib_queries,
                             stage_rdflib_validate)
from stage_bulk_load import stage_bulk_load
from stage_commands import stage_build_vs_bulk_load, stage_bundled_vs_bulk_load, stage_commands
from stage_export import stage_export, stage_store_dump
from stage_ingest import stage_ingest, stage_reingest
from stage_profile import stage_profile
from stage_queries import stage_queries
from stage_validate import stage_validate_dask, stage_validate_full, stage_validate_incremental

SCRIPT = Path(__file__).resolve()  # what run_child starts, with --child SPEC
EXPORT_FORMATS = ("turtle", "trig", "jsonld", "nquads", "catalog-json")

# stage -> the baseline stage it is compared with (same size)
RATIOS = {
    "ingest": ("rdflib-ingest", "floor-ntriples"),
    "validate-full": ("rdflib-validate",),
    **{f"export-{fmt}": (f"rdflib-export-{fmt}",) for fmt in baseline.EXPORT_FORMATS},
    "queries": ("rdflib-queries",),
}
OUR_STAGES = ("ingest", "validate-full", "reingest-100", "validate-incremental",
              *[f"export-{fmt}" for fmt in EXPORT_FORMATS], "queries", "analyse")
# the store's own speed and the cluster path: none of them in --quick runs
STORE_STAGES = ("store-dump-nquads", "bulk-load", "bulk-load-lenient", "bulk-load-merged", "validate-dask")
# kg as a user runs it, whole commands (``stage_commands``; none of them in --quick runs)
COMMAND_STAGES = ("commands", "build-vs-bulk-load", "bundled-vs-bulk-load")
for _fmt in ("turtle", "jsonld", "nquads"):  # an export against the store's own dump of the same store
    RATIOS[f"export-{_fmt}"] = (*RATIOS.get(f"export-{_fmt}", ()), "store-dump-nquads")
RATIOS["ingest"] = (*RATIOS["ingest"], "bulk-load", "bulk-load-lenient", "bulk-load-merged")
RATIOS["validate-dask"] = ("validate-full",)
# the other loads the ingest is compared with, beside the floor's plain bulk_load
INGEST_ALSO_AGAINST = (("bulk-load-lenient", "bulk_load(lenient=True), as kg loads its own text"),
                       ("bulk-load-merged", "bulk_load then optimize (the merged store a build leaves)"))

STAGES: dict[str, Callable[[dict], dict]] = {
    "ingest": stage_ingest,
    "validate-full": stage_validate_full,
    "reingest-100": stage_reingest,
    "validate-incremental": stage_validate_incremental,
    **{f"export-{fmt}": stage_export for fmt in EXPORT_FORMATS},
    "queries": stage_queries,
    "analyse": stage_analyse,
    "floor-ntriples": stage_floor,
    "rdflib-ingest": stage_rdflib_ingest,
    "rdflib-validate": stage_rdflib_validate,
    "rdflib-exports": stage_rdflib_exports,
    "rdflib-queries": stage_rdflib_queries,
    "profile": stage_profile,
    "store-dump-nquads": stage_store_dump,
    "bulk-load": stage_bulk_load,
    "bulk-load-lenient": functools.partial(stage_bulk_load, lenient=True),
    "bulk-load-merged": functools.partial(stage_bulk_load, merged=True),
    "validate-dask": stage_validate_dask,
    "commands": stage_commands,
    "build-vs-bulk-load": stage_build_vs_bulk_load,
    "bundled-vs-bulk-load": stage_bundled_vs_bulk_load,
}


def child_main(spec_text: str) -> int:
    """Run the stage ``spec_text`` names in this process and print its result (0: printed, even a failure)."""
    spec = json.loads(spec_text)
    try:
        out = STAGES[spec["stage"]](spec)
        out.setdefault("available", True)
        out["ok"] = True
    except Exception as err:
        out = {"ok": False, "available": True, "error": f"{type(err).__name__}: {err}",
               "traceback": traceback.format_exc()[-3000:]}
    child_result(out)
    return 0


if __name__ == "__main__":
    if sys.argv[1:2] != ["--child"] or len(sys.argv) != 3:
        sys.exit("usage: python benchmarks/bench_stages.py --child SPEC (run by benchmarks/run.py)")
    sys.exit(child_main(sys.argv[2]))
