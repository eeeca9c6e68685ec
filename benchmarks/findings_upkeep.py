#!/usr/bin/env python3
"""What keeping the findings of each version costs an ingest: this checkout against an earlier one.

    python benchmarks/findings_upkeep.py --baseline DIR [--pairs 3]

``DIR`` is a checkout of the code to compare with (``git archive main | tar -x -C DIR``). Each side
runs in a process of its own (``PYTHONPATH`` the checkout), the two in turn, ``--pairs`` times, and
measures the CPU seconds (user and system, of the process: ``time.process_time``) of three steps
on the bundled catalog in a fresh on-disk store: the first ingest (``kg ingest data/``: this checkout
keeps the findings of the rules at ingest), a re-ingest of one record with one cell changed (this
checkout checks that record and the catalog-wide rules again), and a ``kg validate --record`` of that
record (the same on both sides). The minimum of the pairs is each step's cost (noise only adds); the
ratio is this checkout's over the baseline's. Prints JSON. On a shared machine run it under ``nice``
and say so.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# run in the measured checkout
_MEASURE = r"""
import copy, gc, json, sys, time
from pathlib import Path
import kg
from kg.ingestion import ingest_paths
from kg.sources import bundled_paths
from kg.store import GraphStore

folder = Path(sys.argv[1])
store = GraphStore(folder / "kg-store")
gc.collect()
started = time.process_time()
ingest_paths(store, bundled_paths())
first = time.process_time() - started
site = json.loads(Path([p for p in bundled_paths() if p.endswith("landscape-site.json")][0]).read_text())
record = copy.deepcopy(next(r for r in site["records"] if r["id"] == "mem0--mem0-ai"))
record["cells"]["type"]["citation"] = "https://mem0.ai/"
(folder / "one.json").write_text(json.dumps(record))
gc.collect()
started = time.process_time()
ingest_paths(store, [str(folder / "one.json")])
again = time.process_time() - started
started = time.process_time()
kg.validate(store, records=["mem0--mem0-ai"])
check = time.process_time() - started
print(json.dumps({"first_ingest_cpu_s": first, "one_record_reingest_cpu_s": again, "validate_record_cpu_s": check}))
"""


def measure(checkout: Path) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as folder:
        done = subprocess.run([sys.executable, "-c", _MEASURE, folder], capture_output=True, text=True,
                              env={**os.environ, "PYTHONPATH": str(checkout)}, cwd=folder, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", required=True, type=Path, help="a checkout of the code to compare with")
    parser.add_argument("--pairs", type=int, default=3)
    args = parser.parse_args()
    runs: dict[str, list[dict[str, float]]] = {"this": [], "baseline": []}
    for _ in range(args.pairs):
        runs["this"].append(measure(ROOT))
        runs["baseline"].append(measure(args.baseline.resolve()))
    best = {side: {step: round(min(r[step] for r in found), 3) for step in found[0]} for side, found in runs.items()}
    print(json.dumps({"pairs": args.pairs, "min_cpu_s": best,
                      "ratio": {step: round(best["this"][step] / best["baseline"][step], 3)
                                for step in best["this"]}}, indent=1))


if __name__ == "__main__":
    main()
