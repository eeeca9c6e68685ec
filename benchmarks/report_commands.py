"""The report's whole commands: their floors and their sections (stages ``commands`` and ``stage_builds``'s).

The named queries, ``kg info`` and ``kg validate --record`` as a user runs them; the builds against
``bulk_load`` of the same quads (and the scaling with ``--jobs``).
"""

from __future__ import annotations

from typing import Any

from bench_harness import fmt_s
from report_summary import check, latest

QUERY_LIMIT_S = 1.0  # every named query as a whole command, at 45,600 records
INFO_LIMIT_S = 0.5  # kg info as a whole command, at 45,600 records
VALIDATE_LIMIT = 1.5  # kg validate --record per record, 45,600 against 912
BUNDLED_LIMIT, BUILD_LIMIT = 1.5, 1.3  # the bundled build against bulk_load on 2 cores; at 45,600
BIG, SMALL = 45600, 912


def command_floors(results: dict) -> list[dict[str, Any]]:
    """Every named query and ``kg info`` at 45,600 records as whole commands; ``kg validate --record`` per record."""
    big = latest(results, "commands", BIG)
    timed = {n: q["median_s"] for n, q in (big or {}).get("per_query", {}).items() if "median_s" in q}
    slow = sorted(((t, n) for n, t in timed.items() if t >= QUERY_LIMIT_S), reverse=True)
    slowest = max(timed.items(), key=lambda kv: kv[1]) if timed else None
    rows = [check(f"every named query at {BIG:,} records under {QUERY_LIMIT_S:g} s as a whole command (its table "
                  "printed to a pipe)",
                  f"{len(timed) - len(slow)} of {len(timed)} under; slowest {slowest[0]} {slowest[1]:.2f} s"
                  if slowest else None, not slow),
            check(f"`kg info` at {BIG:,} records under {INFO_LIMIT_S:g} s as a whole command",
                  f"{big['info']['median_s']:.2f} s" if big else None, big and big["info"]["median_s"] < INFO_LIMIT_S)]
    small = latest(results, "commands", SMALL)
    a, b = (small or {}).get("validate_records", {}), (big or {}).get("validate_records", {})
    value = (f"{a['per_record_ms']:.1f} ms a record at {SMALL:,} -> {b['per_record_ms']:.1f} at {BIG:,}: "
             f"{b['per_record_ms'] / a['per_record_ms']:.2f}x") if a and b else None
    rows.append(check(f"`kg validate --record` (whole command) per changed record at {BIG:,} within "
                      f"{VALIDATE_LIMIT:g}x of {SMALL:,}", value,
                      bool(a and b) and b["per_record_ms"] / a["per_record_ms"] <= VALIDATE_LIMIT))
    return rows


def _build_value(run: dict) -> str:
    text = (f"kg ingest {run['wall_s']:.2f} s / bulk_load {run['bulk_load_s']:.2f} s: {run['ratio_median']:.2f}x "
            f"(median of {run['rounds']} pairs in turn: {', '.join(f'{r:.2f}' for r in run['ratios'])}); CPU "
            f"{run['cpu_s']:.1f} s / {run['bulk_load_cpu_s']:.1f} s")
    if run.get("jobs"):
        text += "; " + ", ".join(f"--jobs {n}: {got['wall_s']:.2f} s ({got['ratio_median']:.2f}x)"
                                 for n, got in sorted(run["jobs"].items(), key=lambda kv: int(kv[0])))
    elif run.get("jobs_note"):
        text += f"; the scaling with --jobs not measured: {run['jobs_note']}"
    return text


def build_floors(results: dict) -> list[dict[str, Any]]:
    """The bundled build within 1.5x of bulk_load (whole commands, 2 cores), the build of 45,600 within 1.3x."""
    bundled, big = latest(results, "bundled-vs-bulk-load"), latest(results, "build-vs-bulk-load", BIG)
    return [check(f"the bundled build (`kg ingest`, whole command) within {BUNDLED_LIMIT:g}x of bulk_load of the same "
                  f"quads, on {results['meta']['machine'].get('cores') or '?'} cores (the scaling with --jobs stated)",
                  _build_value(bundled) if bundled else None, bundled and bundled["ratio_median"] <= BUNDLED_LIMIT),
            check(f"the build of {BIG:,} full-shape records (whole command) within {BUILD_LIMIT:g}x of bulk_load",
                  _build_value(big) if big else None, big and big["ratio_median"] <= BUILD_LIMIT)]


def commands_section(results: dict) -> str:
    """Whole commands by size: every named query, ``kg info``, ``kg validate --record``; then the builds."""
    runs = {r["size"]: r for r in results["runs"] if r.get("stage") == "commands" and r.get("ok")}
    builds = [r for r in results["runs"] if r.get("stage") in ("build-vs-bulk-load", "bundled-vs-bulk-load")
              and r.get("ok")]
    if not runs and not builds:
        return ""
    sizes = sorted(runs)
    lines = ["## Whole commands", "",
             "Each command as a user runs it (`python -m kg.cli ...`: start-up and imports included, the output read "
             "from a pipe to its end), after one warm-up run (a warm page cache); the median of the runs, seconds.", ""]
    if sizes:
        lines += ["| command | " + " | ".join(f"{n:,} records" for n in sizes) + " |", "|---|" + "---:|" * len(sizes)]
        for name in sorted({n for r in runs.values() for n in r["per_query"]}):
            cells = [fmt_s(runs[n]["per_query"].get(name, {}).get("median_s")) for n in sizes]
            lines.append(f"| `kg query {name}` | " + " | ".join(cells) + " |")
        lines.append("| `kg info` | " + " | ".join(fmt_s(runs[n]["info"]["median_s"]) for n in sizes) + " |")
        lines.append("| `kg validate --record` x changed, per record (ms) | " + " | ".join(
            f"{runs[n]['validate_records']['per_record_ms']:.1f}" for n in sizes) + " |")
        lines.append("")
    if builds:
        lines += ["Builds against pyoxigraph's `bulk_load` of the same quads into a fresh on-disk store (`python -c`, "
                  "the strict parser, then `flush`), whole commands in turn, the ratio pair by pair:", "",
                  "| build | quads | kg ingest s | bulk_load s | ratio (median of pairs) | CPU s (kg / bulk_load) | "
                  "with --jobs |", "|---|---:|---:|---:|---:|---:|---|"]
        for run in builds:
            what = "bundled catalog" if run["stage"] == "bundled-vs-bulk-load" else f"{run['size']:,} records"
            jobs = ", ".join(f"{n}: {got['wall_s']:.2f} s, {got['ratio_median']:.2f}x"
                             for n, got in sorted(run.get("jobs", {}).items(), key=lambda kv: int(kv[0])))
            lines.append(f"| {what} | {run['quads']:,} | {run['wall_s']:.2f} | {run['bulk_load_s']:.2f} | "
                         f"{run['ratio_median']:.2f}x | {run['cpu_s']:.1f} / {run['bulk_load_cpu_s']:.1f} | "
                         f"{jobs or run.get('jobs_note') or '–'} |")
        lines.append("")
    return "\n".join(lines)
