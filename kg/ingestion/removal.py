"""Record removal: records' graphs taken out of the store, with what only they used, and the ids stored."""

from __future__ import annotations

from typing import Iterable

from ..description import refresh_description
from ..store import GraphStore, transactional
from ..vocab import Iris
from .cleanup import drop_unused_shared


def stored_record_ids(store: GraphStore, iris: Iris) -> list[str]:
    """The ids of the records the store holds (one named graph each)."""
    return iris.stored_ids(store.named_graphs())


@transactional
def remove_records(store: GraphStore, record_ids: Iterable[str], iris: Iris) -> None:
    """Remove these records' graphs, the shared resources only they pointed to, and count again."""
    store.remove_graphs(iris.record_graph(i) for i in record_ids)
    drop_unused_shared(store, iris)
    refresh_description(store, iris)
