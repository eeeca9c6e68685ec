"""RDF inputs of an ingest: the quads of one RDF file, read safely by :mod:`kg.rdffiles`."""

from __future__ import annotations

from dataclasses import dataclass

from pyoxigraph import Quad

from ..rdffiles import (MAX_RDF_BYTES, MAX_RDF_DEPTH, RDF_EXTENSIONS, RDF_FORMATS, rdf_format, rdf_format_for_path,
                        read_rdf_bytes, read_rdf_file)

RDF = "rdf"  # the kind of an RdfDocument (beside the JSON kinds catalog, records, edges)


@dataclass
class RdfDocument:
    """The quads of one RDF input, already parsed and checked."""

    source: str
    format: str
    quads: list[Quad]
    kind: str = RDF

    def expanded(self) -> list["RdfDocument"]:
        return [self]


__all__ = ["MAX_RDF_BYTES", "MAX_RDF_DEPTH", "RDF", "RDF_EXTENSIONS", "RDF_FORMATS", "RdfDocument", "rdf_format",
           "rdf_format_for_path", "read_rdf_bytes", "read_rdf_file"]
