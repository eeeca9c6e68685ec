"""Write-back: the measures of an analysis as quads of the analysis named graph.

>>> from .analysis import analyze_snapshot
>>> from .projections import Snapshot, SystemInfo
>>> systems = {n: SystemInfo(n, "urn:" + n, n.upper()) for n in "ab"}
>>> result = analyze_snapshot(Snapshot(systems, [("a", "b", "built-on")]), ["inbound"])
>>> quads = analysis_quads(result)
>>> quads[0].object.value
'kg analyze: inbound on 2 systems and 1 undirected adjacencies of edge types built-on; betweenness exact.'
>>> [(q.subject.value.rsplit("/", 1)[-1], q.predicate.value.rsplit("#", 1)[-1], q.object.value) for q in quads[1:]]
[('a', 'inboundCount', '0'), ('a', 'outboundCount', '1'), ('b', 'inboundCount', '1'), ('b', 'outboundCount', '0')]
"""

from __future__ import annotations

from pyoxigraph import Literal, Quad

from ..store import GraphStore
from ..vocab import KG, RDFS, Iris
from .analysis import Analysis


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

