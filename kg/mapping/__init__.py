"""Records <-> quads: the two layers of the graph, and the way back to the catalog JSON.

* ``to_quads``: a record -> the quads of its named graph (the faithful layer, and the
  typed layer of ``typed_layer``), an edge -> its relation, a file header -> its source-file node;
* ``graph_writer``: what collects one graph's triples and the shared resources it describes;
* ``features``: which cells are features, their family and state;
* ``from_quads``: those quads -> the record, the edges, the header again;
* ``catalog_json``: the whole catalog JSON rebuilt from a store's graphs;
* ``fields``: JSON values <-> RDF terms, and the field tables both directions share.
"""

from .catalog_json import QuadSource, catalog_json, catalog_records, write_catalog_json
from .fields import date_literal, iri_or_text, json_literal, json_value, value_literal
from .from_quads import edges_from_quads, header_from_quads, record_from_quads
from .features import FEATURE_FAMILIES, feature_family, feature_states
from .graph_writer import Triple, in_graph
from .to_quads import record_quads, record_triples, relation_quads, source_file_quads
from .typed_layer import NUMBER_COLUMNS, PROTOCOL_COLUMNS

__all__ = [
    "FEATURE_FAMILIES", "NUMBER_COLUMNS", "PROTOCOL_COLUMNS", "QuadSource", "catalog_json", "catalog_records",
    "Triple", "date_literal", "edges_from_quads", "feature_family", "feature_states", "header_from_quads", "in_graph",
    "iri_or_text", "json_literal", "json_value", "record_from_quads", "record_quads", "record_triples",
    "relation_quads", "source_file_quads", "value_literal",
    "write_catalog_json",
]
