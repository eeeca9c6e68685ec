"""SIGKILL during ``kg ingest``: every record graph is old or new, never a mix; the store opens
as it is and a re-run completes. A reduced run of ``benchmarks/crash_bench.py`` (8 kills on
120 records); the benchmark does 50 kills on the whole catalog (benchmarks/results/crash.md).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _bench():
    spec = importlib.util.spec_from_file_location("crash_bench", ROOT / "benchmarks" / "crash_bench.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("crash_bench", module)
    spec.loader.exec_module(module)
    return module


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX")
def test_sigkill_during_ingest_leaves_each_record_old_or_new(tmp_path):
    bench = _bench()
    # the first half of a run is start-up and reading: aim most kills at the writing half
    outcomes, info = bench.run(kills=8, records=120, seed=11, folder=tmp_path, recover_every=4, window=(0.4, 1.05))
    assert info["records"] == 120
    for outcome in outcomes:
        assert outcome.open_error is None, outcome
        assert outcome.mixed == [], outcome
        assert outcome.v1 + outcome.v2 == 120, outcome
        assert outcome.edges in ("v1", "v2") and outcome.catalog in ("v1", "v2"), outcome
        # edges and catalog header are written after the records, in one transaction
        assert outcome.edges == outcome.catalog
        if outcome.edges == "v2":
            assert outcome.v2 == 120
    tried = [o.recovered for o in outcomes if o.recovered is not None]
    assert tried and all(tried)


def test_the_harness_tells_a_mixed_record_apart(tmp_path):
    """The check is not vacuous: a record graph holding half of v1 and half of v2 is caught."""
    bench = _bench()
    paths = bench.write_versions(tmp_path, 3)
    expected = bench.expected_graphs(paths)
    graph = next(g for g in expected["v1"] if "/graph/record/" in g)
    from kg.store import GraphStore

    store = GraphStore(tmp_path / "mixed")
    from pyoxigraph import parse, RdfFormat

    old, new = sorted(expected["v1"][graph]), sorted(expected["v2"][graph])
    text = "".join(f"{line} .\n" for line in old[: len(old) // 2] + new[len(new) // 2:])
    store._store.extend(parse(text.encode(), format=RdfFormat.N_QUADS))
    del store
    outcome = bench.Outcome(delay=0, finished_before_kill=False)
    bench.classify(tmp_path / "mixed", expected, outcome)
    assert graph in outcome.mixed and outcome.state == "BROKEN"
