"""The parts of a validation run: which graphs of the store are checked, a few record graphs at a time."""

from __future__ import annotations

from typing import Sequence

from ..store import GraphStore
from ..vocab import Iris


def record_ids(store: GraphStore, iris: Iris) -> list[str]:
    """The ids of the records whose graphs the store holds."""
    return iris.stored_ids(store.named_graphs())


def part_list(store: GraphStore, iris: Iris, ids: Sequence[str] | None, with_rest: bool,
              per_call: int) -> list[tuple[str, list[str]]]:
    """(kind, graph IRIs) of each part: ``per_call`` record graphs each, and the other graphs first
    (the edges and the rest; the shared graph is read by every part, the history by none)."""
    if ids is not None and not with_rest:  # looked up one by one: listing every graph costs the store
        stored = [g.value for g in (iris.record_graph(i) for i in sorted(set(ids))) if store.has_graph(g)]
        return [("records", stored[i:i + per_call]) for i in range(0, len(stored), per_call)]
    names = [g.value for g in store.named_graphs()]
    wanted = set(ids) if ids is not None else None
    record_graphs = [g for g in names if (found := iris.record_graph_id(g)) is not None
                     and (wanted is None or found in wanted)]
    parts = [("records", record_graphs[i:i + per_call]) for i in range(0, len(record_graphs), per_call)]
    if with_rest:
        prefix = iris.record_graph_prefix()
        rest = [g for g in names if not g.startswith(prefix) and g != iris.shared_graph.value
                and not iris.is_history_graph(g)]  # the history (kg.history) is not validated
        parts.insert(0, ("rest", rest))  # the relations: start them first
    return parts
