"""A changeset as plain values: what one ingest (or one diff) changed, field by field.

Values are JSON values. ``ABSENT`` marks a key that did not exist (before) or no
longer exists (after), apart from a key whose value is ``null``.

>>> change = RecordChange("mem0--mem0-ai", "changed", [FieldDiff(("tier",), 2, 1)])
>>> Changeset(records=[change]).summary
'1 record changed'
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..records import MISSING

ABSENT: Any = MISSING  # the key is not there (kept apart from null)

ADDED, REMOVED, CHANGED = "added", "removed", "changed"
KINDS = (ADDED, REMOVED, CHANGED)


@dataclass(frozen=True)
class FieldDiff:
    """One changed field of a record: its key path (``("cells", "license")``, ``("tier",)``),
    its exact JSON before and after."""

    path: tuple[str, ...]
    before: Any
    after: Any

    @property
    def field(self) -> str:
        """The column slug for a cell (or a _provenance entry), else the top-level key."""
        return self.path[1] if self.path[0] in ("cells", "_provenance") and len(self.path) > 1 else self.path[0]

    @property
    def dotted(self) -> str:
        return ".".join(self.path)

    @property
    def is_cell(self) -> bool:
        return self.path[0] == "cells" and len(self.path) == 2


@dataclass
class RecordChange:
    """What a changeset did to one record; ``before`` is the whole old record for a removal."""

    record_id: str
    kind: str
    fields: list[FieldDiff] = field(default_factory=list)
    before: Any = ABSENT


@dataclass(frozen=True)
class EdgeChange:
    """One edge added, removed or changed (same source, type and target; other content)."""

    kind: str
    before: Any  # the edge's JSON, or ABSENT
    after: Any
    from_position: int | None = None
    to_position: int | None = None

    @property
    def edge(self) -> dict:
        return self.after if self.after is not ABSENT else self.before


@dataclass(frozen=True)
class HeaderChange:
    """A file header (``catalog`` or ``edges``) that changed."""

    name: str
    before: Any
    after: Any


@dataclass(frozen=True)
class InputFile:
    name: str
    size: int
    sha256: str


@dataclass
class Changeset:
    """Everything one changeset holds. ``edges_before`` is the whole old edges list, kept only
    when the edges that stayed changed order (else positions rebuild it)."""

    number: int | None = None
    started: str | None = None   # xsd:dateTime text, UTC
    ended: str | None = None
    inputs: list[InputFile] = field(default_factory=list)
    version: str | None = None
    records: list[RecordChange] = field(default_factory=list)
    edges: list[EdgeChange] = field(default_factory=list)
    headers: list[HeaderChange] = field(default_factory=list)
    edges_before: Any = ABSENT
    description: str | None = None

    def count(self, kind: str, of: str = "records") -> int:
        items = self.records if of == "records" else self.edges
        return sum(1 for item in items if item.kind == kind)

    @property
    def empty(self) -> bool:
        return not (self.records or self.edges or self.headers)

    @property
    def summary(self) -> str:
        """One line: the counts of what changed (the changeset's dcterms:description)."""
        if self.description is not None:
            return self.description
        parts = []
        for of, noun in (("records", "record"), ("edges", "edge")):
            for kind in KINDS:
                n = self.count(kind, of)
                if n:
                    parts.append(f"{n} {noun}{'s' if n != 1 else ''} {kind}")
        parts += [f"{h.name} header changed" for h in self.headers]
        return ", ".join(parts) or "no change"

    def sort(self) -> "Changeset":
        """In a stable order (records by id, edges by position): the same input, the same output."""
        self.records.sort(key=lambda r: r.record_id)
        for record in self.records:
            record.fields.sort(key=lambda f: f.path)
        self.edges.sort(key=_edge_order)
        self.headers.sort(key=lambda h: h.name)
        return self


def _edge_order(change: EdgeChange) -> tuple:
    edge = change.edge
    position = change.to_position if change.to_position is not None else change.from_position
    return (position if position is not None else -1, edge.get("source", ""), edge.get("type", ""),
            edge.get("target", ""), change.kind)
