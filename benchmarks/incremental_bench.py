#!/usr/bin/env python3
"""Re-ingest of 100 changed records and their revalidation, per record, at several store sizes (issue 16).

    python benchmarks/incremental_bench.py --sizes 912,9120 --trials 1 [--baseline-src DIR]

The catalogs are ``benchmarks/run.py``'s (``bench_catalogs``: generated once into ``--work``, with its
``changed-100.json``); each size's store is built once (``ingest_paths`` of the
catalog and its edges) and copied for every trial, so each trial starts from the
same store (``cp -al``: hard links). A trial is one fresh process: ``ingest_paths`` of the 100 changed
records (timed), then ``revalidate`` of them (timed, with the report before the
change empty, as run.py's stage does). Trials run interleaved over the sizes and
variants, so that the ratios compare runs made under the same load:

* ``kg``: this tree;
* ``kg-no-history``: the same, with the history recorder (kg.history) replaced by
  one that records nothing: what the re-ingest costs apart from the history;
* ``baseline``: the tree at ``--baseline-src`` (for instance ``git archive main``),
  on copies of the same stores.

Results: ``--out`` (JSON) and a table on stdout.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))


def child(spec: dict) -> dict:
    """One trial in this process: the re-ingest, then the revalidation, timed."""
    from kg.ingestion import ingest_paths
    import kg.ingestion
    from kg.store import GraphStore
    from kg.validation import ValidationReport, load_rules, revalidate
    from kg.vocab import Iris

    if spec["variant"] == "kg-no-history":
        from bench_data import NoRecorder  # records nothing: the re-ingest apart from the history

        kg.ingestion.recording.Recorder = NoRecorder  # type: ignore[attr-defined, misc]
    store = GraphStore(spec["store"])
    started = time.perf_counter()
    report = ingest_paths(store, [spec["changed"]])
    reingest = time.perf_counter() - started
    ids = [r["id"] for r in json.loads(Path(spec["changed"]).read_text(encoding="utf-8"))]
    before = ValidationReport(results=[], rules=load_rules(Iris()))
    started = time.perf_counter()
    again = revalidate(before, store, ids)
    return {"records": report.records, "reingest_s": reingest, "revalidate_s": time.perf_counter() - started,
            "results": len(again.results), "load": os.getloadavg()[0]}


def base_store(work: Path, size: int, data: dict) -> Path:
    """The store of the size's catalog and edges, built once."""
    store = work / f"base-{size}"
    if not (store / "generation").is_file():
        shutil.rmtree(store, ignore_errors=True)
        from kg.ingestion import ingest_paths
        from kg.store import GraphStore

        ingest_paths(GraphStore(store), [data["catalog"], data["edges_file"]])
    return store


def trial(work: Path, size: int, variant: str, data: dict, baseline: str | None) -> dict:
    store = work / f"trial-{size}"
    shutil.rmtree(store, ignore_errors=True)
    # hard links (a store's files are never changed in place: a write makes a new generation)
    subprocess.run(["cp", "-al", str(base_store(work, size, data)), str(store)], check=True)
    spec = {"store": str(store), "changed": data["changed"], "variant": variant}
    env = dict(os.environ)
    if variant == "baseline" and baseline:
        env["PYTHONPATH"] = baseline
    out = subprocess.run([sys.executable, __file__, "--child", json.dumps(spec)], env=env, capture_output=True,
                         text=True, check=True)
    shutil.rmtree(store, ignore_errors=True)
    return {"size": size, "variant": variant, **json.loads(out.stdout.strip().splitlines()[-1])}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="912,9120")
    parser.add_argument("--trials", type=int, default=1)
    parser.add_argument("--work", default=None, help="run.py's work folder (default: its own)")
    parser.add_argument("--baseline-src", default=None, help="another kg source tree to compare with")
    parser.add_argument("--variants", default="kg,kg-no-history,baseline")
    parser.add_argument("--out", default=None)
    parser.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(json.loads(args.child))))
        return
    import bench_catalogs as R

    work = Path(args.work) if args.work else R.DEFAULT_WORK
    sizes = [int(s) for s in args.sizes.split(",")]
    variants = [v for v in args.variants.split(",") if v != "baseline" or args.baseline_src]
    data = {size: R.ensure_data(work, size, R.DEFAULT_SEED, lambda text: print(text, file=sys.stderr))
            for size in sizes}
    runs = []
    for number in range(args.trials):
        for variant in variants:
            for size in sizes:
                found = trial(work, size, variant, data[size], args.baseline_src)
                runs.append(found)
                print(f"[{number + 1}] {variant} {size}: re-ingest {found['reingest_s']:.2f} s, "
                      f"revalidate {found['revalidate_s']:.2f} s (load {found['load']:.1f})", file=sys.stderr,
                      flush=True)
                if args.out:
                    Path(args.out).write_text(json.dumps({"runs": runs}, indent=1), encoding="utf-8")
    print("| variant | records | re-ingest ms/record | revalidate ms/changed record |")
    print("|---|---:|---:|---:|")
    for variant in variants:
        for size in sizes:
            mine = [r for r in runs if r["variant"] == variant and r["size"] == size]
            ingest = statistics.median(r["reingest_s"] for r in mine) * 1000 / mine[0]["records"]
            check = statistics.median(r["revalidate_s"] for r in mine) * 1000 / mine[0]["records"]
            print(f"| {variant} | {size:,} | {ingest:.0f} | {check:.0f} |")


if __name__ == "__main__":
    main()
