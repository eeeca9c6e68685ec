"""RDF files read for validation: data files for ``kg validate FILE``, and the user's shapes files."""

from __future__ import annotations

from typing import Any, Sequence

import pyoxigraph

from ..errors import SourceError
from ..rdffiles import RDF_EXTENSIONS, rdf_format_for_path, read_rdf_file as read_quads, read_rdf_with_prefixes
from ..store import GraphStore
from ..vocab import Iris
from .report import Owner

def load_rdf_files(paths: Sequence[str], iris: Iris) -> GraphStore:
    """RDF files read into an in-memory store laid out like an ingested one.

    Triples of a quad format keep their graph. Triples without one go to the graph
    of the record that owns their subject (``<base>system/<id>...``), relations to
    the edges graph, everything else to the shared graph.
    """
    store = GraphStore()
    owner = Owner(iris)
    quads: list[pyoxigraph.Quad] = []
    for path in paths:
        # read safely: no DTD or entity expansion, nesting and size capped, no remote context
        for item in read_quads(path, base_iri=iris.base):
            if isinstance(item, pyoxigraph.Quad) and not isinstance(item.graph_name, pyoxigraph.DefaultGraph):
                quads.append(item)
                continue
            quads.append(pyoxigraph.Quad(item.subject, item.predicate, item.object,
                                         _graph_for(item.subject, owner, iris)))
    store.add_bulk(quads)
    return store


def _graph_for(subject: Any, owner: Owner, iris: Iris) -> pyoxigraph.NamedNode:
    text = subject.value if isinstance(subject, pyoxigraph.NamedNode) else ""
    if text.startswith(owner.relations):
        return iris.edges_graph
    record = owner.record(text)
    if record is not None:
        return iris.record_graph(record)
    return iris.shared_graph


def read_rdf_file(path: str, base: str) -> tuple[list[Any], dict[str, str]]:
    """The quads of one shapes file, read safely (kg.rdffiles), and the prefixes it declares.

    A file that cannot be read, or is not RDF of its format, raises a SourceError
    that names the line and column where parsing stopped.
    """
    if rdf_format_for_path(path) is None:
        raise SourceError(path, f"unknown RDF format (use one of {', '.join(sorted(RDF_EXTENSIONS))})")
    return read_rdf_with_prefixes(path, base_iri=base)
