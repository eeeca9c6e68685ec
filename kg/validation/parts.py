"""The parts of a split run and their triples, read from the store.

A part is a few record graphs (or the other graphs: relations, shared resources)
checked in one pySHACL call. For our shapes a part holds its graphs' triples that
the read plan reads, the shared resources they reach, and the few triples of the
lazy predicates; for the user's shapes, everything about the nodes its focus
nodes reach (``closure_quads``, see ``kg.validation.user_shapes``).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any, Iterable, Iterator, Sequence

import pyoxigraph
from pyoxigraph import DefaultGraph, Literal, NamedNode

from ..store import GraphStore
from ..vocab import RDF, RDFS, Iris
from .readplan import ReadPlan, in_graphs
from .locality import SplitPlan

DEFAULT_GRAPH = ""  # the name a part uses for the store's default graph


def record_ids(store: GraphStore, iris: Iris) -> list[str]:
    """The ids of the records whose graphs the store holds."""
    return iris.stored_ids(store.named_graphs())


def part_list(store: GraphStore, iris: Iris, ids: Sequence[str] | None, with_rest: bool,
              per_call: int) -> list[tuple[str, list[str]]]:
    """(kind, graph IRIs) of each part: ``per_call`` record graphs each, and the other graphs first."""
    if ids is not None and not with_rest:  # looked up one by one: listing every graph costs the store
        stored = [g.value for g in (iris.record_graph(i) for i in sorted(set(ids))) if store.has_graph(g)]
        return [("records", stored[i:i + per_call]) for i in range(0, len(stored), per_call)]
    names = [g.value for g in store.named_graphs()]
    wanted = set(ids) if ids is not None else None
    record_graphs = [g for g in names if (found := iris.record_graph_id(g)) is not None
                     and (wanted is None or found in wanted)]
    parts = [("records", record_graphs[i:i + per_call]) for i in range(0, len(record_graphs), per_call)]
    if with_rest:
        prefix = iris.record_graph_prefix()
        rest = [g for g in names if not g.startswith(prefix) and g != iris.shared_graph.value
                and not iris.is_history_graph(g)]  # the history (kg.history) is not validated
        parts.insert(0, ("rest", rest))  # the relations: start them first
    return parts


def graph_quads(store: GraphStore, graph: NamedNode, plan: ReadPlan) -> Iterator[Any]:
    """The quads of one graph that ``plan`` reads (read by predicate and class: cheaper than filtering)."""
    if plan.bulk is None:
        yield from store.match(None, None, None, graph)
        return
    rdf_type = RDF.type.value
    for predicate in plan.bulk:
        if predicate == rdf_type and plan.classes is not None:
            for cls in plan.classes:
                yield from store.match(None, RDF.type, NamedNode(cls), graph)
        else:
            yield from store.match(None, NamedNode(predicate), None, graph)


class SharedReader(dict):
    """The shared graph's quads (as ``plan`` reads them) by subject, read from the store as they are
    asked for: for a few records, what they reach, instead of the whole shared graph."""

    def __init__(self, store: GraphStore, graph: NamedNode, plan: ReadPlan) -> None:
        super().__init__()
        self.store, self.graph, self.plan = store, graph, plan

    def __missing__(self, node: Any) -> list[Any]:
        quads = [q for q in self.store.match(node, None, None, self.graph) if _read(self.plan, q)]
        self[node] = quads
        return quads

    def __contains__(self, node: object) -> bool:
        return not isinstance(node, Literal) and bool(self[node])


def _read(plan: ReadPlan, quad: Any) -> bool:
    """Whether ``plan`` reads ``quad`` (as ``graph_quads`` selects them)."""
    if plan.bulk is None:
        return True
    predicate = quad.predicate.value
    if predicate not in plan.bulk:
        return False
    return predicate != RDF.type.value or plan.classes is None or quad.object.value in plan.classes


def by_subject(quads: Iterable[Any]) -> dict[Any, list[Any]]:
    """Quads grouped by their subject."""
    out: dict[Any, list[Any]] = defaultdict(list)
    for q in quads:
        out[q.subject].append(q)
    return dict(out)


def reached(quads: list[Any], shared: dict[Any, list[Any]]) -> list[Any]:
    """The quads of the shared resources that ``quads`` reach, directly or through each other."""
    found: list[Any] = []
    seen: set[Any] = set()
    todo = [q.object for q in quads if q.object in shared]
    while todo:
        node = todo.pop()
        if node in seen:
            continue
        seen.add(node)
        for q in shared[node]:
            found.append(q)
            if q.object in shared and q.object not in seen:
                todo.append(q.object)
    return found


def lazy_triples(store: GraphStore, plan: ReadPlan, graphs: Sequence[str] | None = None) -> dict[str, list[str]]:
    """graph IRI -> N-Triples lines of the triples of the plan's lazy predicates that matter
    (in ``graphs`` only, when given)."""
    found: dict[str, list[str]] = defaultdict(list)
    for predicate, query in plan.lazy:
        asked = [query] if graphs is None else [in_graphs(query, [NamedNode(g) for g in graphs[i:i + 500]])
                                                  for i in range(0, len(graphs), 500)]
        for text in asked:
            for row in store.select(text):
                found[row["g"].value].append(f"{row['s']} <{predicate}> {row['o']} .\n")
    return found


def payload(store: GraphStore, graphs: Sequence[str], iris: Iris) -> bytes:
    """The N-Triples of ``graphs`` and the shared graph (for stores workers cannot open)."""
    lines = []
    for graph in [iris.shared_graph.value, *graphs]:
        for q in store.quads(NamedNode(graph)):
            lines.append(f"{q.subject} {q.predicate} {q.object} .")
    return ("\n".join(lines) + "\n").encode("utf-8")


def our_part_quads(store: GraphStore, iris: Iris, plan: ReadPlan, kind: str, graphs: Sequence[str],
                   shared: dict[Any, list[Any]], lazy: list[Any]) -> list[Any]:
    """The quads of one part for our shapes: its graphs, the lazy triples, the shared resources reached.

    ``shared``: the shared graph's quads (as ``plan`` reads them) by subject.
    """
    own = [q for graph in graphs for q in graph_quads(store, NamedNode(graph), plan)]
    own += lazy
    if kind == "records":
        # only the shared resources these records reach: the shared graph grows with the
        # catalog, and loading all of it into every part made the cost per record grow with it
        return reached(own, shared) + own
    return [q for quads in shared.values() for q in quads] + own  # every shared resource, once


def rest_homes(store: GraphStore, iris: Iris, graphs: Sequence[str]) -> list[str]:
    """The graphs whose targets the "rest" part of a user-shapes run looks for: the shared graph too,
    and the default graph when it holds anything."""
    homes = [iris.shared_graph.value, *graphs]
    if next(iter(store.match(None, None, None, DefaultGraph())), None) is not None:
        homes.append(DEFAULT_GRAPH)
    return homes


def closure_quads(store: GraphStore, homes: Sequence[str], plan: SplitPlan,
                  read: frozenset[str] | None) -> list[Any]:
    """Everything (of the ``read`` predicates; None: all) the union graph says about the nodes reached
    from the focus candidates of ``homes`` along ``plan.traverse``: what the user's shapes need."""
    todo: list[Any] = []
    classes = _with_subclasses(store, plan.target_classes)
    for home in homes:
        graph = DefaultGraph() if home == DEFAULT_GRAPH else NamedNode(home)
        for cls in classes:
            todo += [q.subject for q in store.match(None, RDF.type, cls, graph)]
        for predicate in plan.subjects_of:
            todo += [q.subject for q in store.match(None, NamedNode(predicate), None, graph)]
        for predicate in plan.objects_of:  # the subject: the target triple is part of its description
            todo += [q.subject for q in store.match(None, NamedNode(predicate), None, graph)]
    seen = set(todo)
    found: list[Any] = []
    while todo:
        node = todo.pop()
        if isinstance(node, Literal):
            continue
        for q in store.match(node, None, None, None):
            predicate = q.predicate.value
            if read is not None and predicate not in read:
                continue
            found.append(pyoxigraph.Triple(q.subject, q.predicate, q.object))
            if predicate in plan.traverse and q.object not in seen:
                seen.add(q.object)
                todo.append(q.object)
    return found


def _with_subclasses(store: GraphStore, classes: Iterable[str]) -> set[Any]:
    """``classes`` and their subclasses (rdfs:subClassOf, transitively, in any graph): their
    instances are SHACL instances of the class, so focus nodes of a class target."""
    found: set[Any] = {NamedNode(c) for c in classes}
    todo = list(found)
    while todo:
        for q in store.match(None, RDFS.subClassOf, todo.pop(), None):
            if q.subject not in found:
                found.add(q.subject)
                todo.append(q.subject)
    return found
