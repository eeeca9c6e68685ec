"""Search by words: every word of the text, in any order, each anywhere in a field (hits where each
word starts a word first); search and find's text facet are one matcher. Expected answers come from
the catalog JSON through tests/searching.py (the matcher written from its definition, and a plain
substring scan), never from our SPARQL."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from kg import queries, textindex
from kg.cli import main
from kg.find import find
from kg.parameters import words

import searching  # tests/searching.py

ROOT = Path(__file__).resolve().parent.parent
ZEP = "zep-graphiti--getzep-com"


def matcher_block(name: str) -> str:
    text = (ROOT / "queries" / f"{name}.rq").read_text(encoding="utf-8")
    found = re.search(r"^ *# -- words matcher.*?# -- end of the words matcher --$", text, re.S | re.M)
    assert found, name
    return found.group(0)


def test_search_and_find_share_one_matcher_text():
    assert matcher_block("search") == matcher_block("find")


@pytest.mark.parametrize("text", ["knowledge graph", "temporal graph", "graph", "Bi-Temporal", "MCP memory server",
                                  "zep", "", "—", "neo4j cypher graph", "vector database open source memory layer agents"])
def test_search_and_find_find_the_same_systems(bundled_store, records, text):
    want = [rid for _, rid, _ in searching.ranked(text, records)]
    searched = [r["id"] for r in queries.query(bundled_store, "search", {"text": text, "limit": "100000"})]
    found = [r["id"] for r in find(bundled_store, {"text": text, "limit": "100000"}).rows]
    assert searched == want
    assert set(found) == set(want)
    if text and text != "—":
        assert found == [rid for rid in want]  # find ranks a text's hits as search does


def test_knowledge_graph_counts_the_same(bundled_store, records):
    """The issue: search and find counted "knowledge graph" differently (24 and 19)."""
    want = len(searching.ranked("knowledge graph", records))
    assert len(queries.query(bundled_store, "search", {"text": "knowledge graph", "limit": "1000"})) == want
    assert len(find(bundled_store, {"text": "knowledge graph"}).rows) == want


def test_temporal_graph_finds_zep_on_the_command_line(bundled_store, capsys):
    code = main(["query", "search", "--store", str(bundled_store.path), "-p", "text=temporal graph", "-f", "csv"])
    out = capsys.readouterr().out
    assert code == 0
    ids = [line.split(",")[0] for line in out.splitlines()[1:]]
    assert ZEP in ids  # its description: "bi-temporal knowledge graph"


# texts whose hits are checked against a plain substring scan of the catalog JSON (20 of them)
SCANNED = ["graph", "memory", "allegrograph", "knowledge graph", "openmemory", "Graph Memory", "vector", "rag",
           "agent memory", "temporal graph", "mcp", "neo4j", "langgraph", "Café", "Bi-Temporal", "sqlite", "llm",
           "gpt 4", "self host", "ph m"]


def as_written(monkeypatch, store, params):
    """search's rows with the words index turned off: its SPARQL as written (what runs on an endpoint)."""
    with monkeypatch.context() as patched:
        patched.setattr(textindex, "open_index", lambda _store: None)
        return queries.query(store, "search", params)


@pytest.mark.parametrize("text", SCANNED)
def test_search_never_finds_less_than_a_substring_scan(bundled_store, records, monkeypatch, text):
    """The issue: every system whose id, name, description or claims hold each word as a substring is
    a hit, through the words index and through search.rq's SPARQL alike."""
    want = searching.substring_hits(text, records)
    params = {"text": text, "limit": "100000"}
    indexed = queries.query(bundled_store, "search", params)
    assert {row["id"] for row in indexed} == want
    assert as_written(monkeypatch, bundled_store, params) == indexed
    assert {row["id"] for row in find(bundled_store, params).rows} == want


def test_graph_and_memory_find_what_a_word_start_missed(bundled_store, records, capsys):
    code = main(["query", "search", "--store", str(bundled_store.path), "-p", "text=graph", "-p", "limit=200",
                 "-f", "csv"])
    ids = [line.split(",")[0] for line in capsys.readouterr().out.splitlines()[1:]]
    assert code == 0 and len(ids) == 105  # 89 at a word start, 16 inside a word
    assert set(ids) == searching.substring_hits("graph", records)
    assert "allegrograph-franz--allegrograph-com" in ids and "matter--arxiv-2406-04670" in ids  # "paragraphs"
    assert ids.index("zep-graphiti--getzep-com") < ids.index("allegrograph-franz--allegrograph-com")
    memory = {row["id"] for row in queries.query(bundled_store, "search", {"text": "memory", "limit": "1000"})}
    assert {"mem0-security-openmemory--mem0-ai", "licomemory--arxiv-2511-01448",
            "claude-cursormemorymcp--gh-angleito-claude-cursormemorymcp"} <= memory and len(memory) == 381


def _starts(word: str, field: str) -> bool:
    """Whether ``word`` starts a word of ``field`` (folded, spaced): written apart from searching.match."""
    return re.search(r"(^| )" + re.escape(word), field) is not None


@pytest.mark.parametrize("text", ["graph", "memory", "llm", "rag", "agent memory"])
def test_word_starts_come_before_infixes_and_names_before_descriptions(bundled_store, records, text):
    """The order, worked out from each hit's fields: hits where every word starts a word of some field
    first; within each kind, those whose id or name holds every word, then the description, then the rest."""
    rows = queries.query(bundled_store, "search", {"text": text, "limit": "100000"})
    wanted = searching.words(text)
    order = []
    for row in rows:
        have = searching.fields(row["id"], records[row["id"]])
        at_start = all(any(_starts(w, have[f]) for f in searching.FIELDS) for w in wanted)
        holds = (lambda f: all(_starts(w, have[f]) for w in wanted)) if at_start else \
            (lambda f: all(w in have[f] for w in wanted))
        order.append((0 if at_start else 1, 0 if holds("id") or holds("name") else 1 if holds("desc") else 2))
    assert {kind for kind, _ in order} == {0, 1}, text  # both kinds of hit are there
    assert {place for _, place in order} >= {0, 1}, text  # name hits and description hits
    assert order == sorted(order), text


def test_the_words_in_any_order_and_in_different_fields(bundled_store, records):
    one = [r["id"] for r in queries.query(bundled_store, "search", {"text": "graph temporal", "limit": "100"})]
    other = [r["id"] for r in queries.query(bundled_store, "search", {"text": "temporal graph", "limit": "100"})]
    assert one == other and ZEP in one
    spread = [r for r in queries.query(bundled_store, "search", {"text": "graph memory mcp", "limit": "100"})]
    ranks = {rid: searching.match("graph memory mcp", rid, records[rid]) for rid in (r["id"] for r in spread)}
    assert any(rank == 3 for rank, _, _ in ranks.values())  # a hit whose words are spread over its fields
    assert [r["matched"] for r in spread] == [ranks[r["id"]][2] for r in spread]


def test_name_hits_come_before_description_hits(bundled_store, records):
    rows = queries.query(bundled_store, "search", {"text": "memory", "limit": "1000"})
    first = [searching.match("memory", r["id"], records[r["id"]])[0] for r in rows]
    assert first == sorted(first) and first[0] == 0 and 1 in first and 2 in first


@pytest.mark.parametrize("text,want", [
    ("  Bi-Temporal   GRAPH graph ", "bi temporal graph"), ("gra graph", "graph"), ("Café—Graphiti", "cafe graphiti"),
    ("", ""), ("—", ""), ("x² y", "x y"),
])
def test_words(text, want):
    assert words(text) == want
    assert words(text).split() == searching.words(text)


def test_more_than_six_words_the_rest_follow_each_other(bundled_store, records):
    text = "a b c d e open source"  # six slots: the sixth holds "open source"
    want = [rid for _, rid, _ in searching.ranked(text, records)]
    got = [r["id"] for r in queries.query(bundled_store, "search", {"text": text, "limit": "1000"})]
    assert got == want
