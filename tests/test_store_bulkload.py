"""kg.store._bulkload, and the store's use of it: a build into an empty store goes through one bulk load."""

from __future__ import annotations

import threading

import pytest
from pyoxigraph import BlankNode, Literal, NamedNode, Quad, RdfFormat, Store, serialize

from kg.errors import StoreError
from kg.store import GraphStore
from kg.store import _bulkload as streamload
from kg.store._bulkload import STREAM_FROM

EX = "https://example.org/"
P = NamedNode(EX + "p")
pytestmark = pytest.mark.skipif(not streamload.available(), reason="no named pipes on this system")


@pytest.fixture(autouse=True)
def stream_at_once(monkeypatch):
    """Builds stream from their first large write (a real one streams after two million quads)."""
    monkeypatch.setattr(streamload, "STREAM_AFTER", 0)


def graph(n: int) -> NamedNode:
    return NamedNode(f"{EX}graph/{n}")


def quads(g: NamedNode, mark: str, n: int = STREAM_FROM + 1) -> list[Quad]:
    return [Quad(NamedNode(f"{EX}s/{i}"), P, Literal(f"{mark} {i}"), g) for i in range(n)]


def loaders_running() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "kg-bulk-load"]


@pytest.fixture()
def counted(monkeypatch) -> list[streamload.StreamLoad]:
    """Every StreamLoad started in the test."""
    started: list[streamload.StreamLoad] = []
    original = streamload.StreamLoad.__init__

    def init(self, store):
        started.append(self)
        original(self, store)

    monkeypatch.setattr(streamload.StreamLoad, "__init__", init)
    return started


# ---------------------------------------------------------------------------
# the loader alone


def test_batches_written_in_turn_are_all_loaded(tmp_path):
    store = Store(str(tmp_path / "s"))
    load = streamload.StreamLoad(store)
    given = [q for n in range(5) for q in quads(graph(n), "x", 1000)]
    for start in range(0, len(given), 700):  # cuts between lines, across graphs
        load.write(serialize(given[start:start + 700], format=RdfFormat.N_QUADS))
    load.close()
    assert set(store) == set(given)
    assert not loaders_running()


def test_a_loader_that_fails_raises_its_error_at_close_and_stops(tmp_path):
    load = streamload.StreamLoad(Store(str(tmp_path / "s")))
    with pytest.raises(SyntaxError):
        load.write(b"<https://example.org/s> not N-Quads at all .\n")
        load.close()
    assert not loaders_running()


def test_a_write_after_the_loader_failed_raises_instead_of_waiting(tmp_path):
    load = streamload.StreamLoad(Store(str(tmp_path / "s")))
    load.write(b"broken\n")
    with pytest.raises((SyntaxError, RuntimeError)):
        for _ in range(200):  # far more than a pipe holds: the write finds the loader gone
            load.write(b"<https://example.org/s> <https://example.org/p> \"o\" .\n" * 20000)
        load.close()
    assert not loaders_running()


# ---------------------------------------------------------------------------
# the store's builds


def test_a_build_goes_through_one_load_and_keeps_every_quad(tmp_path, counted):
    store = GraphStore(tmp_path / "kg-store")
    given = {graph(n): quads(graph(n), f"v{n}") for n in range(4)}
    with store.transaction():
        for g, qs in given.items():
            store.replace_graphs({g: qs})
    assert len(counted) == 1
    assert not loaders_running()
    assert set(store.quads()) == {q for qs in given.values() for q in qs}


def test_a_build_loads_in_turns_of_load_quads_never_more_than_two_at_once_and_keeps_every_quad(
        tmp_path, counted, monkeypatch):
    """One load of a whole build held three of pyoxigraph's million-quad batches at once (2.2 GB at 9,120
    full records): a load reads ``LOAD_QUADS`` and then writes them while the next one reads."""
    monkeypatch.setattr(streamload, "LOAD_QUADS", STREAM_FROM + 1)
    running = []
    original = streamload.StreamLoad.write

    def write(self, text):
        running.append(len(loaders_running()))
        original(self, text)

    monkeypatch.setattr(streamload.StreamLoad, "write", write)
    store = GraphStore(tmp_path / "kg-store")
    given = {graph(n): quads(graph(n), f"v{n}") for n in range(5)}
    with store.transaction():
        for g, qs in given.items():
            store.replace_graphs({g: qs})
    assert len(counted) == 5 and max(running) <= 2
    assert not loaders_running()
    assert set(store.quads()) == {q for qs in given.values() for q in qs}


def test_a_read_in_the_session_sees_all_written_so_far(tmp_path, counted):
    store = GraphStore(tmp_path / "kg-store")
    with store.transaction():
        store.replace_graphs({graph(1): quads(graph(1), "a")})
        assert len(store) == STREAM_FROM + 1
        store.replace_graphs({graph(2): quads(graph(2), "b")})
        assert store.has_graph(graph(2))
    assert len(counted) == 2  # the read ended the first load; the next graph started another
    assert len(store) == 2 * (STREAM_FROM + 1)


def test_a_graph_given_again_replaces_what_the_load_was_given(tmp_path):
    store = GraphStore(tmp_path / "kg-store")
    with store.transaction():
        store.replace_graphs({graph(1): quads(graph(1), "first"), graph(2): quads(graph(2), "other")})
        store.replace_graphs({graph(1): quads(graph(1), "second", 10)})
    assert {q.object.value for q in store.quads(graph(1))} == {f"second {i}" for i in range(10)}
    assert len(list(store.quads(graph(2)))) == STREAM_FROM + 1


def test_blank_nodes_leave_the_load_and_keep_their_labels(tmp_path, counted):
    store = GraphStore(tmp_path / "kg-store")
    blank = BlankNode("kept-label")
    with_blank = quads(graph(2), "b") + [Quad(blank, P, Literal("x"), graph(2))]
    with store.transaction():
        store.replace_graphs({graph(1): quads(graph(1), "a")})
        store.replace_graphs({graph(2): with_blank})
    assert len(counted) == 1
    assert set(store.quads(graph(2))) == set(with_blank)
    assert len(list(store.quads(graph(1)))) == STREAM_FROM + 1


def test_a_build_streams_only_once_it_wrote_enough_batch_by_batch(tmp_path, counted, monkeypatch):
    monkeypatch.setattr(streamload, "STREAM_AFTER", 2 * (STREAM_FROM + 1))
    store = GraphStore(tmp_path / "kg-store")
    with store.transaction():
        for n in range(5):
            store.replace_graphs({graph(n): quads(graph(n), f"v{n}")})
            assert len(counted) == (1 if n >= 2 else 0)
    assert len(store) == 5 * (STREAM_FROM + 1)


def test_a_store_with_content_is_written_the_usual_way(tmp_path, counted):
    store = GraphStore(tmp_path / "kg-store")
    store.replace_graphs({graph(0): quads(graph(0), "there", 3)})
    with store.transaction():
        store.replace_graphs({graph(1): quads(graph(1), "a")})
    assert not counted
    assert len(store) == 3 + STREAM_FROM + 1


def test_a_failed_build_leaves_the_store_empty_and_no_loader_running(tmp_path):
    store = GraphStore(tmp_path / "kg-store")
    with pytest.raises(ZeroDivisionError):
        with store.transaction():
            store.replace_graphs({graph(1): quads(graph(1), "a")})
            1 / 0
    assert not loaders_running()
    assert len(store) == 0
    reopened = GraphStore(tmp_path / "kg-store", read_only=True)
    assert len(reopened) == 0


def test_a_loader_error_is_a_store_error_and_the_build_is_thrown_away(tmp_path, monkeypatch):
    store = GraphStore(tmp_path / "kg-store")

    def fails(self, _store):  # a loader that reads a little, then fails as a full disk would
        try:
            with open(self._path, "rb") as pipe:
                pipe.read(100)
            raise OSError("No space left on device")
        except OSError as err:
            self._error = err

    monkeypatch.setattr(streamload.StreamLoad, "_load", fails)
    with pytest.raises(StoreError, match="No space left"):
        with store.transaction():
            store.replace_graphs({graph(1): quads(graph(1), "a")})
            store.replace_graphs({graph(2): quads(graph(2), "b")})
    assert not loaders_running()
    assert len(GraphStore(tmp_path / "kg-store", read_only=True)) == 0


def test_bulk_additions_join_the_running_load_of_a_build(tmp_path, counted):
    store = GraphStore(tmp_path / "kg-store")
    added = quads(graph(1), "added")  # into a graph the load was given: added to what it holds
    with store.transaction():
        store.replace_graphs({graph(1): quads(graph(1), "first")})
        store.add_bulk(added + quads(graph(2), "other"))
    assert len(counted) == 1
    assert set(store.quads(graph(1))) == set(quads(graph(1), "first")) | set(added)
    assert len(store) == 3 * (STREAM_FROM + 1)


def test_a_streamed_build_writes_its_changeset_and_shared_graphs_in_the_same_load(tmp_path, counted, bundled_store):
    """The build's last bulk writes (the changeset: every record added; the edges, catalog and
    ontology graphs) join its one load; the store ends with the same quads as a build without it."""
    from kg.ingestion import ingest_paths
    from kg.vocab import PROV
    from kg.sources import bundled_paths

    store = GraphStore(tmp_path / "kg-store")
    report = ingest_paths(store, bundled_paths())
    assert report.records == 912 and report.changeset is not None
    assert len(counted) == 1
    times = {PROV.startedAtTime, PROV.endedAtTime}  # when each build ran
    kept = lambda s: {q for q in s.quads() if q.predicate not in times}  # noqa: E731
    assert kept(store) == kept(bundled_store)
