"""Measures: plain functions of NetworkX graphs, with the catalog's conventions.

``betweenness``, ``core_numbers``, ``nucleus``, ``pagerank``, ``communities``,
``components``, ``blast_radius``, ``competition_ranks``, ``bridge_surprise`` and
``edge_counts``; the numbers are the ones the catalog's web pages show:

* betweenness is Brandes on the unweighted undirected graph without
  normalisation (``scale_by_max`` then divides by the largest value);
* coreness is the k-core number (isolated nodes 0); the nucleus is the set of
  nodes of the largest coreness, sorted by betweenness descending;
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

import random
from collections import Counter
from typing import Any, Hashable, Iterable, Mapping, TypeVar

import networkx as nx

from ..errors import UsageError
from .projections import Snapshot

#: The fixed seed of every randomised step (Louvain, betweenness pivots, layouts).
SEED = 20261129
#: Directed dependency edges: PageRank flows along them (A -> B: A depends on B).
DEPENDENCY_TYPES: tuple[str, ...] = ("runtime-dependency", "built-on", "integrates-with", "extends", "forks")
#: Edges along which a change propagates to dependants (blast radius): kg's one meaning of
#: "depends on", the catalog's ("records that runtime-depend on a given substrate"), also that
#: of the substrate-risk query (its default edge_types) and examples/blast_radius.py.
BLAST_TYPES: tuple[str, ...] = ("runtime-dependency",)
BACKENDS = ("auto", "networkx", "igraph")
N = TypeVar("N", bound=Hashable)  # a node of a graph: a record id in the projections
_TIE_DIGITS = 9  # floats are compared at this many decimals when ranking, so ties survive float noise


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
        raise UsageError("the igraph backend needs python-igraph: pip install 'agent-landscape-kg[fast]'")
    return backend


def backend_name(backend: str = "auto") -> str:
    """The library that ``backend`` resolves to on this machine ("networkx" or "igraph")."""
    return _backend(backend)


def to_igraph(graph: nx.Graph) -> tuple[Any, list[Hashable], dict[Hashable, int]]:
    """The igraph graph of ``graph`` (self-loops left out), its node list and each node's index."""
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
                backend: str = "auto", scheduler: str | None = None) -> dict[Any, float]:
    """Brandes betweenness of an undirected graph, unweighted and not normalised.

    Each unordered pair of end points counts once (NetworkX's ``normalized=False``).
    With ``sample=K`` (K smaller than the number of nodes) it is NetworkX's
    estimate from K pivot sources drawn with ``seed``, scaled to the full graph:
    the pivots in parts of ``PIVOTS_PER_PART``, each part's sums added in part
    order, here or (``scheduler``: a Dask scheduler's address) on that cluster,
    with the same numbers either way.

    >>> betweenness(nx.path_graph(4), backend="networkx")
    {0: 0.0, 1: 2.0, 2: 2.0, 3: 0.0}
    """
    if graph.is_directed():
        raise UsageError("betweenness here is defined on the undirected projection")
    n = len(graph)
    sources = None
    if sample is not None and sample < n:
        sources = pivots(graph, sample, seed)
    elif scheduler is not None:
        raise UsageError("--scheduler runs the sampled betweenness: give --sample K (fewer than "
                         f"the {n} systems); the exact one runs here")
    used = _backend(backend)
    if sources is None:
        if used == "networkx":
            return nx.betweenness_centrality(graph, normalized=False, weight=None)
        g, nodes, _ = to_igraph(graph)
        return {node: float(value) for node, value in zip(nodes, g.betweenness(directed=False))}
    parts = [sources[i:i + PIVOTS_PER_PART] for i in range(0, len(sources), PIVOTS_PER_PART)]
    if scheduler is not None:
        from ..cluster import run_parts  # Dask is an optional extra

        partials, _ = run_parts(scheduler, pivot_part_betweenness, (graph, used), parts)
    else:
        prepared = _Prepared(graph, used)
        partials = [prepared.subset(part) for part in parts]
    half = [0.0] * n
    for partial in partials:  # in part order: the same sums wherever the parts ran
        half = [a + b for a, b in zip(half, partial)]
    # Paths from the pivots to every node, each (pivot, target) pair counted once (both libraries
    # halve undirected subset betweenness), then scaled up to all n sources: NetworkX's estimator
    # (networkx >= 3.5), whose pivots are never their own end point, hence their own scale.
    k, chosen = len(sources), set(sources)
    scale_pivot = (n - 1) / (k - 1) if k > 1 else 0.0
    scale_other = (n - 1) / k
    return {node: value * (scale_pivot if node in chosen else scale_other) for node, value in zip(graph, half)}


#: Pivots per part of the sampled betweenness (one Dask task each; the local run adds the same parts).
PIVOTS_PER_PART = 64


class _Prepared:
    """A graph ready for subset betweenness in one library (igraph's copy made once)."""

    def __init__(self, graph: nx.Graph, backend: str) -> None:
        self.graph, self.backend = graph, backend
        self.ig = to_igraph(graph) if backend == "igraph" else None

    def subset(self, sources: list[Hashable]) -> list[float]:
        """The (halved) betweenness of every node, in graph order, over the paths from ``sources``."""
        if self.ig is None:
            found = nx.betweenness_centrality_subset(self.graph, sources, list(self.graph), normalized=False,
                                                     weight=None)
            return [float(found[node]) for node in self.graph]
        g, _, index = self.ig
        n = g.vcount()
        return [float(v) for v in g.betweenness(directed=False, sources=[index[s] for s in sources],
                                                targets=range(n))]


_PREPARED: dict[str, _Prepared] = {}  # on a Dask worker: the graph of the latest run


def pivot_part_betweenness(run: str, shared: tuple[nx.Graph, str], sources: list[Hashable]) -> list[float]:
    """One part of the sampled betweenness on a Dask worker (``kg.cluster``): ``shared`` is (graph, library)."""
    prepared = _PREPARED.get(run)
    if prepared is None:
        _PREPARED.clear()
        prepared = _PREPARED[run] = _Prepared(*shared)
    return prepared.subset(sources)


def scale_by_max(values: Mapping[N, float]) -> dict[N, float]:
    """Each value divided by the largest one, so the top node has 1.0 (all 0.0 when all are 0)."""
    top = max(values.values(), default=0.0)
    return {node: (value / top if top > 0 else 0.0) for node, value in values.items()}


def core_numbers(graph: nx.Graph, *, backend: str = "auto") -> dict[Any, int]:
    """The k-core number of every node of an undirected graph (isolated nodes 0)."""
    if graph.is_directed():
        graph = graph.to_undirected(as_view=True)
    if _backend(backend) == "networkx":
        simple = graph
        if nx.number_of_selfloops(graph):
            simple = nx.Graph(graph)
            simple.remove_edges_from(nx.selfloop_edges(simple))
        return dict(nx.core_number(simple))
    g, nodes, _ = to_igraph(graph)
    g.simplify()
    return {node: int(c) for node, c in zip(nodes, g.coreness())}


def tie_key(value: float | int) -> float | int:
    """A float rounded to the digits at which ranks compare it (ties survive float noise); ints as they are."""
    return round(value, _TIE_DIGITS) if isinstance(value, float) else value


def competition_ranks(values: Mapping[N, float | int]) -> dict[N, int]:
    """Rank 1 for the largest value; equal values share a rank and leave a gap (1, 1, 3)."""
    ordered = sorted(values, key=lambda node: -tie_key(values[node]))
    ranks: dict[N, int] = {}
    previous = None
    for position, node in enumerate(ordered, start=1):
        value = tie_key(values[node])
        if value != previous:
            rank, previous = position, value
        ranks[node] = rank
    return ranks


def nucleus(cores: Mapping[N, int], betweenness_scores: Mapping[N, float] | None = None) -> list[N]:
    """The nodes of the largest coreness (none when it is 0), by betweenness descending, then id."""
    top = max(cores.values(), default=0)
    if top <= 0:
        return []
    scores = betweenness_scores or {}
    return sorted((n for n, c in cores.items() if c == top), key=lambda n: (-tie_key(float(scores.get(n, 0.0))), n))


def bridge_surprise(inbound: Mapping[N, int],
                    betweenness_scores: Mapping[N, float]) -> tuple[dict[N, int], list[N]]:
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
    listed.sort(key=lambda n: (-surprise[n], -tie_key(float(betweenness_scores[n])), n))
    return surprise, listed


def pagerank(graph: nx.DiGraph, *, alpha: float = 0.85) -> dict[Any, float]:
    """PageRank of a directed graph, weighted by the edges' ``weight`` (1 when absent).

    Runs NetworkX's power iteration (SciPy); an empty graph gives ``{}``.
    """
    if len(graph) == 0:
        return {}
    return nx.pagerank(graph, alpha=alpha, weight="weight", tol=1e-10, max_iter=1000)


def numbered(groups: Iterable[Iterable[Any]]) -> dict[Any, int]:
    """Group number per node: groups numbered from 1 by size (largest first), then smallest member."""
    ordered = sorted((sorted(g) for g in groups), key=lambda g: (-len(g), g[0]))
    return {node: number for number, members in enumerate(ordered, start=1) for node in members}


def communities(graph: nx.Graph, *, seed: int = SEED, resolution: float = 1.0) -> dict[Any, int]:
    """Louvain community number per node (unweighted, fixed seed); see ``numbered``."""
    graph = graph.to_undirected(as_view=True) if graph.is_directed() else graph
    found = nx.community.louvain_communities(graph, weight=None, resolution=resolution, seed=seed)
    return numbered(found)


def components(graph: nx.Graph) -> dict[Any, int]:
    """Connected-component number per node (weakly connected when directed); see ``numbered``."""
    if graph.is_directed():
        return numbered(nx.weakly_connected_components(graph))
    return numbered(nx.connected_components(graph))


def blast_radius(graph: nx.DiGraph) -> dict[Any, int]:
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
    counts: dict[Any, int] = {}
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

