"""Shared-resource clean-up: forget the vendors, concepts, licences ... that no record points to any more.

Shared resources are described once, in the shared graph; when the last record pointing to one
is replaced or removed, its description goes too (concept schemes stay).
"""

from __future__ import annotations

from typing import Any, Iterable

from pyoxigraph import DefaultGraph, Literal, NamedNode, Quad

from ..store import GraphStore
from ..vocab import RDF, SKOS, Iris


def drop_unused_shared(store: GraphStore, iris: Iris, described: Iterable[Any] = ()) -> None:
    """Forget shared resources (vendors, concepts, ...) that no record points to any more.

    Inside a write session on disk only the candidates are looked at: what the graphs
    the session wrote pointed to before, and the resources it described (``described``);
    every other shared resource is as used as before. Else the whole shared graph is checked."""
    written, previous = store.written_graphs(), store.previous()
    if written is not None and previous is not None:
        _drop_unused(store, iris, _candidates(previous, iris, written) | set(described))
        return
    shared = iris.shared_graph
    store.update(f"""
        DELETE {{ GRAPH {shared} {{ ?x ?p ?o }} }}
        WHERE {{
          GRAPH {shared} {{ ?x ?p ?o }}
          FILTER NOT EXISTS {{ GRAPH {shared} {{ ?x a {SKOS.ConceptScheme} }} }}
          FILTER NOT EXISTS {{ GRAPH ?g {{ ?s ?q ?x }} FILTER(?g != {shared}) }}
        }}""")


def _candidates(previous: GraphStore, iris: Iris, written: set[Any]) -> set[Any]:
    """The nodes the graphs ``written`` pointed to in the version before the session, but a
    record's own nodes (``<base>system/...``: never a shared resource). One query per 500
    graphs: reading the quads into Python, or a join with the shared graph, cost 2x to 4x."""
    graphs = sorted((g for g in written - {iris.shared_graph, iris.dataset_graph} if isinstance(g, NamedNode)),
                    key=lambda g: g.value)
    found: set[Any] = set()
    for start in range(0, len(graphs), 500):
        values = " ".join(str(g) for g in graphs[start:start + 500])  # pyoxigraph's serialiser: escaped
        rows = previous.select(f"""SELECT DISTINCT ?o WHERE {{ VALUES ?g {{ {values} }} GRAPH ?g {{ ?s ?p ?o }}
                                   FILTER(isIRI(?o) && !STRSTARTS(STR(?o), ?inside)) }}""",
                               {"inside": Literal(iris.system_prefix())})
        found |= {row["o"] for row in rows}
    return found


def _drop_unused(store: GraphStore, iris: Iris, candidates: set[Any]) -> None:
    """Remove the shared descriptions of the ``candidates`` no graph but the shared one points to
    (concept schemes stay), as the whole-graph update does for every shared resource."""
    shared = iris.shared_graph
    gone: list[Quad] = []
    for node in candidates:
        described = list(store.match(node, None, None, shared))
        if not described or store.contains(node, RDF.type, SKOS.ConceptScheme, shared):
            continue
        if any(q.graph_name != shared and not isinstance(q.graph_name, DefaultGraph)
               for q in store.match(None, None, node)):
            continue
        gone += described
    store.remove(gone)
