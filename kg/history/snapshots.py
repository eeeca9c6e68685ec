"""The catalog as it was at a changeset: the current graph, with every later changeset undone.

Changesets keep the exact JSON of each field before it changed, each removed record
whole, and each removed edge with its position, so undoing them gives back exactly the
catalog that was ingested then (records, edges and file headers).
"""

from __future__ import annotations

from typing import Any, Iterable

from pyoxigraph import Quad

from ..errors import UsageError
from ..mapping import catalog_records, edges_from_quads, header_from_quads
from ..records import edge_to_json
from ..store import GraphStore
from ..vocab import Iris
from .compare import Snapshot, undo_edges, undo_fields
from .log import changeset_at, changeset_numbers
from .model import ABSENT, ADDED, CHANGED, REMOVED, Changeset


def current(store: GraphStore, iris: Iris, ids: Iterable[str] | None = None) -> Snapshot:
    """The store's catalog now: records, edges, file headers (history graphs left out).
    With ``ids``, only those records (the ones the store holds)."""
    records = {record["id"]: record for record in catalog_records(store, iris, ids)}
    edge_quads = list(store.quads(iris.edges_graph))
    headers = {}
    for name, graph, node in (("catalog", iris.catalog_graph, iris.catalog_source),
                              ("edges", iris.edges_graph, iris.edges_source)):
        header = header_from_quads(edge_quads if name == "edges" else store.quads(graph), node)
        if header is not None:
            headers[name] = header
    return Snapshot(records, [edge_to_json(e) for e in edges_from_quads(edge_quads, iris)], headers)


def undo(snapshot: Snapshot, changeset: Changeset) -> Snapshot:
    """``snapshot`` as it was before ``changeset``."""
    records = dict(snapshot.records or {})
    for change in changeset.records:
        if change.kind == ADDED:
            records.pop(change.record_id, None)
        elif change.kind == REMOVED:
            records[change.record_id] = change.before
        elif change.kind == CHANGED:
            records[change.record_id] = undo_fields(records[change.record_id], change.fields)
    edges = snapshot.edges or []
    if changeset.edges_before is not ABSENT:
        edges = changeset.edges_before
    elif changeset.edges:
        edges = undo_edges(edges, changeset.edges)
    headers = dict(snapshot.headers)
    for header in changeset.headers:
        if header.before is ABSENT:
            headers.pop(header.name, None)
        else:
            headers[header.name] = header.before
    return Snapshot(records, edges, headers)


def snapshots_at(store: GraphStore, iris: Iris, numbers: list[int], *,
                 touched_only: bool = False) -> dict[int, Snapshot]:
    """The catalog right after each changeset of ``numbers`` (0: before the first, an empty
    catalog), from one read of the current catalog: later changesets are undone newest first.

    With ``touched_only``, each snapshot's records are only those that a changeset after the
    earliest of ``numbers`` added, removed or changed. Every other record is the same in all
    the snapshots, so a diff between them needs only these: its cost follows the changes, not
    the catalog's size."""
    known = changeset_numbers(store, iris)
    for number in numbers:
        if number < 0:
            raise UsageError("a changeset number is 0 or more")
        if number != 0 and number not in known:
            changeset_at(store, iris, number)  # raises, naming what there is
    earliest = min(numbers, default=0)
    later_changesets = {n: changeset_at(store, iris, n) for n in known if n > earliest}
    touched = {change.record_id for changeset in later_changesets.values() for change in changeset.records}
    snapshot, out = current(store, iris, touched if touched_only else None), {}
    for later in [*reversed(known), None]:  # None: nothing left to undo below the first
        for number in numbers:
            if number not in out and (later is None or number >= later):
                out[number] = snapshot
        if later is not None and later > earliest:
            snapshot = undo(snapshot, later_changesets[later])
    return out


def snapshot_at(store: GraphStore, iris: Iris, number: int) -> Snapshot:
    """The catalog right after changeset ``number``."""
    return snapshots_at(store, iris, [number])[number]


def catalog_document(snapshot: Snapshot) -> dict[str, Any]:
    """A snapshot in the shape of ``kg export -f catalog-json``: the catalog file's own header
    (exactly as ingested: no licence or attribution added), records in id order, edges."""
    out: dict[str, Any] = dict(snapshot.headers.get("catalog") or {})
    records = snapshot.records or {}
    out["records"] = [records[rid] for rid in sorted(records)]
    out["edges"] = list(snapshot.edges or [])
    if snapshot.headers.get("edges"):
        out["edgesHeader"] = snapshot.headers["edges"]
    return out


def history_quads(store: GraphStore, iris: Iris, number: int) -> list[Quad]:
    """The quads of changesets 1 to ``number``: the history of the catalog up to that changeset
    (what a store rebuilt at ``number`` carries, so its log ends there)."""
    return [quad for n in changeset_numbers(store, iris) if n <= number for quad in store.quads(iris.changeset_graph(n))]
