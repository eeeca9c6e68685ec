"""Commands about what changed: log (the changesets), diff (two releases or versions), checkout."""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import TYPE_CHECKING, Any

from ..errors import InputRejected, UsageError, safe_text
from .common import EXIT_OK, existing_store, iris

if TYPE_CHECKING:
    from ..history import Changeset
    from ..history.compare import Snapshot

DIFF_FORMATS = ("text", "json", "turtle", "trig")
CURRENT = ("current", "HEAD")


# -- log ----------------------------------------------------------------------------


def options_log(p: argparse.ArgumentParser) -> None:
    from ..output import add_format_option

    add_format_option(p)


def run_log(args: argparse.Namespace) -> int:
    from .. import output
    from ..history import log

    rows = log(existing_store(args), iris(args))
    output.write_rows(rows, sys.stdout, args.format, [
        "changeset", "date", "files", "records_added", "records_removed", "records_changed", "edges_added",
        "edges_removed", "edges_changed", "summary"])
    return EXIT_OK


# -- diff ---------------------------------------------------------------------------


def options_diff(p: argparse.ArgumentParser) -> None:
    p.add_argument("old", metavar="OLD", help="a catalog, records or edges file, or a changeset number of the "
                                              "store (0: before the first; current: the store now)")
    p.add_argument("new", metavar="NEW", help="the same for the newer side")
    p.add_argument("--format", "-f", choices=DIFF_FORMATS, default="text",
                   help="text for people (default), json, or the changeset as RDF: turtle or trig")


def _changeset_side(word: str) -> int | None:
    """The changeset number a side names (None: the store now), or UsageError."""
    if word in CURRENT:
        return None
    if word.isdigit():
        return int(word)
    raise UsageError(f"{safe_text(word, 200)} is neither a file nor a changeset number (or 'current')")


def _file_snapshot(path: str) -> "Snapshot":
    from ..history.compare import Snapshot
    from ..records import edge_to_json, record_to_json
    from ..sources import BULK, EDGES, ItemChecker, RdfDocument, read_inputs

    snapshot, errors, checker = Snapshot(), [], ItemChecker()
    checked: list[Any]
    for given in read_inputs([path], stream_min_bytes=None):
        for part in given.expanded():
            if isinstance(part, RdfDocument):
                raise UsageError(f"{safe_text(path, 200)}: kg diff compares catalog JSON, not RDF")
            checked = list(checker.edges(part) if part.kind == EDGES else checker.records(part))
            errors += [c.error for c in checked if c.item is None and c.error]
            good = [c.item for c in checked if c.item is not None]
            if part.kind == EDGES:
                snapshot.edges = (snapshot.edges or []) + [edge_to_json(e) for e in good]
                snapshot.headers["edges"] = part.header or {}
            else:
                snapshot.records = dict(snapshot.records or {}, **{r.id: record_to_json(r) for r in good})
                if part.kind == BULK:
                    snapshot.headers["catalog"] = part.header
    if errors:
        raise InputRejected(errors)
    return snapshot


def _diff(args: argparse.Namespace) -> "Changeset":
    """The changes from OLD to NEW: one stored changeset when NEW is the one after OLD, else
    the diff of the two versions (files read, store versions rebuilt)."""
    from ..history import changeset_at, changeset_numbers, diff_catalogs
    from ..history.checkout import snapshots_at

    names = iris(args)
    files = [os.path.exists(word) for word in (args.old, args.new)]
    numbers = [None if is_file else _changeset_side(word) for word, is_file in zip((args.old, args.new), files)]
    if any(files) and all(files):
        return diff_catalogs(_file_snapshot(args.old), _file_snapshot(args.new))
    store = existing_store(args)
    old, new = numbers
    if old is not None and new is not None and new == old + 1 and not any(files):
        return changeset_at(store, names, new)  # with its times and input files
    current = max(changeset_numbers(store, names), default=0)
    wanted = [current if n is None else n for n, is_file in zip(numbers, files) if not is_file]
    # two store versions: only the records a changeset after the older one touched can differ
    at = snapshots_at(store, names, wanted, touched_only=not any(files))
    sides = [_file_snapshot(word) if is_file else at[current if n is None else n]
             for word, n, is_file in zip((args.old, args.new), numbers, files)]
    return diff_catalogs(*sides)


def run_diff(args: argparse.Namespace) -> int:
    from ..history.render import json_text
    from ..history.render import rdf, text

    changeset = _diff(args)
    if args.format == "text":
        print(text(changeset))
    elif args.format == "json":
        print(json_text(changeset))
    else:
        sys.stdout.buffer.write(rdf(changeset, iris(args), args.format))
        sys.stdout.buffer.flush()
    return EXIT_OK


# -- checkout -----------------------------------------------------------------------


def options_checkout(p: argparse.ArgumentParser) -> None:
    p.add_argument("changeset", metavar="CHANGESET", type=int,
                   help="the changeset number (kg log lists them; 0: before the first)")
    p.add_argument("--output", "-o", metavar="FILE", help="write the catalog JSON to FILE (default: stdout, "
                                                          "unless --into is given)")
    p.add_argument("--into", metavar="DIR",
                   help="rebuild a store in DIR holding that release (records, edges, shared resources) and the "
                        "history up to it, so kg log on it ends at CHANGESET; DIR must be new, empty or an empty store")
    p.add_argument("--force", action="store_true", help="with --into: replace the store DIR holds (one atomic write)")


def run_checkout(args: argparse.Namespace) -> int:
    from ..history.checkout import catalog_document, snapshot_at
    from ..outpaths import output_path, writing

    to_stdout = not args.into or args.output == "-"
    target = output_path(args.output, "-o") if args.output else None  # checked before anything is read
    source = existing_store(args)
    snapshot = snapshot_at(source, iris(args), args.changeset)
    document = catalog_document(snapshot)
    counts = f"{len(document['records'])} records, {len(document['edges'])} edges"
    if args.into:
        from ..rebuild import rebuild_store

        if args.store != ":memory:" and os.path.realpath(args.into) == os.path.realpath(args.store):
            raise UsageError("--into names the store being read; give another folder")
        quads = rebuild_store(source, snapshot, args.changeset, args.into, iris(args), force=args.force)
        print(f"rebuilt the store at changeset {args.changeset} in {args.into} ({counts}; {quads} quads)",
              file=sys.stderr)
    data = (json.dumps(document, ensure_ascii=False, indent=1) + "\n").encode()
    if target is not None and target.target != "-":
        with writing(target) as out:
            out.write(data)
        print(f"wrote the catalog at changeset {args.changeset} to {args.output} ({counts})", file=sys.stderr)
    elif to_stdout:
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
    return EXIT_OK
