"""History recording, a stage of the ingest: each batch's stored versions read before it is written,
and the changeset of the ingest made at the end (``kg.history``), in its write session."""

from __future__ import annotations

from typing import Iterable

from ..history import Recorder
from ..records import Edge, Record
from ..store import GraphStore
from ..vocab import Iris
from .report import IngestReport


class HistoryRecording:
    """Watches the batches of one ingest as they are written, and records its changeset."""

    def __init__(self, store: GraphStore, iris: Iris) -> None:
        self.recorder = Recorder(store, iris)

    def before_write(self, records: Iterable[Record], digests: Iterable[str | None] | None = None) -> None:
        """Note these records' stored versions, before they are replaced (``digests``: their content
        hashes, where worker processes made them). Called on the main thread while the batch before is
        loaded: the writer thread is the slower side (9,120 records: 191 s of 234), and these records'
        stored versions are not being written."""
        self.recorder.before_write(records, digests)

    def finish(self, report: IngestReport, edges: list[tuple[Edge, str, int]], edges_header: dict | None,
               catalog_header: dict | None, replace_all: bool) -> None:
        """The changeset of this ingest into ``report`` (and the records ``replace_all`` removed),
        before the edges graph is replaced; nothing when nothing was written."""
        if not (report.records or edges):
            return
        report.changeset = self.recorder.finish(
            report.sources, edges=[edge for edge, _, _ in edges] if edges else None,
            edges_header=edges_header, catalog_header=catalog_header, replace_all=replace_all)
        report.removed = self.recorder.removed
