#!/usr/bin/env python3
"""One stock pySHACL run (unpatched) over an N-Triples dump with kg's shapes: the reference command.

    python benchmarks/stock_pyshacl.py DUMP.nt

Parses the dump into one rdflib graph, runs ``pyshacl.validate`` with every shape of
``shapes/`` (record-local and catalog-wide), and prints the number of results by
source shape as JSON. Nothing of kg is imported: this is what a user would run.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

import pyshacl
import rdflib

SHAPES = Path(__file__).resolve().parent.parent / "shapes"
SH = rdflib.Namespace("http://www.w3.org/ns/shacl#")


def main(dump: str) -> None:
    data = rdflib.Graph().parse(dump, format="nt")
    shapes = rdflib.Graph()
    for name in ("kg-shapes.ttl", "kg-cross-shapes.ttl"):
        shapes.parse(SHAPES / name, format="turtle")
    conforms, report, _ = pyshacl.validate(data, shacl_graph=shapes, inference="none", advanced=False,
                                           allow_warnings=False)
    counts = Counter(str(report.value(r, SH.sourceShape)).rsplit("#", 1)[-1] for r in report.objects(None, SH.result))
    print(json.dumps({"conforms": conforms, "results": sum(counts.values()), "counts": dict(sorted(counts.items()))}))


if __name__ == "__main__":
    main(sys.argv[1])
