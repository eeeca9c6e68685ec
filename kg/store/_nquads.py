"""N-Quads text for the bulk loader, written straight from the terms of a graph's triples (or made elsewhere).

Building a ``Quad`` costs about 2.3 us in pyoxigraph, and the loader only reads the quads'
text. pyoxigraph prints every term in N-Triples syntax (escapes included), so the line of a
quad is its four terms and a dot: 0.6-0.8 us a quad, the serialiser's own text byte for byte
(tests/test_store_nquads.py checks both on generated and on random terms).

>>> from pyoxigraph import Literal, NamedNode
>>> ex = "https://example.org/"
>>> graph = GraphTriples(NamedNode(ex + "g"), [(NamedNode(ex + "s"), NamedNode(ex + "p"), Literal('say "hi"'))])
>>> text([graph])
b'<https://example.org/s> <https://example.org/p> "say \\\\"hi\\\\"" <https://example.org/g> .\\n'
>>> len(graph), graph[0].graph_name.value
(1, 'https://example.org/g')

A graph whose text was made elsewhere (an ingest's worker process) travels as that text and its
count, a ``GraphText``; its quads are parsed only if something reads them:

>>> shipped = GraphText(graph.graph, len(graph), graph.nquads())
>>> text([shipped]) == text([graph]), [q.object.value for q in shipped]
(True, ['say "hi"'])
"""

from __future__ import annotations

from typing import Any, Iterable, Iterator, Sequence, overload

from pyoxigraph import NamedNode, Quad, RdfFormat, parse, serialize

Triple = tuple[Any, Any, Any]  # (subject, predicate, object) as pyoxigraph terms


class GraphTriples(Sequence[Quad]):
    """The triples of one named graph, read as its quads (built only when they are read) or
    written as N-Quads text (``nquads``, made once) without building them."""

    __slots__ = ("graph", "triples", "_text")

    def __init__(self, graph: NamedNode, triples: list[Triple]) -> None:
        self.graph = graph
        self.triples = triples
        self._text: bytes | None = None

    def __len__(self) -> int:
        return len(self.triples)

    @overload
    def __getitem__(self, index: int) -> Quad: ...

    @overload
    def __getitem__(self, index: slice) -> list[Quad]: ...

    def __getitem__(self, index: int | slice) -> Quad | list[Quad]:
        if isinstance(index, slice):
            return [Quad(s, p, o, self.graph) for s, p, o in self.triples[index]]
        s, p, o = self.triples[index]
        return Quad(s, p, o, self.graph)

    def __iter__(self) -> Iterator[Quad]:
        graph = self.graph
        return (Quad(s, p, o, graph) for s, p, o in self.triples)

    def nquads(self) -> bytes:
        """The graph's quads as N-Quads lines, UTF-8 (made at the first call, on the caller's thread, and
        kept as bytes: a record's text as ``str`` takes 2 bytes a character once one is not Latin-1)."""
        if self._text is None:
            self._text = "".join(_lines(self.triples, f" {self.graph} .\n")).encode()
        return self._text

    def forget_text(self) -> None:
        """Drop the text made by ``nquads`` (once handed to the loader it is not needed again)."""
        self._text = None


class GraphText(Sequence[Quad]):
    """The quads of one named graph as N-Quads text made elsewhere (``GraphTriples.nquads`` in another
    process) and their count: handed to the loader as they are; parsed only when read as quads."""

    __slots__ = ("graph", "length", "text")

    def __init__(self, graph: NamedNode, length: int, text: bytes) -> None:
        self.graph = graph
        self.length = length  # quads in the text
        self.text = text

    def __len__(self) -> int:
        return self.length

    @overload
    def __getitem__(self, index: int) -> Quad: ...

    @overload
    def __getitem__(self, index: slice) -> list[Quad]: ...

    def __getitem__(self, index: int | slice) -> Quad | list[Quad]:
        return list(self)[index]

    def __iter__(self) -> Iterator[Quad]:
        return iter(parse(self.nquads(), format=RdfFormat.N_QUADS))

    def nquads(self) -> bytes:
        """The graph's N-Quads text, UTF-8."""
        return self.text


def _lines(triples: list[Triple], tail: str) -> list[str]:
    """One line a triple, ending with ``tail``. Terms recur from line to line (a full record: 1,090
    triples, a few hundred subjects, 80 predicates, the same literal of a status or a date on many
    cells): each is printed once, then looked up by its id, which names it while the triples hold it
    (a look-up by the term would hash its text each time)."""
    printed: dict[int, str] = {}
    get = printed.get
    lines = []
    for s, p, o in triples:
        subject = get(id(s))
        if subject is None:
            subject = printed[id(s)] = str(s)
        predicate = get(id(p))
        if predicate is None:
            predicate = printed[id(p)] = str(p)
        value = get(id(o))
        if value is None:
            value = printed[id(o)] = str(o)
        lines.append(f"{subject} {predicate} {value}{tail}")
    return lines


def texts(parts: Iterable[Sequence[Quad]]) -> list[bytes]:
    """The N-Quads text of each of these sequences of quads, in order: a ``GraphTriples`` writes its
    own, a ``GraphText`` holds it, any other sequence goes through pyoxigraph's serialiser."""
    return [part.nquads() if isinstance(part, (GraphTriples, GraphText))
            else serialize(part, format=RdfFormat.N_QUADS) or b"" for part in parts]


def text(parts: Iterable[Sequence[Quad]]) -> bytes:
    """The N-Quads text of these sequences of quads, one after the other (see ``texts``)."""
    return b"".join(texts(parts))


def forget(parts: Iterable[Sequence[Quad]]) -> None:
    """Drop the text the ``GraphTriples`` among ``parts`` made (the loader has it; a ``GraphText`` keeps
    its own: the text is all it holds)."""
    for part in parts:
        if isinstance(part, GraphTriples):
            part.forget_text()
