"""The seed record's graph matches the reviewed golden Turtle file, compared as graphs."""

from __future__ import annotations

from pathlib import Path

import rdflib
from rdflib.compare import graph_diff, isomorphic

from kg.ingestion import ingest_paths
from kg.store import GraphStore
from kg.vocab import Iris

GOLDEN = Path(__file__).parent / "golden"


def _record_graph(case: Path, record_id: str) -> rdflib.Graph:
    store, iris = GraphStore(), Iris()
    ingest_paths(store, [str(case / "input.json")])
    quads = list(store.quads(iris.record_graph(record_id))) + list(store.quads(iris.shared_graph))
    text = "".join(f"{q.subject} {q.predicate} {q.object} .\n" for q in quads)
    return rdflib.Graph().parse(data=text, format="nt")


def test_seed_record_matches_golden_graph():
    case = GOLDEN / "seed"
    actual = _record_graph(case, "smolagents-memory--huggingface-co")
    expected = rdflib.Graph().parse(case / "expected.ttl", format="turtle")
    if not isomorphic(actual, expected):
        _, only_actual, only_expected = graph_diff(actual, expected)
        raise AssertionError(
            f"graph differs from golden: {len(only_actual)} extra triples, {len(only_expected)} missing; "
            f"e.g. extra {sorted(map(str, only_actual))[:3]}, missing {sorted(map(str, only_expected))[:3]}")
