"""SIGKILL during ``kg ingest``: the store is the whole previous version or the whole new one,
quad for quad, never a mix, and the next writer's clean-up leaves nothing behind: a few kills on
60 records in each mode, by the harness of ``tests/crash_kills.py``.
"""

from __future__ import annotations

import sys

import pytest

RECORDS = 60  # records per version


def _bench():
    import crash_kills

    return crash_kills


def _check(outcomes, info, allowed):
    assert info["records"] == RECORDS
    killed = [o for o in outcomes if not o.finished_before_kill]
    assert killed, "no run was killed"
    for outcome in outcomes:
        assert outcome.open_error is None, outcome
        assert outcome.mixed == [], outcome
        assert outcome.state in allowed, outcome  # never "MIXED" (some records new) nor "BROKEN"
        assert outcome.leftovers == [], outcome
    tried = [o.recovered for o in outcomes if o.recovered is not None]
    assert tried and all(tried)


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX")
def test_sigkill_during_a_replace_leaves_all_old_or_all_new(tmp_path):
    bench = _bench()
    # the first half of a run is start-up and reading: aim most kills at the writing half
    outcomes, info = bench.run(kills=5, records=RECORDS, seed=11, folder=tmp_path, recover_every=3,
                               window=(0.4, 1.05), mode="replace")
    _check(outcomes, info, {"all old", "all new"})


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX")
def test_sigkill_during_a_fresh_build_leaves_no_store_or_all_new(tmp_path):
    bench = _bench()
    outcomes, info = bench.run(kills=5, records=RECORDS, seed=5, folder=tmp_path, recover_every=3,
                               window=(0.3, 1.05), mode="fresh")
    # "all old" of a fresh build: an empty store (generation 1, made before the ingest)
    _check(outcomes, info, {"no store", "all old", "all new"})
    assert all(o.total in (None, 0, info["totals"]["v2"]) for o in outcomes)


def test_the_harness_tells_a_mixed_record_apart(tmp_path):
    """The check is not vacuous: a record graph holding half of v1 and half of v2 is caught,
    and so is a store whose graphs are each whole but from different versions."""
    bench = _bench()
    paths = bench.write_versions(tmp_path, 3)
    expected = bench.expected_graphs(paths)
    graph = next(g for g in expected["v1"] if "/graph/record/" in g)
    from pyoxigraph import RdfFormat, parse

    from kg.store import GraphStore

    def stored(lines):
        store = GraphStore(tmp_path / "mixed")
        store.remove_graphs(store.named_graphs())
        store.add(parse("".join(f"{line} .\n" for line in lines).encode(), format=RdfFormat.N_QUADS))
        del store

    old, new = sorted(expected["v1"][graph]), sorted(expected["v2"][graph])
    stored(old[: len(old) // 2] + new[len(new) // 2:])
    outcome = bench.Outcome(delay=0, finished_before_kill=False)
    bench.classify(tmp_path / "mixed", expected, outcome)
    assert graph in outcome.mixed and outcome.state == "BROKEN"

    whole = [line for g, quads in expected["v1"].items() if g != graph for line in quads] + new
    stored(whole)
    outcome = bench.Outcome(delay=0, finished_before_kill=False)
    bench.classify(tmp_path / "mixed", expected, outcome)
    assert outcome.mixed == [] and outcome.state == "MIXED"
