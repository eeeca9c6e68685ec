"""The process pool (kg.validation.records): the pool's results are the calling process's, and the
snapshot the workers read is removed."""

from __future__ import annotations

from kg.store import GraphStore
from kg.validation import validate
from kg.validation.records import snapshot


def test_the_pool_gives_the_results_of_one_process(shared_partial_store, partial_report, iris):
    seen: list[tuple[int, int]] = []
    pooled = validate(shared_partial_store, iris, jobs=2, per_call=10,
                      progress=lambda done, total: seen.append((done, total)))
    assert pooled.timings["jobs"] == 2 and partial_report.timings["jobs"] == 1
    parts = int(pooled.timings["record_parts"])
    assert parts > 2 and seen == [(n, parts) for n in range(1, parts + 1)]
    assert pooled.keys() == partial_report.keys() and pooled.notes == []


def test_an_in_memory_store_sends_its_parts_to_the_pool(partial_report, shared_partial_store, iris):
    memory = GraphStore()
    memory.add_bulk(list(shared_partial_store.quads()))
    assert validate(memory, iris, jobs=2, per_call=10).keys() == partial_report.keys()


def test_the_snapshot_is_removed_afterwards_and_an_in_memory_store_has_none(shared_partial_store):
    with snapshot(shared_partial_store) as path:
        assert path is not None and GraphStore.open_existing(path, read_only=True).named_graphs()
    assert not any(p.name.startswith(".kg-validate-") for p in shared_partial_store.path.parent.iterdir())
    with snapshot(GraphStore()) as path:
        assert path is None
