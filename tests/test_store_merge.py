"""The compaction a build ends with, begun early (``GraphStore.compact_now``): it runs beside the rest of
the session, the session's later writes are kept, and a merge that fails throws the generation away."""

from __future__ import annotations

import pytest
from pyoxigraph import Literal, NamedNode, Quad

from kg.errors import StoreError
from kg.store import GraphStore, _session

EX = "https://example.org/"


def quads(graph: str, count: int, word: str) -> list[Quad]:
    g = NamedNode(EX + graph)
    return [Quad(NamedNode(f"{EX}s/{i}"), NamedNode(EX + "p"), Literal(f"{word} {i}"), g) for i in range(count)]


def build(path, merge_early: bool) -> GraphStore:
    store = GraphStore(path)
    with store.transaction():
        for n in range(4):  # four loads: files a merge has work to do on
            store.replace_graphs({NamedNode(f"{EX}g{n}"): quads(f"g{n}", 3000, "record")})
        if merge_early:
            store.compact_now()
        store.replace_graphs({NamedNode(EX + "shared"): quads("shared", 2500, "shared")})
        store.add(quads("g0", 10, "added"))
    return store


def test_a_build_merged_early_holds_what_a_build_merged_at_the_end_holds(tmp_path):
    early, late = build(tmp_path / "early", True), build(tmp_path / "late", False)
    assert sorted(map(str, early.quads())) == sorted(map(str, late.quads()))
    assert len(GraphStore(tmp_path / "early", read_only=True)) == 4 * 3000 + 2500 + 10


def test_a_merge_that_fails_throws_the_generation_away(tmp_path, monkeypatch):
    path = tmp_path / "store"
    build(path, False)
    before = sorted(map(str, GraphStore(path, read_only=True).quads()))

    def fails(self, store):
        self._error = RuntimeError("IO error: No space left on device")

    monkeypatch.setattr(_session._Merge, "_run", fails)
    store = GraphStore(path)
    with pytest.raises(StoreError, match="No space left"):
        with store.transaction():
            store.compact()
            store.replace_graphs({NamedNode(EX + "new"): quads("new", 3000, "new")})
            store.compact_now()
    assert sorted(map(str, GraphStore(path, read_only=True).quads())) == before


def test_compact_now_outside_a_session_or_in_memory_does_nothing(tmp_path):
    GraphStore().compact_now()
    store = build(tmp_path / "store", False)
    store.compact_now()
    with store.transaction():  # a session that does not compact: nothing begins
        store.compact_now()
        store.add(quads("g9", 5, "more"))
    assert len(store) == 4 * 3000 + 2500 + 10 + 5
