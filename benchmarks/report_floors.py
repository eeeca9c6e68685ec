"""The benchmark report's floors: each floor the issues set, with the figures it was decided on.

A floor holds, fails, or is not measured (None); a subset run (``--quick``) decides nothing.
"""

from __future__ import annotations

from typing import Any, Callable

from bench_stages import INGEST_ALSO_AGAINST
from report_commands import command_floors
from report_summary import changed_count, per_record_ms, summarise


def floors(results: dict) -> list[dict[str, Any]]:
    """The issue's floors, each with the figures it was decided on."""
    summary = summarise(results)
    sizes = sorted(int(s) for s in results["data"])
    small = 912 if 912 in sizes else (sizes[0] if sizes else None)
    checks = []

    def get(stage: str, size: int | None) -> dict | None:
        entry = summary.get((stage, size)) if size is not None else None
        if entry and any(r.get("limit") or r.get("subset") for r in entry["runs"]):
            return None  # a subset run (--quick) decides nothing
        return entry

    big = 45600 if 45600 in sizes else None
    mid = 9120 if 9120 in sizes else None
    ingest_big = get("ingest", big)
    checks.append({
        "floor": "ingest of 45,600 full-shape records streams with peak memory under 4 GB",
        "value": f"{ingest_big['peak_rss_mb']:,.0f} MB peak RSS" if ingest_big else None,
        "holds": (ingest_big["peak_rss_mb"] < 4096) if ingest_big else None,
    })
    for stage, other, label in (("ingest", big, "50x"), ("validate-full", mid, "10x"), ("validate-full", big, "50x")):
        a, b = get(stage, small), get(stage, other)
        if a and b:
            ratio = per_record_ms(b, other) / per_record_ms(a, small)
            ratio_min = per_record_ms(b, other, "min_s") / per_record_ms(a, small, "min_s")
            value = (f"{per_record_ms(a, small):.2f} ms/record at {small:,} -> {per_record_ms(b, other):.2f} at "
                     f"{other:,}: {ratio:.2f}x (medians; {ratio_min:.2f}x on the minima)")
            holds = ratio <= 1.3
        else:
            value, holds = None, None
        checks.append({"floor": f"{stage}: time per record at {label} within 1.3x of the time per record at 1x",
                       "value": value, "holds": holds})
    checks += _scale_floors(results, get, 912 if 912 in sizes else None, big)  # these name 912 and 45,600
    ours, theirs = get("ingest", small), get("rdflib-ingest", small)
    if ours and theirs:
        ratio = theirs["median_s"] / ours["median_s"]
        checks.append({"floor": "912 records: ingest at least 4x faster than the rdflib-only pipeline",
                       "value": f"rdflib {theirs['median_s']:.1f} s / kg {ours['median_s']:.1f} s = {ratio:.2f}x",
                       "holds": ratio >= 4})
    else:
        checks.append({"floor": "912 records: ingest at least 4x faster than the rdflib-only pipeline",
                       "value": None, "holds": None})
    ov, tv = get("validate-full", small), get("rdflib-validate", small)
    if ours and theirs and ov and tv:
        mine = ours["median_s"] + ov["median_s"]
        other = theirs["median_s"] + tv["median_s"]
        checks.append({"floor": "912 records: ingest plus validation at least 2.5x faster than the rdflib-only pipeline",
                       "value": f"rdflib {theirs['median_s']:.1f} + {tv['median_s']:.1f} s / kg {ours['median_s']:.1f} + "
                                f"{ov['median_s']:.1f} s = {other / mine:.2f}x",
                       "holds": other / mine >= 2.5})
    else:
        checks.append({"floor": "912 records: ingest plus validation at least 2.5x faster than the rdflib-only pipeline",
                       "value": None, "holds": None})
    return checks + command_floors(results)


def _scale_floors(results: dict, get: Callable[[str, int | None], dict | None], small: int | None,
                  big: int | None) -> list[dict[str, Any]]:
    """Issue 16's floors: incremental work flat in the store's size, queries at 50x, exports against
    the store's own dump, ingest against its bulk load, memory at 50x."""
    checks: list[dict[str, Any]] = []
    changed = changed_count(results)
    for stage, what in (("reingest-100", "re-ingest"), ("validate-incremental", "revalidation")):
        a, b = get(stage, small), get(stage, big)
        floor = f"{what} of {changed} changed records, per record: at 45,600 within 1.5x of 912"
        if a and b:
            ratio = b["median_s"] / a["median_s"]
            checks.append({"floor": floor, "holds": ratio <= 1.5, "value": (
                f"{1000 * a['median_s'] / changed:.1f} ms at {small:,} -> {1000 * b['median_s'] / changed:.1f} at "
                f"{big:,}: {ratio:.2f}x")})
        else:
            checks.append({"floor": floor, "value": None, "holds": None})
    for size, limit in ((big, 1.0), (small, 0.1)):
        if size is None:
            continue
        entry = get("queries", size)
        floor = f"every named query at {size:,} records under {limit:g} s"
        if not entry:
            checks.append({"floor": floor, "value": None, "holds": None})
            continue
        per = entry["runs"][-1].get("per_query") or {}
        times = {name: q.get("warm_median_s") if q.get("warm_median_s") is not None else q.get("cold_s")
                 for name, q in per.items()}
        slow = sorted(((t, n) for n, t in times.items() if t is None or t >= limit), key=lambda x: -(x[0] or 1e9))
        shown = ", ".join(f"{n} {t:.2f} s" if t is not None else f"{n} (no time)" for t, n in slow[:6])
        kind = "warm medians" if any(q.get("warm_median_s") is not None for q in per.values()) else "cold, one run each"
        checks.append({"floor": floor, "holds": not slow, "value": (
            f"{len(times) - len(slow)} of {len(times)} under ({kind})" + (f"; slowest: {shown}" if slow else ""))})
    for size in [n for n in (small, big) if n is not None]:
        dump = get("store-dump-nquads", size)
        for fmt, limit in (("nquads", 1.3), ("trig", 1.3), ("turtle", 1.3), ("jsonld", 2.0)):
            entry = get(f"export-{fmt}", size)
            floor = f"export {fmt} at {size:,} records within {limit:g}x of the store's own N-Quads dump"
            if entry and dump:
                ratio = entry["median_s"] / dump["median_s"]
                checks.append({"floor": floor, "holds": ratio <= limit, "value": (
                    f"{entry['median_s']:.1f} s / dump {dump['median_s']:.1f} s = {ratio:.2f}x (wall); CPU "
                    f"{entry['cpu_median_s'] / dump['cpu_median_s']:.2f}x")})
            elif entry or dump:
                checks.append({"floor": floor, "value": None, "holds": None})
        ours, bulk = get("ingest", size), get("bulk-load", size)
        if ours and bulk:
            ratio = ours["median_s"] / bulk["median_s"]
            also = ""
            for stage, label in INGEST_ALSO_AGAINST:
                other = get(stage, size)
                if other:
                    also += (f"; against {label}, {other['median_s']:.1f} s: "
                             f"{ours['median_s'] / other['median_s']:.2f}x")
            checks.append({"floor": f"ingest at {size:,} records within 1.5x of pyoxigraph's bulk_load of the same quads",
                           "holds": ratio <= 1.5, "value": (
                               f"{ours['median_s']:.1f} s / bulk_load {bulk['median_s']:.1f} s = {ratio:.2f}x (wall); "
                               f"CPU {ours['cpu_median_s']:.0f} s / {bulk['cpu_median_s']:.0f} s{also}")})
    if big is not None:
        measured = {stage: entry for (stage, size), entry in summarise(results).items()
                    if size == big and not stage.startswith(("rdflib", "floor"))}
        if measured:
            top = max(measured.items(), key=lambda kv: max(kv[1]["peak_rss_mb"], kv[1]["children_peak_rss_mb"]))
            peak = max(top[1]["peak_rss_mb"], top[1]["children_peak_rss_mb"])
            checks.append({"floor": "peak RSS under 4 GB for every stage at 45,600", "holds": peak < 4096,
                           "value": f"highest: {top[0]} {peak:,.0f} MB ({len(measured)} stages)"})
    return checks
