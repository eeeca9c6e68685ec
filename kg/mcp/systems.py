"""One system for the tools: whether an id names one, and its record, edges and centrality as JSON.

An id that names no system is an error here, never an empty answer: the ``describe-system``
tool checks its id as the named queries check theirs (:func:`kg.lookup.resolve_values`).
"""

from __future__ import annotations

from typing import Any

from pyoxigraph import Literal, NamedNode

from ..lookup import Indexes
from ..mapping import edges_from_quads, record_from_quads
from ..output import plain_json
from ..records import edge_to_json, record_to_json
from ..store import GraphStore
from ..vocab import KG, RDF, Iris, is_record_id

def system_exists(store: GraphStore, iris: Iris, system_id: str) -> bool:
    """Whether ``system_id`` is a catalog id of a system in the store."""
    return is_record_id(system_id) and store.contains(iris.system(system_id), RDF.type, KG.System)


def require_system(store: GraphStore, iris: Iris, system_id: str) -> NamedNode:
    """The IRI of the system ``system_id``; an unknown id is NotFound with close matches
    (:mod:`kg.lookup`, as for the named queries)."""
    if not system_exists(store, iris, system_id):
        Indexes.of(store).systems().check_id(system_id)
    return iris.system(system_id)


def _edges(store: GraphStore, iris: Iris, system: NamedNode) -> list[dict[str, Any]]:
    """The edges that touch the system (both directions), as the catalog's edges file writes them."""
    graph = iris.edges_graph
    relations = {q.subject for link in (KG.source, KG.target) for q in store.match(None, link, system, graph)}
    quads = [q for relation in relations for q in store.match(relation, None, None, graph)]
    return [edge_to_json(edge) for edge in edges_from_quads(quads, iris)]


def _centrality(store: GraphStore, iris: Iris, system: NamedNode) -> dict[str, Any] | None:
    """The measures ``kg analyze --write-back`` stored for the system, by property name, if any."""
    found = {q.predicate.value.rsplit("#", 1)[-1]: plain_json(q.object)
             for q in store.match(system, None, None, iris.analysis_graph) if isinstance(q.object, Literal)}
    return dict(sorted(found.items())) or None


def describe(store: GraphStore, iris: Iris, system_id: str) -> dict[str, Any]:
    """The system's record (catalog JSON), its edges by direction, and its stored centrality."""
    system = require_system(store, iris, system_id)
    record = record_to_json(record_from_quads(store.quads(iris.record_graph(system_id)), iris, system_id))
    edges = _edges(store, iris, system)
    out: dict[str, Any] = {
        "id": system_id, "iri": system.value, "record": record,
        "edges": {"outgoing": [e for e in edges if e["source"] == system_id],
                  "incoming": [e for e in edges if e["target"] == system_id and e["source"] != system_id]},
        "centrality": _centrality(store, iris, system),
    }
    if out["centrality"] is None:
        out["centralityNote"] = ("no analysis graph for this system: run 'kg analyze --write-back' to store "
                                 "the measures, or call the analyze tool")
    return out
