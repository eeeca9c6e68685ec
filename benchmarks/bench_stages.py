"""The benchmark stages: one table of every stage, when it runs, what its spec adds, and a stage's own process.

Each ``Stage`` names the function that measures it (in a ``stage_*.py`` module), whose it is (kg's or
a baseline's), how often it runs (``scope``: every repeat of every size, the first repeat of each size,
or once a run), at which sizes (``when``), whether ``--quick`` runs it, whether the default run does
(``default``: the costly comparisons that decide no floor run with ``--all`` only), what its spec adds
to the size's (``extra``) and whether it needs the store the ``ingest`` stage built. ``STAGES`` lists them in
the order they run; ``benchmarks/run.py`` picks from it, ``bench_runner`` runs each in a fresh
process, ``python benchmarks/bench_stages.py --child SPEC`` (SPEC: the stage's JSON spec), which
prints its result for ``bench_harness.run_child``.

Adding a stage: write ``stage_NAME.py`` with a function ``stage_NAME(spec) -> dict`` (its figures; a
``wall_s`` when it has one time), add one ``Stage(...)`` line below, and, if it decides a floor, one
function in ``report_floors.py`` (and a section in ``report_render.py`` if its figures need a table).
The engines stage of issue 52 is such a row already (``substrate-risk-engines``, ``stage_engines.py``):
it measures once ``benchmarks/engines_bench.py`` is here and Jena and Virtuoso are installed.
"""

from __future__ import annotations

import argparse
import functools
import json
import sys
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import baseline_rdflib as baseline
from bench_harness import child_result
from stage_advice import stage_advice
from stage_analyse import stage_analyse
from stage_baselines import (stage_floor, stage_rdflib_exports, stage_rdflib_ingest, stage_rdflib_queries,
                             stage_rdflib_validate)
from stage_builds import stage_build_vs_bulk_load, stage_bundled_vs_bulk_load
from stage_bulk_load import stage_bulk_load
from stage_commands import stage_commands
from stage_engines import stage_substrate_risk_engines
from stage_export import stage_export, stage_store_dump
from stage_findings import stage_findings_upkeep
from stage_ingest import stage_ingest, stage_reingest
from stage_memory import stage_memory_shapes
from stage_patterns import stage_pattern_engines
from stage_profile import stage_profile
from stage_queries import run_queries, stage_queries
from stage_serve import stage_serve_vs_oxigraph
from stage_shacl import stage_validate_vs_pyshacl
from stage_startup import stage_startup
from stage_validate import stage_validate_dask, stage_validate_full, stage_validate_incremental

SCRIPT = Path(__file__).resolve()  # what run_child starts, with --child SPEC
EXPORT_FORMATS = ("turtle", "trig", "jsonld", "nquads", "catalog-json")
QUICK_EXPORT_FORMATS = ("turtle", "catalog-json")  # --quick: one RDF writer and the JSON rebuild
QUICK_SUBSET = 10  # records of the rdflib baseline in --quick runs
QUICK_RDFLIB_QUERY_TIMEOUT = 1.0  # seconds per rdflib query in --quick runs (kg's queries: 3 s)

Extra = Callable[[int, argparse.Namespace], dict]
When = Callable[[int, argparse.Namespace], bool]


def _always(size: int, args: argparse.Namespace) -> bool:
    return True


def _nothing(size: int, args: argparse.Namespace) -> dict:
    return {}


@dataclass(frozen=True)
class Stage:
    """One stage: its name, the function that measures it in its own process, and when it runs."""

    name: str
    run: Callable[[dict], dict]
    impl: str = "kg"  # "kg" or "baseline" (--no-baselines, --baselines-only)
    scope: str = "repeat"  # "repeat": every repeat of each size; "size": its first repeat; "run": once, first size
    when: When = _always
    quick: bool = True  # run in --quick (with the tiny figures its extra gives there)
    default: bool = True  # run without --all (False: a costly comparison no floor reads; --quick runs it)
    extra: Extra = _nothing
    needs_store: bool = True  # reads the store the ingest stage built at this size (kg's stages)
    parent: Callable[..., dict] | None = field(default=None)  # run in the parent instead (several children)

    def runs(self, size: int, repeat: int, args: argparse.Namespace) -> bool:
        """Whether this stage runs in repeat ``repeat`` of ``size`` under ``args``."""
        if self.scope == "size" and repeat or self.scope == "run" and (repeat or size != args.sizes[0]):
            return False
        if args.quick and not self.quick or args.stages and self.name not in args.stages:
            return False
        if not (self.default or args.all or args.quick or self.name in args.stages):
            return False
        if self.impl == "kg" and args.baselines_only or self.impl == "baseline" and args.no_baselines:
            return False
        return self.when(size, args)


def _subset(size: int, args: argparse.Namespace) -> dict:
    return {"limit": QUICK_SUBSET} if args.quick else {}


def _rounds(name: str, quick: int = 1) -> Extra:
    return lambda size, args: {"rounds": quick if args.quick else getattr(args, name)}


def _builds(size: int, args: argparse.Namespace) -> dict:
    rounds = args.build_rounds if size < args.large_size else args.large_build_rounds
    return {"rounds": 1 if args.quick else rounds, "ingest_args": args.ingest_args,
            "jobs": args.build_jobs if args.quick else []}


STAGES: list[Stage] = [
    Stage("ingest", stage_ingest, needs_store=False),
    Stage("validate-full", stage_validate_full, when=lambda n, a: n <= a.full_validate_max),
    *[Stage(f"export-{fmt}", stage_export, when=lambda n, a: n <= a.export_max, quick=fmt in QUICK_EXPORT_FORMATS,
            extra=lambda n, a, fmt=fmt: {"format": fmt}) for fmt in EXPORT_FORMATS],
    Stage("store-dump-nquads", stage_store_dump, when=lambda n, a: n <= a.export_max),
    Stage("validate-dask", stage_validate_dask, when=lambda n, a: n <= min(a.full_validate_max, a.dask_max),
          quick=False, default=False),
    Stage("queries", stage_queries, parent=run_queries),
    Stage("advice", stage_advice, scope="size", extra=_rounds("advice_rounds")),
    Stage("analyse", stage_analyse),
    # whole commands on the store the ingest built, before the changed records change it
    Stage("commands", stage_commands, scope="size", extra=lambda n, a: {
        "runs": 1 if a.quick else a.command_runs, "only": ["info", "search"] if a.quick else None}),
    Stage("reingest-100", stage_reingest, extra=_rounds("incremental_rounds")),
    Stage("validate-incremental", stage_validate_incremental, extra=_rounds("incremental_rounds")),
    # whole commands in turn against the baselines' whole commands, each in stores of their own
    Stage("build-vs-bulk-load", stage_build_vs_bulk_load, scope="size", needs_store=False, extra=_builds),
    Stage("memory-shapes", stage_memory_shapes, scope="size", needs_store=False,
          when=lambda n, a: a.quick or n == a.memory_size, extra=lambda n, a: {
              "wide_records": 2 if a.quick else 200, "wide_cells": 30 if a.quick else 2000,
              "cases": ["lines", "wide"] if a.quick else None}),
    # the baselines of each size: the floor, pyoxigraph's bulk_load, the rdflib-only pipeline
    Stage("floor-ntriples", stage_floor, impl="baseline", needs_store=False, extra=_subset),
    *[Stage(name, functools.partial(stage_bulk_load, **how), impl="baseline", needs_store=False)
      for name, how in (("bulk-load", {}), ("bulk-load-lenient", {"lenient": True}),
                        ("bulk-load-merged", {"merged": True}))],
    *[Stage(name, run, impl="baseline", needs_store=False, when=lambda n, a: n <= a.rdflib_max, extra=_subset)
      for name, run in (("rdflib-ingest", stage_rdflib_ingest), ("rdflib-validate", stage_rdflib_validate))],
    Stage("rdflib-exports", stage_rdflib_exports, impl="baseline", scope="size", needs_store=False, extra=_subset,
          when=lambda n, a: n <= a.rdflib_max, default=False),
    Stage("rdflib-queries", stage_rdflib_queries, impl="baseline", scope="size", needs_store=False,
          when=lambda n, a: n <= a.rdflib_max, default=False, extra=lambda n, a: {
              **_subset(n, a), **({"warm": 0, "query_timeout": QUICK_RDFLIB_QUERY_TIMEOUT} if a.quick else {})}),
    # once a run, on the bundled catalog (--quick: the size's catalog), each against its peer in turn
    Stage("bundled-vs-bulk-load", stage_bundled_vs_bulk_load, scope="run", needs_store=False, quick=False,
          extra=lambda n, a: {"rounds": a.bundled_rounds, "ingest_args": a.ingest_args, "jobs": a.build_jobs}),
    Stage("serve-vs-oxigraph", stage_serve_vs_oxigraph, scope="run", needs_store=False, extra=lambda n, a: {
        "seconds": 0.4 if a.quick else a.serve_seconds, "rounds": 1 if a.quick else a.serve_rounds,
        "slice": 0.2 if a.quick else a.serve_slice, "levels": [1, 2] if a.quick else a.serve_levels,
        "workers": a.serve_workers}),
    Stage("validate-vs-pyshacl", stage_validate_vs_pyshacl, scope="run", needs_store=False, extra=lambda n, a: {
        "pairs": 1 if a.quick else a.pyshacl_pairs, "record_runs": 1 if a.quick else 5}),
    Stage("startup", stage_startup, scope="run", needs_store=False, extra=lambda n, a: {
        "runs": 1 if a.quick else a.command_runs + 2}),
    Stage("pattern-engines", stage_pattern_engines, scope="run", needs_store=False, extra=_rounds("pattern_rounds")),
    Stage("findings-upkeep", stage_findings_upkeep, scope="run", needs_store=False, extra=_rounds("findings_rounds")),
    # issue 52: substrate-risk over --endpoint on Jena TDB2 and Virtuoso against the Oxigraph server (stage_engines.py)
    Stage("substrate-risk-engines", stage_substrate_risk_engines, scope="run", needs_store=False, quick=False,
          extra=lambda n, a: {"repeats": a.engine_repeats}),
]
BY_NAME = {stage.name: stage for stage in STAGES}
EXTRA_STAGES: dict[str, Callable[[dict], dict]] = {"profile": stage_profile}  # run by the runner, not planned

# stage -> the baseline stages it is compared with (same size)
RATIOS = {
    "ingest": ("rdflib-ingest", "floor-ntriples", "bulk-load", "bulk-load-lenient", "bulk-load-merged"),
    "validate-full": ("rdflib-validate",),
    **{f"export-{fmt}": (f"rdflib-export-{fmt}",) for fmt in baseline.EXPORT_FORMATS},
    "queries": ("rdflib-queries",),
    "validate-dask": ("validate-full",),
}
for _fmt in ("turtle", "jsonld", "nquads"):  # an export against the store's own dump of the same store
    RATIOS[f"export-{_fmt}"] = (*RATIOS.get(f"export-{_fmt}", ()), "store-dump-nquads")
# the other loads the ingest is compared with, beside the floor's plain bulk_load
INGEST_ALSO_AGAINST = (("bulk-load-lenient", "bulk_load(lenient=True), as kg loads its own text"),
                       ("bulk-load-merged", "bulk_load then optimize (the merged store a build leaves)"))
# kg's stages with one time per repeat, in the stages' table and the plot
OUR_STAGES = ("ingest", "validate-full", "reingest-100", "validate-incremental",
              *[f"export-{fmt}" for fmt in EXPORT_FORMATS], "queries", "analyse")
STORE_STAGES = ("store-dump-nquads", "bulk-load", "bulk-load-lenient", "bulk-load-merged", "validate-dask")


def child_main(spec_text: str) -> int:
    """Run the stage ``spec_text`` names in this process and print its result (0: printed, even a failure)."""
    spec = json.loads(spec_text)
    try:
        name = spec["stage"]
        out = (BY_NAME[name].run if name in BY_NAME else EXTRA_STAGES[name])(spec)
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
