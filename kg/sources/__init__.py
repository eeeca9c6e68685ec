"""The readers: input files -> checked catalog items or RDF quads. No store, no mapping here.

* ``json_files``: catalog, record, edges and JSON Lines files (strict JSON; the shape
  is detected from the content);
* ``whole``: a JSON input read whole (text, bytes, a file, paths);
* ``scanner``: the incremental JSON reader the streaming and the too-deep readers share;
* ``stream``: large files (catalogs, top-level lists, JSON Lines), one record at a time,
  with the same checks;
* ``rdf``: Turtle, N-Triples, N-Quads, TriG, JSON-LD and RDF/XML, read safely;
* ``checks``: the items of a batch -> typed records and edges, or why not;
* ``inputs``: which reader reads which path.
"""

from .checks import MAX_RECORD_BYTES, MAX_RECORD_CELLS, Checked, ItemChecker, check_plain_json, link_scheme_problem
from .inputs import Input, bundled_paths, read_inputs
from .json_files import (
    BULK, EDGES, MAX_DEPTH, RECORDS, Batch, batch_from_document, json_depth, parse_json,
)
from .rdf import (
    MAX_RDF_BYTES, MAX_RDF_DEPTH, RDF, RDF_EXTENSIONS, RdfDocument, rdf_format, rdf_format_for_path,
    read_rdf_bytes, read_rdf_file,
)
from .whole import read_bytes, read_paths, read_text
from .stream import STREAM_MIN_BYTES, CatalogStream, scan_catalog, scan_file, scan_lines, scan_list

__all__ = [
    "BULK", "EDGES", "MAX_RECORD_BYTES", "MAX_RECORD_CELLS", "MAX_DEPTH", "RECORDS", "RDF", "Batch", "CatalogStream", "Checked", "Input", "ItemChecker",
    "MAX_RDF_BYTES", "MAX_RDF_DEPTH", "RDF_EXTENSIONS", "RdfDocument", "STREAM_MIN_BYTES", "batch_from_document",
    "bundled_paths", "check_plain_json", "json_depth", "link_scheme_problem", "parse_json", "rdf_format",
    "rdf_format_for_path", "read_bytes", "read_inputs", "read_paths", "read_rdf_bytes", "read_rdf_file",
    "read_text", "scan_catalog", "scan_file", "scan_lines", "scan_list",
]
