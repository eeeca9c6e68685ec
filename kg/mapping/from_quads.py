"""Quads -> records: the way back from a record's named graph (and the edges graph) to the model.

``record_from_quads`` is the inverse of ``kg.mapping.to_quads.record_quads``: it reads
the faithful layer only, through the same field tables.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any, Iterable
from urllib.parse import unquote

from pyoxigraph import Literal, NamedNode, Quad

from ..records import MISSING, Cell, Edge, FieldChange, HistoryEntry, Lifecycle, Provenance, Record, SectionListing, TaxonomyValue
from ..vocab import DCTERMS, KG, SCHEMA, Iris
from .fields import (
    CELL_EXPECTED, CELL_FIELDS, CHANGE_FIELDS, EDGE_FIELDS, HISTORY_FIELDS, LIFECYCLE_FIELDS,
    PROVENANCE_FIELDS, RECORD_FIELDS, SECTION_EXPECTED, SECTION_FIELDS, TAXONOMY_EXPECTED, TAXONOMY_FIELDS,
    FieldSpec, Term, json_value, unescape_key,
)

class _Graph:
    """Index of one graph's triples: subject -> predicate -> objects."""

    def __init__(self, quads: Iterable[Quad]) -> None:
        self.index: dict[str, dict[str, list[Term]]] = defaultdict(lambda: defaultdict(list))
        for q in quads:
            # kg writes no blank nodes and no quoted triples: any other quad is not ours
            if isinstance(q.subject, NamedNode) and isinstance(q.object, (NamedNode, Literal)):
                self.index[q.subject.value][q.predicate.value].append(q.object)

    def all(self, node: str, predicate: NamedNode) -> list[Term]:
        return self.index.get(node, {}).get(predicate.value, [])

    def the(self, node: str, predicate: NamedNode) -> Term:
        """The object of a triple the mapping always writes (IndexError when it is not there)."""
        return self.all(node, predicate)[0]

    def one(self, node: str, predicate: NamedNode) -> Term | None:
        values = self.all(node, predicate)
        return values[0] if values else None

    def strings(self, node: str, predicate: NamedNode) -> set[str]:
        return {t.value for t in self.all(node, predicate)}

    def fields(self, node: str, table: Iterable[FieldSpec],
               expected: frozenset[str] = frozenset()) -> dict[str, Any]:
        """attribute -> value for every field of ``table`` the node has (inverse of _Writer.fields)."""
        nulls = self.strings(node, KG.nullKey)
        absent = self.strings(node, KG.absentKey) if expected else ()
        out: dict[str, Any] = {}
        for attr, key, predicate, _ in table:
            term = self.one(node, predicate)
            if term is not None:
                out[attr] = json_value(term)
            elif key in nulls or (key in expected and key not in absent):
                out[attr] = None
        return out

    def extra(self, node: str, prefix: str = "") -> dict[str, Any]:
        """Extra fields whose key starts with ``prefix`` (prefix removed)."""
        out = {}
        for item in self.all(node, KG.extraField):
            key = self.the(item.value, KG.key).value
            if key.startswith(prefix):
                out[key[len(prefix):]] = json_value(self.the(item.value, KG.jsonValue))
        return out

    def position(self, node: str) -> int:
        term = self.one(node, KG.position)
        return int(term.value) if term is not None else 0

    def ordered(self, node: str, predicate: NamedNode) -> list[str]:
        return sorted((t.value for t in self.all(node, predicate)), key=self.position)

    def container(self, node: str, key: str, empty: Any) -> Any:
        """MISSING, None or the empty container, when the key had no items."""
        if key in self.strings(node, KG.nullKey):
            return None
        if key in self.strings(node, KG.emptyKey):
            return empty
        return MISSING


def _record_extra(g: _Graph, node: str) -> dict[str, Any]:
    return {unescape_key(k): v for k, v in g.extra(node).items() if not k.startswith("lifecycle.")}


def record_from_quads(quads: Iterable[Quad], iris: Iris, record_id: str) -> Record:
    """Rebuild the ``Record`` stored in one record graph (inverse of ``record_quads``)."""
    g = _Graph(quads)
    s = iris.system(record_id).value
    record = Record(
        id=json_value(g.the(s, DCTERMS.identifier)),
        name=json_value(g.the(s, SCHEMA.name)),
        tier=json_value(g.the(s, KG.tier)),
        **g.fields(s, RECORD_FIELDS),
    )
    record.sections = _read_sections(g, s)
    record.taxonomy = _read_taxonomy(g, s)
    record.cells = _read_cells(g, s)
    record.provenance = _read_provenance(g, s)
    record.lifecycle = _read_lifecycle(g, s)
    record.history = _read_history(g, s)
    record.extra = _record_extra(g, s)
    return record


def _read_sections(g: _Graph, s: str) -> Any:
    members = g.ordered(s, KG.sectionMembership)
    if not members:
        return g.container(s, "sections", [])
    return [
        SectionListing(
            section=g.the(m, KG.sectionName).value,
            as_name=g.one(m, KG.givenAsName) is not None,
            extra=g.extra(m),
            **({} if g.one(m, KG.givenAsName) is not None else g.fields(m, SECTION_FIELDS, SECTION_EXPECTED)),
        )
        for m in members
    ]


def _read_taxonomy(g: _Graph, s: str) -> Any:
    assignments = g.ordered(s, KG.taxonomyAssignment)
    empty_axes = [k[len("taxonomy."):] for k in g.strings(s, KG.emptyKey) if k.startswith("taxonomy.")]
    if not assignments and not empty_axes:
        return g.container(s, "taxonomy", {})
    taxonomy: dict[str, list[TaxonomyValue]] = {axis: [] for axis in empty_axes}
    for t in assignments:
        axis = unquote(g.the(t, KG.axis).value.rsplit("/", 1)[-1])
        taxonomy.setdefault(axis, []).append(
            TaxonomyValue(value=g.the(t, KG.taxonomyValue).value, extra=g.extra(t),
                          **g.fields(t, TAXONOMY_FIELDS, TAXONOMY_EXPECTED))
        )
    return taxonomy


def _column_slug(g: _Graph, node: str) -> str:
    # column IRIs end in the percent-encoded slug (vocab.Iris.column)
    return unquote(g.the(node, KG.column).value.rsplit("/", 1)[-1])


def _read_cells(g: _Graph, s: str) -> Any:
    cells = [t.value for t in g.all(s, KG.cell)]
    if not cells:
        return g.container(s, "cells", {})
    out = {}
    for c in sorted(cells):
        column_slug = _column_slug(g, c)
        out[column_slug] = Cell(slug=column_slug, extra=g.extra(c), **g.fields(c, CELL_FIELDS, CELL_EXPECTED))
    return out


def _read_provenance(g: _Graph, s: str) -> Any:
    entries = [t.value for t in g.all(s, KG.provenance)]
    if not entries:
        return g.container(s, "_provenance", {})
    out = {}
    for p in sorted(entries):
        column_slug = _column_slug(g, p)
        out[column_slug] = Provenance(slug=column_slug, extra=g.extra(p), **g.fields(p, PROVENANCE_FIELDS))
    return out


def _read_lifecycle(g: _Graph, s: str) -> Any:
    if "lifecycle" in g.strings(s, KG.nullKey):
        return None
    fields = g.fields(s, LIFECYCLE_FIELDS)
    extra = g.extra(s, prefix="lifecycle.")
    if fields or extra or "lifecycle" in g.strings(s, KG.emptyKey):
        return Lifecycle(extra=extra, **fields)
    return MISSING


def _read_history(g: _Graph, s: str) -> Any:
    entries = g.ordered(s, KG.historyEntry)
    if not entries:
        return g.container(s, "history", [])
    history = []
    for h in entries:
        changes_nodes = g.ordered(h, KG.fieldChange)
        changes: Any = (
            [FieldChange(extra=g.extra(fc), **g.fields(fc, CHANGE_FIELDS)) for fc in changes_nodes]
            if changes_nodes else g.container(h, "changes", [])
        )
        history.append(HistoryEntry(changes=changes, extra=g.extra(h), **g.fields(h, HISTORY_FIELDS)))
    return history


def edges_from_quads(quads: Iterable[Quad], iris: Iris) -> list[Edge]:
    """Rebuild the edges stored in the edges graph, in their input order."""
    g = _Graph(quads)
    relations = [s for s, preds in g.index.items() if KG.edgeType.value in preds]
    relations.sort(key=lambda r: int(g.the(r, KG.position).value))
    skip = len(iris.system("x").value) - 1
    return [
        Edge(source=g.the(r, KG.source).value[skip:], target=g.the(r, KG.target).value[skip:],
             type=g.the(r, KG.edgeType).value, extra=g.extra(r), **g.fields(r, EDGE_FIELDS))
        for r in relations
    ]


def header_from_quads(quads: Iterable[Quad], node: NamedNode) -> dict | None:
    g = _Graph(quads)
    term = g.one(node.value, KG.header)
    return json_value(term) if term is not None else None
