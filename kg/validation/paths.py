"""SHACL property paths of an rdflib shapes graph as SPARQL property path text, by the engine's path code.

The walk of a path is written once, in ``kg.shacl.paths`` (over pyoxigraph terms); a path of
an rdflib graph is copied into the engine's graph (its blank nodes, a few triples) and written
by it, with the prefixed names of ``PATH_PREFIXES``.
"""

from __future__ import annotations

import re
from typing import Any

import pyoxigraph
import rdflib
from rdflib import BNode, URIRef

from ..shacl import Facts
from ..shacl import path_text as engine_path_text
from ..vocab import PREFIXES, RDF, SH

SH_NS = rdflib.Namespace(SH.iri)
RDF_FIRST = URIRef(RDF.first.value)
PATH_PREFIXES = {name: iri for name, iri in PREFIXES.items()
                 if name in ("kg", "rdf", "rdfs", "dcterms", "schema", "skos")}


def path_text(graph: rdflib.Graph, node: Any) -> str:
    """A SHACL property path as SPARQL property path text (prefixed names where known).

    >>> g = rdflib.Graph().parse(data='''@prefix sh: <http://www.w3.org/ns/shacl#> .
    ...   @prefix kg: <https://w3id.org/agent-landscape/ontology#> .
    ...   [] sh:path ( [ sh:inversePath kg:cell ] kg:license ) .''', format="turtle")
    >>> path_text(g, next(g.objects(None, rdflib.URIRef("http://www.w3.org/ns/shacl#path"))))
    '^kg:cell/kg:license'
    """
    if isinstance(node, URIRef):
        return short_iri(str(node))
    facts, root = _path_facts(graph, node)
    return engine_path_text(facts, root, short_iri)


def _path_facts(graph: rdflib.Graph, node: Any) -> tuple[Facts, Any]:
    """The path at ``node`` in the engine's graph: the triples of the blank nodes it is made of."""
    blanks: dict[BNode, pyoxigraph.BlankNode] = {}

    def term(value: Any) -> Any:
        if isinstance(value, URIRef):
            return pyoxigraph.NamedNode(str(value))
        if isinstance(value, BNode):
            return blanks.setdefault(value, pyoxigraph.BlankNode())
        return pyoxigraph.Literal(str(value))  # no path: written "?"

    triples, todo, seen = [], [node], set()
    while todo:
        here = todo.pop()
        if isinstance(here, BNode) and here not in seen:
            seen.add(here)
            for predicate, value in graph.predicate_objects(here):
                triples.append((term(here), term(predicate), term(value)))
                todo.append(value)
    return Facts().add_terms(triples), term(node)


def short_iri(iri: str) -> str:
    """An IRI as a prefixed name of the path prefixes, or as ``<iri>``."""
    for name, ns in PATH_PREFIXES.items():
        if iri.startswith(ns) and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_-]*", iri[len(ns):]):
            return f"{name}:{iri[len(ns):]}"
    return f"<{iri}>"
