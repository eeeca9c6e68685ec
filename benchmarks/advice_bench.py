"""The advice tools (kg.advice: recommend, between, predict-citations, breakouts) timed in-process,
against a baseline of the same run: the select-system-names query (every system's id and name).

Cold is a call after the tools' kept readings are dropped (each reads and parses the graph
again, as a fresh process does); warm is the same call again (a server's next question). The
store is the full-shape catalog of ../shared/data/full-shape repeated N times (ids suffixed
-r1, -r2, ...), built by ``--make N`` into ``--work`` (912 records a copy), or any store given.

    python benchmarks/advice_bench.py --make 10 --work /tmp/advice-bench       # 9,120 records
    python benchmarks/advice_bench.py --store /tmp/advice-bench/kg-store --repeats 3
"""

from __future__ import annotations

import argparse
import copy
import gzip
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from kg import queries  # noqa: E402
from kg.advice import StructuredForm, between, breakouts, predict_citations, recommend  # noqa: E402
from kg.advice import citations, profiles  # noqa: E402
from kg.ingestion import ingest_paths  # noqa: E402
from kg.store import GraphStore  # noqa: E402

FULL_SHAPE = ROOT.parent / "shared" / "data" / "full-shape"
TODAY = "2026-07-01"
FORM = StructuredForm(shape="multi-agent", scale="production", latency_budget_ms=800, persistence="long-term",
                      deployment="offline", cost_ceiling_usd_per_mtok=5)


def make_store(copies: int, work: Path) -> Path:
    """The full-shape catalog and its edges, ``copies`` times (ids suffixed), ingested into work/kg-store."""
    with gzip.open(FULL_SHAPE / "landscape.json.gz", "rt", encoding="utf-8") as f:
        catalog = json.load(f)
    edges = json.loads((FULL_SHAPE / "landscape.edges.json").read_text(encoding="utf-8"))
    records, links = [], []
    for k in range(copies):
        suffix = f"-r{k}" if k else ""
        for record in catalog["records"]:
            records.append({**copy.deepcopy(record), "id": record["id"] + suffix})
        links += [{**e, "source": e["source"] + suffix, "target": e["target"] + suffix} for e in edges["edges"]]
    work.mkdir(parents=True, exist_ok=True)
    (work / "catalog.json").write_text(json.dumps({**catalog, "records": records}), encoding="utf-8")
    (work / "edges.json").write_text(json.dumps({**edges, "edges": links}), encoding="utf-8")
    ingest_paths(GraphStore(work / "kg-store"), [str(work / "catalog.json"), str(work / "edges.json")])
    return work / "kg-store"


def tools(store: GraphStore) -> dict[str, Callable[[], Any]]:
    return {
        "recommend (text)": lambda: recommend(store, "offline multi agent airgap", today=TODAY),
        "recommend (form)": lambda: recommend(store, form=FORM, today=TODAY),
        "between": lambda: between(store, "mistral-large-2-mixtral-family--mistral-ai",
                                   "openai-gpt-family-gpt-5-gpt-4o-o3-o4--openai-com", today=TODAY),
        "predict-citations": lambda: predict_citations(store, "adaptive-rag--arxiv-2304-20312", today=TODAY),
        "breakouts": lambda: breakouts(store, limit=15, today=TODAY),
    }


def timed(call: Callable[[], Any]) -> float:
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


def measure(store: GraphStore, repeats: int) -> list[tuple[str, float, float]]:
    """(name, median cold s, median warm s) of each tool and of the baseline."""
    baseline = lambda: queries.query(store, "select-system-names")  # noqa: E731
    out = []
    for name, call in [*tools(store).items(), ("baseline: select-system-names", baseline)]:
        cold, warm = [], []
        for _ in range(repeats):
            profiles._KEPT.clear()
            citations._KEPT.clear()
            cold.append(timed(call))
            warm.append(timed(call))
        out.append((name, statistics.median(cold), statistics.median(warm)))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", type=Path, help="the store to time (default: WORK/kg-store)")
    parser.add_argument("--make", type=int, metavar="N", help="first build the full-shape catalog N times into WORK")
    parser.add_argument("--work", type=Path, default=Path("/tmp/advice-bench"))
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    path = make_store(args.make, args.work) if args.make else (args.store or args.work / "kg-store")
    store = GraphStore.open_existing(path, read_only=True)
    systems = len(queries.query(store, "select-system-names"))
    rows = measure(store, args.repeats)
    base = rows[-1][1]
    print(f"{systems:,} systems; median of {args.repeats}; load average {os.getloadavg()[0]:.1f} "
          f"on {os.cpu_count()} cores")
    print("| tool | cold s | warm s | cold / baseline |\n|---|---:|---:|---:|")
    for name, cold, warm in rows:
        print(f"| {name} | {cold:.3f} | {warm:.3f} | {cold / base:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
