"""Commands about what changed: log (the changesets), diff (two releases or versions), checkout."""

from __future__ import annotations

import argparse
import json
import sys

from ..errors import UsageError
from .common import EXIT_OK, existing_store, iris, store_folders

DIFF_FORMATS = ("text", "json", "turtle", "trig")


# -- log ----------------------------------------------------------------------------


def options_log(p: argparse.ArgumentParser) -> None:
    from .formats import add_format_option

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


def run_diff(args: argparse.Namespace) -> int:
    from ..history import diff
    from ..history.render import json_text, rdf, text

    changeset = diff(args.old, args.new, lambda: existing_store(args), iris(args))
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
    from ..outpaths import output_path, refuse_inside, writing
    from ..checkouts import checkout

    to_stdout = not args.into or args.output == "-"
    if args.into:  # the store rebuilt: not inside the store read
        refuse_inside(args.into, "--into", stores=store_folders(args))
    # checked before anything is read: not inside the store read, nor inside the one rebuilt
    target = output_path(args.output, "-o", stores=store_folders(args, args.into)) if args.output else None
    release = checkout(existing_store(args), args.changeset, iris(args), into=args.into, force=args.force)
    if release.quads is not None:
        print(f"rebuilt the store at changeset {args.changeset} in {args.into} ({release.counts}; "
              f"{release.quads} quads)", file=sys.stderr)
    data = (json.dumps(release.document, ensure_ascii=False, indent=1) + "\n").encode()
    if target is not None and target.target != "-":
        with writing(target) as out:
            out.write(data)
        print(f"wrote the catalog at changeset {args.changeset} to {args.output} ({release.counts})",
              file=sys.stderr)
    elif to_stdout:
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
    return EXIT_OK
