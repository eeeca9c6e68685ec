"""The whole analysis: every measure run on one snapshot of the store, as per-system scores.

``analyze`` runs the measures of ``measures.py`` on the store with the
catalog's own conventions, so that its numbers are the ones the catalog's web
pages show:

* every record is a node; the graph is the undirected projection of all edges
  of all types; self-loops and edges whose end is not a record are dropped;
  parallel and reverse edges collapse into one adjacency;
* betweenness is divided by the largest value (the top node has 1.0);
* the inbound count of a record is the number of edges whose target it is
  (all types, parallel edges counted);
* ``Analysis.ranked`` orders systems by one measure, best first, ties by id.

>>> from .projections import SystemInfo
>>> snapshot = Snapshot({n: SystemInfo(n, "urn:" + n, n.upper()) for n in "abc"},
...                     [("a", "b", "built-on"), ("c", "b", "built-on")])
>>> result = analyze_snapshot(snapshot, ["inbound", "blast-radius"])
>>> [(s.id, s.inbound, s.blast_radius) for s in result.ranked()]
[('b', 2, 2), ('a', 0, 0), ('c', 0, 0)]
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Iterable

import networkx as nx

from ..errors import UsageError
from ..store import GraphStore
from ..vocab import Iris
from .measures import (BLAST_TYPES, DEPENDENCY_TYPES, SEED, backend_name, betweenness, blast_radius,
                       bridge_surprise, communities, competition_ranks, components, core_numbers, edge_counts,
                       nucleus, pagerank, scale_by_max, tie_key)
from .projections import Snapshot, chosen_edge_types, project_systems, read_snapshot

#: The measures ``analyze`` can compute, by their command-line names, in their default order.
MEASURES: tuple[str, ...] = (
    "betweenness", "coreness", "inbound", "outbound", "pagerank", "bridge-surprise",
    "community", "component", "blast-radius",
)


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
            out["corenessDistribution"] = {str(k): v for k, v in sorted((self.coreness_distribution or {}).items())}
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
        return lambda s: (getattr(s, measure), -tie_key(s.betweenness or 0.0), -s.degree, s.id)
    if measure == "bridge-surprise":
        return lambda s: (-(s.bridge_surprise or 0), -tie_key(s.betweenness or 0.0), s.id)
    name = _FIELD[measure]
    return lambda s: (-tie_key(getattr(s, name)), s.id)


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
                     progress: Callable[[str], None] | None = None, scheduler: str | None = None) -> Analysis:
    """Run the measures on a snapshot (see ``analyze``); ``progress(label)`` announces each step."""
    chosen = _measures(measures)
    chosen_types = chosen_edge_types(edge_types)
    # default: every edge type in the store, also one the vocabulary does not know
    types = chosen_types or tuple(sorted({ty for _, _, ty in snapshot.relations}))
    used = backend_name(backend)
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
    bw: dict[Any, float] = {}
    if {"betweenness", "bridge-surprise"} & set(chosen):
        raw = timed("betweenness", lambda: betweenness(graph, sample=sample, seed=seed, backend=used,
                                                          scheduler=scheduler))
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
        inbound_all = {node: rows[node].inbound or 0 for node in rows}  # counted just above
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
            progress: Callable[[str], None] | None = None, scheduler: str | None = None) -> Analysis:
    """Run ``measures`` (default: all of ``MEASURES``) on the graph in ``store``.

    Betweenness, coreness, bridge surprise, communities and components run on the
    undirected projection of ``edge_types`` (default: all, the catalog's
    convention); PageRank on the directed dependency edges; blast radius on
    runtime-dependency edges (kg's meaning of "depends on"). ``sample=K`` estimates betweenness from K
    pivots (on the Dask cluster at ``scheduler``, when given). ``top`` limits ``Analysis.ranked()`` and the JSON form to the best ``top``
    systems by the first measure (every system is still scored).
    """
    analysis = analyze_snapshot(read_snapshot(store, iris), measures, edge_types=edge_types,
                                sample=sample, seed=seed, backend=backend, progress=progress,
                                scheduler=scheduler)
    analysis.top = top
    return analysis

