"""The graphs kg writes about the dataset itself: the ontology graph and the VoID/DCAT description.

The description is rebuilt from the store after each ingest (``refresh_description``)
and read back by ``kg info`` (``read_description``); it holds the catalog's feature tallies
too (``kg.coverage``). Its ``void:triples`` counts every
triple of the dataset, the description's own included, so that it is the number of
triples every export holds.
"""

from __future__ import annotations

import json
from typing import Any, TypedDict

import pyoxigraph
from pyoxigraph import Literal, NamedNode, Quad, QuerySolutions

from .coverage import Written, count_all, count_by_change, tally_quads
from .store import GraphStore, literal_text
from .vocab import (
    ATTRIBUTION, CATALOG_REPOSITORY, CC_BY_4, DCAT, DCTERMS, KG, ONTOLOGY_FILE, ONTOLOGY_IRI, ONTOLOGY_VERSION,
    RDF, VOID, XSD, Iris,
)

COUNTED_CLASSES = (
    KG.System, KG.Vendor, KG.License, KG.Protocol, KG.Cell, KG.Relation, KG.Column,
    KG.PublicationVenue, KG.ProtocolSupport, KG.HistoryEntry, KG.Provenance,
)

# Over the named graphs but the description, and the default graph (RDF loaded without a graph).
_CLASS_COUNTS = """
SELECT ?class (COUNT(DISTINCT ?s) AS ?n) WHERE {
  { GRAPH ?g { ?s a ?class } } UNION { ?s a ?class }
  FILTER(!BOUND(?g) || ?g != ?description)
} GROUP BY ?class
"""


def ontology_quads(iris: Iris) -> list[Quad]:
    """The ontology, in its own named graph."""
    return [Quad(t.subject, t.predicate, t.object, iris.ontology_graph)
            for t in pyoxigraph.parse(path=str(ONTOLOGY_FILE), format=pyoxigraph.RdfFormat.TURTLE)]


def class_counts(store: GraphStore, iris: Iris) -> dict[str, int]:
    """Distinct instances per class, over every graph but the description itself."""
    result = store.query(_CLASS_COUNTS, {"description": iris.dataset_graph}, union=False)
    assert isinstance(result, QuerySolutions)
    return {row["class"].value: int(row["n"].value) for row in result}


def _generated_at(store: GraphStore, iris: Iris) -> str | None:
    rows = store.select(f"SELECT ?h WHERE {{ ?src {KG.header} ?h }}", {"src": iris.catalog_source})
    if not rows:
        return None
    value = json.loads(rows[0]["h"].value).get("generatedAt")
    return value if isinstance(value, str) else None


def _integer(value: int) -> Literal:
    return Literal(str(value), datatype=XSD.integer)


def _description_quads(store: GraphStore, iris: Iris, counts: dict[str, int]) -> list[Quad]:
    """Every quad of the description but its ``void:triples``, with these counts per class."""
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
        Quad(d, VOID.entities, _integer(counts.get(KG.System.value, 0)), g),
    ]
    generated = _generated_at(store, iris)
    if generated:
        quads.append(Quad(d, DCTERMS.created, Literal(generated), g))
    for cls in COUNTED_CLASSES:
        part = iris.class_partition(cls)
        quads += [
            Quad(d, VOID.classPartition, part, g),
            Quad(part, VOID.term("class"), cls, g),
            Quad(part, VOID.entities, _integer(counts.get(cls.value, 0)), g),
        ]
    return quads


def _stated_elsewhere(store: GraphStore, quad: Quad, graph: NamedNode) -> bool:
    """Whether the triple of ``quad`` is in some graph other than ``graph``."""
    return any(found.graph_name != graph for found in store.match(quad.subject, quad.predicate, quad.object))


def refresh_description(store: GraphStore, iris: Iris, told: Written | None = None) -> None:
    """Replace the dataset description graph with fresh counts (``told``: the feature cells of
    record graphs the session wrote, as the writer tells them).

    ``void:triples``: the quads outside the description, plus the description's own
    triples that no other graph states. In a store kg built, no triple is in two
    graphs, so this is the number of triples of every export (N-Quads, TriG, Turtle,
    ...). A dataset loaded from a Turtle export holds a copy of the description in
    its default graph: then the new description adds no triple, and the union of the
    graphs is exactly the exported one.
    """
    g = iris.dataset_graph
    written, previous = store.written_graphs(), store.previous()
    known = _counted_by_change(store, iris)
    if known is None:  # no earlier description, or a change that cannot be told: count everything
        counts, outside = class_counts(store, iris), len(store) - store.graph_size(g)
    else:
        counts, outside = known
    tally = (count_by_change(store, previous, written, iris, told)
             if written is not None and previous is not None else None)
    quads = _description_quads(store, iris, counts) + tally_quads(tally or count_all(store, iris), iris)
    triples = outside + sum(1 for q in quads if not _stated_elsewhere(store, q, g))
    counted = Quad(iris.dataset, VOID.triples, _integer(triples), g)
    if not _stated_elsewhere(store, counted, g):
        counted = Quad(iris.dataset, VOID.triples, _integer(triples + 1), g)  # counts itself
    store.replace_graphs({g: quads + [counted]})


def _counted_by_change(store: GraphStore, iris: Iris) -> tuple[dict[str, int], int] | None:
    """(instances per class, quads outside the description) from the description of the version
    the write session started from, updated by what the session wrote: work in proportion to the
    graphs written, not to the store. None when that cannot be done (no session, nothing written
    can be told, no description before)."""
    written, previous = store.written_graphs(), store.previous()
    g = iris.dataset_graph
    if written is None or previous is None:
        return None
    stated = read_counts(previous, iris)
    if stated is None:
        return None
    counts, triples = stated
    own = sum(1 for q in previous.quads(g) if not _stated_elsewhere(previous, q, g))
    outside = triples - own
    written.discard(g)
    counted = {cls.value for cls in COUNTED_CLASSES}
    pairs: set[tuple[Any, NamedNode]] = set()
    for graph in written:
        outside += store.graph_size(graph) - previous.graph_size(graph)
        subjects = store.written_subjects(graph)  # a graph merged into: only its written subjects
        before, after = (_typings(version, graph, counted, subjects) for version in (previous, store))
        pairs |= before ^ after  # a typing the graph states before and after changes no count
    for subject, cls in pairs:
        change = _typed_outside(store, subject, cls, g) - _typed_outside(previous, subject, cls, g)
        counts[cls.value] = counts.get(cls.value, 0) + change
    return counts, outside


def _typings(store: GraphStore, graph: NamedNode, counted: set[str],
             subjects: set[Any] | None = None) -> set[tuple[Any, NamedNode]]:
    """(subject, class) of the ``rdf:type`` quads of ``graph`` whose class is counted (of ``subjects``
    only, when given)."""
    quads = (store.match(None, RDF.type, None, graph) if subjects is None
             else (q for s in subjects for q in store.match(s, RDF.type, None, graph)))
    return {(q.subject, q.object) for q in quads if isinstance(q.object, NamedNode) and q.object.value in counted}


def _typed_outside(store: GraphStore, subject: Any, cls: NamedNode, description: NamedNode) -> int:
    """1 when some graph but the description says ``subject`` is a ``cls``, else 0."""
    return int(any(q.graph_name != description for q in store.match(subject, RDF.type, cls)))


def read_counts(store: GraphStore, iris: Iris) -> tuple[dict[str, int], int] | None:
    """(instances per class IRI, ``void:triples``) as the description states them; None without one."""
    g, d = iris.dataset_graph, iris.dataset
    triples = [q.object for q in store.match(d, VOID.triples, None, g)]
    if len(triples) != 1:
        return None
    counts: dict[str, int] = {}
    for part in store.match(d, VOID.classPartition, None, g):
        classes = [q.object for q in store.match(part.object, VOID.term("class"), None, g)]
        entities = [q.object for q in store.match(part.object, VOID.entities, None, g)]
        if len(classes) != 1 or len(entities) != 1:
            return None
        counts[literal_text(classes[0])] = int(literal_text(entities[0]))
    if {cls.value for cls in COUNTED_CLASSES} - set(counts):
        return None
    return counts, int(literal_text(triples[0]))


class Description(TypedDict):
    """The dataset description as ``kg info`` shows it."""

    triples: int
    generatedAt: str | None
    counts: dict[str, int]  # instances per class (local name)


def read_description(store: GraphStore, iris: Iris) -> Description:
    """The dataset description as plain values: triples, generation time, counts per class.

    >>> read_description(GraphStore(), Iris())
    {'triples': 0, 'generatedAt': None, 'counts': {}}
    """
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
