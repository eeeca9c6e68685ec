"""Our record-local shapes evaluated in plain Python over pyoxigraph quads: the same results as pySHACL, fast.

Ingest checks every record against the record-local shapes of ``shapes/``
(``kg.validation.at_ingest``); pySHACL costs about 25 ms a record, too much to
run on every ingest, so the shapes are compiled here once into small Python
checks and run on each record's quads (well under a millisecond a record). The
shapes stay the one home of the rules: nothing here names a rule; this module only
knows what the SHACL Core terms mean. It knows the subset of SHACL Core our shapes
use (targets, predicate / inverse / sequence / alternative paths, the value-type,
cardinality, value-range, string, property-pair, logical and shape-based
components listed in ``COMPONENTS``) and refuses a shape with anything else
(``UsageError``), so it can never silently check less than pySHACL would. Tests
compare its results with the split pySHACL run on the bundled catalog, result for
result.
"""

from __future__ import annotations

import datetime as _dt
import re
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from functools import lru_cache
from operator import attrgetter
from typing import Any, Callable, Iterable, Iterator

import rdflib
from pyoxigraph import BlankNode, Literal, NamedNode
from rdflib import BNode, URIRef
from rdflib import Literal as RLiteral
from rdflib.collection import Collection

from ..errors import UsageError
from ..vocab import RDF, Iris
from .pyshacl_run import rule_name
from .paths import RDF_FIRST, path_text
from .paths import SH_NS as SH
from .report import Owner, Result, make_result, term_text
from .rules import shapes_graph

Term = Any  # a pyoxigraph term
_RDF_TYPE = RDF.type
_XSD = "http://www.w3.org/2001/XMLSchema#"
_LANG_STRING = "http://www.w3.org/1999/02/22-rdf-syntax-ns#langString"
_NUMERIC = {_XSD + t for t in ("integer", "decimal", "double", "float", "int", "long", "short", "byte",
                                "nonNegativeInteger", "positiveInteger", "negativeInteger",
                                "nonPositiveInteger", "unsignedInt", "unsignedLong")}

# The parameters this module evaluates, and those that carry no check.
COMPONENTS = frozenset({"minCount", "maxCount", "datatype", "nodeKind", "pattern", "flags", "in", "hasValue",
                        "minInclusive", "maxInclusive", "minExclusive", "maxExclusive", "minLength",
                        "maxLength", "class", "disjoint", "equals", "qualifiedValueShape",
                        "qualifiedMinCount", "qualifiedMaxCount", "or", "and", "not", "property", "node"})
_INERT = frozenset({"path", "severity", "message", "name", "description", "order", "group", "targetClass",
                    "targetNode", "targetSubjectsOf", "targetObjectsOf", "deactivated", "defaultValue"})


# ---------------------------------------------------------------------------
# The data: the quads of one record, over the shared resources of the run


class Facts:
    """Triples indexed both ways (subject, predicate) -> objects and (object, predicate) -> subjects,
    optionally over a ``base`` layer (the shared resources) that lookups read too."""

    def __init__(self, base: "Facts | None" = None) -> None:
        self.base = base
        self.forward: dict[tuple[Term, Term], list[Term]] = {}
        self.backward: dict[tuple[Term, Term], list[Term]] = {}
        self.by_predicate: dict[Term, list[Term]] = {}
        self.instances: dict[Term, list[Term]] = {}  # class -> subjects typed with it

    def add(self, triples: Iterable[Any], predicates: frozenset[str] | None = None,
            backwards: frozenset[str] | None = None) -> "Facts":
        """Add pyoxigraph triples or quads (only those of ``predicates``, when given); ``backwards``: the
        predicates looked up from their objects or by predicate (``CoreShapes.backwards``; None: all)."""
        return self.add_terms(terms(triples), predicates, backwards)

    def add_terms(self, triples: Iterable[tuple[Term, Term, Term]], predicates: frozenset[str] | None = None,
                  backwards: frozenset[str] | None = None) -> "Facts":
        """As :meth:`add`, from (subject, predicate, object): the terms a mapping holds. Each term read
        out of a quad is a new object, with its hash to compute again: from the mapping's own terms a
        record's facts take a third of the time."""
        forward, backward, by_predicate, instances = self.forward, self.backward, self.by_predicate, self.instances
        for s, p, o in triples:
            name = p.value
            if predicates is not None and name not in predicates:
                continue
            forward.setdefault((s, p), []).append(o)
            if backwards is None or name in backwards:
                backward.setdefault((o, p), []).append(s)
                by_predicate.setdefault(p, []).append(s)
            if p == _RDF_TYPE:
                instances.setdefault(o, []).append(s)
        return self

    def objects(self, s: Term, p: Term) -> list[Term]:
        found = self.forward.get((s, p), _NONE)
        if self.base is None:
            return found
        more = self.base.forward.get((s, p), _NONE)
        return found + more if more and found else found or more

    def subjects(self, p: Term, o: Term) -> list[Term]:
        found = self.backward.get((o, p), _NONE)
        if self.base is None:
            return found
        more = self.base.backward.get((o, p), _NONE)
        return found + more if more and found else found or more


_NONE: list[Term] = []  # never changed: the answer for a lookup that finds nothing
_TERMS = attrgetter("subject", "predicate", "object")


def terms(triples: Iterable[Any]) -> Iterator[tuple[Term, Term, Term]]:
    """(subject, predicate, object) of each pyoxigraph triple or quad."""
    return map(_TERMS, triples)


# ---------------------------------------------------------------------------
# Paths, compiled: a function from a node to its value nodes


Path = Callable[[Facts, Term], list[Term]]


def _distinct(nodes: Iterable[Term]) -> list[Term]:
    return list(dict.fromkeys(nodes))


def _once(nodes: list[Term]) -> list[Term]:
    """``nodes`` without repeats (most lookups find one node or none: nothing to do)."""
    return nodes if len(nodes) < 2 else list(dict.fromkeys(nodes))


def _compile_path(graph: rdflib.Graph, node: Any) -> Path:
    if isinstance(node, URIRef):
        p = NamedNode(str(node))
        return lambda facts, focus: _once(facts.objects(focus, p))
    if (node, RDF_FIRST, None) in graph:
        parts = [_compile_path(graph, item) for item in Collection(graph, node)]

        def sequence(facts: Facts, focus: Term) -> list[Term]:
            nodes = [focus]
            for part in parts:
                nodes = part(facts, nodes[0]) if len(nodes) == 1 else _distinct(v for n in nodes
                                                                                for v in part(facts, n))
            return nodes
        return sequence
    inverse = graph.value(node, SH.inversePath)
    if isinstance(inverse, URIRef):
        p = NamedNode(str(inverse))
        return lambda facts, focus: _once(facts.subjects(p, focus))
    alternatives = graph.value(node, SH.alternativePath)
    if alternatives is not None:
        options = [_compile_path(graph, item) for item in Collection(graph, alternatives)]

        def alternative(facts: Facts, focus: Term) -> list[Term]:
            found: list[Term] = []
            for option in options:
                found += option(facts, focus)
            return _once(found)
        return alternative
    raise UsageError(f"a shape's path {path_text(graph, node)} is not one kg checks at ingest "
                     f"(predicate, inverse of a predicate, sequence, alternative)")


# ---------------------------------------------------------------------------
# Terms: the shapes' constants as pyoxigraph terms, and the checks of one value


def _term(node: Any) -> Term:
    if isinstance(node, URIRef):
        return NamedNode(str(node))
    if isinstance(node, BNode):
        return BlankNode(str(node))
    assert isinstance(node, RLiteral)
    if node.language:
        return Literal(str(node), language=node.language)
    if node.datatype is not None and str(node.datatype) != _XSD + "string":
        return Literal(str(node), datatype=NamedNode(str(node.datatype)))
    return Literal(str(node))


_LEXICAL: dict[str, Callable[[str], bool]] = {
    _XSD + "integer": lambda text: re.fullmatch(r"[+-]?\d+", text) is not None,
    _XSD + "boolean": lambda text: text in ("true", "false", "1", "0"),
    _XSD + "decimal": lambda text: re.fullmatch(r"[+-]?(\d+(\.\d*)?|\.\d+)", text) is not None,
}


def _valid_date(text: str) -> bool:
    match = re.fullmatch(r"(-?\d{4,})-(\d\d)-(\d\d)(Z|[+-]\d\d:\d\d)?", text)
    if match is None:
        return False
    try:
        _dt.date(int(match.group(1)), int(match.group(2)), int(match.group(3)))
    except ValueError:
        return False
    return True


_LEXICAL[_XSD + "date"] = _valid_date


def _has_datatype(value: Term, datatype: str) -> bool:
    """SHACL's sh:datatype: a literal of that datatype whose text is valid for it."""
    if not isinstance(value, Literal):
        return False
    if value.language:
        return datatype == _LANG_STRING
    if value.datatype.value != datatype:
        return False
    valid = _LEXICAL.get(datatype)
    return valid is None or valid(value.value)


_NODE_KINDS: dict[str, tuple[type, ...]] = {
    "IRI": (NamedNode,), "BlankNode": (BlankNode,), "Literal": (Literal,),
    "BlankNodeOrIRI": (BlankNode, NamedNode), "BlankNodeOrLiteral": (BlankNode, Literal),
    "IRIOrLiteral": (NamedNode, Literal),
}


def _number(value: Term) -> Decimal | float | None:
    if not isinstance(value, Literal) or value.datatype.value not in _NUMERIC:
        return None
    try:
        return Decimal(value.value)
    except InvalidOperation:
        return None


def _compare(limit: Term, test: Callable[[Any, Any], bool]) -> Callable[[Term], bool]:
    bound = _number(limit)

    def check(value: Term) -> bool:
        number = _number(value)
        if bound is not None and number is not None:
            return test(number, bound)
        if isinstance(value, Literal) and isinstance(limit, Literal) and value.datatype == limit.datatype:
            return test(value.value, limit.value)
        return False  # not comparable: a violation, as pySHACL reports it
    return check


# ---------------------------------------------------------------------------
# Shapes, compiled


@dataclass
class _Shape:
    """One (property or node) shape: its path, per-value tests, per-focus tests and nested shapes."""

    node: Any
    path: Path | None
    path_text: str | None
    severity: str
    value_tests: list[tuple[str, Callable[[Term], bool]]] = field(default_factory=list)
    focus_tests: list[Callable[[Facts, Term, list[Term]], list[tuple[str, Term | None]]]] = field(default_factory=list)
    nested: list["_Shape"] = field(default_factory=list)  # sh:property, sh:node: their own results
    required: list[Term] = field(default_factory=list)  # sh:hasValue

    @property
    def only_required(self) -> bool:
        """True when the shape checks nothing but sh:hasValue (the taxonomy axes' members): a fast path."""
        return bool(self.required) and not (self.value_tests or self.focus_tests or self.nested)


class CoreShapes:
    """The record-local shapes compiled for ``check``; ``classes`` is the class hierarchy
    (``(sub, super)`` IRI pairs) the data's rdf:type triples are read through."""

    def __init__(self, graph: rdflib.Graph, iris: Iris, subclasses: Iterable[tuple[str, str]] = ()) -> None:
        self.graph = graph
        self.owner = Owner(iris)
        self._supers: dict[str, set[str]] = {}
        for sub, sup in subclasses:
            self._supers.setdefault(sub, set()).add(sup)
        self._compiled: dict[Any, _Shape] = {}
        self.roots: list[tuple[_Shape, list[tuple[str, Any]]]] = []
        # the predicates walked backwards or targeted by sh:targetSubjectsOf: only these need
        # the (object, predicate) and by-predicate indexes of ``Facts``
        self.backwards = frozenset(str(o) for o in graph.objects(None, SH.inversePath) if isinstance(o, URIRef)) \
            | frozenset(str(o) for o in graph.objects(None, SH.targetSubjectsOf))
        for shape in sorted(set(graph.subjects(None, None)), key=str):
            targets = self._targets(shape)
            if targets and graph.value(shape, SH.deactivated) != RLiteral(True):
                self.roots.append((self._shape(shape), targets))

    # -- compiling --------------------------------------------------------------

    def _targets(self, shape: Any) -> list[tuple[str, Any]]:
        g = self.graph
        found: list[tuple[str, Any]] = []
        for kind in ("targetClass", "targetSubjectsOf", "targetObjectsOf", "targetNode"):
            found += [(kind, _term(value)) for value in g.objects(shape, SH[kind])]
        if (shape, SH.target, None) in g:
            raise UsageError(f"shape {shape} has a SPARQL-based or custom target (sh:target): not checked at ingest")
        return found

    def _shape(self, node: Any) -> _Shape:
        if node in self._compiled:
            return self._compiled[node]
        g = self.graph
        path_node = g.value(node, SH.path)
        severity = g.value(node, SH.severity)
        shape = _Shape(node, _compile_path(g, path_node) if path_node is not None else None,
                       path_text(g, path_node) if path_node is not None else None,
                       str(severity).rsplit("#", 1)[-1] if severity is not None else "Violation")
        self._compiled[node] = shape  # before the parameters: a shape may nest itself
        for predicate, value in sorted(g.predicate_objects(node), key=lambda po: (str(po[0]), str(po[1]))):
            name = str(predicate)[len(str(SH)):] if str(predicate).startswith(str(SH)) else None
            if name is None or name in _INERT:
                continue
            if name not in COMPONENTS:
                raise UsageError(f"shape {node} uses sh:{name}, which kg does not check at ingest")
            self._parameter(shape, name, value)
        return shape

    def _list(self, node: Any) -> list[Any]:
        return list(Collection(self.graph, node))

    def _parameter(self, shape: _Shape, name: str, value: Any) -> None:
        g, node = self.graph, shape.node
        add_value, add_focus = shape.value_tests.append, shape.focus_tests.append
        if name == "minCount":
            least = int(value)
            add_focus(lambda facts, focus, values: [("MinCountConstraintComponent", None)]
                      if len(values) < least else [])
        elif name == "maxCount":
            most = int(value)
            add_focus(lambda facts, focus, values: [("MaxCountConstraintComponent", None)]
                      if len(values) > most else [])
        elif name == "datatype":
            datatype = str(value)
            add_value(("DatatypeConstraintComponent", lambda v: _has_datatype(v, datatype)))
        elif name == "nodeKind":
            kinds = _NODE_KINDS[str(value).rsplit("#", 1)[-1]]
            add_value(("NodeKindConstraintComponent", lambda v: isinstance(v, kinds)))
        elif name == "pattern":
            flags = str(g.value(node, SH.flags) or "")
            regex = re.compile(str(value), re.IGNORECASE if "i" in flags else 0)
            add_value(("PatternConstraintComponent",
                       lambda v: not isinstance(v, BlankNode) and regex.search(v.value) is not None))
        elif name == "in":
            allowed = frozenset(_term(item) for item in self._list(value))
            add_value(("InConstraintComponent", lambda v: v in allowed))
        elif name in ("minLength", "maxLength"):
            length, longest = int(value), name == "maxLength"
            add_value((name[0].upper() + name[1:] + "ConstraintComponent",
                       lambda v: not isinstance(v, BlankNode)
                       and (len(v.value) <= length if longest else len(v.value) >= length)))
        elif name in ("minInclusive", "maxInclusive", "minExclusive", "maxExclusive"):
            tests = {"minInclusive": lambda a, b: a >= b, "maxInclusive": lambda a, b: a <= b,
                     "minExclusive": lambda a, b: a > b, "maxExclusive": lambda a, b: a < b}
            add_value((name[0].upper() + name[1:] + "ConstraintComponent", _compare(_term(value), tests[name])))
        elif name == "hasValue":
            shape.required.append(_term(value))
        elif name == "class":
            cls = str(value)
            shape.focus_tests.append(lambda facts, focus, values: [
                ("ClassConstraintComponent", v) for v in values if not self._instance(facts, v, cls)])
        elif name in ("disjoint", "equals"):
            self._pair(shape, name, NamedNode(str(value)))
        elif name == "qualifiedValueShape":
            self._qualified(shape, self._shape(value))
        elif name in ("qualifiedMinCount", "qualifiedMaxCount"):
            pass  # read with sh:qualifiedValueShape
        elif name in ("or", "and", "not"):
            self._logical(shape, name, [self._shape(item) for item in
                                        (self._list(value) if name != "not" else [value])])
        elif name in ("property", "node"):
            shape.nested.append(self._shape(value))

    def _pair(self, shape: _Shape, name: str, other: Term) -> None:
        def test(facts: Facts, focus: Term, values: list[Term]) -> list[tuple[str, Term | None]]:
            theirs = set(facts.objects(focus, other))
            if name == "disjoint":
                return [("DisjointConstraintComponent", v) for v in values if v in theirs]
            ours = set(values)
            return [("EqualsConstraintComponent", v) for v in _distinct([*values, *theirs])
                    if (v in ours) != (v in theirs)]
        shape.focus_tests.append(test)

    def _qualified(self, shape: _Shape, inner: _Shape) -> None:
        g, node = self.graph, shape.node
        least, most = g.value(node, SH.qualifiedMinCount), g.value(node, SH.qualifiedMaxCount)

        def test(facts: Facts, focus: Term, values: list[Term]) -> list[tuple[str, Term | None]]:
            count = sum(1 for v in values if self.conforms(facts, inner, v))
            found: list[tuple[str, Term | None]] = []
            if least is not None and count < int(least):
                found.append(("QualifiedMinCountConstraintComponent", None))
            if most is not None and count > int(most):
                found.append(("QualifiedMaxCountConstraintComponent", None))
            return found
        shape.focus_tests.append(test)

    def _logical(self, shape: _Shape, name: str, members: list[_Shape]) -> None:
        component = name[0].upper() + name[1:] + "ConstraintComponent"
        passes = {"or": any, "and": all}.get(name)

        def test(facts: Facts, focus: Term, values: list[Term]) -> list[tuple[str, Term | None]]:
            nodes = values if shape.path is not None else [focus]
            bad = []
            for v in nodes:
                oks = [self.conforms(facts, member, v) for member in members]
                ok = not oks[0] if passes is None else passes(oks)
                if not ok:
                    bad.append((component, v))
            return bad
        shape.focus_tests.append(test)

    # -- evaluating ---------------------------------------------------------------

    def _superclasses(self, cls: str) -> set[str]:
        found, todo = {cls}, [cls]
        while todo:
            for sup in self._supers.get(todo.pop(), ()):
                if sup not in found:
                    found.add(sup)
                    todo.append(sup)
        return found

    def _instance(self, facts: Facts, node: Term, cls: str) -> bool:
        return any(cls in self._superclasses(t.value) for t in facts.objects(node, _RDF_TYPE)
                   if isinstance(t, NamedNode))

    def _results(self, facts: Facts, shape: _Shape, focus: Term) -> Iterator[tuple[_Shape, Term, str, Term | None]]:
        """(shape, focus, component, value) of each result of ``shape`` on ``focus``."""
        values = shape.path(facts, focus) if shape.path is not None else [focus]
        for wanted in shape.required:
            if wanted not in values:
                yield shape, focus, "HasValueConstraintComponent", None
        for component, test in shape.value_tests:
            for v in values:
                if not test(v):
                    yield shape, focus, component, v
        for focus_test in shape.focus_tests:
            for component, value in focus_test(facts, focus, values):
                yield shape, focus, component, value
        for inner in shape.nested:
            for v in values:
                yield from self._results(facts, inner, v)

    def conforms(self, facts: Facts, shape: _Shape, focus: Term) -> bool:
        if shape.only_required:
            values = shape.path(facts, focus) if shape.path is not None else [focus]
            return all(wanted in values for wanted in shape.required)
        return next(self._results(facts, shape, focus), None) is None

    def _focus_nodes(self, facts: Facts, kind: str, value: Term) -> list[Term]:
        """The focus nodes a target selects among the record's own triples (``facts``, not its base)."""
        if kind == "targetNode":
            return [value]
        if kind == "targetClass":
            wanted = value.value
            return _distinct(s for cls, subjects in facts.instances.items()
                             if isinstance(cls, NamedNode) and wanted in self._superclasses(cls.value)
                             for s in subjects)
        if kind == "targetSubjectsOf":
            return _distinct(facts.by_predicate.get(value, []))
        return _distinct(o for (s, p), objects in facts.forward.items() if p == value for o in objects)

    def check(self, facts: Facts) -> list[Result]:
        """Every result of the shapes on ``facts`` (one record's triples over the shared ones)."""
        results = []
        selected: dict[tuple[str, Term], list[Term]] = {}
        for root, targets in self.roots:
            for kind, value in targets:
                if (kind, value) not in selected:
                    selected[(kind, value)] = self._focus_nodes(facts, kind, value)
                for focus in selected[(kind, value)]:
                    for shape, at, component, found in self._results(facts, root, focus):
                        results.append(self._result(shape, at, component, found))
        return results

    def _result(self, shape: _Shape, focus: Term, component: str, value: Term | None) -> Result:
        return make_result(self.owner, rule_name(shape.node, {}), term_text(focus), shape.path_text,
                           term_text(value) if value is not None else None, component, shape.severity)


@lru_cache(maxsize=4)
def core_shapes(base: str, subclasses: tuple[tuple[str, str], ...] = ()) -> CoreShapes:
    """Our record-local shapes for ``base``, compiled (once per process)."""
    iris = Iris(base)
    return CoreShapes(shapes_graph(iris, cross=False), iris, subclasses)

