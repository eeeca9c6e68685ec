"""RDF inputs of an ingest: the quads of one RDF file, read safely by :mod:`kg.rdffiles`, and a warning for
each datatype whose literals the store keeps in another form (:mod:`kg.stored_literals`)."""

from __future__ import annotations

from dataclasses import dataclass, field

from pyoxigraph import Quad

from ..errors import RecordError
from ..stored_literals import changed_literals, warning_lines

from ..rdffiles import (MAX_RDF_BYTES, MAX_RDF_DEPTH, RDF_EXTENSIONS, RDF_FORMATS, rdf_format, rdf_format_for_path,
                        read_rdf_bytes, read_rdf_file)

RDF = "rdf"  # the kind of an RdfDocument (beside the JSON kinds catalog, records, edges)


@dataclass
class RdfDocument:
    """The quads of one RDF input, already parsed and checked; ``warnings``: what the store will keep
    otherwise than written (``read``)."""

    source: str
    format: str
    quads: list[Quad]
    kind: str = RDF
    warnings: list[RecordError] = field(default_factory=list)

    @classmethod
    def read(cls, source: str, fmt: str, quads: list[Quad]) -> "RdfDocument":
        """The document of ``quads``, with a warning (field ``(literal)``) per datatype the store changes."""
        lines = warning_lines(changed_literals(quads))
        return cls(source, fmt, quads, warnings=[RecordError(source, None, None, "(literal)", line) for line in lines])

    def expanded(self) -> list["RdfDocument"]:
        return [self]


__all__ = ["MAX_RDF_BYTES", "MAX_RDF_DEPTH", "RDF", "RDF_EXTENSIONS", "RDF_FORMATS", "RdfDocument", "rdf_format",
           "rdf_format_for_path", "read_rdf_bytes", "read_rdf_file"]
