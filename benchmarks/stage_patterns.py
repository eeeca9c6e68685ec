"""Benchmark stage ``pattern-engines``: sh:pattern on the ``regex`` module (what kg runs) against Python's ``re``.

kg translates each XPath pattern (kg/shacl/xsdregex.py) and matches it with ``regex``, for its Unicode
properties and its time limit on each match; the baseline is the same translated pattern on ``re`` (our
shapes' patterns translate to text both read alike). On the bundled catalog (``--quick``: the size's
catalog) ingested in memory: every (pattern, value) pair a validation tries is recorded once; then,
``spec['rounds']`` times, A B A B in one process: the matches alone on each engine, and a whole
``kg.validate`` (record rules and catalog-wide ones, one process) with each engine's matcher. Whether
both engines answered every match alike is kept with the medians.
"""

from __future__ import annotations

import re
import statistics
import time
from typing import Any, Callable


class _OnRe:
    """A compiled pattern with regex's ``search(text, timeout=...)``, run by ``re``."""

    def __init__(self, pattern: Any) -> None:
        self.compiled = re.compile(pattern.pattern, re.IGNORECASE if pattern.flags & 2 else 0)

    def search(self, text: str, timeout: float | None = None) -> Any:
        return self.compiled.search(text)


def _tried(kg: Any, values: Any, core_shapes: Any, store: Any) -> list[tuple[Any, str]]:
    """Every (compiled pattern, value) one validation of ``store`` matches."""
    original, tried = values.compile_pattern, []

    def recording(pattern: str, flags: str = "") -> Any:
        compiled = original(pattern, flags)

        class Recorder:
            def search(self, text: str, timeout: float | None = None) -> Any:
                tried.append((compiled, text))
                return compiled.search(text, timeout=timeout)
        return Recorder()

    values.compile_pattern = recording
    core_shapes.cache_clear()  # our shapes were compiled by the ingest's rules: compiled again, recording
    try:
        kg.validate(store, jobs=1)
    finally:
        values.compile_pattern = original
        core_shapes.cache_clear()
    return tried


def stage_pattern_engines(spec: dict) -> dict:
    """The medians of the matches and of a whole validation on each engine, and regex / re of each."""
    import kg
    from kg.shacl import values
    from kg.sources import bundled_paths
    from kg.store import GraphStore
    from kg.validation.core import core_shapes

    quick = bool(spec.get("quick"))
    store = GraphStore()
    kg.ingest(store, [spec["catalog"], spec["edges_file"]] if quick else bundled_paths())
    pairs = _tried(kg, values, core_shapes, store)
    original = values.compile_pattern
    on_re = {id(c): _OnRe(c) for c, _ in pairs}

    def matches(engine: str) -> float:
        started = time.perf_counter()
        for compiled, text in pairs:
            (on_re[id(compiled)] if engine == "re" else compiled).search(text, timeout=2.0)
        return time.perf_counter() - started

    def whole(engine: str) -> float:
        values.compile_pattern = (lambda p, f="": _OnRe(original(p, f))) if engine == "re" else original
        core_shapes.cache_clear()
        try:
            started = time.perf_counter()
            kg.validate(store, jobs=1)
            return time.perf_counter() - started
        finally:
            values.compile_pattern = original
            core_shapes.cache_clear()

    same = all(bool(c.search(t, timeout=2.0)) == bool(on_re[id(c)].search(t)) for c, t in pairs)
    timings: dict[str, dict[str, list[float]]] = {"matches": {"regex": [], "re": []},
                                                  "kg.validate": {"regex": [], "re": []}}
    measures: dict[str, Callable[[str], float]] = {"matches": matches, "kg.validate": whole}
    for _ in range(int(spec.get("rounds", 3))):
        for measure, run in measures.items():
            for engine in ("regex", "re"):
                timings[measure][engine].append(run(engine))
    medians = {measure: {engine: statistics.median(times) for engine, times in by.items()}
               for measure, by in timings.items()}
    return {"matches": len(pairs), "patterns": len({id(c) for c, _ in pairs}), "same_answers": same,
            "timings": timings, "medians": medians,
            "ratios": {measure: m["regex"] / m["re"] for measure, m in medians.items() if m["re"]},
            "rounds": int(spec.get("rounds", 3)), "data": "the size's catalog" if quick else "the bundled catalog"}
