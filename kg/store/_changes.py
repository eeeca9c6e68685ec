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

from pyoxigraph import NamedNode, Quad

from ..sparql.lexer import code_tokens


class Changes:
    """The graphs written so far (``None`` once a write touched graphs that cannot be told)."""

    def __init__(self) -> None:
        self.touched: set[Any] | None = set()
        self.merged: dict[Any, set[Any]] = {}  # graph -> subjects of quads merged in or removed
        self.whole: set[Any] = set()  # graphs replaced, dropped or changed by an update

    def graphs(self, graphs: Iterable[Any] | None) -> None:
        """Graphs written as a whole (replaced, dropped, updated); None: some that cannot be told."""
        if self.touched is None:
            return
        if graphs is None:
            self.touched = None
            return
        graphs = list(graphs)
        self.touched.update(graphs)
        self.whole.update(graphs)

    def quads(self, quads: list[Quad]) -> None:
        """Quads merged into (or removed from) their graphs."""
        if self.touched is None:
            return
        for quad in quads:
            self.merged.setdefault(quad.graph_name, set()).add(quad.subject)
        self.touched.update(self.merged)

    def written(self) -> set[Any] | None:
        return None if self.touched is None else set(self.touched)

    def subjects(self, graph: Any) -> set[Any] | None:
        """The subjects written in ``graph`` when it was only merged into, else None."""
        if self.touched is None or graph in self.whole:
            return None
        return set(self.merged.get(graph, ()))


_WRITE_WORDS = {"INSERT", "DELETE"}
_OTHER_UPDATES = {"LOAD", "CLEAR", "CREATE", "COPY", "MOVE", "ADD", "WITH", "USING"}


def graphs_written(text: str) -> set[NamedNode] | None:
    """The graphs a SPARQL Update can change, when its text names them all: every
    INSERT or DELETE template holds only ``GRAPH <iri> { ... }`` blocks, and DROP
    names its graph. None when it cannot be told (a graph named by a variable, the
    default graph, CLEAR, LOAD, WITH, ...).

    >>> sorted(g.value for g in graphs_written('DELETE DATA { GRAPH <https://e.org/g> { <a:b> <a:c> "x" } }'))
    ['https://e.org/g']
    >>> graphs_written('DELETE { ?s ?p ?o } WHERE { GRAPH ?g { ?s ?p ?o } }') is None
    True
    """
    found: set[NamedNode] = set()
    tokens = code_tokens(text)
    i = 0
    while i < len(tokens):
        word = tokens[i].text.upper() if tokens[i].kind == "word" else ""
        if word in _OTHER_UPDATES:
            return None
        if word == "DROP":
            rest = [t for t in tokens[i + 1:i + 4] if t.text.upper() != "SILENT"]
            if len(rest) < 2 or rest[0].text.upper() != "GRAPH" or rest[1].kind != "iri":
                return None
            found.add(NamedNode(rest[1].text[1:-1]))
        elif word in _WRITE_WORDS:
            j = i + 1
            if j < len(tokens) and tokens[j].text.upper() in ("DATA", "WHERE"):
                if tokens[j].text.upper() == "WHERE":
                    return None  # DELETE WHERE: its template is its pattern
                j += 1
            end = _template_graphs(tokens, j, found)
            if end is None:
                return None
            i = end
        i += 1
    return found


def _template_graphs(tokens: list[Any], start: int, found: set[NamedNode]) -> int | None:
    """The index of the '}' closing the template that opens at ``start``, adding the graphs it names
    to ``found``; None when the template writes somewhere not named by an IRI."""
    if start >= len(tokens) or tokens[start].text != "{":
        return None
    depth, i = 0, start
    while i < len(tokens):
        token = tokens[i]
        if token.text == "{":
            depth += 1
        elif token.text == "}":
            depth -= 1
            if depth == 0:
                return i
        elif depth == 1:  # at the template's top level only GRAPH <iri> may stand
            if token.kind == "word" and token.text.upper() == "GRAPH" and i + 1 < len(tokens) \
                    and tokens[i + 1].kind == "iri":
                found.add(NamedNode(tokens[i + 1].text[1:-1]))
                i += 1
            else:
                return None
        i += 1
    return None
