"""Commands that ask the graph: query (named queries, .rq/.sparql files, text) and analyze."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any

from ..errors import UsageError, safe_text
from .common import (EXIT_OK, add_queries_option, err, existing_store, iris, positive, query_folders, query_params,
                     stage_printer, store_folders)

if TYPE_CHECKING:
    from ..analyse import Analysis
    from ..queries import NamedQuery

# -- query -------------------------------------------------------------------------


def options_query(p: argparse.ArgumentParser) -> None:
    from .formats import add_format_option

    p.add_argument("query", nargs="?", metavar="NAME|FILE|-",
                   help="a query name from queries/ (kg query --list), a .rq or .sparql file, or - to read "
                        "the query from stdin")
    p.add_argument("--text", metavar="SPARQL", help="the query itself, as text")
    p.add_argument("--param", "-p", action="append", metavar="NAME=VALUE",
                   help="a parameter value (repeatable); values are bound, never pasted into the query")
    p.add_argument("--list", action="store_true",
                   help="list the named queries: name, question, and parameters with their types and defaults")
    p.add_argument("--sparql", action="store_true",
                   help="print the exact text the query sends (its parameters bound, names resolved, the "
                        "words index's hits and the row limit in it) instead of running it")
    p.add_argument("--endpoint", metavar="URL",
                   help="ask a remote SPARQL 1.1 query endpoint holding the pushed graph (union default graph) "
                        "instead of the store; same parameters, same rows")
    p.add_argument("--user", metavar="USER", help="with --endpoint: user name for HTTP authentication")
    p.add_argument("--password", metavar="PASSWORD",
                   help="with --endpoint: password (default: $KG_ENDPOINT_PASSWORD)")
    p.add_argument("--auth", choices=("basic", "digest"), default="basic",
                   help="with --endpoint: HTTP authentication scheme (default basic)")
    p.add_argument("--timeout", type=float, default=60.0, metavar="SECONDS",  # kg.remote_query.DEFAULT_TIMEOUT
                   help="with --endpoint: total deadline of each request, the whole answer included; "
                        "past it, exit 4 (default 60)")
    add_format_option(p, graphs=True)
    add_queries_option(p)


def _param_text(query: "NamedQuery") -> str:
    """``name (type, default=...)`` for each parameter; optional ones in brackets."""
    shown = []
    for p in query.params:
        spec = p.type + (f", default={p.default}" if p.default is not None else "")
        shown.append(f"[{p.name} ({spec})]" if p.optional else f"{p.name} ({spec})")
    return " ".join(shown)


def _list_queries(args: argparse.Namespace) -> int:
    from .. import output, queries

    rows = []
    for q in queries.listing():
        rows.append({"name": q.name, "question": q.question or q.title, "params": _param_text(q),
                     "title": q.title, "returns": q.returns, "cost": q.cost})
    columns = ["name", "question", "params"] if (args.format or "table") == "table" else \
        ["name", "title", "question", "params", "returns", "cost"]
    output.write_rows(rows, sys.stdout, args.format or "table", columns)
    return EXIT_OK


def _read_query(args: argparse.Namespace) -> "NamedQuery":
    """The query named or given: a registered name, a .rq/.sparql file, stdin, or --text."""
    from .. import queries

    if args.text is not None:
        if args.query:
            raise UsageError("give the query either as NAME|FILE|- or with --text, not both")
        return queries.from_text(args.text, "<text>")
    if not args.query:
        raise UsageError("name a query (kg query --list shows them), give a .rq/.sparql file, - for stdin, or --text")
    if args.query == "-":
        return queries.from_text(sys.stdin.read(), "<stdin>")
    return queries.load(args.query)


def run_query(args: argparse.Namespace) -> int:
    from .. import queries
    from ..query_output import write_answer

    query_folders(args)
    if args.list:
        return _list_queries(args)
    query = _read_query(args)
    params = query_params(args.param)
    if args.endpoint:
        import os

        from .. import endpoint

        password = args.password if args.password is not None else os.environ.get("KG_ENDPOINT_PASSWORD")
        if not args.timeout > 0:
            raise UsageError("--timeout must be a positive number of seconds")
        target: Any = endpoint(args.endpoint, user=args.user, password=password, auth=args.auth, timeout=args.timeout)
    else:
        target = existing_store(args)  # the plan refuses SERVICE and remote FROM in a user's query
    if args.sparql:
        planned = queries.plan(query, params, target, iris(args))
        for line in planned.notes:
            err(f"kg query {query.name}: {line}")
        sys.stdout.write(planned.text.rstrip("\n") + "\n")
        return EXIT_OK
    write_answer(target, query, params, iris(args), out=sys.stdout, fmt=args.format, note=err)
    return EXIT_OK


# -- analyze -------------------------------------------------------------------------


def options_analyze(p: argparse.ArgumentParser) -> None:
    from ..analyse import BACKENDS, EDGE_TYPES, MEASURES, SEED
    from .formats import add_format_option

    p.add_argument("--measure", "-m", action="append", choices=MEASURES, metavar="M",
                   help="a measure to compute (repeatable; the first one sorts the output; default: all): "
                        + ", ".join(MEASURES))
    p.add_argument("--top", type=int, metavar="N", help="only the best N systems (default: 20 in a table, all otherwise)")
    add_format_option(p, json_means="the graph summary and every system's scores as one JSON document")
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
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="run the sampled betweenness (--sample) on the Dask cluster of this scheduler "
                        "(tcp://host:8786; needs the [dask] extra): same numbers as here")


def _analysis_cell(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.4f}" if value >= 1e-3 or value == 0 else f"{value:.2e}"
    return str(value)


def _print_table(a: "Analysis", measures: list[str], rows: list) -> None:
    from .. import analyse

    summary = a.summary()
    how = summary["betweenness"] or "not computed"
    print(f"{a.node_count} systems, {a.adjacency_count} adjacencies "
          f"({a.edge_count} edges); betweenness {how} ({a.backend})")
    if a.max_coreness is not None and a.coreness_distribution is not None and a.nucleus is not None:
        spread = ", ".join(f"{k}: {v}" for k, v in a.coreness_distribution.items())
        print(f"coreness: max {a.max_coreness} ({spread}); nucleus: {len(a.nucleus)} systems")
    parts = []
    if a.community_count is not None:
        parts.append(f"{a.community_count} Louvain communities (seed {a.seed})")
    if a.component_count is not None:
        parts.append(f"{a.component_count} connected components")
    if parts:
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


def run_analyze(args: argparse.Namespace) -> int:
    from .. import analyse, output
    from ..outpaths import STDOUT, output_path

    positive(args.top, "--top")
    positive(args.sample, "--sample")
    if args.plot == STDOUT:
        raise UsageError("--plot takes a file name: standard output carries the measures")
    # checked before anything is read, as every output is: not a folder, not inside the store
    plot_to = output_path(args.plot, "--plot", stores=store_folders(args)) if args.plot else None
    store = existing_store(args, read_only=not args.write_back)
    top = args.top if args.top is not None else (20 if args.format == "table" else None)
    analysis = analyse.analyze(store, args.measure, top=top, edge_types=args.edge_type, sample=args.sample,
                               seed=args.seed, backend=args.backend, iris=iris(args),
                               progress=stage_printer("analyze"), scheduler=args.scheduler)
    if sys.stderr.isatty():
        print("\r\033[K", end="", file=sys.stderr, flush=True)  # clear the progress line
    if analysis.node_count == 0:
        err("kg analyze: warning: the store holds no systems (run 'kg build' or 'kg ingest' first)")
    measures = list(analysis.measures)
    rows = analysis.ranked()
    if args.format == "json":
        print(json.dumps(analysis.as_json(), indent=1, ensure_ascii=False))
    elif args.format != "table":
        columns = ["rank", "id", "name", "section", "vendor", *measures]
        output.write_rows(({"rank": rank, "id": row.id, "name": row.name, "section": row.section,
                            "vendor": row.vendor, **{m: analyse.measure_value(row, m) for m in measures}}
                           for rank, row in enumerate(rows, start=1)), sys.stdout, args.format, columns)
    else:
        _print_table(analysis, measures, rows)
    if plot_to is not None:
        written = analyse.plot(analysis, plot_to, top=args.top or 20)
        err(f"wrote plot to {written}")
    if args.write_back:
        count = analyse.write_back(store, analysis, iris(args))
        err(f"wrote {count} triples to graph {iris(args).analysis_graph.value}")
    return EXIT_OK
