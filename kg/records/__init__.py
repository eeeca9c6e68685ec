"""The typed record model: catalog records and edges, normalised from either input shape.

No I/O and no RDF here. ``record_from_json`` checks the structure of one record
(types of the fields the graph is built from) and raises ``RecordError`` naming
the field path; catalog *rules* (tier range, statuses, citation rules, ...) are
left to SHACL so that ``kg validate`` can report them. ``record_to_json`` rebuilds
the exact input object: keys present with ``null`` stay ``null``, absent keys stay
absent, unknown keys are carried in ``extra``.

* ``model``: the dataclasses (``Record``, ``Edge``, their parts) and ``MISSING``;
* ``from_json``: JSON -> model, the structure checked (``record_from_json``, ``edge_from_json``);
* ``to_json``: model -> JSON, the exact inverse (``record_to_json``, ``edge_to_json``).

>>> rec = record_from_json({"id": "mem0", "name": "Mem0", "tier": 1, "url": None,
...     "last_verified_at": "2026-05-14", "sections": [], "taxonomy": {}, "cells": {},
...     "x-note": [1, 2]})
>>> rec.extra
{'x-note': [1, 2]}
>>> record_to_json(rec)["x-note"]
[1, 2]
"""

from .from_json import EDGE_KEYS, RECORD_KEYS, edge_from_json, record_from_json
from .model import (
    MISSING, Cell, Edge, FieldChange, HistoryEntry, Json, Lifecycle, Provenance, Record, SectionListing,
    TaxonomyValue,
)
from .to_json import cell_to_json, edge_to_json, record_to_json

__all__ = [
    "EDGE_KEYS", "MISSING", "RECORD_KEYS", "Cell", "Edge", "FieldChange", "HistoryEntry", "Json", "Lifecycle",
    "Provenance", "Record", "SectionListing", "TaxonomyValue", "cell_to_json", "edge_from_json",
    "edge_to_json", "record_from_json", "record_to_json",
]
