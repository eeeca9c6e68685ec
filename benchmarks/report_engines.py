"""The report's engines and processes: SHACL against stock pySHACL, start-up, memory by input shape, other stores.

Floors and sections of the stages ``validate-vs-pyshacl``, ``startup`` and ``memory-shapes``; and the
floor of a stage still to come, ``substrate-risk-engines`` (issue 52: ``kg query substrate-risk`` over
``--endpoint`` on Apache Jena and Virtuoso within 2x of the Oxigraph server), "not measured" until a
stage of that name gives ``{"engines": {"oxigraph": {"seconds": S}, "jena": {...}, "virtuoso": {...}}}``.
"""

from __future__ import annotations

from typing import Any

from report_summary import check, latest

ENGINE_LIMIT = 10.0  # kg validate at least this many times faster than one stock pySHACL run
RECORD_LIMIT_S = 0.5  # kg validate --record ID, whole command, bundled catalog
STARTUP_LIMIT_S = 0.3  # kg --help, kg query --list
FLOOR_MB, WIDE_FLOOR_MB, MEMORY_SIZE = 1536, 1024, 9120
PORTABILITY_LIMIT = 2.0
SHAPES = {"lines": "JSON Lines", "catalog": "catalog file + edges file", "list": "top-level list",
          "folder": "folder, one file a record", "wide": "JSON Lines, wide records"}
Checks = list[dict[str, Any]]


def _any(results: dict, stage: str) -> dict | None:
    """The last successful run of ``stage``, even of a --quick run (a section shows it; no floor reads it)."""
    found = [r for r in results["runs"] if r.get("stage") == stage and r.get("ok")]
    return found[-1] if found else None


def engine_floors(results: dict) -> Checks:
    """kg validate at least 10x faster than one stock pySHACL run; kg validate --record under 0.5 s."""
    run = latest(results, "validate-vs-pyshacl")
    value = (f"kg validate {run['wall_s']:.2f} s against stock pySHACL {run['stock_s']:.1f} s: {run['ratio_median']:.1f}x "
             f"(median of {len(run['pairs'])} pairs in turn; CPU {run['ratio_cpu_median']:.1f}x); results "
             f"{run['pairs'][0]['kg_results']:,} and {run['pairs'][0]['stock_results']:,}") if run else None
    return [check(f"the bundled catalog: `kg validate` at least {ENGINE_LIMIT:g}x faster than one stock pySHACL run "
                  "(whole commands)", value, run and run["ratio_median"] >= ENGINE_LIMIT),
            check(f"`kg validate --record ID` on the bundled catalog under {RECORD_LIMIT_S:g} s (whole command)",
                  f"{run['record_median_s']:.2f} s (median of {len(run['record_runs'])})" if run else None,
                  run and run["record_median_s"] < RECORD_LIMIT_S)]


def startup_floors(results: dict) -> Checks:
    """``kg --help`` and ``kg query --list`` under 0.3 s, whole processes."""
    run = latest(results, "startup")
    rows = []
    for name in ("kg --help", "kg query --list"):
        got = run["commands"][name] if run else None
        bare = run["commands"]["python -c pass"]["median_s"] if run else None
        rows.append(check(f"`{name}` under {STARTUP_LIMIT_S:g} s (whole process)",
                          f"{got['median_s']:.3f} s median (bare python {bare:.3f} s)" if got else None,
                          got and got["median_s"] < STARTUP_LIMIT_S))
    return rows


def portability_floors(results: dict) -> Checks:
    """``substrate-risk`` over --endpoint on Jena and Virtuoso within 2x of the Oxigraph server (stage to come)."""
    run = latest(results, "substrate-risk-engines")
    engines = (run or {}).get("engines") or {}
    ox = (engines.get("oxigraph") or {}).get("seconds")
    ratios = {name: got["seconds"] / ox for name, got in engines.items() if name != "oxigraph" and ox
              and got.get("seconds") is not None}
    value = "; ".join(f"{name} {engines[name]['seconds']:.2f} s against {ox:.2f} s: {ratio:.2f}x"
                      for name, ratio in sorted(ratios.items())) if {"jena", "virtuoso"} <= set(ratios) else None
    return [check(f"`kg query substrate-risk` over --endpoint on Apache Jena and Virtuoso within "
                  f"{PORTABILITY_LIMIT:g}x of the Oxigraph server", value,
                  bool(ratios) and max(ratios.values()) <= PORTABILITY_LIMIT)]


def memory_floors(results: dict) -> Checks:
    """Every input shape of ``kg ingest`` within 1,536 MB at 9,120 records; the wide records within 1,024 MB."""
    run = latest(results, "memory-shapes", MEMORY_SIZE)
    cases = (run or {}).get("cases", {})
    shapes = [c for name, c in cases.items() if name != "wide"]
    wide = cases.get("wide")
    return [check(f"`kg ingest` of {MEMORY_SIZE:,} full-shape records, every input shape, within {FLOOR_MB:,} MB "
                  "peak RSS", ", ".join(f"{SHAPES[n]} {c['peak_rss_mb']:,.0f} MB" for n, c in cases.items()
                                        if n != "wide") or None,
                  all(c["ran"] and c["peak_rss_mb"] <= FLOOR_MB for c in shapes)),
            check(f"`kg ingest` of 200 records of 2,000 cells within {WIDE_FLOOR_MB:,} MB peak RSS",
                  f"{wide['peak_rss_mb']:,.0f} MB" if wide else None,
                  wide and wide["ran"] and wide["peak_rss_mb"] <= WIDE_FLOOR_MB)]


def engines_section(results: dict) -> str:
    """The sections of the SHACL engine against stock pySHACL, the start-up and the memory by input shape."""
    lines: list[str] = []
    run = _any(results, "validate-vs-pyshacl")
    if run:
        lines += ["## kg's SHACL engine against stock pySHACL", "",
                  f"{run['data'].capitalize()}: `kg validate --format json` against one stock pySHACL run over the "
                  "store's N-Triples with every shape (`python benchmarks/stage_shacl.py --stock DUMP`: pyshacl and "
                  "rdflib only), whole commands in turn.", "",
                  "| pair | kg s (CPU) | stock pySHACL s (CPU) | ratio | results kg / pySHACL |", "|---:|---:|---:|---:|---:|"]
        lines += [f"| {i} | {p['kg']['seconds']:.2f} ({p['kg']['cpu_s']:.2f}) | {p['stock']['seconds']:.2f} "
                  f"({p['stock']['cpu_s']:.2f}) | {p['ratio_wall']:.1f}x | {p['kg_results']:,} / {p['stock_results']:,} |"
                  for i, p in enumerate(run["pairs"], 1)]
        lines += ["", f"`kg validate --record {run['record']}`: {run['record_median_s']:.2f} s (median of "
                  f"{len(run['record_runs'])} runs).", ""]
    run = _any(results, "startup")
    if run:
        bare = run["commands"]["python -c pass"]["median_s"]
        lines += ["## Start-up", "", f"Whole processes, {run['runs']} runs each after a warm-up.", "",
                  "| command | min s | median s | max s | median / bare python |", "|---|---:|---:|---:|---:|"]
        lines += [f"| `{name}` | {c['min_s']:.3f} | {c['median_s']:.3f} | {c['max_s']:.3f} | {c['median_s'] / bare:.1f}x |"
                  for name, c in run["commands"].items()]
        lines.append("")
    run = _any(results, "memory-shapes")
    if run:
        lines += ["## Memory by input shape", "",
                  f"`kg ingest` as a user runs it, a fresh process into a fresh store, one shape at a time ({run['size']:,} "
                  f"records; the wide records: {run['wide_cells']:,} cells each); peak RSS from `os.wait4`.", "",
                  "| input | records | MiB | peak RSS MB | wall s | exit |", "|---|---:|---:|---:|---:|---:|"]
        lines += [f"| {SHAPES[name]} | {c['records']:,} | {c['mib']:.1f} | {c['peak_rss_mb']:,.0f} | {c['seconds']:.1f} | "
                  f"{c['code']} |" for name, c in run["cases"].items()]
        lines.append("")
    return "\n".join(lines)
