"""kg: the AI Agent Infrastructure Landscape catalog as an RDF knowledge graph.

The Python API mirrors the command line::

>>> import kg
>>> store = kg.GraphStore()                      # in memory; GraphStore("kg-store") on disk
>>> report = kg.ingest(store, kg.bundled_paths())
>>> report.records, report.edges
(912, 528)
>>> rows = kg.query(store, "info")
>>> sorted((r["label"].value, int(r["entities"].value)) for r in rows)[-1]
('Vendor', 580)
"""

from __future__ import annotations

from .errors import KgError, QueryError, RecordError, SourceError, StoreError, UsageError
from .export import export
from .ingest import IngestReport, ingest_paths as ingest
from .queries import run as query
from .sources import bundled_paths
from .store import GraphStore
from .vocab import Iris

__all__ = [
    "GraphStore", "Iris", "IngestReport", "bundled_paths", "ingest", "export", "query",
    "KgError", "SourceError", "RecordError", "StoreError", "QueryError", "UsageError",
]
