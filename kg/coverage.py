"""Feature coverage of the whole catalog: every system's feature cells counted by family, column
and state, as the tallies (``kg:FeatureTally``) of the dataset description.

Each ingest updates the tallies from the record graphs it wrote: their share before the session
is taken away (read from the version it started from), their share now is added (told by the
ingest as it maps them, ``Written``, or read back). Keeping them costs in proportion to the change,
and the ``coverage`` query reads a few dozen nodes instead of every cell. Without tallies to start
from (a store that holds records but no tallies, or a write that cannot be told) they are counted
afresh, which reads every feature cell.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Iterable

from pyoxigraph import Literal, NamedNode, Quad

from .mapping.features import feature_family
from .store import GraphStore, literal_text
from .vocab import KG, RDF, XSD, Iris

FAMILIES = ("observability", "cost", "eval")
STATES = ("yes", "no", "unknown")
# what a tally counts, and the property that states it
MEASURES = {
    "systems": KG.systemCount, "systems_yes": KG.systemsYes, "systems_no": KG.systemsNo,
    "systems_unknown": KG.systemsUnknown, "cells": KG.cellCount, "cells_yes": KG.cellsYes,
    "cells_no": KG.cellsNo, "cells_unknown": KG.cellsUnknown,
}
Key = tuple[str, str]  # (family, the column slug, or "" for the whole family)
Tally = dict[Key, Counter[str]]


def system_tally(states: Iterable[tuple[str, str]]) -> Tally:
    """One system's share of the tallies, from its feature cells' (column slug, state).

    >>> t = system_tally([("eval-a", "no"), ("eval-b", "unknown")])
    >>> dict(t[("eval", "")])
    {'systems': 1, 'systems_no': 1, 'cells': 2, 'cells_no': 1, 'cells_unknown': 1}
    """
    per_family: dict[str, Counter[str]] = {}
    tally: Tally = {}
    for column_slug, state in states:
        family = feature_family(column_slug)
        if family is None or state not in STATES:
            continue
        per_family.setdefault(family, Counter())[state] += 1
        # one cell a column in a record: the column's systems are its cells
        tally[(family, column_slug)] = Counter(
            {"systems": 1, f"systems_{state}": 1, "cells": 1, f"cells_{state}": 1})
    for family, cells in per_family.items():
        seen = "yes" if cells["yes"] else "no" if cells["no"] else "unknown"
        tally[(family, "")] = Counter({"systems": 1, f"systems_{seen}": 1, "cells": sum(cells.values()),
                                       **{f"cells_{state}": cells[state] for state in STATES if cells[state]}})
    return tally


@dataclass
class Written:
    """What a writer tells of the record graphs it wrote: their graphs, and the sum of their shares
    as they were written (so the description need not read them back: at 45,600 records that read
    took 44 s of a fresh build)."""

    graphs: set[object] = field(default_factory=set)
    tally: Tally = field(default_factory=dict)

    def wrote(self, graph: object, states: Iterable[tuple[str, str]]) -> bool:
        """Count a graph written with these feature cells; False when it was written before in this
        session (its earlier share cannot be taken back: the caller stops telling)."""
        if graph in self.graphs:
            return False
        self.graphs.add(graph)
        add(self.tally, system_tally(states))
        return True


def add(total: Tally, part: Tally, sign: int = 1) -> None:
    """Add ``part`` to ``total`` in place (``sign=-1`` takes it away)."""
    for key, counts in part.items():
        into = total.setdefault(key, Counter())
        for measure, n in counts.items():
            into[measure] += sign * n


def _cells(store: GraphStore, iris: Iris, graph: object = None) -> dict[object, dict[str, str]]:
    """The states of the feature cells of ``graph`` (of every graph but the description when None),
    per system: its record graph, or the record a cell belongs to where a graph holds several (RDF
    loaded as it is, a Turtle export for instance)."""
    systems: dict[object, dict[str, str]] = {}
    for quad in store.match(None, KG.featureState, None, graph):
        column_slug = iris.cell_column(quad.subject)
        if column_slug is None or quad.graph_name == iris.dataset_graph:
            continue
        owner = quad.graph_name if iris.record_graph_id(quad.graph_name) else iris.record_of(quad.subject)
        systems.setdefault(owner, {})[column_slug] = literal_text(quad.object)
    return systems


def count_all(store: GraphStore, iris: Iris) -> Tally:
    """The tallies counted afresh from every graph of ``store`` but the description."""
    total: Tally = {}
    for states in _cells(store, iris).values():
        add(total, system_tally(states.items()))
    return total


def count_by_change(store: GraphStore, previous: GraphStore, written: Iterable[object], iris: Iris,
                    told: Written | None = None) -> Tally | None:
    """The tallies of ``previous`` (the version a write session started from) updated by the record
    graphs the session wrote (the share of those in ``told`` as told, of the others as ``store``
    holds them); None when ``previous`` states none and holds records, or when the session wrote
    feature cells into some other graph (then only a count afresh can tell)."""
    total = read_tally(previous, iris)
    if total is None and any(iris.record_graph_id(g) for g in previous.named_graphs()):
        return None
    total = total or {}
    for graph in written:
        if graph == iris.dataset_graph:
            continue
        if not (isinstance(graph, NamedNode) and iris.record_graph_id(graph)):
            if any(version.contains(None, KG.featureState, None, graph) for version in (previous, store)):
                return None
            continue
        for version, sign in ((previous, -1), (store, 1)):
            if sign > 0 and told is not None and graph in told.graphs:
                continue
            for states in _cells(version, iris, graph).values():
                add(total, system_tally(states.items()), sign)
    if told is not None:
        add(total, told.tally)
    return total


def tally_quads(tally: Tally, iris: Iris) -> list[Quad]:
    """The tallies as quads of the description graph: one node a family (always, zeros included)
    and one a column that some system has a cell of."""
    g = iris.dataset_graph
    keys = [(family, "") for family in FAMILIES] + sorted(
        key for key, counts in tally.items() if key[1] and counts["systems"] > 0)
    quads = []
    for family, column in keys:
        counts = tally.get((family, column), Counter())
        node = iris.feature_tally(family, iris.column(column) if column else None)
        quads += [Quad(node, RDF.type, KG.FeatureTally, g), Quad(node, KG.featureFamily, Literal(family), g)]
        if column:
            quads.append(Quad(node, KG.featureColumn, Literal(column), g))
        quads += [Quad(node, predicate, Literal(str(counts[measure]), datatype=XSD.integer), g)
                  for measure, predicate in MEASURES.items()]
    return quads


def read_tally(store: GraphStore, iris: Iris) -> Tally | None:
    """The tallies the description of ``store`` states; None when it states none (or not whole)."""
    g = iris.dataset_graph
    by_property = {predicate.value: measure for measure, predicate in MEASURES.items()}
    tally: Tally = {}
    for typed in store.match(None, RDF.type, KG.FeatureTally, g):
        family, column, counts = None, "", Counter[str]()
        for quad in store.match(typed.subject, None, None, g):
            p = quad.predicate.value
            if p == KG.featureFamily.value:
                family = literal_text(quad.object)
            elif p == KG.featureColumn.value:
                column = literal_text(quad.object)
            elif p in by_property:
                counts[by_property[p]] = int(literal_text(quad.object))
        if family is None or set(counts) != set(MEASURES):
            return None
        tally[(family, column)] = counts
    if any((family, "") not in tally for family in FAMILIES):
        return None
    return tally
