"""The command that checks: validate (the graph or RDF files against SHACL shapes)."""

from __future__ import annotations

import argparse
import json
import sys

from ..errors import UsageError
from .common import (EXIT_OK, EXIT_VIOLATIONS, colour_on, err, existing_store, iris, paint_report, positive,
                     progress_printer)


def options_validate(p: argparse.ArgumentParser) -> None:
    p.add_argument("files", nargs="*", metavar="FILE",
                   help="validate these RDF files (.ttl .nt .nq .trig .jsonld .rdf) instead of the store")
    p.add_argument("--shapes", "-s", action="append", metavar="FILE",
                   help="validate against the SHACL shapes in FILE (repeatable) instead of kg's own shapes")
    p.add_argument("--format", "-f", choices=("text", "json", "turtle"), default="text",
                   help="text: results grouped by rule (default); json: one entry per result; "
                        "turtle: the W3C SHACL validation report graph")
    p.add_argument("--fail-on", choices=("violation", "warning", "info"), default="violation",
                   help="exit 1 when a result is this severe or worse (default: violation; warnings pass)")
    p.add_argument("--record", action="append", metavar="ID",
                   help="only this record's graph (repeatable), plus the catalog-wide rules: "
                        "the quick check after changing a record")
    p.add_argument("--jobs", "-j", type=int, metavar="N",
                   help="worker processes (default: one; one per CPU from 4,000 records on)")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="check the record parts on the Dask cluster of this scheduler (tcp://host:8786; "
                        "needs the [dask] extra) instead of local processes: the parts' triples travel, "
                        "not the store")
    p.add_argument("--engine", choices=("kg", "pyshacl"), default="kg",
                   help="kg: kg's SHACL Core engine, record graph by record graph (default); pyshacl: one "
                        "stock pySHACL run over the whole graph with every shape (slow; the reference)")
    p.add_argument("--timeout", type=float, default=3600.0, metavar="SECONDS",  # validation.deadline.DEFAULT_TIMEOUT
                   help="stop the validation after this many seconds, with no report (exit 2; default 3600); "
                        "a pattern that runs longer than 2 s on one value is refused (exit 3)")  # values.MATCH_SECONDS


def run_validate(args: argparse.Namespace) -> int:
    from ..validation import load_rdf_files, text_report, validate, validate_monolithic

    positive(args.jobs, "--jobs")
    if not args.timeout > 0:
        raise UsageError("--timeout must be a positive number of seconds")
    stock = args.engine == "pyshacl"
    if stock and args.record:
        raise UsageError("--record checks record graphs one by one; it cannot be combined with --engine pyshacl")
    if stock and args.scheduler:
        raise UsageError("--engine pyshacl is one pySHACL run here; it cannot be combined with --scheduler")
    store = load_rdf_files(args.files, iris(args)) if args.files else existing_store(args)
    shapes = {"shapes": args.shapes} if args.shapes else {}
    if stock:
        report = validate_monolithic(store, iris(args), timeout=args.timeout, **shapes)
    else:
        report = validate(store, iris(args), records=args.record, jobs=args.jobs,
                          progress=progress_printer("validate"), scheduler=args.scheduler, timeout=args.timeout,
                          **shapes)
    if report.records == 0 and not args.files and not args.shapes:
        err("kg validate: warning: the store holds no records (run 'kg build' or 'kg ingest' first)")
    if args.format == "json":
        print(json.dumps(report.to_json(), indent=1, ensure_ascii=False))
    elif args.format == "turtle":
        sys.stdout.buffer.write(report.to_turtle(iris(args)))
        sys.stdout.buffer.flush()
    else:
        sys.stdout.write(paint_report(text_report(report), colour_on(sys.stdout, args)))
    if args.format != "text":
        err(f"kg validate: {report.violations} violation(s), {report.warnings} warning(s) in {report.seconds:.1f} s")
    return EXIT_VIOLATIONS if report.fails(args.fail_on) else EXIT_OK
