"""Dask (kg.cluster, kg.validation.dask_run): ``kg validate --scheduler`` and the sampled betweenness of
``kg analyze --scheduler`` on a LocalCluster give what the local run gives, compared as data."""

from __future__ import annotations

import json
from pathlib import Path

import networkx as nx
import pytest

from kg import analyse, cluster
from kg.cli import main
from kg.errors import UsageError
from kg.ingestion import ingest_paths
from kg.store import GraphStore
from kg.validation import validate

distributed = pytest.importorskip("distributed")
FAILING = str(Path(__file__).resolve().parent / "shapes" / "user" / "catalog.fail.ttl")


@pytest.fixture(scope="module")
def address():
    """Two single-thread workers in this process, talking TCP: every part and result is serialised."""
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, protocol="tcp://",
                                  dashboard_address=":0") as local:
        yield local.scheduler_address


@pytest.fixture(scope="module")
def tiny_dir(tmp_path_factory, tiny_paths) -> str:
    folder = tmp_path_factory.mktemp("dask") / "kg-store"
    ingest_paths(GraphStore(folder), tiny_paths)
    return str(folder)


def _data(text: str, *drop: str) -> dict:
    found = json.loads(text)
    for key in drop:
        found.pop(key, None)
    return found


def test_validate_on_the_cluster_gives_the_local_report(address, tiny_dir, capsys):
    assert main(["validate", "--store", tiny_dir, "--format", "json", "--fail-on", "info"]) == 1
    local = _data(capsys.readouterr().out, "seconds", "timings")
    assert main(["validate", "--store", tiny_dir, "--format", "json", "--fail-on", "info",
                 "--scheduler", address]) == 1
    remote = _data(capsys.readouterr().out, "seconds", "timings")
    assert remote == local and len(local["results"]) > 100  # the tiny catalog breaks rules on purpose


def test_user_shapes_on_the_cluster_give_the_local_results(address, tiny_store, iris):
    local = validate(tiny_store, iris, shapes=[FAILING], jobs=1)
    remote = validate(tiny_store, iris, shapes=[FAILING], scheduler=address)
    assert remote.keys() == local.keys() and len(local.results) > 0 and remote.timings["jobs"] == 2


def test_sampled_betweenness_in_parts_on_the_cluster_equals_the_local_one(address):
    g = nx.barabasi_albert_graph(160, 2, seed=3)
    for backend in analyse.BACKENDS[1:]:
        local = analyse.betweenness(g, sample=150, backend=backend)  # three parts of pivots
        assert analyse.betweenness(g, sample=150, backend=backend, scheduler=address) == local


def test_analyze_on_the_cluster_gives_the_local_measures(address, tiny_dir, capsys):
    args = ["analyze", "--store", tiny_dir, "--format", "json", "--sample", "5", "-m", "betweenness"]
    assert main(args) == 0
    local = json.loads(capsys.readouterr().out)
    assert main([*args, "--scheduler", address]) == 0
    assert json.loads(capsys.readouterr().out) == local and len(local["systems"]) > 5


def test_no_scheduler_there_or_no_sample_is_a_usage_error(tiny_dir, capsys, monkeypatch):
    monkeypatch.setattr(cluster, "CONNECT_TIMEOUT_S", 1)
    assert main(["validate", "--store", tiny_dir, "--scheduler", "tcp://127.0.0.1:9"]) == 2
    assert "no Dask scheduler answers there" in capsys.readouterr().err
    with pytest.raises(UsageError, match="--sample"):
        analyse.betweenness(nx.path_graph(5), scheduler="tcp://127.0.0.1:9")
