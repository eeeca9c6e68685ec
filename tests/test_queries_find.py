"""find: one faceted query, every facet optional and combinable, with facet counts beside
the rows; on the bundled catalog, expected sets computed from the JSON (cell text read with
kg.normalise's classifiers, the mapping's specification)."""

from __future__ import annotations

import unicodedata
from collections import Counter

import pytest

from kg import normalise
from kg.cli import main
from kg.find import find

AXES = ("storage", "retrieval", "persistence", "update", "unit", "governance", "conflict")


def fold(text):
    bare = "".join(c for c in unicodedata.normalize("NFD", text) if not unicodedata.combining(c))
    return " ".join(bare.split()).lower()


def _cell(record, slug):
    cell = (record.get("cells") or {}).get(slug)
    return (cell["value"], cell.get("status") or "") if cell and isinstance(cell.get("value"), str) else None


def facts(rid, record):
    """What find reads of one record, from its JSON."""
    license_cell = _cell(record, "license")
    open_source = bool(license_cell) and normalise.license_is_osi(normalise.spdx_license(*license_cell))
    deployment_cell = _cell(record, "deployment")
    deployment = (normalise.deployment_kind(*deployment_cell) if deployment_cell else None) or "unknown"
    modes = {}
    for slug, key in (("mcp-support", "mcp"), ("a2a-support", "a2a"), ("otel", "opentelemetry")):
        cell = _cell(record, slug)
        if cell is not None:
            modes[key] = normalise.protocol_mode(*cell)
    combined = _cell(record, "protocol-support")
    if combined is not None and combined[1] in ("real-data", "estimate"):
        for key, mode in normalise.protocols_in_support_cell(combined[0]).items():
            if modes.get(key, "unknown") == "unknown":
                modes[key] = mode
    sections = [s["section"] if isinstance(s, dict) else s for s in record.get("sections") or []]
    taxonomy = {axis: {item["value"] for item in (record.get("taxonomy") or {}).get(axis) or []} for axis in AXES}
    desc = _cell(record, "desc")
    return {"id": rid, "name": record["name"], "tier": record["tier"], "open": open_source, "deployment": deployment,
            "modes": modes, "sections": sections, "taxonomy": taxonomy,
            "text": [fold(rid), fold(record["name"]), fold(desc[0]) if desc else ""]}


def matches(f, facets):
    if "text" in facets and not any(fold(facets["text"]) in t for t in f["text"]):
        return False
    if "open" in facets and f["open"] != (facets["open"] == "true"):
        return False
    if "selfhost" in facets and (f["deployment"] in ("self-hosted", "both")) != (facets["selfhost"] == "true"):
        return False
    if "protocol" in facets:
        wanted = {facets["mode"]} if "mode" in facets else {"native", "adapter", "client"}
        if f["modes"].get(facets["protocol"]) not in wanted:
            return False
    elif "mode" in facets and facets["mode"] not in f["modes"].values():
        return False
    if "section" in facets and not any(facets["section"].lower() in s.lower() for s in f["sections"]):
        return False
    if "tier" in facets and f["tier"] != int(facets["tier"]):
        return False
    return all(facets[axis] in f["taxonomy"][axis] for axis in AXES if axis in facets)


@pytest.fixture(scope="module")
def all_facts(expected_records):
    return [facts(rid, record) for rid, record in expected_records.items()]


@pytest.mark.parametrize("facets", [
    {"open": "true", "selfhost": "true", "protocol": "mcp", "section": "memory layers"},  # the issue's question
    {"protocol": "a2a", "mode": "adapter"}, {"mode": "client"}, {"storage": "graph", "tier": "1"},
    {"open": "false", "selfhost": "false", "tier": "2"}, {"text": "  Temporal  KNOWLEDGE graph"},
    {"retrieval": "similarity", "governance": "inspectable", "protocol": "opentelemetry"}, {},
])
def test_find_by_facets(bundled_store, all_facts, facets):
    want = sorted((f["tier"], f["name"].lower(), f["id"]) for f in all_facts if matches(f, facets))
    found = find(bundled_store, facets)
    assert [(r["tier"], r["name"].lower(), r["id"]) for r in found.rows] == want
    assert want
    # the counts beside the rows: per value, how many of these systems have it
    chosen = {f["id"]: f for f in all_facts if matches(f, facets)}
    assert dict(found.facets["tier"]) == {str(k): n for k, n in Counter(f["tier"] for f in chosen.values()).items()}
    assert dict(found.facets["deployment"]) == dict(Counter(f["deployment"] for f in chosen.values()))
    supporting = Counter(p for f in chosen.values() for p, m in f["modes"].items() if m in ("native", "adapter", "client"))
    assert dict(found.facets["protocol"]) == dict(supporting)
    for axis in AXES:
        assert dict(found.facets[axis]) == dict(Counter(v for f in chosen.values() for v in f["taxonomy"][axis]))


def test_the_issue_question_in_one_query(bundled_store, all_facts):
    """"Which open-source, self-hostable memory layers support MCP?" used to need three CSVs joined by hand."""
    found = find(bundled_store, {"open": "true", "selfhost": "true", "protocol": "mcp", "section": "memory layers"})
    assert {r["id"] for r in found.rows} >= {"mem0--mem0-ai", "cognee--cognee-ai", "letta-memgpt--letta-com"}
    assert all(r["open_source"] is True and r["deployment"] in ("self-hosted", "both") for r in found.rows)


def test_the_command_line_shows_rows_then_counts(bundled_store, capsys):
    store = str(bundled_store.path)
    assert main(["query", "find", "--store", store, "-p", "storage=graph", "-p", "tier=1", "-f", "json"]) == 0
    document = __import__("json").loads(capsys.readouterr().out)
    assert set(document) == {"rows", "facets"} and document["facets"]["tier"] == [
        {"value": "1", "systems": len(document["rows"])}]
    assert main(["query", "find", "--store", store, "-p", "storage=graph", "-p", "tier=1"]) == 0
    out = capsys.readouterr().out
    assert f"({len(document['rows'])} rows)" in out and "facet            value" in out
    assert main(["query", "find", "--store", store, "-p", "storage=graph", "-p", "tier=1", "-f", "csv"]) == 0
    captured = capsys.readouterr()
    assert captured.out.startswith("id,name,tier,") and f"facet tier: 1 ({len(document['rows'])})" in captured.err
