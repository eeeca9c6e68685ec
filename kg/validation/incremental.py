"""The catalog-wide rules after a change to some records: checked only where the change can reach.

A full run answers each catalog-wide rule by its query over the whole store
(``queries/check-*.rq``); after records changed (re-ingested, added or removed,
the edges as they were) only these results can differ:

* ``RelationSourceIsSystem`` / ``RelationTargetIsSystem``: the edges that start or
  end at a changed record (found by the store's object index);
* ``UniqueSystemIdentifier``: the ids of the changed records (and the ids their
  systems state now);
* ``UniqueEdge`` reads the edges only: unchanged.

Every other result is kept from the report before the change. The answers are
those of the queries (tests/test_incremental.py compares them on generated
catalogs with random changes). A catalog-wide rule this module does not know
is run in full by its query.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Sequence

from pyoxigraph import Literal, NamedNode

from ..store import GraphStore
from ..vocab import DCTERMS, KG, RDF, RDFS, Iris
from .report import Owner, Result, make_result, term_text
from .rules import Rule

EDGE_ENDS = {"check-relation-source": KG.source, "check-relation-target": KG.target}
UNIQUE_ID = "check-unique-identifier"
EDGES_ONLY = {"check-unique-edge"}  # read the relations alone: a record change cannot change them


def subclasses(store: GraphStore, cls: NamedNode) -> set[Any]:
    """``cls`` and its subclasses (rdfs:subClassOf, transitively, in any graph): what
    ``rdf:type/rdfs:subClassOf*`` reaches it from."""
    found: set[Any] = {cls}
    todo: list[Any] = [cls]
    while todo:
        for quad in store.match(None, RDFS.subClassOf, todo.pop(), None):
            if quad.subject not in found:
                found.add(quad.subject)
                todo.append(quad.subject)
    return found


def _is_a(store: GraphStore, classes: set[Any]) -> Callable[[Any], bool]:
    def test(node: Any) -> bool:
        return not isinstance(node, Literal) and any(store.contains(node, RDF.type, c) for c in classes)
    return test


class CatalogChange:
    """The catalog-wide results of the store after the records ``changed`` changed."""

    def __init__(self, store: GraphStore, iris: Iris, changed: Sequence[str]) -> None:
        self.store, self.iris, self.owner = store, iris, Owner(iris)
        self.changed = set(changed)
        self.systems = [iris.system(i) for i in sorted(self.changed)]
        self.is_system = _is_a(store, subclasses(store, KG.System))
        self.is_relation = _is_a(store, subclasses(store, KG.Relation))

    def results(self, rule: Rule, before: Iterable[Result],
                full: Callable[[Rule], list[Result]]) -> list[Result]:
        """The results of ``rule`` now: those of ``before`` it cannot change, and the new ones."""
        before = [r for r in before if r.rule == rule.name]
        if rule.check in EDGES_ONLY:
            return before
        if rule.check in EDGE_ENDS:
            return self._edge_ends(rule, EDGE_ENDS[rule.check], before)
        if rule.check == UNIQUE_ID:
            return self._unique_ids(rule, before)
        return full(rule)

    def _result(self, rule: Rule, focus: Any, value: Any) -> Result:
        return make_result(self.owner, rule.name, term_text(focus), rule.path,
                           term_text(value) if value is not None else None, rule.component or "", rule.severity)

    def _edge_ends(self, rule: Rule, end: NamedNode, before: list[Result]) -> list[Result]:
        """Edges whose ``end`` is not a record, for the edges that touch a changed record."""
        touching = {q.subject for system in self.systems for predicate in (KG.source, KG.target)
                    for q in self.store.match(None, predicate, system)}
        touching = {r for r in touching if self.is_relation(r)}
        texts = {term_text(r) for r in touching}
        kept = [r for r in before if r.focus not in texts]
        found = {(q.subject, q.object) for relation in touching for q in self.store.match(relation, end, None)
                 if not self.is_system(q.object)}
        return kept + [self._result(rule, focus, value) for focus, value in sorted(found, key=str)]

    def _unique_ids(self, rule: Rule, before: list[Result]) -> list[Result]:
        """Ids more than one record has, among the ids of the changed records."""
        ids: set[Any] = {Literal(i) for i in self.changed}
        ids |= {q.object for system in self.systems for q in self.store.match(system, DCTERMS.identifier, None)}
        texts = {term_text(i) for i in ids}
        kept = [r for r in before if r.focus not in texts]
        found = []
        for value in sorted(ids, key=str):
            holders = {q.subject for q in self.store.match(None, DCTERMS.identifier, value) if self.is_system(q.subject)}
            if len(holders) > 1:
                found.append(self._result(rule, value, None))
        return kept + found
