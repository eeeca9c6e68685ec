#!/usr/bin/env python3
#!/usr/bin/env python3
"""Benchmarks of kg at several catalog sizes, against an rdflib-only pipeline and a floor.

    python benchmarks/run.py --sizes 912,9120,45600 --repeats 3

For each size the full-shape synthetic catalog of ``benchmarks/generate.py`` is
generated once (cached in ``--work``), then every stage is timed in a fresh
process, ``--repeats`` times (sizes of ``--large-size`` records or more: at most
``--large-repeats`` times):

* ``ingest``: ``kg.ingestion.ingest_paths`` into a new on-disk store (what ``kg ingest``
  does; bulk catalog files of 64 MiB or more are streamed);
* ``validate-full``: ``kg.validation.validate`` of the whole store (sizes up to
  ``--full-validate-max``);
* ``reingest-100`` and ``validate-incremental``: 100 records (``--changed``) are changed and
  ingested again, then ``kg.validation.revalidate`` checks only them (plus the
  catalog-wide rules);
* ``export-<format>``: ``kg.export.export`` to a file, for Turtle, JSON-LD, N-Quads
  and catalog JSON (sizes up to ``--export-max``);
* ``queries``: every named query of ``queries/*.rq``: a cold run (the first in the
  process), then ``--query-warm`` warm runs (``--large-query-warm`` from ``--large-size``;
  none after a cold run of 10 s or more); a query running past ``--query-timeout`` is
  recorded as such; the stage's time is the total of the cold runs; the floors are
  checked on the warm medians where there are some;
* ``analyse``: ``kg.analyse.analyze`` with its default measures;
* ``store-dump-nquads``: the store's own N-Quads dump (pyoxigraph, nothing in Python),
  the floor the exports are compared with (sizes up to ``--export-max``);
* ``validate-dask``: ``validate`` with ``scheduler=`` a LocalCluster of two single-thread
  worker processes, started before the timer (sizes up to ``--dask-max``).
* ``commands`` (first repeat): kg as a user runs it, whole commands on the store the ingest
  built: every named query, ``kg info`` and ``kg validate --record`` of the changed records,
  each after a warm-up, ``--command-runs`` times (``benchmarks/stage_commands.py``);
* ``build-vs-bulk-load`` (first repeat): ``kg ingest`` of the catalog into a new store against a
  ``python -c`` that bulk-loads the same quads into a new on-disk pyoxigraph store, whole
  commands in turn (``--build-rounds`` pairs; ``--large-build-rounds`` from ``--large-size``);
  ``bundled-vs-bulk-load``: the same for the bundled catalog (at the first size;
  ``--bundled-rounds`` pairs).

Baselines on the same data, in the same run:

* ``rdflib``: an rdflib-only pipeline (``benchmarks/baseline_rdflib.py``): the same
  records mapped by ``kg.mapping``, converted to rdflib terms, added to an
  ``rdflib.Dataset`` (ingest); stock pySHACL once over the whole graph
  (``kg.validation.validate_monolithic``); rdflib's serialisers (export); rdflib's
  SPARQL engine (queries). Sizes up to ``--rdflib-max``. Graphs a stage needs are
  built before its timer starts.
* ``floor``: the same records mapped to the same triples, written as N-Triples
  text: what a pipeline costs that does nothing but produce the triples.
* ``bulk-load``: pyoxigraph's ``Store.bulk_load`` of the same quads (an N-Quads file
  written before the timer) into a fresh on-disk store: the ingest's floor in the store.
  ``bulk-load-lenient``: the same with ``lenient=True`` (no second check of IRIs and
  language tags), as kg loads its own text (``LENIENT`` in ``kg/store/_bulkload.py``).
  ``bulk-load-merged``: ``bulk_load`` then ``Store.optimize``, the merge of the load's files
  that a build does before it commits (the same end state as the ingest's store).

``store-dump-nquads``, ``validate-dask``, the bulk loads and the whole commands do not run in ``--quick``.

Every child reports wall time, CPU time (its own and its worker processes'), peak
RSS (``ru_maxrss``: the process peak, so it includes what a stage loaded before
its timer started) and how busy the machine was meanwhile (load average, and the
CPU share of other processes: the machine's busy time from /proc/stat less the child's
whole CPU, its set-up before the timer included). Each timer starts after a sync of the
disk, so that no stage pays for the write-back of what came before it. Raw results go to
``benchmarks/results/run-<timestamp>.json``; the report (``benchmarks/REPORT.md``)
and its plot are rendered from them (``--report-only RESULTS.json`` renders again).

``--quick`` is the CI-sized run (tests/test_benchmarks.py): one repeat, no
profiles, one warm run per query, two export formats (Turtle and catalog JSON), the
floor and the rdflib baseline on the first 20 records only.

This script only chooses the stages and renders the report: the harness (timing, peak RSS,
the machine's load) is ``bench_harness.py``, the catalogs ``bench_catalogs.py``, each stage a
``stage_*.py`` module named in ``bench_stages.py``, the runs ``bench_runner.py`` and the report
the ``report_*.py`` modules.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))

# the names below are this script's public face (tests/test_benchmarks.py, the other benchmarks)
from bench_catalogs import (CHANGED, DEFAULT_SEED, DEFAULT_WORK, GENERATOR, changed_indexes,  # noqa: E402
                            data_dir, ensure_data, generator_digest, write_changed_records)
from bench_runner import merge_results, run_all  # noqa: E402
from bench_stages import (EXPORT_FORMATS, INGEST_ALSO_AGAINST, OUR_STAGES, RATIOS, STAGES,  # noqa: E402
                          STORE_STAGES, child_main)
from report_floors import floors  # noqa: E402
from report_plot import plot  # noqa: E402
from report_render import render_report  # noqa: E402
from report_summary import per_record_ms, stage_records, summarise  # noqa: E402

QUICK_CHANGED = 20  # --quick: the records changed (the same code path, a fifth of the work)
QUICK_EXPORT_FORMATS = ("turtle", "catalog-json")  # --quick: one RDF writer and the JSON rebuild
QUICK_SUBSET = 10  # records of the rdflib baseline in --quick runs
QUICK_RDFLIB_QUERY_TIMEOUT = 1.0  # seconds per rdflib query in --quick runs (kg's queries: 3 s)

__all__ = ["CHANGED", "DEFAULT_SEED", "DEFAULT_WORK", "GENERATOR", "changed_indexes", "data_dir", "ensure_data",
           "generator_digest", "write_changed_records", "merge_results", "run_all", "EXPORT_FORMATS",
           "INGEST_ALSO_AGAINST", "OUR_STAGES", "RATIOS", "STAGES", "STORE_STAGES", "floors", "per_record_ms",
           "stage_records", "summarise", "plot", "render_report", "QUICK_CHANGED", "QUICK_EXPORT_FORMATS",
           "QUICK_SUBSET", "QUICK_RDFLIB_QUERY_TIMEOUT", "plan", "baseline_plan", "chosen_steps", "parse_args", "main"]


def plan(size: int, args: argparse.Namespace, repeat: int = 0) -> list[tuple[str, dict]]:
    """(stage, extra spec) in the order they run for one repeat at ``size``."""
    steps: list[tuple[str, dict]] = [("ingest", {})]
    if size <= args.full_validate_max:
        steps.append(("validate-full", {}))
    if size <= args.export_max:
        formats = QUICK_EXPORT_FORMATS if args.quick else EXPORT_FORMATS
        steps += [(f"export-{fmt}", {"format": fmt}) for fmt in formats]
        steps += [] if args.quick else [("store-dump-nquads", {})]
    if size <= min(args.full_validate_max, args.dask_max) and not args.quick:
        steps.append(("validate-dask", {}))
    steps += [("queries", {}), ("analyse", {})]
    if not args.quick and repeat == 0:  # whole commands on the store the ingest built, before it changes
        steps.append(("commands", {"runs": args.command_runs}))
    steps += [("reingest-100", {}), ("validate-incremental", {})]
    if not args.quick and repeat == 0:  # builds against bulk_load, whole commands in turn (a store of their own)
        rounds = args.build_rounds if size < args.large_size else args.large_build_rounds
        steps.append(("build-vs-bulk-load", {"rounds": rounds}))
        if size == min(args.sizes):
            steps.append(("bundled-vs-bulk-load", {"rounds": args.bundled_rounds}))
    return steps


def baseline_plan(size: int, repeat: int, args: argparse.Namespace) -> list[tuple[str, dict]]:
    """(stage, extra spec) of the baselines for one repeat at ``size``."""
    limit = {"limit": QUICK_SUBSET} if args.quick else {}
    steps: list[tuple[str, dict]] = [("floor-ntriples", dict(limit))]
    steps += [] if args.quick else [("bulk-load", {}), ("bulk-load-lenient", {}), ("bulk-load-merged", {})]
    if size <= args.rdflib_max:
        steps.append(("rdflib-ingest", dict(limit)))
        steps.append(("rdflib-validate", dict(limit)))
        if repeat < args.baseline_repeats:
            steps.append(("rdflib-exports", dict(limit)))
            # --quick: cold runs only (rdflib takes seconds over some queries even on the subset)
            steps.append(("rdflib-queries", {**limit, "warm": 0, "query_timeout": QUICK_RDFLIB_QUERY_TIMEOUT}
                          if args.quick else {}))
    return steps


def chosen_steps(size: int, repeat: int, args: argparse.Namespace) -> list[tuple[str, str, dict]]:
    """(implementation, stage, extra spec) of one repeat at ``size``: kg's stages, then the baselines, as the
    options choose them."""
    chosen = [("kg", s, e) for s, e in plan(size, args, repeat)] if not args.baselines_only else []
    if not args.no_baselines:
        chosen += [("baseline", s, e) for s, e in baseline_plan(size, repeat, args)]
    return [step for step in chosen if not args.stages or step[1] in args.stages]


def parse_args(argv: list[str]) -> argparse.Namespace:
    """The options, with --quick's and --changed's defaults applied."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="912,9120,45600", help="catalog sizes in records (default %(default)s)")
    ap.add_argument("--repeats", type=int, default=3, help="repeats per stage (default %(default)s)")
    ap.add_argument("--large-size", type=int, default=20000,
                    help="sizes from this many records up run at most --large-repeats times (default %(default)s)")
    ap.add_argument("--large-repeats", type=int, default=1, help="(default %(default)s)")
    ap.add_argument("--dask-max", type=int, default=9120,
                    help="largest size validated on a Dask LocalCluster too (default %(default)s; not in --quick)")
    ap.add_argument("--full-validate-max", type=int, default=9120,
                    help="largest size validated in full (default %(default)s)")
    ap.add_argument("--export-max", type=int, default=9120, help="largest size exported (default %(default)s)")
    ap.add_argument("--rdflib-max", type=int, default=912,
                    help="largest size the rdflib baseline runs at (default %(default)s)")
    ap.add_argument("--baseline-repeats", type=int, default=1,
                    help="repeats of the rdflib exports and queries (default %(default)s; "
                         "rdflib ingest and validation run --repeats times)")
    ap.add_argument("--query-warm", type=int, default=3, help="warm runs per query (default %(default)s)")
    ap.add_argument("--large-query-warm", type=int, default=2,
                    help="warm runs per query from --large-size records (default %(default)s)")
    ap.add_argument("--query-timeout", type=float, default=120,
                    help="limit for each named query (kg and rdflib), seconds (default %(default)s)")
    ap.add_argument("--rdflib-timeout", type=float, default=600,
                    help="limit for each rdflib serialisation, seconds (default %(default)s)")
    ap.add_argument("--timeout", type=float, default=7200, help="limit per stage process, seconds")
    ap.add_argument("--memory-limit", type=int, default=12000,
                    help="data-segment limit of each stage process, MB (0: none; default %(default)s)")
    ap.add_argument("--quick", action="store_true",
                    help="CI-sized: one repeat, one warm run per query, 3 s per query (rdflib: 1 s), no profiles, "
                         f"exports to {' and '.join(QUICK_EXPORT_FORMATS)} only, "
                         f"the floor and the rdflib baseline on {QUICK_SUBSET} records")
    ap.add_argument("--changed", type=int, default=None, metavar="N",
                    help=f"records changed for reingest-100 and validate-incremental (default {CHANGED}; "
                         f"--quick: {QUICK_CHANGED})")
    ap.add_argument("--command-runs", type=int, default=3,
                    help="timed runs of each whole command of the commands stage, after a warm-up (default %(default)s)")
    ap.add_argument("--build-rounds", type=int, default=3,
                    help="pairs of whole commands (kg ingest, bulk_load) of build-vs-bulk-load (default %(default)s)")
    ap.add_argument("--large-build-rounds", type=int, default=1, help="the same from --large-size (default %(default)s)")
    ap.add_argument("--bundled-rounds", type=int, default=5,
                    help="pairs of whole commands of bundled-vs-bulk-load (default %(default)s)")
    ap.add_argument("--stages", default="", help="only these stages (comma-separated)")
    ap.add_argument("--no-baselines", action="store_true")
    ap.add_argument("--baselines-only", action="store_true")
    ap.add_argument("--no-profile", dest="profile", action="store_false")
    ap.add_argument("--seed", type=int, default=DEFAULT_SEED)
    ap.add_argument("--work", default=os.environ.get("KG_BENCH_WORK", str(DEFAULT_WORK)),
                    help="data and stores (default %(default)s)")
    ap.add_argument("--out", default=str(BENCH / "results"), help="folder for run-*.json (default %(default)s)")
    ap.add_argument("--report", default=str(BENCH / "REPORT.md"), help="report to write ('' for none)")
    ap.add_argument("--plot", default=str(BENCH / "plot_time_per_record.png"))
    ap.add_argument("--report-only", metavar="RESULTS", help="render the report from a results file and stop")
    ap.add_argument("--merge-into", metavar="RESULTS",
                    help="after the run, write RESULTS with the (size, stage) pairs of this run replaced by its runs "
                         "(to run stages again after a fix) as run-<timestamp>-merged.json, and report on that")
    ap.add_argument("--keep-data", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--reuse-store", action="store_true",
                    help="run the stages on the store an earlier run left in --work (store-SIZE), and keep it: "
                         "for stages after an ingest too long to repeat (without ingest in --stages)")
    ap.add_argument("--silent", action="store_true", help="no progress on stderr")
    args = ap.parse_args(argv)
    args.argv = argv
    args.sizes = [int(s) for s in str(args.sizes).split(",") if s.strip()]
    args.stages = {s.strip() for s in args.stages.split(",") if s.strip()}
    if args.changed is None:
        args.changed = QUICK_CHANGED if args.quick else CHANGED
    if args.quick:
        args.repeats, args.query_warm, args.profile, args.baseline_repeats = 1, 1, False, 1
        # a query past 3 s is noted as timed out (rdflib takes minutes over some, even on the subset:
        # its queries stop at QUICK_RDFLIB_QUERY_TIMEOUT)
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
        results = json.loads(path.read_text(encoding="utf-8"))
    else:
        path = run_all(args, lambda size, repeat: chosen_steps(size, repeat, args))
        results = json.loads(path.read_text(encoding="utf-8"))
        print(f"results: {path}", file=sys.stderr)
    if args.report:
        plot_path = Path(args.plot)
        plot(results, plot_path)
        render_report(results, path, Path(args.report), plot_path)
        print(f"report: {args.report}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
