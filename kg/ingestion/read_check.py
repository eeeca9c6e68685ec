"""Read and check, the first stage: inputs -> checked records pending, edges, file headers, RDF quads.

Every input was read (and a streamed file checked whole) by ``kg.sources`` before; here its items
are checked one by one (``ItemChecker``: structure, caps, duplicates). A bad item joins the
quarantine (``Notices.errors``); a good record waits in ``pending`` until a chunk of them is handed
on to be mapped (``pending_batches``). Across chunks only ids are kept, so memory does not grow with
the input: a record given again in a later file supersedes the earlier version (which may be
written first, then replaced).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

from pyoxigraph import Quad

from ..errors import RecordError
from ..records import Edge, Record
from ..sources import BULK, EDGES, Batch, CatalogStream, Input, ItemChecker, RdfDocument
from . import batching
from .settings import Caps

# why an edge (edge, source, index, its position among the edges) is set aside; None: it goes in
EdgeCheck = Callable[[Edge, str, int, int], "RecordError | None"]


@dataclass
class Pending:
    """A checked record waiting to be mapped: where it came from, its size as UTF-8 JSON, its JSON as
    read (``raw``: what a worker process is sent, cheaper to send than the record), and its content hash
    once a worker made it (``digest``, for the history)."""

    record: Record
    source: str
    index: int
    size: int = 0
    raw: Any = None
    digest: str | None = None


@dataclass
class Notices:
    """What a pass over the inputs set aside (``errors``: the quarantine, in the order met) and what
    went in with a remark (``warnings``); every stage adds to the same two lists."""

    errors: list[RecordError] = field(default_factory=list)
    warnings: list[RecordError] = field(default_factory=list)


def item_count(part: Input) -> int:
    """How many records an input holds (for progress)."""
    if isinstance(part, CatalogStream):
        return part.count
    if isinstance(part, Batch) and part.kind != EDGES:
        return len(part.items)
    return 0


class ReadCheck:
    """The first stage of one pass: checks the items of the inputs, in order, and hands on the good
    records a chunk at a time (``chunk`` None: all of them at the end)."""

    def __init__(self, notices: Notices, caps: Caps, chunk: int | None, edge_check: EdgeCheck | None) -> None:
        self.notices, self.chunk, self.edge_check = notices, chunk, edge_check
        self.checker = ItemChecker(max_cells=caps[0], max_bytes=caps[1])
        self.pending: dict[str, Pending] = {}
        self.pending_bytes = 0  # their JSON (a record superseded while pending still counts: handed on sooner)
        self.taken: set[str] = set()  # ids of the records taken so far
        self.superseded: list[str] = []
        self.edges: list[tuple[Edge, str, int]] = []  # (edge, source, index)
        self.edges_header: dict | None = None
        self.catalog_header: dict | None = None
        self.rdf: list[Quad] = []
        self.done = 0  # records checked so far
        self.total = 0  # records in the inputs

    def pending_batches(self, inputs: list[Input], hand_over_at_end: bool = False) -> Iterator[list[Pending]]:
        """The good records of ``inputs``, a chunk at a time; the last (possibly empty, with
        ``hand_over_at_end``) when the inputs end. Edges, headers and RDF quads are kept here."""
        parts = [part for given in inputs for part in given.expanded()]
        self.total = sum(item_count(part) for part in parts)
        for part in parts:
            if isinstance(part, RdfDocument):
                self.rdf += part.quads
                self.notices.warnings += part.warnings  # literals the store keeps otherwise than written
            elif part.kind == EDGES:
                self._take_edges(part)
            else:
                yield from self._take_records(part)
        if self.pending or hand_over_at_end:
            yield self._hand_over()

    def _hand_over(self) -> list[Pending]:
        """The records pending, in the order they came (a superseding version last); none left pending."""
        pending = list(self.pending.values())
        self.pending.clear()
        self.pending_bytes = 0
        return pending

    def _take_edges(self, batch: Batch) -> None:
        good: list[tuple[Edge, str, int]] = []
        for checked in self.checker.edges(batch):
            self.notices.warnings += checked.warnings  # an edge given twice byte for byte: kept once, with a warning
            if checked.item is None:
                self.notices.errors += [checked.error] if checked.error else []
                continue
            broken = self._edge_breaks(checked.item, checked.source, checked.index, len(self.edges) + len(good))
            if broken is not None:
                self.notices.errors.append(broken)
                continue
            good.append((checked.item, checked.source, checked.index))
        if good:  # an edges file with no usable edges never empties the stored edges
            self.edges += good
            self.edges_header = batch.header

    def _edge_breaks(self, edge: Edge, source: str, index: int, position: int) -> RecordError | None:
        return None if self.edge_check is None else self.edge_check(edge, source, index, position)

    def _take_records(self, batch: Batch | CatalogStream) -> Iterator[list[Pending]]:
        if batch.note:
            self.notices.warnings.append(RecordError(batch.source, None, None, "(file)", batch.note))
        any_good = False
        for checked in self.checker.records(batch):
            self.done += 1
            record = checked.item
            if record is None:
                self.notices.errors += [checked.error] if checked.error else []
                continue
            any_good = True
            self.notices.warnings += checked.warnings
            self._take(Pending(record, checked.source, checked.index, checked.size, checked.raw))
            if batching.chunk_is_full(len(self.pending), self.pending_bytes, self.chunk):
                yield self._hand_over()
        # an empty or all-bad catalog file never replaces the stored catalog header
        if batch.kind == BULK and any_good:
            self.catalog_header = batch.header

    def _take(self, pending: Pending) -> None:
        """Keep a good record pending; one given in an earlier input is superseded (a duplicate in
        the same input is the checker's error)."""
        record_id = pending.record.id
        if record_id in self.taken:
            self.superseded.append(record_id)
            self.pending.pop(record_id, None)  # the newer version goes last
        self.taken.add(record_id)
        self.pending[record_id] = pending
        self.pending_bytes += pending.size
