"""Projections: NetworkX graphs of the stored systems, read through the named queries.

Projections are read from the store through named queries
(``queries/select-analysis-*.rq``), never from the JSON files:

* ``system_graph``: systems and their typed edges, undirected (the catalog's
  projection) or directed, for any choice of edge types;
* ``vendor_graph``: systems folded into their vendors, weighted by the number of
  system edges between two vendors;
* ``protocol_graph`` and ``license_graph``: bipartite system-protocol and
  system-licence graphs.

>>> snapshot = Snapshot({"a": SystemInfo("a", "urn:a", "A"), "b": SystemInfo("b", "urn:b", "B")},
...                     [("a", "b", "built-on"), ("b", "a", "cites"), ("a", "a", "cites")])
>>> sorted(project_systems(snapshot).edges(data=True))
[('a', 'b', {'weight': 2, 'types': ['built-on', 'cites']})]
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Iterator, Mapping

import networkx as nx
from pyoxigraph import QueryBoolean, QueryTriples

from .. import queries
from ..errors import QueryError, UsageError
from ..store import GraphStore
from ..vocab import EDGE_PROPERTIES, Iris, system_key

#: Edge types of the catalog, in the vocabulary's order.
EDGE_TYPES: tuple[str, ...] = tuple(EDGE_PROPERTIES)
#: Protocol support modes that count as support in the system-protocol graph.
SUPPORTING_MODES: tuple[str, ...] = ("native", "adapter", "client")


# ---------------------------------------------------------------------------
# Reading the store

@dataclass(frozen=True)
class SystemInfo:
    """One system as the projections see it."""

    id: str
    iri: str
    name: str
    section: str | None = None
    vendor: str | None = None  # the vendor key (its registrable domain or GitHub owner)
    vendor_name: str | None = None


@dataclass
class Snapshot:
    """The systems and typed edges of a store, read once through the named queries.

    ``relations`` holds (source, target, type) with ids for record ends and the
    IRI for an end that is not a record.
    """

    systems: dict[str, SystemInfo]
    relations: list[tuple[str, str, str]]


def _select(store: GraphStore, name: str, params: Mapping[str, str], iris: Iris) -> Iterator[Any]:
    """The solutions of a named SELECT query."""
    result = queries.run(store, name, params, iris)
    if isinstance(result, (QueryBoolean, QueryTriples)):
        raise QueryError(f"query {name} is not a SELECT query")
    return iter(result)


def _text(row: Any, key: str) -> str | None:
    term = row[key]  # a query solution: None when unbound
    return None if term is None else term.value


def read_snapshot(store: GraphStore, iris: Iris | None = None) -> Snapshot:
    """Systems and relations of ``store`` (queries select-analysis-systems, -vendors and -relations)."""
    iris = iris or Iris()
    vendors = {row["vendor"].value: (row["vendorKey"].value, row["vendorName"].value)
               for row in _select(store, "select-analysis-vendors", {}, iris)}
    systems: dict[str, SystemInfo] = {}
    by_iri: dict[str, str] = {}
    for row in _select(store, "select-analysis-systems", {}, iris):
        iri = row["system"].value
        key = system_key(iri)
        vendor = _text(row, "vendor")
        vendor_key, vendor_name = vendors.get(vendor, (vendor, None)) if vendor is not None else (None, None)
        info = SystemInfo(id=key, iri=iri, name=_text(row, "name") or key, section=_text(row, "section"),
                          vendor=vendor_key, vendor_name=vendor_name)
        systems[info.id] = info
        by_iri[info.iri] = info.id
    # the query leaves the order free: edges go into the graphs by source, type and target IRI
    edges = sorted((row["source"].value, row["type"].value, row["target"].value)
                   for row in _select(store, "select-analysis-relations", {}, iris))
    relations = [(by_iri.get(source, source), by_iri.get(target, target), edge_type)
                 for source, edge_type, target in edges]
    return Snapshot(dict(sorted(systems.items())), relations)


def chosen_edge_types(edge_types: Iterable[str] | None) -> tuple[str, ...] | None:
    """The edge types asked for, checked against ``EDGE_TYPES``, duplicates dropped (``None``: all)."""
    if edge_types is None:
        return None
    chosen = tuple(dict.fromkeys(edge_types))
    unknown = [t for t in chosen if t not in EDGE_TYPES]
    if unknown:
        raise UsageError(f"unknown edge type {', '.join(unknown)}; known: {', '.join(EDGE_TYPES)}")
    return chosen or None


# ---------------------------------------------------------------------------
# Projections


def project_systems(snapshot: Snapshot, edge_types: Iterable[str] | None = None, *,
                    directed: bool = False) -> nx.Graph:
    """The system graph of a snapshot (see ``system_graph``)."""
    types = chosen_edge_types(edge_types)
    graph: nx.Graph = nx.DiGraph() if directed else nx.Graph()
    for info in snapshot.systems.values():
        graph.add_node(info.id, kind="system", name=info.name, section=info.section, vendor=info.vendor)
    for source, target, edge_type in snapshot.relations:
        if types is not None and edge_type not in types:
            continue
        if source == target or source not in snapshot.systems or target not in snapshot.systems:
            continue
        if graph.has_edge(source, target):
            data = graph.edges[source, target]
            data["weight"] += 1
            if edge_type not in data["types"]:
                data["types"].append(edge_type)
        else:
            graph.add_edge(source, target, weight=1, types=[edge_type])
    return graph


def system_graph(store: GraphStore, edge_types: Iterable[str] | None = None, *, directed: bool = False,
                 iris: Iris | None = None) -> nx.Graph:
    """Systems as nodes (keyed by id; attributes name, section, vendor) and their edges.

    ``edge_types`` picks the edge types (default: all). Undirected (the default),
    parallel and reverse edges collapse into one edge; directed, edge A -> B means
    "A <type> B" and reverse edges stay apart. Each edge carries ``types`` (the
    edge types it stands for) and ``weight`` (how many typed edges). Self-loops and
    edges to ids that are not records are left out.
    """
    return project_systems(read_snapshot(store, iris), edge_types, directed=directed)


def vendor_graph(store: GraphStore, edge_types: Iterable[str] | None = None, *, directed: bool = False,
                 iris: Iris | None = None) -> nx.Graph:
    """Systems folded into their vendors; an edge's ``weight`` is the number of system edges.

    Nodes are vendor keys (attributes ``label``, ``systems``: how many systems the
    vendor has, ``internal``: edges between the vendor's own systems, which are
    not self-loops of the graph). Systems without a known vendor are left out.
    """
    snapshot = read_snapshot(store, iris)
    types = chosen_edge_types(edge_types)
    graph: nx.Graph = nx.DiGraph() if directed else nx.Graph()
    for info in snapshot.systems.values():
        if info.vendor is None:
            continue
        if info.vendor not in graph:
            graph.add_node(info.vendor, kind="vendor", label=info.vendor_name or info.vendor, systems=0, internal=0)
        graph.nodes[info.vendor]["systems"] += 1
    for source, target, edge_type in snapshot.relations:
        if types is not None and edge_type not in types:
            continue
        a, b = snapshot.systems.get(source), snapshot.systems.get(target)
        if a is None or b is None or a.vendor is None or b.vendor is None or source == target:
            continue
        if a.vendor == b.vendor:
            graph.nodes[a.vendor]["internal"] += 1
        elif graph.has_edge(a.vendor, b.vendor):
            graph.edges[a.vendor, b.vendor]["weight"] += 1
        else:
            graph.add_edge(a.vendor, b.vendor, weight=1)
    return graph


def _bipartite(snapshot: Snapshot, links: Iterable[tuple[str, str, str, dict]], kind: str) -> nx.Graph:
    graph = nx.Graph()
    for info in snapshot.systems.values():
        graph.add_node(info.id, kind="system", bipartite=0, name=info.name, section=info.section)
    for system, node, label, data in links:
        if system not in snapshot.systems:
            continue
        if node not in graph:
            graph.add_node(node, kind=kind, bipartite=1, label=label)
        graph.add_edge(system, node, **data)
    return graph


def protocol_graph(store: GraphStore, modes: Iterable[str] = SUPPORTING_MODES, *,
                   iris: Iris | None = None) -> nx.Graph:
    """Bipartite graph of systems (``bipartite=0``) and the protocols they support (``bipartite=1``).

    Protocol nodes are keyed by IRI (attribute ``label``: MCP, A2A, OpenTelemetry);
    an edge's ``mode`` is the support mode. ``modes`` picks which modes make an
    edge (default: native, adapter and client support).
    """
    iris = iris or Iris()
    snapshot = read_snapshot(store, iris)
    by_iri = {info.iri: info.id for info in snapshot.systems.values()}
    wanted = set(modes)
    links: list[tuple[str, str, str, dict]] = []
    # by default the query returns supporting rows only; other modes need every row
    every = {"every": "true"} if wanted - {"native", "adapter", "client"} else {}
    for row in _select(store, "select-analysis-protocols", every, iris):
        mode = _text(row, "mode")
        if mode in wanted:
            protocol = row["protocol"].value
            links.append((by_iri.get(row["system"].value, ""), protocol,
                          _text(row, "protocolName") or protocol, {"mode": mode}))
    links.sort(key=lambda link: link[:2])  # the query leaves the order free
    return _bipartite(snapshot, links, "protocol")


def license_graph(store: GraphStore, *, iris: Iris | None = None) -> nx.Graph:
    """Bipartite graph of systems (``bipartite=0``) and their licences (``bipartite=1``).

    Licence nodes are keyed by IRI (SPDX IRIs, or the dataset's proprietary and
    unknown licences), with attributes ``label`` and ``osi_approved``.
    """
    iris = iris or Iris()
    snapshot = read_snapshot(store, iris)
    by_iri = {info.iri: info.id for info in snapshot.systems.values()}
    # (system IRI, licence IRI, label, OSI approval); the query leaves the order free
    rows = sorted((row["system"].value, row["license"].value, _text(row, "licenseName"), _text(row, "osiApproved"))
                  for row in _select(store, "select-analysis-licenses", {}, iris))
    links: list[tuple[str, str, str, dict]] = [(by_iri.get(system, ""), licence, label or licence, {})
                                                for system, licence, label, _ in rows]
    graph = _bipartite(snapshot, links, "license")
    for _, licence, _, osi in rows:
        if osi is not None and licence in graph:
            graph.nodes[licence]["osi_approved"] = osi == "true"
    return graph


