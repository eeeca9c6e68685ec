"""Targets: the focus nodes a shape selects, and SHACL's class membership (rdf:type over rdfs:subClassOf*).

sh:targetNode (the node itself, in the data or not), sh:targetClass and the implicit
class target of a shape that is a class (the SHACL instances of the class: typed with
it or with a subclass of it, the hierarchy read from the data graph), sh:targetSubjectsOf
and sh:targetObjectsOf. Focus nodes are found among a ``Facts``' own triples: over a
base layer (the shared resources under one record) only the record's nodes are focus nodes.
"""

from __future__ import annotations

from typing import Iterable

from pyoxigraph import NamedNode

from .graph import RDF_TYPE, SH, SUBCLASS_OF, Facts, Term, distinct

KINDS = ("targetNode", "targetClass", "targetSubjectsOf", "targetObjectsOf")
TARGET_KEYS = {kind: NamedNode(SH + kind) for kind in KINDS}


class Hierarchy:
    """The class hierarchy: rdfs:subClassOf pairs given once (an ontology), and those the data states."""

    def __init__(self, pairs: Iterable[tuple[Term, Term]] = ()) -> None:
        self.given: dict[Term, set[Term]] = {}
        for sub, sup in pairs:
            self.given.setdefault(sub, set()).add(sup)
        self._cache: dict[Term, frozenset[Term]] = {}

    def supers(self, facts: Facts, cls: Term) -> frozenset[Term]:
        """``cls`` and every class it is a subclass of (transitively)."""
        if not facts.subclassing:
            found = self._cache.get(cls)
            if found is None:
                found = self._cache[cls] = self._walk(None, cls)
            return found
        return self._walk(facts, cls)

    def _walk(self, facts: Facts | None, cls: Term) -> frozenset[Term]:
        found, todo = {cls}, [cls]
        while todo:
            node = todo.pop()
            more = set(self.given.get(node, ()))
            if facts is not None:
                more.update(facts.objects(node, SUBCLASS_OF))
            for sup in more:
                if sup not in found:
                    found.add(sup)
                    todo.append(sup)
        return frozenset(found)

    def is_instance(self, facts: Facts, node: Term, cls: Term) -> bool:
        """True when ``node`` is a SHACL instance of ``cls`` in ``facts``."""
        return any(cls in self.supers(facts, t) for t in facts.objects(node, RDF_TYPE))


def focus_nodes(facts: Facts, hierarchy: Hierarchy, kind: str, value: Term) -> list[Term]:
    """The focus nodes of one target among the own triples of ``facts``."""
    if kind == "targetNode":
        return [value]
    if kind == "targetClass":
        return distinct(s for cls, subjects in facts.instances.items()
                        if value in hierarchy.supers(facts, cls) for s in subjects)
    if kind == "targetSubjectsOf":
        return facts.subjects_of(value)
    return facts.objects_of(value)
