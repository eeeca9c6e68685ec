"""The parameters people reach for, and the bugs of issue 15, on the bundled catalog:
expected answers computed from the JSON input, never from SPARQL."""

from __future__ import annotations

import re
import unicodedata
from collections import Counter, defaultdict

import pytest

from kg import normalise, output, queries
from kg.store import GraphStore
from kg.errors import QueryError
from kg.mapping import feature_family

import searching  # tests/searching.py: the words matcher, written from its definition


def rows(store, name, **params):
    return [{k: output.text(v) for k, v in r.items()} for r in queries.query(store, name, params).terms]


def fold(text):
    bare = "".join(c for c in unicodedata.normalize("NFD", text) if not unicodedata.combining(c))
    return " ".join(bare.split()).lower()


# ---------------------------------------------------------------------------
# search: trimmed, case, white space and accents folded; id and name hits first


def searched(records, text):
    """The ids search finds for a text, in its order, from the JSON (tests/searching.py)."""
    return [rid for _, rid, _ in searching.ranked(text, records)]


@pytest.mark.parametrize("text", ["  temporal knowledge graph  ", "TEMPORAL\tknowledge   GRAPH", "cafe", "Café",
                                  "  zep "])
def test_search_folds_what_people_type(bundled_store, records, text):
    want = searched(records, text)
    got = [r["id"] for r in rows(bundled_store, "search", text=text, limit="1000")]
    assert got == want
    if "temporal" in text.lower():  # the padded text found nothing once; its words are found in any field
        assert want[0] == "zep-graphiti--getzep-com" and len(want) == 3


def test_search_finds_accented_text_without_its_accents(bundled_store, records):
    accented = {rid for rid, rec in records.items()
                if any(unicodedata.combining(c) for c in unicodedata.normalize("NFD", rec["name"] + str(
                    (rec["cells"].get("desc") or {}).get("value"))))}
    assert accented
    for rid in accented:
        rec = records[rid]
        word = next(w for w in (rec["name"] + " " + str(rec["cells"]["desc"]["value"])).split()
                    if any(unicodedata.combining(c) for c in unicodedata.normalize("NFD", w)))
        plain = fold(word).strip(".,;:()")
        assert rid in [r["id"] for r in rows(bundled_store, "search", text=plain, limit="1000")], word


# ---------------------------------------------------------------------------
# related: by edge type and direction


@pytest.mark.parametrize("params", [{"edge_type": "runtime-dependency"}, {"edge_direction": "incoming"},
                                    {"edge_type": "integrates-with", "edge_direction": "outgoing"},
                                    {"edge_type": "built-on", "edge_direction": "incoming"},
                                    {"edge_type": "cites"}])
def test_related_by_edge_type_and_direction(bundled_store, edges, params):
    rid = "mem0--mem0-ai"
    want = sorted((e["type"], "outgoing" if e["source"] == rid else "incoming",
                   e["target"] if e["source"] == rid else e["source"]) for e in edges if rid in (e["source"], e["target"])
                  and params.get("edge_type", e["type"]) == e["type"]
                  and params.get("edge_direction", "outgoing" if e["source"] == rid else "incoming")
                  == ("outgoing" if e["source"] == rid else "incoming"))
    got = [(r["type"], r["direction"], r["other_id"]) for r in rows(bundled_store, "related", id=rid, **params)]
    assert got == want
    assert bool(want) == (params != {"edge_type": "cites"})  # mem0 has no cites edge: none shown


def test_related_refuses_an_edge_type_that_does_not_exist(bundled_store):
    with pytest.raises(QueryError, match="'depends-on' is not one of built-on, runtime-dependency"):
        rows(bundled_store, "related", id="mem0--mem0-ai", edge_type="depends-on")


# ---------------------------------------------------------------------------
# substrate-risk: direct only


def test_substrate_risk_direct_only(bundled_store, edges):
    for target, direct_count in (("anthropic-claude-foundation-models--anthropic-com", 62), ("neo4j--neo4j-com", None)):
        direct = sorted(e["source"] for e in edges if e["target"] == target and e["type"] == "runtime-dependency")
        got = rows(bundled_store, "substrate-risk", system=target, direct="true")
        assert sorted(r["id"] for r in got) == direct and len(direct) == (direct_count or len(direct))
        assert all(r["length"] == "1" and not r.get("via") for r in got)
    # Anthropic's dependants all depend on it directly; Neo4j's also through others
    assert len(rows(bundled_store, "substrate-risk", system="anthropic-claude-foundation-models--anthropic-com")) == 62
    assert len(rows(bundled_store, "substrate-risk", system="neo4j--neo4j-com")) > len(direct)


# ---------------------------------------------------------------------------
# coverage: per feature as well as per family


def test_coverage_per_feature(bundled_store, records):
    per_column = defaultdict(Counter)
    for rec in records.values():
        for slug, cell in (rec.get("cells") or {}).items():
            family = feature_family(slug)
            if family is None:
                continue
            state = normalise.feature_state(cell.get("value") if isinstance(cell.get("value"), str) else "",
                                            cell.get("status") or "")
            per_column[(family, slug)]["systems"] += 1
            per_column[(family, slug)][f"cells_{state}"] += 1
    order = {"observability": 1, "cost": 2, "eval": 3}
    want = sorted(((order[f], slug), f, slug, c["systems"], c["cells_unknown"]) for (f, slug), c in per_column.items())
    got = rows(bundled_store, "coverage", by="feature")
    assert [(r["family"], r["feature"], int(r["systems"]), int(r["cells_unknown"])) for r in got] == \
        [(f, slug, n, unknown) for _, f, slug, n, unknown in want]
    assert len(got) == 22  # the seed record's 8 + 7 + 7 feature columns
    assert [r.get("feature") for r in rows(bundled_store, "coverage")] == [None, None, None]


# ---------------------------------------------------------------------------
# compare: boilerplate and empty values are not agreement

BOILERPLATE = re.compile(r"^\s*(not applicable|n/a|searched,? not found|no data)", re.IGNORECASE)


def test_identical_boilerplate_is_not_agreement(bundled_store, records):
    a, b = "0-5-physical-intelligence--pi-website", "1x-technologies--1x-tech"
    boiler = [slug for slug in records[a]["cells"]
              if slug in records[b]["cells"] and records[a]["cells"][slug]["value"] == records[b]["cells"][slug]["value"]
              and BOILERPLATE.match(str(records[a]["cells"][slug]["value"]))]
    assert boiler  # the same "not applicable — ..." or "searched not found" text on both sides
    got = {r["field"]: r for r in rows(bundled_store, "compare", a=a, b=b) if r["kind"] == "cell"}
    for slug in boiler:
        assert got[slug]["agreement"] == "boilerplate" and got[slug]["same"] == "false"
    real_same = [slug for slug, r in got.items() if r["agreement"] == "same"]
    for slug in real_same:
        ca, cb = records[a]["cells"][slug], records[b]["cells"][slug]
        assert ca["value"] == cb["value"] and ca["status"] in ("real-data", "estimate")


# ---------------------------------------------------------------------------
# protocol-adoption: assessed apart from not assessed


def test_protocol_adoption_counts_assessed_apart(bundled_store, records):
    assessed, researched = Counter(), Counter()
    for rec in records.values():
        readings = {}
        for slug, key in (("mcp-support", "mcp"), ("a2a-support", "a2a"), ("otel", "opentelemetry")):
            cell = rec["cells"].get(slug)
            if cell and isinstance(cell.get("value"), str):
                readings[key] = (normalise.protocol_mode(cell["value"], cell["status"]), cell["status"])
        combined = rec["cells"].get("protocol-support")
        if combined and isinstance(combined.get("value"), str) and combined["status"] in ("real-data", "estimate"):
            for key, mode in normalise.protocols_in_support_cell(combined["value"]).items():
                if readings.get(key, ("unknown",))[0] == "unknown":
                    readings[key] = (mode, combined["status"])
        for key, (mode, status) in readings.items():
            researched[key] += 1
            assessed[key] += status in ("real-data", "estimate") and mode in ("native", "adapter", "client", "none")
    got = {r["protocol"]: r for r in rows(bundled_store, "protocol-adoption")}
    for key in ("mcp", "a2a", "opentelemetry"):
        assert int(got[key]["assessed"]) == assessed[key]
        assert int(got[key]["not_assessed"]) == researched[key] - assessed[key]
    assert assessed["mcp"] == 241  # 133 supporting + 108 researched "none"; 230 "searched not found" are not assessed


def test_a_limit_the_text_uses_is_bound_there_as_an_integer(tmp_path):
    """The cap reaches a query that uses it (``changes`` reads only the changes within it); a
    query that does not use the variable gets no binding of it, and a bad cap fails before."""
    from pyoxigraph import Literal

    from kg.vocab import XSD

    used = tmp_path / "used.rq"
    used.write_text("# title: t\n# question: q?\n# returns: n\n# param: limit (limit, optional, default=3) cap\n"
                    "SELECT ?n WHERE { VALUES ?n { 1 2 3 4 5 } FILTER(?limit >= ?n) }\n", encoding="utf-8")
    q = queries.load(str(used))
    empty = GraphStore()
    for given, cap in (({}, "3"), ({"limit": "2"}, "2")):
        planned = queries.plan(q, given, empty)
        assert f"VALUES (?limit) {{ ({Literal(cap, datatype=XSD.integer)}) }}" in planned.text
        assert planned.text.rstrip().endswith(f"LIMIT {cap}") and planned.limit == int(cap)
        assert [row["n"] for row in queries.query(empty, q, given)] == list(range(1, int(cap) + 1))
    assert "?limit" not in queries.plan("search", {"text": "x", "limit": "2"}, empty).text
    with pytest.raises(QueryError, match="limit"):
        queries.plan(q, {"limit": "2; DROP ALL"}, empty)
