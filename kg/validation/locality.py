"""Which of the user's shapes are record-local: checked over record parts with the same results as
one whole-graph run (the proof is in ``kg.validation.user_shapes``), and which are not.

A targeted shape is judged with every shape it nests (sh:property, sh:node,
sh:qualifiedValueShape, sh:not, sh:and / sh:or / sh:xone). Our own catalog-wide
rules, when the user's shapes hold them unchanged, are answered by their SPARQL
queries as in our split run.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable

import rdflib
from rdflib import BNode, URIRef
from rdflib.collection import Collection
from rdflib.compare import isomorphic

from ..vocab import RDF, RDFS, Iris
from .paths import RDF_FIRST, path_iris, walks_backwards
from .paths import SH_NS as SH
from .rules import Rule, load_rules, shapes_graph

_RDF_TYPE = URIRef(RDF.type.value)
CLASSES = (URIRef(RDFS.Class.value), URIRef("http://www.w3.org/2002/07/owl#Class"))  # implicit class targets
TARGETS = ("targetClass", "targetNode", "targetSubjectsOf", "targetObjectsOf", "target")
NESTING = ("property", "node", "qualifiedValueShape", "not")
NESTING_LISTS = ("or", "and", "xone")


@dataclass(frozen=True)
class SplitPlan:
    """How to find and complete a part's focus nodes, for the record-local shapes.

    ``traverse``: the predicates walked forward from a focus node (every path's,
    sh:targetObjectsOf's, and rdf:type / rdfs:subClassOf for the class checks).
    """

    target_classes: frozenset[str]
    subjects_of: frozenset[str]
    objects_of: frozenset[str]
    traverse: frozenset[str]


@dataclass(frozen=True)
class Locality:
    """The user's targeted shapes sorted by how they are checked."""

    local: frozenset[Any]  # over record parts
    whole: dict[Any, list[str]]  # in one whole-graph run, with the reasons
    ours: dict[Any, Rule]  # our catalog-wide rules, by their SPARQL queries
    split: SplitPlan | None  # the plan of the record parts (None: no local shape)


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


def not_local(graph: rdflib.Graph, shape: Any, custom: set[Any]) -> list[str]:
    """Why ``shape`` is not provably record-local (empty: it is). ``custom``: the parameters of the
    shapes graph's own constraint components."""
    reasons = []
    if (shape, SH.targetNode, None) in graph:
        reasons.append("sh:targetNode (a constant focus node would be checked in every part)")
    if (shape, SH.target, None) in graph:
        reasons.append("SPARQL-based or custom targets (sh:target)")
    for node in nested(graph, shape):
        if (node, SH.sparql, None) in graph:
            reasons.append("SPARQL-based constraints (sh:sparql)")
        if any(p in custom for p in graph.predicates(node, None)):
            reasons.append("custom constraint components")
        if any(walks_backwards(graph, path) for path in graph.objects(node, SH.path)):
            reasons.append("inverse paths (they read triples that other records hold)")
    return sorted(set(reasons))


def _custom_parameters(graph: rdflib.Graph) -> set[Any]:
    return {p for parameter in graph.objects(None, SH.parameter) for p in graph.objects(parameter, SH.path)}


def locality(graph: rdflib.Graph, shapes: set[Any], base: str) -> Locality:
    """How each targeted shape of ``graph`` is checked."""
    custom = _custom_parameters(graph)
    ours = ours_unchanged(graph, base)
    local: set[Any] = set()
    whole: dict[Any, list[str]] = {}
    for shape in targeted(graph, shapes) - set(ours):
        reasons = not_local(graph, shape, custom)
        if reasons:
            whole[shape] = reasons
        else:
            local.add(shape)
    return Locality(frozenset(local), whole, ours, split_plan(graph, local) if local else None)


def split_plan(graph: rdflib.Graph, local: set[Any]) -> SplitPlan:
    """The plan of the record parts for the record-local shapes ``local``."""
    implicit = {str(s) for s in local if isinstance(s, URIRef) and any((s, _RDF_TYPE, c) in graph for c in CLASSES)}
    classes = {str(c) for s in local for c in graph.objects(s, SH.targetClass)} | implicit
    objects_of = frozenset(str(p) for s in local for p in graph.objects(s, SH.targetObjectsOf))
    walked = {iri for s in local for node in nested(graph, s) for path in graph.objects(node, SH.path)
              for iri in path_iris(graph, path)}
    return SplitPlan(
        target_classes=frozenset(classes),
        subjects_of=frozenset(str(p) for s in local for p in graph.objects(s, SH.targetSubjectsOf)),
        objects_of=objects_of,
        traverse=frozenset(walked | objects_of | {RDF.type.value, RDFS.subClassOf.value}),
    )


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
