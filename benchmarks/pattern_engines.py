"""sh:pattern on the `regex` module (what kg runs) against Python's `re`, on the bundled catalog.

    python benchmarks/pattern_engines.py [--repeats 3] [--out benchmarks/results/pattern-engines.md]

kg translates each XPath pattern (kg/shacl/xsdregex.py) and matches it with `regex`, for its
Unicode properties and its timeout on each match. The baseline is the same translated pattern on
`re` (our shapes' patterns translate to text both read alike). Two measures, A B A B in turn in one
process on one store: the matches alone (every value our shapes' patterns are tried on, gathered
from a validation), and a whole `kg.validate` of the bundled catalog (the record rules and the
catalog-wide ones). Medians, and regex / re as a ratio.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import time
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).resolve().parent / "results"


class _OnRe:
    """A compiled pattern with regex's ``search(text, timeout=...)``, run by ``re``."""

    def __init__(self, pattern: Any) -> None:
        self.compiled = re.compile(pattern.pattern, re.IGNORECASE if pattern.flags & 2 else 0)

    def search(self, text: str, timeout: float | None = None) -> Any:
        return self.compiled.search(text)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--out", type=Path, default=RESULTS / "pattern-engines.md")
    args = ap.parse_args()

    import kg
    from kg.shacl import values
    from kg.sources import bundled_paths
    from kg.store import GraphStore
    from kg.validation.core import core_shapes

    store = GraphStore()
    kg.ingest(store, bundled_paths())
    original = values.compile_pattern
    tried: list[tuple[Any, str]] = []

    def recording(pattern: str, flags: str = "") -> Any:
        compiled = original(pattern, flags)

        class Recorder:
            def search(self, text: str, timeout: float | None = None) -> Any:
                tried.append((compiled, text))
                return compiled.search(text, timeout=timeout)
        return Recorder()

    values.compile_pattern = recording  # type: ignore[assignment]
    core_shapes.cache_clear()  # our shapes were compiled by the ingest's rules: compiled again, recording
    kg.validate(store, jobs=1)
    values.compile_pattern = original
    pairs = list(tried)
    on_re = {id(c): _OnRe(c) for c, _ in pairs}

    def matches(engine: str) -> float:
        started = time.perf_counter()
        for compiled, text in pairs:
            (on_re[id(compiled)] if engine == "re" else compiled).search(text, timeout=2.0)
        return time.perf_counter() - started

    def whole(engine: str) -> float:
        values.compile_pattern = (lambda p, f="": _OnRe(original(p, f))) if engine == "re" else original  # type: ignore
        core_shapes.cache_clear()
        try:
            started = time.perf_counter()
            kg.validate(store, jobs=1)
            return time.perf_counter() - started
        finally:
            values.compile_pattern = original
            core_shapes.cache_clear()

    same = all(bool(c.search(t, timeout=2.0)) == bool(on_re[id(c)].search(t)) for c, t in pairs)
    timings: dict[tuple[str, str], list[float]] = {}
    for _ in range(args.repeats):
        for measure, run in (("matches", matches), ("kg.validate", whole)):
            for engine in ("regex", "re"):
                timings.setdefault((measure, engine), []).append(run(engine))
    lines = ["# sh:pattern on `regex` against `re`, on the bundled catalog", "",
             f"`python benchmarks/pattern_engines.py --repeats {args.repeats}` ({time.strftime('%Y-%m-%d %H:%M')}; "
             f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores, a machine shared with other work): "
             f"{len(pairs):,} matches of {len({id(c) for c, _ in pairs})} patterns in one validation, the same "
             f"answer on both engines: {'yes' if same else 'NO'}. Medians of {args.repeats} runs, A B A B.", "",
             "| measure | regex (s) | re (s) | regex / re |", "|---|---:|---:|---:|"]
    for measure in ("matches", "kg.validate"):
        a, b = (statistics.median(timings[(measure, e)]) for e in ("regex", "re"))
        lines.append(f"| {measure} | {a:.4f} | {b:.4f} | {a / b:.2f} |")
    args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
