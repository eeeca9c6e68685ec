"""A changeset as text for people, as JSON, and as RDF (Turtle or TriG of its graph); deterministic.

>>> from .model import Changeset, FieldDiff, RecordChange
>>> print(text(Changeset(records=[RecordChange("a", "changed", [FieldDiff(("tier",), 2, 1)])])))
1 record changed
~ record a
    tier: 2 -> 1
"""

from __future__ import annotations

import io
import json
from typing import Any

from ..store import GraphStore
from ..vocab import PREFIXES, Iris
from .compare import same
from .model import ABSENT, ADDED, REMOVED, Changeset, EdgeChange, FieldDiff
from .quads import changeset_quads

MAX_SHOWN = 100  # characters of a value shown in text; JSON and RDF keep everything
_MARK = {ADDED: "+", REMOVED: "-"}


def _shown(value: Any) -> str:
    if value is ABSENT:
        return "(absent)"
    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    return text if len(text) <= MAX_SHOWN else text[:MAX_SHOWN - 1] + "…"


def field_parts(diff: FieldDiff) -> list[tuple[str, str, str]]:
    """What changed in one field, as (part, old, new) texts: a cell changed in place by each of its
    keys that changed (value, status, tier, citation, ...), any other field whole ("" for its part).

    >>> field_parts(FieldDiff(("cells", "license"), {"value": "MIT", "tier": "T2"}, {"value": "BSD", "tier": "T2"}))
    [('value', '"MIT"', '"BSD"')]
    """
    before, after = diff.before, diff.after
    keys = _changed_keys(before, after) if diff.is_cell and isinstance(before, dict) and isinstance(after, dict) else []
    if keys:
        return [(k, _shown(before.get(k, ABSENT)), _shown(after.get(k, ABSENT))) for k in keys]
    return [("", _shown(before), _shown(after))]


def _field_lines(diff: FieldDiff) -> list[str]:
    parts = field_parts(diff)
    if parts[0][0]:
        return [f"    {diff.dotted}: " + "; ".join(f"{k} {old} -> {new}" for k, old, new in parts)]
    return [f"    {diff.dotted}: {parts[0][1]} -> {parts[0][2]}"]


def _changed_keys(before: dict, after: dict) -> list[str]:
    return sorted(k for k in set(before) | set(after) if not same(before.get(k, ABSENT), after.get(k, ABSENT)))


def _edge_line(change: EdgeChange) -> str:
    edge = change.edge
    line = f"{_MARK.get(change.kind, '~')} edge {edge.get('source')} -[{edge.get('type')}]-> {edge.get('target')}"
    if change.kind in _MARK:
        return line + (f"  evidence {_shown(edge['evidence'])}" if "evidence" in edge else "")
    keys = _changed_keys(change.before, change.after)
    return line + "  " + "; ".join(f"{k} {_shown(change.before.get(k, ABSENT))} -> "
                                   f"{_shown(change.after.get(k, ABSENT))}" for k in keys)


def text(changeset: Changeset) -> str:
    """Every change, one record or edge a line (changed fields indented below their record)."""
    if changeset.number:
        files = ", ".join(f.name for f in changeset.inputs)
        lines = [f"changeset {changeset.number}: {changeset.summary}", f"  ended {changeset.ended}; files: {files}"]
    else:
        lines = [changeset.summary]
    for record in changeset.records:
        lines.append(f"{_MARK.get(record.kind, '~')} record {record.record_id}")
        for diff in record.fields:
            lines += _field_lines(diff)
    lines += [_edge_line(change) for change in changeset.edges]
    lines += [f"~ header {h.name}: {_shown(h.before)} -> {_shown(h.after)}" for h in changeset.headers]
    return "\n".join(lines)


def rdf(changeset: Changeset, iris: Iris, fmt: str) -> bytes:
    """The changeset's graph as ``turtle`` or ``trig`` (a diff never stored is numbered 0)."""
    store = GraphStore()
    quads = changeset_quads(changeset, iris, changeset.number or 0)
    store.add(quads)
    out = io.BytesIO()
    store.dump(out, fmt, graph=iris.changeset_graph(changeset.number or 0) if fmt == "turtle" else None,
               prefixes=PREFIXES)
    return out.getvalue()


def to_json(changeset: Changeset) -> dict:
    """The changeset as one JSON document (what ``kg diff --format json`` prints)."""
    def some(**items: Any) -> dict:
        return {k: v for k, v in items.items() if v is not ABSENT and v is not None}

    return some(
        number=changeset.number, started=changeset.started, ended=changeset.ended, version=changeset.version,
        summary=changeset.summary,
        inputs=[{"name": f.name, "size": f.size, "sha256": f.sha256} for f in changeset.inputs] or None,
        records=[some(id=r.record_id, kind=r.kind, before=r.before,
                      fields=[some(field=d.field, path=list(d.path), before=d.before, after=d.after)
                              for d in r.fields] or None) for r in changeset.records],
        edges=[some(kind=e.kind, source=e.edge.get("source"), type=e.edge.get("type"), target=e.edge.get("target"),
                    before=e.before, after=e.after, from_position=e.from_position, to_position=e.to_position)
               for e in changeset.edges],
        headers=[some(name=h.name, before=h.before, after=h.after) for h in changeset.headers] or None,
    )


def json_text(changeset: Changeset) -> str:
    return json.dumps(to_json(changeset), ensure_ascii=False, indent=1, sort_keys=False)
