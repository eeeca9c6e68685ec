"""The analyze tool: kg.analyse's graph measures of the systems, the best ``top`` first.

The store never changes under a running server (it is opened read-only), so each set of
measures is computed once and kept; a second call with the same measures only ranks.
"""

from __future__ import annotations

import threading
from typing import Any

from ..analyse import MEASURES, Analysis, analyze
from ..errors import UsageError, safe_text
from ..store import GraphStore
from ..vocab import Iris
from .config import DEFAULT_TOP
from .paging import OFFSET, offset_schema, read_page, window

MAX_TOP = 1000


def input_schema() -> dict[str, Any]:
    """The analyze tool's arguments: which measures (the first ranks), and how many systems."""
    return {
        "type": "object",
        "properties": {
            "measures": {"type": "array", "items": {"type": "string", "enum": list(MEASURES)}, "uniqueItems": True,
                         "description": "the measures to compute (default: all); systems are ranked by the first"},
            "top": {"type": "integer", "minimum": 1, "maximum": MAX_TOP, "default": DEFAULT_TOP,
                    "description": "list this many systems, best first (a page)"},
            OFFSET: offset_schema(),
        },
        "additionalProperties": False,
    }


DESCRIPTION = ("Graph measures of the systems (kg analyze). Returns the graph's figures (nodes, adjacencies, edges, "
               "nucleus, bridge surprises, communities, components) and the top systems by the first measure, each "
               "with every measure computed, a page at a time (top, offset).")


def _measures(value: Any) -> tuple[str, ...]:
    if value is None:
        return MEASURES
    if not isinstance(value, list) or not all(isinstance(m, str) for m in value):
        raise UsageError("analyze: measures must be a list of measure names")
    unknown = [m for m in value if m not in MEASURES]
    if unknown:
        raise UsageError(f"analyze: unknown measure {', '.join(safe_text(m, 40) for m in unknown)}; "
                         f"known: {', '.join(MEASURES)}")
    return tuple(dict.fromkeys(value)) or MEASURES


def _top(value: Any) -> int:
    if value is None:
        return DEFAULT_TOP
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_TOP:
        raise UsageError(f"analyze: top must be a whole number from 1 to {MAX_TOP}")
    return value


class Analyses:
    """The analyses of one read-only store, computed on first use and kept."""

    def __init__(self, store: GraphStore, iris: Iris) -> None:
        self.store, self.iris = store, iris
        self._done: dict[tuple[str, ...], Analysis] = {}
        self._lock = threading.Lock()  # one computation at a time: it takes every core it can

    def _analysis(self, measures: tuple[str, ...]) -> Analysis:
        with self._lock:
            if measures not in self._done:
                self._done[measures] = analyze(self.store, measures, iris=self.iris)
            return self._done[measures]

    def run(self, arguments: dict[str, Any], cap: int = MAX_TOP) -> dict[str, Any]:
        """The tool's answer: the graph's figures and a page of the ranked systems (their unset
        measures left out)."""
        unknown = sorted(set(arguments) - {"measures", "top", OFFSET})
        if unknown:
            raise UsageError(f"analyze has no argument {', '.join(safe_text(n, 40) for n in unknown)}; "
                             "it takes: measures, top, offset")
        measures, top = _measures(arguments.get("measures")), _top(arguments.get("top"))
        page = read_page({OFFSET: arguments.get(OFFSET), "top": top}, DEFAULT_TOP, cap, "analyze", "top")
        analysis = self._analysis(measures)
        ranked = analysis.ranked(measures[0], None, listed_only=False)
        every = [{k: v for k, v in s.as_json().items() if v is not None} for s in ranked[:page.reach]]
        answer = {"graph": analysis.summary(), "rankedBy": measures[0], "systems": every, "systemCount": len(every)}
        return {**window(answer, page, read=len(ranked) + 1, cap=len(ranked) + 1, items="systems",
                         count="systemCount"), "total": len(ranked)}

