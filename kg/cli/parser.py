"""The argument parser of ``kg``: the commands, their help, and their options, built lazily.

``kg --help`` needs only the command names and their one-line help, so the parser is
built from the table below without importing any command module. A command's options
(whose choices come from the library: formats, measures, defaults) are added only when
that command is the one being run, or when the whole reference is wanted
(:func:`build_parser` without ``only``, as tests/test_docs.py does).
"""

from __future__ import annotations

import argparse
import importlib
from typing import Any, NamedTuple, Sequence

from .common import EXIT_CODES, EXIT_USAGE, add_common

DISTRIBUTION = "agent-landscape-kg"


class Command(NamedTuple):
    """One ``kg`` command: its name, one-line help, an example, and where it lives."""

    name: str
    help: str
    example: str
    module: str  # kg.cli.<module> holds options_<name>(parser) and run_<name>(args)

    def function(self, prefix: str) -> Any:
        """``options_<name>`` or ``run_<name>`` of the command's module."""
        module = importlib.import_module(f"kg.cli.{self.module}")
        return getattr(module, f"{prefix}_{self.name}")


COMMANDS = (
    Command("build", "ingest the catalog (the bundled one by default), validate it and print a summary "
            "(exit 0 once the graph is built; --fail-on violation makes it a gate)", "kg build", "data"),
    Command("ingest", "ingest catalog JSON (files, folders, JSON Lines, - for stdin) or RDF files "
            "(Turtle, N-Triples, N-Quads, TriG, JSON-LD, RDF/XML)",
            "kg ingest data/landscape-site.json data/landscape.edges.json", "data"),
    Command("export", "write the graph as Turtle, N-Triples, N-Quads, TriG, JSON-LD, RDF/XML or catalog JSON, "
            "or an analysis projection as GraphML, GEXF or node-link JSON",
            "kg export -o landscape.ttl", "data"),
    Command("info", "print the dataset description: triples and entities per class",
            "kg info --format json", "data"),
    Command("validate", "check the graph (or RDF files) against the SHACL shapes of shapes/ or your own: "
            "record rules per record graph on all cores, catalog-wide rules as SPARQL "
            "(exit 0 conforms, 1 violations)", "kg validate --format json > report.json", "checks"),
    Command("query", "run a named query (kg query --list), a .rq/.sparql file, --text or - (stdin), "
            "with bound parameters", "kg query search --param text=memory --param tier=1 --format csv", "ask"),
    Command("analyze", "graph measures of the systems: betweenness, k-core and nucleus, inbound and "
            "outbound counts, bridge surprise, PageRank, communities, components, blast radius",
            "kg analyze --measure betweenness --top 10 --plot centrality.png", "ask"),
    Command("serve", "SPARQL 1.1 endpoint (read-only by default) with a query page and system pages",
            "kg serve --port 8000   # then open http://127.0.0.1:8000/", "net"),
    Command("mcp", "MCP server for agents: the common named queries as tools (the others through one catalog "
            "tool), read-only SPARQL, a system's record and the graph measures, paged; resource templates and "
            "completion (stdio; --http for streamable HTTP on 127.0.0.1)",
            "kg mcp --store kg-store   # started by an MCP client; see docs/guide/mcp.md", "agents"),
    Command("push", "load every named graph into an external SPARQL 1.1 store (replacing them)",
            "kg push --endpoint http://localhost:7878/query --update-endpoint http://localhost:7878/update",
            "net"),
    Command("log", "list the changesets of the store, newest first: date, input files, records and edges "
            "added, removed and changed", "kg log", "history"),
    Command("diff", "what changed between two catalog files, or two changesets of the store, field by field "
            "(text, JSON, or the changeset as Turtle or TriG)", "kg diff 1 2   # or: kg diff old.json new.json",
            "history"),
    Command("checkout", "write the catalog JSON exactly as it was ingested at a changeset, or rebuild a store "
            "at it", "kg checkout 1 -o catalog-1.json   # or: kg checkout 1 --into kg-store-1", "history"),
)
BY_NAME = {c.name: c for c in COMMANDS}


def kg_version() -> str:
    from importlib.metadata import PackageNotFoundError, version  # not at start-up: 50 ms

    try:
        return version(DISTRIBUTION)
    except PackageNotFoundError:
        return "0+unknown"


class _Version(argparse.Action):
    """``--version``, looked up only when asked for."""

    def __init__(self, option_strings: Sequence[str], dest: str = argparse.SUPPRESS, **kwargs: object) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS,
                         help="show the version and exit")

    def __call__(self, parser: argparse.ArgumentParser, *args: object, **kwargs: object) -> None:
        print(f"kg {kg_version()} ({DISTRIBUTION})")
        parser.exit()


class Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]  # usage errors: one line, exit 2
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


def _exit_codes() -> str:
    return "exit codes: " + "; ".join(f"{code} {text.split(' (')[0]}" for code, text in EXIT_CODES.items())


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser; with ``only``, just that command gets its options (the others their name)."""
    parser = Parser(prog="kg", description="The AI Agent Infrastructure Landscape as a knowledge graph.",
                    epilog=_exit_codes(), formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action=_Version)
    parser.add_argument("--debug", action="store_true", help="on an unexpected failure, print the whole traceback")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    for command in COMMANDS:
        p = sub.add_parser(command.name, help=command.help, description=command.help,
                           epilog=f"example:\n  {command.example}",
                           formatter_class=argparse.RawDescriptionHelpFormatter)
        if only is None or only == command.name:
            add_common(p)
            command.function("options")(p)
            p.set_defaults(run=command.function("run"))
    return parser


def command_in(argv: Sequence[str]) -> str | None:
    """The command named in ``argv`` (its first word that is not an option), if any."""
    for word in argv:
        if not word.startswith("-"):
            return word if word in BY_NAME else None
    return None
