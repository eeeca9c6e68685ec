#!/usr/bin/env python3
"""kg's benchmarks: every stage, beside its baselines, at each catalog size, in one sitting; the report of the floors.

    python benchmarks/run.py                 # 912 and 9,120 full-shape records (about an hour on 2 cores)
    python benchmarks/run.py --large         # and 45,600 (hours)
    python benchmarks/run.py --report-only benchmarks/results/run-STAMP.json   # render the report again

For each size the full-shape synthetic catalog of ``benchmarks/generate.py`` is generated once (cached
in ``--work``); then every stage of ``bench_stages.STAGES`` that applies runs in a fresh process,
``--repeats`` times (sizes from ``--large-size`` records: ``--large-repeats`` times). kg's stages:
``ingest`` (in-process, into a new on-disk store), ``validate-full`` (one process), the exports and the
store's own N-Quads dump, ``validate-dask``, ``queries`` (every named query in-process, cold then warm),
``analyse``, ``commands`` (every named query, ``kg info`` and ``kg validate --record`` as whole
commands), ``reingest-100`` and ``validate-incremental`` (100 changed records, ``--incremental-rounds``
rounds), ``build-vs-bulk-load`` (``kg ingest`` against pyoxigraph's ``bulk_load`` of the same quads,
whole commands in turn), ``memory-shapes`` (peak RSS of ``kg ingest`` on every input shape, at
``--memory-size``), ``advice`` (the four advice tools of ``kg.advice`` cold and warm, beside the named
query ``select-system-names``). Their baselines, measured in the same run: the N-Triples floor, ``bulk_load`` (plain,
lenient, then optimised) and the rdflib-only pipeline (rdflib and stock pySHACL; up to ``--rdflib-max``).
Once a run: the bundled build against ``bulk_load`` (with ``--jobs N`` for each of ``--build-jobs``
when ``kg ingest`` has that option), ``kg serve`` against the Oxigraph server (cold and repeated mix at
``--serve-levels`` clients), kg's SHACL engine against one stock pySHACL run, the command line's
start-up, sh:pattern on ``regex`` against ``re`` (``pattern-engines``), what keeping the findings costs an
ingest (``findings-upkeep``: the bundled catalog's first ingest and a one-record re-ingest with the findings
kept and without), and ``substrate-risk`` on Apache
Jena and Virtuoso against the Oxigraph server (``substrate-risk-engines``: issue 52's slot, which measures
once ``benchmarks/engines_bench.py`` is here and the engines are installed). ``--all`` adds the costly
comparisons no floor reads: the Dask cluster's validation and the rdflib-only pipeline's exports and
queries. Ratios are taken pair by pair where the two sides run in turn.

Every child reports wall and CPU time, peak RSS and how busy the machine was meanwhile (load average,
others' CPU share). Raw results go to ``--out``/run-<timestamp>.json; ``benchmarks/REPORT.md`` is rendered
from that file alone: it opens with the floors (each with its figure: met, not met, or not measured),
then how the run went, then the figures stage by stage.

``--quick`` is the CI-sized run (tests/test_benchmarks.py): every stage but the Dask cluster's and the
bundled build, with tiny figures, the rdflib baseline on a few records, the once-a-run stages on the
size's catalog; it decides no floor. Adding a
stage: see ``bench_stages.py`` (and docs/internals/scale.md).
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))

from bench_catalogs import CHANGED, DEFAULT_SEED, DEFAULT_WORK  # noqa: E402
from bench_runner import run_all  # noqa: E402
from bench_stages import (EXPORT_FORMATS, OUR_STAGES, QUICK_EXPORT_FORMATS, QUICK_SUBSET, STAGES,  # noqa: E402
                          STORE_STAGES, Stage, child_main)
from report_floors import floors  # noqa: E402
from report_plot import plot  # noqa: E402
from report_render import render_report  # noqa: E402

DEFAULT_SIZES, LARGE_SIZE = (912, 9120), 45600
QUICK_CHANGED = 20  # --quick: the records changed (the same code path, a fifth of the work)

__all__ = ["EXPORT_FORMATS", "OUR_STAGES", "QUICK_CHANGED", "QUICK_EXPORT_FORMATS", "QUICK_SUBSET", "STAGES",
           "STORE_STAGES", "floors", "chosen_steps", "parse_args", "main"]


def chosen_steps(size: int, repeat: int, args: argparse.Namespace) -> list[tuple[Stage, dict]]:
    """The stages of one repeat at ``size`` as the options choose them, each with what its spec adds."""
    return [(stage, stage.extra(size, args)) for stage in STAGES if stage.runs(size, repeat, args)]


def _ints(text: str) -> list[int]:
    return [int(part) for part in str(text).split(",") if part.strip()]


def parse_args(argv: list[str]) -> argparse.Namespace:
    """The options, with --quick's, --large's and --changed's defaults applied."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add = ap.add_argument
    add("--sizes", default=",".join(map(str, DEFAULT_SIZES)), help="catalog sizes in records (default %(default)s)")
    add("--large", action="store_true", help=f"add {LARGE_SIZE:,} records, every stage there (hours)")
    add("--repeats", type=int, default=3, help="repeats of each stage (default %(default)s)")
    add("--large-size", type=int, default=5000, help="sizes from this many records up run at most --large-repeats "
                                                     "times (default %(default)s)")
    add("--large-repeats", type=int, default=1, help="(default %(default)s)")
    add("--full-validate-max", type=int, default=None, help="largest size validated in full (default: every size)")
    add("--export-max", type=int, default=None, help="largest size exported (default: every size)")
    add("--dask-max", type=int, default=9120, help="largest size validated on a Dask cluster (default %(default)s)")
    add("--rdflib-max", type=int, default=912, help="largest size of the rdflib baseline (default %(default)s)")
    add("--memory-size", type=int, default=9120, help="the size whose input shapes memory-shapes ingests "
                                                      "(default %(default)s, as its floor says)")
    add("--query-warm", type=int, default=3, help="warm runs per query (default %(default)s)")
    add("--large-query-warm", type=int, default=2, help="warm runs per query from --large-size (default %(default)s)")
    add("--query-timeout", type=float, default=120, help="limit of each named query, seconds (default %(default)s)")
    add("--rdflib-timeout", type=float, default=600, help="limit of each rdflib serialisation (default %(default)s)")
    add("--timeout", type=float, default=7200, help="limit of each stage's process, seconds (default %(default)s)")
    add("--memory-limit", type=int, default=12000, help="data-segment limit of each stage's process, MB (0: none)")
    add("--changed", type=int, default=None, metavar="N",
        help=f"records changed for reingest-100 and validate-incremental (default {CHANGED}; --quick: {QUICK_CHANGED})")
    add("--incremental-rounds", type=int, default=3, help="rounds of reingest-100 and validate-incremental in each "
                                                          "repeat, the median kept (default %(default)s)")
    add("--command-runs", type=int, default=3, help="timed runs of each whole command (default %(default)s)")
    add("--build-rounds", type=int, default=3, help="pairs of build-vs-bulk-load (default %(default)s)")
    add("--large-build-rounds", type=int, default=1, help="the same from --large-size (default %(default)s)")
    add("--bundled-rounds", type=int, default=5, help="pairs of bundled-vs-bulk-load (default %(default)s)")
    add("--build-jobs", default="1,2", help="the bundled build also with --jobs N for each N, when kg ingest has "
                                            "--jobs (default %(default)s; '' for none)")
    add("--ingest-args", default="", help="more arguments for every kg ingest of the builds, as one string")
    add("--serve-seconds", type=float, default=6.0, help="seconds of each serve-vs-oxigraph run (default %(default)s)")
    add("--serve-rounds", type=int, default=2, help="(default %(default)s)")
    add("--serve-slice", type=float, default=2.0, help="seconds of each turn (default %(default)s)")
    add("--serve-levels", default="1,8,32", help="numbers of clients (default %(default)s)")
    add("--serve-workers", type=int, default=2, help="kg serve --workers (default %(default)s)")
    add("--pyshacl-pairs", type=int, default=3, help="pairs of validate-vs-pyshacl (default %(default)s)")
    add("--advice-rounds", type=int, default=3, help="cold and warm calls of each advice tool (default %(default)s)")
    add("--pattern-rounds", type=int, default=3, help="rounds of pattern-engines (default %(default)s)")
    add("--findings-rounds", type=int, default=3, help="rounds of findings-upkeep (default %(default)s)")
    add("--engine-repeats", type=int, default=5, help="timed runs on each engine in substrate-risk-engines "
                                                       "(default %(default)s)")
    add("--all", action="store_true", help="also the costly comparisons no floor reads: " + ", ".join(
        stage.name for stage in STAGES if not stage.default))
    add("--quick", action="store_true", help="CI-sized: the stages once with tiny figures; decides no floor")
    add("--stages", default="", help="only these stages (comma-separated)")
    add("--no-baselines", action="store_true")
    add("--baselines-only", action="store_true")
    add("--no-profile", dest="profile", action="store_false")
    add("--seed", type=int, default=DEFAULT_SEED)
    add("--work", default=os.environ.get("KG_BENCH_WORK", str(DEFAULT_WORK)), help="data and stores (default %(default)s)")
    add("--out", default=str(BENCH / "results"), help="folder of run-*.json (default %(default)s)")
    add("--report", default=str(BENCH / "REPORT.md"), help="the report to write ('' for none)")
    add("--plot", default=str(BENCH / "plot_time_per_record.png"))
    add("--note", default="", help="a sentence for the report's paragraph on how it ran")
    add("--report-only", metavar="RESULTS", help="render the report from a results file and stop")
    add("--silent", action="store_true", help="no progress on stderr")
    args = ap.parse_args(argv)
    args.argv = argv
    args.sizes = sorted(set(_ints(args.sizes) + ([LARGE_SIZE] if args.large else [])))
    args.full_validate_max = args.full_validate_max or max(args.sizes)
    args.export_max = args.export_max or max(args.sizes)
    args.build_jobs, args.serve_levels = _ints(args.build_jobs), _ints(args.serve_levels)
    args.ingest_args = shlex.split(args.ingest_args)
    args.stages = {s.strip() for s in args.stages.split(",") if s.strip()}
    if args.changed is None:
        args.changed = QUICK_CHANGED if args.quick else CHANGED
    if args.quick:
        args.repeats, args.query_warm, args.profile, args.incremental_rounds = 1, 1, False, 1
        # a query past 3 s is noted as timed out (rdflib takes seconds over some, even on the subset)
        args.query_timeout, args.rdflib_timeout = min(args.query_timeout, 3), min(args.rdflib_timeout, 15)
    return args


def main(argv: list[str] | None = None) -> int:
    """Run the chosen stages (or read --report-only's results), then render the report and its plot."""
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--child"]:
        return child_main(argv[1])
    args = parse_args(argv)
    if args.report_only:
        path = Path(args.report_only)
    else:
        path = run_all(args, lambda size, repeat: chosen_steps(size, repeat, args))
        print(f"results: {path}", file=sys.stderr)
    results = json.loads(path.read_text(encoding="utf-8"))
    if args.report:
        plot_path = Path(args.plot)
        plot(results, plot_path)
        render_report(results, path, Path(args.report), plot_path)
        print(f"report: {args.report}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
