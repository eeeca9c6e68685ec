"""Benchmark stages of the build as a user runs it, against pyoxigraph's ``bulk_load``, whole commands in turn.

* ``build-vs-bulk-load``: ``kg ingest`` of the size's catalog and its edges into a new store, against a
  ``python -c`` that bulk-loads the very quads that build wrote (an N-Quads file dumped from a warm-up
  build) into a new on-disk pyoxigraph store; the two in turn, ``spec['rounds']`` times, so that the
  machine's drift touches both alike; the ratio is taken pair by pair;
* ``bundled-vs-bulk-load``: the same for the bundled catalog (what a user's first ``kg build`` reads).

``spec['ingest_args']`` are given to every ``kg ingest`` (options the build gains later need no change
here). ``spec['jobs']`` (say ``[1, 2]``): each round also builds with ``--jobs N`` for each N, when
``kg ingest`` has that option (else the result says it has not), for the scaling with the cores.
"""

from __future__ import annotations

import shutil
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

from bench_harness import kg_module, run_command

KG = [sys.executable, "-m", "kg.cli"]
# pyoxigraph alone: a fresh on-disk store, the N-Quads file bulk-loaded as any user would (the
# strict parser), flushed; argv: the file, the store folder
BULK_LOAD = ("import sys, pyoxigraph as ox; store = ox.Store(sys.argv[2]); "
             "store.bulk_load(path=sys.argv[1], format=ox.RdfFormat.N_QUADS); store.flush()")
TIMEOUT_S = 7200.0
BUILT = (0, 5)  # kg ingest's exit codes of a build (5: records quarantined, the rest built)


def ingest_has(option: str) -> bool:
    """Whether ``kg ingest`` documents ``option`` (an option another change may add)."""
    done = subprocess.run([*KG, "ingest", "--help"], capture_output=True, text=True)
    return option in done.stdout


def _nquads_of(store: Path, target: Path) -> int:
    """The quads of the store's current version as an N-Quads file; how many."""
    from kg.store import GraphStore

    with open(target, "wb") as out:
        GraphStore(store, read_only=True).dump(out, "nquads")
    with open(target, "rb") as text:
        return sum(1 for _ in text)


def _build(command: list[str], folder: Path) -> dict[str, Any]:
    shutil.rmtree(folder, ignore_errors=True)
    done = run_command(command, timeout=TIMEOUT_S)
    if done["code"] not in BUILT:
        raise RuntimeError(f"{' '.join(command[2:5])} ... exited {done['code']}")
    return done


def build_against_bulk_load(paths: list[str], scratch: Path, rounds: int, ingest_args: list[str],
                            jobs: list[int]) -> dict[str, Any]:
    """``kg ingest PATHS`` (and with ``--jobs N``) into new stores against ``bulk_load`` of the same quads, in turn."""
    ours_store, theirs_store, nquads = scratch / "build-store", scratch / "bulk-store", scratch / "build.nq"
    ours_cmd = [*KG, "ingest", "--store", str(ours_store), *ingest_args, *paths]
    theirs_cmd = [sys.executable, "-c", BULK_LOAD, str(nquads), str(theirs_store)]
    can_jobs = bool(jobs) and ingest_has("--jobs")
    variants = {n: [*ours_cmd[:4], "--jobs", str(n), *ours_cmd[4:]] for n in (jobs if can_jobs else [])}
    _build(ours_cmd, ours_store)  # a warm-up, and the quads the other side loads
    quads = _nquads_of(ours_store, nquads)
    ours, theirs, scaled = [], [], {n: [] for n in variants}
    for _ in range(rounds):
        ours.append(_build(ours_cmd, ours_store))
        for n, command in variants.items():
            scaled[n].append(_build(command, ours_store))
        shutil.rmtree(theirs_store, ignore_errors=True)
        theirs.append(run_command(theirs_cmd, timeout=TIMEOUT_S))
    for folder in (ours_store, theirs_store):
        shutil.rmtree(folder, ignore_errors=True)
    nquads.unlink()
    ratios = [a["seconds"] / b["seconds"] for a, b in zip(ours, theirs)]
    return {"wall_s": statistics.median(a["seconds"] for a in ours),
            "bulk_load_s": statistics.median(b["seconds"] for b in theirs),
            "ratio_median": statistics.median(ratios), "ratios": ratios,
            "ours": ours, "theirs": theirs, "quads": quads, "rounds": rounds, "ingest_args": ingest_args,
            "cpu_s": statistics.median(a["cpu_s"] for a in ours), "peak_rss_mb": max(a["peak_rss_mb"] for a in ours),
            "bulk_load_cpu_s": statistics.median(b["cpu_s"] for b in theirs),
            "jobs": {str(n): _scaled(runs, theirs) for n, runs in scaled.items()},
            "jobs_note": None if can_jobs or not jobs else "kg ingest has no --jobs option"}


def _scaled(runs: list[dict], theirs: list[dict]) -> dict[str, Any]:
    return {"wall_s": statistics.median(r["seconds"] for r in runs), "cpu_s": statistics.median(r["cpu_s"] for r in runs),
            "ratio_median": statistics.median(a["seconds"] / b["seconds"] for a, b in zip(runs, theirs))}


def stage_build_vs_bulk_load(spec: dict) -> dict:
    """The size's generated catalog, built by ``kg ingest`` and bulk-loaded, whole commands in turn."""
    return build_against_bulk_load([spec["catalog"], spec["edges_file"]], Path(spec["scratch"]),
                                   int(spec.get("rounds", 3)), spec.get("ingest_args") or [], spec.get("jobs") or [])


def stage_bundled_vs_bulk_load(spec: dict) -> dict:
    """The bundled catalog (what a user's first ``kg build`` reads), built and bulk-loaded in turn."""
    paths = [str(p) for p in kg_module("kg.sources").bundled_paths()]
    return build_against_bulk_load(paths, Path(spec["scratch"]), int(spec.get("rounds", 5)),
                                   spec.get("ingest_args") or [], spec.get("jobs") or [])
