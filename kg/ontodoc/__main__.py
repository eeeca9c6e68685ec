"""``python -m kg.ontodoc``: a maintainer regenerates the ontology's documentation in a checkout.

Writes the generated files that changed (``ontology/README.md``, the diagram, the JSON-LD
context) from ``ontology/kg.ttl``; ``--check`` writes nothing and exits 1 when one is out of
date (CI runs it through ``tests/test_ontodoc.py``). A user's ``kg`` has no verb for it: the
files ship generated. Exit codes as kg's: 0 done or up to date, 1 out of date, 2 usage (also:
the SVG is stale and Graphviz is not installed to draw it again).
"""

from __future__ import annotations

import argparse
import sys

from ..errors import UsageError
from . import render, stale, write

PROG = "python -m kg.ontodoc"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=PROG, description="regenerate the ontology's documentation "
                                     "(ontology/README.md, its diagram, the JSON-LD context) from ontology/kg.ttl")
    parser.add_argument("--check", action="store_true",
                        help="write nothing; exit 1 when the generated files differ from the ontology")
    args = parser.parse_args(argv)
    outputs = render()
    if args.check:
        drifted = stale(outputs)
        for path in drifted:
            print(f"out of date: {path} (run '{PROG}')", file=sys.stderr)
        if drifted:
            return 1
        print(f"up to date: {', '.join(str(path) for path in sorted(outputs))}", file=sys.stderr)
        return 0
    try:
        written = write(outputs)
    except UsageError as err:
        print(f"{PROG}: error: {err}", file=sys.stderr)
        return 2
    for path in sorted(outputs):
        print(f"{'wrote' if path in written else 'unchanged'}: {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
