"""The benchmark report's summaries: each (stage, size)'s medians over its repeats, time per record, a floor's row.
"""

from __future__ import annotations

import statistics
from typing import Any

from bench_catalogs import CHANGED


def median(values: list[float]) -> float | None:
    """The median (None for no values)."""
    return statistics.median(values) if values else None


def summarise(results: dict) -> dict[tuple[str, int], dict[str, Any]]:
    """(stage, size) -> median/min wall, CPU, peak RSS over the repeats that succeeded.

    The rdflib exports and queries children are split into one entry per format /
    the query total, so they line up with ours.
    """
    rows: dict[tuple[str, int], list[dict]] = {}
    for run in results["runs"]:
        if not run.get("ok") or not run.get("available", True):
            continue
        if run["stage"] != "rdflib-exports" and run.get("wall_s") is None:
            continue  # a stage of several figures and no one time (serve-vs-oxigraph, memory-shapes)
        if run["stage"] == "rdflib-exports":
            for fmt, got in run.get("formats", {}).items():
                if "wall_s" in got:
                    rows.setdefault((f"rdflib-export-{fmt}", run["size"]), []).append(
                        {**got, "peak_rss_mb": run["peak_rss_mb"], "subset": run.get("limit")})
            continue
        rows.setdefault((run["stage"], run["size"]), []).append(run)
    out = {}
    for key, runs in rows.items():
        walls = [r["wall_s"] for r in runs]
        out[key] = {
            "n": len(runs), "median_s": median(walls), "min_s": min(walls), "max_s": max(walls),
            "cpu_median_s": median([r.get("cpu_s", 0) + r.get("children_cpu_s", 0) for r in runs if "cpu_s" in r]),
            "peak_rss_mb": max(r.get("peak_rss_mb", 0) for r in runs),
            "children_peak_rss_mb": max(r.get("children_peak_rss_mb", 0) or 0 for r in runs),
            "runs": runs,
        }
    return out


def per_record_ms(entry: dict | None, records: int, which: str = "median_s") -> float | None:
    """Milliseconds per record of a summary entry (None when unmeasured)."""
    if not entry or entry.get(which) is None or not records:
        return None
    return 1000 * entry[which] / records


def stage_records(stage: str, size: int, results: dict) -> int:
    """How many records a stage's time is divided by (the incremental stages handle the changed
    records: 100, or ``--changed``)."""
    if stage in ("reingest-100", "validate-incremental"):
        return min(changed_count(results), size)
    return size


def changed_count(results: dict) -> int:
    """The records changed for the incremental stages of a run (runs before ``--changed``: 100)."""
    return results["meta"]["args"].get("changed") or CHANGED


def decides(results: dict) -> bool:
    """Whether the run's figures decide floors (a --quick run decides none)."""
    return not results["meta"]["args"].get("quick")


def latest(results: dict, stage: str, size: int | None = None) -> dict | None:
    """The last successful run of ``stage`` (at ``size``, or at any size) of a run that decides floors."""
    if not decides(results):
        return None
    found = [r for r in results["runs"] if r.get("stage") == stage and r.get("ok")
             and (size is None or r.get("size") == size)]
    return found[-1] if found else None


def check(floor: str, value: str | None, holds: bool | None) -> dict[str, Any]:
    """One row of the floors' table: the floor, its figure (None: not measured), met or not (None: not measured)."""
    return {"floor": floor, "value": value, "holds": holds if value is not None else None}
