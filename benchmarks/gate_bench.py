#!/usr/bin/env python3
"""The ingest's rule gate, this checkout against an earlier one, on the bundled catalog.

    python benchmarks/gate_bench.py --baseline DIR [--pairs 3] [--repeats 15]

``DIR`` is a checkout of the code to compare with (``git worktree add DIR REV``). Each side runs
in a process of its own (``PYTHONPATH`` the checkout), the two in turn, ``--pairs`` times: one
ingest of the bundled catalog in memory records the records the gate was handed (mapped, with
their shared descriptions), then a fresh ``RuleCheck`` checks them all ``--repeats`` times with
the garbage collector off; the minimum is the gate's cost (noise only adds). Both must find the
same number of findings. Prints JSON; the ratio is this checkout's over the baseline's, pair by pair.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# run in the measured checkout: the gate's input captured from one real ingest, then timed alone
_MEASURE = r"""
import gc, json, sys, time
import kg
from kg.description import ontology_quads
from kg.ingestion import map_gate
from kg.validation.at_ingest import RuleCheck
from kg.vocab import Iris

handed = []
original = map_gate.MapAndGate.check_rules
def keep(self, mapped):
    mapped = list(mapped)
    handed.extend(mapped)
    return original(self, mapped)
map_gate.MapAndGate.check_rules = keep
kg.ingest(kg.GraphStore())
iris = Iris()
ontology = list(ontology_quads(iris))
RuleCheck(iris, ontology)  # the shapes compiled once per process, as in an ingest
seconds = []
gc.disable()
for _ in range(int(sys.argv[1])):
    check = RuleCheck(iris, ontology)
    started = time.perf_counter()
    findings = 0
    for pending, _, shared, triples in handed:
        check.add_shared(shared)
        findings += len(check.record_terms(triples, pending.source, pending.index, pending.record.id))
    seconds.append(time.perf_counter() - started)
print(json.dumps({"min_s": min(seconds), "median_s": sorted(seconds)[len(seconds) // 2],
                  "records": len(handed), "findings": findings}))
"""


def measure(checkout: Path, repeats: int) -> dict:
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    done = subprocess.run([sys.executable, "-c", _MEASURE, str(repeats)], env=env, capture_output=True,
                          text=True, check=True, cwd=checkout)
    return json.loads(done.stdout)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--baseline", type=Path, required=True, help="a checkout of the earlier code")
    ap.add_argument("--pairs", type=int, default=3)
    ap.add_argument("--repeats", type=int, default=15)
    args = ap.parse_args()
    pairs = []
    for _ in range(args.pairs):
        before, now = measure(args.baseline, args.repeats), measure(ROOT, args.repeats)
        if before["findings"] != now["findings"]:
            raise SystemExit(f"the two gates disagree: {before['findings']} against {now['findings']} findings")
        pairs.append({"baseline": before, "now": now, "ratio": round(now["min_s"] / before["min_s"], 3)})
    print(json.dumps({"load_before_after": "%.1f" % os.getloadavg()[0], "pairs": pairs,
                      "median_ratio": statistics.median(p["ratio"] for p in pairs)}, indent=1))


if __name__ == "__main__":
    main()
