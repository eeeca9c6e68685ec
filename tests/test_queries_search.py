"""Search by words: every word of the text, in any order, each at the start of a word; search
and find's text facet are one matcher. Expected answers come from the catalog JSON through
tests/searching.py (the matcher written from its definition), never from our SPARQL."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from kg import queries
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


def test_a_word_matches_only_at_a_word_start(bundled_store, records):
    """"graph" finds "knowledge graph" and "graphiti", not "paragraph" or "langgraph"."""
    inside = {rid for rid, rec in records.items()
              if re.search(r"[a-z]graph", searching.fields(rid, rec)["desc"] + searching.fields(rid, rec)["claims"])
              and searching.match("graph", rid, rec) is None}
    assert "matter--arxiv-2406-04670" in inside  # "paragraphs" only
    got = {r["id"] for r in queries.query(bundled_store, "search", {"text": "graph", "limit": "100000"})}
    assert got and not got & inside
    assert ZEP in got


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
