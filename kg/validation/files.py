"""RDF files read for validation: data files for ``kg validate FILE``, and the user's shapes files."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import pyoxigraph

from ..errors import SourceError
from ..rdffiles import RDF_EXTENSIONS, rdf_format_for_path, read_rdf_file as read_quads, read_rdf_with_prefixes
from ..store import GraphStore
from ..vocab import Iris
from .report import Owner


@dataclass(frozen=True)
class RdfFiles:
    """RDF files read for ``kg validate FILE``: their quads as the files write them, and a store laid out like
    an ingested one.

    The SHACL engine and pySHACL read ``quads``, the terms as written: the store keeps some
    literals by their value (``"3"^^xsd:byte`` as ``"3"^^xsd:integer``, ``"03"^^xsd:integer`` as
    ``"3"``, see docs/guide/validation.md), and a validation of a file answers for the file. The
    checks that are SPARQL queries (our catalog-wide rules) read ``store``.
    """

    store: GraphStore
    quads: list[pyoxigraph.Quad]


def load_rdf_files(paths: Sequence[str], iris: Iris) -> RdfFiles:
    """RDF files read, as written and into an in-memory store laid out like an ingested one.

    Triples of a quad format keep their graph. Triples without one go to the graph
    of the record that owns their subject (``<base>system/<id>...``), relations to
    the edges graph, everything else to the shared graph. One file's blank nodes keep
    the labels it gives them (a report names them so); several files' are told apart.
    """
    owner = Owner(iris)
    quads: list[pyoxigraph.Quad] = []
    for path in paths:
        # read safely: no DTD or entity expansion, nesting and size capped, no remote context
        for item in read_quads(path, base_iri=iris.base, rename_blank_nodes=len(paths) > 1):
            if isinstance(item, pyoxigraph.Quad) and not isinstance(item.graph_name, pyoxigraph.DefaultGraph):
                quads.append(item)
                continue
            quads.append(pyoxigraph.Quad(item.subject, item.predicate, item.object,
                                         _graph_for(item.subject, owner, iris)))
    store = GraphStore()
    store.add_bulk(quads)
    return RdfFiles(store, quads)


def _graph_for(subject: Any, owner: Owner, iris: Iris) -> pyoxigraph.NamedNode:
    text = subject.value if isinstance(subject, pyoxigraph.NamedNode) else ""
    if text.startswith(owner.relations):
        return iris.edges_graph
    record = owner.record(text)
    if record is not None:
        return iris.record_graph(record)
    return iris.shared_graph


def read_rdf_file(path: str, base: str, rename_blank_nodes: bool = True) -> tuple[list[Any], dict[str, str]]:
    """The quads of one shapes file, read safely (kg.rdffiles), and the prefixes it declares (its blank
    nodes' labels kept, without ``rename_blank_nodes``).

    A file that cannot be read, or is not RDF of its format, raises a SourceError
    that names the line and column where parsing stopped.
    """
    if rdf_format_for_path(path) is None:
        raise SourceError(path, f"unknown RDF format (use one of {', '.join(sorted(RDF_EXTENSIONS))})")
    return read_rdf_with_prefixes(path, base_iri=base, rename_blank_nodes=rename_blank_nodes)
