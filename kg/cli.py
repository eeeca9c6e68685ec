"""The ``kg`` command line: a thin shell over the library, and the only place that
prints messages and owns exit codes.

Exit codes (a contract other tools may rely on):

    0  success
    1  validation found violations (kg validate, kg build)
    2  usage error (unknown option, bad value)
    3  unreadable input: a file cannot be read or parsed as a catalog, or --strict
       rejected bad records; nothing was written
    4  store error (missing store, locked by another process)
    5  ingested, but some records or edges were set aside in the quarantine
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from importlib.metadata import PackageNotFoundError, version
from typing import Callable, Sequence

from .errors import InputRejected, KgError, QueryError, SourceError, StoreError, UsageError, safe_text
from .export import EXPORT_FORMATS, export, format_for_path
from .ingest import IngestReport, ingest_paths, read_description
from .sources import bundled_paths
from .store import GraphStore, default_store_path
from .vocab import ATTRIBUTION, DEFAULT_BASE, Iris

EXIT_OK, EXIT_VIOLATIONS, EXIT_USAGE, EXIT_INPUT, EXIT_STORE, EXIT_QUARANTINE = 0, 1, 2, 3, 4, 5


def _version() -> str:
    try:
        return version("kg")
    except PackageNotFoundError:
        return "0+unknown"


def _err(message: str) -> None:
    print(message, file=sys.stderr)


def _progress_printer(label: str) -> Callable[[int, int], None] | None:
    """A progress line on stderr, only when stderr is a terminal."""
    if not sys.stderr.isatty():
        return None

    def show(done: int, total: int) -> None:
        end = "\n" if done >= total else ""
        print(f"\r{label}: {done}/{total}", end=end, file=sys.stderr, flush=True)

    return show


def _iris(args: argparse.Namespace) -> Iris:
    return Iris(args.base)


def _open_store(args: argparse.Namespace, *, create: bool) -> GraphStore:
    if args.store == ":memory:":
        return GraphStore()
    if create:
        return GraphStore(args.store)
    return GraphStore.open_existing(args.store)


def _quarantine(report: IngestReport, args: argparse.Namespace) -> None:
    for err in report.quarantined:
        _err(f"quarantined: {err}")
    if getattr(args, "quarantine", None) and report.quarantined:
        with open(args.quarantine, "w", encoding="utf-8") as out:
            for err in report.quarantined:
                out.write(json.dumps({"source": err.source, "index": err.index, "id": err.record_id,
                                      "path": err.path, "message": err.message}, ensure_ascii=False) + "\n")


def _summary(report: IngestReport, store: GraphStore, iris: Iris) -> None:
    description = read_description(store, iris)
    counts = description["counts"]
    _err(f"ingested {report.records} records and {report.edges} edges from "
         f"{len(report.sources)} file(s) in {report.seconds:.2f} s")
    if report.superseded:
        _err(f"{len(report.superseded)} record(s) given again in a later file; the later version was kept: "
             + ", ".join(report.superseded[:5]))
    _err(f"store: {description['triples']} triples; "
         + ", ".join(f"{n} {cls}" for cls, n in sorted(counts.items(), key=lambda kv: -kv[1]) if n))


def cmd_ingest(args: argparse.Namespace) -> int:
    iris = _iris(args)
    store = _open_store(args, create=True)
    report = ingest_paths(store, args.paths, iris, strict=args.strict, progress=_progress_printer("ingest"))
    _quarantine(report, args)
    _summary(report, store, iris)
    return EXIT_QUARANTINE if report.quarantined else EXIT_OK


def cmd_build(args: argparse.Namespace) -> int:
    args.paths = args.paths or bundled_paths()
    started = time.perf_counter()
    status = cmd_ingest(args)
    _err(f"data: {ATTRIBUTION}")
    _err(f"done in {time.perf_counter() - started:.2f} s; store at {args.store}")
    return status


def cmd_export(args: argparse.Namespace) -> int:
    fmt = args.format or (format_for_path(args.output) if args.output else None)
    if fmt is None:
        raise UsageError("say which format with --format (or give -o FILE with a known extension)")
    store = _open_store(args, create=False)
    if args.output and args.output != "-":
        with open(args.output, "wb") as out:
            export(store, fmt, out, _iris(args))
        _err(f"wrote {fmt} to {args.output}")
    else:
        export(store, fmt, sys.stdout.buffer, _iris(args))
        sys.stdout.buffer.flush()
    return EXIT_OK


def cmd_info(args: argparse.Namespace) -> int:
    store = _open_store(args, create=False)
    description = read_description(store, _iris(args))
    if args.format == "json":
        print(json.dumps({**description, "license": "CC-BY-4.0", "attribution": ATTRIBUTION}, indent=1))
        return EXIT_OK
    print(f"triples\t{description['triples']}")
    print(f"generatedAt\t{description['generatedAt']}")
    for cls, n in sorted(description["counts"].items()):
        print(f"{cls}\t{n}")
    print(f"license\tCC-BY-4.0 ({ATTRIBUTION})")
    return EXIT_OK


# ---------------------------------------------------------------------------


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # usage errors: one line, exit 2
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--store", default=default_store_path(), metavar="DIR",
                        help="store directory (default: $KG_STORE or ./kg-store; ':memory:' for a throwaway store)")
    parser.add_argument("--base", default=os.environ.get("KG_BASE", DEFAULT_BASE), metavar="IRI",
                        help=f"base IRI of the data (default: $KG_BASE or {DEFAULT_BASE})")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="kg", description="The AI Agent Infrastructure Landscape as a knowledge graph.",
                     epilog="Exit codes: 0 ok, 1 violations, 2 usage error, 3 unreadable input, "
                            "4 store error, 5 some records quarantined.",
                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"kg {_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    def command(name: str, helptext: str, example: str, func: Callable) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=helptext, description=helptext, epilog=f"example:\n  {example}",
                           formatter_class=argparse.RawDescriptionHelpFormatter)
        _common(p)
        p.set_defaults(func=func)
        return p

    p = command("build", "ingest the catalog (the bundled one by default) and print a summary",
                "kg build", cmd_build)
    p.add_argument("paths", nargs="*", metavar="PATH", help="files or folders (default: the bundled catalog)")
    p.add_argument("--strict", action="store_true", help="reject the whole input if any record is bad")
    p.add_argument("--quarantine", metavar="FILE", help="write set-aside records as JSON Lines to FILE")

    p = command("ingest", "ingest catalog files, record files, folders, JSON Lines, or - for stdin",
                "kg ingest data/landscape-site.json data/landscape.edges.json", cmd_ingest)
    p.add_argument("paths", nargs="+", metavar="PATH", help="files, folders, or - for stdin")
    p.add_argument("--strict", action="store_true", help="reject the whole input if any record is bad")
    p.add_argument("--quarantine", metavar="FILE", help="write set-aside records as JSON Lines to FILE")

    p = command("export", "write the graph as Turtle, JSON-LD, N-Triples, N-Quads, TriG or catalog JSON",
                "kg export --format turtle -o landscape.ttl", cmd_export)
    p.add_argument("--format", "-f", choices=EXPORT_FORMATS, help="output format (default: from -o's extension)")
    p.add_argument("--output", "-o", metavar="FILE", help="output file (default: stdout)")

    p = command("info", "print the dataset description: triples and entities per class",
                "kg info --format json", cmd_info)
    p.add_argument("--format", choices=("table", "json"), default="table", help="output format")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    try:
        return args.func(args)
    except (SourceError, InputRejected) as err:
        if isinstance(err, InputRejected):
            for item in err.errors:
                _err(f"rejected: {item}")
        _err(f"kg: error: {err}")
        return EXIT_INPUT
    except StoreError as err:
        _err(f"kg: error: {err}")
        return EXIT_STORE
    except (UsageError, QueryError) as err:
        _err(f"kg: error: {safe_text(err, 400)}")
        return EXIT_USAGE
    except KgError as err:
        _err(f"kg: error: {safe_text(err, 400)}")
        return EXIT_INPUT
    except BrokenPipeError:
        return EXIT_OK
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
