"""kg.session: a write session's life on its own (the store's transactions use it: tests/test_store.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from pyoxigraph import Literal, NamedNode, Quad

from kg import generations
from kg.errors import StoreError
from kg.session import begin
from kg.store import GraphStore

G = NamedNode("https://example.org/g")
QUAD = Quad(NamedNode("https://example.org/s"), NamedNode("https://example.org/p"), Literal("v"), G)


def _no_migration(folder: Path) -> None:
    raise AssertionError("a store with generations needs no migration")


@pytest.fixture()
def folder(tmp_path) -> Path:
    GraphStore(tmp_path / "kg-store")  # generation 1, empty
    return tmp_path / "kg-store"


def test_a_sealed_session_switched_in_is_the_current_version(folder):
    session = begin(folder, lambda number: None, _no_migration)
    assert (session.number, session.compact) == (2, True)  # an empty store: a build, merged at the end
    assert session.store is not None
    session.store.add(QUAD)
    session.seal()
    session.switch(folder)
    session.writer.release()
    assert generations.current(folder) == 2
    assert list(GraphStore(folder, read_only=True).quads()) == [QUAD]


def test_a_discarded_session_leaves_the_version_and_the_writer_lock(folder):
    session = begin(folder, lambda number: None, _no_migration)
    assert session.store is not None
    session.store.add(QUAD)
    session.discard(folder)
    assert generations.current(folder) == 1
    assert not generations.generation_dir(folder, session.number).exists()
    again = begin(folder, lambda number: None, _no_migration)  # the lock was let go
    assert again.number == 2
    again.discard(folder)
    assert len(GraphStore(folder, read_only=True)) == 0


def test_a_session_on_a_store_with_content_starts_from_it_and_is_not_merged(folder):
    store = GraphStore(folder)
    store.add([QUAD])
    session = begin(folder, lambda number: None, _no_migration)
    assert session.compact is False and session.build is None
    assert session.store is not None and list(session.store) == [QUAD]
    session.discard(folder)


def test_another_writer_is_refused_while_a_session_holds_the_lock(folder):
    session = begin(folder, lambda number: None, _no_migration)
    try:
        with pytest.raises(StoreError):
            generations.lock_writer(folder, wait_s=0.2)
    finally:
        session.discard(folder)
