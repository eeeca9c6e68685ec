"""The real engines with the bundled catalog pushed, one of each per test session (pytest fixtures,
imported by tests/conftest.py): a push of 222,000 quads is the longest part of the engine tests, so
each engine is started and loaded once, and every file that asks it shares it.

- ``jena_build``: tests/jena/JenaFront.java compiled once (the server, and the strict parser of
  tests/test_sparql_portable.py), beside the class path's message files (tests/engine_servers.py).
- ``jena_loaded``: Jena TDB2 behind JenaFront, the catalog pushed by SPARQL Update.
- ``virtuoso_loaded``: Virtuoso 7, the catalog pushed by SPARQL Update (Digest), then a few graphs
  pushed again by its Graph Store endpoint over a copy tampered with (``graph_store_report``): the
  two modes, one full push.
- ``oxigraph_loaded``: the Oxigraph server (union default graph), the catalog pushed by SPARQL
  Update in 256 KiB requests.

Each yields what :func:`engine_checks.pushed` gives (``engine``, ``report``, ``outcomes``)."""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

import pytest

import engine_checks
import engine_servers
from kg.store import GraphStore
from kg.vocab import Iris

#: The graphs Virtuoso gets by Graph Store PUTs after the update push: two records the parameter
#: sets of tests/portability.py show (their rows then come from the PUT graphs) and the largest graph.
GRAPH_STORE_RECORDS = ("mem0--mem0-ai", "smolagents-memory--huggingface-co")


@pytest.fixture(scope="session")
def jena_build(tmp_path_factory) -> Path:
    """A folder with JenaFront compiled (once per session; skips where Jena or a JDK is absent)."""
    folder = tmp_path_factory.mktemp("jena-build")
    engine_servers.jena_front(folder)
    return folder


@pytest.fixture(scope="session")
def jena_loaded(tmp_path_factory, bundled_store, jena_build) -> Iterator:
    engine = engine_servers.start_jena(tmp_path_factory.mktemp("jena"), build=jena_build)
    try:
        yield engine_checks.pushed(engine, bundled_store)
    finally:
        engine.stop()


def some_graphs(store: GraphStore, iris: Iris) -> GraphStore:
    """An in-memory store with a few of ``store``'s graphs: :data:`GRAPH_STORE_RECORDS`' and the largest."""
    largest = max(store.named_graphs(), key=store.graph_size)
    chosen = [iris.record_graph(record) for record in GRAPH_STORE_RECORDS] + [largest]
    some = GraphStore()
    for graph in chosen:
        some.add(store.quads(graph))
    assert len(some.named_graphs()) == len(chosen)
    return some


@pytest.fixture(scope="session")
def virtuoso_loaded(tmp_path_factory, bundled_store, iris) -> Iterator:
    engine = engine_servers.start_virtuoso(tmp_path_factory.mktemp("virtuoso"))
    try:
        loaded = engine_checks.pushed(engine, bundled_store)
        some = some_graphs(bundled_store, iris)
        engine_checks.tamper(engine, some.named_graphs())  # a PUT replaces what was there
        loaded.graph_store_report = engine_checks.pushed(engine, some, graph_store=engine.graph_store).report
        loaded.graph_store_graphs = [g.value for g in some.named_graphs()]
        yield loaded
    finally:
        engine.stop()


@pytest.fixture(scope="session")
def oxigraph_loaded(tmp_path_factory, bundled_store) -> Iterator:
    engine = engine_servers.start_oxigraph(tmp_path_factory.mktemp("oxigraph-loaded"))
    try:
        yield engine_checks.pushed(engine, bundled_store, batch_bytes=256 * 1024)
    finally:
        engine.stop()
