"""What a write session changed: the graphs its writes touched, and for a graph only merged into,
the subjects of the quads merged in or removed (so that counts can follow the change).

>>> from pyoxigraph import NamedNode, Quad, Literal
>>> g, h = NamedNode("https://e.org/g"), NamedNode("https://e.org/h")
>>> changes = Changes()
>>> changes.graphs([g]); changes.quads([Quad(g, g, Literal("x"), h)])
>>> sorted(x.value for x in changes.written()), changes.subjects(g), [s.value for s in changes.subjects(h)]
(['https://e.org/g', 'https://e.org/h'], None, ['https://e.org/g'])
"""

from __future__ import annotations

from typing import Any, Iterable

from pyoxigraph import Quad


class Changes:
    """The graphs written so far (``None`` once a write touched graphs that cannot be told)."""

    def __init__(self) -> None:
        self.touched: set[Any] | None = set()
        self.merged: dict[Any, set[Any]] = {}  # graph -> subjects of quads merged in or removed
        self.whole: set[Any] = set()  # graphs replaced, dropped or changed by an update

    def graphs(self, graphs: Iterable[Any]) -> None:
        """Graphs written as a whole (replaced or dropped)."""
        if self.touched is not None:
            graphs = set(graphs)
            self.touched |= graphs  # set operators: a set's update() is not a store's
            self.whole |= graphs

    def updated(self, named: Iterable[Any] | None) -> None:
        """The graphs a SPARQL Update writes; None where they cannot be told (named by a variable, ...):
        from then on no count follows the change."""
        if named is None:
            self.touched = None
        else:
            self.graphs(named)  # written as a whole, as a replace or a drop writes them

    def quads(self, quads: list[Quad]) -> None:
        """Quads merged into (or removed from) their graphs."""
        if self.touched is None:
            return
        for quad in quads:
            self.merged.setdefault(quad.graph_name, set()).add(quad.subject)
        self.touched |= self.merged.keys()

    def written(self) -> set[Any] | None:
        return None if self.touched is None else set(self.touched)

    def subjects(self, graph: Any) -> set[Any] | None:
        """The subjects written in ``graph`` when it was only merged into, else None."""
        if self.touched is None or graph in self.whole:
            return None
        return set(self.merged.get(graph, ()))
