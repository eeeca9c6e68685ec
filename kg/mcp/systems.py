"""One system for the tools: whether an id names one; its record, edges and centrality as JSON; its summary.

An id that names no system is an error here, never an empty answer: the ``describe-system``
tool checks its id as the named queries check theirs (:func:`kg.lookup.resolve_values`).
The summary (``show``'s default answer, the resource ``kg://system/{id}``) is what a reader
wants first: name, description, tier, sections, pros, cons, the key cells' values and the
edges with the other systems' names; no index fields, no cell nodes.
"""

from __future__ import annotations

from typing import Any

from pyoxigraph import Literal, NamedNode

from ..lookup import Indexes
from ..mapping import edges_from_quads, record_from_quads
from ..output import plain_json
from ..records import edge_to_json, record_to_json
from ..store import GraphStore
from ..vocab import KG, RDF, Iris, is_record_id


def system_exists(store: GraphStore, iris: Iris, system_id: str) -> bool:
    """Whether ``system_id`` is a catalog id of a system in the store."""
    return is_record_id(system_id) and store.contains(iris.system(system_id), RDF.type, KG.System)


def require_system(store: GraphStore, iris: Iris, system_id: str) -> NamedNode:
    """The IRI of the system ``system_id``; an unknown id is NotFound with close matches
    (:mod:`kg.lookup`, as for the named queries)."""
    if not system_exists(store, iris, system_id):
        Indexes.of(store).systems().check_id(system_id)
    return iris.system(system_id)


def _edges(store: GraphStore, iris: Iris, system: NamedNode) -> list[dict[str, Any]]:
    """The edges that touch the system (both directions), as the catalog's edges file writes them."""
    graph = iris.edges_graph
    relations = {q.subject for link in (KG.source, KG.target) for q in store.match(None, link, system, graph)}
    quads = [q for relation in relations for q in store.match(relation, None, None, graph)]
    return [edge_to_json(edge) for edge in edges_from_quads(quads, iris)]


def _centrality(store: GraphStore, iris: Iris, system: NamedNode) -> dict[str, Any] | None:
    """The measures ``kg analyze --write-back`` stored for the system, by property name, if any."""
    found = {q.predicate.value.rsplit("#", 1)[-1]: plain_json(q.object)
             for q in store.match(system, None, None, iris.analysis_graph) if isinstance(q.object, Literal)}
    return dict(sorted(found.items())) or None


def describe(store: GraphStore, iris: Iris, system_id: str) -> dict[str, Any]:
    """The system's record (catalog JSON), its edges by direction, and its stored centrality."""
    system = require_system(store, iris, system_id)
    record = record_to_json(record_from_quads(store.quads(iris.record_graph(system_id)), iris, system_id))
    edges = _edges(store, iris, system)
    out: dict[str, Any] = {
        "id": system_id, "iri": system.value, "record": record,
        "edges": {"outgoing": [e for e in edges if e["source"] == system_id],
                  "incoming": [e for e in edges if e["target"] == system_id and e["source"] != system_id]},
        "centrality": _centrality(store, iris, system),
    }
    if out["centrality"] is None:
        out["centralityNote"] = ("no analysis graph for this system: run 'kg analyze --write-back' to store "
                                 "the measures, or call the analyze tool")
    return out


#: The cells whose values a summary gives (when the record has a reading), in this order.
KEY_CELLS = ("type", "license", "deployment", "pricing", "mcp-support", "a2a-support", "otel", "api-surface",
             "backend-storage", "gh", "latest-release", "created", "funding", "optimised-for", "anti-fit")
NO_READING = ("not-applicable", "depth-floor-reached", "unknown")  # cell statuses that hold no value to show
EDGES_SHOWN = 25  # edges of each direction a summary lists (related pages through all of them)


def _reading(cells: dict[str, Any], slug: str) -> Any:
    """A cell's value, unless the record holds no reading for it."""
    cell = cells.get(slug)
    if not isinstance(cell, dict) or cell.get("status") in NO_READING or cell.get("value") in (None, ""):
        return None
    return cell["value"]


def _section_names(record: dict[str, Any]) -> list[str]:
    """The record's sections (``Section / Subsection``), the primary one first; a record may
    give them as plain names."""
    sections = [s if isinstance(s, dict) else {"section": s} for s in record.get("sections") or []]
    sections.sort(key=lambda s: not s.get("primary"))
    return [s["section"] + (f" / {s['subsection']}" if s.get("subsection") else "") for s in sections]


def _edge_list(edges: list[dict[str, Any]], other: str, names: dict[str, str]) -> list[dict[str, Any]]:
    return [{"type": e["type"], "id": e[other], "name": names.get(e[other])} for e in edges[:EDGES_SHOWN]]


def summary(store: GraphStore, iris: Iris, system_id: str) -> dict[str, Any]:
    """The system's summary: its name and description first, then tier, sections, pros, cons, the key
    cells' values, its taxonomy and its edges (at most :data:`EDGES_SHOWN` each way, with the count)."""
    described = describe(store, iris, system_id)
    record, edges = described["record"], described["edges"]
    cells = record.get("cells") or {}
    names = Indexes.of(store).systems().names
    out: dict[str, Any] = {
        "name": record["name"], "description": _reading(cells, "desc"), "id": system_id, "tier": record["tier"],
        "sections": _section_names(record), "pros": _reading(cells, "pros"), "cons": _reading(cells, "cons"),
        "url": record.get("url"),
        "cells": {slug: value for slug in KEY_CELLS if (value := _reading(cells, slug)) is not None},
        "taxonomy": {axis: [v["value"] for v in values] for axis, values in (record.get("taxonomy") or {}).items()},
        "edges": {"outgoing": _edge_list(edges["outgoing"], "target", names),
                  "incoming": _edge_list(edges["incoming"], "source", names)},
        "edgeCount": {direction: len(listed) for direction, listed in edges.items()},
    }
    return out
