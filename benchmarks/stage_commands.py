"""Benchmark stage ``commands``: kg as a user runs it, whole commands (Python's start-up and imports included).

On the store the ``ingest`` stage built: every named query (``kg query NAME``, its table printed to a
pipe that is read to its end), ``kg info`` and ``kg validate --record`` of the changed records (one
command, its time per record), each after a warm-up run (a warm page cache), ``spec['runs']`` times;
``spec['only']``: those named queries only (``--quick``). The builds are ``stage_builds``.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

from bench_harness import kg_module, run_command
from stage_queries import paper_of, query_ids, query_params

KG = [sys.executable, "-m", "kg.cli"]
TIMEOUT_S = 7200.0


def _timed(argv: list[str], runs: int) -> dict[str, Any]:
    """One warm-up run of ``argv``, then ``runs`` timed runs: median, min, max, CPU, peak RSS, exit code."""
    run_command(argv, timeout=TIMEOUT_S)
    # the output goes to a pipe read to its end (a table printed to a pipe is written in full)
    done = [run_command(argv, timeout=TIMEOUT_S, stdout=subprocess.PIPE) for _ in range(runs)]
    seconds = [d["seconds"] for d in done]
    return {"median_s": statistics.median(seconds), "min_s": min(seconds), "max_s": max(seconds),
            "cpu_median_s": statistics.median(d["cpu_s"] for d in done),
            "peak_rss_mb": max(d["peak_rss_mb"] for d in done), "code": max(d["code"] for d in done)}


def _changed_ids(spec: dict) -> list[str]:
    return [record["id"] for record in json.loads(Path(spec["changed"]).read_text(encoding="utf-8"))]


def stage_commands(spec: dict) -> dict:
    """Every named query, ``kg info`` and ``kg validate --record`` as whole commands on the stage's store."""
    queries = kg_module("kg.queries")
    store = ["--store", spec["store"]]
    runs = int(spec.get("runs", 3))
    ids = query_ids(spec)
    paper = paper_of(kg_module("kg.store").GraphStore(spec["store"], read_only=True))
    per_query: dict[str, Any] = {}
    for name in spec.get("only") or queries.available():
        params = query_params(queries.load(name), ids, paper)
        if params is None:
            per_query[name] = {"skipped": "cannot fill a parameter"}
            continue
        bound = [part for key, value in params.items() for part in ("-p", f"{key}={value}")]
        per_query[name] = _timed([*KG, "query", name, *bound, *store], runs)
    info = _timed([*KG, "info", *store], runs)
    changed = _changed_ids(spec)
    records = [part for record_id in changed for part in ("--record", record_id)]
    validate = _timed([*KG, "validate", *records, *store], runs)
    validate["records"] = len(changed)
    validate["per_record_ms"] = 1000 * validate["median_s"] / max(1, len(changed))
    return {"wall_s": sum(q.get("median_s", 0) for q in per_query.values()) + info["median_s"] + validate["median_s"],
            "per_query": per_query, "info": info, "validate_records": validate, "runs": runs,
            "peak_rss_mb": max(entry.get("peak_rss_mb", 0) for entry in [*per_query.values(), info, validate])}
