"""Diffs: two record JSONs field by field, two edges lists, two whole catalogs; content hashes.

Values are compared as canonical JSON text (sorted keys), so ``1``, ``1.0`` and ``true``
differ as they do in JSON. Cells, ``_provenance`` entries and taxonomy axes are compared
one by one; every other top-level key as a whole.

>>> old = {"id": "a", "tier": 2, "cells": {"license": {"value": "MIT"}}}
>>> new = {"id": "a", "tier": 1, "cells": {"license": {"value": "Apache-2.0"}}}
>>> [(d.dotted, d.before, d.after) for d in diff_records(old, new)]
[('cells.license', {'value': 'MIT'}, {'value': 'Apache-2.0'}), ('tier', 2, 1)]
>>> content_hash(old) == content_hash(dict(reversed(list(old.items()))))
True
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Iterable

from .model import ABSENT, ADDED, CHANGED, REMOVED, Changeset, EdgeChange, FieldDiff, HeaderChange, RecordChange

NESTED = ("cells", "_provenance", "taxonomy")  # compared key by key, not whole


def canonical(value: Any) -> str:
    """The canonical JSON text of a value (sorted keys, no spaces)."""
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def content_hash(record: dict) -> str:
    """SHA-256 of a record's canonical JSON: equal exactly when the records are equal."""
    return hashlib.sha256(canonical(record).encode()).hexdigest()


def same(a: Any, b: Any) -> bool:
    if a is ABSENT or b is ABSENT:
        return a is b
    return a is b or canonical(a) == canonical(b)


def diff_records(before: dict, after: dict) -> list[FieldDiff]:
    """The fields that differ between two versions of one record, in key order."""
    out = []
    for key in sorted(set(before) | set(after)):
        old, new = before.get(key, ABSENT), after.get(key, ABSENT)
        if key in NESTED and isinstance(old, dict) and isinstance(new, dict):  # key by key, never whole
            out += [FieldDiff((key, sub), old.get(sub, ABSENT), new.get(sub, ABSENT))
                    for sub in sorted(set(old) | set(new)) if not same(old.get(sub, ABSENT), new.get(sub, ABSENT))]
        elif not same(old, new):
            out.append(FieldDiff((key,), old, new))
    return out


def undo_fields(record: dict, fields: Iterable[FieldDiff]) -> dict:
    """``record`` (the newer version) with every field set back to its value before."""
    out = dict(record)
    for diff in fields:
        target = out
        if len(diff.path) == 2:
            target = out[diff.path[0]] = dict(out[diff.path[0]])
        if diff.before is ABSENT:
            target.pop(diff.path[-1], None)
        else:
            target[diff.path[-1]] = diff.before
    return out


def _edge_key(edge: dict) -> tuple:
    return (edge.get("source"), edge.get("type"), edge.get("target"))


def _keyed(edges: list[dict]) -> dict[tuple, tuple[int, dict]]:
    """Edges by (source, type, target, occurrence): duplicates stay apart, in order."""
    seen: Counter = Counter()
    out = {}
    for position, edge in enumerate(edges):
        key = _edge_key(edge)
        out[key + (seen[key],)] = (position, edge)
        seen[key] += 1
    return out


def diff_edges(before: list[dict], after: list[dict]) -> tuple[list[EdgeChange], bool]:
    """The edges added, removed and changed, and whether the edges that stayed changed order
    (then positions alone cannot rebuild the old list)."""
    old, new = _keyed(before), _keyed(after)
    changes = [EdgeChange(REMOVED, edge, ABSENT, from_position=pos) for key, (pos, edge) in old.items()
               if key not in new]
    changes += [EdgeChange(ADDED, ABSENT, edge, to_position=pos) for key, (pos, edge) in new.items()
                if key not in old]
    changes += [EdgeChange(CHANGED, old[key][1], edge, from_position=old[key][0], to_position=pos)
                for key, (pos, edge) in new.items() if key in old and not same(old[key][1], edge)]
    kept_old = [key for key in old if key in new]
    kept_new = [key for key in new if key in old]
    return changes, kept_old != kept_new


def undo_edges(edges: list[dict], changes: list[EdgeChange]) -> list[dict]:
    """The edges list before ``changes`` (the edges that stayed kept their order)."""
    added = {c.to_position for c in changes if c.kind == ADDED}
    changed = {c.to_position: c.before for c in changes if c.kind == CHANGED}
    kept = [changed.get(pos, edge) for pos, edge in enumerate(edges) if pos not in added]
    for change in sorted((c for c in changes if c.kind == REMOVED), key=lambda c: c.from_position or 0):
        kept.insert(change.from_position or 0, change.before)
    return kept


@dataclass
class Snapshot:
    """One version of the catalog: records by id, the edges list, the file headers (``catalog``,
    ``edges``). ``None`` for a part the version does not have (a records-only file)."""

    records: dict[str, dict] | None = None
    edges: list[dict] | None = None
    headers: dict[str, Any] = field(default_factory=dict)


def diff_records_by_id(before: dict[str, dict], after: dict[str, dict], *, removals: bool = True) -> list[RecordChange]:
    changes = [RecordChange(rid, ADDED) for rid in after if rid not in before]
    if removals:
        changes += [RecordChange(rid, REMOVED, before=record) for rid, record in before.items() if rid not in after]
    for rid, record in after.items():
        if rid in before and content_hash(before[rid]) != content_hash(record):
            changes.append(RecordChange(rid, CHANGED, diff_records(before[rid], record)))
    return changes


def diff_headers(before: dict[str, Any], after: dict[str, Any]) -> list[HeaderChange]:
    """Headers of the files given on the newer side that differ from the older side's."""
    return [HeaderChange(name, before.get(name, ABSENT), value) for name, value in after.items()
            if not same(before.get(name, ABSENT), value)]


def diff_catalogs(old: Snapshot, new: Snapshot) -> Changeset:
    """What changed from ``old`` to ``new``, for the parts both have (records missing from
    ``new`` count as removed)."""
    changeset = Changeset()
    if old.records is not None and new.records is not None:
        changeset.records = diff_records_by_id(old.records, new.records)
    if old.edges is not None and new.edges is not None:
        changeset.edges, reordered = diff_edges(old.edges, new.edges)
        if reordered:
            changeset.edges_before = old.edges
    shared = {name: value for name, value in new.headers.items() if name in old.headers}
    changeset.headers = diff_headers(old.headers, shared)
    return changeset.sort()
