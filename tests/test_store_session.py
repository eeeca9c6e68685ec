"""kg.store._session: a write session's life on its own (the store's transactions use it: tests/test_store.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from pyoxigraph import Literal, NamedNode, Quad

from kg.errors import StoreError
from kg.store import GraphStore
from kg.store import _generations as generations
from kg.store._session import Session

G = NamedNode("https://example.org/g")
QUAD = Quad(NamedNode("https://example.org/s"), NamedNode("https://example.org/p"), Literal("v"), G)


@pytest.fixture()
def folder(tmp_path) -> Path:
    GraphStore(tmp_path / "kg-store")  # generation 1, empty
    return tmp_path / "kg-store"


def test_a_sealed_session_switched_in_is_the_current_version(folder):
    session = Session.begin(folder)
    assert (session.number, session.compacts) == (2, True)  # an empty store: a build, merged at the end
    session.add("extend", [QUAD])
    assert session.commit(folder) is True
    session.clean_up(folder)
    session.release()
    assert generations.current(folder) == 2
    assert list(GraphStore(folder, read_only=True).quads()) == [QUAD]
    assert not generations.generation_dir(folder, 1).exists()  # the clean-up: nobody read generation 1


def test_a_session_that_wrote_nothing_keeps_the_version(folder):
    session = Session.begin(folder)
    assert session.commit(folder) is False
    assert generations.current(folder) == 1
    assert not generations.generation_dir(folder, session.number).exists()
    Session.begin(folder).discard(folder)  # the lock was let go


def test_a_discarded_session_leaves_the_version_and_the_writer_lock(folder):
    session = Session.begin(folder)
    session.add("extend", [QUAD])
    session.discard(folder)
    assert generations.current(folder) == 1
    assert not generations.generation_dir(folder, session.number).exists()
    again = Session.begin(folder)  # the lock was let go
    assert again.number == 2
    again.discard(folder)
    assert len(GraphStore(folder, read_only=True)) == 0


def test_a_session_on_a_store_with_content_starts_from_it_and_is_not_merged(folder):
    store = GraphStore(folder)
    store.add([QUAD])
    session = Session.begin(folder)
    assert session.compacts is False and session.build is None
    reading = session.reading_store()
    assert reading is not None and list(reading) == [QUAD]
    session.ask_compaction()
    assert session.compacts is True
    session.discard(folder)


def test_a_session_reads_and_tells_its_writes_only_in_its_threads(folder):
    import threading

    session = Session.begin(folder)
    session.replace_graphs({G: [QUAD]}, [])
    seen: list[object] = []
    other = threading.Thread(target=lambda: seen.extend([session.reading_store(), session.written_graphs()]))
    other.start()
    other.join()
    assert seen == [None, None]  # another thread reads the current version
    lent: list[object] = []

    def helper() -> None:
        with session.lent():
            lent.extend([session.written_graphs(), session.reading_store() is not None])

    helper_thread = threading.Thread(target=helper)
    helper_thread.start()
    helper_thread.join()
    assert lent == [{G}, True]
    assert session.written_subjects(G) is None  # replaced as a whole
    session.discard(folder)


def test_another_writer_is_refused_while_a_session_holds_the_lock(folder):
    session = Session.begin(folder)
    try:
        with pytest.raises(StoreError):
            generations.lock_writer(folder, wait_s=0.2)
    finally:
        session.discard(folder)
