"""The baselines kg is measured against: an rdflib-only pipeline, and the N-Triples floor.

rdflib-only pipeline, on the same records and the same triples as kg:

* ingest: the catalog's records, typed by ``kg.records`` and mapped by ``kg.mapping``
  (so both pipelines produce the very same quads), converted to rdflib terms (each
  distinct term once) and added to an ``rdflib.Dataset`` (one named graph per record,
  as kg's store);
* validation: stock pySHACL, once, over the union of all triples in one rdflib Graph
  with every shape (``kg.validation.validate_monolithic``);
* exports: rdflib's serialisers (Turtle of the union, JSON-LD and N-Quads of the dataset);
* queries: rdflib's SPARQL engine, with the default graph the union of the named
  graphs, as in kg's store.

The floor: the same records mapped to the same triples, written as N-Triples text:
what a pipeline costs that does nothing but produce its triples.

The stages of ``stage_baselines.py`` and ``stage_bulk_load.py`` time these (``benchmarks/run.py``).
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any, Iterable, Iterator

BATCH = 100_000  # triples per addN / write
XSD_STRING = "http://www.w3.org/2001/XMLSchema#string"


def records_and_edges(catalog: str | Path, edges_file: str | Path, limit: int | None = None):
    """(records, edges): the catalog's records one at a time (never the whole file in
    memory) as ``kg.records.Record``, and the edges between them. ``limit``: the first
    ``limit`` records only, and the edges among them."""
    from kg.records import edge_from_json, record_from_json
    from kg.sources import CatalogStream

    path = Path(catalog)
    info = path.stat()
    stream = CatalogStream(str(path), path, {}, 0, (info.st_size, info.st_mtime_ns))

    def records() -> Iterator[Any]:
        for index, raw in enumerate(itertools.islice(stream.items, limit)):
            yield record_from_json(raw, source=str(path), index=index)

    edges = json.loads(Path(edges_file).read_text(encoding="utf-8"))["edges"]
    if limit is not None:
        kept = {raw["id"] for raw in itertools.islice(stream.items, limit)}
        edges = [e for e in edges if e["source"] in kept and e["target"] in kept]
    return records(), [edge_from_json(e, index=i) for i, e in enumerate(edges)]


def kg_quads(catalog: str | Path, edges_file: str | Path, limit: int | None = None) -> Iterator[Any]:
    """The quads kg's ingest writes, one record at a time (pyoxigraph terms): record
    graphs, shared descriptions, relations and the ontology graph; all but the catalog
    header and the dataset description (a few dozen triples kg derives from its store)."""
    from kg.mapping import record_quads, relation_quads
    from kg.vocab import Iris

    iris = Iris()
    described: set[str] = set()
    records, edges = records_and_edges(catalog, edges_file, limit)
    for record in records:
        own, shared = record_quads(record, iris, described)
        yield from own
        yield from shared
    for position, edge in enumerate(edges):
        yield from relation_quads(edge, position, iris)
    yield from _module("kg.description").ontology_quads(iris)  # queries read labels and notations from it


def _module(name: str) -> Any:
    import importlib

    return importlib.import_module(name)


def write_ntriples(quads: Iterable[Any], path: str | Path) -> int:
    """The floor: the triples of ``quads`` as N-Triples text; returns how many were written."""
    count = 0
    with open(path, "w", encoding="utf-8") as fh:
        lines = []
        for q in quads:
            lines.append(f"{q.subject} {q.predicate} {q.object} .\n")
            if len(lines) >= BATCH:
                fh.write("".join(lines))
                count += len(lines)
                lines.clear()
        fh.write("".join(lines))
        count += len(lines)
    return count


class ToRdflib:
    """pyoxigraph terms -> rdflib terms, each distinct term converted once (rdflib's
    Literal parses its value eagerly, so converting repeated terms once is a real saving)."""

    def __init__(self) -> None:
        import rdflib

        self.rdflib = rdflib
        self.cache: dict[Any, Any] = {}

    def __call__(self, term: Any) -> Any:
        found = self.cache.get(term)
        if found is None:
            found = self.cache[term] = self._convert(term)
        return found

    def _convert(self, term: Any) -> Any:
        import pyoxigraph as ox

        rdflib = self.rdflib
        if isinstance(term, ox.NamedNode):
            return rdflib.URIRef(term.value)
        if isinstance(term, ox.Literal):
            if term.language:
                return rdflib.Literal(term.value, lang=term.language)
            if term.datatype.value == XSD_STRING:  # a simple literal: rdflib keeps those untyped
                return rdflib.Literal(term.value)
            return rdflib.Literal(term.value, datatype=rdflib.URIRef(term.datatype.value))
        if isinstance(term, ox.BlankNode):
            return rdflib.BNode(term.value)
        raise TypeError(f"unexpected term {term!r}")


def build_dataset(quads: Iterable[Any]) -> Any:
    """The rdflib pipeline's ingest: quads -> rdflib terms -> a Dataset (union default graph)."""
    import rdflib

    dataset = rdflib.Dataset(default_union=True)
    convert = ToRdflib()
    graphs: dict[Any, Any] = {}

    def quad(q: Any) -> tuple:
        graph = graphs.get(q.graph_name)
        if graph is None:
            graph = graphs[q.graph_name] = dataset.graph(convert(q.graph_name))
        return convert(q.subject), convert(q.predicate), convert(q.object), graph

    _add_batched(dataset, (quad(q) for q in quads))
    return dataset


def _add_batched(target: Any, quads: Iterable[tuple]) -> None:
    """``target.addN`` in batches of ``BATCH`` (one call per quad is slower, one call for
    everything holds every converted quad at once)."""
    batch = []
    for item in quads:
        batch.append(item)
        if len(batch) >= BATCH:
            target.addN(batch)
            batch.clear()
    target.addN(batch)


def build_union_graph(quads: Iterable[Any]) -> Any:
    """The same triples in one rdflib Graph: what monolithic pySHACL reads fastest."""
    import rdflib

    graph = rdflib.Graph()
    convert = ToRdflib()
    _add_batched(graph, ((convert(q.subject), convert(q.predicate), convert(q.object), graph) for q in quads))
    return graph


def union_of(dataset: Any) -> Any:
    """Every triple of the dataset in one Graph (what a triple format such as Turtle holds)."""
    import rdflib

    graph = rdflib.Graph()
    graph.addN((s, p, o, graph) for s, p, o, _ in dataset.quads((None, None, None, None)))
    return graph


EXPORT_FORMATS = {"turtle": "turtle", "jsonld": "json-ld", "nquads": "nquads"}


def export(dataset: Any, union: Any, fmt: str, path: str | Path) -> None:
    """rdflib's serialiser for ``fmt`` (Turtle from the union graph, the others from the dataset)."""
    source = union if fmt == "turtle" else dataset
    source.serialize(destination=str(path), format=EXPORT_FORMATS[fmt])


def query_rows(dataset: Any, text: str, limit: int | None = None) -> int:
    """Run a SPARQL query with rdflib's engine; the number of rows (an ASK: 0 or 1)."""
    result = dataset.query(text)
    if result.type == "ASK":
        return int(bool(result.askAnswer))
    return sum(1 for _ in itertools.islice(result, limit))


def validate(graph: Any) -> Any:
    """Stock pySHACL once over the whole graph with every shape (kg.validation's reference run)."""
    return _module("kg.validation").validate_monolithic(graph)
