"""What every command shares: exit codes, global options, stderr messages, colour, stores.

Only light modules are imported here (pyoxigraph's terms, no rdflib, no NetworkX):
``kg --help`` reads only this module and the parser.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from typing import Callable

from ..errors import UsageError, safe_text
from ..store import GraphStore, default_store_path
from ..vocab import DEFAULT_BASE, Iris

EXIT_OK = 0
EXIT_VIOLATIONS = 1
EXIT_USAGE = 2
EXIT_INPUT = 3
EXIT_STORE = 4
EXIT_QUARANTINE = 5
EXIT_NOT_FOUND = 6
EXIT_INTERNAL = 70  # an unexpected failure (a bug in kg): sysexits' EX_SOFTWARE
EXIT_INTERRUPTED = 130

EXIT_CODES = {
    EXIT_OK: "success",
    EXIT_VIOLATIONS: "validation found violations (kg validate; kg build --fail-on violation; "
                     "--fail-on sets the severity)",
    EXIT_USAGE: "usage error (unknown command, option or value; a bad query parameter; an output path "
                "that is a folder, an input, inside an input folder or a store, or cannot be written; a validation "
                "stopped at its --timeout)",
    EXIT_INPUT: "unreadable input (a file cannot be read or parsed, --strict rejected bad records, shapes kg "
                "will not run, or a query file of --queries that is wrong or takes a name already taken, named "
                "with its line); nothing written",
    EXIT_STORE: "store error (no store yet, a damaged store, locked by another process, a remote store or "
                "endpoint that cannot be reached in time, answers with what is not SPARQL results, or differs "
                "after kg push)",
    EXIT_QUARANTINE: "ingested, but some records or edges were quarantined",
    EXIT_NOT_FOUND: "not found (a query was given an id or a name that matches no system, or a name that "
                    "several systems match): the message lists close matches or the candidates",
    EXIT_INTERNAL: "an unexpected failure inside kg (a bug): one line says what failed; --debug shows "
                   "the traceback",
    EXIT_INTERRUPTED: "interrupted (Ctrl-C, or a worker process of the ingest killed): nothing written",
}

ISSUES_URL = "the kg maintainers (the project's issue tracker)"


def err(message: str) -> None:
    """A line on stderr (summaries, progress, warnings, errors)."""
    print(message, file=sys.stderr)


def add_common(parser: argparse.ArgumentParser) -> None:
    """The options every command takes."""
    parser.add_argument("--store", default=default_store_path(), metavar="DIR",
                        help="store directory (default: $KG_STORE or ./kg-store; ':memory:' for a throwaway store)")
    parser.add_argument("--base", default=os.environ.get("KG_BASE", DEFAULT_BASE), metavar="IRI",
                        help=f"base IRI of the data (default: $KG_BASE or {DEFAULT_BASE})")
    parser.add_argument("--no-color", action="store_true",
                        help="no colour in summaries and reports (colour is only used on a terminal, "
                             "and never when NO_COLOR is set)")
    parser.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                        help="on an unexpected failure, print the whole traceback")


def progress_printer(label: str) -> Callable[[int, int], None] | None:
    """A progress line on stderr, only when stderr is a terminal."""
    if not sys.stderr.isatty():
        return None

    def show(done: int, total: int) -> None:
        end = "\n" if done >= total else ""
        print(f"\r{label}: {done}/{total}", end=end, file=sys.stderr, flush=True)

    return show


def stage_printer(label: str) -> Callable[[str], None] | None:
    """Announces each step of a long computation on stderr, only when stderr is a terminal."""
    if not sys.stderr.isatty():
        return None

    def show(step: str) -> None:
        print(f"\r{label}: {step}...\033[K", end="", file=sys.stderr, flush=True)

    return show


_COLOURS = {"red": "31", "yellow": "33", "green": "32", "cyan": "36"}
_SEVERITY_COLOURS = {"VIOLATION": "red", "WARNING": "yellow", "INFO": "cyan", "FAIL": "red", "WARN": "yellow",
                     "OK": "green"}


def colour_on(stream: object, args: argparse.Namespace) -> bool:
    """Colour only on a terminal, and never with NO_COLOR set (https://no-color.org) or --no-color."""
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty()) and not os.environ.get("NO_COLOR") and not getattr(args, "no_color", False)


def paint(text: str, colour: str, on: bool) -> str:
    return f"\x1b[{_COLOURS[colour]}m{text}\x1b[0m" if on else text


def paint_report(text: str, on: bool) -> str:
    """A validation report with its severity words and verdict coloured (when ``on``)."""
    if not on:
        return text
    return re.sub(r"^(VIOLATION|WARNING|INFO|FAIL|WARN|OK)\b",
                  lambda m: paint(m.group(1), _SEVERITY_COLOURS[m.group(1)], True), text, flags=re.MULTILINE)


def iris(args: argparse.Namespace) -> Iris:
    return Iris(args.base)


def writable_store(args: argparse.Namespace) -> GraphStore:
    """The store a writing command changes (created when it does not exist yet)."""
    return GraphStore() if args.store == ":memory:" else GraphStore(args.store)


def existing_store(args: argparse.Namespace, *, read_only: bool = True) -> GraphStore:
    """The store a reading command reads: it must exist (reading never creates one)."""
    if args.store == ":memory:":
        return GraphStore()
    return GraphStore.open_existing(args.store, read_only=read_only)


def store_folders(args: argparse.Namespace, *more: str | None) -> list[str]:
    """The store folders a command reads or writes (``--store`` and ``more``, none in memory): no
    output may be written inside one (:func:`kg.outpaths.output_path`)."""
    return [folder for folder in (args.store, *more) if folder and folder != ":memory:"]


def query_params(pairs: list[str] | None) -> dict[str, str]:
    """``--param NAME=VALUE`` pairs as a dict (each name once)."""
    params: dict[str, str] = {}
    for pair in pairs or []:
        name, sep, value = pair.partition("=")
        if not sep or not name:
            raise UsageError(f"--param needs NAME=VALUE, got {safe_text(pair, 80)!r}")
        if name in params:
            raise UsageError(f"--param {safe_text(name, 40)} given twice")
        params[name] = value
    return params


def add_queries_option(parser: argparse.ArgumentParser) -> None:
    """``--queries DIR``: folders of the user's own named queries (kg.queries.folders)."""
    parser.add_argument("--queries", action="append", metavar="DIR",
                        help="a folder of your own named queries: .rq files with the header of the bundled ones, "
                             "each a named query of its file's name (repeatable; default: $KG_QUERIES, folders "
                             "separated by ':'); a bad file or a name already taken is an error (exit 3)")


def query_folders(args: argparse.Namespace) -> list[str]:
    """The folders of the user's queries (``--queries``, else ``KG_QUERIES``), checked and registered
    in the query registry, so that every face of this command lists and runs them."""
    from ..queries import from_environment, use_folders

    folders = list(args.queries) if getattr(args, "queries", None) else from_environment()
    use_folders(folders)
    return folders


def positive(value: int | None, option: str) -> None:
    if value is not None and value < 1:
        raise UsageError(f"{option} must be a positive number")
