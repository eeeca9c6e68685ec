"""An earlier release checked out (``kg checkout``): its catalog JSON, and a store rebuilt at that
changeset (``--into DIR``): the release's records, edges and shared resources, and the history up to it.

It sits above the ingest (it feeds the release to the normal ingest, in one write session of the new
store) and below the command line.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from .errors import InputRejected, UsageError, safe_text
from .history import changeset_numbers
from .history.snapshots import catalog_document, history_quads, snapshot_at
from .history.compare import Snapshot
from .ingestion import ingest_batches
from .sources import BULK, EDGES, RECORDS, Batch
from .store import GraphStore
from .vocab import Iris


@dataclass(frozen=True)
class Checkout:
    """A release checked out: its catalog JSON (the shape of ``kg export -f catalog-json``) and,
    when a store was rebuilt from it, that store's quad count."""

    changeset: int
    document: dict[str, Any]
    quads: int | None = None

    @property
    def counts(self) -> str:
        """"N records, M edges": what the release holds."""
        return f"{len(self.document['records'])} records, {len(self.document['edges'])} edges"


def checkout(store: GraphStore, number: int, iris: Iris | None = None, *, into: str | os.PathLike | None = None,
             force: bool = False) -> Checkout:
    """The catalog as it was right after changeset ``number`` (``kg checkout N``); with ``into``, also a
    store rebuilt there holding that release and the history up to it (``--into DIR``, all or nothing;
    a folder holding a store already is refused unless ``force``; the store being read is refused).

    >>> import kg
    >>> store = kg.GraphStore()
    >>> _ = kg.ingest(store, [p for p in kg.bundled_paths() if p.endswith("seed-record.json")])
    >>> kg.checkout(store, 1).counts, kg.checkout(store, 0).counts
    ('1 records, 0 edges', '0 records, 0 edges')
    """
    iris = iris or Iris()
    snapshot = snapshot_at(store, iris, number)
    document = catalog_document(snapshot)
    if into is None:
        return Checkout(number, document)
    if store.path is not None and os.path.realpath(into) == os.path.realpath(store.path):
        raise UsageError("--into names the store being read; give another folder")
    return Checkout(number, document, rebuild_store(store, snapshot, number, os.fspath(into), iris, force=force))


def rebuild_store(source: GraphStore, snapshot: Snapshot, number: int, into: str, iris: Iris, *,
                  force: bool = False) -> int:
    """A store in ``into`` holding ``snapshot`` (the release at changeset ``number`` of ``source``) and
    the history up to it, written in one session (all or nothing): the release goes in by the normal
    ingest, whose own first changeset is then swapped for the source's changesets 1..N. A folder
    holding a store already is refused unless ``force``. Returns the new store's quad count."""
    history = history_quads(source, iris, number)
    target = GraphStore(into)  # a folder that is neither new, empty nor a kg store: StoreError
    if len(target) and not force:
        raise UsageError(f"{safe_text(into, 200)} holds a store already ({len(target)} quads); "
                         "--force replaces it")
    with target.transaction():
        if len(target):
            target.update("DROP ALL")
        report = ingest_batches(target, release_batches(snapshot, number), iris)
        if report.quarantined:  # a release that went in once: only a record cap or rule changed since
            raise InputRejected(report.quarantined)
        target.remove_graphs([iris.changeset_graph(n) for n in changeset_numbers(target, iris)])
        if history:
            target.add_bulk(history)
    return len(target)


def release_batches(snapshot: Snapshot, number: int) -> list[Any]:
    """A snapshot as the batches an ingest reads: its records (with the catalog file's header,
    when it had one), then its edges (with the edges file's header)."""
    name = f"changeset {number}"
    found = snapshot.records or {}
    records = [found[rid] for rid in sorted(found)]
    header = snapshot.headers.get("catalog")
    batches = [Batch(name, BULK if header is not None else RECORDS, records, header)] if records else []
    if snapshot.edges:
        batches.append(Batch(name, EDGES, list(snapshot.edges), snapshot.headers.get("edges") or {}))
    return batches
