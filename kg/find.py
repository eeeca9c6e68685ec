"""Faceted search: the ``find`` named query's rows, with the facet counts beside them.

Every facet of ``find`` (licence openness, self-hostability, protocol support and mode,
section, tier, vendor, the seven taxonomy axes, text) is optional and they combine. The
counts are over the rows found: for each facet, how many of those systems have each value
(a system with two values of an axis counts for both).

>>> from kg.store import GraphStore
>>> found = find(GraphStore(), {"protocol": "mcp"})
>>> found.rows, found.facets["tier"]
([], [])
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Mapping

from . import queries
from .output import plain_json
from .sparql.lexer import projected

SUPPORTING = ("native", "adapter", "client")
FACETS = ("tier", "primary_section", "vendor_name", "open_source", "deployment", "protocol", "mode",
          "storage", "retrieval", "persistence", "update", "unit", "governance", "conflict")


@dataclass
class Found:
    """The rows of ``find`` (plain JSON values) and, per facet, (value, systems) most first."""

    rows: list[dict[str, Any]]
    facets: dict[str, list[tuple[str, int]]] = field(default_factory=dict)

    def as_json(self) -> dict[str, Any]:
        return {"rows": self.rows, "facets": {k: [{"value": v, "systems": n} for v, n in values]
                                              for k, values in self.facets.items()}}


def columns() -> list[str]:
    """The columns of the rows, in the order of ``find``'s SELECT."""
    return projected(queries.load("find").text)


def _values(row: Mapping[str, Any], facet: str) -> list[str]:
    """The values of one facet that a row has."""
    if facet in ("protocol", "mode"):
        readings = [part.split(":", 1) for part in str(row.get("protocol_support") or "").split() if ":" in part]
        if facet == "protocol":
            return sorted({p for p, m in readings if m in SUPPORTING})
        return sorted({m for _, m in readings})
    if facet in ("tier", "primary_section", "vendor_name", "open_source", "deployment"):
        value = row.get(facet)
        return [] if value is None else [str(value).lower() if isinstance(value, bool) else str(value)]
    taxonomy = [part.split("=", 1) for part in str(row.get("taxonomy") or "").split("; ") if "=" in part]
    return sorted({value for axis, value in taxonomy if axis == facet})


def facet_counts(rows: list[dict[str, Any]]) -> dict[str, list[tuple[str, int]]]:
    """For each facet, every value the rows have and how many rows have it (most first, then value)."""
    counts: dict[str, list[tuple[str, int]]] = {}
    for facet in FACETS:
        tally: Counter[str] = Counter()
        for row in rows:
            tally.update(_values(row, facet))
        counts[facet] = sorted(tally.items(), key=lambda kv: (-kv[1], kv[0]))
    return counts


def find(store: Any, facets: Mapping[str, str], iris: Any = None) -> Found:
    """The systems that match every given facet (``find``'s parameters, as text), and the
    facet counts over them; ``store`` is a GraphStore or a remote Endpoint."""
    result = queries.query(store, "find", facets, iris)
    rows = [{name: plain_json(term) for name, term in row.items()} for row in result.terms]
    return Found(rows, facet_counts(rows))
