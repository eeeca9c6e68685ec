"""kg.store.GraphStore: graph replacement, patterns, writes, snapshots, bound queries, errors."""

from __future__ import annotations

import gc
import io
import threading

import pytest
from pyoxigraph import Literal, NamedNode, Quad, QueryBoolean, QuerySolutions

from kg.store import _generations as generations
from kg.errors import QueryError, StoreError
from kg.store import GraphStore

EX = "https://example.org/"
G1, G2, G3 = (NamedNode(f"{EX}graph/{n}") for n in (1, 2, 3))
P = NamedNode(EX + "p")


def node(n) -> NamedNode:
    return NamedNode(f"{EX}s/{n}")


def marked(graph: NamedNode, mark: str, n: int = 3) -> list[Quad]:
    return [Quad(node(i), P, Literal(mark), graph) for i in range(n)]


def marks(store: GraphStore, graph: NamedNode) -> set[str]:
    return {q.object.value for q in store.quads(graph)}


@pytest.fixture()
def store():
    store = GraphStore()
    store.replace_graphs({G1: marked(G1, "old"), G2: marked(G2, "old")})
    return store


# ---------------------------------------------------------------------------
# writing


def test_replace_graphs_swaps_each_graph_and_merges_additions(store):
    extra = Quad(node("x"), P, Literal("added"), G3)
    store.replace_graphs({G1: marked(G1, "new", 2)}, additions=[extra, Quad(node("y"), P, Literal("more"), G2)])
    assert marks(store, G1) == {"new"} and len(list(store.quads(G1))) == 2  # old content removed
    assert marks(store, G2) == {"old", "more"}  # merged into, not replaced
    assert list(store.quads(G3)) == [extra]
    store.replace_graphs({G1: []})
    assert not store.has_graph(G1) and store.has_graph(G2)
    store.remove_graphs([G2, NamedNode(EX + "never-there")])
    assert store.named_graphs() == [G3]


def test_a_reader_never_sees_half_a_replacement(tmp_path):
    """Two graphs swapped in one call are seen by every query both old or both new."""
    store = GraphStore(tmp_path / "store")
    store.replace_graphs({G1: marked(G1, "v0", 300), G2: marked(G2, "v0", 300)})
    seen: list[frozenset] = []
    done = threading.Event()

    def read():
        text = "SELECT DISTINCT ?v WHERE { GRAPH ?g { ?s ?p ?v } }"
        while not done.is_set():
            seen.append(frozenset(row["v"].value for row in store.select(text)))

    reader = threading.Thread(target=read)
    reader.start()
    try:
        for version in range(1, 16):
            mark = f"v{version}"
            store.replace_graphs({G1: marked(G1, mark, 300), G2: marked(G2, mark, 300)})
    finally:
        done.set()
        reader.join()
    assert seen and all(len(values) == 1 for values in seen), [v for v in seen if len(v) != 1][:3]
    assert marks(store, G1) == marks(store, G2) == {"v15"}


def test_add_is_all_or_nothing_and_add_bulk_adds():
    store = GraphStore()

    def failing():
        yield from marked(G1, "a", 5)
        raise ValueError("the input broke part-way")

    with pytest.raises(ValueError):
        store.add(failing())
    assert len(store) == 0  # one transaction: nothing of it written
    store.add(marked(G1, "a", 5))
    store.add_bulk(marked(G2, "b", 2500))
    assert len(store) == 2505 and marks(store, G2) == {"b"}


def test_writing_a_read_only_store_is_a_store_error(tmp_path):
    path = tmp_path / "store"
    GraphStore(path).add(marked(G1, "a"))
    gc.collect()
    store = GraphStore.open_existing(path, read_only=True)
    assert marks(store, G1) == {"a"}
    with pytest.raises(StoreError):
        store.add(marked(G2, "b"))
    with pytest.raises(StoreError):
        store.replace_graphs({G1: marked(G1, "c")})


# ---------------------------------------------------------------------------
# reading


def test_match_and_contains(store):
    assert len(list(store.match())) == 6
    assert {q.graph_name for q in store.match(node(0))} == {G1, G2}
    assert [q.subject for q in store.match(None, P, None, G1)] and all(q.graph_name == G1
                                                                     for q in store.match(None, P, None, G1))
    assert store.contains(node(1), P, Literal("old"), G2)
    assert not store.contains(node(1), P, Literal("new"))
    assert not store.contains(graph=G3)
    assert store.named_graphs() == [G1, G2] and len(store) == 6


def test_backup_is_a_snapshot_that_opens_read_only(tmp_path):
    store = GraphStore(tmp_path / "store")
    store.replace_graphs({G1: marked(G1, "before")})
    store.backup(tmp_path / "snapshot")
    store.replace_graphs({G1: marked(G1, "after")})
    snapshot = GraphStore.open_existing(tmp_path / "snapshot", read_only=True)
    assert marks(snapshot, G1) == {"before"} and marks(store, G1) == {"after"}
    with pytest.raises(StoreError):
        store.backup(tmp_path / "snapshot")  # the folder exists
    with pytest.raises(StoreError, match="in-memory"):
        GraphStore().backup(tmp_path / "memory")


def test_query_binds_values_and_takes_dataset_options(store):
    store.add([Quad(node("d"), P, Literal("default"))])  # default graph
    text = "SELECT ?s WHERE { ?s ?p ?v }"
    assert {r["s"] for r in store.select(text, {"v": Literal("old")})} == {node(0), node(1), node(2)}
    assert store.select(text, {"v": Literal('old" } #')}) == []
    everything = "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }"
    assert store.count(everything) == 7  # the union of every graph
    assert int(next(iter(store.query(everything, union=False)))["n"].value) == 1  # the default graph only
    assert int(next(iter(store.query(everything, default_graph=[G1])))["n"].value) == 3
    named = "SELECT DISTINCT ?g WHERE { GRAPH ?g { ?s ?p ?o } }"
    assert [r["g"] for r in store.query(named, named_graphs=[G2])] == [G2]
    assert int(next(iter(store.query(f"SELECT (COUNT(*) AS ?n) FROM {G2} WHERE {{ ?s ?p ?o }}")))["n"].value) == 3
    asked = store.query("ASK { ?s ?p ?v }", {"v": Literal("default")})
    assert isinstance(asked, QueryBoolean) and bool(asked)
    assert isinstance(store.query(text), QuerySolutions)


def test_query_errors_are_query_errors(store):
    with pytest.raises(QueryError, match="malformed SPARQL"):
        store.query("SELECT WHERE {")
    with pytest.raises(QueryError, match="expected a SELECT"):
        store.select("ASK { ?s ?p ?o }")
    with pytest.raises(QueryError, match="not a SPARQL variable name"):
        store.select("SELECT * { ?s ?p ?o }", {"bad name": Literal("x")})
    assert store.count("SELECT ?n WHERE { ?s ?p ?o FILTER(false) }") == 0


def test_dump_one_graph_or_the_dataset(store):
    out = io.BytesIO()
    store.dump(out, "nquads")
    assert out.getvalue().count(b"\n") == 6
    turtle = store.dump(None, "turtle", graph=G1, prefixes={"ex": EX})
    assert b"@prefix ex:" in turtle and b"old" in turtle


# ---------------------------------------------------------------------------
# opening


def test_a_bad_path_is_a_store_error(tmp_path, monkeypatch):
    file = tmp_path / "a-file"
    file.write_text("not a store")
    with pytest.raises(StoreError, match="cannot open store"):
        GraphStore(file)
    with pytest.raises(StoreError, match="no store at"):
        GraphStore.open_existing(tmp_path / "missing")
    with pytest.raises(StoreError, match="no store at"):
        GraphStore.open_existing(file)
    with pytest.raises(StoreError):
        GraphStore.open_existing(tmp_path / "missing", read_only=True)
    path = tmp_path / "store"
    first = GraphStore(path)
    monkeypatch.setattr(generations, "WRITER_WAIT_S", 0.2)
    with first.transaction():
        first.add(marked(G1, "a", 1))
        second = GraphStore(path)  # opens (it reads the current version) ...
        with pytest.raises(StoreError, match="locked by another process"):
            second.add(marked(G2, "b", 1))  # ... but cannot write while the first writer writes
    del first


def test_the_path_memory_is_a_store_in_memory_and_creates_no_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    store = GraphStore(":memory:")
    assert store.path is None and list(tmp_path.iterdir()) == []


def _sst_files(store: GraphStore) -> int:
    folder = store.version_folder
    assert folder is not None
    return sum(1 for f in folder.iterdir() if f.suffix == ".sst")


def _fill_in_batches(store: GraphStore, *, compact: bool) -> None:
    with store.transaction():
        if compact:
            store.compact()
        for batch in range(6):  # the bulk loader writes files of its own per call
            store.add_bulk([Quad(node(f"{batch}-{i}"), P, Literal(str(i)), G2) for i in range(2500)])


def test_compact_merges_the_files_of_the_new_version_and_keeps_every_quad(tmp_path):
    plain, compacted = GraphStore(tmp_path / "plain"), GraphStore(tmp_path / "compacted")
    for store in (plain, compacted):
        store.replace_graphs({G1: marked(G1, "first")})  # not empty: no automatic compaction
    _fill_in_batches(plain, compact=False)
    _fill_in_batches(compacted, compact=True)
    assert _sst_files(compacted) < _sst_files(plain)
    dump = lambda s: sorted(str(q) for q in s.quads())  # noqa: E731
    assert len(compacted) == 3 + 6 * 2500 and dump(compacted) == dump(plain)


def test_a_build_into_an_empty_store_compacts_it(tmp_path):
    built, updated = GraphStore(tmp_path / "built"), GraphStore(tmp_path / "updated")
    updated.replace_graphs({G1: marked(G1, "first")})
    _fill_in_batches(built, compact=False)
    _fill_in_batches(updated, compact=False)
    assert _sst_files(built) < _sst_files(updated)


def test_bulk_writes_keep_every_quad_exactly_and_blank_nodes_by_label(tmp_path):
    """Large replacements go in as N-Quads text; the parser would rename blank nodes, so those keep the quad path."""
    from pyoxigraph import BlankNode

    store = GraphStore(tmp_path / "kg-store")
    odd = ["plain", "quote \" and \\ back", "line\nbreak", "nul\x00 and \u2028 separator", "ünïcödé ✓", ""]
    text_quads = [Quad(node(i), P, Literal(odd[i % len(odd)] + str(i)), G1) for i in range(3000)]
    blank = BlankNode("kept-label")
    blank_quads = [Quad(node(i), P, blank if i == 0 else Literal(str(i)), G2) for i in range(3000)]
    store.replace_graphs({G1: text_quads, G2: blank_quads})
    assert set(store.quads(G1)) == set(text_quads)
    assert set(store.quads(G2)) == set(blank_quads)
