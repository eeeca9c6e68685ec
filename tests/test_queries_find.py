"""find: one faceted query, every facet optional and combinable, with facet counts beside
the rows; on the bundled catalog, expected sets computed from the JSON (cell text read with
kg.normalise's classifiers, the mapping's specification: tests/conftest.py's find_oracle)."""

from __future__ import annotations

from collections import Counter

import pytest

from kg.cli import main
from kg.find import find


@pytest.fixture(scope="module")
def all_facts(find_oracle):
    return find_oracle.facts


@pytest.fixture(scope="module")
def matches(find_oracle):
    return find_oracle.matches


@pytest.mark.parametrize("facets", [
    {"open": "true", "selfhost": "true", "protocol": "mcp", "section": "memory layers"},  # the issue's question
    {"protocol": "a2a", "mode": "adapter"}, {"mode": "client"}, {"storage": "graph", "tier": "1"},
    {"open": "false", "selfhost": "false", "tier": "2"}, {"text": "  Temporal  KNOWLEDGE graph"},
    {"retrieval": "similarity", "governance": "inspectable", "protocol": "opentelemetry"}, {},
])
def test_find_by_facets(bundled_store, all_facts, matches, find_oracle, facets):
    chosen = sorted((f for f in all_facts if matches(f, facets)), key=lambda f: find_oracle.order(f, facets))
    want = [(f["tier"], f["name"].lower(), f["id"]) for f in chosen]
    found = find(bundled_store, facets)
    assert [(r["tier"], r["name"].lower(), r["id"]) for r in found.rows] == want
    assert want
    # the counts beside the rows: per value, how many of these systems have it
    chosen = {f["id"]: f for f in all_facts if matches(f, facets)}
    assert dict(found.facets["tier"]) == {str(k): n for k, n in Counter(f["tier"] for f in chosen.values()).items()}
    assert dict(found.facets["deployment"]) == dict(Counter(f["deployment"] for f in chosen.values()))
    supporting = Counter(p for f in chosen.values() for p, m in f["modes"].items() if m in ("native", "adapter", "client"))
    assert dict(found.facets["protocol"]) == dict(supporting)
    for axis in find_oracle.axes:
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
