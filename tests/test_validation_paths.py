"""SHACL property paths as text (kg.shacl.paths over the engine's graph; kg.validation.paths copies an
rdflib graph's path into it: the same text) and the predicates they walk, either way."""

from __future__ import annotations

import pyoxigraph
import rdflib

from kg.shacl import Facts, path_text as engine_path_text
from kg.shacl.paths import inverse_predicates, path_predicates
from kg.validation.paths import path_text, short_iri
from kg.vocab import KG_NS

SH = rdflib.Namespace("http://www.w3.org/ns/shacl#")
TEXT = """@prefix sh: <http://www.w3.org/ns/shacl#> .
@prefix kg: <https://w3id.org/agent-landscape/ontology#> .
@prefix ex: <http://example.org/> .
ex:S sh:path ( kg:cell [ sh:alternativePath ( kg:value [ sh:zeroOrMorePath kg:status ] ) ] ) .
ex:T sh:path [ sh:inversePath kg:cell ] .
ex:U sh:path [ sh:oneOrMorePath ( kg:cell [ sh:inversePath kg:license ] ) ] .
ex:V sh:path [ sh:zeroOrOnePath [ sh:alternativePath ( kg:value kg:status ) ] ] .
"""


def test_paths_as_text_and_the_predicates_they_walk():
    graph = rdflib.Graph().parse(data=TEXT, format="turtle")
    texts = {shape: path_text(graph, graph.value(rdflib.URIRef(f"http://example.org/{shape}"), SH.path))
             for shape in "STUV"}
    assert texts == {"S": "kg:cell/(kg:value|kg:status*)", "T": "^kg:cell",
                     "U": "(kg:cell/^kg:license)+", "V": "(kg:value|kg:status)?"}
    assert path_text(graph, rdflib.URIRef(KG_NS + "cell")) == "kg:cell"
    facts = Facts().add(pyoxigraph.parse(TEXT.encode("utf-8"), format=pyoxigraph.RdfFormat.TURTLE))
    paths = {shape: facts.value(pyoxigraph.NamedNode(f"http://example.org/{shape}"),
                                pyoxigraph.NamedNode(str(SH.path))) for shape in "SU"}
    assert path_predicates(facts, paths["S"]) == {KG_NS + "cell", KG_NS + "value", KG_NS + "status"}
    assert inverse_predicates(facts, paths["S"]) == set()
    assert inverse_predicates(facts, paths["U"]) == {KG_NS + "license"}


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
