"""Reading a record: catalog JSON -> the typed model, its structure checked.

``record_from_json`` checks the types of the fields the graph is built from and raises
``RecordError`` naming the field path (a small cursor, ``_At``, keeps it); catalog *rules*
(tier range, statuses, citation rules, ...) are left to SHACL so that ``kg validate`` can
report them. Unknown keys are carried in ``extra``.
"""

from __future__ import annotations

from typing import Any

from ..errors import RecordError
from ..vocab import ID_PATTERN
from .model import (
    MISSING, Cell, Edge, FieldChange, HistoryEntry, Json, Lifecycle, Provenance, Record, SectionListing,
    TaxonomyValue,
)


class _At:
    """Where we are in the input: file, index, record id and the field path so far.

    The path is built only when an error is raised: checking stays cheap.
    """

    __slots__ = ("source", "index", "record_id", "parent", "key")

    def __init__(self, source: str, index: int | None, record_id: str | None,
                 parent: "_At | None" = None, key: str | int | None = None) -> None:
        self.source, self.index, self.record_id, self.parent, self.key = source, index, record_id, parent, key

    def down(self, key: str | int) -> "_At":
        return _At(self.source, self.index, self.record_id, self, key)

    @property
    def path(self) -> str:
        steps: list[str | int] = []
        node: _At | None = self
        while node is not None and node.key is not None:
            steps.append(node.key)
            node = node.parent
        path = ""
        for key in reversed(steps):
            path += f"[{key}]" if isinstance(key, int) else (f".{key}" if path else str(key))
        return path

    def fail(self, message: str) -> RecordError:
        return RecordError(self.source, self.index, self.record_id, self.path or "(record)", message)


_INT_MIN, _INT_MAX = -(2 ** 63), 2 ** 63 - 1  # integer fields (tier, pr, severity) are xsd:long at most

_TYPE_NAMES = {str: "a string", int: "an integer", bool: "true or false", dict: "an object", list: "a list"}


def _typed(value: Any, kinds: tuple[type, ...], at: _At, nullable: bool) -> Any:
    if value is None:
        if nullable:
            return None
        raise at.fail("must not be null")
    # bool is a subclass of int in Python; a JSON true is never an integer here
    if isinstance(value, bool) and bool not in kinds:
        raise at.fail(f"must be {' or '.join(_TYPE_NAMES[k] for k in kinds)}, not a boolean")
    if not isinstance(value, kinds):
        raise at.fail(f"must be {' or '.join(_TYPE_NAMES[k] for k in kinds)}, not {type(value).__name__}")
    if isinstance(value, int) and not isinstance(value, bool) and not _INT_MIN <= value <= _INT_MAX:
        raise at.fail(f"integer out of range ({len(str(abs(value)))} digits; must fit in 64 bits)")
    return value


def _take(obj: dict, key: str, kinds: tuple[type, ...], at: _At, *, required: bool = False,
          nullable: bool = True) -> Any:
    """Value of ``key`` checked against ``kinds``; MISSING when absent and not required."""
    value = obj.get(key, MISSING)
    if value is MISSING:
        if required:
            raise at.down(key).fail("is missing")
        return MISSING
    kind = type(value)
    if kind in kinds and kind is not int:  # the usual case, at once (an integer's range is checked below)
        return value
    return _typed(value, kinds, at.down(key), nullable)


def _extra(obj: dict, known: frozenset[str]) -> dict[str, Json]:
    return {k: v for k, v in obj.items() if k not in known}


def _object(value: Any, at: _At) -> dict:
    return _typed(value, (dict,), at, nullable=False)


_CELL_KEYS = frozenset({"value", "citation", "status", "tier", "last_verified_at", "source_class"})


def _cell(slug: str, obj: Any, at: _At) -> Cell:
    if type(obj) is not dict:
        obj = _object(obj, at)
    value = obj.get("value", MISSING)
    if isinstance(value, (dict, list)):
        raise at.down("value").fail("must be a string, a number, true/false or null")
    return Cell(
        slug=slug,
        value=value,
        citation=_take(obj, "citation", (str,), at),
        status=_take(obj, "status", (str,), at),
        tier=_take(obj, "tier", (str,), at),
        last_verified_at=_take(obj, "last_verified_at", (str,), at),
        source_class=_take(obj, "source_class", (str,), at),
        extra=_extra(obj, _CELL_KEYS),
    )


_SECTION_KEYS = frozenset({"section", "subsection", "primary", "reason"})


def _section(item: Any, at: _At) -> SectionListing:
    if isinstance(item, str):
        return SectionListing(section=item, as_name=True)
    obj = _object(item, at)
    return SectionListing(
        section=_take(obj, "section", (str,), at, required=True, nullable=False),
        subsection=_take(obj, "subsection", (str,), at),
        primary=_take(obj, "primary", (bool,), at),
        reason=_take(obj, "reason", (str,), at),
        extra=_extra(obj, _SECTION_KEYS),
    )


_TAXONOMY_KEYS = frozenset({"value", "primary", "reason"})


def _taxonomy_value(item: Any, at: _At) -> TaxonomyValue:
    obj = _object(item, at)
    return TaxonomyValue(
        value=_take(obj, "value", (str,), at, required=True, nullable=False),
        primary=_take(obj, "primary", (bool,), at),
        reason=_take(obj, "reason", (str,), at),
        extra=_extra(obj, _TAXONOMY_KEYS),
    )


_CHANGE_KEYS = frozenset({"field", "label", "from", "to", "source"})
_HISTORY_KEYS = frozenset({"date", "commit", "pr", "kind", "changes"})


def _field_change(item: Any, at: _At) -> FieldChange:
    obj = _object(item, at)
    return FieldChange(
        field=_take(obj, "field", (str,), at),
        label=_take(obj, "label", (str,), at),
        from_value=obj.get("from", MISSING),
        to_value=obj.get("to", MISSING),
        source=_take(obj, "source", (str,), at),
        extra=_extra(obj, _CHANGE_KEYS),
    )


def _history_entry(item: Any, at: _At) -> HistoryEntry:
    obj = _object(item, at)
    changes = _take(obj, "changes", (list,), at)
    return HistoryEntry(
        date=_take(obj, "date", (str,), at),
        commit=_take(obj, "commit", (str,), at),
        pr=_take(obj, "pr", (int,), at),
        kind=_take(obj, "kind", (str,), at),
        changes=(
            [_field_change(c, at.down("changes").down(i)) for i, c in enumerate(changes)]
            if isinstance(changes, list) else changes
        ),
        extra=_extra(obj, _HISTORY_KEYS),
    )


_PROVENANCE_KEYS = frozenset({"source", "verified", "author", "model_id"})


def _provenance(slug: str, item: Any, at: _At) -> Provenance:
    obj = _object(item, at)
    return Provenance(
        slug=slug,
        source=_take(obj, "source", (str,), at),
        verified=_take(obj, "verified", (bool,), at),
        author=_take(obj, "author", (str,), at),
        model_id=_take(obj, "model_id", (str,), at),
        extra=_extra(obj, _PROVENANCE_KEYS),
    )


_LIFECYCLE_KEYS = frozenset({"status", "severity", "note"})


def _lifecycle(item: Any, at: _At) -> Lifecycle | None:
    if item is None:
        return None
    obj = _object(item, at)
    return Lifecycle(
        status=_take(obj, "status", (str,), at),
        severity=_take(obj, "severity", (int,), at),
        note=_take(obj, "note", (str,), at),
        extra=_extra(obj, _LIFECYCLE_KEYS),
    )


RECORD_KEYS = frozenset({
    "id", "name", "tier", "url", "last_verified_at", "sections", "section", "taxonomy", "cells",
    "_provenance", "lifecycle", "history", "decay_cause", "decay_date", "decay_evidence",
    "family", "page", "license", "source", "corroboration", "edges",
})


def _slug_text(value: str, at: _At) -> str:
    if not ID_PATTERN.match(value):
        raise at.fail(f"{value!r} is not a catalog id (lowercase slug, optional --suffix)")
    return value


def _record_id(obj: dict, at: _At) -> str:
    return _slug_text(_take(obj, "id", (str,), at, required=True, nullable=False), at.down("id"))


def _map(value: Any, at: _At, build) -> Any:
    """Apply ``build(key, item, at)`` to each entry of an object field; keep null/MISSING."""
    if not isinstance(value, dict):
        return value
    out = {}
    for key, item in value.items():
        out[key] = build(key, item, at.down(key))
    return out


def _list(value: Any, at: _At, build) -> Any:
    if not isinstance(value, list):
        return value
    return [build(item, at.down(i)) for i, item in enumerate(value)]


def record_from_json(obj: Any, *, source: str = "<input>", index: int | None = None) -> Record:
    """Normalise one record (catalog or per-system export shape) into a ``Record``.

    Raises ``RecordError`` naming ``source``, ``index``, the id and the field path.
    """
    at = _At(source, index, None)
    if not isinstance(obj, dict):
        raise at.fail(f"a record must be an object, not {type(obj).__name__}")
    record_id = _record_id(obj, at)
    at = _At(source, index, record_id)
    taxonomy = _take(obj, "taxonomy", (dict,), at, required=True, nullable=False)
    taxonomy_at = at.down("taxonomy")
    checked_taxonomy = {}
    for axis, values in taxonomy.items():
        values = _typed(values, (list,), taxonomy_at.down(axis), nullable=False)
        checked_taxonomy[axis] = _list(values, taxonomy_at.down(axis), _taxonomy_value)
    return Record(
        id=record_id,
        name=_take(obj, "name", (str,), at, required=True, nullable=False),
        tier=_take(obj, "tier", (int,), at, required=True, nullable=False),
        url=_take(obj, "url", (str,), at),
        last_verified_at=_take(obj, "last_verified_at", (str,), at),
        sections=_list(_take(obj, "sections", (list,), at, required=True, nullable=False),
                       at.down("sections"), _section),
        declared_section=_take(obj, "section", (str,), at),
        taxonomy=checked_taxonomy,
        cells=_map(_take(obj, "cells", (dict,), at, required=True, nullable=False),
                   at.down("cells"), _cell),
        provenance=_map(_take(obj, "_provenance", (dict,), at), at.down("_provenance"), _provenance),
        lifecycle=_lifecycle(obj["lifecycle"], at.down("lifecycle")) if "lifecycle" in obj else MISSING,
        history=_list(_take(obj, "history", (list,), at), at.down("history"), _history_entry),
        decay_cause=_take(obj, "decay_cause", (str,), at),
        decay_date=_take(obj, "decay_date", (str,), at),
        decay_evidence=_take(obj, "decay_evidence", (str,), at),
        family=_take(obj, "family", (str,), at),
        page=_take(obj, "page", (str,), at),
        license=_take(obj, "license", (str,), at),
        source=_take(obj, "source", (str,), at),
        corroboration=obj.get("corroboration", MISSING),
        edges=obj.get("edges", MISSING),
        extra=_extra(obj, RECORD_KEYS),
    )


EDGE_KEYS = frozenset({"source", "target", "type", "evidence", "citation", "isInfluential"})


def edge_from_json(obj: Any, *, source: str = "<input>", index: int | None = None) -> Edge:
    """Normalise one edge; its ends must be catalog ids (they become IRIs)."""
    at = _At(source, index, None)
    if not isinstance(obj, dict):
        raise RecordError(source, index, None, "(edge)", f"an edge must be an object, not {type(obj).__name__}")
    edge_source = _take(obj, "source", (str,), at, required=True, nullable=False)
    edge_target = _take(obj, "target", (str,), at, required=True, nullable=False)
    at = _At(source, index, f"{edge_source} -> {edge_target}")
    return Edge(
        source=_slug_text(edge_source, at.down("source")),
        target=_slug_text(edge_target, at.down("target")),
        type=_take(obj, "type", (str,), at, required=True, nullable=False),
        evidence=_take(obj, "evidence", (str,), at),
        citation=_take(obj, "citation", (str,), at),
        is_influential=_take(obj, "isInfluential", (bool,), at),
        extra=_extra(obj, EDGE_KEYS),
    )
