"""A store rebuilt at an earlier changeset: that release's records, edges and shared resources, and
the history up to it (``kg checkout N --into DIR``).

It sits above the ingest (it feeds the release to the normal ingest, in one write session of the new
store) and below the command line.
"""

from __future__ import annotations

from typing import Any

from .errors import InputRejected, UsageError, safe_text
from .history import changeset_numbers
from .history.checkout import history_quads
from .history.compare import Snapshot
from .ingestion import ingest_batches
from .sources import BULK, EDGES, RECORDS, Batch
from .store import GraphStore
from .vocab import Iris


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
