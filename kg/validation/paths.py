"""SHACL property paths: as SPARQL property path text, and the predicates they walk."""

from __future__ import annotations

import re
from typing import Any

import rdflib
from rdflib import URIRef
from rdflib.collection import Collection

from ..vocab import PREFIXES, RDF, SH

SH_NS = rdflib.Namespace(SH.iri)
RDF_FIRST = URIRef(RDF.first.value)
PATH_PREFIXES = {name: iri for name, iri in PREFIXES.items()
                 if name in ("kg", "rdf", "rdfs", "dcterms", "schema", "skos")}
_PATH_KEYS = (SH_NS.inversePath, SH_NS.alternativePath, SH_NS.zeroOrMorePath, SH_NS.oneOrMorePath,
              SH_NS.zeroOrOnePath)


def path_iris(graph: rdflib.Graph, node: Any) -> set[str]:
    """Every predicate IRI the path names, whichever way it walks them."""
    if isinstance(node, URIRef):
        return {str(node)}
    found: set[str] = set()
    if (node, RDF_FIRST, None) in graph:
        for item in Collection(graph, node):
            found |= path_iris(graph, item)
    for key in _PATH_KEYS:
        for inner in graph.objects(node, key):
            found |= path_iris(graph, inner)
    return found


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
    if (node, RDF_FIRST, None) in graph:
        return "/".join(grouped(graph, item) for item in Collection(graph, node))
    inverse = graph.value(node, SH_NS.inversePath)
    if inverse is not None:
        return "^" + grouped(graph, inverse)
    alternatives = graph.value(node, SH_NS.alternativePath)
    if alternatives is not None:
        return "(" + "|".join(path_text(graph, item) for item in Collection(graph, alternatives)) + ")"
    for key, mark in ((SH_NS.zeroOrMorePath, "*"), (SH_NS.oneOrMorePath, "+"), (SH_NS.zeroOrOnePath, "?")):
        inner = graph.value(node, key)
        if inner is not None:
            return grouped(graph, inner) + mark
    return "?"


def grouped(graph: rdflib.Graph, node: Any) -> str:
    """The path text, in parentheses when it would not bind as one step."""
    text = path_text(graph, node)
    return f"({text})" if "/" in text or ("|" in text and not text.startswith("(")) else text


def short_iri(iri: str) -> str:
    """An IRI as a prefixed name of the path prefixes, or as ``<iri>``."""
    for name, ns in PATH_PREFIXES.items():
        if iri.startswith(ns) and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_-]*", iri[len(ns):]):
            return f"{name}:{iri[len(ns):]}"
    return f"<{iri}>"


def steps(graph: rdflib.Graph, path: Any) -> list[Any]:
    """The steps of a sequence path (a one-step path is a sequence of one)."""
    if isinstance(path, URIRef):
        return [path]
    if (path, RDF_FIRST, None) in graph:
        return list(Collection(graph, path))
    return [path]


def walks_backwards(graph: rdflib.Graph, node: Any) -> bool:
    """True when the path has an inverse step anywhere (it reads triples that point at a node)."""
    if isinstance(node, URIRef):
        return False
    if (node, SH_NS.inversePath, None) in graph:
        return True
    inner = list(Collection(graph, node)) if (node, RDF_FIRST, None) in graph else []
    for key in _PATH_KEYS[1:]:  # an alternative path's object is a list: the line above walks it
        inner += list(graph.objects(node, key))
    return any(walks_backwards(graph, item) for item in inner)
