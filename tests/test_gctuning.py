"""kg.gctuning: the collector's threshold during a bulk job, put back after, across threads."""

from __future__ import annotations

import gc
import threading

import pytest

from kg import gctuning
from kg.gctuning import THRESHOLD, fewer_collections


@pytest.fixture(autouse=True)
def default_threshold():
    found = gc.get_threshold()
    gc.set_threshold(700, 10, 10)
    yield
    gc.set_threshold(*found)


def test_the_threshold_is_raised_inside_and_put_back_after_even_on_an_error():
    with pytest.raises(RuntimeError), fewer_collections():
        assert gc.get_threshold() == (THRESHOLD, 10, 10)
        raise RuntimeError("the job failed")
    assert gc.get_threshold() == (700, 10, 10) and gctuning._depth == 0


def test_jobs_on_two_threads_nest_and_the_last_one_out_puts_it_back():
    inside, leave = threading.Event(), threading.Event()
    seen: list[tuple[int, ...]] = []

    def other_job() -> None:
        with fewer_collections():
            inside.set()
            leave.wait(5)
        seen.append(gc.get_threshold())

    thread = threading.Thread(target=other_job)
    with fewer_collections():
        thread.start()
        inside.wait(5)
    assert gc.get_threshold()[0] == THRESHOLD  # the other job still runs
    leave.set()
    thread.join(5)
    assert seen == [(700, 10, 10)] and gc.get_threshold() == (700, 10, 10)


@pytest.mark.parametrize("chosen", [(0, 10, 10), (200_000, 5, 5)])
def test_a_collector_switched_off_or_already_rarer_is_left_as_the_process_set_it(chosen):
    gc.set_threshold(*chosen)
    with fewer_collections():
        assert gc.get_threshold() == chosen
    assert gc.get_threshold() == chosen


def test_an_ingest_maps_under_it_and_leaves_the_threshold_as_it_was(tmp_path, site_catalog, monkeypatch):
    import json

    from kg import ingestion
    from kg.store import GraphStore

    seen: list[int] = []
    mapper = ingestion.map_gate.record_triples

    def watched(*args, **kwargs):
        seen.append(gc.get_threshold()[0])
        return mapper(*args, **kwargs)

    monkeypatch.setattr(ingestion.map_gate, "record_triples", watched)
    file = tmp_path / "catalog.json"
    file.write_text(json.dumps({**site_catalog, "records": site_catalog["records"][:30]}), encoding="utf-8")
    report = ingestion.ingest_paths(GraphStore(), [str(file)])
    assert report.records == 30 and seen == [THRESHOLD] * 30
    assert gc.get_threshold() == (700, 10, 10)
