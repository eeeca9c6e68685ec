"""The ingest's hook: diff only the records whose content hash changed, and write the
changeset inside the ingest's own write session (a killed ingest leaves no half changeset).

An ingest makes one ``Recorder`` before its first write; ``before_write`` sees each batch
of records just before it replaces their graphs (so streamed ingests work batch by
batch); ``finish`` compares edges and headers, removes the records a ``replace_all``
release no longer has, and writes the changeset and the new hashes. An ingest that
changes nothing writes no changeset.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import os
from itertools import repeat
from typing import Any, Iterable

from pyoxigraph import Literal, Quad

from ..mapping import edges_from_quads, header_from_quads, record_from_quads
from ..records import Record, edge_to_json, record_to_json
from ..store import GraphStore, literal_text
from ..vocab import KG, Iris
from .compare import content_hash, diff_edges, diff_headers, diff_records
from .log import changeset_numbers
from .model import ADDED, CHANGED, REMOVED, Changeset, InputFile, RecordChange
from .quads import changeset_quads

DISTRIBUTION = "agent-landscape-kg"
BULK_QUADS = 50_000  # a changeset this big (every record of a build added) goes in through the bulk loader


def now() -> str:
    """The time now in UTC, as xsd:dateTime text to the second, without a zone: Oxigraph writes a
    UTC zone as ``Z`` and rdflib reads it back as ``+00:00``, so a zone would not survive a
    round trip through another tool."""
    return _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0, tzinfo=None).isoformat()


def kg_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(DISTRIBUTION)
    except PackageNotFoundError:
        return "0+unknown"


def input_file(path: str) -> InputFile:
    """Name, size and SHA-256 of an input file (a folder or stdin: the name only)."""
    if not os.path.isfile(path):
        return InputFile(os.path.basename(path.rstrip("/")) or path, 0, "")
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return InputFile(os.path.basename(path), os.path.getsize(path), digest.hexdigest())


def stored_record(store: GraphStore, iris: Iris, record_id: str) -> dict:
    """The stored JSON of one record, from its own graph (one read of that graph, nothing else)."""
    return record_to_json(record_from_quads(store.quads(iris.record_graph(record_id)), iris, record_id))


class Recorder:
    """Collects one ingest's changes; see the module's docstring. It costs what the ingest
    changes, not what the store holds: each record given costs one look-up of its stored
    hash, and only a record whose hash differs is read back (``replace_all`` lists the
    store's record graphs once, to find the records the release lacks)."""

    def __init__(self, store: GraphStore, iris: Iris) -> None:
        self.store, self.iris = store, iris
        # the version before the ingest: reading the session instead would end a build's one bulk load
        previous = store.previous()
        self.stored = previous if previous is not None else store  # (an empty store is falsy: it has a length)
        self.started = now()
        self.old_hashes: dict[str, str | None] = {}  # looked up once per record given (None: no hash stored)
        self.new_hashes: dict[str, str] = {}
        self.before: dict[str, dict] = {}  # the stored JSON of records that changed
        self.changes: dict[str, RecordChange] = {}
        self.removed: list[str] = []

    def old_hash(self, record_id: str) -> str | None:
        """The content hash stored for a record before this ingest (None: none stored)."""
        if record_id not in self.old_hashes:
            found = next(iter(self.stored.match(self.iris.record_graph(record_id), KG.contentHash, None,
                                               self.iris.history_index_graph)), None)
            self.old_hashes[record_id] = literal_text(found.object) if found is not None else None
        return self.old_hashes[record_id]

    def before_write(self, records: Iterable[Record], digests: Iterable[str | None] | None = None) -> None:
        """Diff a batch of records against the stored versions (call before writing them). ``digests``:
        their content hashes where already made (by an ingest's worker process), in the same order."""
        for record, given in zip(records, digests if digests is not None else repeat(None)):
            as_json: dict | None = None
            if given is None:
                as_json = record_to_json(record)
                given = content_hash(as_json)
            digest = self.new_hashes[record.id] = given
            self.changes.pop(record.id, None)
            if digest == self.old_hash(record.id):
                continue
            if record.id not in self.before:  # a record given twice: keep the version from before the ingest
                graph = self.iris.record_graph(record.id)
                self.before[record.id] = stored_record(self.stored, self.iris, record.id) \
                    if self.stored.has_graph(graph) else {}
            before = self.before[record.id]
            # a stored hash that differs means a change; without one (a store from before hashes) the JSON tells
            if not before:
                self.changes[record.id] = RecordChange(record.id, ADDED)
            elif self.old_hash(record.id) is not None or content_hash(before) != digest:
                after = as_json if as_json is not None else record_to_json(record)
                self.changes[record.id] = RecordChange(record.id, CHANGED, diff_records(before, after))

    def finish(self, sources: list[str], *, edges: list[Any] | None = None, edges_header: dict | None = None,
               catalog_header: dict | None = None, replace_all: bool = False) -> Changeset | None:
        """Remove what a ``replace_all`` release lacks, then write the changeset (None: nothing changed).
        ``edges`` are the ``Edge`` objects of the new edges file (None: no edges file)."""
        changeset = Changeset(started=self.started, version=kg_version())
        if replace_all and self.new_hashes:
            self._remove_missing()
        changeset.records = list(self.changes.values())
        if edges is not None:
            self._edges(changeset, [edge_to_json(e) for e in edges], edges_header or {})
        if catalog_header is not None:
            catalog = self.iris.catalog_graph
            old = header_from_quads(self._version_of([catalog]).quads(catalog), self.iris.catalog_source)
            changeset.headers += diff_headers({"catalog": old} if old is not None else {}, {"catalog": catalog_header})
        if changeset.empty:
            fresh = self._new_hash_quads()  # records of a store from before hashes: hashed, not changed
            if fresh:
                self._add(fresh)
            return None
        changeset.inputs = [input_file(path) for path in sources]
        changeset.ended = now()
        number = max(changeset_numbers(self._version_of(None), self.iris), default=0) + 1
        changeset.number = number
        self._add(changeset_quads(changeset.sort(), self.iris, number) + self._new_hash_quads())
        self._drop_old_hashes()
        return changeset

    def _version_of(self, graphs: list[Any] | None) -> GraphStore:
        """The version to read ``graphs`` from (None: the changeset graphs): the one the ingest
        started from where the session has not written them, the same content as the session's,
        and read without ending a build's one bulk load, so that the changeset joins it."""
        written = self.store.written_graphs()
        if written is None:
            return self.store
        if graphs is None:
            touched = any(self.iris.changeset_number(g) is not None for g in written)
        else:
            touched = any(g in written for g in graphs)
        return self.store if touched else self.stored

    def _add(self, quads: list[Quad]) -> None:
        """A small changeset by a plain transactional insert: the bulk loader pays off only for
        many quads (a first build's) and makes a big store slow to write a few."""
        if len(quads) > BULK_QUADS:
            self.store.add_bulk(quads)
        else:
            self.store.add(quads)

    def _remove_missing(self) -> None:
        # the store's record graphs now: those stored before plus those this ingest wrote (all given)
        missing = sorted(set(self.iris.stored_ids(self.store.named_graphs())) - set(self.new_hashes))
        for record_id in missing:
            self.changes[record_id] = RecordChange(record_id, REMOVED,
                                                   before=stored_record(self.store, self.iris, record_id))
        self.store.remove_graphs(self.iris.record_graph(i) for i in missing)
        self.removed = missing

    def _edges(self, changeset: Changeset, new: list[dict], header: dict) -> None:
        stored = self._version_of([self.iris.edges_graph]).quads(self.iris.edges_graph)
        quads = list(stored)
        old = [edge_to_json(e) for e in edges_from_quads(quads, self.iris)]
        changeset.edges, reordered = diff_edges(old, new)
        if reordered:
            changeset.edges_before = old
        old_header = header_from_quads(quads, self.iris.edges_source)
        changeset.headers += diff_headers({"edges": old_header} if old_header is not None else {}, {"edges": header})

    def _hash_quad(self, record_id: str, digest: str) -> Quad:
        return Quad(self.iris.record_graph(record_id), KG.contentHash, Literal(digest), self.iris.history_index_graph)

    def _new_hash_quads(self) -> list[Quad]:
        return [self._hash_quad(rid, digest) for rid, digest in self.new_hashes.items()
                if self.old_hash(rid) != digest]

    def _drop_old_hashes(self) -> None:
        stale = [self._hash_quad(rid, old) for rid in [*self.new_hashes, *self.removed]
                 if (old := self.old_hash(rid)) is not None and old != self.new_hashes.get(rid)]
        if stale:
            self.store.update("DELETE DATA {\n" + "\n".join(
                f"GRAPH {q.graph_name} {{ {q.subject} {q.predicate} {q.object} }}" for q in stale) + "\n}")
