"""Where each of the user's shapes is checked: by the SHACL engine, by stock pySHACL (SHACL-SPARQL), or
(our own catalog-wide rules, unchanged) by their SPARQL queries.

A targeted shape is judged with every shape it nests (sh:property, sh:node,
sh:qualifiedValueShape, sh:not, sh:and / sh:or / sh:xone): one that uses SHACL-SPARQL
anywhere (sh:sparql constraints, sh:target) or a custom constraint component goes to
one stock pySHACL run over the whole graph; every other shape is SHACL Core, for
the engine (``kg.shacl``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable

import rdflib
from rdflib import BNode, URIRef
from rdflib.collection import Collection
from rdflib.compare import isomorphic

from ..vocab import RDF, RDFS, Iris
from .paths import RDF_FIRST
from .paths import SH_NS as SH
from .rules import Rule, load_rules, shapes_graph

_RDF_TYPE = URIRef(RDF.type.value)
CLASSES = (URIRef(RDFS.Class.value), URIRef("http://www.w3.org/2002/07/owl#Class"))  # implicit class targets
TARGETS = ("targetClass", "targetNode", "targetSubjectsOf", "targetObjectsOf", "target")
NESTING = ("property", "node", "qualifiedValueShape", "not")
NESTING_LISTS = ("or", "and", "xone")


@dataclass(frozen=True)
class Locality:
    """The user's targeted shapes by where they are checked."""

    core: frozenset[Any]  # by the engine
    sparql: dict[Any, list[str]]  # by stock pySHACL, with the reasons
    ours: dict[Any, Rule]  # our catalog-wide rules, by their SPARQL queries


def targeted(graph: rdflib.Graph, shapes: Iterable[Any]) -> set[Any]:
    """The shapes that select focus nodes themselves (a target, or an implicit class target)."""
    return {s for s in shapes if any((s, SH[key], None) in graph for key in TARGETS)
            or (isinstance(s, URIRef) and any((s, _RDF_TYPE, cls) in graph for cls in CLASSES))}


def nested(graph: rdflib.Graph, shape: Any) -> set[Any]:
    """``shape`` and every shape it nests, directly or through others."""
    found, todo = {shape}, [shape]
    while todo:
        node = todo.pop()
        children = [c for key in NESTING for c in graph.objects(node, SH[key])]
        for key in NESTING_LISTS:
            for items in graph.objects(node, SH[key]):
                children += list(Collection(graph, items))
        for child in children:
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def not_core(graph: rdflib.Graph, shape: Any, custom: set[Any]) -> list[str]:
    """Why ``shape`` (with what it nests) is not SHACL Core (empty: it is)."""
    reasons = []
    if (shape, SH.target, None) in graph:
        reasons.append("SPARQL-based or custom targets (sh:target)")
    for node in nested(graph, shape):
        if (node, SH.sparql, None) in graph:
            reasons.append("SPARQL-based constraints (sh:sparql)")
        if any(p in custom for p in graph.predicates(node, None)):
            reasons.append("custom constraint components")
    return sorted(set(reasons))


def _custom_parameters(graph: rdflib.Graph) -> set[Any]:
    return {p for parameter in graph.objects(None, SH.parameter) for p in graph.objects(parameter, SH.path)}


def locality(graph: rdflib.Graph, shapes: set[Any], base: str) -> Locality:
    """Where each targeted shape of ``graph`` is checked."""
    custom = _custom_parameters(graph)
    ours = ours_unchanged(graph, base)
    core: set[Any] = set()
    sparql: dict[Any, list[str]] = {}
    for shape in targeted(graph, shapes) - set(ours):
        reasons = not_core(graph, shape, custom)
        if reasons:
            sparql[shape] = reasons
        else:
            core.add(shape)
    return Locality(frozenset(core), sparql, ours)


def without_targets(graph: rdflib.Graph, shapes: Iterable[Any]) -> rdflib.Graph:
    """A copy of ``graph`` in which ``shapes`` select no focus node (they may still be nested)."""
    dropped = set(shapes)
    copy = rdflib.Graph(bind_namespaces="none")
    for prefix, namespace in graph.namespaces():
        copy.bind(prefix, namespace)
    for s, p, o in graph:
        if s in dropped and (any(p == SH[key] for key in TARGETS) or (p == _RDF_TYPE and o in CLASSES)):
            continue
        copy.add((s, p, o))
    return copy


def ours_unchanged(graph: rdflib.Graph, base: str) -> dict[Any, Rule]:
    """Our catalog-wide rules that the user's shapes hold exactly as ours (with what they nest)."""
    ours = shapes_graph(Iris(base), local=False)
    found = {}
    for name, rule in load_rules(Iris(base)).items():
        shape = URIRef(rule.iri)
        if rule.scope == "catalog" and (shape, None, None) in graph \
                and isomorphic(_definition(graph, shape), _definition(ours, shape)):
            found[shape] = rule
    return found


def _definition(graph: rdflib.Graph, shape: Any) -> rdflib.Graph:
    """The triples that define ``shape``: its own, those of its blank nodes and of the shapes it nests."""
    out = rdflib.Graph()
    reach = nested(graph, shape)
    todo, seen = [shape], set()
    while todo:
        node = todo.pop()
        if node in seen:
            continue
        seen.add(node)
        for p, o in graph.predicate_objects(node):
            out.add((node, p, o))
            if isinstance(o, BNode) or o in reach or (p == RDF_FIRST and isinstance(o, URIRef)):
                todo.append(o)
    return out
