"""Benchmark stage ``advice``: the four advice tools of ``kg.advice`` in-process, cold and warm, beside a named query.

On the store the ``ingest`` stage built: ``recommend`` (free text and a structured form), ``between`` two
anchors, ``predict-citations`` for one paper and ``breakouts``, each ``spec['rounds']`` times cold (the
tools' kept readings dropped first, so each reads and parses the graph again, as a fresh process does)
and then warm (the same call again: a server's next question); the baseline of the same run is the
named query ``select-system-names`` (every system's id and name), timed the same way. The anchors are
two systems with a verified input cost and capability score (the cheaper and the dearer quartile of
them), the paper the first that ``breakouts`` lists; the answers' row counts are kept.
"""

from __future__ import annotations

import statistics
import time
from typing import Any, Callable

from bench_harness import kg_module, measure
from stage_queries import paper_of

TODAY = "2026-07-01"  # every tool reads the staleness and the current year from it: the same answer on every day


def _timed(call: Callable[[], Any]) -> tuple[float, int]:
    """Seconds of one call, and the rows of its answer."""
    started = time.perf_counter()
    answer = call()
    seconds = time.perf_counter() - started
    rows = getattr(answer, "rows", answer)
    return seconds, len(rows) if hasattr(rows, "__len__") else 1


def _anchors(store: Any) -> tuple[str, str]:
    """Two systems with a verified input cost and capability score: the cheaper and the dearer quartile's."""
    from kg.advice.profiles import read_profiles

    placed = sorted((p.cost, p.id) for p in read_profiles(store) if p.cost is not None and p.capability is not None
                    and p.verified("cost-input-usd-per-mtok") and p.verified("capability-composite-score"))
    if len(placed) < 2:
        raise RuntimeError(f"{len(placed)} systems with a verified cost and capability score: no two anchors")
    return placed[len(placed) // 4][1], placed[3 * len(placed) // 4][1]


def tools(store: Any) -> dict[str, Callable[[], Any]]:
    """Each timed call by its name, the baseline last."""
    advice, queries = kg_module("kg.advice"), kg_module("kg.queries")
    form = advice.StructuredForm(shape="multi-agent", scale="production", latency_budget_ms=800,
                                 persistence="long-term", deployment="offline", cost_ceiling_usd_per_mtok=5)
    low, high = _anchors(store)
    paper = paper_of(store, TODAY)
    return {
        "recommend (text)": lambda: advice.recommend(store, "offline multi agent airgap", today=TODAY),
        "recommend (form)": lambda: advice.recommend(store, form=form, today=TODAY),
        "between": lambda: advice.between(store, low, high, today=TODAY),
        "predict-citations": lambda: advice.predict_citations(store, paper, today=TODAY),
        "breakouts": lambda: advice.breakouts(store, limit=15, today=TODAY),
        "baseline: select-system-names": lambda: queries.query(store, "select-system-names"),
    }


def _forget() -> None:
    """Drop what the tools keep per store version (their readings of the graph and the fitted papers)."""
    from kg.advice import citations, profiles

    profiles._KEPT.clear()
    citations._KEPT.clear()


def stage_advice(spec: dict) -> dict:
    """Each tool's median cold and warm seconds over ``spec['rounds']`` rounds, and its ratio to the baseline's."""
    from kg.store import GraphStore

    store = GraphStore(spec["store"], read_only=True)
    per_tool: dict[str, dict[str, Any]] = {}

    def run() -> dict:
        calls = tools(store)
        for name, call in calls.items():
            cold, warm, rows = [], [], 0
            for _ in range(int(spec.get("rounds", 3))):
                _forget()
                seconds, rows = _timed(call)
                cold.append(seconds)
                warm.append(_timed(call)[0])
            per_tool[name] = {"cold_median_s": statistics.median(cold), "warm_median_s": statistics.median(warm),
                              "cold_s": cold, "warm_s": warm, "rows": rows}
        base = per_tool["baseline: select-system-names"]["cold_median_s"]
        for got in per_tool.values():
            got["cold_over_baseline"] = got["cold_median_s"] / base
        return {}

    out = measure(run)
    return {**out, "per_tool": per_tool, "rounds": int(spec.get("rounds", 3)), "today": TODAY}
