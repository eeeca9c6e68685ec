#!/usr/bin/env python3
"""Exports against the store's own dump: each format of ``kg.exports.export`` next to pyoxigraph's
``Store.dump`` of the same on-disk store, in the same process, in turns.

For each size (the full-shape catalogs of ``benchmarks/generate.py``, ingested once into
an on-disk store, see ``bench_data``) one fresh process times, ``--repeats`` rounds in
turn, everything written to /dev/null (what is measured is producing the bytes, not the
disk):

* ``dump nquads`` and ``dump trig``: ``GraphStore.dump`` (pyoxigraph's own serialiser
  reading the store, nothing in Python); ``dump jsonld``: its expanded JSON-LD;
* ``export nquads``, ``export trig``, ``export turtle`` (the union of the graphs, each
  triple once), ``export jsonld`` (compact, with the kg context, graph by graph).

The ratios are export / dump (median wall time and CPU time; the floors are judged on CPU
time, which the other processes of a busy machine do not inflate): against the N-Quads dump (the store's fastest full read-out; the issue's
floors: N-Quads, TriG and Turtle within 1.3x, JSON-LD within 2x), and against the dump
in the same syntax (TriG for Turtle, whose union the store cannot dump itself).

    python benchmarks/export_bench.py [--sizes 912,9120] [--repeats 3] [--work DIR]
                                      [--out benchmarks/results/exports.md]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

import bench_data  # noqa: E402

ITEMS = ("dump nquads", "export nquads", "dump trig", "export trig", "export turtle", "dump jsonld",
         "export jsonld")
SAME_SYNTAX = {"nquads": "dump nquads", "trig": "dump trig", "turtle": "dump trig", "jsonld": "dump jsonld"}
FLOORS = {"nquads": 1.3, "trig": 1.3, "turtle": 1.3, "jsonld": 2.0}

CHILD = r"""
import json, os, sys, time
from kg.exports import export, prefixes
from kg.store import GraphStore
from kg.vocab import Iris
path, repeats, items = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(",")
store, iris = GraphStore.open_existing(path, read_only=True), Iris()
runs = {item: [] for item in items}
for _ in range(repeats):
    for item in items:
        verb, fmt = item.split()
        with open(os.devnull, "wb") as sink:
            load, wall, cpu = os.getloadavg()[0], time.perf_counter(), time.process_time()
            if verb == "dump":
                store.dump(sink, fmt, prefixes=prefixes(iris))
            else:
                export(store, fmt, sink, iris)
            runs[item].append({"wall_s": time.perf_counter() - wall, "cpu_s": time.process_time() - cpu,
                               "load": load})
print(json.dumps({"quads": len(store), "runs": runs}))
"""


def measure(path: Path, repeats: int, items: tuple[str, ...] = ITEMS) -> dict:
    done = subprocess.run([sys.executable, "-c", CHILD, str(path), str(repeats), ",".join(items)],
                          capture_output=True, text=True, check=True, cwd=bench_data.ROOT)
    return json.loads(done.stdout)


def medians(found: dict) -> dict[str, dict[str, float]]:
    return {item: {key: statistics.median(r[key] for r in runs) for key in ("wall_s", "cpu_s", "load")}
            for item, runs in found["runs"].items()}


def table(size: int, found: dict) -> list[str]:
    med = medians(found)
    base = med["dump nquads"]
    lines = [f"### {size:,} records ({found['quads']:,} quads)", "",
             "| item | median wall s | median CPU s | quads/s (wall) | / N-Quads dump (wall, CPU) "
             "| / same-syntax dump (wall, CPU) | floor | load (1 min) |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for item in (i for i in ITEMS if i in med):
        m = med[item]
        verb, fmt = item.split()
        row = f"| {item} | {m['wall_s']:.2f} | {m['cpu_s']:.2f} | {found['quads'] / m['wall_s']:,.0f} | "
        if verb == "export":
            same = med.get(SAME_SYNTAX[fmt], {"wall_s": float("nan"), "cpu_s": float("nan")})
            ok = m["cpu_s"] / base["cpu_s"] <= FLOORS[fmt]  # CPU: wall time on a busy machine is its load
            row += (f"{m['wall_s'] / base['wall_s']:.2f}x, {m['cpu_s'] / base['cpu_s']:.2f}x | "
                    f"{m['wall_s'] / same['wall_s']:.2f}x, {m['cpu_s'] / same['cpu_s']:.2f}x ({SAME_SYNTAX[fmt]}) | "
                    f"{FLOORS[fmt]}x {'met' if ok else '**missed**'} |")
        else:
            row += "1.00x |  |  |" if item == "dump nquads" else \
                f"{m['wall_s'] / base['wall_s']:.2f}x, {m['cpu_s'] / base['cpu_s']:.2f}x |  |  |"
        lines.append(row + f" {m['load']:.1f} |")
    return lines + [""]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="912,9120")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--items", default=",".join(ITEMS),
                    help="only these items (comma-separated; 'dump nquads' always runs: the ratios' base)")
    ap.add_argument("--work", type=Path, default=bench_data.DEFAULT_WORK)
    ap.add_argument("--out", type=Path, default=BENCH / "results" / "exports.md")
    ap.add_argument("--report-only", type=Path, metavar="JSON", help="render the report from a raw results file")
    args = ap.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    items = tuple(i for i in ITEMS if i == "dump nquads" or i in args.items.split(","))
    lines = ["# Exports against the store's own dump", "",
             f"Command: `python benchmarks/export_bench.py --sizes {args.sizes} --repeats {args.repeats}"
             f"{'' if len(items) == len(ITEMS) else ' --items ' + repr(','.join(items))}` "
             "(one fresh process per size, the items in turns, output to /dev/null).", "",
             f"Machine: {'see the load column' if args.report_only else bench_data.machine_line()}. The load column is the 1-minute load average as each "
             "item started: on a busy machine the CPU-time ratios are the steadier ones.", ""]
    raw = {int(k): v for k, v in json.loads(args.report_only.read_text()).items()} if args.report_only else {}
    for size in sizes:
        if args.report_only:
            lines += table(size, raw[size])
            continue
        path, _ = bench_data.store(args.work, size)
        bench_data.log(f"exports at {size} records ...")
        raw[size] = found = measure(path, args.repeats, items)
        lines += table(size, found)
        bench_data.log("\n".join(table(size, found)))
    lines += [f"Raw runs: `{args.out.with_suffix('.json').name}` beside this file.", ""]
    args.out.write_text("\n".join(lines).rstrip() + "\n", encoding="utf-8")
    if not args.report_only:
        (args.out.with_suffix(".json")).write_text(json.dumps({str(k): v for k, v in raw.items()}, indent=1))
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
