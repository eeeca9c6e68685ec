"""The report's whole commands: their floors (issue 41) and their section, from the stages of
``stage_commands`` (named queries, ``kg info``, ``kg validate --record``; builds against ``bulk_load``).
"""

from __future__ import annotations

from typing import Any

from bench_harness import fmt_s

BUILD_LIMIT = 1.3  # a build's whole command against bulk_load's
QUERY_LIMIT_S = 1.0  # every named query as a whole command, at 45,600 records
INFO_LIMIT_S = 0.5  # kg info as a whole command, at 45,600 records
VALIDATE_LIMIT = 1.5  # kg validate --record per record, 45,600 against 912
BIG, SMALL = 45600, 912


def _latest(results: dict, stage: str, size: int | None = None) -> dict | None:
    """The last successful run of ``stage`` (at ``size``, or any size)."""
    found = [r for r in results["runs"] if r.get("stage") == stage and r.get("ok")
             and (size is None or r.get("size") == size)]
    return found[-1] if found else None


def _build_value(run: dict) -> str:
    return (f"kg ingest {run['wall_s']:.2f} s / bulk_load {run['bulk_load_s']:.2f} s = {run['ratio_median']:.2f}x "
            f"(median of {run['rounds']} pairs in turn: {', '.join(f'{r:.2f}' for r in run['ratios'])}); CPU "
            f"{run['cpu_s']:.1f} s / {run['bulk_load_cpu_s']:.1f} s; {run['quads']:,} quads")


def command_floors(results: dict) -> list[dict[str, Any]]:
    """Issue 41's floors on whole commands: the builds against bulk_load, the named queries and ``kg info``
    at 45,600 records, ``kg validate --record`` per record from 912 to 45,600."""
    checks: list[dict[str, Any]] = []
    if not any(r.get("stage") in ("commands", "build-vs-bulk-load", "bundled-vs-bulk-load") for r in results["runs"]):
        return checks  # results from before these stages: their report stays as it was
    bundled = _latest(results, "bundled-vs-bulk-load")
    checks.append({"floor": f"the bundled build (`kg ingest`, whole command) within {BUILD_LIMIT}x of bulk_load of "
                            f"the same quads (whole command)",
                   "value": _build_value(bundled) if bundled else None,
                   "holds": bundled["ratio_median"] <= BUILD_LIMIT if bundled else None})
    for size in sorted({r["size"] for r in results["runs"] if r.get("stage") == "build-vs-bulk-load"} | {BIG}):
        run = _latest(results, "build-vs-bulk-load", size)
        checks.append({"floor": f"the build of {size:,} full-shape records (whole command) within {BUILD_LIMIT}x of "
                                f"bulk_load (whole command)",
                       "value": _build_value(run) if run else None,
                       "holds": run["ratio_median"] <= BUILD_LIMIT if run else None})
    big = _latest(results, "commands", BIG)
    timed = {n: q["median_s"] for n, q in (big or {}).get("per_query", {}).items() if "median_s" in q}
    slow = sorted(((t, n) for n, t in timed.items() if t >= QUERY_LIMIT_S), reverse=True)
    slowest = max(timed.items(), key=lambda kv: kv[1]) if timed else None
    checks.append({"floor": f"every named query at {BIG:,} records under {QUERY_LIMIT_S:g} s as a whole command "
                            f"(warm page cache)",
                   "value": (f"{len(timed) - len(slow)} of {len(timed)} under; slowest {slowest[0]} "
                             f"{slowest[1]:.2f} s") if slowest else None,
                   "holds": not slow if timed else None})
    checks.append({"floor": f"`kg info` at {BIG:,} records under {INFO_LIMIT_S:g} s as a whole command",
                   "value": f"{big['info']['median_s']:.2f} s" if big else None,
                   "holds": big["info"]["median_s"] < INFO_LIMIT_S if big else None})
    small = _latest(results, "commands", SMALL)
    if small and big:
        a, b = small["validate_records"]["per_record_ms"], big["validate_records"]["per_record_ms"]
        value, holds = f"{a:.1f} ms a record at {SMALL:,} -> {b:.1f} at {BIG:,}: {b / a:.2f}x", b / a <= VALIDATE_LIMIT
    else:
        value, holds = None, None
    checks.append({"floor": f"`kg validate --record` (whole command) per changed record at {BIG:,} within "
                            f"{VALIDATE_LIMIT}x of {SMALL:,}", "value": value, "holds": holds})
    return checks


def commands_section(results: dict) -> str:
    """Whole commands by size: every named query, ``kg info``, ``kg validate --record``; then the builds."""
    runs = {r["size"]: r for r in results["runs"] if r.get("stage") == "commands" and r.get("ok")}
    builds = [r for r in results["runs"] if r.get("stage") in ("build-vs-bulk-load", "bundled-vs-bulk-load")
              and r.get("ok")]
    if not runs and not builds:
        return ""
    sizes = sorted(runs)
    lines = ["## Whole commands", "",
             "Each command as a user runs it (`python -m kg.cli ...`: start-up and imports included), after one "
             "warm-up run (a warm page cache); the median of the runs, seconds.", ""]
    if sizes:
        lines += ["| command | " + " | ".join(f"{n:,} records" for n in sizes) + " |",
                  "|---|" + "---:|" * len(sizes)]
        names = sorted({n for r in runs.values() for n in r["per_query"]})
        for name in names:
            cells = [fmt_s(runs[n]["per_query"].get(name, {}).get("median_s")) for n in sizes]
            lines.append(f"| `kg query {name}` | " + " | ".join(cells) + " |")
        lines.append("| `kg info` | " + " | ".join(fmt_s(runs[n]["info"]["median_s"]) for n in sizes) + " |")
        lines.append("| `kg validate --record` x changed, per record (ms) | " + " | ".join(
            f"{runs[n]['validate_records']['per_record_ms']:.1f}" for n in sizes) + " |")
        lines.append("")
    if builds:
        lines += ["Builds against pyoxigraph's `bulk_load` of the same quads into a fresh on-disk store (`python -c`, "
                  "the strict parser, then `flush`), whole commands in turn:", "",
                  "| build | quads | kg ingest s | bulk_load s | ratio (median of pairs) | CPU s (kg / bulk_load) |",
                  "|---|---:|---:|---:|---:|---:|"]
        for run in builds:
            what = "bundled catalog" if run["stage"] == "bundled-vs-bulk-load" else f"{run['size']:,} records"
            lines.append(f"| {what} | {run['quads']:,} | {run['wall_s']:.2f} | {run['bulk_load_s']:.2f} | "
                         f"{run['ratio_median']:.2f}x | {run['cpu_s']:.1f} / {run['bulk_load_cpu_s']:.1f} |")
        lines.append("")
    return "\n".join(lines)
