"""The benchmark report's floors: every floor in force, each with the figure of this run, met or not, or not measured.

``floors(results)`` lists them in the order of the report's first table, from the functions of
``FLOOR_GROUPS``, each of which gives the rows of one kind of figure (a floor whose stage did not run,
or ran in a ``--quick`` run, is "not measured": never a figure of another run). A new stage's floors
are one more function in ``FLOOR_GROUPS`` (see ``bench_stages.py``).
"""

from __future__ import annotations

import statistics
from typing import Any, Callable

from bench_stages import INGEST_ALSO_AGAINST
from report_commands import build_floors, command_floors
from report_engines import engine_floors, memory_floors, portability_floors, startup_floors
from report_serve import serve_floors
from report_summary import changed_count, check, decides, per_record_ms, summarise
from report_tools import advice_times

SMALL, MID, BIG = 912, 9120, 45600
Checks = list[dict[str, Any]]


def _entry(results: dict, summary: dict, stage: str, size: int) -> dict | None:
    """The summary of ``stage`` at ``size`` (None when it did not run there, or ran on a subset)."""
    entry = summary.get((stage, size)) if decides(results) else None
    if entry and any(r.get("limit") or r.get("subset") for r in entry["runs"]):
        return None
    return entry


def query_floors(results: dict) -> Checks:
    """Every named query in-process: under 1 s at 45,600 records (warm medians; the advice tools cold, since a
    warm call answers from what they kept), under 0.1 s at 912 (the named queries)."""
    summary, rows = summarise(results), []
    for size, limit in ((BIG, 1.0), (SMALL, 0.1)):
        entry = _entry(results, summary, "queries", size)
        floor = f"every named query in-process at {size:,} records under {limit:g} s" + (
            " (the advice tools and search included)" if size == BIG else "")
        if not entry:
            rows.append(check(floor, None, None))
            continue
        per = entry["runs"][-1].get("per_query") or {}
        times = {name: q.get("warm_median_s") if q.get("warm_median_s") is not None else q.get("cold_s")
                 for name, q in per.items()}
        advice = advice_times(results, size) if size == BIG else {}
        times.update({f"{name} (cold)": t for name, t in (advice or {}).items()})
        slow = sorted(((t, n) for n, t in times.items() if t is None or t >= limit), key=lambda x: -(x[0] or 1e9))
        shown = ", ".join(f"{n} {t:.2f} s" if t is not None else f"{n} (no time)" for t, n in slow[:5])
        slowest = max(((t, n) for n, t in times.items() if t is not None), default=None)
        value = f"{len(times) - len(slow)} of {len(times)} under (warm medians" + (
            "; the advice tools cold" if advice else "") + ")" + (
            f"; over: {shown}" if slow else f"; slowest {slowest[1]} {slowest[0]:.3f} s" if slowest else "")
        if "search" in times and times["search"] is not None:
            value += f"; search {times['search']:.3f} s"
        if advice is None:
            value += "; the advice tools not measured"
        rows.append(check(floor, value, not slow and advice is not None))
    return rows


def _growth(results: dict, summary: dict, stage: str, size: int, limit: float, floor: str, records: int = 0) -> dict:
    """A floor on time per record at ``size`` against 912: within ``limit`` times (``records``: the records the
    stage handles at every size, the changed ones; else the size)."""
    a, b = _entry(results, summary, stage, SMALL), _entry(results, summary, stage, size)
    if not (a and b):
        return check(floor, None, None)
    small, big = per_record_ms(a, records or SMALL), per_record_ms(b, records or size)
    return check(floor, f"{small:.2f} ms a record at {SMALL:,} -> {big:.2f} at {size:,}: {big / small:.2f}x",
                 big / small <= limit)


def incremental_floors(results: dict) -> Checks:
    """Re-ingest and revalidation of the changed records, per record: 912 -> 9,120 within 1.3x, -> 45,600 1.5x."""
    summary, changed = summarise(results), changed_count(results)
    return [_growth(results, summary, stage, size, limit, f"{what} of {changed} changed records, per record, at "
                    f"{size:,} within {limit:g}x of {SMALL:,}", changed)
            for stage, what in (("reingest-100", "re-ingest"), ("validate-incremental", "revalidation"))
            for size, limit in ((MID, 1.3), (BIG, 1.5))]


def validation_floors(results: dict) -> Checks:
    """Full validation in one process, per record: at 9,120 and at 45,600 within 1.3x of 912."""
    summary = summarise(results)
    return [_growth(results, summary, "validate-full", size, 1.3,
                    f"full validation (one process), per record, at {size:,} within 1.3x of {SMALL:,}")
            for size in (MID, BIG)]


def _pairwise(a: dict, b: dict) -> float:
    """The median of the ratios of ``a``'s runs over ``b``'s, repeat by repeat (the two ran in the same repeat)."""
    theirs = {r["repeat"]: r["wall_s"] for r in b["runs"]}
    ratios = [r["wall_s"] / theirs[r["repeat"]] for r in a["runs"] if r["repeat"] in theirs]
    return statistics.median(ratios) if ratios else a["median_s"] / b["median_s"]


def ingest_floors(results: dict) -> Checks:
    """The in-process ingest: per record at 45,600 within 1.3x of 912; within 1.5x of bulk_load; memory at 45,600."""
    summary = summarise(results)
    rows = [_growth(results, summary, "ingest", BIG, 1.3, f"ingest (in-process), per record, at {BIG:,} within 1.3x "
                    f"of {SMALL:,}")]
    for size in (SMALL, BIG):
        ours, bulk = _entry(results, summary, "ingest", size), _entry(results, summary, "bulk-load", size)
        floor = f"ingest (in-process) at {size:,} records within 1.5x of pyoxigraph's bulk_load of the same quads"
        if not (ours and bulk):
            rows.append(check(floor, None, None))
            continue
        ratio = _pairwise(ours, bulk)
        also = "".join(f"; against {label}, {other['median_s']:.1f} s: {_pairwise(ours, other):.2f}x"
                       for stage, label in INGEST_ALSO_AGAINST if (other := _entry(results, summary, stage, size)))
        rows.append(check(floor, f"{ours['median_s']:.1f} s / bulk_load {bulk['median_s']:.1f} s: {ratio:.2f}x "
                                 f"(median of the repeats' ratios); CPU {ours['cpu_median_s']:.0f} s / "
                                 f"{bulk['cpu_median_s']:.0f} s{also}", ratio <= 1.5))
    big = _entry(results, summary, "ingest", BIG)
    rows.append(check(f"ingest of {BIG:,} full-shape records streams, peak memory under 4 GB",
                      f"{big['peak_rss_mb']:,.0f} MB" if big else None, big and big["peak_rss_mb"] < 4096))
    measured = {stage: entry for (stage, size), entry in summary.items() if size == BIG and decides(results)
                and not stage.startswith(("rdflib", "floor"))}
    top = max(measured.items(), key=lambda kv: max(kv[1]["peak_rss_mb"], kv[1]["children_peak_rss_mb"]), default=None)
    peak = max(top[1]["peak_rss_mb"], top[1]["children_peak_rss_mb"]) if top else 0
    rows.append(check(f"every stage at {BIG:,} records under 4 GB peak RSS",
                      f"highest: {top[0]} {peak:,.0f} MB ({len(measured)} stages)" if top else None, peak < 4096))
    return rows


def export_floors(results: dict) -> Checks:
    """Each export within 1.3x (JSON-LD: 2x) of the store's own N-Quads dump, at 912 and 45,600 records."""
    summary, rows = summarise(results), []
    for size in (SMALL, BIG):
        dump = _entry(results, summary, "store-dump-nquads", size)
        for fmt, limit in (("nquads", 1.3), ("trig", 1.3), ("turtle", 1.3), ("jsonld", 2.0)):
            entry = _entry(results, summary, f"export-{fmt}", size)
            ratio = _pairwise(entry, dump) if entry and dump else 0.0
            rows.append(check(f"export {fmt} at {size:,} records within {limit:g}x of the store's own N-Quads dump",
                              f"{entry['median_s']:.1f} s / dump {dump['median_s']:.1f} s: {ratio:.2f}x (CPU "
                              f"{entry['cpu_median_s'] / dump['cpu_median_s']:.2f}x)" if entry and dump else None,
                              ratio <= limit))
    return rows


def rdflib_floors(results: dict) -> Checks:
    """At 912 records: the ingest at least 4x faster than the rdflib-only pipeline, with validation 2.5x."""
    summary = summarise(results)
    ours, theirs = _entry(results, summary, "ingest", SMALL), _entry(results, summary, "rdflib-ingest", SMALL)
    ov, tv = _entry(results, summary, "validate-full", SMALL), _entry(results, summary, "rdflib-validate", SMALL)
    rows = [check(f"{SMALL:,} records: ingest at least 4x faster than the rdflib-only pipeline",
                  f"rdflib {theirs['median_s']:.1f} s / kg {ours['median_s']:.1f} s: "
                  f"{theirs['median_s'] / ours['median_s']:.2f}x" if ours and theirs else None,
                  ours and theirs and theirs["median_s"] / ours["median_s"] >= 4)]
    if ours and theirs and ov and tv:
        mine, other = ours["median_s"] + ov["median_s"], theirs["median_s"] + tv["median_s"]
        rows.append(check(f"{SMALL:,} records: ingest and validation at least 2.5x faster than rdflib and stock pySHACL",
                          f"rdflib {theirs['median_s']:.1f} + {tv['median_s']:.1f} s / kg {ours['median_s']:.1f} + "
                          f"{ov['median_s']:.1f} s: {other / mine:.2f}x", other / mine >= 2.5))
    else:
        rows.append(check(f"{SMALL:,} records: ingest and validation at least 2.5x faster than rdflib and stock pySHACL",
                          None, None))
    return rows


# the report's first table, in this order: the floors of the issues in force, then the older ones
FLOOR_GROUPS: list[Callable[[dict], Checks]] = [
    query_floors, command_floors, build_floors, incremental_floors, serve_floors, engine_floors, validation_floors,
    startup_floors, portability_floors, ingest_floors, memory_floors, export_floors, rdflib_floors]


def floors(results: dict) -> Checks:
    """Every floor: its text, the figure this run measured for it (None: not measured), whether it holds."""
    return [row for group in FLOOR_GROUPS for row in group(results)]
