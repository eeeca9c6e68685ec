"""Commands that move data in and out of the store: build, ingest, export, info."""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import IO, TYPE_CHECKING, Any

from ..errors import UsageError, safe_text
from ..outpaths import OutputPath, output_path, writing
from ..vocab import ATTRIBUTION
from .common import (EXIT_OK, EXIT_QUARANTINE, EXIT_VIOLATIONS, colour_on, err, existing_store, iris, paint,
                     paint_report, progress_printer, store_folders, writable_store)

if TYPE_CHECKING:
    from ..ingestion import IngestReport
    from ..store import GraphStore

MAX_WARNING_LINES = 50
FINDING_LINES = 10  # rule findings shown one a line; beyond them, a summary by rule
MAX_CELLS_TEXT, MAX_BYTES_TEXT = "2000", "8388608 (8 MiB)"  # kg.sources.checks' caps (tests check they agree)


# -- ingest, build -------------------------------------------------------------


def _ingest_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--strict", action="store_true", help="reject the whole input if any record is bad")
    p.add_argument("--quarantine", metavar="FILE", help="write set-aside records as JSON Lines to FILE")
    p.add_argument("--gate", choices=("violation", "warning"),
                   help="quarantine every record that breaks a record-local rule this severe or worse, "
                        "keeping the stored version of it (a new record is not written at all)")
    p.add_argument("--max-cells", type=int, default=None, metavar="N",
                   help=f"quarantine a record with more than N cells (default: {MAX_CELLS_TEXT})")
    p.add_argument("--max-record-bytes", type=int, default=None, metavar="N",
                   help=f"quarantine a record of more than N bytes as UTF-8 JSON (default: {MAX_BYTES_TEXT})")
    p.add_argument("--report", metavar="FILE",
                   help="write every rule finding of the ingest as JSON Lines to FILE (stderr shows the "
                        f"first {FINDING_LINES} and a summary by rule)")
    p.add_argument("--jobs", type=int, default=None, metavar="N",
                   help="worker processes that map and check the records (default: one a core, where the "
                        "input is big enough to pay for them; 1: none); the store and the report are the "
                        "same for any N")


def options_ingest(p: argparse.ArgumentParser) -> None:
    from ..sources.rdf import RDF_FORMATS

    p.add_argument("paths", nargs="+", metavar="PATH",
                   help="catalog JSON files, folders, JSON Lines, - for stdin, or RDF files (.ttl .nt .nq .trig "
                        ".jsonld .rdf .xml .owl, in any case)")
    _ingest_options(p)
    p.add_argument("--replace-all", action="store_true",
                   help="the records given are the whole new release: remove stored records it lacks "
                        "(listed as removed in the changeset)")
    p.add_argument("--compact", action="store_true",
                   help="merge the store's files before the new version becomes current: faster reads after a "
                        "big update (a build into an empty store always compacts)")
    p.add_argument("--format", "-f", choices=tuple(RDF_FORMATS), metavar="FORMAT",
                   help="read the RDF files as this format (" + ", ".join(RDF_FORMATS) + ") instead of by extension")
    p.add_argument("--graph", metavar="IRI",
                   help="load the triples of RDF files into this named graph (default: the default graph, "
                        "as oxigraph load does; dataset formats keep their own named graphs)")


def options_build(p: argparse.ArgumentParser) -> None:
    p.add_argument("paths", nargs="*", metavar="PATH", help="files or folders (default: the bundled catalog)")
    _ingest_options(p)
    p.add_argument("--no-validate", action="store_true", help="skip the SHACL validation after the ingest")
    p.add_argument("--fail-on", choices=("never", "violation", "warning", "info"), default="never",
                   help="exit 1 when validation finds results this severe or worse (default: never; "
                        "the report is printed either way)")


def _report_quarantine(report: "IngestReport", args: argparse.Namespace) -> None:
    colour = colour_on(sys.stderr, args)
    for item in report.quarantined:
        err(f"{paint('quarantined:', 'red', colour)} {item}")
    for item in report.warnings[:MAX_WARNING_LINES]:
        err(f"{paint('warning:', 'yellow', colour)} {item}")
    if len(report.warnings) > MAX_WARNING_LINES:
        err(f"warning: ... and {len(report.warnings) - MAX_WARNING_LINES} more warnings")
    if getattr(args, "quarantine_to", None):  # written even when empty: a FIFO's reader gets its end
        with writing(args.quarantine_to) as out:
            for item in report.quarantined:
                line: dict[str, Any] = {"source": item.source, "index": item.index, "id": item.record_id,
                                        "path": item.path, "message": item.message}
                reasons = getattr(item, "reasons", None)
                if reasons:
                    line["reasons"] = [reason.to_json() for reason in reasons]
                out.write(_json_line(line))


def _json_line(obj: dict) -> bytes:
    return (json.dumps(obj, ensure_ascii=False) + "\n").encode("utf-8", "backslashreplace")


def _examples(findings: list, count: int) -> list:
    """``count`` findings to show one a line: the first of each rule first (in input order), then the next ones."""
    firsts: dict[str, int] = {}
    lines: dict[tuple, int] = {}  # two checks of one rule on one field read the same: shown once
    for position, finding in enumerate(findings):
        line = (finding.source, finding.index, finding.record_id, finding.path, finding.message)
        if lines.setdefault(line, position) == position:
            firsts.setdefault(finding.rule, position)
    chosen = sorted(firsts.values())[:count]
    taken = set(chosen)
    chosen += [i for i in lines.values() if i not in taken][:count - len(chosen)]
    return [findings[i] for i in sorted(chosen)]


def _report_findings(report: "IngestReport", args: argparse.Namespace, *, validation_follows: bool) -> None:
    """The rule findings: a few lines, then a summary by rule (all of them with --report FILE)."""
    from ..validation.at_ingest import summary_text

    findings = report.findings
    if getattr(args, "report_to", None):
        with writing(args.report_to) as out:
            for finding in findings:
                out.write(_json_line(finding.to_json()))
    if not findings:
        return
    if validation_follows:  # kg build: the validation report below shows them all
        err(f"rules at ingest: {len(findings)} finding(s) in {len({f.record_id for f in findings})} record(s); "
            f"see the validation report")
        return
    colour = colour_on(sys.stderr, args)
    for finding in _examples(findings, FINDING_LINES):
        err(f"{paint('warning:', 'yellow', colour)} {finding}")
    if len(findings) > FINDING_LINES:
        err(f"warning: ... {len(findings) - FINDING_LINES} more finding(s); by rule:")
        sys.stderr.write(paint_report(summary_text(findings, report.checked, iris(args)), colour))
        if not getattr(args, "report", None):
            err("every finding: --report FILE")


def _summary(report: "IngestReport", store: "GraphStore", args: argparse.Namespace) -> None:
    from ..description import read_description

    description = read_description(store, iris(args))
    counts = description["counts"]
    parts = [f"{report.records} records and {report.edges} edges"] if report.records or report.edges \
        or not report.rdf_quads else []
    if report.rdf_quads:
        parts.append(f"{report.rdf_quads} quads of RDF")
    err(f"ingested {' and '.join(parts)} from {len(report.sources)} file(s) in {report.seconds:.2f} s")
    if report.superseded:
        err(f"{len(report.superseded)} record(s) given again in a later file; the later version was kept: "
            + ", ".join(report.superseded[:5]))
    if report.removed:
        err(f"--replace-all: removed {len(report.removed)} record(s) missing from the new release: "
            + ", ".join(report.removed[:5]) + (", ..." if len(report.removed) > 5 else ""))
    err(f"changeset {report.changeset.number}: {report.changeset.summary}" if report.changeset
        else "no change: no changeset recorded")
    classes = ", ".join(f"{n} {cls}" for cls, n in sorted(counts.items(), key=lambda kv: -kv[1]) if n)
    err(f"store: {description['triples']} triples" + (f"; {classes}" if classes else ""))


def _check_outputs(args: argparse.Namespace) -> None:
    """``--report`` and ``--quarantine`` checked before anything is read (``kg.outpaths``): neither
    an input, nor inside an input folder or the store."""
    stores = store_folders(args)
    args.report_to = output_path(args.report, "--report", args.paths, stores) if args.report else None
    args.quarantine_to = output_path(args.quarantine, "--quarantine", args.paths, stores) if args.quarantine \
        else None
    if args.report_to and args.quarantine_to and not args.report_to.stream \
            and args.report_to.target == args.quarantine_to.target:
        raise UsageError("--report and --quarantine name the same file; give two")


def _ingest(args: argparse.Namespace) -> tuple[int, "GraphStore"]:
    from .. import ingest, record_caps

    _check_outputs(args)
    record_caps(args.max_cells, args.max_record_bytes)  # refused before the store is opened
    store = writable_store(args)
    report = ingest(store, args.paths, iris(args), strict=args.strict, progress=progress_printer("ingest"),
                    format=getattr(args, "format", None), graph=getattr(args, "graph", None), gate=args.gate,
                    max_cells=args.max_cells, max_record_bytes=args.max_record_bytes,
                    replace_all=getattr(args, "replace_all", False), compact=getattr(args, "compact", False),
                    jobs=args.jobs)
    _report_quarantine(report, args)
    _report_findings(report, args, validation_follows=not getattr(args, "no_validate", True))
    status = EXIT_QUARANTINE if report.quarantined else EXIT_OK
    if report.wrote_nothing:
        err(f"kg: nothing to ingest in {', '.join(safe_text(s, 300) for s in report.sources) or 'the input'}"
            f"{' but bad items' if report.quarantined else ''}; the store was not changed")
    else:
        _summary(report, store, args)
    return status, store


def run_ingest(args: argparse.Namespace) -> int:
    return _ingest(args)[0]


def run_build(args: argparse.Namespace) -> int:
    from ..sources import bundled_paths

    args.paths = args.paths or bundled_paths()
    started = time.perf_counter()
    status, store = _ingest(args)
    if not args.no_validate:
        from ..validation import text_report
        from ..validation.upkeep import kept_report

        report = kept_report(store, iris(args))  # the ingest validated the new version and kept its findings
        sys.stderr.write(paint_report(text_report(report), colour_on(sys.stderr, args)))
        if report.fails(args.fail_on):
            status = EXIT_VIOLATIONS
    err(f"data: {ATTRIBUTION}")
    err(f"done in {time.perf_counter() - started:.2f} s; store at {args.store}")
    return status


# -- export ----------------------------------------------------------------------


def options_export(p: argparse.ArgumentParser) -> None:
    from ..exports import EXPORT_FORMATS
    from ..output import PROJECTION_FORMATS, PROJECTIONS

    p.add_argument("--format", "-f", choices=EXPORT_FORMATS + PROJECTION_FORMATS,
                   help="output format (default: from -o's extension, in any case: .ttl .nt .nq .trig .jsonld "
                        ".rdf/.owl/.xml .json .graphml .gexf)")
    p.add_argument("--output", "-o", metavar="FILE", help="output file (default: stdout)")
    p.add_argument("--graph", action="append", metavar="IRI",
                   help="only this named graph (repeatable); triple formats write the union of the graphs chosen")
    p.add_argument("--union", action="store_true",
                   help="N-Quads, TriG, JSON-LD: write the triples of every graph (or of --graph) into the "
                        "default graph (for JSON-LD a plain document) instead of keeping the named graphs")
    p.add_argument("--projection", choices=PROJECTIONS, default="systems",
                   help="with -f graphml, gexf or node-link: which analysis graph to write (default: systems)")


def _export_to(args: argparse.Namespace, fmt: str, out: IO[bytes]) -> None:
    from ..exports import export
    from ..output import PROJECTION_FORMATS

    store = existing_store(args)
    if fmt in PROJECTION_FORMATS:
        if args.graph or args.union:
            raise UsageError(f"-f {fmt} writes an analysis projection; --graph and --union do not apply")
        from ..analyse.formats import projection, write_projection

        write_projection(projection(store, args.projection, iris(args)), fmt, out)
    else:
        export(store, fmt, out, iris(args), graphs=args.graph, union=args.union)


def run_export(args: argparse.Namespace) -> int:
    from ..exports import format_for_path

    fmt = args.format or (format_for_path(args.output) if args.output and args.output != "-" else None)
    if fmt is None:
        raise UsageError("say which format with --format (or give -o FILE with a known extension)")
    target: OutputPath = output_path(args.output or "-", "-o", stores=store_folders(args))
    with writing(target) as out:
        _export_to(args, fmt, out)
    if target.target != "-":
        err(f"wrote {fmt} to {args.output}")
    return EXIT_OK


# -- info --------------------------------------------------------------------------


def options_info(p: argparse.ArgumentParser) -> None:
    from .formats import add_format_option

    add_format_option(p, json_means="the description as one JSON document")


def run_info(args: argparse.Namespace) -> int:
    from .. import info, output

    description = info(existing_store(args), iris(args))
    if args.format == "json":
        print(json.dumps(description, indent=1, ensure_ascii=False))
        return EXIT_OK
    rows = [{"property": "triples", "value": description["triples"]},
            {"property": "generatedAt", "value": description["generatedAt"]}]
    rows += [{"property": cls, "value": n} for cls, n in sorted(description["counts"].items())]
    rows.append({"property": "license", "value": f"CC-BY-4.0 ({ATTRIBUTION})"})
    output.write_rows(rows, sys.stdout, args.format, ["property", "value"])
    return EXIT_OK
