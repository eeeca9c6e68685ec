"""The benchmark report's computed sections: how it ran, the reading, the stages not run, the named queries.
"""

from __future__ import annotations

import shlex
import statistics

from bench_harness import fmt_s
from report_summary import changed_count, median, per_record_ms, stage_records


def reading_section(results: dict, summary: dict, sizes: list[int]) -> str:
    """What the figures say, in sentences computed from them."""
    out = ["### What the figures say", ""]
    small = sizes[0] if sizes else None

    def med(stage: str, n: int, key: str = "median_s") -> float | None:
        entry = summary.get((stage, n))
        if not entry or any(r.get("limit") for r in entry["runs"]):
            return None
        return entry[key]

    ingest, floor_s, rd = med("ingest", small), med("floor-ntriples", small), med("rdflib-ingest", small)
    if ingest and floor_s:
        cpu, floor_cpu = med("ingest", small, "cpu_median_s"), med("floor-ntriples", small, "cpu_median_s")
        out.append(
            f"- **Where ingest time goes.** At {small:,} records kg's ingest takes {ingest:.1f} s ({cpu:.1f} s CPU). "
            f"The floor, which reads, checks and maps the same records into the same triples and only writes them "
            f"as text, takes {floor_s:.1f} s ({floor_cpu:.1f} s CPU): producing the triples is about "
            f"{floor_cpu / cpu:.0%} of ingest's CPU, and indexing them in the on-disk store (plus the dataset "
            f"description and clean-up) the other {1 - floor_cpu / cpu:.0%}.")
    if ingest and rd:
        rd_cpu = med("rdflib-ingest", small, "cpu_median_s")
        out.append(
            f"- **Against rdflib.** The rdflib-only pipeline builds its in-memory Dataset from the same records in "
            f"{rd:.1f} s ({rd_cpu:.1f} s CPU): {rd / ingest:.1f}x kg's wall time. Both pipelines share the parsing, "
            f"checking and mapping (the floor's {floor_s or 0:.1f} s); the difference is rdflib's term objects and "
            f"its in-memory indexes against Oxigraph's on-disk indexes.")
    streamed = [(n, summary[("ingest", n)]) for n in sizes if ("ingest", n) in summary
                and summary[("ingest", n)]["runs"][0].get("streamed")]
    if streamed:
        out.append("- **Streaming.** " + "; ".join(
            f"at {n:,} records (a {results['data'][str(n)]['catalog_bytes'] / 2**20:,.0f} MiB catalog file) ingest "
            f"streamed the file and peaked at {e['peak_rss_mb']:,.0f} MB" for n, e in streamed)
            + f"; reading the {small:,}-record file whole peaked at "
            f"{summary[('ingest', small)]['peak_rss_mb']:,.0f} MB." if ("ingest", small) in summary else "")
    per = [(n, per_record_ms(summary.get(("ingest", n)), n)) for n in sizes if summary.get(("ingest", n))]
    if len(per) > 1:
        out.append("- **Ingest per record:** " + ", ".join(f"{ms:.1f} ms at {n:,}" for n, ms in per) + ".")
    per = [(n, per_record_ms(summary.get(("validate-full", n)), n)) for n in sizes if summary.get(("validate-full", n))]
    if per:
        inc = [(n, per_record_ms(summary.get(("validate-incremental", n)),
                                 stage_records("validate-incremental", n, results)))
               for n in sizes if summary.get(("validate-incremental", n))]
        out.append("- **Validation per record:** full run " + ", ".join(f"{ms:.1f} ms at {n:,}" for n, ms in per)
                   + (f"; incremental revalidation of {changed_count(results)} changed records (their graphs "
                      "plus every catalog-wide query) " + ", ".join(f"{ms:.1f} ms per changed record at {n:,}" for n, ms in inc) if inc else "")
                   + ".")
    timeouts = {}
    for run in results["runs"]:
        if run["stage"] == "queries" and run.get("ok"):
            for name in run.get("timeouts", []):
                timeouts.setdefault(name, set()).add(run["size"])
    if timeouts:
        limit = results["meta"]["args"].get("query_timeout")
        out.append("- **Queries over the time limit** (" + (f"{limit:.0f} s" if limit else "the limit") + "): "
                   + "; ".join(f"`{name}` at {', '.join(f'{n:,}' for n in sorted(ns))}"
                               for name, ns in sorted(timeouts.items()))
                   + ". They are left out of the queries totals.")
    out.append("")
    return "\n".join(out) if len(out) > 3 else ""


def common_query_totals(ours: list[dict], theirs: list[dict]) -> tuple[float, float]:
    """Total cold time of the queries both engines answered (medians over the repeats)."""
    def cold(runs: list[dict]) -> dict[str, float]:
        times: dict[str, list[float]] = {}
        for run in runs:
            for name, got in run.get("per_query", {}).items():
                if "cold_s" in got:
                    times.setdefault(name, []).append(got["cold_s"])
        return {name: statistics.median(values) for name, values in times.items()}

    mine, other = cold(ours), cold(theirs)
    common = set(mine) & set(other)
    return sum(mine[n] for n in common), sum(other[n] for n in common)


def how_it_ran(results: dict, results_path: str) -> str:
    """One paragraph: the command, when (one sitting), the machine, how busy it was, kg's commit, the raw results."""
    meta, machine = results["meta"], results["meta"]["machine"]
    shares = [r["noise"]["others_cpu_share"] for r in results["runs"]
              if r.get("noise", {}).get("others_cpu_share") is not None]
    loads = [value for r in results["runs"] if "noise" in r
             for value in (r["noise"].get("load1_before"), r["noise"].get("load1_after")) if value is not None]
    versions = ", ".join(f"{k} {v}" for k, v in machine["versions"].items() if v)
    busy = (f"other processes took a median {statistics.median(shares):.0%} of the machine's CPU during a stage "
            f"(at most {max(shares):.0%}; {sum(1 for s in shares if s > 0.25)} of {len(shares)} stages ran while "
            f"they took more than a quarter), and the 1-minute load average was {min(loads):.1f} to "
            f"{max(loads):.1f}" if shares and loads else "the machine's load was not read")
    commit = machine.get("git_commit") or "?"
    if machine.get("dirty"):
        commit += " (with changes not committed)"
    note = f" {meta['note'].strip()}" if meta.get("note", "").strip() else ""
    command = meta["command"]  # the note follows the paragraph's facts: not quoted twice
    for written in (shlex.quote(meta.get("note") or ""), meta.get("note") or ""):
        command = command.replace(f" --note {written}", "") if written else command
    return (f"**How it ran.** `{command}`, in one sitting from {meta['started'].replace('T', ' ')} to "
            f"{meta.get('finished', '?').replace('T', ' ')}, on one machine: {machine['cpu'] or 'unknown CPU'}, "
            f"{machine['cores']} cores, {machine['memory_mb']:,} MB memory, {machine['platform']}, Python "
            f"{machine['python']} ({versions}); kg at commit {commit}. While it ran {busy}; noise only slows a run "
            f"down, so the minima and the CPU times are the steadier figures.{note} Every figure on this page comes "
            f"from `{results_path}`; `python benchmarks/run.py --report-only {results_path}` renders the page again.")


def skipped_notes(results: dict, sizes: list[int]) -> list[str]:
    """What did not run, or failed, and why."""
    args = results["meta"]["args"]
    notes = []
    ran = {(r["stage"], r["size"]) for r in results["runs"]}  # a merged run may hold what these limits left out
    big = [n for n in sizes if n > args["full_validate_max"] and ("validate-full", n) not in ran]
    if big:
        notes.append(f"full validation at {', '.join(f'{n:,}' for n in big)} (the incremental revalidation of "
                     f"{changed_count(results)} changed records stands for it there)")
    big = [n for n in sizes if n > args["export_max"] and not any(st.startswith("export-") for st, m in ran if m == n)]
    if big:
        notes.append(f"exports at {', '.join(f'{n:,}' for n in big)} (reading the on-disk store runs at about "
                     "110k quads/s, so each format would take 7 minutes or more; the exports stream, so memory "
                     "is not what stops them)")
    big = [n for n in sizes if n > args["rdflib_max"]]
    if big:
        notes.append(f"the rdflib baseline at {', '.join(f'{n:,}' for n in big)} (about 1 KB of memory per triple "
                     "and minutes of loading; research/perf-anchors.md §2 and §8)")
    for run in results["runs"]:
        if not run.get("available", True):
            notes.append(f"{run['stage']} at {run['size']:,}: {run.get('note')}")
        elif not run.get("ok"):
            notes.append(f"{run['stage']} at {run['size']:,} (repeat {run['repeat'] + 1}) failed: "
                         f"{str(run.get('error'))[:160]}")
    return list(dict.fromkeys(notes))


def query_table(results: dict, summary: dict, sizes: list[int]) -> str:
    """The named queries' section: rows, cold and warm times per size, against rdflib."""
    per: dict[str, dict[int, dict]] = {}
    rd: dict[str, dict[int, dict]] = {}
    for run in results["runs"]:
        if run.get("ok") and run["stage"] in ("queries", "rdflib-queries") and not run.get("limit"):
            target = per if run["stage"] == "queries" else rd
            for name, got in run.get("per_query", {}).items():
                target.setdefault(name, {}).setdefault(run["size"], []).append(got)
    if not per:
        return ""
    lines = ["## Named queries", "",
             "Cold is the first run in a fresh process; warm the median of the following runs. rdflib is the "
             "same query text, with the same bound values, on the rdflib Dataset (union default graph); "
             "'same rows' compares the number of rows the two engines returned.", ""]
    base = 912 if 912 in sizes else min(sizes)
    head = ("| query |" + "".join(f" {n:,}: rows | cold s | warm s |" for n in sizes)
            + f" rdflib warm s ({base:,}) | same rows |")
    lines += [head, "|---|" + "---:|---:|---:|" * len(sizes) + "---:|---|"]
    for name in sorted(per):
        cells = []
        for n in sizes:
            got = per[name].get(n)
            if not got or "cold_s" not in got[0]:
                note = got[0].get("error", got[0].get("skipped", "")) if got else ""
                cells.append(f" – | – | {note[:40] or '–'} |")
                continue
            cold = median([g["cold_s"] for g in got if "cold_s" in g])
            warm = median([g["warm_median_s"] for g in got if g.get("warm_median_s") is not None])
            cells.append(f" {got[0]['rows']:,} | {fmt_s(cold)} | {fmt_s(warm)} |")
        theirs = rd.get(name, {}).get(base)
        mine = per[name].get(base)
        same = "–"
        if theirs and mine and "rows" in theirs[0] and "rows" in mine[0]:
            same = "yes" if theirs[0]["rows"] == mine[0]["rows"] else f"no ({theirs[0]['rows']:,})"
        if theirs and theirs[0].get("warm_median_s") is not None:
            rcell = fmt_s(theirs[0]["warm_median_s"])
        elif theirs and "timeout_s" in theirs[0]:
            rcell = f"> {theirs[0]['timeout_s']:.0f} (timeout)"
        elif theirs and "error" in theirs[0]:
            rcell = "error: " + theirs[0]["error"][:50].replace("|", "/")
        else:
            rcell = "–"
        lines.append(f"| {name} |" + "".join(cells) + f" {rcell} | {same} |")
    lines.append("")
    return "\n".join(lines)
