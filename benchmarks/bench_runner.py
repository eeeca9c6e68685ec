"""The benchmark runner: every chosen stage of every size and repeat in its own process, into one results file.

``run_all(args, steps)`` generates (or reuses) each size's catalog, runs the stages ``steps(size,
repeat)`` gives, each in a fresh process (``bench_stages``; the queries stage in as many as its time
limits need), saves the results after each, and runs the profiles. One command, one sitting, one file.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import shlex
import shutil
import sys
from pathlib import Path
from typing import Any, Callable

from bench_catalogs import ensure_data
from bench_harness import machine_info, run_child
from bench_stages import SCRIPT, Stage

# the stages of one repeat at one size, each with what its spec adds
Steps = Callable[[int, int], list[tuple[Stage, dict]]]


class Results:
    """A run's results (meta, data, runs, profiles), saved to ``path`` after each stage."""

    def __init__(self, args: argparse.Namespace, path: Path) -> None:
        self.path = path
        self.silent = args.silent
        self.doc: dict[str, Any] = {
            "meta": {"command": shlex.join(["python", "benchmarks/run.py", *args.argv]),  # copied, it runs
                     "started": _dt.datetime.now().isoformat(timespec="seconds"), "machine": machine_info(),
                     "args": {k: v for k, v in vars(args).items() if k != "argv"}, "note": args.note},
            "data": {}, "runs": [], "profiles": {},
        }

    def log(self, text: str) -> None:
        """Progress on stderr (none with --silent)."""
        if not self.silent:
            print(text, file=sys.stderr, flush=True)

    def save(self) -> None:
        """Write the results as they are now."""
        self.doc["meta"]["finished"] = _dt.datetime.now().isoformat(timespec="seconds")
        self.path.write_text(json.dumps(self.doc, indent=1, default=str), encoding="utf-8")


def run_all(args: argparse.Namespace, steps_of: Steps) -> Path:
    """Run the steps of every size and repeat; the path of the results file."""
    work = Path(args.work)
    scratch = work / "scratch"
    scratch.mkdir(parents=True, exist_ok=True)
    stamp = _dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    out_path = Path(args.out) / f"run-{stamp}.json"
    out_path.parent.mkdir(parents=True, exist_ok=True)
    results = Results(args, out_path)
    for size in args.sizes:
        data = ensure_data(work, size, args.seed, results.log, args.changed)
        results.doc["data"][str(size)] = {k: v for k, v in data.items() if k not in ("catalog", "edges_file", "changed")}
        base = base_spec(args, data, scratch, size)
        repeats = args.repeats if size < args.large_size else min(args.repeats, args.large_repeats)
        for repeat in range(repeats):
            run_repeat(args, results, base, steps_of(size, repeat), work / f"store-{size}", repeat)
        if args.profile and size == min(args.sizes):
            run_profiles(args, results, base, work / f"store-profile-{size}")
    results.save()
    shutil.rmtree(scratch, ignore_errors=True)
    return out_path


def base_spec(args: argparse.Namespace, data: dict, scratch: Path, size: int) -> dict[str, Any]:
    """What every stage's spec at ``size`` holds: the catalog's files, the scratch folder, the limits."""
    return {"size": size, "catalog": data["catalog"], "edges_file": data["edges_file"],
            "changed": data["changed"], "scratch": str(scratch), "warm": args.query_warm if size < args.large_size
            else args.large_query_warm, "timeout_each": args.rdflib_timeout,
            "query_timeout": args.query_timeout, "memory_mb": args.memory_limit, "quick": args.quick}


def run_repeat(args: argparse.Namespace, results: Results, base: dict, steps: list[tuple[Stage, dict]],
               store: Path, repeat: int) -> None:
    """One repeat of ``steps`` at one size, on a fresh store (kg's stages after the ingest need its store)."""
    size = base["size"]
    shutil.rmtree(store, ignore_errors=True)
    for stage, extra in steps:
        if stage.needs_store and not store.exists():
            continue
        spec = {**base, **extra, "stage": stage.name, "store": str(store)}
        results.log(f"[{size} #{repeat + 1}] {stage.name} ...")
        out = (stage.parent or run_child)(spec, args.timeout, SCRIPT)
        out.update(size=size, repeat=repeat, stage=stage.name, impl=stage.impl, limit=spec.get("limit"))
        results.doc["runs"].append(out)
        shown = (f"{out['wall_s']:.2f} s, {out.get('peak_rss_mb', 0):.0f} MB" if out.get("wall_s") is not None
                 else out.get("note") or out.get("error") or "done")
        results.log(f"    {shown}  (others' CPU {out['noise'].get('others_cpu_share') or 0:.0%})")
        results.save()
    shutil.rmtree(store, ignore_errors=True)


def run_profiles(args: argparse.Namespace, results: Results, base: dict, store: Path) -> None:
    """cProfile of the ingest and of the validation in one process, into a store of their own."""
    size = base["size"]
    shutil.rmtree(store, ignore_errors=True)
    for what in ("ingest", "validate"):
        results.log(f"[{size}] profile {what} ...")
        out = run_child({**base, "stage": "profile", "what": what, "store": str(store)}, args.timeout, SCRIPT)
        results.doc["profiles"][f"{what}-{size}"] = out
        results.save()
    shutil.rmtree(store, ignore_errors=True)
