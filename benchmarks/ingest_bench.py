"""Ingest benchmark: a catalog into the on-disk store, against the floor and the store's own bulk load.

Each repeat runs in a fresh process (a new store directory each time) and times
``kg.ingestion.ingest_paths`` end to end: read, check, map, write, describe. In the
same run, on the same records:

* floor: the very same quads written as plain N-Quads text to a file (no store, no
  indexes): what a pipeline costs when it does nothing but emit the triples; its
  ``map`` part (read, check, map to quads, no writing) is reported too;
* bulk_load: pyoxigraph's ``Store.bulk_load`` of those quads (an N-Quads file written
  beforehand, not timed) into a fresh on-disk store: what the store itself costs to
  write them, with nothing in Python.

``--profile`` adds one cProfile run of the ingest, its time by where it is spent
(reading and checking, mapping, writing to the store, the rest).

    python benchmarks/ingest_bench.py [--repeats 5] [--size N] [--profile] [--out benchmarks/results/ingest.md]

``--size N`` ingests the generated full-shape catalog of N records (``bench_data``)
instead of the bundled one.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
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
from kg.sources import EDGES, ItemChecker, read_paths
from kg.mapping import record_quads
from kg.store import GraphStore
from kg.vocab import Iris
mode, target, paths = sys.argv[1], sys.argv[2], sys.argv[3:]


def mapped():
    checker, records = ItemChecker(), {}
    for batch in read_paths(paths):
        for checked in ([] if batch.kind == EDGES else checker.records(batch)):
            if checked.item is not None:  # a later file's record replaces an earlier one's
                records.pop(checked.item.id, None)
                records[checked.item.id] = checked.item
    iris, described = Iris(), set()
    for record in records.values():
        own, shared = record_quads(record, iris, described)
        yield own + shared


if mode == "ingest":
    started = time.perf_counter()
    store = GraphStore(target)
    report = ingest_paths(store, paths)
    seconds = time.perf_counter() - started
    out = {"seconds": seconds, "records": report.records, "edges": report.edges, "quads": len(store)}
elif mode == "floor":  # same records -> same quads -> N-Quads text on disk
    started, n, mapping = time.perf_counter(), 0, 0.0
    with open(target, "w", encoding="utf-8") as f:
        produced = mapped()
        while True:
            mark = time.perf_counter()
            quads = next(produced, None)
            mapping += time.perf_counter() - mark
            if quads is None:
                break
            f.write("".join(f"{q} .\n" for q in quads))
            n += len(quads)
    out = {"seconds": time.perf_counter() - started, "map_s": mapping, "quads": n}
elif mode == "bulk":  # the store's own bulk load of the floor's N-Quads file (written by the floor run)
    import pyoxigraph
    started = time.perf_counter()
    store = pyoxigraph.Store(target)
    store.bulk_load(path=paths[0], format=pyoxigraph.RdfFormat.N_QUADS)
    store.flush()
    out = {"seconds": time.perf_counter() - started, "quads": len(store)}
else:  # profile: one ingest under cProfile, seconds by where they are spent
    import cProfile, pstats
    profiler = cProfile.Profile()
    store = GraphStore(target)
    started = time.perf_counter()
    profiler.runcall(ingest_paths, store, paths)
    seconds = time.perf_counter() - started
    stats = pstats.Stats(profiler).stats
    buckets = {}
    for (file, _, name), (_, _, tottime, _, _) in stats.items():
        if file == "~":  # a built-in: a pyoxigraph Store call writes (or reads) the store
            where = ("the store's own calls (pyoxigraph Store: bulk_extend, update, ...)" if "pyoxigraph.Store" in name
                     else "reading JSON (json built-ins)" if "json" in name else "other built-ins (terms, strings)")
        else:
            where = ("kg.store" if "/kg/store/" in file
                     else "mapping (kg.mapping, kg.normalise)" if "/mapping/" in file or "/normalise/" in file
                     else "reading and checking (kg.sources, kg.records, json)" if "/sources/" in file
                     or "/records/" in file or "json" in file
                     else "kg.ingestion, kg.description" if "/ingestion/" in file or "description.py" in file
                     else "other Python")
        buckets[where] = buckets.get(where, 0.0) + tottime
    out = {"seconds": seconds, "buckets": buckets, "profiled_s": sum(buckets.values())}
out["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps(out))
"""


def run_child(mode: str, target: str, paths: list[str]) -> dict:
    done = subprocess.run([sys.executable, "-c", CHILD, mode, target, *paths], capture_output=True, text=True,
                          check=True, cwd=ROOT)
    return json.loads(done.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--size", type=int, help="a generated full-shape catalog of this many records")
    parser.add_argument("--work", type=Path, help="where generated catalogs are kept (bench_data)")
    parser.add_argument("--profile", action="store_true", help="one more ingest under cProfile")
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "ingest.md"))
    args = parser.parse_args()
    paths, what = input_paths(args)
    ingests, floors, bulks = [], [], []
    profile = None
    with tempfile.TemporaryDirectory(dir=args.work) as tmp:
        for i in range(args.repeats):
            ingests.append(run_child("ingest", f"{tmp}/store{i}", paths))
            floors.append(run_child("floor", f"{tmp}/floor.nq", paths))
            bulks.append(run_child("bulk", f"{tmp}/bulk{i}", [f"{tmp}/floor.nq"]))
            print(f"repeat {i + 1}: ingest {ingests[-1]['seconds']:.2f} s, floor {floors[-1]['seconds']:.2f} s, "
                  f"bulk_load {bulks[-1]['seconds']:.2f} s", file=sys.stderr)
            shutil.rmtree(f"{tmp}/store{i}", ignore_errors=True)
            shutil.rmtree(f"{tmp}/bulk{i}", ignore_errors=True)
        if args.profile:
            profile = run_child("profile", f"{tmp}/profiled", paths)
    med = statistics.median(r["seconds"] for r in ingests)
    floor = statistics.median(r["seconds"] for r in floors)
    bulk = statistics.median(r["seconds"] for r in bulks)
    mapping = statistics.median(r["map_s"] for r in floors)
    first = ingests[0]
    import pyoxigraph
    lines = [
        f"# Ingest benchmark: {what} into the on-disk store",
        "",
        f"Command: `python benchmarks/ingest_bench.py --repeats {args.repeats}"
        f"{f' --size {args.size}' if args.size else ''}{' --profile' if args.profile else ''}` "
        f"(each repeat a fresh process and a fresh on-disk store); load average at the end "
        f"{os.getloadavg()[0]:.1f} (1 min) on {len(os.sched_getaffinity(0))} cores.",
        "",
        f"Machine: {platform.machine()}, {platform.processor() or 'unknown CPU'}, Python {platform.python_version()}, "
        f"pyoxigraph {pyoxigraph.__version__ if hasattr(pyoxigraph, '__version__') else '0.5'}; "
        f"{len(__import__('os').sched_getaffinity(0))} cores.",
        "",
        f"Input: {first['records']} records ({what}), "
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
        f"| of which read, check, map (no writing) | {mapping:.2f} | | | {first['records'] / mapping:,.0f} | "
        f"{floors[0]['quads'] / mapping:,.0f} | |",
        f"| pyoxigraph bulk_load of the same quads (N-Quads file) into a fresh on-disk store | {bulk:.2f} | "
        f"{min(r['seconds'] for r in bulks):.2f} | {max(r['seconds'] for r in bulks):.2f} | "
        f"{first['records'] / bulk:,.0f} | {bulks[0]['quads'] / bulk:,.0f} | "
        f"{max(r['peak_rss_mb'] for r in bulks):.0f} |",
        "",
        f"Ratio kg ingest / floor: **{med / floor:.2f}x**. Ratio kg ingest / bulk_load: **{med / bulk:.2f}x** "
        f"(the issue's floor: 1.5x); read, check and map alone (no writing) are {mapping / bulk:.2f}x "
        f"the bulk load, which parses N-Quads text where kg hands the store Python quads.",
        "",
        "Raw runs (seconds): ingest " + ", ".join(f"{r['seconds']:.2f}" for r in ingests)
        + "; floor " + ", ".join(f"{r['seconds']:.2f}" for r in floors)
        + "; bulk_load " + ", ".join(f"{r['seconds']:.2f}" for r in bulks) + ".",
        "",
    ]
    if profile is not None:
        total = profile["profiled_s"]
        lines += [f"Profile of one ingest (cProfile, {profile['seconds']:.1f} s under the profiler; own time by "
                  "where it is spent):", "", "| where | s | share |", "|---|---:|---:|"]
        lines += [f"| {where} | {s:.2f} | {s / total:.0%} |"
                  for where, s in sorted(profile["buckets"].items(), key=lambda kv: -kv[1])]
        lines.append("")
    Path(args.out).write_text("\n".join(lines), encoding="utf-8")
    print("\n".join(lines))


def input_paths(args: argparse.Namespace) -> tuple[list[str], str]:
    """The catalog files to ingest, and what they are (for the report)."""
    if args.size is None:
        from kg.sources import bundled_paths

        return bundled_paths(), "the bundled catalog (912 records, the seed record superseding its site version)"
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import bench_data

    data = bench_data.catalog(args.work or bench_data.DEFAULT_WORK, args.size)
    return [data["catalog"], data["edges_file"]], f"the generated full-shape catalog of {args.size:,} records"


if __name__ == "__main__":
    main()
