"""The benchmark report (``benchmarks/REPORT.md``), rendered from one results file.

It opens with the floors (each with its figure: met, not met, or not measured), then one paragraph on
how the run went (machine, date, load, commit), then the figures: data, stages, ratios over the
baselines, the plot, named queries, whole commands and builds, the endpoint, the SHACL engine, the
start-up, memory by input shape, profiles; every figure comes from the results.
"""

from __future__ import annotations

from pathlib import Path

import baseline_rdflib as baseline
from bench_harness import fmt_ms, fmt_s, rel_path
from bench_stages import OUR_STAGES, RATIOS, STORE_STAGES
from report_commands import commands_section
from report_engines import engines_section
from report_floors import floors
from report_profile import profile_section
from report_sections import common_query_totals, how_it_ran, query_table, reading_section, skipped_notes
from report_serve import serve_section
from report_tools import tools_section
from report_summary import changed_count, decides, per_record_ms, stage_records, summarise

VERDICTS = {True: "met", False: "**not met**", None: "not measured"}


def render_report(results: dict, results_path: Path, report_path: Path, plot_path: Path) -> str:
    """Write the report of ``results`` (read from ``results_path``) to ``report_path``; its text."""
    summary = summarise(results)
    sizes = sorted(int(s) for s in results["data"])
    sections = [reading_section(results, summary, sizes), "\n".join(stage_lines(results, summary, sizes)),
                "\n".join(ratio_lines(summary, sizes)), "\n".join(plot_lines(plot_path)),
                query_table(results, summary, sizes), commands_section(results), serve_section(results),
                engines_section(results), tools_section(results), profile_section(results),
                "\n".join(reproduce_lines(results["meta"]["command"]))]
    lines = [*header_lines(results), *floor_lines(results), how_it_ran(results, rel_path(results_path)), "",
             *data_lines(results, summary, sizes), *[s for s in sections if s]]
    text = "\n".join(lines).rstrip("\n") + "\n"
    report_path.write_text(text, encoding="utf-8")
    return text


def header_lines(results: dict) -> list[str]:
    """The title and what the page is."""
    sizes = ", ".join(f"{int(n):,}" for n in sorted(int(s) for s in results["data"]))
    kind = "" if decides(results) else " A --quick run: its figures decide no floor."
    return ["# Benchmarks", "",
            f"kg at {sizes} full-shape records, each stage beside its baselines (pyoxigraph's bulk_load, the Oxigraph "
            f"server, stock pySHACL, rdflib), in one run of `benchmarks/run.py`.{kind}", ""]


def floor_lines(results: dict) -> list[str]:
    """The floors' table: each floor, the figure this run measured, met or not (or not measured)."""
    lines = ["## Floors", "", "| floor | figure | verdict |", "|---|---|---|"]
    for row in floors(results):
        lines.append(f"| {row['floor']} | {row['value'] or '–'} | {VERDICTS[row['holds']]} |")
    return lines + [""]


def data_lines(results: dict, summary: dict, sizes: list[int]) -> list[str]:
    """The data section: each catalog's records, edges and bytes, and its store's quads and bytes."""
    lines = ["## Data", "",
             "Full-shape synthetic catalogs from `benchmarks/generate.py` (deterministic, seed "
             f"{results['meta']['args']['seed']}; 107 cells per record, the seed record's shape), plus their edges "
             "files.", "",
             "| records | edges | catalog JSON | quads in the store | store on disk |",
             "|---:|---:|---:|---:|---:|"]
    for n in sizes:
        d = results["data"][str(n)]
        ing = summary.get(("ingest", n))
        quads = ing["runs"][0].get("quads") if ing else None
        store = ing["runs"][0].get("store_bytes") if ing else None
        lines.append(f"| {n:,} | {d['edges']:,} | {d['catalog_bytes'] / 2**20:,.0f} MiB | "
                     f"{f'{quads:,}' if quads else '–'} | {f'{store / 2**20:,.0f} MiB' if store else '–'} |")
    return lines + [""]


def stage_lines(results: dict, summary: dict, sizes: list[int]) -> list[str]:
    """The stages' table (ours, the store's, the baselines'), then what did not run."""
    lines = ["## Stages", "",
             "Wall time is the median over the repeats (min in brackets); per record divides by the records the stage "
             f"handles ({changed_count(results)} for `reingest-100` and `validate-incremental`); CPU is the stage's "
             "own plus its worker processes'; RSS is the process peak (workers in brackets).", "",
             "| stage | records | runs | wall s | per record ms | records/s | CPU s | peak RSS MB |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for stage in list(OUR_STAGES) + list(STORE_STAGES) + ["floor-ntriples", "rdflib-ingest", "rdflib-validate",
                                     *[f"rdflib-export-{f}" for f in baseline.EXPORT_FORMATS], "rdflib-queries"]:
        for n in sizes:
            entry = summary.get((stage, n))
            if entry:
                lines.append(stage_row(stage, entry, stage_records(stage, n, results)))
    lines.append("")
    skipped = skipped_notes(results, sizes)
    if skipped:
        lines += ["Not run: " + "; ".join(skipped) + ".", ""]
    return lines


def stage_row(stage: str, entry: dict, handled: int) -> str:
    """One row of the stages' table (a subset run: the records of the subset)."""
    subset = entry["runs"][0].get("limit") or entry["runs"][0].get("subset")
    if subset:
        handled = subset
    rss = f"{entry['peak_rss_mb']:,.0f}"
    if entry["children_peak_rss_mb"] > 0 and stage in ("validate-full", "validate-incremental"):
        rss += f" ({entry['children_peak_rss_mb']:,.0f})"
    return (f"| {stage}{' (subset)' if subset else ''} | {handled:,} | {entry['n']} | {fmt_s(entry['median_s'])} "
            f"({fmt_s(entry['min_s'])}) | {fmt_ms(per_record_ms(entry, handled))} | "
            f"{handled / entry['median_s']:,.0f} | {fmt_s(entry['cpu_median_s'])} | {rss} |")


def ratio_lines(summary: dict, sizes: list[int]) -> list[str]:
    """The ratios' table: our median wall time over each baseline's, at each size both ran in full."""
    lines = ["## Ratios: kg over the baselines", "",
             "Our median wall time divided by the baseline's (below 1: kg is faster; `1/x` is how many times faster).",
             "", "| stage | size | kg s | baseline | baseline s | kg / baseline | baseline / kg |",
             "|---|---:|---:|---|---:|---:|---:|"]
    for stage, bases in RATIOS.items():
        for n in sizes:
            ours = summary.get((stage, n))
            for base in bases:
                seconds = ratio_seconds(stage, ours, summary.get((base, n)))
                if seconds:
                    ours_s, theirs_s = seconds
                    lines.append(f"| {stage} | {n:,} | {fmt_s(ours_s)} | {base} | {fmt_s(theirs_s)} | "
                                 f"{ours_s / theirs_s:.2f} | {theirs_s / ours_s:.1f}x |")
    return lines + ["", "For queries the totals are of the cold runs of the queries both engines answered.", ""]


def ratio_seconds(stage: str, ours: dict | None, theirs: dict | None) -> tuple[float, float] | None:
    """(ours, theirs) seconds of a ratio; None where either is missing, zero or a subset run."""
    if not ours or not theirs:
        return None
    if any(r.get("limit") or r.get("subset") for r in theirs["runs"]):
        return None
    if stage == "queries":
        ours_s, theirs_s = common_query_totals(ours["runs"], theirs["runs"])
    else:
        ours_s, theirs_s = ours["median_s"], theirs["median_s"]
    return (ours_s, theirs_s) if ours_s and theirs_s else None


def plot_lines(plot_path: Path) -> list[str]:
    """The plot's section (its image where it was drawn)."""
    lines = ["## Time per record against size", ""]
    if plot_path.exists():
        lines += [f"![time per record by stage]({plot_path.name})", ""]
    return lines + ["A flat line is a cost that grows linearly with the catalog; a rising one grows faster.", ""]


def reproduce_lines(command: str) -> list[str]:
    """How to run it again."""
    return ["## Reproduce", "", "```", command, "```", "",
            "`python benchmarks/run.py` measures 912 and 9,120 records, `--large` adds 45,600 (hours). Generated data "
            "and stores go to `--work` (default `/tmp/kg-bench`; the catalogs are cached there while "
            "`benchmarks/generate.py` is unchanged). The CI-sized run is `python benchmarks/run.py --sizes 60 "
            "--quick` (tests/test_benchmarks.py).", ""]
