"""Commands that move data in and out of the store: build, ingest, export, info."""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from contextlib import contextmanager
from typing import IO, TYPE_CHECKING, Iterator

from ..errors import UsageError, safe_text
from ..vocab import ATTRIBUTION
from .common import (EXIT_OK, EXIT_QUARANTINE, EXIT_VIOLATIONS, colour_on, err, existing_store, iris, paint,
                     paint_report, progress_printer, writable_store)

if TYPE_CHECKING:
    from ..ingestion import IngestReport
    from ..store import GraphStore

MAX_WARNING_LINES = 50


# -- ingest, build -------------------------------------------------------------


def _ingest_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--strict", action="store_true", help="reject the whole input if any record is bad")
    p.add_argument("--quarantine", metavar="FILE", help="write set-aside records as JSON Lines to FILE")


def options_ingest(p: argparse.ArgumentParser) -> None:
    from ..sources.rdf import RDF_FORMATS

    p.add_argument("paths", nargs="+", metavar="PATH",
                   help="catalog JSON files, folders, JSON Lines, - for stdin, or RDF files (.ttl .nt .nq .trig "
                        ".jsonld .rdf .xml .owl, in any case)")
    _ingest_options(p)
    p.add_argument("--replace-all", action="store_true",
                   help="the records given are the whole new release: remove stored records it lacks "
                        "(listed as removed in the changeset)")
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
    if getattr(args, "quarantine", None) and report.quarantined:
        with open(args.quarantine, "w", encoding="utf-8", errors="backslashreplace") as out:
            for item in report.quarantined:
                out.write(json.dumps({"source": item.source, "index": item.index, "id": item.record_id,
                                      "path": item.path, "message": item.message}, ensure_ascii=False) + "\n")


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


def _ingest(args: argparse.Namespace) -> tuple[int, "GraphStore"]:
    from ..ingestion import ingest_paths

    store = writable_store(args)
    report = ingest_paths(store, args.paths, iris(args), strict=args.strict, progress=progress_printer("ingest"),
                          format=getattr(args, "format", None), graph=getattr(args, "graph", None),
                          replace_all=getattr(args, "replace_all", False))
    _report_quarantine(report, args)
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
        from ..validation import text_report, validate

        report = validate(store, iris(args), progress=progress_printer("validate"))
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
    if args.output and args.output != "-":
        with atomic_file(args.output) as out:
            _export_to(args, fmt, out)
        err(f"wrote {fmt} to {args.output}")
    else:
        _export_to(args, fmt, sys.stdout.buffer)
        sys.stdout.buffer.flush()
    return EXIT_OK


@contextmanager
def atomic_file(path: str) -> Iterator[IO[bytes]]:
    """A file written beside ``path`` and renamed onto it once complete: a failed export
    leaves no half-written file (and an older file at ``path`` stays as it was)."""
    folder = os.path.dirname(os.path.abspath(path))
    handle, temporary = tempfile.mkstemp(prefix=".kg-export-", dir=folder)
    try:
        with os.fdopen(handle, "wb") as out:
            yield out
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temporary, 0o666 & ~umask)  # as open() would have made it, not mkstemp's 0600
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise


# -- info --------------------------------------------------------------------------


def options_info(p: argparse.ArgumentParser) -> None:
    from ..output import add_format_option

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
