"""The graph writer: collects one named graph's triples, and the shared resources it describes.

Shared resources (columns, concepts, vendors, licences, venues) are described once in the
shared graph rather than in every record graph that points to them: ``Described`` holds
the IRIs already described in a run.
"""

from __future__ import annotations

from typing import Any, Iterable, Protocol

from pyoxigraph import Literal, NamedNode, Quad

from ..records import MISSING
from ..vocab import KG, RDF, Iris, segment
from .fields import FieldSpec, Term, json_literal, word

Triple = tuple[NamedNode, NamedNode, Term]  # (subject, predicate, object) of a record graph


class Described(Protocol):
    """The shared resources already described in a run (a ``set`` of IRIs will do)."""

    def __contains__(self, iri: object) -> bool: ...

    def add(self, iri: str) -> None: ...


class GraphWriter:
    """Collects the quads of one named graph, and descriptions of shared resources.

    Shared resources (columns, concepts, vendors, licences, venues) are described once
    in the shared graph rather than in every record graph that points to them.
    """

    def __init__(self, graph: NamedNode, shared_graph: NamedNode | None = None,
                 described: Described | None = None) -> None:
        self.graph = graph
        self.shared_graph = shared_graph or graph
        self.triples: list[Triple] = []  # the graph's, made into quads at the end (``quads``)
        self.shared: list[Quad] = []
        self.described: Described = described if described is not None else set()

    def first_time(self, node: NamedNode) -> bool:
        """True the first time a shared resource is met (so it is described once)."""
        if node.value in self.described:
            return False
        self.described.add(node.value)
        return True

    def add(self, s: NamedNode, p: NamedNode, o: Term) -> None:
        self.triples.append((s, p, o))

    @property
    def quads(self) -> list[Quad]:
        return in_graph(self.triples, self.graph)

    def describe(self, s: NamedNode, p: NamedNode, o: Term) -> None:
        self.shared.append(Quad(s, p, o, self.shared_graph))

    def fields(self, node: NamedNode, obj: Any, table: Iterable[FieldSpec],
               expected: frozenset[str] = frozenset()) -> None:
        """One triple per field. For ``expected`` keys (present in every catalog object of
        this kind) null is the default and absence is marked; for the others, the reverse."""
        append = self.triples.append
        for attr, key, predicate, encode in table:
            value = getattr(obj, attr)
            if value is MISSING:
                if key in expected:
                    append((node, KG.absentKey, word(key)))
            elif value is None:
                if key not in expected:
                    append((node, KG.nullKey, word(key)))
            else:
                append((node, predicate, encode(value)))

    def extra(self, iris: Iris, node: NamedNode, extra: dict, prefix: str = "") -> None:
        for key, value in extra.items():
            name = prefix + key
            item = iris.part(node, "extra", segment(name))
            self.add(node, KG.extraField, item)
            self.add(item, RDF.type, KG.ExtraField)
            self.add(item, KG.key, Literal(name))
            self.add(item, KG.jsonValue, json_literal(value))

    def container(self, node: NamedNode, key: str, value: Any) -> bool:
        """Record null / empty containers; True when there are items to write."""
        if value is MISSING:
            return False
        if value is None:
            self.add(node, KG.nullKey, word(key))
            return False
        if not value:
            self.add(node, KG.emptyKey, word(key))
            return False
        return True


def in_graph(triples: list[Triple], graph: NamedNode) -> list[Quad]:
    """The quads of these (subject, predicate, object) in ``graph``."""
    return [Quad(s, p, o, graph) for s, p, o in triples]
