"""The changesets of a store: their numbers, one changeset read back, the log newest first."""

from __future__ import annotations

from typing import Any

from ..errors import UsageError
from ..store import GraphStore, literal_text
from ..vocab import DCTERMS, KG, PROV, Iris
from .model import Changeset
from .quads import changeset_from_quads


def changeset_numbers(store: GraphStore, iris: Iris) -> list[int]:
    """The numbers of the store's changesets, oldest first (read from their ``kg:changesetNumber``
    quads: one a changeset, not a listing of every graph of the store)."""
    graphs = {quad.graph_name for quad in store.match(None, KG.changesetNumber, None, None)}
    return sorted(n for n in map(iris.changeset_number, graphs) if n is not None)


def changeset_at(store: GraphStore, iris: Iris, number: int) -> Changeset:
    """Changeset ``number`` read back whole (UsageError when the store has none of that number)."""
    graph = iris.changeset_graph(number)
    if not store.has_graph(graph):
        known = changeset_numbers(store, iris)
        raise UsageError(f"no changeset {number} in the store (it has "
                         f"{'1..' + str(known[-1]) if known else 'none'})")
    return changeset_from_quads(store.quads(graph), iris, number)


_COUNT_KEYS = (("records_added", KG.recordsAdded), ("records_removed", KG.recordsRemoved),
               ("records_changed", KG.recordsChanged), ("edges_added", KG.edgesAdded),
               ("edges_removed", KG.edgesRemoved), ("edges_changed", KG.edgesChanged))


def log(store: GraphStore, iris: Iris | None = None) -> list[dict[str, Any]]:
    """One row per changeset, newest first: number, date, files, counts, summary (read from
    the changeset node and its inputs only, not its changes): ``kg log``."""
    iris = iris or Iris()
    rows = []
    for number in reversed(changeset_numbers(store, iris)):
        graph, node = iris.changeset_graph(number), iris.changeset(number)

        def value(predicate: Any, subject: Any = node) -> str | None:
            found = next(iter(store.match(subject, predicate, None, graph)), None)
            return literal_text(found.object) if found is not None else None

        inputs = sorted((q.object for q in store.match(node, PROV.used, None, graph)),
                        key=lambda n: int(value(KG.position, n) or 0))
        row: dict[str, Any] = {"changeset": number, "date": value(PROV.endedAtTime),
                               "files": ", ".join(value(DCTERMS.title, n) or "" for n in inputs)}
        row.update({key: int(value(predicate) or 0) for key, predicate in _COUNT_KEYS})
        row["summary"] = value(DCTERMS.description)
        rows.append(row)
    return rows
