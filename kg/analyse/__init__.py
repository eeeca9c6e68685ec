"""Graph analysis: NetworkX projections of the stored graph, the measures on them, and their outputs.

* ``projections``: ``system_graph``, ``vendor_graph``, ``protocol_graph`` and
  ``license_graph``, read from the store through named queries;
* ``measures``: betweenness, k-core and nucleus, PageRank, communities,
  components, blast radius, ranks and bridge surprise, as plain functions of
  NetworkX graphs;
* ``analysis``: ``analyze`` runs them all with the catalog's conventions and
  returns an ``Analysis`` of per-system scores;
* ``quads``: ``write_back`` stores the scores in the analysis named graph;
* ``chart``: ``plot`` draws the top systems and the nucleus (matplotlib);
* ``formats``: ``projection`` and ``write_projection`` write a projection as
  GraphML, GEXF or node-link JSON.
"""

from __future__ import annotations

from .analysis import MEASURES, Analysis, SystemScores, analyze, analyze_snapshot, measure_value
from .chart import plot
from .formats import FORMATS, PROJECTIONS, projection, safe_attributes, write_projection
from .measures import (BACKENDS, BLAST_TYPES, DEPENDENCY_TYPES, SEED, backend_name, betweenness, blast_radius,
                       bridge_surprise, communities, competition_ranks, components, core_numbers,
                       edge_counts, nucleus, numbered, pagerank, pivots, scale_by_max, to_igraph)
from .projections import (EDGE_TYPES, SUPPORTING_MODES, Snapshot, SystemInfo, license_graph, project_systems,
                          protocol_graph, read_snapshot, system_graph, vendor_graph)
from .quads import analysis_quads, write_back

__all__ = [
    "BACKENDS", "BLAST_TYPES", "DEPENDENCY_TYPES", "EDGE_TYPES", "FORMATS", "MEASURES", "PROJECTIONS", "SEED",
    "SUPPORTING_MODES", "Analysis", "Snapshot", "SystemInfo", "SystemScores", "analysis_quads", "analyze",
    "analyze_snapshot", "backend_name", "betweenness", "blast_radius", "bridge_surprise", "communities",
    "competition_ranks", "components", "core_numbers", "edge_counts", "license_graph",
    "measure_value", "nucleus", "numbered", "pagerank", "pivots", "plot", "project_systems", "projection",
    "protocol_graph", "read_snapshot", "safe_attributes", "scale_by_max", "system_graph", "to_igraph",
    "vendor_graph", "write_back", "write_projection",
]
