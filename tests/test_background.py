"""kg.background: one write at a time beside the caller; an ingest whose background write fails changes nothing."""

from __future__ import annotations

import threading

import pytest

from kg import ingestion
from kg.background import BackgroundWrites
from kg.errors import StoreError
from kg.ingestion import ingest_paths
from kg.store import GraphStore


def test_writes_run_one_at_a_time_in_the_order_given():
    running, seen, overlaps = threading.Lock(), [], []

    def write(n):
        def run():
            if not running.acquire(blocking=False):
                overlaps.append(n)
                return
            seen.append(n)
            running.release()
        return run

    writes = BackgroundWrites()
    for n in range(50):
        writes.submit(write(n))
    writes.wait()
    assert seen == list(range(50)) and not overlaps


def test_a_failed_write_is_raised_at_the_next_hand_over_and_the_next_write_never_runs():
    ran = []
    writes = BackgroundWrites()
    writes.submit(lambda: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        writes.submit(lambda: ran.append("after"))
    writes.wait()
    assert ran == []


def test_wait_without_raising_still_waits_for_the_running_write():
    done = threading.Event()
    writes = BackgroundWrites()
    writes.submit(lambda: (done.wait(0.05), done.set()))
    writes.wait(raise_error=False)
    assert done.is_set()
    writes.submit(lambda: 1 / 0)
    writes.wait(raise_error=False)
    writes.wait()  # the error was let go


def test_an_ingest_whose_background_write_fails_leaves_the_stored_version(tmp_path, tiny_paths, monkeypatch):
    store = GraphStore(tmp_path / "kg-store")
    ingest_paths(store, tiny_paths)
    before = sorted(map(str, store.quads()))
    monkeypatch.setattr(ingestion.batching, "BATCH_SIZE", 3)  # several batches: the failure comes mid-run
    monkeypatch.setattr(ingestion.batching, "RAMP", ())
    calls = []
    replace = GraphStore.replace_graphs

    def failing(self, graphs, additions=()):
        calls.append(threading.current_thread().name)
        if len(calls) == 2:
            raise StoreError("the disk is full (a test)")
        return replace(self, graphs, additions)

    monkeypatch.setattr(GraphStore, "replace_graphs", failing)
    with pytest.raises(StoreError, match="disk is full"):
        ingest_paths(store, tiny_paths)
    assert calls == ["kg-store-write", "kg-store-write"]  # the batches went to the writer; none after the failure
    reopened = GraphStore.open_existing(tmp_path / "kg-store", read_only=True)
    assert sorted(map(str, reopened.quads())) == before
