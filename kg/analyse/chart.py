"""The analysis chart: a PNG of the top systems by one measure beside a drawing of the nucleus (matplotlib)."""

from __future__ import annotations

import math
import os
from collections import Counter
from pathlib import Path
from typing import Any, Hashable, Sequence, cast

import networkx as nx

from ..errors import UsageError
from ..outpaths import OutputPath, output_path, writing
from .analysis import Analysis, measure_value


def _matplotlib():
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError:
        raise UsageError("plots need matplotlib: pip install 'agent-landscape-kg[plot]'") from None
    return Figure, FigureCanvasAgg


def _short(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit - 1] + "\u2026"


def _section_colours(sections: Sequence[str | None]) -> dict[str | None, Any]:
    from matplotlib import colormaps
    from matplotlib.colors import ListedColormap

    def colours(name: str) -> tuple:
        listed = cast(ListedColormap, colormaps[name])
        return tuple(cast(Sequence, listed.colors))  # the tab palettes hold tuples of RGB triples

    # the ten strong colours first, then their light variants, then more
    palette = colours("tab10") + colours("tab20")[1::2] + colours("tab20b")
    ordered = [s for s, _ in Counter(sections).most_common()]
    return {s: ("#b0b0b0" if s is None else palette[i % len(palette)]) for i, s in enumerate(ordered)}


_GRID_COLUMNS = 7  # label cells across the drawing panel
_MAX_DRAWN = 84  # most nucleus members drawn (the rest are named in the title)


def _grid_layout(graph: nx.Graph, order: Sequence[Hashable], seed: int) -> tuple[dict, int, int]:
    """A force layout snapped onto a grid of label-sized cells, so that no two labels overlap.

    The spring layout gives each node its preferred place; nodes then take the
    nearest free cell, most central first (``order``). Returns positions in cell
    units, and the grid's columns and rows.
    """
    n = len(graph)
    columns = min(_GRID_COLUMNS, max(1, n))
    rows = max(3, math.ceil(1.7 * n / columns))
    raw = nx.spring_layout(graph, seed=seed) if n > 1 else {node: (0.0, 0.0) for node in graph}
    xs = [p[0] for p in raw.values()]
    ys = [p[1] for p in raw.values()]
    span_x, span_y = (max(xs) - min(xs)) or 1.0, (max(ys) - min(ys)) or 1.0
    free = {(c, r) for c in range(columns) for r in range(rows)}
    pos = {}
    for node in order:
        x = (raw[node][0] - min(xs)) / span_x * (columns - 1)
        y = (raw[node][1] - min(ys)) / span_y * (rows - 1)
        cell = min(free, key=lambda cr: ((cr[0] - x) * 2.2) ** 2 + (cr[1] - y) ** 2 + 1e-9 * (cr[0] * rows + cr[1]))
        free.discard(cell)
        pos[node] = (float(cell[0]), float(cell[1]))
    return pos, columns, rows


def plot(analysis: Analysis, path: str | Path | OutputPath, *, measure: str | None = None, top: int = 20) -> Path:
    """A PNG with two panels: a bar chart of the top ``top`` systems by ``measure``
    (default: the first measure) and a drawing of the nucleus, labelled by name and
    coloured by primary section. ``path`` is written as every output of kg is
    (:mod:`kg.outpaths`: whole or not at all; a folder refused): give an
    :class:`~kg.outpaths.OutputPath` checked beforehand to have it refused before any work."""
    out = path if isinstance(path, OutputPath) else output_path(os.fspath(path), "--plot")
    Figure, FigureCanvasAgg = _matplotlib()
    from matplotlib.lines import Line2D

    measure = measure or analysis.measures[0]
    rows = analysis.ranked(measure, top)
    members = analysis.nucleus or []
    sections = [r.section for r in rows] + [analysis.systems[n].section for n in members if n in analysis.systems]
    colours = _section_colours(sections)

    fig = Figure(figsize=(20, 10.5), dpi=110, layout="constrained")
    FigureCanvasAgg(fig)
    bars, drawing = fig.subplots(1, 2, width_ratios=[1, 1.7])

    labels = [_short(r.name, 38) for r in rows]
    values = [measure_value(r, measure) for r in rows]
    y = range(len(rows))
    bars.barh(list(y), values, color=[colours[r.section] for r in rows], edgecolor="#333333", linewidth=0.4)
    bars.set_yticks(list(y), labels, fontsize=9)
    bars.invert_yaxis()
    for i, value in enumerate(values):
        text = (f"{value:.3f}" if value >= 0.1 else f"{value:.3g}") if isinstance(value, float) else str(value)
        bars.text(value, i, " " + text, va="center", fontsize=8)
    bars.margins(x=0.12)
    note = "" if analysis.sample is None or measure not in ("betweenness", "bridge-surprise") else \
        f" (estimated, {analysis.sample} pivots)"
    bars.set_title(f"Top {len(rows)} systems by {measure}{note}", fontsize=12, loc="left")
    bars.set_xlabel(_AXIS_LABELS.get(measure, measure))
    bars.spines[["top", "right"]].set_visible(False)

    drawing.set_axis_off()
    if members:
        shown = members[:_MAX_DRAWN]
        # a fresh graph in a fixed node order (a subgraph view iterates in hash order)
        sub = nx.Graph()
        sub.add_nodes_from(shown)
        sub.add_edges_from(sorted(tuple(sorted(e)) for e in analysis.graph.subgraph(shown).edges()))
        pos, columns, rows_ = _grid_layout(sub, shown, analysis.seed)
        for u, v in sub.edges():
            (x1, y1), (x2, y2) = pos[u], pos[v]
            drawing.plot([x1, x2], [y1, y2], color="#a0a0a0", linewidth=0.7, alpha=0.8, zorder=1)
        if analysis.systems[shown[0]].betweenness is not None:
            size_by = "betweenness"
            weight = [analysis.systems[n].betweenness or 0.0 for n in shown]
        else:
            size_by = "neighbours in the nucleus"
            weight = [sub.degree(n) / max(1, max(d for _, d in sub.degree())) for n in shown]
        drawing.scatter([pos[n][0] for n in shown], [pos[n][1] for n in shown], s=[50 + 400 * w for w in weight],
                        c=[colours[analysis.systems[n].section] for n in shown],
                        edgecolors="#222222", linewidths=0.6, zorder=2)
        for n in shown:
            # labels above the node in even columns and below it in odd ones: neighbours never collide
            below = int(pos[n][0]) % 2 == 1
            drawing.annotate(_short(analysis.systems[n].name, 28), pos[n], xytext=(0, -7 if below else 7),
                             textcoords="offset points", ha="center", va="top" if below else "bottom",
                             fontsize=7.5, zorder=3,
                             bbox={"boxstyle": "round,pad=0.1", "fc": "white", "ec": "none", "alpha": 0.85})
        drawing.set_xlim(-0.6, columns - 0.4)
        drawing.set_ylim(-0.8, rows_ - 0.2)
        more = f", {len(members) - len(shown)} more not drawn" if len(members) > len(shown) else ""
        drawing.set_title(f"Nucleus: the {len(members)} systems of the {analysis.max_coreness}-core{more} "
                          f"(node size = {size_by})", fontsize=12, loc="left")
    else:
        drawing.set_title("No nucleus (coreness not computed or graph without edges)", fontsize=12, loc="left")
    handles = [Line2D([], [], marker="o", linestyle="", markersize=8, markerfacecolor=c,
                      markeredgecolor="#222222", label=_short(s or "(no section)", 60))
               for s, c in colours.items()]
    fig.legend(handles=handles, loc="outside lower center", ncol=min(4, max(1, len(handles))),
               fontsize=9, title="primary section", title_fontsize=9, frameon=False)
    fig.suptitle(f"AI Agent Infrastructure Landscape: {analysis.node_count} systems, "
                 f"{analysis.adjacency_count} adjacencies", fontsize=13)
    with writing(out) as handle:
        fig.savefig(handle, format="png")
    return Path(out.given)


_AXIS_LABELS = {
    "betweenness": "betweenness (share of the largest)",
    "coreness": "k-core number",
    "inbound": "inbound edges (all types)",
    "outbound": "outbound edges (all types)",
    "pagerank": "PageRank on dependency edges",
    "bridge-surprise": "inbound rank minus betweenness rank",
    "blast-radius": "systems that depend on it (runtime-dependency, transitively)",
}
