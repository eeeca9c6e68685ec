"""Sources -> records -> quads -> store, with a quarantine for bad records.

Everything is read and checked before anything is written: an unreadable file
changes nothing. Good records are never lost because of a bad neighbour (the bad
one is set aside in the quarantine), unless ``strict`` asks to reject the whole
input. A whole ingest is one write session of the store (its records are written in
batches, all into one new version), so a reader or a crash sees the whole old
version or the whole new one.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable

import pyoxigraph
from pyoxigraph import Literal, NamedNode, Quad

from .errors import InputRejected, RecordError
from .mapping import record_quads, relation_quads, source_file_quads
from .records import Edge, Record, edge_from_json, record_from_json
from .sources import (
    BULK, EDGES, MAX_DEPTH, STREAM_MIN_BYTES, Batch, CatalogStream, json_depth, read_inputs, read_paths,
)
from .store import GraphStore, transactional
from .vocab import (
    ATTRIBUTION, CATALOG_REPOSITORY, CC_BY_4, DCAT, DCTERMS, EDGE_PROPERTIES, KG, ONTOLOGY_FILE,
    ONTOLOGY_IRI, ONTOLOGY_VERSION, RDF, SKOS, VOID, XSD, Iris,
)

BATCH_SIZE = 500  # records per transaction: bounded memory, still few commits

Progress = Callable[[int, int], None]


@dataclass
class IngestReport:
    """What an ingest did: counts, quarantined items, warnings and timing.

    ``quarantined`` items were set aside (not written); ``warnings`` items went in,
    with something worth a look (a ``javascript:`` citation kept as text, an edge
    whose end is not a record in the store yet, an unknown edge type).
    """

    records: int = 0
    edges: int = 0
    quads_written: int = 0
    quarantined: list[RecordError] = field(default_factory=list)
    superseded: list[str] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)
    seconds: float = 0.0
    warnings: list[RecordError] = field(default_factory=list)

    @property
    def wrote_nothing(self) -> bool:
        """True when the input held nothing to write, so the store was left exactly as it was."""
        return self.quads_written == 0


@dataclass
class _Input:
    records: list[Record] = field(default_factory=list)
    edges: list[Edge] = field(default_factory=list)
    catalog_header: dict | None = None
    edges_header: dict | None = None
    edges_given: bool = False
    errors: list[RecordError] = field(default_factory=list)
    warnings: list[RecordError] = field(default_factory=list)
    superseded: list[str] = field(default_factory=list)
    where: dict[int, tuple[str, int]] = field(default_factory=dict)  # id(item) -> (source, index)


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
            here = f"{path}.{key}" if path else key
            found = _first_bad_text(key, here) or _first_bad_text(item, here)
            if found:
                return found
    if isinstance(value, list):
        for i, item in enumerate(value):
            found = _first_bad_text(item, f"{path}[{i}]")
            if found:
                return found
    return None


def _check_text(raw: object, source: str, index: int) -> None:
    """Refuse what cannot be stored as it is: lone surrogates, NaN/Infinity, non-JSON values,
    nesting deeper than ``MAX_DEPTH`` (items handed over by the API, not parsed by kg)."""
    def fail(path: str, message: str) -> RecordError:
        record_id = raw.get("id") if isinstance(raw, dict) and isinstance(raw.get("id"), str) else None
        shown = None if record_id is None else record_id.encode("utf-8", "backslashreplace").decode()
        return RecordError(source, index, shown, path, message)

    if json_depth(raw) > MAX_DEPTH:
        raise fail("(record)", f"nested more than {MAX_DEPTH} levels deep")
    try:
        json.dumps(raw, ensure_ascii=False, allow_nan=False).encode("utf-8")
    except UnicodeEncodeError:
        raise fail(_first_bad_text(raw, "") or "(record)",
                   "holds a lone surrogate (not valid Unicode text)") from None
    except (ValueError, TypeError, RecursionError) as err:
        raise fail("(record)", f"is not plain JSON: {err}") from None


_SCHEME = re.compile(r"^[\s\x00-\x1f]*([A-Za-z][A-Za-z0-9+.\-]*):(?=\S)")


def link_scheme_problem(text: object) -> str | None:
    """Why a citation or URL is a risky non-web link (``javascript:``, ``file:``, ``data:``, ...).

    It is kept as text (``kg.mapping.iri_or_text`` only makes http(s) IRIs); this only
    explains it. Free text ("see the docs") and http(s) URLs give None.

    >>> link_scheme_problem("javascript:alert(1)")
    "a 'javascript:' link, not http(s); kept as text"
    >>> link_scheme_problem("https://example.org/x") is None, link_scheme_problem("Note: see docs") is None
    (True, True)
    """
    if not isinstance(text, str):
        return None
    match = _SCHEME.match(text)
    if match is None or match.group(1).lower() in ("http", "https"):
        return None
    return f"a '{match.group(1).lower()}:' link, not http(s); kept as text"


def _record_warnings(record: Record, source: str, index: int) -> list[RecordError]:
    found = []
    problem = link_scheme_problem(record.url)
    if problem:
        found.append(RecordError(source, index, record.id, "url", problem))
    for slug, cell in (record.cells or {}).items():
        problem = link_scheme_problem(cell.citation)
        if problem:
            found.append(RecordError(source, index, record.id, f"cells.{slug}.citation", problem))
    return found


def _edge_warnings(edge: Edge, source: str, index: int) -> list[RecordError]:
    where = f"{edge.source} -> {edge.target}"
    found = []
    if edge.type not in EDGE_PROPERTIES:
        found.append(RecordError(source, index, where, "type", f"unknown edge type {edge.type!r}: kept as a "
                                 "relation without a direct link (kg validate reports it)"))
    problem = link_scheme_problem(edge.citation)
    if problem:
        found.append(RecordError(source, index, where, "citation", problem))
    return found


def _collect(batches: Iterable[Batch]) -> _Input:
    """Check every item; a later file's record replaces an earlier file's record of the same id."""
    found = _Input()
    records: dict[str, Record] = {}
    edge_keys: dict[tuple[str, str, str], str] = {}
    for batch in (part for given in batches for part in given.expanded()):
        if batch.kind == EDGES:
            _take_edges(found, batch, edge_keys)
            continue
        seen_here: dict[str, int] = {}
        for index, raw in enumerate(batch.items):
            record = _take_record(found, raw, batch.source, index, seen_here)
            if record is None:
                continue
            if record.id in records:
                found.superseded.append(record.id)
                del records[record.id]  # keep input order: the newer version goes last
            records[record.id] = record
        # an empty or all-bad catalog file never replaces the stored catalog header
        if batch.kind == BULK and seen_here:
            found.catalog_header = batch.header
    found.records = list(records.values())
    return found


def _take_edges(found: _Input, batch: Batch, edge_keys: dict) -> None:
    """Check the edges of an edges batch: good ones join ``found.edges``, bad ones its errors."""
    found.edges_given = True
    good_edges = []
    for index, raw in enumerate(batch.items):
        try:
            _check_text(raw, batch.source, index)
            edge = edge_from_json(raw, source=batch.source, index=index)
            _check_edge(edge, batch.source, index, edge_keys)
        except RecordError as err:
            found.errors.append(err)
            continue
        found.warnings += _edge_warnings(edge, batch.source, index)
        found.where[id(edge)] = (batch.source, index)
        good_edges.append(edge)
    if good_edges:
        found.edges += good_edges
        found.edges_header = batch.header


def _take_record(found: _Input, raw: object, source: str, index: int, seen_here: dict[str, int]) -> Record | None:
    """One checked record (None, with the error in ``found``, when it is bad); ``seen_here``
    holds the ids met so far in the same file."""
    try:
        _check_text(raw, source, index)
        record = record_from_json(raw, source=source, index=index)
        if record.id in seen_here:
            raise RecordError(source, index, record.id, "id",
                              f"duplicate id (first at [{seen_here[record.id]}] of the same file)")
    except RecordError as err:
        found.errors.append(err)
        return None
    found.warnings += _record_warnings(record, source, index)
    found.where[id(record)] = (source, index)
    seen_here[record.id] = index
    return record


def _check_edge(edge: Edge, source: str, index: int, seen: dict) -> None:
    where = f"{edge.source} -> {edge.target}"
    if edge.source == edge.target:
        raise RecordError(source, index, where, "target", "self-edge: source and target are the same record")
    if edge.key in seen:
        raise RecordError(source, index, where, "type",
                          f"duplicate edge ({edge.type}); first seen at {seen[edge.key]}")
    seen[edge.key] = f"[{index}]"


class _Tentative:
    """The shared resources already described, plus those a record describes; the record's
    additions are kept only when it maps without error (``keep``)."""

    def __init__(self, described: set[str]) -> None:
        self.described, self.new = described, set()

    def __contains__(self, iri: str) -> bool:
        return iri in self.new or iri in self.described

    def add(self, iri: str) -> None:
        self.new.add(iri)

    def keep(self) -> None:
        self.described |= self.new


def _map_records(found: _Input, iris: Iris,
                 described: set[str] | None = None) -> list[tuple[NamedNode, list[Quad], list[Quad]]]:
    """Every good record as (graph, its quads, shared descriptions), before anything is written.

    A record that cannot be expressed in RDF joins the quarantine instead of failing
    the run halfway (so strict mode still writes nothing). ``described`` (updated) holds
    the shared resources already described in this run.
    """
    mapped = []
    described = set() if described is None else described
    kept = []
    for record in found.records:
        local = _Tentative(described)
        try:
            own, descriptions = record_quads(record, iris, local)
        except (ValueError, OverflowError) as err:
            source, index = found.where.get(id(record), ("<input>", None))
            found.errors.append(RecordError(source, index, record.id, "(record)",
                                            f"cannot be expressed in RDF: {err}"))
            continue
        local.keep()
        kept.append(record)
        mapped.append((iris.record_graph(record.id), own, descriptions))
    found.records = kept
    return mapped


def ingest_paths(store: GraphStore, paths: list[str], iris: Iris | None = None, *,
                 strict: bool = False, progress: Progress | None = None,
                 stream: bool | None = None) -> IngestReport:
    """Read ``paths`` (files, folders, '-') and ingest them; see ``ingest_batches``.

    Bulk catalog files of ``STREAM_MIN_BYTES`` or more are streamed (``ingest_inputs``):
    checked whole first, then read, mapped and written ``BATCH_SIZE`` records at a
    time, so memory does not grow with the file. ``stream`` True streams every bulk
    catalog file, False none. The graph written is the same either way.
    """
    if stream is False:
        return ingest_batches(store, list(read_paths(paths)), iris, strict=strict, progress=progress)
    inputs = read_inputs(paths, stream_min_bytes=0 if stream else STREAM_MIN_BYTES)
    if not any(isinstance(item, CatalogStream) for item in inputs):
        return ingest_batches(store, inputs, iris, strict=strict, progress=progress)
    return ingest_inputs(store, inputs, iris, strict=strict, progress=progress)


@transactional
def ingest_batches(store: GraphStore, batches: list[Batch], iris: Iris | None = None, *,
                   strict: bool = False, progress: Progress | None = None) -> IngestReport:
    """Ingest already-read batches: each record replaces its own named graph.

    Everything is checked and mapped before the first write. Bad items are
    quarantined (``strict``: ``InputRejected``, nothing written). Input with nothing
    good in it (an empty records list, only bad records) leaves the store untouched.
    """
    iris = iris or Iris()
    started = time.perf_counter()
    found = _collect(batches)
    mapped = _map_records(found, iris)
    if strict and found.errors:
        raise InputRejected(found.errors)
    report = IngestReport(quarantined=found.errors, superseded=found.superseded, warnings=found.warnings,
                          sources=[b.source for b in batches])
    total = len(mapped)
    if not total and not found.edges:
        report.seconds = time.perf_counter() - started
        return report
    for start in range(0, total, BATCH_SIZE):
        graphs, shared = {}, []
        for graph, own, descriptions in mapped[start:start + BATCH_SIZE]:
            graphs[graph] = own
            shared += descriptions
        store.replace_graphs(graphs, shared)
        report.quads_written += sum(len(q) for q in graphs.values()) + len(shared)
        if progress:
            progress(min(start + BATCH_SIZE, total), total)
    report.records = total
    return _finish(store, iris, found, report, started)


@transactional
def ingest_inputs(store: GraphStore, inputs: list[Batch | CatalogStream], iris: Iris | None = None, *,
                  strict: bool = False, progress: Progress | None = None) -> IngestReport:
    """Ingest inputs from ``read_inputs``, ``BATCH_SIZE`` records at a time.

    Every input was checked whole before (an unreadable file changes nothing). The
    records are then checked, mapped and written a chunk at a time; across chunks only
    ids are kept (for duplicates in a file, and for later files superseding earlier
    ones), so memory does not grow with the input. ``strict`` first checks and maps
    everything without writing. A record superseded by a later file is written first,
    then replaced: the store ends as with ``ingest_batches``.
    """
    iris = iris or Iris()
    started = time.perf_counter()
    if strict:
        dry = _stream(None, inputs, iris, None, IngestReport())
        if dry.errors:
            raise InputRejected(dry.errors)
    report = IngestReport(sources=[item.source for item in inputs])
    found = _stream(store, inputs, iris, progress, report)
    report.quarantined, report.superseded, report.warnings = found.errors, found.superseded, found.warnings
    if not report.records and not found.edges:
        report.seconds = time.perf_counter() - started
        return report
    return _finish(store, iris, found, report, started)


def _stream(store: GraphStore | None, inputs: list[Batch | CatalogStream], iris: Iris,
            progress: Progress | None, report: IngestReport) -> _Input:
    """Check, map and (with a store) write the records of ``inputs`` a chunk at a time;
    edges are checked and kept (they are written by ``_finish``)."""
    found = _Input()
    edge_keys: dict[tuple[str, str, str], str] = {}
    taken: set[str] = set()  # ids of the records taken so far
    pending: dict[str, Record] = {}
    described: set[str] = set()
    written: set[str] = set()  # ids of the records written (a superseded one is written again)
    total = sum(item.count if isinstance(item, CatalogStream) else len(item.items)
                for item in inputs if item.kind != EDGES)
    done = 0

    def flush() -> None:
        chunk = _Input(records=list(pending.values()), where=found.where)
        mapped = _map_records(chunk, iris, described)
        found.errors.extend(chunk.errors)
        for record in pending.values():
            found.where.pop(id(record), None)
        pending.clear()
        if store is not None and mapped:
            graphs, shared = {}, []
            for graph, own, descriptions in mapped:
                graphs[graph] = own
                shared += descriptions
            store.replace_graphs(graphs, shared)
            report.quads_written += sum(len(q) for q in graphs.values()) + len(shared)
            written.update(record.id for record in chunk.records)
            report.records = len(written)
        if progress:
            progress(done, total)

    for part in (p for given in inputs for p in given.expanded()):
        if part.kind == EDGES:
            _take_edges(found, part, edge_keys)
            continue
        seen_here: dict[str, int] = {}
        for index, raw in enumerate(part.items):
            done += 1
            record = _take_record(found, raw, part.source, index, seen_here)
            if record is None:
                continue
            if record.id in taken:  # from an earlier input (a duplicate in this one is an error)
                found.superseded.append(record.id)
                earlier = pending.pop(record.id, None)
                if earlier is not None:
                    found.where.pop(id(earlier), None)
            taken.add(record.id)
            pending[record.id] = record
            if len(pending) >= BATCH_SIZE:
                flush()
        if part.kind == BULK and seen_here:
            found.catalog_header = part.header
    if pending:
        flush()
    return found


def _finish(store: GraphStore, iris: Iris, found: _Input, report: IngestReport, started: float) -> IngestReport:
    """After the records: catalog header, edges and ontology graphs, clean-up, description."""
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
    if report.records:
        drop_unused_shared(store, iris)
    refresh_description(store, iris)
    store.flush()
    report.warnings += _dangling_edges(store, iris, found)
    report.seconds = time.perf_counter() - started
    return report


def _dangling_edges(store: GraphStore, iris: Iris, found: _Input) -> list[RecordError]:
    """Warnings for edges of this input whose ends are not records in the store (edges may
    arrive before their records: they are kept; ``kg validate`` reports them too)."""
    if not found.edges:
        return []
    present = set(stored_record_ids(store, iris))
    warnings = []
    for edge in found.edges:
        for end, record_id in (("source", edge.source), ("target", edge.target)):
            if record_id not in present:
                source, index = found.where.get(id(edge), ("<input>", None))
                warnings.append(RecordError(source, index, f"{edge.source} -> {edge.target}", end,
                                            f"{record_id!r} is not a record in the store (yet); edge kept"))
    return warnings


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


@transactional
def remove_records(store: GraphStore, record_ids: Iterable[str], iris: Iris) -> None:
    store.remove_graphs(iris.record_graph(i) for i in record_ids)
    refresh_description(store, iris)


def path_label(path: str) -> str:
    return "<stdin>" if path == "-" else str(Path(path))
