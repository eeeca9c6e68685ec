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

``kg validate`` exits 0 when the graph conforms (warnings allowed), 1 on
violations (or on warnings with ``--fail-on warning``), 2 on a usage error, 3
when a FILE given to it cannot be read, 4 when the store is missing. ``kg
build`` validates after ingesting and prints the report; it exits 1 on
violations only with ``--fail-on violation`` (``--no-validate`` skips the check).
"""

from __future__ import annotations

import argparse
import json
import os
import re
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


def _stage_printer(label: str) -> Callable[[str], None] | None:
    """Announces each step of a long computation on stderr, only when stderr is a terminal."""
    if not sys.stderr.isatty():
        return None

    def show(step: str) -> None:
        print(f"\r{label}: {step}...\033[K", end="", file=sys.stderr, flush=True)

    return show


_COLOURS = {"red": "31", "yellow": "33", "green": "32", "cyan": "36"}
_SEVERITY_COLOURS = {"VIOLATION": "red", "WARNING": "yellow", "INFO": "cyan", "FAIL": "red", "WARN": "yellow",
                     "OK": "green"}


def _colour_on(stream: object, args: argparse.Namespace) -> bool:
    """Colour only on a terminal, and never with NO_COLOR set (https://no-color.org) or --no-color."""
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty()) and not os.environ.get("NO_COLOR") and not getattr(args, "no_color", False)


def _paint(text: str, colour: str, on: bool) -> str:
    return f"\x1b[{_COLOURS[colour]}m{text}\x1b[0m" if on else text


def _paint_report(text: str, on: bool) -> str:
    """kg validate's text report with its severity words and verdict coloured (when ``on``)."""
    if not on:
        return text
    return re.sub(r"^(VIOLATION|WARNING|INFO|FAIL|WARN|OK)\b",
                  lambda m: _paint(m.group(1), _SEVERITY_COLOURS[m.group(1)], True), text, flags=re.MULTILINE)


def _iris(args: argparse.Namespace) -> Iris:
    return Iris(args.base)


def _open_store(args: argparse.Namespace, *, create: bool) -> GraphStore:
    if args.store == ":memory:":
        return GraphStore()
    if create:
        return GraphStore(args.store)
    return GraphStore.open_existing(args.store)


MAX_WARNING_LINES = 50


def _quarantine(report: IngestReport, args: argparse.Namespace) -> None:
    colour = _colour_on(sys.stderr, args)
    for err in report.quarantined:
        _err(f"{_paint('quarantined:', 'red', colour)} {err}")
    for err in report.warnings[:MAX_WARNING_LINES]:
        _err(f"{_paint('warning:', 'yellow', colour)} {err}")
    if len(report.warnings) > MAX_WARNING_LINES:
        _err(f"warning: ... and {len(report.warnings) - MAX_WARNING_LINES} more warnings")
    if getattr(args, "quarantine", None) and report.quarantined:
        with open(args.quarantine, "w", encoding="utf-8", errors="backslashreplace") as out:
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
    args.ingested_store = store  # kg build validates it afterwards
    report = ingest_paths(store, args.paths, iris, strict=args.strict, progress=_progress_printer("ingest"))
    _quarantine(report, args)
    if report.wrote_nothing:
        _err(f"kg: nothing to ingest in {', '.join(safe_text(s, 80) for s in report.sources) or 'the input'}"
             f"{' but bad items' if report.quarantined else ''}; the store was not changed")
        return EXIT_QUARANTINE if report.quarantined else EXIT_OK
    _summary(report, store, iris)
    return EXIT_QUARANTINE if report.quarantined else EXIT_OK


def cmd_build(args: argparse.Namespace) -> int:
    args.paths = args.paths or bundled_paths()
    started = time.perf_counter()
    status = cmd_ingest(args)
    if not args.no_validate and getattr(args, "ingested_store", None) is not None:
        from .validation import text_report, validate

        report = validate(args.ingested_store, _iris(args), progress=_progress_printer("validate"))
        sys.stderr.write(_paint_report(text_report(report), _colour_on(sys.stderr, args)))
        if report.fails(args.fail_on):
            status = EXIT_VIOLATIONS
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
    from . import output

    rows = [{"property": "triples", "value": description["triples"]},
            {"property": "generatedAt", "value": description["generatedAt"]}]
    rows += [{"property": cls, "value": n} for cls, n in sorted(description["counts"].items())]
    rows.append({"property": "license", "value": f"CC-BY-4.0 ({ATTRIBUTION})"})
    output.write_rows(rows, sys.stdout, args.format, ["property", "value"])
    return EXIT_OK


def cmd_validate(args: argparse.Namespace) -> int:
    from .validation import load_rdf_files, text_report, validate, validate_monolithic

    iris = _iris(args)
    if args.jobs is not None and args.jobs < 1:
        raise UsageError("--jobs must be a positive number")
    if args.monolithic and args.record:
        raise UsageError("--record checks record graphs one by one; it cannot be combined with --monolithic")
    if args.files:
        store = load_rdf_files(args.files, iris)
    elif args.store == ":memory:":
        store = _open_store(args, create=False)
    else:
        store = GraphStore.open_existing(args.store, read_only=True)
    if args.monolithic:
        report = validate_monolithic(store, iris)
    else:
        report = validate(store, iris, records=args.record, jobs=args.jobs, progress=_progress_printer("validate"))
    if report.records == 0 and not args.files:
        _err("kg validate: warning: the store holds no records (run 'kg build' or 'kg ingest' first)")
    if args.format == "json":
        print(json.dumps(report.to_json(), indent=1, ensure_ascii=False))
    elif args.format == "turtle":
        sys.stdout.buffer.write(report.to_turtle(iris))
        sys.stdout.buffer.flush()
    else:
        sys.stdout.write(_paint_report(text_report(report), _colour_on(sys.stdout, args)))
    if args.format != "text":
        _err(f"kg validate: {report.violations} violation(s), {report.warnings} warning(s) "
             f"in {report.seconds:.1f} s")
    return EXIT_VIOLATIONS if report.fails(args.fail_on) else EXIT_OK


def _query_params(pairs: list[str] | None) -> dict[str, str]:
    params: dict[str, str] = {}
    for pair in pairs or []:
        name, sep, value = pair.partition("=")
        if not sep or not name:
            raise UsageError(f"--param needs NAME=VALUE, got {safe_text(pair, 80)!r}")
        if name in params:
            raise UsageError(f"--param {safe_text(name, 40)} given twice")
        params[name] = value
    return params


def cmd_query(args: argparse.Namespace) -> int:
    from . import output, queries

    if args.list:
        rows = [{"name": q.name, "title": q.title,
                 "params": ", ".join(p.name + ("?" if p.optional else "") for p in q.params)}
                for q in queries.listing()]
        output.write_rows(rows, sys.stdout, args.format or "table", ["name", "title", "params"])
        return EXIT_OK
    if not args.query:
        raise UsageError("name a query (kg query --list shows them) or give the path of a .rq file")
    query = queries.load(args.query)
    params = _query_params(args.param)
    if args.sparql:
        sys.stdout.write(queries.bound_text(query, params, _iris(args)).rstrip("\n") + "\n")
        return EXIT_OK
    if args.store == ":memory:":
        store = _open_store(args, create=False)
    else:
        store = GraphStore.open_existing(args.store, read_only=True)
    if query.path.parent != queries.QUERIES_DIR:
        # a user's .rq file: refuse SERVICE and remote FROM before pyoxigraph (which would
        # fetch them) sees it; the bundled queries are ours and need no check
        from .serve import QueryRefused, check_query

        try:
            check_query(query.text, {g.value for g in store.named_graphs()})
        except QueryRefused as err:
            raise QueryError(f"{query.path}: {err}") from None
    result = queries.run(store, query, params, _iris(args))
    output.write_result(result, sys.stdout, args.format)
    return EXIT_OK


def _analysis_cell(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.4f}" if value >= 1e-3 or value == 0 else f"{value:.2e}"
    return str(value)


def cmd_analyze(args: argparse.Namespace) -> int:
    from . import analyse

    iris = _iris(args)
    if args.write_back or args.store == ":memory:":
        store = _open_store(args, create=False)
    else:
        store = GraphStore.open_existing(args.store, read_only=True)
    if args.top is not None and args.top < 1:
        raise UsageError("--top must be a positive number")
    if args.sample is not None and args.sample < 1:
        raise UsageError("--sample must be a positive number of pivot nodes")
    top = args.top if args.top is not None else (20 if args.format == "table" else None)
    analysis = analyse.analyze(store, args.measure, top=top, edge_types=args.edge_type, sample=args.sample,
                               seed=args.seed, backend=args.backend, iris=iris, progress=_stage_printer("analyze"))
    if sys.stderr.isatty():
        print("\r\033[K", end="", file=sys.stderr, flush=True)  # clear the progress line
    if analysis.node_count == 0:
        _err("kg analyze: warning: the store holds no systems (run 'kg build' or 'kg ingest' first)")
    measures = list(analysis.measures)
    rows = analysis.ranked()
    if args.format == "json":
        print(json.dumps(analysis.as_json(), indent=1, ensure_ascii=False))
    elif args.format in ("csv", "tsv"):
        from . import output

        columns = ["rank", "id", "name", "section", "vendor", *measures]
        output.write_rows(({"rank": rank, "id": row.id, "name": row.name, "section": row.section,
                            "vendor": row.vendor, **{m: analyse.measure_value(row, m) for m in measures}}
                           for rank, row in enumerate(rows, start=1)), sys.stdout, args.format, columns)
    else:
        summary = analysis.summary()
        how = summary["betweenness"] or "not computed"
        print(f"{analysis.node_count} systems, {analysis.adjacency_count} adjacencies "
              f"({analysis.edge_count} edges); betweenness {how} ({analysis.backend})")
        if analysis.max_coreness is not None:
            spread = ", ".join(f"{k}: {v}" for k, v in analysis.coreness_distribution.items())
            print(f"coreness: max {analysis.max_coreness} ({spread}); nucleus: {len(analysis.nucleus)} systems")
        if analysis.community_count is not None or analysis.component_count is not None:
            parts = []
            if analysis.community_count is not None:
                parts.append(f"{analysis.community_count} Louvain communities (seed {analysis.seed})")
            if analysis.component_count is not None:
                parts.append(f"{analysis.component_count} connected components")
            print("; ".join(parts))
        print(f"\ntop {len(rows)} by {measures[0]}:")
        names = [safe_text(r.name, 34) for r in rows]
        width = max([4] + [len(n) for n in names])
        cells = [[_analysis_cell(analyse.measure_value(r, m)) for m in measures] for r in rows]
        widths = [max([len(m)] + [len(c[i]) for c in cells]) for i, m in enumerate(measures)]
        print("rank  " + "name".ljust(width) + "  " + "  ".join(m.rjust(w) for m, w in zip(measures, widths)) + "  id")
        for rank, (row, name, cell) in enumerate(zip(rows, names, cells), start=1):
            print(f"{rank:>4}  " + name.ljust(width) + "  " + "  ".join(c.rjust(w) for c, w in zip(cell, widths))
                  + f"  {row.id}")
    if args.plot:
        written = analyse.plot(analysis, args.plot, top=args.top or 20)
        _err(f"wrote plot to {written}")
    if args.write_back:
        count = analyse.write_back(store, analysis, iris)
        _err(f"wrote {count} triples to graph {iris.analysis_graph.value}")
    return EXIT_OK


def cmd_serve(args: argparse.Namespace) -> int:
    import signal

    from . import serve

    if args.store == ":memory:":
        raise UsageError("kg serve needs a store directory (run 'kg build' first)")
    token = args.token or os.environ.get("KG_TOKEN") or None
    if args.token:
        _err("kg serve: note: a token given with --token is visible to other local users; prefer KG_TOKEN")
    if not serve.is_loopback(args.host):
        _err(f"kg serve: warning: listening on {args.host}, reachable from other machines; "
             "queries can still be expensive, so keep the limits")

    def ready(app: "serve.App") -> None:
        mode = "updates allowed with the bearer token at /update" if args.allow_update else "read-only"
        _err(f"kg serve: SPARQL endpoint {app.url}/sparql, query page {app.url}/ "
             f"({app.pool.size} workers, {args.timeout:g} s timeout, max {args.max_rows} rows, {mode})")
        _err(f"kg serve: system pages at {app.url}/id/system/<id>; press Ctrl-C to stop")

    def stop(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)
    try:
        serve.serve(args.store, ready=ready, base=args.base, host=args.host, port=args.port,
                    timeout=args.timeout, max_rows=args.max_rows, max_request_bytes=args.max_request_bytes,
                    workers=args.workers or 0, worker_memory_mb=args.worker_memory_mb,
                    allow_update=args.allow_update, token=token, cors=args.cors,
                    log=None if args.quiet else _err)
    except KeyboardInterrupt:
        _err("kg serve: stopped")
    except OSError as err:
        raise StoreError(f"cannot listen on {args.host}:{args.port}: {err.strerror or err}") from None
    return EXIT_OK


def cmd_push(args: argparse.Namespace) -> int:
    from .push import push

    store = _open_store(args, create=False) if args.store == ":memory:" else GraphStore.open_existing(
        args.store, read_only=True)
    password = args.password if args.password is not None else os.environ.get("KG_PUSH_PASSWORD")
    if args.password is not None:
        _err("kg push: note: a password given with --password is visible to other local users; "
             "prefer KG_PUSH_PASSWORD")
    how = f"Graph Store Protocol PUTs to {args.graph_store}" if args.graph_store else \
        f"SPARQL Update to {args.update_endpoint or args.endpoint}"
    report = push(store, args.endpoint, update_endpoint=args.update_endpoint, graph_store=args.graph_store,
                  user=args.user, password=password if args.user is not None else None, auth=args.auth,
                  timeout=args.timeout, batch_bytes=args.batch_kib * 1024, verify=not args.no_verify,
                  prune=args.prune, iris=_iris(args), graph_param=args.graph_param,
                  progress=_progress_printer("push (quads)"))
    _err(f"pushed {report.graphs} graphs ({report.quads} quads) in {report.requests} requests, "
         f"{report.seconds:.1f} s, by {how}")
    for graph in report.pruned:
        _err(f"pruned remote graph {graph} (no longer in the local store)")
    if report.verified is None:
        return EXIT_OK
    if report.mismatches:
        for graph, local, remote in report.mismatches[:20]:
            _err(f"mismatch: {graph}: {local} quads here, {remote} there")
        _err(f"kg push: error: {len(report.mismatches)} graph(s) differ on the remote store")
        return EXIT_STORE
    _err(f"verified: the remote store holds the same number of quads in all {report.graphs} graphs")
    return EXIT_OK


def cmd_docs(args: argparse.Namespace) -> int:
    from . import ontodoc

    outputs = ontodoc.render()
    if args.check:
        drifted = ontodoc.stale(outputs)
        for path in drifted:
            _err(f"out of date: {path} (run 'kg docs')")
        if drifted:
            return EXIT_VIOLATIONS
        _err(f"up to date: {', '.join(str(path) for path in sorted(outputs))}")
        return EXIT_OK
    written = ontodoc.write(outputs)
    for path in sorted(outputs):
        _err(f"{'wrote' if path in written else 'unchanged'}: {path}")
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
    parser.add_argument("--no-color", action="store_true",
                        help="no colour in summaries and reports (colour is only used on a terminal, "
                             "and never when NO_COLOR is set)")


def _row_format_option(parser: argparse.ArgumentParser, json_means: str) -> None:
    """--format of a command that prints rows: the row formats of kg.output (as kg query has them)."""
    from .output import ROW_FORMATS

    parser.add_argument("--format", "-f", choices=ROW_FORMATS, default="table",
                        help=f"table, csv or tsv rows (written as kg query writes them); json: {json_means} "
                             "(default: table)")


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

    p = command("build", "ingest the catalog (the bundled one by default), validate it and print a summary "
                "(exit 0 once the graph is built; --fail-on violation makes it a gate)", "kg build", cmd_build)
    p.add_argument("paths", nargs="*", metavar="PATH", help="files or folders (default: the bundled catalog)")
    p.add_argument("--strict", action="store_true", help="reject the whole input if any record is bad")
    p.add_argument("--quarantine", metavar="FILE", help="write set-aside records as JSON Lines to FILE")
    p.add_argument("--no-validate", action="store_true", help="skip the SHACL validation after the ingest")
    p.add_argument("--fail-on", choices=("never", "violation", "warning", "info"), default="never",
                   help="exit 1 when validation finds results this severe or worse (default: never; "
                        "the report is printed either way)")

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
    _row_format_option(p, "the description as one JSON document")

    p = command("validate", "check the graph against the SHACL shapes of shapes/: record rules per record "
                "graph on all cores, catalog-wide rules as SPARQL (exit 0 conforms, 1 violations)",
                "kg validate --format json > report.json", cmd_validate)
    p.add_argument("files", nargs="*", metavar="FILE",
                   help="validate these RDF files (.ttl .nt .nq .trig .jsonld .rdf) instead of the store")
    p.add_argument("--format", "-f", choices=("text", "json", "turtle"), default="text",
                   help="text: results grouped by rule (default); json: one entry per result; "
                        "turtle: the W3C SHACL validation report graph")
    p.add_argument("--fail-on", choices=("violation", "warning", "info"), default="violation",
                   help="exit 1 when a result is this severe or worse (default: violation; warnings pass)")
    p.add_argument("--record", action="append", metavar="ID",
                   help="only this record's graph (repeatable), plus the catalog-wide rules: "
                        "the quick check after changing a record")
    p.add_argument("--jobs", "-j", type=int, metavar="N", help="worker processes (default: one per CPU)")
    p.add_argument("--monolithic", action="store_true",
                   help="one pySHACL run over the whole graph with every shape (slow; the reference)")

    from .output import add_format_option
    p = command("query", "run a named query (kg query --list) or a .rq file, with bound parameters",
                "kg query search --param text=memory --param tier=1 --format csv", cmd_query)
    p.add_argument("query", nargs="?", metavar="NAME|FILE.rq", help="a query name from queries/, or a .rq file")
    p.add_argument("--param", "-p", action="append", metavar="NAME=VALUE",
                   help="a parameter value (repeatable); values are bound, never pasted into the query")
    p.add_argument("--list", action="store_true", help="list the named queries with their titles and parameters")
    p.add_argument("--sparql", action="store_true",
                   help="print the query with its parameters bound instead of running it")
    add_format_option(p, graphs=True)

    from .analyse import BACKENDS, EDGE_TYPES, MEASURES, SEED
    p = command("analyze", "graph measures of the systems: betweenness, k-core and nucleus, inbound and "
                "outbound counts, bridge surprise, PageRank, communities, components, blast radius",
                "kg analyze --measure betweenness --top 10 --plot centrality.png", cmd_analyze)
    p.add_argument("--measure", "-m", action="append", choices=MEASURES, metavar="M",
                   help="a measure to compute (repeatable; the first one sorts the output; default: all): "
                        + ", ".join(MEASURES))
    p.add_argument("--top", type=int, metavar="N", help="only the best N systems (default: 20 in a table, all otherwise)")
    _row_format_option(p, "the graph summary and every system's scores as one JSON document")
    p.add_argument("--plot", metavar="FILE.png", help="also draw a bar chart of the top N and the nucleus to a PNG")
    p.add_argument("--write-back", action="store_true",
                   help="store the results in the analysis named graph, for SPARQL (kg query select-analysis-ranking)")
    p.add_argument("--sample", type=int, metavar="K",
                   help="estimate betweenness from K pivot nodes (fixed seed) instead of computing it exactly")
    p.add_argument("--edge-type", action="append", choices=EDGE_TYPES, metavar="TYPE",
                   help="only edges of this type (repeatable; default: all types, the catalog's convention)")
    p.add_argument("--seed", type=int, default=SEED, help=f"seed of Louvain and of the pivot sample (default {SEED})")
    p.add_argument("--backend", choices=BACKENDS, default="auto",
                   help="library under betweenness and k-core: igraph when installed (kg[fast]), else networkx")

    from .serve import (DEFAULT_HOST, DEFAULT_MAX_REQUEST_BYTES, DEFAULT_MAX_ROWS, DEFAULT_PORT, DEFAULT_TIMEOUT,
                        DEFAULT_WORKER_MEMORY_MB)
    p = command("serve", "SPARQL 1.1 endpoint (read-only by default) with a query page and system pages",
                "kg serve --port 8000   # then open http://127.0.0.1:8000/", cmd_serve)
    p.add_argument("--host", default=DEFAULT_HOST, help=f"address to listen on (default {DEFAULT_HOST}, this machine only)")
    p.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT}; 0 picks a free one)")
    p.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, metavar="SECONDS",
                   help=f"stop a query after this long and answer 504 (default {DEFAULT_TIMEOUT:g})")
    p.add_argument("--max-rows", type=int, default=DEFAULT_MAX_ROWS, metavar="N",
                   help=f"refuse results of more than N rows or triples with 422 (default {DEFAULT_MAX_ROWS})")
    p.add_argument("--max-request-bytes", type=int, default=DEFAULT_MAX_REQUEST_BYTES, metavar="N",
                   help=f"refuse larger request bodies with 413 (default {DEFAULT_MAX_REQUEST_BYTES})")
    p.add_argument("--workers", type=int, metavar="N", help="query worker processes (default: CPUs, 2 to 8)")
    p.add_argument("--worker-memory-mb", type=int, default=DEFAULT_WORKER_MEMORY_MB, metavar="MIB",
                   help=f"memory cap of each query worker; a query past it gets 500 (default {DEFAULT_WORKER_MEMORY_MB})")
    p.add_argument("--allow-update", action="store_true",
                   help="accept SPARQL Update at /update from clients with the bearer token")
    p.add_argument("--token", help="the bearer token for updates (default: $KG_TOKEN)")
    p.add_argument("--cors", metavar="ORIGIN", help="allow cross-origin requests from this one origin (default: none)")
    p.add_argument("--quiet", "-q", action="store_true", help="no access log on stderr")

    from .push import AUTH_METHODS, DEFAULT_BATCH_BYTES
    from .push import DEFAULT_TIMEOUT as PUSH_TIMEOUT
    p = command("push", "load every named graph into an external SPARQL 1.1 store (replacing them)",
                "kg push --endpoint http://localhost:7878/query --update-endpoint http://localhost:7878/update",
                cmd_push)
    p.add_argument("--endpoint", required=True, metavar="URL", help="SPARQL query endpoint (used to verify counts)")
    p.add_argument("--update-endpoint", metavar="URL", help="SPARQL Update endpoint (default: --endpoint)")
    p.add_argument("--graph-store", metavar="URL",
                   help="send each graph with a Graph Store Protocol PUT to URL?graph=<iri> instead of updates")
    p.add_argument("--user", help="user name for HTTP authentication")
    p.add_argument("--password", help="password (default: $KG_PUSH_PASSWORD)")
    p.add_argument("--auth", choices=AUTH_METHODS, default="basic", help="HTTP authentication scheme (default basic)")
    p.add_argument("--timeout", type=float, default=PUSH_TIMEOUT, metavar="SECONDS",
                   help=f"timeout of each HTTP request (default {PUSH_TIMEOUT:g})")
    p.add_argument("--batch-kib", type=int, default=DEFAULT_BATCH_BYTES // 1024, metavar="KIB",
                   help=f"largest SPARQL Update request, in KiB (default {DEFAULT_BATCH_BYTES // 1024})")
    p.add_argument("--graph-param", default="graph", metavar="NAME",
                   help="query parameter naming the graph in Graph Store Protocol URLs "
                        "(default: graph, as the protocol says; Virtuoso also takes graph-uri)")
    p.add_argument("--prune", action="store_true",
                   help="also drop remote graphs under the data's graph/ namespace that the store no longer has")
    p.add_argument("--no-verify", action="store_true", help="skip counting the quads on the remote side afterwards")

    p = command("docs", "regenerate the ontology's documentation (ontology/README.md, ontology/diagram.svg) "
                "from ontology/kg.ttl", "kg docs --check", cmd_docs)
    p.add_argument("--check", action="store_true",
                   help="write nothing; exit 1 when the generated files differ from the ontology")
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
