"""A few records as they were at a changeset, in a store of their own (in memory).

The pages of ``show`` and ``compare`` take ``?at=N``: the query runs on a store that holds the
records it names as they were right after changeset N (undoing the later changesets, as ``kg
checkout`` does, but only for those records: a record no later changeset touched is the same
now), the edges that touch them as they were then, the shared resources (vendors, columns,
sections, licences) and the ontology as they are now, and the id, name and type of every other
system (so that an edge's other end has its name). A record that did not exist then is
:class:`~kg.errors.NotFound`.
"""

from __future__ import annotations

from typing import Iterable

from pyoxigraph import Quad

from ..errors import NotFound, UsageError
from ..mapping import record_quads, relation_quads
from ..records import edge_from_json, record_from_json
from ..store import GraphStore
from ..vocab import DCTERMS, KG, RDF, SCHEMA, Iris
from .snapshots import current, undo
from .log import changeset_at, changeset_numbers


def records_at(store: GraphStore, iris: Iris, number: int, ids: Iterable[str]) -> GraphStore:
    """An in-memory store of the records ``ids`` as they were right after changeset ``number``."""
    wanted = sorted(set(ids))
    known = changeset_numbers(store, iris)
    if number not in known:
        raise UsageError(f"no changeset {number} in the store (it has {'1..' + str(known[-1]) if known else 'none'})")
    later = [changeset_at(store, iris, n) for n in reversed(known) if n > number]
    touched = {change.record_id for changeset in later for change in changeset.records}
    snapshot = current(store, iris, touched)
    for changeset in later:  # newest first
        snapshot = undo(snapshot, changeset)
    kept = snapshot.records or {}
    quads: list[Quad] = []
    for record_id in wanted:
        if record_id in kept:
            own, shared = record_quads(record_from_json(kept[record_id]), iris)
            quads += own + shared
        elif record_id not in touched and store.has_graph(iris.record_graph(record_id)):
            quads += store.quads(iris.record_graph(record_id))
        else:
            raise NotFound(f"no record {record_id} at changeset {number} (it was added later)")
    edges = [(position, edge) for position, edge in enumerate(snapshot.edges or [])
             if edge.get("source") in wanted or edge.get("target") in wanted]
    for position, edge in edges:
        quads += relation_quads(edge_from_json(edge), position, iris)
    for graph in (iris.shared_graph, iris.ontology_graph):
        quads += store.quads(graph)
    for system in store.match(None, RDF.type, KG.System, None):  # every other system's id and name, as now
        if iris.record_graph_id(system.graph_name) not in (None, *wanted):
            quads.append(system)
            quads += store.match(system.subject, DCTERMS.identifier, None, system.graph_name)
            quads += store.match(system.subject, SCHEMA.name, None, system.graph_name)
    scratch = GraphStore()
    scratch.add(quads)
    return scratch

