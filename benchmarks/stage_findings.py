"""Benchmark stage ``findings-upkeep``: what keeping each version's findings (``kg.findings``) costs an ingest.

An ingest ends by keeping the findings of the version it made (``kg.validation.upkeep.FindingsUpkeep``):
a first ingest keeps the results of its rules at ingest with the catalog-wide answers, a re-ingest brings
the findings before it up to date for the records it changed. The baseline of the same run is the same
ingest with that hook doing nothing (the ingest as it was before findings were kept). On the bundled
catalog (``--quick``: the size's catalog), in fresh on-disk stores, ``spec['rounds']`` times, the two in
turn in one process: the CPU seconds (``time.process_time``) of the first ingest, of a re-ingest of one
record with one cell's citation changed, and of ``kg.validate`` of that record (the same work on both
sides: a control), and the upkeep's own seconds. The minimum of the rounds is each step's cost (noise
only adds); the ratio is kept over without.
"""

from __future__ import annotations

import copy
import gc
import json
import shutil
import time
from pathlib import Path
from typing import Any, Callable

STEPS = ("first_ingest", "one_record_reingest", "validate_record")
CHANGED_CITATION = "https://example.org/changed-by-the-benchmark"


def _one_changed(paths: list[str]) -> dict:
    """The first record with a cited cell, that cell's citation changed (a change the rules read)."""
    for path in paths:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        for record in data.get("records", []) if isinstance(data, dict) else []:
            cited = [name for name, cell in (record.get("cells") or {}).items()
                     if isinstance(cell, dict) and "citation" in cell]
            if cited:
                changed = copy.deepcopy(record)
                changed["cells"][cited[0]]["citation"] = CHANGED_CITATION
                return changed
    raise ValueError("no record with a cited cell in " + ", ".join(paths))


def _cpu(run: Callable[[], Any]) -> float:
    gc.collect()
    started = time.process_time()
    run()
    return time.process_time() - started


def _round(folder: Path, paths: list[str], one: Path, record_id: str, upkeep_s: list[float]) -> dict[str, float]:
    """One side's three steps in a new store under ``folder``; ``upkeep_s`` gathers the hook's seconds."""
    import kg
    from kg.ingestion import ingest_paths
    from kg.store import GraphStore

    shutil.rmtree(folder, ignore_errors=True)
    store = GraphStore(folder / "kg-store")
    upkeep_s.clear()
    first = _cpu(lambda: ingest_paths(store, paths))
    first_upkeep = sum(upkeep_s)
    again = _cpu(lambda: ingest_paths(store, [str(one)]))
    out = {"first_ingest": first, "one_record_reingest": again,
           "validate_record": _cpu(lambda: kg.validate(store, records=[record_id])),
           "first_ingest_upkeep": first_upkeep, "one_record_reingest_upkeep": sum(upkeep_s) - first_upkeep}
    shutil.rmtree(folder, ignore_errors=True)
    return out


def stage_findings_upkeep(spec: dict) -> dict:
    """Each step's least CPU seconds with the findings kept and without, their ratio and the upkeep's share."""
    from kg.sources import bundled_paths
    from kg.validation.upkeep import FindingsUpkeep

    quick = bool(spec.get("quick"))
    paths = [spec["catalog"], spec["edges_file"]] if quick else list(bundled_paths())
    work = Path(spec["scratch"]) / "findings-upkeep"
    work.mkdir(parents=True, exist_ok=True)
    changed = _one_changed(paths)
    one = work / "one.json"
    one.write_text(json.dumps(changed, ensure_ascii=False), encoding="utf-8")
    kept_after, upkeep_s = FindingsUpkeep.after, []

    def timed_after(self: Any, report: Any) -> None:
        started = time.process_time()
        try:
            kept_after(self, report)
        finally:
            upkeep_s.append(time.process_time() - started)

    hooks = {"kept": timed_after, "without": lambda self, report: None}
    runs: dict[str, list[dict[str, float]]] = {side: [] for side in hooks}
    try:
        for _ in range(int(spec.get("rounds", 3))):
            for side, hook in hooks.items():
                FindingsUpkeep.after = hook  # type: ignore[method-assign]
                runs[side].append(_round(work / side, paths, one, changed["id"], upkeep_s))
    finally:
        FindingsUpkeep.after = kept_after  # type: ignore[method-assign]
        shutil.rmtree(work, ignore_errors=True)
    least = {side: {step: min(r[step] for r in found) for step in found[0]} for side, found in runs.items()}
    return {"rounds": int(spec.get("rounds", 3)), "record": changed["id"], "runs": runs, "min_cpu_s": least,
            "ratios": {step: least["kept"][step] / least["without"][step] for step in STEPS
                       if least["without"][step]},
            "data": "the size's catalog" if quick else "the bundled catalog"}
