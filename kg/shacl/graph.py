"""A graph of pyoxigraph triples indexed the ways SHACL reads it: objects, subjects, a node's triples, types.

``Facts`` holds triples by (subject, predicate) and, for the predicates asked for,
by (object, predicate); the subjects of each rdf:type class; and, when asked
(``outgoing``: for sh:closed), every (predicate, object) of a subject. A ``Facts``
may sit over a ``base`` layer that lookups read too (the shared resources under one
record's triples): its own triples are where targets find focus nodes.
"""

from __future__ import annotations

from operator import attrgetter
from typing import Any, Iterable, Iterator

from pyoxigraph import NamedNode

Term = Any  # a pyoxigraph term: NamedNode, BlankNode or Literal

RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
RDFS = "http://www.w3.org/2000/01/rdf-schema#"
SH = "http://www.w3.org/ns/shacl#"
XSD = "http://www.w3.org/2001/XMLSchema#"
RDF_TYPE = NamedNode(RDF + "type")
RDF_FIRST = NamedNode(RDF + "first")
RDF_REST = NamedNode(RDF + "rest")
RDF_NIL = NamedNode(RDF + "nil")
SUBCLASS_OF = NamedNode(RDFS + "subClassOf")

_SUBCLASS_IRI = SUBCLASS_OF.value
_NONE: list[Term] = []  # never changed: the answer for a lookup that finds nothing
_TERMS = attrgetter("subject", "predicate", "object")


def terms(triples: Iterable[Any]) -> Iterator[tuple[Term, Term, Term]]:
    """(subject, predicate, object) of each pyoxigraph triple or quad."""
    return map(_TERMS, triples)


class Facts:
    """Triples indexed both ways, optionally over a ``base`` layer that lookups read too.

    ``forward``: (subject, predicate) -> objects; ``backward``: (object, predicate) ->
    subjects and ``by_predicate``: predicate -> subjects, for the predicates added with
    ``backwards`` (None: all); ``instances``: class -> subjects typed with it;
    ``outgoing``: subject -> (predicate, object) pairs, kept only when made with
    ``outgoing=True``. ``subclassing``: whether any rdfs:subClassOf triple was added.
    """

    def __init__(self, base: "Facts | None" = None, *, outgoing: bool = False) -> None:
        self.base = base
        self.forward: dict[tuple[Term, Term], list[Term]] = {}
        self.backward: dict[tuple[Term, Term], list[Term]] = {}
        self.by_predicate: dict[Term, list[Term]] = {}
        self.instances: dict[Term, list[Term]] = {}
        self.outgoing: dict[Term, list[tuple[Term, Term]]] | None = {} if outgoing else None
        self.subclassing: bool = base.subclassing if base is not None else False

    def add(self, triples: Iterable[Any], predicates: frozenset[str] | None = None,
            backwards: frozenset[str] | None = None) -> "Facts":
        """Add pyoxigraph triples or quads (only those of ``predicates``, when given); ``backwards``: the
        predicates looked up from their objects or by predicate (None: all)."""
        return self.add_terms(terms(triples), predicates, backwards)

    def add_terms(self, triples: Iterable[tuple[Term, Term, Term]], predicates: frozenset[str] | None = None,
                  backwards: frozenset[str] | None = None) -> "Facts":
        """As :meth:`add`, from (subject, predicate, object) tuples."""
        forward, backward, by_predicate, instances = self.forward, self.backward, self.by_predicate, self.instances
        outgoing = self.outgoing
        for s, p, o in triples:
            name = p.value
            if predicates is not None and name not in predicates:
                continue
            forward.setdefault((s, p), []).append(o)
            if backwards is None or name in backwards:
                backward.setdefault((o, p), []).append(s)
                by_predicate.setdefault(p, []).append(s)
            if p == RDF_TYPE:
                instances.setdefault(o, []).append(s)
            elif name == _SUBCLASS_IRI:
                self.subclassing = True
            if outgoing is not None:
                outgoing.setdefault(s, []).append((p, o))
        return self

    def objects(self, s: Term, p: Term) -> list[Term]:
        key = (s, p)  # one key for both layers: a term's hash is computed anew each time
        found = self.forward.get(key, _NONE)
        base = self.base
        if base is None:
            return found
        more = base.forward.get(key, _NONE) if base.base is None else base.objects(s, p)
        return found + more if more and found else found or more

    def subjects(self, p: Term, o: Term) -> list[Term]:
        key = (o, p)
        found = self.backward.get(key, _NONE)
        base = self.base
        if base is None:
            return found
        more = base.backward.get(key, _NONE) if base.base is None else base.subjects(p, o)
        return found + more if more and found else found or more

    def pairs(self, s: Term) -> list[tuple[Term, Term]]:
        """Every (predicate, object) of ``s`` (needs ``outgoing``)."""
        assert self.outgoing is not None, "Facts made without outgoing=True"
        found = self.outgoing.get(s, [])
        if self.base is None or self.base.outgoing is None:
            return found
        return found + self.base.pairs(s)

    def value(self, s: Term, p: Term) -> Term | None:
        found = self.objects(s, p)
        return found[0] if found else None

    def subjects_of(self, p: Term) -> list[Term]:
        """The subjects of the triples of ``p`` among this layer's own triples (not the base's)."""
        return distinct(self.by_predicate.get(p, _NONE))

    def objects_of(self, p: Term) -> list[Term]:
        """The objects of the triples of ``p`` among this layer's own triples (not the base's)."""
        return distinct(o for (_, predicate), objects in self.forward.items() if predicate == p for o in objects)

    def items(self, head: Term) -> list[Term]:
        """The members of the RDF list at ``head`` (rdf:first / rdf:rest), in order."""
        found: list[Term] = []
        seen: set[Term] = set()
        while head != RDF_NIL and head not in seen:
            seen.add(head)
            first = self.objects(head, RDF_FIRST)
            if not first:
                break
            found.append(first[0])
            rest = self.objects(head, RDF_REST)
            if not rest:
                break
            head = rest[0]
        return found


def distinct(nodes: Iterable[Term]) -> list[Term]:
    """``nodes`` without repeats, in their order."""
    return list(dict.fromkeys(nodes))
