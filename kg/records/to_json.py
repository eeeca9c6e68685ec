"""Writing a record: the typed model -> catalog JSON, the exact inverse of reading.

Keys present with ``null`` stay ``null``, absent keys (``MISSING``) stay absent, unknown
keys come back from ``extra``.
"""

from __future__ import annotations

from typing import Any

from .model import (
    MISSING, Cell, Edge, FieldChange, HistoryEntry, Json, Lifecycle, Provenance, Record, SectionListing,
    TaxonomyValue,
)


def _put(out: dict, key: str, value: Any) -> None:
    if value is not MISSING:
        out[key] = value


def _with_extra(out: dict, extra: dict) -> dict:
    out.update(extra)
    return out


def cell_to_json(cell: Cell) -> dict:
    out: dict = {}
    for key in ("value", "citation", "status", "tier", "last_verified_at", "source_class"):
        _put(out, key, getattr(cell, key))
    return _with_extra(out, cell.extra)


def _section_to_json(listing: SectionListing) -> Json:
    if listing.as_name:
        return listing.section
    out: dict = {"section": listing.section}
    for key in ("subsection", "primary", "reason"):
        _put(out, key, getattr(listing, key))
    return _with_extra(out, listing.extra)


def _taxonomy_value_to_json(item: TaxonomyValue) -> dict:
    out: dict = {"value": item.value}
    _put(out, "primary", item.primary)
    _put(out, "reason", item.reason)
    return _with_extra(out, item.extra)


def _change_to_json(change: FieldChange) -> dict:
    out: dict = {}
    for key, attr in (("field", "field"), ("label", "label"), ("from", "from_value"),
                      ("to", "to_value"), ("source", "source")):
        _put(out, key, getattr(change, attr))
    return _with_extra(out, change.extra)


def _history_to_json(entry: HistoryEntry) -> dict:
    out: dict = {}
    for key in ("date", "commit", "pr", "kind"):
        _put(out, key, getattr(entry, key))
    if isinstance(entry.changes, list):
        out["changes"] = [_change_to_json(c) for c in entry.changes]
    else:
        _put(out, "changes", entry.changes)
    return _with_extra(out, entry.extra)


def _provenance_to_json(item: Provenance) -> dict:
    out: dict = {}
    for key in ("source", "verified", "author", "model_id"):
        _put(out, key, getattr(item, key))
    return _with_extra(out, item.extra)


def _lifecycle_to_json(item: Lifecycle | None) -> Json:
    if item is None:
        return None
    out: dict = {}
    for key in ("status", "severity", "note"):
        _put(out, key, getattr(item, key))
    return _with_extra(out, item.extra)


def _each(value: Any, convert) -> Any:
    if isinstance(value, list):
        return [convert(v) for v in value]
    if isinstance(value, dict):
        return {k: convert(v) for k, v in value.items()}
    return value


def record_to_json(record: Record) -> dict:
    """The record as JSON, equal (up to key order) to the object it was read from."""
    out: dict = {"id": record.id, "name": record.name, "tier": record.tier}
    _put(out, "url", record.url)
    _put(out, "last_verified_at", record.last_verified_at)
    _put(out, "section", record.declared_section)
    _put(out, "sections", _each(record.sections, _section_to_json))
    _put(out, "taxonomy", _each(record.taxonomy, lambda vs: _each(vs, _taxonomy_value_to_json)))
    _put(out, "cells", _each(record.cells, cell_to_json))
    _put(out, "_provenance", _each(record.provenance, _provenance_to_json))
    if record.lifecycle is not MISSING:
        out["lifecycle"] = _lifecycle_to_json(record.lifecycle)
    _put(out, "history", _each(record.history, _history_to_json))
    for key in ("decay_cause", "decay_date", "decay_evidence", "family", "page", "license",
                "source", "corroboration", "edges"):
        _put(out, key, getattr(record, key))
    return _with_extra(out, record.extra)


def edge_to_json(edge: Edge) -> dict:
    out: dict = {"source": edge.source, "target": edge.target, "type": edge.type}
    _put(out, "evidence", edge.evidence)
    _put(out, "citation", edge.citation)
    _put(out, "isInfluential", edge.is_influential)
    return _with_extra(out, edge.extra)
