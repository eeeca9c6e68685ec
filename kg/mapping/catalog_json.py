"""Quads -> the catalog JSON: header, records and edges rebuilt from the graph (``kg export --format catalog-json``).

It reads any object with ``quads(graph)`` and ``named_graphs()`` (a ``GraphStore``):
the mapping never imports the store.
"""

from __future__ import annotations

import json
from typing import IO, Any, Iterable, Iterator, Protocol

from pyoxigraph import NamedNode, Quad

from ..records import edge_to_json, record_to_json
from ..vocab import ATTRIBUTION, Iris
from .from_quads import edges_from_quads, header_from_quads, record_from_quads


class QuadSource(Protocol):
    """What the catalog JSON is read from: the quads of a graph, and the named graphs."""

    def quads(self, graph: NamedNode | None = None) -> Iterable[Quad]: ...

    def named_graphs(self) -> list[NamedNode]: ...


def _catalog_head(source: QuadSource, iris: Iris) -> dict[str, Any]:
    header = header_from_quads(source.quads(iris.catalog_graph), iris.catalog_source) or {}
    head: dict[str, Any] = dict(header)
    head.setdefault("license", "CC-BY-4.0")
    head.setdefault("attribution", ATTRIBUTION)
    return head


def catalog_records(source: QuadSource, iris: Iris, ids: Iterable[str] | None = None) -> Iterator[dict[str, Any]]:
    """The records rebuilt from their named graphs, one at a time, in id order (with ``ids``:
    only those of them the source holds)."""
    wanted = None if ids is None else set(ids)
    for graph in source.named_graphs():
        record_id = iris.record_graph_id(graph)
        if record_id is not None and (wanted is None or record_id in wanted):
            yield record_to_json(record_from_quads(source.quads(graph), iris, record_id))


def _catalog_edges(source: QuadSource, iris: Iris) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    edges = [edge_to_json(e) for e in edges_from_quads(source.quads(iris.edges_graph), iris)]
    return edges, header_from_quads(source.quads(iris.edges_graph), iris.edges_source) or {}


def catalog_json(source: QuadSource, iris: Iris) -> dict[str, Any]:
    """The catalog rebuilt from the graph: header, records (in id order) and edges."""
    out = _catalog_head(source, iris)
    out["records"] = list(catalog_records(source, iris))
    out["edges"], edges_header = _catalog_edges(source, iris)
    if edges_header:
        out["edgesHeader"] = edges_header
    return out


def write_catalog_json(source: QuadSource, output: IO[bytes], iris: Iris) -> None:
    """``catalog_json`` written as it is rebuilt, a record per line (memory: one record)."""
    def dump(value: Any) -> bytes:
        return json.dumps(value, ensure_ascii=False).encode()

    output.write(b"{")
    for key, value in _catalog_head(source, iris).items():
        output.write(b"\n" + dump(key) + b": " + dump(value) + b",")
    output.write(b'\n"records": [')
    for i, record in enumerate(catalog_records(source, iris)):
        output.write((b",\n" if i else b"\n") + dump(record))
    edges, edges_header = _catalog_edges(source, iris)
    output.write(b'\n],\n"edges": [')
    for i, edge in enumerate(edges):
        output.write((b",\n" if i else b"\n") + dump(edge))
    output.write(b"\n]")
    if edges_header:
        output.write(b',\n"edgesHeader": ' + dump(edges_header))
    output.write(b"\n}\n")
