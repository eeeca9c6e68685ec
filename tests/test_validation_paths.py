"""SHACL property paths as text (kg.validation.paths over rdflib, kg.shacl.paths over the engine's
graph: the same text) and the predicates they walk."""

from __future__ import annotations

import pyoxigraph
import rdflib

from kg.shacl import Facts, path_text as engine_path_text
from kg.validation.paths import path_iris, path_text, short_iri, walks_backwards
from kg.vocab import KG_NS

SH = rdflib.Namespace("http://www.w3.org/ns/shacl#")
TEXT = """@prefix sh: <http://www.w3.org/ns/shacl#> .
@prefix kg: <https://w3id.org/agent-landscape/ontology#> .
@prefix ex: <http://example.org/> .
ex:S sh:path ( kg:cell [ sh:alternativePath ( kg:value [ sh:zeroOrMorePath kg:status ] ) ] ) .
ex:T sh:path [ sh:inversePath kg:cell ] .
ex:U sh:path [ sh:oneOrMorePath ( kg:cell [ sh:inversePath ex:p ] ) ] .
ex:V sh:path [ sh:zeroOrOnePath [ sh:alternativePath ( kg:value kg:status ) ] ] .
"""


def test_paths_as_text_and_the_predicates_they_walk():
    graph = rdflib.Graph().parse(data=TEXT, format="turtle")
    forward = graph.value(rdflib.URIRef("http://example.org/S"), SH.path)
    backward = graph.value(rdflib.URIRef("http://example.org/T"), SH.path)
    assert path_text(graph, forward) == "kg:cell/(kg:value|kg:status*)"
    assert path_iris(graph, forward) == {KG_NS + "cell", KG_NS + "value", KG_NS + "status"}
    assert not walks_backwards(graph, forward) and walks_backwards(graph, backward)
    assert path_text(graph, backward) == "^kg:cell"


def test_the_engine_writes_every_path_as_kg_does():
    graph = rdflib.Graph().parse(data=TEXT, format="turtle")
    triples = list(pyoxigraph.parse(TEXT.encode("utf-8"), format=pyoxigraph.RdfFormat.TURTLE))
    facts = Facts(outgoing=True).add(triples)
    path = pyoxigraph.NamedNode(str(SH.path))
    for shape in "STUV":
        node = pyoxigraph.NamedNode(f"http://example.org/{shape}")
        expected = path_text(graph, graph.value(rdflib.URIRef(node.value), SH.path))
        assert engine_path_text(facts, facts.value(node, path), short_iri) == expected
    assert expected == "(kg:value|kg:status)?"
