"""RDF files read for validation: data files for ``kg validate FILE``, and the user's shapes files."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

import pyoxigraph

from ..errors import SourceError
from ..store import FORMATS, GraphStore
from ..vocab import Iris
from .report import Owner

RDF_FORMATS = {".ttl": "turtle", ".nt": "ntriples", ".nq": "nquads", ".trig": "trig", ".jsonld": "jsonld",
               ".rdf": "rdfxml"}


def rdf_format(path: str) -> str:
    """The RDF format of a file, from its extension (a SourceError for an unknown one)."""
    fmt = RDF_FORMATS.get(Path(path).suffix.lower())
    if fmt is None:
        raise SourceError(path, f"unknown RDF format (use one of {', '.join(sorted(RDF_FORMATS))})")
    return fmt


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
        fmt = rdf_format(path)
        try:
            with open(path, "rb") as handle:
                parsed = list(pyoxigraph.parse(handle, format=FORMATS[fmt], base_iri=iris.base))
        except OSError as err:
            raise SourceError(path, f"cannot read: {err.strerror or err}") from None
        except (SyntaxError, ValueError) as err:
            raise SourceError(path, f"not valid {fmt}: {err}") from None
        for item in parsed:
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
    """The triples (or quads) of one RDF file and the prefixes it declares.

    A file that cannot be read, or is not RDF of its format, raises a SourceError
    that names the line and column where parsing stopped.
    """
    fmt = rdf_format(path)
    try:
        with open(path, "rb") as handle:
            parser = pyoxigraph.parse(handle, format=FORMATS[fmt], base_iri=base)
            items = list(parser)
    except OSError as err:
        raise SourceError(path, f"cannot read: {err.strerror or err}") from None
    except SyntaxError as err:
        where = f"line {err.lineno}, column {err.offset}: " if err.lineno else ""
        raise SourceError(path, f"{where}not valid {fmt}: {err.msg}") from None
    except ValueError as err:
        raise SourceError(path, f"not valid {fmt}: {err}") from None
    return items, dict(getattr(parser, "prefixes", {}) or {})
