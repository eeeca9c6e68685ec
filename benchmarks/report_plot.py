"""The benchmark report's plot: median wall time per record against catalog size, one line a stage.
"""

from __future__ import annotations

from pathlib import Path

from bench_stages import OUR_STAGES
from report_summary import per_record_ms, stage_records, summarise


def plot(results: dict, path: Path) -> Path | None:
    """Draw the plot into ``path`` (None, and nothing drawn, without matplotlib)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    summary = summarise(results)
    sizes = sorted(int(s) for s in results["data"])
    fig, ax = plt.subplots(figsize=(9, 5.5), dpi=110)
    stages = [s for s in OUR_STAGES if any((s, n) in summary for n in sizes)]
    baselines = [s for s in ("floor-ntriples", "rdflib-ingest", "rdflib-validate") if any((s, n) in summary for n in sizes)]
    for stage in stages + baselines:
        xs, ys = [], []
        for n in sizes:
            entry = summary.get((stage, n))
            if entry and not any(r.get("limit") for r in entry["runs"]):
                xs.append(n)
                ys.append(per_record_ms(entry, stage_records(stage, n, results)))
        if not xs:
            continue
        style = "--" if stage in baselines else "-"
        ax.plot(xs, ys, style, marker="o", label=stage)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xticks(sizes)
    ax.set_xticklabels([f"{n:,}" for n in sizes])
    ax.set_xlabel("catalog size (records)")
    ax.set_ylabel("median wall time per record (ms)")
    ax.set_title("kg: time per record by stage (flat line = linear cost)")
    ax.grid(True, which="both", alpha=0.3)
    if ax.lines:
        ax.legend(fontsize=8, ncol=2)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path
