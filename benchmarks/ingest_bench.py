"""Ingest benchmark: the bundled catalog into the on-disk store, against the floor.

Each repeat runs in a fresh process (a new store directory each time) and times
``kg.ingestion.ingest_paths`` end to end: read, check, map, write, describe. The floor
is writing the very same quads as plain N-Quads text to a file (no store, no
indexes): what a pipeline costs when it does nothing but emit the triples.

    python benchmarks/ingest_bench.py [--repeats 5] [--out benchmarks/results/ingest.md]
"""

from __future__ import annotations

import argparse
import json
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CHILD = r"""
import json, resource, sys, time
from kg.ingestion import ingest_paths
from kg.sources import EDGES, ItemChecker, bundled_paths, read_paths
from kg.mapping import record_quads
from kg.store import GraphStore
from kg.vocab import Iris
mode, target = sys.argv[1], sys.argv[2]
if mode == "ingest":
    started = time.perf_counter()
    store = GraphStore(target)
    report = ingest_paths(store, bundled_paths())
    seconds = time.perf_counter() - started
    out = {"seconds": seconds, "records": report.records, "edges": report.edges, "quads": len(store)}
else:  # floor: same records -> same quads -> N-Quads text on disk
    started = time.perf_counter()
    checker, records = ItemChecker(), {}
    for batch in read_paths(bundled_paths()):
        for checked in ([] if batch.kind == EDGES else checker.records(batch)):
            if checked.item is not None:  # a later file's record replaces an earlier one's
                records.pop(checked.item.id, None)
                records[checked.item.id] = checked.item
    iris, described, n = Iris(), set(), 0
    with open(target, "w", encoding="utf-8") as f:
        for record in records.values():
            own, shared = record_quads(record, iris, described)
            for q in own + shared:
                f.write(f"{q} .\n")
                n += 1
    seconds = time.perf_counter() - started
    out = {"seconds": seconds, "quads": n}
out["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps(out))
"""


def run_child(mode: str, target: str) -> dict:
    done = subprocess.run([sys.executable, "-c", CHILD, mode, target], capture_output=True, text=True,
                          check=True, cwd=ROOT)
    return json.loads(done.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "ingest.md"))
    args = parser.parse_args()
    ingests, floors = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(args.repeats):
            ingests.append(run_child("ingest", f"{tmp}/store{i}"))
            floors.append(run_child("floor", f"{tmp}/floor{i}.nq"))
            print(f"repeat {i + 1}: ingest {ingests[-1]['seconds']:.2f} s, floor {floors[-1]['seconds']:.2f} s",
                  file=sys.stderr)
    med = statistics.median(r["seconds"] for r in ingests)
    floor = statistics.median(r["seconds"] for r in floors)
    first = ingests[0]
    import pyoxigraph
    lines = [
        "# Ingest benchmark: the bundled catalog into the on-disk store",
        "",
        f"Command: `python benchmarks/ingest_bench.py --repeats {args.repeats}` "
        f"(each repeat a fresh process and a fresh on-disk store).",
        "",
        f"Machine: {platform.machine()}, {platform.processor() or 'unknown CPU'}, Python {platform.python_version()}, "
        f"pyoxigraph {pyoxigraph.__version__ if hasattr(pyoxigraph, '__version__') else '0.5'}; "
        f"{len(__import__('os').sched_getaffinity(0))} cores.",
        "",
        f"Input: {first['records']} records (912 catalog records, the seed record superseding its site version), "
        f"{first['edges']} edges; {first['quads']} quads in the store.",
        "",
        "| stage | median s | min s | max s | records/s | quads/s | peak RSS MB |",
        "|---|---:|---:|---:|---:|---:|---:|",
        f"| kg ingest (read, check, map, write on disk, describe) | {med:.2f} | "
        f"{min(r['seconds'] for r in ingests):.2f} | {max(r['seconds'] for r in ingests):.2f} | "
        f"{first['records'] / med:,.0f} | {first['quads'] / med:,.0f} | "
        f"{max(r['peak_rss_mb'] for r in ingests):.0f} |",
        f"| floor: same quads as N-Quads text to a file | {floor:.2f} | "
        f"{min(r['seconds'] for r in floors):.2f} | {max(r['seconds'] for r in floors):.2f} | "
        f"{first['records'] / floor:,.0f} | {floors[0]['quads'] / floor:,.0f} | "
        f"{max(r['peak_rss_mb'] for r in floors):.0f} |",
        "",
        f"Ratio kg ingest / floor: **{med / floor:.2f}x**. Floor for the ingest issue: under 3 s.",
        "",
        "Raw runs (seconds): ingest " + ", ".join(f"{r['seconds']:.2f}" for r in ingests)
        + "; floor " + ", ".join(f"{r['seconds']:.2f}" for r in floors) + ".",
        "",
    ]
    Path(args.out).write_text("\n".join(lines), encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
