"""Which triples a record part needs: the predicates and classes the shapes can look at.

Only triples a shape can look at are converted for pySHACL (the predicates of the
shapes' paths and targets, and rdf:type for the classes they name); the rest
cannot change a result. A few predicates are needed only where the shapes walk
them backwards from constants: those triples are found by a query instead
(``ReadPlan.lazy``).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any, Iterable

import rdflib
from rdflib import URIRef
from rdflib.collection import Collection

from ..vocab import RDF, RDFS
from .paths import PATH_PREFIXES, RDF_FIRST, grouped, path_iris, path_text
from .paths import steps as path_steps
from .paths import SH_NS as _SH

_RDF_TYPE = URIRef(RDF.type.value)
_RDFS_SUBCLASS = URIRef(RDFS.subClassOf.value)
RDFS_CLASS = URIRef(RDFS.Class.value)  # implicit class targets: a shape that is also an rdfs:Class


@dataclass(frozen=True)
class ReadPlan:
    """Which triples can change a result of some shapes: the rest need not be converted.

    ``predicates``: the predicates the shapes' paths and targets use, with rdf:type
    and rdfs:subClassOf (None: every triple). ``classes``: the classes whose rdf:type
    triples matter (the shapes' sh:targetClass and sh:class, and their subclasses);
    None: every rdf:type triple.
    """

    predicates: frozenset[str] | None
    classes: frozenset[str] | None
    lazy: tuple[tuple[str, str], ...] = ()

    def with_subclasses(self, pairs: Iterable[tuple[str, str]]) -> "ReadPlan":
        """The plan with the subclasses (``(sub, super)`` pairs, transitive) of its classes added."""
        if self.classes is None:
            return self
        classes, pairs = set(self.classes), list(pairs)
        grew = True
        while grew:
            grew = False
            for sub, sup in pairs:
                if sup in classes and sub not in classes:
                    classes.add(sub)
                    grew = True
        return ReadPlan(self.predicates, frozenset(classes), self.lazy)

    @property
    def bulk(self) -> frozenset[str] | None:
        """The predicates read in full (the lazy ones are read by their queries)."""
        if self.predicates is None:
            return None
        return self.predicates - {p for p, _ in self.lazy}


def read_plan(graph: rdflib.Graph) -> ReadPlan:
    """The ``ReadPlan`` of the shapes in ``graph``.

    >>> from kg.validation.rules import shapes_graph
    >>> plan = read_plan(shapes_graph(cross=False))
    >>> "https://w3id.org/agent-landscape/ontology#claimTier" in plan.predicates
    True
    >>> "https://w3id.org/agent-landscape/ontology#value" in plan.predicates   # no rule looks at values
    False
    >>> "https://w3id.org/agent-landscape/ontology#TaxonomyAssignment" in plan.classes
    False
    """
    if any(graph.triples((None, _SH.sparql, None))) or any(graph.triples((None, _SH.closed, None))):
        return ReadPlan(None, None)
    found: set[str] = set()

    def walk(node: Any) -> None:
        if isinstance(node, URIRef):
            found.add(str(node))
            return
        if (node, RDF_FIRST, None) in graph:
            for item in Collection(graph, node):
                walk(item)
            return
        for key in (_SH.inversePath, _SH.alternativePath, _SH.zeroOrMorePath, _SH.oneOrMorePath,
                    _SH.zeroOrOnePath):
            for inner in graph.objects(node, key):
                walk(inner)

    for path in graph.objects(None, _SH.path):
        walk(path)
    for key in (_SH.targetSubjectsOf, _SH.targetObjectsOf, _SH.disjoint, _SH.equals, _SH.lessThan,
                _SH.lessThanOrEquals):
        for predicate in graph.objects(None, key):
            found.add(str(predicate))
    if str(_RDF_TYPE) in found or any(graph.triples((None, _RDF_TYPE, RDFS_CLASS))):
        classes = None  # a path walks rdf:type, or a shape is a class itself: keep every type
    else:
        classes = frozenset(str(c) for key in (_SH.targetClass, _SH["class"]) for c in graph.objects(None, key))
    return ReadPlan(frozenset(found | {str(_RDF_TYPE), str(_RDFS_SUBCLASS)}), classes, _lazy_queries(graph))



_NESTING = ("property", "node", "qualifiedValueShape", "not")  # a shape in one of these is nested
_NESTING_LISTS = ("or", "and", "xone")


def _lazy_queries(graph: rdflib.Graph) -> tuple[tuple[str, str], ...]:
    """Predicates that only some triples of matter, each with the SPARQL query that finds those.

    A predicate qualifies when the shapes only ever walk it backwards (``^p``) from
    nodes reached from constants (``sh:targetNode``): the licence cells, for
    instance, are reached from the column id "license", so of kg:column only the
    triples pointing at that column can matter, not the hundred thousand others.
    """
    parents: dict[Any, list[Any]] = defaultdict(list)
    for key in _NESTING:
        for parent, child in graph.subject_objects(_SH[key]):
            parents[child].append(parent)
    for key in _NESTING_LISTS:
        for parent, items in graph.subject_objects(_SH[key]):
            for child in Collection(graph, items):
                parents[child].append(parent)

    def focus(shape: Any, depth: int = 0) -> tuple[str, str] | None:
        """(SPARQL pattern, variable) binding the focus nodes of ``shape``; None when not from constants."""
        if depth > 8:
            return None
        constants = list(graph.objects(shape, _SH.targetNode))
        targeted = any((shape, _SH[k], None) in graph for k in ("targetClass", "targetSubjectsOf",
                                                                 "targetObjectsOf"))
        if constants and not targeted and not parents.get(shape):
            var = f"?f{depth}"
            return f"VALUES {var} {{ {' '.join(c.n3() for c in constants)} }}", var
        if constants or targeted or len(parents.get(shape, [])) != 1:
            return None
        parent = parents[shape][0]
        found = focus(parent, depth + 1)
        if found is None:
            return None
        pattern, var = found
        path = graph.value(parent, _SH.path)
        if path is None:
            return found
        value = f"?v{depth}"
        return f"{pattern} {var} {path_text(graph, path)} {value} .", value

    uses: dict[str, list[str] | None] = defaultdict(list)
    for key in (_SH.targetSubjectsOf, _SH.targetObjectsOf, _SH.disjoint, _SH.equals, _SH.lessThan,
                _SH.lessThanOrEquals):
        for predicate in graph.objects(None, key):
            uses[str(predicate)] = None
    for shape, path in graph.subject_objects(_SH.path):
        steps = path_steps(graph, path)
        for i, step in enumerate(steps):
            inverse = graph.value(step, _SH.inversePath) if not isinstance(step, URIRef) else None
            if isinstance(inverse, URIRef):
                name = str(inverse)
                if uses[name] is None:
                    continue
                anchor = focus(shape)
                if anchor is None:
                    uses[name] = None
                    continue
                pattern, var = anchor
                before = "/".join(grouped(graph, s) for s in steps[:i])
                reach = f"{var} {before} ?o ." if before else f"BIND({var} AS ?o)"
                anchors = uses[name]
                if anchors is not None:
                    anchors.append(f"{{ {pattern} {reach} }}")
            else:
                for walked in path_iris(graph, step):
                    uses[walked] = None
    prologue = "".join(f"PREFIX {k}: <{v}>\n" for k, v in PATH_PREFIXES.items())
    return tuple(
        (name, f"{prologue}{_LAZY_WHERE}{' UNION '.join(anchors)} "
               f"GRAPH ?g {{ ?s <{name}> ?o }} }}")
        for name, anchors in sorted(uses.items()) if anchors)


_LAZY_WHERE = "SELECT DISTINCT ?s ?o ?g WHERE { "


def in_graphs(query: str, graphs: Iterable[Any]) -> str:
    """A lazy query of :func:`read_plan` asked of ``graphs`` only (a VALUES block of their IRIs,
    written by pyoxigraph's serialiser): one query for a few records instead of one per graph."""
    assert query.count(_LAZY_WHERE) == 1, "not a lazy query of read_plan"
    values = "VALUES ?g { " + " ".join(str(g) for g in graphs) + " } "
    return query.replace(_LAZY_WHERE, _LAZY_WHERE + values)
