"""Finishing an ingest: the shared graphs (catalog header, edges, ontology), the RDF files' quads, and
the warnings for edges whose ends are not records in the store."""

from __future__ import annotations

from pyoxigraph import NamedNode, Quad

from ..description import ontology_quads
from ..errors import RecordError
from ..mapping import relation_quads, source_file_quads
from ..records import Edge
from ..store import GraphStore
from ..validation.at_ingest import RuleCheck
from ..vocab import Iris
from .report import IngestReport

EdgeFrom = tuple[Edge, str, int]  # an edge, its file and its index there


def write_shared_graphs(store: GraphStore, iris: Iris, report: IngestReport, rules: RuleCheck,
                        catalog_header: dict | None, edges: list[EdgeFrom], edges_header: dict | None) -> None:
    """The catalog header, the edges and the ontology, each replacing its graph; the edges' rule
    findings join ``report.findings``."""
    shared: dict[NamedNode, list[Quad]] = {}
    if catalog_header is not None:
        shared[iris.catalog_graph] = source_file_quads(iris.catalog_source, iris.catalog_graph,
                                                       "catalog", catalog_header)
    if edges:
        shared[iris.edges_graph] = _edges_graph(iris, report, rules, edges, edges_header)
        report.edges = len(edges)
    shared[iris.ontology_graph] = ontology_quads(iris)
    store.replace_graphs(shared)
    report.quads_written += sum(len(q) for q in shared.values())


def _edges_graph(iris: Iris, report: IngestReport, rules: RuleCheck, edges: list[EdgeFrom],
                 edges_header: dict | None) -> list[Quad]:
    """The quads of the edges graph: the edges file's header, then each edge's relation (checked)."""
    quads = source_file_quads(iris.edges_source, iris.edges_graph, "edges", edges_header or {})
    for position, (edge, source, index) in enumerate(edges):
        own = relation_quads(edge, position, iris)
        report.findings += rules.record(own, source, index, f"{edge.source} -> {edge.target}")
        quads += own
    return quads


def load_rdf(store: GraphStore, rdf: list[Quad], report: IngestReport) -> None:
    """Every RDF file's quads of the ingest, in one transaction: all of them, or none."""
    store.add(rdf)
    report.rdf_quads = len(rdf)
    report.quads_written += len(rdf)


def dangling_edges(store: GraphStore, iris: Iris, edges: list[EdgeFrom]) -> list[RecordError]:
    """Warnings for edges of this input whose ends are not records in the store (edges may
    arrive before their records: they are kept; ``kg validate`` reports them too)."""
    if not edges:
        return []
    present: dict[str, bool] = {}  # looked up by graph, not by listing every graph of the store
    warnings = []
    for edge, source, index in edges:
        for end, record_id in (("source", edge.source), ("target", edge.target)):
            if record_id not in present:
                present[record_id] = store.has_graph(iris.record_graph(record_id))
            if not present[record_id]:
                warnings.append(RecordError(source, index, f"{edge.source} -> {edge.target}", end,
                                            f"{record_id!r} is not a record in the store (yet); edge kept"))
    return warnings
