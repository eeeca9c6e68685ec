"""The report's tools: the sections of the stages ``advice``, ``pattern-engines`` and ``findings-upkeep``.

``advice_times(results, size)`` gives each advice tool's cold median at a size, which the in-process
query floor (``report_floors.query_floors``) counts with the named queries: a tool's warm call answers
from what it kept of the graph, so its cold call is the one held to the floor. The engines' slot
(``substrate-risk-engines``) says here why it did not measure, when it did not.
"""

from __future__ import annotations

from report_summary import decides

BASELINE = "baseline: select-system-names"


def _rounds(n: int) -> str:
    return f"{n} round" + ("" if n == 1 else "s")


def _runs(results: dict, stage: str) -> list[dict]:
    return [r for r in results["runs"] if r.get("stage") == stage and r.get("ok")]


def advice_times(results: dict, size: int) -> dict[str, float] | None:
    """Each advice tool's median cold seconds at ``size`` (None: not measured there, or a --quick run)."""
    found = [r for r in _runs(results, "advice") if r["size"] == size]
    if not found or not decides(results):
        return None
    return {name: got["cold_median_s"] for name, got in found[-1]["per_tool"].items() if name != BASELINE}


def advice_section(results: dict) -> list[str]:
    """Each tool cold and warm at each size, and cold over the baseline of the same run."""
    runs = {r["size"]: r for r in _runs(results, "advice")}
    if not runs:
        return []
    sizes = sorted(runs)
    first = runs[sizes[0]]
    lines = ["## The advice tools", "",
             f"`kg.advice` in-process on each size's store (`today` {first['today']}): cold drops what the tools keep "
             "of the graph first (each reads and parses it again, as a fresh process does), warm is the same call "
             f"again (a server's next question); medians of {_rounds(first['rounds'])}. The baseline of the same run "
             "is the named query `select-system-names` (every system's id and name).", "",
             "| tool |" + "".join(f" {n:,}: cold s | warm s | cold / baseline |" for n in sizes),
             "|---|" + "---:|---:|---:|" * len(sizes)]
    for name in first["per_tool"]:
        cells = []
        for n in sizes:
            got = runs[n]["per_tool"].get(name)
            cells.append(f" {got['cold_median_s']:.3f} | {got['warm_median_s']:.3f} | {got['cold_over_baseline']:.2f} |"
                         if got else " – | – | – |")
        lines.append(f"| {name} |" + "".join(cells))
    return lines + [""]


def pattern_section(results: dict) -> list[str]:
    """sh:pattern on regex against re: the matches alone and a whole validation."""
    found = _runs(results, "pattern-engines")
    if not found:
        return []
    run = found[-1]
    lines = ["## sh:pattern on `regex` against `re`", "",
             f"{run['data'].capitalize()}, in memory: the {run['matches']:,} matches of {run['patterns']} patterns "
             "that one validation tries, on the `regex` module (what kg runs: Unicode properties and a time limit on "
             "each match) and on `re` with the same translated patterns, then a whole `kg.validate` (one process) "
             f"with each; A B A B in one process, medians of {_rounds(run['rounds'])}. The same answer to every "
             f"match on both: {'yes' if run['same_answers'] else '**no**'}.", "",
             "| measure | regex s | re s | regex / re |", "|---|---:|---:|---:|"]
    for measure, medians in run["medians"].items():
        lines.append(f"| {measure} | {medians['regex']:.4f} | {medians['re']:.4f} | {run['ratios'][measure]:.2f} |")
    return lines + [""]


STEP_NAMES = {"first_ingest": "first ingest", "one_record_reingest": "one-record re-ingest",
              "validate_record": "`kg.validate` of that record (control)"}


def findings_section(results: dict) -> list[str]:
    """What keeping the findings costs an ingest: each step's CPU seconds with them kept and without."""
    found = _runs(results, "findings-upkeep")
    if not found:
        return []
    run = found[-1]
    kept, without = run["min_cpu_s"]["kept"], run["min_cpu_s"]["without"]
    lines = ["## What keeping the findings costs an ingest", "",
             f"{run['data'].capitalize()} into a new on-disk store, then one record (`{run['record']}`) with one "
             "cell's citation changed ingested again: CPU seconds with each version's findings kept (as kg runs) "
             "and without (the ingest's findings hook doing nothing: the ingest before findings were kept), the two "
             f"in turn in one process, the least of {_rounds(run['rounds'])}; the upkeep column is the hook's own "
             "seconds.", "",
             "| step | kept CPU s | of which upkeep s | without CPU s | kept / without |", "|---|---:|---:|---:|---:|"]
    for step, name in STEP_NAMES.items():
        upkeep = kept.get(f"{step}_upkeep")
        lines.append(f"| {name} | {kept[step]:.3f} | {'–' if upkeep is None else f'{upkeep:.3f}'} | "
                     f"{without[step]:.3f} | {run['ratios'].get(step, float('nan')):.2f} |")
    return lines + [""]


def engines_slot_lines(results: dict) -> list[str]:
    """Why ``substrate-risk-engines`` measured nothing, when it did not."""
    found = [r for r in results["runs"] if r.get("stage") == "substrate-risk-engines"]
    if not found or found[-1].get("engines"):
        return []
    run = found[-1]
    why = run.get("note") or run.get("error") or "no figures"
    return ["## Other engines", "", f"`substrate-risk-engines` did not measure: {why}.", ""]


def tools_section(results: dict) -> str:
    """The sections of the advice tools, the pattern engines, the findings' upkeep and the engines' slot."""
    return "\n".join(advice_section(results) + pattern_section(results) + findings_section(results)
                     + engines_slot_lines(results))
