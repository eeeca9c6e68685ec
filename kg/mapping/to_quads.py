"""Records -> quads: the faithful layer of each record's named graph, edges and file headers.

``record_quads`` turns one ``Record`` into the quads of its own named graph:

* the faithful layer keeps every input field (cells as ``kg:Cell`` nodes, sections,
  taxonomy, history, provenance, unknown keys as ``kg:ExtraField``), enough for
  ``kg.mapping.from_quads.record_from_quads`` to rebuild the record exactly;
* the typed layer (``kg.mapping.typed_layer``) reads the cells into shared resources and
  typed values for querying (vendor, licences, protocol support, deployment, dates, numbers).

Every node has a stable IRI derived from the record id; no blank nodes.
"""

from __future__ import annotations

from pyoxigraph import Literal, NamedNode, Quad

from ..records import MISSING, Edge, Record
from ..vocab import DCTERMS, EDGE_PROPERTIES, KG, RDF, RDFS, SCHEMA, SKOS, TAXONOMY_AXES, Iris, segment
from .features import cell_feature_state, feature_family
from .fields import (
    CELL_EXPECTED, CELL_FIELDS, CHANGE_FIELDS, EDGE_FIELDS, HISTORY_FIELDS, LIFECYCLE_FIELDS,
    PROVENANCE_FIELDS, RECORD_FIELDS, SECTION_EXPECTED, SECTION_FIELDS, TAXONOMY_EXPECTED, TAXONOMY_FIELDS,
    TRUE, escape_key, json_literal, value_literal, word,
)
from .graph_writer import Described, GraphWriter, Triple, in_graph
from .typed_layer import typed_layer


def record_quads(record: Record, iris: Iris,
                 described: Described | None = None) -> tuple[list[Quad], list[Quad]]:
    """The quads of ``record``'s named graph (faithful plus typed layer), and the
    descriptions of the shared resources it points to (for the shared graph).

    ``described`` holds the IRIs of shared resources already described in this run.
    """
    triples, shared = record_triples(record, iris, described)
    return in_graph(triples, iris.record_graph(record.id)), shared



def record_triples(record: Record, iris: Iris,
                   described: Described | None = None) -> tuple[list[Triple], list[Quad]]:
    """As :func:`record_quads`, with the record graph's triples as (subject, predicate, object): the
    terms themselves, for the rules at ingest to index (``Facts.add_terms``) before they are quads."""
    w = GraphWriter(iris.record_graph(record.id), iris.shared_graph, described)
    s = iris.system(record.id)
    w.add(s, RDF.type, KG.System)
    w.add(s, DCTERMS.identifier, Literal(record.id))
    w.add(s, SCHEMA.name, Literal(record.name))
    w.add(s, RDFS.label, Literal(record.name))
    w.add(s, KG.tier, value_literal(record.tier))
    w.fields(s, record, RECORD_FIELDS)
    _sections(w, iris, s, record)
    _taxonomy(w, iris, s, record)
    _cells(w, iris, s, record)
    _provenance(w, iris, s, record)
    _lifecycle(w, iris, s, record)
    _history(w, iris, s, record)
    w.extra(iris, s, {escape_key(k): v for k, v in record.extra.items()})
    typed_layer(w, iris, s, record)
    return w.triples, w.shared


def _sections(w: GraphWriter, iris: Iris, s: NamedNode, record: Record) -> None:
    if not w.container(s, "sections", record.sections):
        return
    primary = record.primary_section
    for i, listing in enumerate(record.sections or ()):
        m = iris.part(s, "section", str(i))
        concept = iris.section(listing.section)
        w.add(s, KG.sectionMembership, m)
        w.add(m, RDF.type, KG.SectionMembership)
        w.add(m, KG.position, value_literal(i))
        w.add(m, KG.sectionName, word(listing.section))
        w.add(m, KG.section, concept)
        if listing.as_name:
            w.add(m, KG.givenAsName, TRUE)
        else:
            w.fields(m, listing, SECTION_FIELDS, SECTION_EXPECTED)
        w.extra(iris, m, listing.extra)
        w.add(s, KG.section, concept)
        if w.first_time(concept):
            w.describe(concept, RDF.type, SKOS.Concept)
            w.describe(concept, SKOS.prefLabel, Literal(listing.section))
            w.describe(concept, SKOS.inScheme, iris.sections_scheme)
    if primary is not None:
        w.add(s, KG.primarySection, iris.section(primary))
    if w.first_time(iris.sections_scheme):
        w.describe(iris.sections_scheme, RDF.type, SKOS.ConceptScheme)
        w.describe(iris.sections_scheme, RDFS.label, Literal("Catalog sections", language="en"))


def _taxonomy(w: GraphWriter, iris: Iris, s: NamedNode, record: Record) -> None:
    if not w.container(s, "taxonomy", record.taxonomy):
        return
    _taxonomy_text(w, s, record)
    for axis, values in (record.taxonomy or {}).items():
        scheme = iris.axis_scheme(axis)
        if not values:
            w.add(s, KG.emptyKey, word(f"taxonomy.{axis}"))
        for i, item in enumerate(values):
            t = iris.part(s, "taxonomy", segment(axis), str(i))
            concept = iris.taxonomy_concept(axis, item.value)
            w.add(s, KG.taxonomyAssignment, t)
            w.add(t, RDF.type, KG.TaxonomyAssignment)
            w.add(t, KG.axis, scheme)
            if i:  # position 0 is the default: most axes hold one value
                w.add(t, KG.position, value_literal(i))
            w.add(t, KG.taxonomyValue, word(item.value))
            w.add(t, KG.concept, concept)
            w.fields(t, item, TAXONOMY_FIELDS, TAXONOMY_EXPECTED)
            w.extra(iris, t, item.extra)
            if axis in TAXONOMY_AXES:
                w.add(s, TAXONOMY_AXES[axis], concept)
            if w.first_time(concept):
                w.describe(concept, RDF.type, SKOS.Concept)
                w.describe(concept, SKOS.prefLabel, Literal(item.value))
                w.describe(concept, SKOS.inScheme, scheme)
        if w.first_time(scheme):
            w.describe(scheme, RDF.type, SKOS.ConceptScheme)
            w.describe(scheme, RDFS.label, Literal(f"Taxonomy axis: {axis}", language="en"))


def _taxonomy_text(w: GraphWriter, s: NamedNode, record: Record) -> None:
    """find's taxonomy column, derived once here: "axis=value" for the seven axes, "; " between."""
    taxonomy = record.taxonomy if isinstance(record.taxonomy, dict) else {}
    assigned: list[str] = []
    for axis in TAXONOMY_AXES:
        for item in taxonomy.get(axis) or ():
            text = f"{axis}={item.value}"
            if text not in assigned:
                assigned.append(text)
    if assigned:
        w.add(s, KG.taxonomyText, Literal("; ".join(assigned)))


def _cells(w: GraphWriter, iris: Iris, s: NamedNode, record: Record) -> None:
    if not w.container(s, "cells", record.cells):
        return
    for column_slug, cell in (record.cells or {}).items():
        c = iris.part(s, "cell", segment(column_slug))
        column = iris.column(column_slug)
        w.add(s, KG.cell, c)
        w.add(c, RDF.type, KG.Cell)
        w.add(c, KG.column, column)
        w.fields(c, cell, CELL_FIELDS, CELL_EXPECTED)
        if cell.extra:
            w.extra(iris, c, cell.extra)
        _column(w, column, column_slug)
        if feature_family(column_slug) is not None:
            w.add(c, KG.featureState, word(cell_feature_state(cell)))


def _column(w: GraphWriter, column: NamedNode, column_slug: str) -> None:
    if not w.first_time(column):
        return
    w.describe(column, RDF.type, KG.Column)
    w.describe(column, DCTERMS.identifier, Literal(column_slug))
    w.describe(column, RDFS.label, Literal(column_slug))
    family = feature_family(column_slug)
    if family is not None:
        w.describe(column, KG.featureFamily, Literal(family))


def _provenance(w: GraphWriter, iris: Iris, s: NamedNode, record: Record) -> None:
    if not w.container(s, "_provenance", record.provenance):
        return
    for column_slug, item in (record.provenance or {}).items():
        p = iris.part(s, "provenance", segment(column_slug))
        w.add(s, KG.provenance, p)
        w.add(p, RDF.type, KG.Provenance)
        w.add(p, KG.column, iris.column(column_slug))
        w.fields(p, item, PROVENANCE_FIELDS)
        w.extra(iris, p, item.extra)


def _lifecycle(w: GraphWriter, iris: Iris, s: NamedNode, record: Record) -> None:
    lifecycle = record.lifecycle
    if lifecycle is MISSING:
        return
    if lifecycle is None:
        w.add(s, KG.nullKey, Literal("lifecycle"))
        return
    w.fields(s, lifecycle, LIFECYCLE_FIELDS)
    w.extra(iris, s, lifecycle.extra, prefix="lifecycle.")
    if all(getattr(lifecycle, attr) is MISSING for attr, *_ in LIFECYCLE_FIELDS) and not lifecycle.extra:
        w.add(s, KG.emptyKey, Literal("lifecycle"))


def _history(w: GraphWriter, iris: Iris, s: NamedNode, record: Record) -> None:
    if not w.container(s, "history", record.history):
        return
    for i, entry in enumerate(record.history or ()):
        h = iris.part(s, "history", str(i))
        w.add(s, KG.historyEntry, h)
        w.add(h, RDF.type, KG.HistoryEntry)
        w.add(h, KG.position, value_literal(i))
        w.fields(h, entry, HISTORY_FIELDS)
        w.extra(iris, h, entry.extra)
        if not w.container(h, "changes", entry.changes):
            continue
        for j, change in enumerate(entry.changes or ()):
            fc = iris.part(h, "change", str(j))
            w.add(h, KG.fieldChange, fc)
            w.add(fc, RDF.type, KG.FieldChange)
            w.add(fc, KG.position, value_literal(j))
            w.fields(fc, change, CHANGE_FIELDS)
            w.extra(iris, fc, change.extra)


def relation_quads(edge: Edge, position: int, iris: Iris) -> list[Quad]:
    """The relation node of one edge and, for a known type, its direct triple."""
    w = GraphWriter(iris.edges_graph)
    source, target = iris.system(edge.source), iris.system(edge.target)
    r = iris.relation(edge.source, edge.type, edge.target)
    w.add(r, RDF.type, KG.Relation)
    w.add(r, KG.source, source)
    w.add(r, KG.target, target)
    w.add(r, KG.edgeType, Literal(edge.type))
    w.add(r, KG.position, value_literal(position))
    w.fields(r, edge, EDGE_FIELDS)
    w.extra(iris, r, edge.extra)
    prop = EDGE_PROPERTIES.get(edge.type)
    if prop is not None:
        w.add(r, KG.edgeProperty, prop)
        w.add(source, prop, target)
    return w.quads


def source_file_quads(node: NamedNode, graph: NamedNode, kind: str, header: dict) -> list[Quad]:
    """The header of a catalog or edges file, kept so the file can be rebuilt."""
    w = GraphWriter(graph)
    w.add(node, RDF.type, KG.SourceFile)
    w.add(node, KG.sourceKind, Literal(kind))
    w.add(node, KG.header, json_literal(header))
    return w.quads
