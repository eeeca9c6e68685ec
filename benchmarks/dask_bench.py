#!/usr/bin/env python3
"""Validation and sampled betweenness on a Dask cluster against the local process pool, same data.

For each size (full-shape catalogs of ``benchmarks/generate.py`` in an on-disk store, see
``bench_data``), each run in a fresh process:

* ``pool``: ``kg.validation.validate`` with its process pool (one worker per core), then
  the sampled betweenness of the systems' projection (``--pivots`` pivots, NetworkX);
* ``dask``: a ``distributed.LocalCluster`` of ``--workers`` single-thread worker processes
  is started (timed apart), then the same two with ``scheduler=`` its address: every
  part travels to a worker as N-Triples (what a remote cluster gets), the results back.

Reported: wall time, the client's CPU time (a pool's finished workers included, a
LocalCluster's live ones not), the CPU the parts took (``worker_cpu_s``, both), the
bytes of part triples sent, and whether the report and the measures
are the same as the pool's (compared as data).

    python benchmarks/dask_bench.py [--sizes 9120] [--workers 2] [--pivots 512]
                                    [--out benchmarks/results/dask.md]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

import bench_data  # noqa: E402


def _cpu() -> float:
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def _timed(func):  # noqa: ANN001, ANN202
    load, wall, cpu = os.getloadavg()[0], time.perf_counter(), _cpu()
    result = func()
    return result, {"wall_s": time.perf_counter() - wall, "cpu_s": _cpu() - cpu, "load": load}


def _digest(value: object) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True, default=str).encode()).hexdigest()[:16]


def child(mode: str, store_path: str, workers: int, pivots: int) -> dict:
    """One run (``pool`` or ``dask``) in this process: timings and digests of what it found."""
    from kg import analyse
    from kg.analyse.projections import project_systems, read_snapshot
    from kg.store import GraphStore
    from kg.vocab import Iris

    store, iris = GraphStore.open_existing(store_path, read_only=True), Iris()
    out: dict = {"mode": mode}
    graph = project_systems(read_snapshot(store, iris), None)
    address = None
    cluster = None
    if mode == "dask":
        import distributed

        cluster, out["cluster_start"] = _timed(lambda: distributed.LocalCluster(
            n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=":0"))
        address = cluster.scheduler_address
    from kg.validation import validate

    report, out["validate"] = _timed(lambda: validate(store, iris, scheduler=address))
    out["validate"]["parts"] = report.timings.get("record_parts")
    out["validate"]["jobs"] = report.timings.get("jobs")
    out["validate"]["prepare_s"] = report.timings.get("prepare_s")
    out["validate"]["worker_cpu_s"] = report.timings.get("worker_cpu_s") or 0.0
    data = report.to_json()
    for key in ("seconds", "timings"):
        data.pop(key, None)
    out["report_digest"], out["results"], out["records"] = _digest(data), len(report.results), report.records
    out["bytes_sent"] = report.timings.get("sent_mb", 0) * 1e6
    scores, out["betweenness"] = _timed(lambda: analyse.betweenness(graph, sample=pivots, backend="networkx",
                                                                     scheduler=address))
    out["betweenness_digest"], out["systems"] = _digest(sorted(scores.items())), len(scores)
    if cluster is not None:
        cluster.close()
    return out


def run_child(mode: str, store_path: Path, workers: int, pivots: int) -> dict:
    done = subprocess.run([sys.executable, __file__, "--child", mode, "--store", str(store_path),
                           "--workers", str(workers), "--pivots", str(pivots)],
                          capture_output=True, text=True, check=True, cwd=bench_data.ROOT)
    return json.loads(done.stdout.strip().splitlines()[-1])


def table(size: int, pool: dict, dask: dict, workers: int, pivots: int) -> list[str]:
    same_report = pool["report_digest"] == dask["report_digest"]
    same_bw = pool["betweenness_digest"] == dask["betweenness_digest"]
    v, d = pool["validate"], dask["validate"]
    b, e = pool["betweenness"], dask["betweenness"]
    return [
        f"### {size:,} records ({pool['results']:,} results; {pool['systems']:,} systems)", "",
        "| run | wall s | client CPU s | parts' CPU s | parts | workers | client prep s | MB sent | load (1 min) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
        f"| validate, process pool | {v['wall_s']:.1f} | {v['cpu_s']:.1f} | {v['worker_cpu_s']:.1f} | {v['parts']} | "
        f"{v['jobs']} | {v['prepare_s']} | {pool['bytes_sent'] / 1e6:.1f} | {v['load']:.1f} |",
        f"| validate, Dask LocalCluster ({workers} processes) | {d['wall_s']:.1f} | {d['cpu_s']:.1f} | "
        f"{d['worker_cpu_s']:.1f} | {d['parts']} | {d['jobs']} | {d['prepare_s']} | {dask['bytes_sent'] / 1e6:.1f} | "
        f"{d['load']:.1f} |",
        f"| betweenness, {pivots} pivots, here | {b['wall_s']:.1f} | {b['cpu_s']:.1f} | | | 1 | | | {b['load']:.1f} |",
        f"| betweenness, {pivots} pivots, Dask | {e['wall_s']:.1f} | {e['cpu_s']:.1f} | | | {d['jobs']} | | | "
        f"{e['load']:.1f} |",
        f"| (starting the LocalCluster) | {dask['cluster_start']['wall_s']:.1f} | "
        f"{dask['cluster_start']['cpu_s']:.1f} | | | | | | |", "",
        f"Dask / pool, validate: **{d['wall_s'] / v['wall_s']:.2f}x** wall, "
        f"{d['worker_cpu_s'] / max(v['worker_cpu_s'], 1e-9):.2f}x the parts' CPU; "
        f"betweenness: {e['wall_s'] / b['wall_s']:.2f}x wall. Same report as the pool's: "
        f"**{'yes' if same_report else 'NO'}**; same betweenness: **{'yes' if same_bw else 'NO'}**.", ""]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="9120")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--pivots", type=int, default=512)
    ap.add_argument("--work", type=Path, default=bench_data.DEFAULT_WORK)
    ap.add_argument("--out", type=Path, default=BENCH / "results" / "dask.md")
    ap.add_argument("--child", choices=("pool", "dask"), help=argparse.SUPPRESS)
    ap.add_argument("--store", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        print(json.dumps(child(args.child, args.store, args.workers, args.pivots)))
        return 0
    lines = ["# Validation and sampled betweenness on Dask against the process pool", "",
             f"Command: `python benchmarks/dask_bench.py --sizes {args.sizes} --workers {args.workers} "
             f"--pivots {args.pivots}` (each run a fresh process).", "",
             f"Machine: {bench_data.machine_line()}.", "",
             "On one machine the cluster does the pool's work plus the serialising: every part's triples are "
             "written as N-Triples by the client and parsed again by a worker (the pool's workers read a "
             "snapshot of the store instead). Dask pays off with more cores than one machine has; what moves "
             "over the wire is the MB-sent column.", ""]
    raw = {}
    for size in (int(s) for s in args.sizes.split(",")):
        path, _ = bench_data.store(args.work, size)
        bench_data.log(f"dask bench at {size}: pool ...")
        pool = run_child("pool", path, args.workers, args.pivots)
        bench_data.log(f"  {pool['validate']}; dask ...")
        dask = run_child("dask", path, args.workers, args.pivots)
        raw[size] = {"pool": pool, "dask": dask}
        lines += table(size, pool, dask, args.workers, args.pivots)
    args.out.write_text("\n".join(lines).rstrip() + "\n", encoding="utf-8")
    args.out.with_suffix(".json").write_text(json.dumps(raw, indent=1))
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
