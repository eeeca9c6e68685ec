"""Graph analysis: NetworkX projections of the stored graph, and the measures on them.

Projections are read from the store through named queries
(``queries/select-analysis-*.rq``), never from the JSON files:

* ``system_graph``: systems and their typed edges, undirected (the catalog's
  projection) or directed, for any choice of edge types;
* ``vendor_graph``: systems folded into their vendors, weighted by the number of
  system edges between two vendors;
* ``protocol_graph`` and ``license_graph``: bipartite system-protocol and
  system-licence graphs.

The measures are plain functions of NetworkX graphs (``betweenness``,
``core_numbers``, ``nucleus``, ``pagerank``, ``communities``, ``components``,
``blast_radius``, ``competition_ranks``, ``bridge_surprise``), and ``analyze``
runs them all on the store with the catalog's own conventions, so that its
numbers are the ones the catalog's web pages show:

* every record is a node; the graph is the undirected projection of all edges
  of all types; self-loops and edges whose end is not a record are dropped;
  parallel and reverse edges collapse into one adjacency;
* betweenness is Brandes on that unweighted undirected graph without
  normalisation, divided by the largest value (the top node has 1.0);
* coreness is the k-core number (isolated nodes 0); the nucleus is the set of
  nodes of the largest coreness, sorted by betweenness descending;
* the inbound count of a record is the number of edges whose target it is
  (all types, parallel edges counted);
* ranks are competition ranks by descending value (1, 1, 3); bridge surprise is
  the inbound rank minus the betweenness rank, listed where it is positive and
  betweenness is not zero, by surprise then betweenness, descending;
* remaining ties are broken by ascending id.

Exact betweenness is O(V*E). ``sample=K`` estimates it from K pivot sources
drawn with a fixed seed (NetworkX's estimator). Where python-igraph is
installed (the ``fast`` extra), betweenness and k-core run on igraph's C code
underneath (two to three orders of magnitude faster than NetworkX on exact
betweenness); the numbers are the same, and everything else stays NetworkX.

>>> g = nx.Graph([("a", "b"), ("b", "c"), ("c", "d"), ("b", "d")])
>>> g.add_node("e")
>>> core_numbers(g)
{'a': 1, 'b': 2, 'c': 2, 'd': 2, 'e': 0}
>>> nucleus(core_numbers(g), scale_by_max(betweenness(g)))
['b', 'c', 'd']
>>> competition_ranks({"x": 5, "y": 5, "z": 2})
{'x': 1, 'y': 1, 'z': 3}
"""

from __future__ import annotations

import math
import random
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable, Hashable, Iterable, Mapping, Sequence

import networkx as nx
from pyoxigraph import Literal, Quad

from . import queries
from .errors import UsageError
from .store import GraphStore
from .vocab import EDGE_PROPERTIES, KG, RDFS, Iris

#: The fixed seed of every randomised step (Louvain, betweenness pivots, layouts).
SEED = 20261129
#: Edge types of the catalog, in the vocabulary's order.
EDGE_TYPES: tuple[str, ...] = tuple(EDGE_PROPERTIES)
#: Directed dependency edges: PageRank flows along them (A -> B: A depends on B).
DEPENDENCY_TYPES: tuple[str, ...] = ("runtime-dependency", "built-on", "integrates-with", "extends", "forks")
#: Edges along which a change propagates to dependants (blast radius).
BLAST_TYPES: tuple[str, ...] = ("runtime-dependency", "built-on")
#: Protocol support modes that count as support in the system-protocol graph.
SUPPORTING_MODES: tuple[str, ...] = ("native", "adapter", "client")
#: The measures ``analyze`` can compute, by their command-line names.
MEASURES: tuple[str, ...] = (
    "betweenness", "coreness", "inbound", "outbound", "pagerank", "bridge-surprise",
    "community", "component", "blast-radius",
)
BACKENDS = ("auto", "networkx", "igraph")
_TIE_DIGITS = 9  # floats are compared at this many decimals when ranking, so ties survive float noise


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


def _text(row: Any, key: str) -> str | None:
    term = row[key]  # a query solution: None when unbound
    return None if term is None else term.value


def read_snapshot(store: GraphStore, iris: Iris | None = None) -> Snapshot:
    """Systems and relations of ``store`` (queries select-analysis-systems and -relations)."""
    iris = iris or Iris()
    systems: dict[str, SystemInfo] = {}
    by_iri: dict[str, str] = {}
    for row in queries.run(store, "select-analysis-systems", {}, iris):
        info = SystemInfo(id=row["id"].value, iri=row["system"].value,
                          name=_text(row, "name") or row["id"].value, section=_text(row, "section"),
                          vendor=_text(row, "vendorKey") or _text(row, "vendor"),
                          vendor_name=_text(row, "vendorName"))
        systems[info.id] = info
        by_iri[info.iri] = info.id
    relations = []
    for row in queries.run(store, "select-analysis-relations", {}, iris):
        source, target = row["source"].value, row["target"].value
        relations.append((by_iri.get(source, source), by_iri.get(target, target), row["type"].value))
    return Snapshot(dict(sorted(systems.items())), relations)


def _check_types(edge_types: Iterable[str] | None) -> tuple[str, ...] | None:
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
    types = _check_types(edge_types)
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
    types = _check_types(edge_types)
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
    links = []
    # by default the query returns supporting rows only; other modes need every row
    every = {"every": "true"} if wanted - {"native", "adapter", "client"} else {}
    for row in queries.run(store, "select-analysis-protocols", every, iris):
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
    links = []
    for row in queries.run(store, "select-analysis-licenses", {}, iris):
        licence = row["license"].value
        links.append((by_iri.get(row["system"].value, ""), licence, _text(row, "licenseName") or licence, {}))
    graph = _bipartite(snapshot, links, "license")
    for row in queries.run(store, "select-analysis-licenses", {}, iris):
        osi = _text(row, "osiApproved")
        if osi is not None and row["license"].value in graph:
            graph.nodes[row["license"].value]["osi_approved"] = osi == "true"
    return graph


# ---------------------------------------------------------------------------
# Measures (pure functions of NetworkX graphs)


def _igraph():
    try:
        import igraph
    except ImportError:
        return None
    return igraph


def _backend(backend: str) -> str:
    if backend not in BACKENDS:
        raise UsageError(f"unknown backend {backend!r}; known: {', '.join(BACKENDS)}")
    if backend == "auto":
        return "igraph" if _igraph() is not None else "networkx"
    if backend == "igraph" and _igraph() is None:
        raise UsageError("the igraph backend needs python-igraph: pip install 'kg[fast]'")
    return backend


def backend_name(backend: str = "auto") -> str:
    """The library that ``backend`` resolves to on this machine ("networkx" or "igraph")."""
    return _backend(backend)


def _to_igraph(graph: nx.Graph):
    igraph = _igraph()
    nodes = list(graph)
    index = {node: i for i, node in enumerate(nodes)}
    g = igraph.Graph(n=len(nodes), edges=[(index[u], index[v]) for u, v in graph.edges() if u != v],
                     directed=graph.is_directed())
    return g, nodes, index


def pivots(graph: nx.Graph, k: int, seed: int = SEED) -> list[Hashable]:
    """The ``k`` source nodes the sampled betweenness uses: NetworkX's own draw, so both backends agree."""
    if not 0 < k:
        raise UsageError("the betweenness sample must be a positive number of nodes")
    return random.Random(seed).sample(list(graph.nodes()), min(k, len(graph)))


def betweenness(graph: nx.Graph, *, sample: int | None = None, seed: int = SEED,
                backend: str = "auto") -> dict[Hashable, float]:
    """Brandes betweenness of an undirected graph, unweighted and not normalised.

    Each unordered pair of end points counts once (NetworkX's ``normalized=False``).
    With ``sample=K`` (K smaller than the number of nodes) it is NetworkX's
    estimate from K pivot sources drawn with ``seed``, scaled to the full graph.

    >>> betweenness(nx.path_graph(4), backend="networkx")
    {0: 0.0, 1: 2.0, 2: 2.0, 3: 0.0}
    """
    if graph.is_directed():
        raise UsageError("betweenness here is defined on the undirected projection")
    n = len(graph)
    sources = None
    if sample is not None and sample < n:
        sources = pivots(graph, sample, seed)
    used = _backend(backend)
    if sources is None:
        if used == "networkx":
            return nx.betweenness_centrality(graph, normalized=False, weight=None)
        g, nodes, _ = _to_igraph(graph)
        return {node: float(value) for node, value in zip(nodes, g.betweenness(directed=False))}
    # Paths from the pivots to every node, each (pivot, target) pair counted once (both libraries
    # halve undirected subset betweenness), then scaled up to all n sources: NetworkX's estimator
    # (networkx >= 3.5), whose pivots are never their own end point, hence their own scale.
    if used == "networkx":
        half = nx.betweenness_centrality_subset(graph, sources, list(graph), normalized=False, weight=None)
    else:
        g, nodes, index = _to_igraph(graph)
        values = g.betweenness(directed=False, sources=[index[s] for s in sources], targets=range(n))
        half = {node: float(value) for node, value in zip(nodes, values)}
    k, chosen = len(sources), set(sources)
    scale_pivot = (n - 1) / (k - 1) if k > 1 else 0.0
    scale_other = (n - 1) / k
    return {node: value * (scale_pivot if node in chosen else scale_other) for node, value in half.items()}


def scale_by_max(values: Mapping[Hashable, float]) -> dict[Hashable, float]:
    """Each value divided by the largest one, so the top node has 1.0 (all 0.0 when all are 0)."""
    top = max(values.values(), default=0.0)
    return {node: (value / top if top > 0 else 0.0) for node, value in values.items()}


def core_numbers(graph: nx.Graph, *, backend: str = "auto") -> dict[Hashable, int]:
    """The k-core number of every node of an undirected graph (isolated nodes 0)."""
    if graph.is_directed():
        graph = graph.to_undirected(as_view=True)
    if _backend(backend) == "networkx":
        simple = graph
        if nx.number_of_selfloops(graph):
            simple = nx.Graph(graph)
            simple.remove_edges_from(nx.selfloop_edges(simple))
        return dict(nx.core_number(simple))
    g, nodes, _ = _to_igraph(graph)
    g.simplify()
    return {node: int(c) for node, c in zip(nodes, g.coreness())}


def _key(value: float | int) -> float | int:
    return round(value, _TIE_DIGITS) if isinstance(value, float) else value


def competition_ranks(values: Mapping[Hashable, float | int]) -> dict[Hashable, int]:
    """Rank 1 for the largest value; equal values share a rank and leave a gap (1, 1, 3)."""
    ordered = sorted(values, key=lambda node: -_key(values[node]))
    ranks: dict[Hashable, int] = {}
    previous = None
    for position, node in enumerate(ordered, start=1):
        value = _key(values[node])
        if value != previous:
            rank, previous = position, value
        ranks[node] = rank
    return ranks


def nucleus(cores: Mapping[Hashable, int], betweenness_scores: Mapping[Hashable, float] | None = None) -> list:
    """The nodes of the largest coreness (none when it is 0), by betweenness descending, then id."""
    top = max(cores.values(), default=0)
    if top <= 0:
        return []
    scores = betweenness_scores or {}
    return sorted((n for n, c in cores.items() if c == top), key=lambda n: (-_key(float(scores.get(n, 0.0))), n))


def bridge_surprise(inbound: Mapping[Hashable, int],
                    betweenness_scores: Mapping[Hashable, float]) -> tuple[dict[Hashable, int], list]:
    """Inbound rank minus betweenness rank per node, and the bridge-surprise list.

    The list holds nodes whose surprise is positive and whose betweenness is not
    zero, by surprise descending, then betweenness descending, then id.

    >>> bridge_surprise({"hub": 9, "a": 1, "b": 1, "bridge": 2}, {"hub": 1.0, "a": 0.0, "b": 0.0, "bridge": 0.8})
    ({'hub': 0, 'a': 0, 'b': 0, 'bridge': 0}, [])
    """
    in_rank = competition_ranks(inbound)
    bw_rank = competition_ranks(betweenness_scores)
    surprise = {node: in_rank[node] - bw_rank[node] for node in betweenness_scores}
    listed = [n for n in surprise if surprise[n] > 0 and betweenness_scores[n] > 0]
    listed.sort(key=lambda n: (-surprise[n], -_key(float(betweenness_scores[n])), n))
    return surprise, listed


def pagerank(graph: nx.DiGraph, *, alpha: float = 0.85) -> dict[Hashable, float]:
    """PageRank of a directed graph, weighted by the edges' ``weight`` (1 when absent).

    Runs NetworkX's power iteration (SciPy); an empty graph gives ``{}``.
    """
    if len(graph) == 0:
        return {}
    return nx.pagerank(graph, alpha=alpha, weight="weight", tol=1e-10, max_iter=1000)


def numbered(groups: Iterable[Iterable[Hashable]]) -> dict[Hashable, int]:
    """Group number per node: groups numbered from 1 by size (largest first), then smallest member."""
    ordered = sorted((sorted(g) for g in groups), key=lambda g: (-len(g), g[0]))
    return {node: number for number, members in enumerate(ordered, start=1) for node in members}


def communities(graph: nx.Graph, *, seed: int = SEED, resolution: float = 1.0) -> dict[Hashable, int]:
    """Louvain community number per node (unweighted, fixed seed); see ``numbered``."""
    graph = graph.to_undirected(as_view=True) if graph.is_directed() else graph
    found = nx.community.louvain_communities(graph, weight=None, resolution=resolution, seed=seed)
    return numbered(found)


def components(graph: nx.Graph) -> dict[Hashable, int]:
    """Connected-component number per node (weakly connected when directed); see ``numbered``."""
    if graph.is_directed():
        return numbered(nx.weakly_connected_components(graph))
    return numbered(nx.connected_components(graph))


def dependants(graph: nx.DiGraph, node: Hashable) -> set:
    """Every node that reaches ``node`` along the directed edges: what depends on it."""
    return nx.ancestors(graph, node)


def blast_radius(graph: nx.DiGraph) -> dict[Hashable, int]:
    """How many nodes reach each node along directed edges (A -> B: A depends on B).

    Counts transitive dependants of every node at once: strongly connected
    components are condensed, then ancestor sets flow down the DAG as bitsets
    (bits numbered in topological order, each set freed once its last successor
    has read it).

    >>> blast_radius(nx.DiGraph([("app", "lib"), ("lib", "db"), ("tool", "db")]))
    {'app': 0, 'lib': 1, 'db': 3, 'tool': 0}
    """
    if not graph.is_directed():
        raise UsageError("blast radius needs a directed graph")
    dag = nx.condensation(graph)
    order = list(nx.topological_sort(dag))
    bits: dict[int, int] = {}
    position = 0
    for c in order:
        size = len(dag.nodes[c]["members"])
        bits[c] = ((1 << size) - 1) << position
        position += size
    waiting = {c: dag.out_degree(c) for c in order}
    reach: dict[int, int] = {}
    counts: dict[Hashable, int] = {}
    for c in order:
        above = 0
        for p in dag.predecessors(c):
            above |= reach[p] | bits[p]
            waiting[p] -= 1
            if waiting[p] == 0:
                del reach[p]
        members = dag.nodes[c]["members"]
        total = above.bit_count() + len(members) - 1
        for node in members:
            counts[node] = total
        if waiting[c]:
            reach[c] = above
    return {node: counts[node] for node in graph}


def edge_counts(snapshot: Snapshot) -> tuple[dict[str, Counter], dict[str, Counter]]:
    """Inbound and outbound edge counts per record and edge type (self-loops left out)."""
    inbound: dict[str, Counter] = {node: Counter() for node in snapshot.systems}
    outbound: dict[str, Counter] = {node: Counter() for node in snapshot.systems}
    for source, target, edge_type in snapshot.relations:
        if source == target:
            continue
        if target in inbound:
            inbound[target][edge_type] += 1
        if source in outbound:
            outbound[source][edge_type] += 1
    return inbound, outbound


# ---------------------------------------------------------------------------
# The whole analysis


@dataclass
class SystemScores:
    """Every measure of one system; a measure that was not asked for is ``None``."""

    id: str
    name: str
    section: str | None
    vendor: str | None
    degree: int  # neighbours in the undirected projection
    inbound: int | None = None
    outbound: int | None = None
    inbound_by_type: dict[str, int] | None = None
    outbound_by_type: dict[str, int] | None = None
    betweenness: float | None = None  # divided by the largest value
    betweenness_raw: float | None = None
    betweenness_rank: int | None = None
    inbound_rank: int | None = None
    bridge_surprise: int | None = None
    coreness: int | None = None
    in_nucleus: bool | None = None
    pagerank: float | None = None
    community: int | None = None
    component: int | None = None
    component_size: int | None = None
    blast_radius: int | None = None

    def as_json(self) -> dict[str, Any]:
        return {_camel(k): v for k, v in asdict(self).items()}


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


@dataclass
class Analysis:
    """The result of ``analyze``: per-system scores and the graph-level figures."""

    systems: dict[str, SystemScores]
    measures: tuple[str, ...]
    graph: nx.Graph  # the undirected projection the measures ran on
    edge_types: tuple[str, ...]
    node_count: int
    adjacency_count: int  # unique undirected adjacencies
    edge_count: int  # typed edges between two distinct records
    max_coreness: int | None = None
    coreness_distribution: dict[int, int] | None = None
    nucleus: list[str] | None = None
    bridge_surprises: list[str] | None = None
    community_count: int | None = None
    component_count: int | None = None
    sample: int | None = None
    seed: int = SEED
    backend: str = "networkx"
    top: int | None = None
    seconds: dict[str, float] = field(default_factory=dict)

    def ranked(self, measure: str | None = None, top: int | None = None, *,
               listed_only: bool = True) -> list[SystemScores]:
        """Systems ordered by ``measure`` (default: the first measure), best first, ties by id.

        For bridge-surprise, only the listed bridges (``listed_only``), in the list's order.
        ``top`` defaults to the analysis's own ``top``.
        """
        measure = measure or self.measures[0]
        top = self.top if top is None else top
        if measure not in self.measures:
            raise UsageError(f"measure {measure} was not computed; computed: {', '.join(self.measures)}")
        rows = sorted(self.systems.values(), key=_sort_key(measure))
        if measure == "bridge-surprise" and listed_only:
            listed = set(self.bridge_surprises or [])
            rows = [r for r in rows if r.id in listed]
        return rows if top is None else rows[:top]

    def summary(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "nodes": self.node_count, "adjacencies": self.adjacency_count, "edges": self.edge_count,
            "edgeTypes": list(self.edge_types), "measures": list(self.measures),
            "betweenness": None if "betweenness" not in self.measures else
            ("exact" if self.sample is None else f"sampled from {self.sample} pivots"),
            "seed": self.seed, "backend": self.backend,
        }
        if self.max_coreness is not None:
            out["maxCoreness"] = self.max_coreness
            out["corenessDistribution"] = {str(k): v for k, v in sorted(self.coreness_distribution.items())}
            out["nucleus"] = self.nucleus
        if self.bridge_surprises is not None:
            out["bridgeSurprises"] = self.bridge_surprises
        if self.community_count is not None:
            out["communities"] = self.community_count
        if self.component_count is not None:
            out["components"] = self.component_count
        return out

    def as_json(self) -> dict[str, Any]:
        """The summary and one object per system with every measure, best first by the first
        measure (only the ``top`` best when ``top`` is set)."""
        return {"graph": self.summary(), "systems": [s.as_json() for s in self.ranked(listed_only=False)]}


_FIELD = {
    "betweenness": "betweenness", "coreness": "coreness", "inbound": "inbound", "outbound": "outbound",
    "pagerank": "pagerank", "bridge-surprise": "bridge_surprise", "community": "community",
    "component": "component", "blast-radius": "blast_radius",
}


def measure_value(scores: SystemScores, measure: str) -> Any:
    """The value of one measure (by its command-line name) for one system."""
    return getattr(scores, _FIELD[measure])


def _sort_key(measure: str) -> Callable[[SystemScores], tuple]:
    if measure in ("community", "component"):
        # groups in their numbered order, the most central members first
        return lambda s: (getattr(s, measure), -_key(s.betweenness or 0.0), -s.degree, s.id)
    if measure == "bridge-surprise":
        return lambda s: (-s.bridge_surprise, -_key(s.betweenness), s.id)
    name = _FIELD[measure]
    return lambda s: (-_key(getattr(s, name)), s.id)


def _measures(measures: Iterable[str] | None) -> tuple[str, ...]:
    if measures is None:
        return MEASURES
    chosen = tuple(dict.fromkeys(measures))
    unknown = [m for m in chosen if m not in MEASURES]
    if unknown:
        raise UsageError(f"unknown measure {', '.join(unknown)}; known: {', '.join(MEASURES)}")
    return chosen or MEASURES


def analyze_snapshot(snapshot: Snapshot, measures: Iterable[str] | None = None, *,
                     edge_types: Iterable[str] | None = None, sample: int | None = None,
                     seed: int = SEED, backend: str = "auto",
                     progress: Callable[[str], None] | None = None) -> Analysis:
    """Run the measures on a snapshot (see ``analyze``); ``progress(label)`` announces each step."""
    chosen = _measures(measures)
    chosen_types = _check_types(edge_types)
    # default: every edge type in the store, also one the vocabulary does not know
    types = chosen_types or tuple(sorted({ty for _, _, ty in snapshot.relations}))
    used = _backend(backend)
    seconds: dict[str, float] = {}

    def timed(label: str, func: Callable[[], Any]) -> Any:
        if progress:
            progress(label)
        started = time.perf_counter()
        result = func()
        seconds[label] = time.perf_counter() - started
        return result

    graph = timed("projection", lambda: project_systems(snapshot, chosen_types))
    kept = [(s, t, ty) for s, t, ty in snapshot.relations
            if ty in types and s != t and s in snapshot.systems and t in snapshot.systems]
    analysis = Analysis(
        systems={}, measures=chosen, graph=graph, edge_types=types, node_count=graph.number_of_nodes(),
        adjacency_count=graph.number_of_edges(), edge_count=len(kept), seed=seed, backend=used,
        sample=sample if "betweenness" in chosen or "bridge-surprise" in chosen else None,
        seconds=seconds,
    )
    for info in snapshot.systems.values():
        analysis.systems[info.id] = SystemScores(id=info.id, name=info.name, section=info.section,
                                                 vendor=info.vendor_name or info.vendor,
                                                 degree=graph.degree(info.id))
    rows = analysis.systems
    bw: dict[str, float] = {}
    if {"betweenness", "bridge-surprise"} & set(chosen):
        raw = timed("betweenness", lambda: betweenness(graph, sample=sample, seed=seed, backend=used))
        bw = scale_by_max(raw)
        ranks = competition_ranks(bw)
        for node, value in bw.items():
            rows[node].betweenness, rows[node].betweenness_raw = value, raw[node]
            rows[node].betweenness_rank = ranks[node]
    if {"inbound", "outbound", "bridge-surprise"} & set(chosen):
        restricted = Snapshot(snapshot.systems, [r for r in snapshot.relations if r[2] in types])
        inbound, outbound = edge_counts(restricted)
        for node in rows:
            rows[node].inbound, rows[node].inbound_by_type = sum(inbound[node].values()), dict(sorted(inbound[node].items()))
            rows[node].outbound, rows[node].outbound_by_type = sum(outbound[node].values()), dict(sorted(outbound[node].items()))
    if "bridge-surprise" in chosen:
        inbound_all = {node: rows[node].inbound for node in rows}
        in_ranks = competition_ranks(inbound_all)
        surprise, listed = timed("bridge-surprise", lambda: bridge_surprise(inbound_all, bw))
        for node in rows:
            rows[node].inbound_rank, rows[node].bridge_surprise = in_ranks[node], surprise[node]
        analysis.bridge_surprises = listed
    if "coreness" in chosen:
        cores = timed("coreness", lambda: core_numbers(graph, backend=used))
        # the nucleus is ordered by betweenness; without it, by number of neighbours
        analysis.nucleus = nucleus(cores, bw or {n: float(graph.degree(n)) for n in graph})
        core_set = set(analysis.nucleus)
        for node, value in cores.items():
            rows[node].coreness, rows[node].in_nucleus = value, node in core_set
        analysis.max_coreness = max(cores.values(), default=0)
        analysis.coreness_distribution = dict(sorted(Counter(cores.values()).items()))
    if "pagerank" in chosen:
        directed = project_systems(snapshot, [t for t in DEPENDENCY_TYPES if t in types], directed=True)
        for node, value in timed("pagerank", lambda: pagerank(directed)).items():
            rows[node].pagerank = value
    if "community" in chosen:
        found = timed("community", lambda: communities(graph, seed=seed))
        for node, number in found.items():
            rows[node].community = number
        analysis.community_count = max(found.values(), default=0)
    if "component" in chosen:
        found = timed("component", lambda: components(graph))
        sizes = Counter(found.values())
        for node, number in found.items():
            rows[node].component, rows[node].component_size = number, sizes[number]
        analysis.component_count = len(sizes)
    if "blast-radius" in chosen:
        deps = project_systems(snapshot, [t for t in BLAST_TYPES if t in types], directed=True)
        for node, value in timed("blast-radius", lambda: blast_radius(deps)).items():
            rows[node].blast_radius = value
    return analysis


def analyze(store: GraphStore, measures: Iterable[str] | None = None, *, top: int | None = None,
            edge_types: Iterable[str] | None = None, sample: int | None = None, seed: int = SEED,
            backend: str = "auto", iris: Iris | None = None,
            progress: Callable[[str], None] | None = None) -> Analysis:
    """Run ``measures`` (default: all of ``MEASURES``) on the graph in ``store``.

    Betweenness, coreness, bridge surprise, communities and components run on the
    undirected projection of ``edge_types`` (default: all, the catalog's
    convention); PageRank on the directed dependency edges; blast radius on
    runtime-dependency and built-on. ``sample=K`` estimates betweenness from K
    pivots. ``top`` limits ``Analysis.ranked()`` and the JSON form to the best ``top``
    systems by the first measure (every system is still scored).
    """
    analysis = analyze_snapshot(read_snapshot(store, iris), measures, edge_types=edge_types,
                                sample=sample, seed=seed, backend=backend, progress=progress)
    analysis.top = top
    return analysis


# ---------------------------------------------------------------------------
# Write-back


_WRITE_BACK = (
    ("betweenness", KG.betweenness, float), ("coreness", KG.coreness, int), ("pagerank", KG.pageRank, float),
    ("inbound", KG.inboundCount, int), ("outbound", KG.outboundCount, int),
    ("community", KG.community, int), ("component", KG.component, int),
    ("bridge_surprise", KG.bridgeSurprise, int), ("blast_radius", KG.blastRadius, int),
)


def analysis_quads(analysis: Analysis, iris: Iris | None = None) -> list[Quad]:
    """The analysis named graph: one triple per system and computed measure."""
    iris = iris or Iris()
    graph = iris.analysis_graph
    quads = [Quad(graph, RDFS.comment, Literal(_describe(analysis)), graph)]
    for scores in analysis.systems.values():
        system = iris.system(scores.id)
        for name, prop, kind in _WRITE_BACK:
            value = getattr(scores, name)
            if value is not None:
                quads.append(Quad(system, prop, Literal(kind(value)), graph))
    return quads


def _describe(analysis: Analysis) -> str:
    how = "exact" if analysis.sample is None else f"estimated from {analysis.sample} pivots (seed {analysis.seed})"
    return (f"kg analyze: {', '.join(analysis.measures)} on {analysis.node_count} systems and "
            f"{analysis.adjacency_count} undirected adjacencies of edge types {', '.join(analysis.edge_types)}; "
            f"betweenness {how}.")


def write_back(store: GraphStore, analysis: Analysis, iris: Iris | None = None) -> int:
    """Replace the analysis named graph with ``analysis`` in one transaction; returns the triple count."""
    iris = iris or Iris()
    quads = analysis_quads(analysis, iris)
    store.replace_graphs({iris.analysis_graph: quads})
    store.flush()
    return len(quads)


# ---------------------------------------------------------------------------
# Plots


def _matplotlib():
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError:
        raise UsageError("plots need matplotlib: pip install 'kg[plot]'") from None
    return Figure, FigureCanvasAgg


def _short(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit - 1] + "\u2026"


def _section_colours(sections: Sequence[str | None]) -> dict[str | None, Any]:
    from matplotlib import colormaps

    # the ten strong colours first, then their light variants, then more
    palette = colormaps["tab10"].colors + colormaps["tab20"].colors[1::2] + colormaps["tab20b"].colors
    ordered = [s for s, _ in Counter(sections).most_common()]
    return {s: ("#b0b0b0" if s is None else palette[i % len(palette)]) for i, s in enumerate(ordered)}


_GRID_COLUMNS = 7  # label cells across the drawing panel
_MAX_DRAWN = 84  # most nucleus members drawn (the rest are named in the title)


def _grid_layout(graph: nx.Graph, order: Sequence[Hashable], seed: int) -> tuple[dict, int, int]:
    """A force layout snapped onto a grid of label-sized cells, so that no two labels overlap.

    The spring layout gives each node its preferred place; nodes then take the
    nearest free cell, most central first (``order``). Returns positions in cell
    units, and the grid's columns and rows.
    """
    n = len(graph)
    columns = min(_GRID_COLUMNS, max(1, n))
    rows = max(3, math.ceil(1.7 * n / columns))
    raw = nx.spring_layout(graph, seed=seed) if n > 1 else {node: (0.0, 0.0) for node in graph}
    xs = [p[0] for p in raw.values()]
    ys = [p[1] for p in raw.values()]
    span_x, span_y = (max(xs) - min(xs)) or 1.0, (max(ys) - min(ys)) or 1.0
    free = {(c, r) for c in range(columns) for r in range(rows)}
    pos = {}
    for node in order:
        x = (raw[node][0] - min(xs)) / span_x * (columns - 1)
        y = (raw[node][1] - min(ys)) / span_y * (rows - 1)
        cell = min(free, key=lambda cr: ((cr[0] - x) * 2.2) ** 2 + (cr[1] - y) ** 2 + 1e-9 * (cr[0] * rows + cr[1]))
        free.discard(cell)
        pos[node] = (float(cell[0]), float(cell[1]))
    return pos, columns, rows


def plot(analysis: Analysis, path: str | Path, *, measure: str | None = None, top: int = 20) -> Path:
    """A PNG with two panels: a bar chart of the top ``top`` systems by ``measure``
    (default: the first measure) and a drawing of the nucleus, labelled by name and
    coloured by primary section."""
    Figure, FigureCanvasAgg = _matplotlib()
    from matplotlib.lines import Line2D

    measure = measure or analysis.measures[0]
    rows = analysis.ranked(measure, top)
    members = analysis.nucleus or []
    sections = [r.section for r in rows] + [analysis.systems[n].section for n in members if n in analysis.systems]
    colours = _section_colours(sections)

    fig = Figure(figsize=(20, 10.5), dpi=110, layout="constrained")
    FigureCanvasAgg(fig)
    bars, drawing = fig.subplots(1, 2, width_ratios=[1, 1.7])

    labels = [_short(r.name, 38) for r in rows]
    values = [measure_value(r, measure) for r in rows]
    y = range(len(rows))
    bars.barh(list(y), values, color=[colours[r.section] for r in rows], edgecolor="#333333", linewidth=0.4)
    bars.set_yticks(list(y), labels, fontsize=9)
    bars.invert_yaxis()
    for i, value in enumerate(values):
        text = (f"{value:.3f}" if value >= 0.1 else f"{value:.3g}") if isinstance(value, float) else str(value)
        bars.text(value, i, " " + text, va="center", fontsize=8)
    bars.margins(x=0.12)
    note = "" if analysis.sample is None or measure not in ("betweenness", "bridge-surprise") else \
        f" (estimated, {analysis.sample} pivots)"
    bars.set_title(f"Top {len(rows)} systems by {measure}{note}", fontsize=12, loc="left")
    bars.set_xlabel(_AXIS_LABELS.get(measure, measure))
    bars.spines[["top", "right"]].set_visible(False)

    drawing.set_axis_off()
    if members:
        shown = members[:_MAX_DRAWN]
        # a fresh graph in a fixed node order (a subgraph view iterates in hash order)
        sub = nx.Graph()
        sub.add_nodes_from(shown)
        sub.add_edges_from(sorted(tuple(sorted(e)) for e in analysis.graph.subgraph(shown).edges()))
        pos, columns, rows_ = _grid_layout(sub, shown, analysis.seed)
        for u, v in sub.edges():
            (x1, y1), (x2, y2) = pos[u], pos[v]
            drawing.plot([x1, x2], [y1, y2], color="#a0a0a0", linewidth=0.7, alpha=0.8, zorder=1)
        if analysis.systems[shown[0]].betweenness is not None:
            size_by = "betweenness"
            weight = [analysis.systems[n].betweenness or 0.0 for n in shown]
        else:
            size_by = "neighbours in the nucleus"
            weight = [sub.degree(n) / max(1, max(d for _, d in sub.degree())) for n in shown]
        drawing.scatter([pos[n][0] for n in shown], [pos[n][1] for n in shown], s=[50 + 400 * w for w in weight],
                        c=[colours[analysis.systems[n].section] for n in shown],
                        edgecolors="#222222", linewidths=0.6, zorder=2)
        for n in shown:
            # labels above the node in even columns and below it in odd ones: neighbours never collide
            below = int(pos[n][0]) % 2 == 1
            drawing.annotate(_short(analysis.systems[n].name, 28), pos[n], xytext=(0, -7 if below else 7),
                             textcoords="offset points", ha="center", va="top" if below else "bottom",
                             fontsize=7.5, zorder=3,
                             bbox={"boxstyle": "round,pad=0.1", "fc": "white", "ec": "none", "alpha": 0.85})
        drawing.set_xlim(-0.6, columns - 0.4)
        drawing.set_ylim(-0.8, rows_ - 0.2)
        more = f", {len(members) - len(shown)} more not drawn" if len(members) > len(shown) else ""
        drawing.set_title(f"Nucleus: the {len(members)} systems of the {analysis.max_coreness}-core{more} "
                          f"(node size = {size_by})", fontsize=12, loc="left")
    else:
        drawing.set_title("No nucleus (coreness not computed or graph without edges)", fontsize=12, loc="left")
    handles = [Line2D([], [], marker="o", linestyle="", markersize=8, markerfacecolor=c,
                      markeredgecolor="#222222", label=_short(s or "(no section)", 60))
               for s, c in colours.items()]
    fig.legend(handles=handles, loc="outside lower center", ncol=min(4, max(1, len(handles))),
               fontsize=9, title="primary section", title_fontsize=9, frameon=False)
    fig.suptitle(f"AI Agent Infrastructure Landscape: {analysis.node_count} systems, "
                 f"{analysis.adjacency_count} adjacencies", fontsize=13)
    target = Path(path)
    fig.savefig(target, format="png")
    return target


_AXIS_LABELS = {
    "betweenness": "betweenness (share of the largest)",
    "coreness": "k-core number",
    "inbound": "inbound edges (all types)",
    "outbound": "outbound edges (all types)",
    "pagerank": "PageRank on dependency edges",
    "bridge-surprise": "inbound rank minus betweenness rank",
    "blast-radius": "systems that depend on it (transitively)",
}
