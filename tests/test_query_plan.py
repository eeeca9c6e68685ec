"""One plan for every face (kg.queries.plan): ``kg query NAME --sparql`` prints the text that runs, so
that text given back to ``kg query --text`` gives the same rows, for every named query with its
default parameters and with one other set of them; a name resolves there as it does when the query
runs; a ``.rq`` or ``.sparql`` file and a text are queries for ``kg.query`` as for ``kg query``.

Expected answers: the rows of the named query itself, run by ``kg query`` on the bundled catalog
(the named queries' own answers are checked against the catalog JSON in tests/test_queries.py),
and, for the system a name resolves to, the catalog JSON."""

from __future__ import annotations

import json

import pytest

import kg
from kg import queries
from kg.errors import QueryError, UsageError
from helpers import in_process

# The values a query needs to run at all (its default parameters fill in the rest)
NEEDED = {
    "compare": {"a": "mem0--mem0-ai", "b": "zep-graphiti--getzep-com"},
    "compliant-systems": {"framework": "SOC 2"},
    "field-history": {"system": "smolagents-memory--huggingface-co", "column": "latest-release"},
    "related": {"id": "mem0--mem0-ai"},
    "search": {"text": "memory"},
    "select-dependency": {"system": "anthropic-claude-foundation-models--anthropic-com"},
    "show": {"id": "mem0--mem0-ai"},
    "substrate-risk": {"system": "OpenAI GPT family"},  # a name, resolved by the plan
    # the advice tools, answered in Python (kg.advice.tools), on the full-shape catalog (FULL_SHAPE)
    "recommend": {"text": "offline multi agent airgap"},
    "between": {"low": "mistral-large-2-mixtral-family--mistral-ai",
                "high": "openai-gpt-family-gpt-5-gpt-4o-o3-o4--openai-com"},
    "predict-citations": {"system": "adaptive-rag--arxiv-2304-20312"},
}
# One other set of parameters for each query that has any
OTHER = {
    "changes": {"kind": "added", "limit": "7"},
    "churn": {"limit": "3"},
    "compare": {"a": "cognee--cognee-ai", "b": "mem0--mem0-ai"},
    "compliant-systems": {"framework": "gdpr"},
    "coverage": {"by": "feature"},
    "decay-cause": {"cause": "acquired"},
    "field-history": {"system": "mem0--mem0-ai", "column": "license"},
    "find": {"text": "knowledge graph", "open": "true", "limit": "10"},
    "findings": {"rule": "T2Citation", "column": "license", "section": "Dedicated memory layers", "limit": "7"},
    "findings-matrix": {"by": "section", "rule": "CanonicalSection"},
    "recent": {"since": "2025-Q3", "limit": "5"},
    "related": {"id": "mem0--mem0-ai", "edge_direction": "incoming"},
    "search": {"text": "temporal graph", "tier": "2", "section": "memory", "limit": "5"},
    "select-analysis-protocols": {"every": "true"},
    "select-analysis-ranking": {"minCoreness": "2"},
    "select-analysis-relations": {"type": "built-on"},
    "select-dependency": {"system": "neo4j--neo4j-com"},
    "show": {"id": "zep-graphiti--getzep-com"},
    "stale": {"months": "12", "today": "2027-05-15", "scope": "cells", "section": "Dedicated memory layers",
              "column": "license", "limit": "9"},
    "substrate-risk": {"vendor": "neo4j", "direct": "true"},
    "vendor-portfolio": {"vendor": "neo4j", "min_systems": "1"},
    "recommend": {"shape": "multi-agent", "scale": "production", "cost_max": "5", "categories": "model,memory",
                  "k": "2", "today": "2026-07-01"},
    "between": {"low": "meta-phi-4-family--meta-com", "high": "microsoft-edge--microsoft-com",
                "use_case": "offline-capable", "k": "3", "today": "2026-07-01", "stale_days": "90"},
    "predict-citations": {"system": "Adaptive-RAG", "today": "2026-07-01"},  # a name, resolved by the plan
    "breakouts": {"limit": "3", "today": "2026-07-01"},
}
FULL_SHAPE = ("recommend", "between", "predict-citations", "breakouts")  # the bundled catalog lacks their cells


def _cases() -> list[tuple[str, dict[str, str]]]:
    cases = []
    for query in queries.listing():
        cases.append((query.name, NEEDED.get(query.name, {})))
        if query.params:
            cases.append((query.name, OTHER[query.name]))
    return cases


CASES = _cases()


def _answer(capsys, store: str, form: str, *query: str) -> object:
    """The answer ``kg query`` prints for ``query`` (its words), comparable: SELECT rows in order as
    SPARQL JSON, a graph as the set of its N-Triples lines."""
    fmt = "ntriples" if form in ("CONSTRUCT", "DESCRIBE") else "sparql-json"
    code, out, err = in_process(capsys, "query", *query, "--store", store, "-f", fmt)
    assert code == 0, err
    return set(out.splitlines()) if fmt == "ntriples" else json.loads(out)


def test_every_query_with_its_parameters_is_a_case():
    assert {name for name, _ in CASES} == set(queries.available())
    assert all(set(OTHER[q.name]) <= {p.name for p in q.params} for q in queries.listing() if q.params)


@pytest.mark.parametrize("name, values", CASES, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CASES)])
def test_the_printed_text_gives_the_same_rows(request, capsys, name, values):
    version = request.getfixturevalue("full_shape_store" if name in FULL_SHAPE else "bundled_store")
    store = str(version.path)
    given = [word for key, value in values.items() for word in ("-p", f"{key}={value}")]
    code, text, err = in_process(capsys, "query", name, *given, "--store", store, "--sparql")
    assert code == 0, err
    form = queries.load(name).form
    assert form is not None
    named = _answer(capsys, store, form, name, *given)
    assert _answer(capsys, store, form, "--text", text) == named
    if form == "SELECT" and queries.load(name).limit_param is not None:
        assert len(named["results"]["bindings"]) <= queries.plan(name, values, version).limit
    if name in FULL_SHAPE and (name != "breakouts" or values):
        assert named["results"]["bindings"]  # an answer with rows, not an empty one


def test_a_name_is_resolved_in_the_printed_text_as_when_the_query_runs(bundled_store, capsys, records):
    """The issue's case: --sparql of substrate-risk given a system's name exited 2."""
    store = str(bundled_store.path)
    want = [rid for rid, r in records.items() if "openai gpt family" in r["name"].lower()]
    assert len(want) == 1
    code, text, err = in_process(capsys, "query", "substrate-risk", "-p", "system=OpenAI GPT family", "--store", store,
                                 "--sparql")
    assert code == 0 and f"system/{want[0]}>" in text
    rows = kg.query(bundled_store, "substrate-risk", {"system": "OpenAI GPT family"})
    assert rows and {row["target_id"] for row in rows} == set(want)
    assert [row["id"] for row in kg.query(bundled_store, text)] == [row["id"] for row in rows]


def test_search_prints_the_words_index_hits_it_runs(bundled_store, capsys):
    code, text, _ = in_process(capsys, "query", "search", "-p", "text=temporal graph",
                               "--store", str(bundled_store.path), "--sparql")
    assert code == 0
    assert "the words index of this version answered them" in text
    assert "words matcher" not in text and "VALUES (?order ?system ?found ?name ?tier ?matched)" in text
    assert "} LIMIT 50\n" in text  # the row cap of its limit parameter (default 50)


def test_a_sparql_file_a_rq_file_and_a_text_are_queries_for_the_library(bundled_store, tmp_path, records):
    text = ("# title: tier one\n# param: tier (integer) a tier\n"
            "PREFIX kg: <https://w3id.org/agent-landscape/ontology#>\nSELECT (COUNT(?s) AS ?n) WHERE { ?s a kg:System ; kg:tier ?tier }\n")
    for suffix in (".sparql", ".rq", ".SPARQL"):
        path = tmp_path / f"mine{suffix}"
        path.write_text(text, encoding="utf-8")
        assert kg.query(bundled_store, str(path), {"tier": "1"}) == kg.query(bundled_store, text, {"tier": "1"})
    (row,) = kg.query(bundled_store, text, {"tier": "1"})
    assert row["n"] == sum(1 for record in records.values() if record["tier"] == 1)
    with pytest.raises(UsageError, match="no query file"):
        kg.query(bundled_store, str(tmp_path / "missing.sparql"))
    with pytest.raises(UsageError, match="unknown query"):
        kg.query(bundled_store, "no-such-query")
    with pytest.raises(QueryError, match="SERVICE"):
        kg.query(bundled_store, "SELECT * WHERE { SERVICE <http://127.0.0.1:9/> { ?s ?p ?o } }")


def test_a_bundled_file_given_by_its_path_is_the_named_query(bundled_store):
    path = str(queries.QUERIES_DIR / "search.rq")
    assert queries.load(path).trusted  # the guard need not check it, and the words index answers for it
    assert kg.query(bundled_store, path, {"text": "memory"}) == kg.query(bundled_store, "search", {"text": "memory"})
