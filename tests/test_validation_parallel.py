"""The process pool (kg.validation.parallel): the pool's results are the calling process's (stock
pySHACL), the snapshot the workers read is removed, and pySHACL outside the tested range runs stock."""

from __future__ import annotations

from kg.store import GraphStore
from kg.validation import speedups, validate
from kg.validation.parallel import snapshot


def test_the_pool_gives_the_results_of_one_process(shared_partial_store, partial_report, iris):
    seen: list[tuple[int, int]] = []
    pooled = validate(shared_partial_store, iris, jobs=2, progress=lambda done, total: seen.append((done, total)))
    assert pooled.timings["jobs"] == 2 and partial_report.timings["jobs"] == 1
    parts = int(pooled.timings["record_parts"])
    assert seen == [(n, parts) for n in range(1, parts + 1)]
    assert pooled.keys() == partial_report.keys() and pooled.notes == []


def test_outside_the_tested_range_the_workers_run_stock_pyshacl(shared_partial_store, partial_report, iris,
                                                              monkeypatch):
    monkeypatch.setattr(speedups, "installed_version", lambda: "0.99.0")
    pooled = validate(shared_partial_store, iris, jobs=2)
    assert pooled.keys() == partial_report.keys()
    assert pooled.notes == [speedups.note("0.99.0")]


def test_the_snapshot_is_removed_afterwards_and_an_in_memory_store_has_none(shared_partial_store):
    with snapshot(shared_partial_store) as path:
        assert path is not None and GraphStore.open_existing(path, read_only=True).named_graphs()
    assert not any(p.name.startswith(".kg-validate-") for p in shared_partial_store.path.parent.iterdir())
    with snapshot(GraphStore()) as path:
        assert path is None
