"""The read plan (kg.validation.readplan) and the SHACL paths it walks (kg.validation.paths)."""

from __future__ import annotations

import rdflib

from kg.validation import ReadPlan, read_plan, shapes_graph
from kg.validation.paths import path_iris, path_text, walks_backwards
from kg.vocab import KG_NS

SH = rdflib.Namespace("http://www.w3.org/ns/shacl#")
PREFIXES = """@prefix sh: <http://www.w3.org/ns/shacl#> .
@prefix kg: <https://w3id.org/agent-landscape/ontology#> .
@prefix ex: <http://example.org/> .
"""


def _graph(text: str) -> rdflib.Graph:
    return rdflib.Graph().parse(data=PREFIXES + text, format="turtle")


def test_the_licence_cells_are_read_lazily_from_their_column():
    plan = read_plan(shapes_graph(cross=False))
    lazy = dict(plan.lazy)
    assert set(lazy) == {KG_NS + "cell", KG_NS + "column"}
    assert plan.bulk is not None and not set(lazy) & plan.bulk
    assert all("SELECT DISTINCT ?s ?o ?g" in query and "VALUES" in query for query in lazy.values())


def test_sparql_or_closed_shapes_read_every_triple():
    assert read_plan(shapes_graph()) == ReadPlan(None, None)  # the catalog-wide shapes use sh:sparql
    closed = read_plan(_graph("ex:S sh:targetClass ex:C ; sh:closed true ; sh:property [ sh:path ex:p ] ."))
    assert closed.predicates is None and closed.classes is None


def test_subclasses_of_the_classes_read_are_read_too():
    plan = ReadPlan(frozenset({"p"}), frozenset({"A"}))
    wider = plan.with_subclasses([("B", "A"), ("C", "B"), ("D", "X")])
    assert wider.classes == {"A", "B", "C"}
    assert ReadPlan(None, None).with_subclasses([("B", "A")]).classes is None


def test_paths_as_text_and_the_predicates_they_walk():
    graph = _graph("ex:S sh:path ( kg:cell [ sh:alternativePath ( kg:value [ sh:zeroOrMorePath kg:status ] ) ] ) .\n"
                   "ex:T sh:path [ sh:inversePath kg:cell ] .")
    forward = graph.value(rdflib.URIRef("http://example.org/S"), SH.path)
    backward = graph.value(rdflib.URIRef("http://example.org/T"), SH.path)
    assert path_text(graph, forward) == "kg:cell/(kg:value|kg:status*)"
    assert path_iris(graph, forward) == {KG_NS + "cell", KG_NS + "value", KG_NS + "status"}
    assert not walks_backwards(graph, forward) and walks_backwards(graph, backward)
    assert path_text(graph, backward) == "^kg:cell"
