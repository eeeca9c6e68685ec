"""Sources -> records -> quads -> store, with a quarantine for bad records.

Everything is read and checked before anything is written: an unreadable file
changes nothing. Good records are never lost because of a bad neighbour (the bad
one is set aside in the quarantine), unless ``strict`` asks to reject the whole
input. Records are written in batches, each one atomic, so a crash leaves every
record either at its old or at its new version.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable

import pyoxigraph
from pyoxigraph import Literal, NamedNode, Quad

from .errors import InputRejected, RecordError
from .mapping import record_quads, relation_quads, source_file_quads
from .records import Edge, Record, edge_from_json, record_from_json
from .sources import BULK, EDGES, Batch, read_paths
from .store import GraphStore
from .vocab import (
    ATTRIBUTION, CATALOG_REPOSITORY, CC_BY_4, DCAT, DCTERMS, KG, ONTOLOGY_FILE, ONTOLOGY_IRI,
    ONTOLOGY_VERSION, RDF, SKOS, VOID, XSD, Iris,
)

BATCH_SIZE = 500  # records per transaction: bounded memory, still few commits

Progress = Callable[[int, int], None]


@dataclass
class IngestReport:
    """What an ingest did: counts, quarantined items and timing."""

    records: int = 0
    edges: int = 0
    quads_written: int = 0
    quarantined: list[RecordError] = field(default_factory=list)
    superseded: list[str] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)
    seconds: float = 0.0


@dataclass
class _Input:
    records: list[Record] = field(default_factory=list)
    edges: list[Edge] = field(default_factory=list)
    catalog_header: dict | None = None
    edges_header: dict | None = None
    edges_given: bool = False
    errors: list[RecordError] = field(default_factory=list)
    superseded: list[str] = field(default_factory=list)


def _first_bad_text(value: object, path: str) -> str | None:
    """Path of the first string holding a lone surrogate (not encodable, so not RDF)."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return path
        return None
    if isinstance(value, dict):
        for key, item in value.items():
            found = _first_bad_text(key, path) or _first_bad_text(item, f"{path}.{key}" if path else key)
            if found:
                return found
    if isinstance(value, list):
        for i, item in enumerate(value):
            found = _first_bad_text(item, f"{path}[{i}]")
            if found:
                return found
    return None


def _check_text(raw: object, source: str, index: int) -> None:
    try:
        json.dumps(raw, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        record_id = raw.get("id") if isinstance(raw, dict) and isinstance(raw.get("id"), str) else None
        path = _first_bad_text(raw, "") or "(record)"
        shown = None if record_id is None else record_id.encode("utf-8", "backslashreplace").decode()
        raise RecordError(source, index, shown, path, "holds a lone surrogate (not valid Unicode text)") from None


def _collect(batches: Iterable[Batch]) -> _Input:
    """Check every item; a later file's record replaces an earlier file's record of the same id."""
    found = _Input()
    records: dict[str, Record] = {}
    edge_keys: dict[tuple[str, str, str], str] = {}
    for batch in batches:
        if batch.kind == EDGES:
            found.edges_given = True
            found.edges_header = batch.header
            for index, raw in enumerate(batch.items):
                try:
                    _check_text(raw, batch.source, index)
                    edge = edge_from_json(raw, source=batch.source, index=index)
                    _check_edge(edge, batch.source, index, edge_keys)
                except RecordError as err:
                    found.errors.append(err)
                    continue
                found.edges.append(edge)
            continue
        if batch.kind == BULK:
            found.catalog_header = batch.header
        seen_here: dict[str, int] = {}
        for index, raw in enumerate(batch.items):
            try:
                _check_text(raw, batch.source, index)
                record = record_from_json(raw, source=batch.source, index=index)
                if record.id in seen_here:
                    raise RecordError(batch.source, index, record.id, "id",
                                      f"duplicate id (first at [{seen_here[record.id]}] of the same file)")
            except RecordError as err:
                found.errors.append(err)
                continue
            seen_here[record.id] = index
            if record.id in records:
                found.superseded.append(record.id)
                del records[record.id]  # keep input order: the newer version goes last
            records[record.id] = record
    found.records = list(records.values())
    return found


def _check_edge(edge: Edge, source: str, index: int, seen: dict) -> None:
    where = f"{edge.source} -> {edge.target}"
    if edge.source == edge.target:
        raise RecordError(source, index, where, "target", "self-edge: source and target are the same record")
    if edge.key in seen:
        raise RecordError(source, index, where, "type",
                          f"duplicate edge ({edge.type}); first seen at {seen[edge.key]}")
    seen[edge.key] = f"[{index}]"


def ingest_paths(store: GraphStore, paths: list[str], iris: Iris | None = None, *,
                 strict: bool = False, progress: Progress | None = None) -> IngestReport:
    """Read ``paths`` (files, folders, '-') and ingest them; see ``ingest_batches``."""
    return ingest_batches(store, list(read_paths(paths)), iris, strict=strict, progress=progress)


def ingest_batches(store: GraphStore, batches: list[Batch], iris: Iris | None = None, *,
                   strict: bool = False, progress: Progress | None = None) -> IngestReport:
    """Ingest already-read batches: each record replaces its own named graph."""
    iris = iris or Iris()
    started = time.perf_counter()
    found = _collect(batches)
    if strict and found.errors:
        raise InputRejected(found.errors)
    report = IngestReport(quarantined=found.errors, superseded=found.superseded,
                          sources=[b.source for b in batches])
    total = len(found.records)
    described: set[str] = set()
    for start in range(0, total, BATCH_SIZE):
        graphs, shared = {}, []
        for record in found.records[start:start + BATCH_SIZE]:
            own, descriptions = record_quads(record, iris, described)
            graphs[iris.record_graph(record.id)] = own
            shared += descriptions
        store.replace_graphs(graphs, shared)
        report.quads_written += sum(len(q) for q in graphs.values()) + len(shared)
        if progress:
            progress(min(start + BATCH_SIZE, total), total)
    report.records = total
    shared: dict[NamedNode, list[Quad]] = {}
    if found.catalog_header is not None:
        shared[iris.catalog_graph] = source_file_quads(iris.catalog_source, iris.catalog_graph,
                                                       "catalog", found.catalog_header)
    # An edges file with no usable edges never empties the stored edges.
    if found.edges:
        quads = source_file_quads(iris.edges_source, iris.edges_graph, "edges", found.edges_header or {})
        for position, edge in enumerate(found.edges):
            quads += relation_quads(edge, position, iris)
        shared[iris.edges_graph] = quads
        report.edges = len(found.edges)
    shared[iris.ontology_graph] = ontology_quads(iris)
    store.replace_graphs(shared)
    report.quads_written += sum(len(q) for q in shared.values())
    if total:
        drop_unused_shared(store, iris)
    refresh_description(store, iris)
    store.flush()
    report.seconds = time.perf_counter() - started
    return report


def drop_unused_shared(store: GraphStore, iris: Iris) -> None:
    """Forget shared resources (vendors, concepts, ...) that no record points to any more."""
    shared = iris.shared_graph
    store.update(f"""
        DELETE {{ GRAPH {shared} {{ ?x ?p ?o }} }}
        WHERE {{
          GRAPH {shared} {{ ?x ?p ?o }}
          FILTER NOT EXISTS {{ GRAPH {shared} {{ ?x a {SKOS.ConceptScheme} }} }}
          FILTER NOT EXISTS {{ GRAPH ?g {{ ?s ?q ?x }} FILTER(?g != {shared}) }}
        }}""")


def ontology_quads(iris: Iris) -> list[Quad]:
    """The ontology, in its own named graph."""
    return [Quad(t.subject, t.predicate, t.object, iris.ontology_graph)
            for t in pyoxigraph.parse(path=str(ONTOLOGY_FILE), format=pyoxigraph.RdfFormat.TURTLE)]


# ---------------------------------------------------------------------------
# The dataset description (VoID / DCAT), rebuilt from the store after each ingest.

COUNTED_CLASSES = (
    KG.System, KG.Vendor, KG.License, KG.Protocol, KG.Cell, KG.Relation, KG.Column,
    KG.PublicationVenue, KG.ProtocolSupport, KG.HistoryEntry, KG.Provenance,
)

_CLASS_COUNTS = """
SELECT ?class (COUNT(DISTINCT ?s) AS ?n) WHERE {
  GRAPH ?g { ?s a ?class }
  FILTER(?g != ?description)
} GROUP BY ?class
"""


def class_counts(store: GraphStore, iris: Iris) -> dict[str, int]:
    """Distinct instances per class, over every graph but the description itself."""
    rows = store.select(_CLASS_COUNTS, {"description": iris.dataset_graph})
    return {row["class"].value: int(row["n"].value) for row in rows}


def _generated_at(store: GraphStore, iris: Iris) -> str | None:
    rows = store.select(f"SELECT ?h WHERE {{ ?src {KG.header} ?h }}", {"src": iris.catalog_source})
    if not rows:
        return None
    value = json.loads(rows[0]["h"].value).get("generatedAt")
    return value if isinstance(value, str) else None


def refresh_description(store: GraphStore, iris: Iris) -> None:
    """Replace the dataset description graph with fresh counts."""
    counts = class_counts(store, iris)
    described = sum(1 for _ in store.quads(iris.dataset_graph))
    triples = len(store) - described
    g, d = iris.dataset_graph, iris.dataset
    quads = [
        Quad(d, RDF.type, VOID.Dataset, g),
        Quad(d, RDF.type, DCAT.Dataset, g),
        Quad(d, DCTERMS.title, Literal("AI Agent Infrastructure Landscape knowledge graph", language="en"), g),
        Quad(d, DCTERMS.description, Literal(
            "Systems, vendors, licences, protocols, cells and typed relations of the AI Agent "
            "Infrastructure Landscape catalog, as RDF under the kg ontology.", language="en"), g),
        Quad(d, DCTERMS.license, CC_BY_4, g),
        Quad(d, DCTERMS.source, CATALOG_REPOSITORY, g),
        Quad(d, DCTERMS.bibliographicCitation, Literal(ATTRIBUTION), g),
        Quad(d, DCTERMS.conformsTo, NamedNode(f"{ONTOLOGY_IRI}/{ONTOLOGY_VERSION}"), g),
        Quad(d, VOID.vocabulary, NamedNode(ONTOLOGY_IRI), g),
        Quad(d, VOID.triples, Literal(str(triples), datatype=XSD.integer), g),
        Quad(d, VOID.entities, Literal(str(counts.get(KG.System.value, 0)), datatype=XSD.integer), g),
    ]
    generated = _generated_at(store, iris)
    if generated:
        quads.append(Quad(d, DCTERMS.created, Literal(generated), g))
    for cls in COUNTED_CLASSES:
        part = iris.class_partition(cls)
        quads += [
            Quad(d, VOID.classPartition, part, g),
            Quad(part, VOID.term("class"), cls, g),
            Quad(part, VOID.entities, Literal(str(counts.get(cls.value, 0)), datatype=XSD.integer), g),
        ]
    store.replace_graphs({g: quads})


def read_description(store: GraphStore, iris: Iris) -> dict[str, object]:
    """The dataset description as plain values: triples, generation time, counts per class."""
    rows = store.select(
        f"""SELECT ?cls ?n WHERE {{ GRAPH ?g {{ ?d {VOID.classPartition} ?part .
              ?part {VOID.term('class')} ?cls ; {VOID.entities} ?n }} }}""",
        {"g": iris.dataset_graph, "d": iris.dataset},
    )
    counts = {row["cls"].value.rsplit("#", 1)[-1]: int(row["n"].value) for row in rows}
    triples = store.select(f"SELECT ?n WHERE {{ GRAPH ?g {{ ?d {VOID.triples} ?n }} }}",
                           {"g": iris.dataset_graph, "d": iris.dataset})
    created = store.select(f"SELECT ?c WHERE {{ GRAPH ?g {{ ?d {DCTERMS.created} ?c }} }}",
                           {"g": iris.dataset_graph, "d": iris.dataset})
    return {
        "triples": int(triples[0]["n"].value) if triples else 0,
        "generatedAt": created[0]["c"].value if created else None,
        "counts": counts,
    }


def stored_record_ids(store: GraphStore, iris: Iris) -> list[str]:
    prefix = iris.record_graph_prefix()
    return [g.value[len(prefix):] for g in store.named_graphs() if g.value.startswith(prefix)]


def remove_records(store: GraphStore, record_ids: Iterable[str], iris: Iris) -> None:
    store.remove_graphs(iris.record_graph(i) for i in record_ids)
    refresh_description(store, iris)


def path_label(path: str) -> str:
    return "<stdin>" if path == "-" else str(Path(path))
