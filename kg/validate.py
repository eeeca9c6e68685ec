"""SHACL validation of the graph: record-local rules per record graph, catalog-wide rules in SPARQL.

The rules live in ``shapes/`` as SHACL shapes: ``kg-shapes.ttl`` holds the rules
a record can be checked on alone (its own named graph plus the shared resources
it points to), ``kg-cross-shapes.ttl`` the rules that need the whole catalog (id
uniqueness, edge end points, duplicate edges). A rule is named by the local name
of the shape that reports it.

``validate`` (the split run, what ``kg validate`` does):

* every record graph, with the shared descriptions, goes to pySHACL as an
  rdflib graph, a couple of dozen records per call, on all cores
  (``multiprocessing``; the workers read a checkpoint of the on-disk store, see
  ``_snapshot``). The relations and the other graphs
  form one more such part. Only triples a shape can look at are converted (the
  predicates of the shapes' paths and targets, and rdf:type for the classes they
  name: see ``read_plan``); the rest cannot change a result;
* each catalog-wide shape is answered by the SPARQL query ``queries/check-*.rq``
  whose ``# shape:`` header names it, run in the store (milliseconds).

The workers skip pySHACL work that cannot change a result (``pyshacl_shortcuts``:
the text it formats for every result, and shape parameters it reads again for
every node a nested shape checks; ``_ShapesGraph`` remembers shapes-graph
lookups). Tests compare the split run with stock pySHACL.

``validate_monolithic`` runs stock pySHACL once over the whole graph with both
shape files: the reference the split run must equal (tests prove it on fixtures
and on the bundled catalog). ``revalidate`` updates a report after some records
changed: only their graphs and the catalog-wide queries are checked again.

>>> rules = load_rules()
>>> rules["T2Citation"].severity, rules["T2Citation"].scope
('Violation', 'record')
>>> rules["RelationTargetIsSystem"].check
'check-relation-target'
"""

from __future__ import annotations

import multiprocessing
import os
import re
import shutil
import tempfile
import time
from collections import Counter, defaultdict
from concurrent.futures import ProcessPoolExecutor, as_completed
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Mapping, Sequence
from urllib.parse import unquote

import pyoxigraph
import rdflib
import rdflib.paths
from rdflib import BNode, Literal as RLiteral, URIRef
from rdflib.collection import Collection

from .errors import SourceError, UsageError
from .queries import QUERIES_DIR
from .resources import resource_dir
from .store import GraphStore
from .vocab import DEFAULT_BASE, KG_NS, PREFIXES, RDF, RDFS, SH, SHAPES_NS, Iris

SHAPES_DIR = resource_dir("shapes")
LOCAL_SHAPES = SHAPES_DIR / "kg-shapes.ttl"
CROSS_SHAPES = SHAPES_DIR / "kg-cross-shapes.ttl"
SEVERITIES = ("Violation", "Warning", "Info")
FAIL_ON = ("violation", "warning", "info")
RECORDS_PER_CALL = 24  # records per pySHACL call: its per-call cost is small, smaller graphs are faster

_SH = rdflib.Namespace(SH.iri)
_RDF_TYPE = URIRef(RDF.type.value)
_RDFS_SUBCLASS = URIRef(RDFS.subClassOf.value)
RDF_FIRST = URIRef(RDF.first.value)
RDFS_CLASS = URIRef(RDFS.Class.value)  # implicit class targets: a shape that is also an rdfs:Class
_XSD_STRING = "http://www.w3.org/2001/XMLSchema#string"
_PATH_PREFIXES = {name: iri for name, iri in PREFIXES.items()
                  if name in ("kg", "rdf", "rdfs", "dcterms", "schema", "skos")}


# ---------------------------------------------------------------------------
# Rules: the shapes that report results


@dataclass(frozen=True)
class Rule:
    """One rule: a shape with a severity and a message.

    ``scope`` is ``record`` (checked per record graph) or ``catalog`` (checked by
    the SPARQL query ``check``).
    """

    name: str
    iri: str
    severity: str
    message: str
    scope: str
    path: str | None = None
    check: str | None = None
    component: str | None = None


def shapes_text(iris: Iris | None = None, *, cross: bool = False) -> str:
    """The Turtle text of the record-local shapes (or the catalog-wide ones), for ``iris``' base.

    The shapes name taxonomy schemes under the default base; another base is
    substituted in.
    """
    text = (CROSS_SHAPES if cross else LOCAL_SHAPES).read_text(encoding="utf-8")
    if iris is not None and iris.base != DEFAULT_BASE:
        text = text.replace(DEFAULT_BASE, iris.base)
    return text


def shapes_graph(iris: Iris | None = None, *, local: bool = True, cross: bool = True) -> rdflib.Graph:
    """The shapes as an rdflib graph: the record-local ones, the catalog-wide ones, or both."""
    graph = rdflib.Graph()
    if local:
        graph.parse(data=shapes_text(iris), format="turtle")
    if cross:
        graph.parse(data=shapes_text(iris, cross=True), format="turtle")
    return graph


def _check_headers() -> dict[str, tuple[str, str]]:
    """shape name -> (check query name, constraint component) from queries/check-*.rq headers."""
    found = {}
    for path in sorted(QUERIES_DIR.glob("check-*.rq")):
        header = {}
        for line in path.read_text(encoding="utf-8").splitlines():
            if not line.startswith("#"):
                break
            m = re.match(r"^#\s*(shape|component)\s*:\s*(\S+)", line)
            if m:
                header[m.group(1)] = m.group(2)
        if "shape" in header:
            found[header["shape"]] = (path.stem, header.get("component", ""))
    return found


def load_rules(iris: Iris | None = None) -> dict[str, Rule]:
    """Every rule of the shapes, by name (the local name of its shape)."""
    return dict(_rules((iris or Iris()).base))


@lru_cache(maxsize=4)
def _rules(base: str) -> tuple[tuple[str, Rule], ...]:
    iris = Iris(base)
    checks = _check_headers()
    rules: dict[str, Rule] = {}
    for scope, graph in (("record", shapes_graph(iris, cross=False)),
                         ("catalog", shapes_graph(iris, local=False))):
        for shape in graph.subjects(_SH.severity, None):
            if not isinstance(shape, URIRef) or not str(shape).startswith(SHAPES_NS):
                continue
            name = str(shape)[len(SHAPES_NS):]
            message = graph.value(shape, _SH.message)
            path = graph.value(shape, _SH.path)
            check, component = checks.get(name, (None, None))
            if scope == "catalog" and check is None:
                raise UsageError(f"catalog-wide rule {name} has no queries/check-*.rq naming it")
            rules[name] = Rule(
                name=name, iri=str(shape), severity=str(graph.value(shape, _SH.severity)).rsplit("#", 1)[-1],
                message=str(message) if message is not None else name, scope=scope,
                path=path_text(graph, path) if path is not None else None,
                check=check, component=component or None,
            )
    return tuple(sorted(rules.items()))


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


def _steps(graph: rdflib.Graph, path: Any) -> list[Any] | None:
    """The steps of a sequence path (a one-step path is a sequence of one)."""
    if isinstance(path, URIRef):
        return [path]
    if (path, RDF_FIRST, None) in graph:
        return list(Collection(graph, path))
    return [path]


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
        steps = _steps(graph, path) or []
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
                before = "/".join(_grouped(graph, s) for s in steps[:i])
                reach = f"{var} {before} ?o ." if before else f"BIND({var} AS ?o)"
                uses[name].append(f"{{ {pattern} {reach} }}")
            else:
                for predicate in _path_iris_of(graph, step):
                    uses[predicate] = None
    prologue = "".join(f"PREFIX {k}: <{v}>\n" for k, v in _PATH_PREFIXES.items())
    return tuple(
        (name, f"{prologue}SELECT DISTINCT ?s ?o ?g WHERE {{ {' UNION '.join(anchors)} "
               f"GRAPH ?g {{ ?s <{name}> ?o }} }}")
        for name, anchors in sorted(uses.items()) if anchors)


def _path_iris_of(graph: rdflib.Graph, node: Any) -> set[str]:
    if isinstance(node, URIRef):
        return {str(node)}
    found: set[str] = set()
    if (node, RDF_FIRST, None) in graph:
        for item in Collection(graph, node):
            found |= _path_iris_of(graph, item)
    for key in (_SH.inversePath, _SH.alternativePath, _SH.zeroOrMorePath, _SH.oneOrMorePath, _SH.zeroOrOnePath):
        for inner in graph.objects(node, key):
            found |= _path_iris_of(graph, inner)
    return found



def path_text(graph: rdflib.Graph, node: Any) -> str:
    """A SHACL property path as SPARQL property path text (prefixed names where known).

    >>> g = rdflib.Graph().parse(data='''@prefix sh: <http://www.w3.org/ns/shacl#> .
    ...   @prefix kg: <https://w3id.org/agent-landscape/ontology#> .
    ...   [] sh:path ( [ sh:inversePath kg:cell ] kg:license ) .''', format="turtle")
    >>> path_text(g, next(g.objects(None, rdflib.URIRef("http://www.w3.org/ns/shacl#path"))))
    '^kg:cell/kg:license'
    """
    if isinstance(node, URIRef):
        return _short(str(node))
    if (node, RDF_FIRST, None) in graph:
        return "/".join(_grouped(graph, item) for item in Collection(graph, node))
    inverse = graph.value(node, _SH.inversePath)
    if inverse is not None:
        return "^" + _grouped(graph, inverse)
    alternatives = graph.value(node, _SH.alternativePath)
    if alternatives is not None:
        return "(" + "|".join(path_text(graph, item) for item in Collection(graph, alternatives)) + ")"
    for key, mark in ((_SH.zeroOrMorePath, "*"), (_SH.oneOrMorePath, "+"), (_SH.zeroOrOnePath, "?")):
        inner = graph.value(node, key)
        if inner is not None:
            return _grouped(graph, inner) + mark
    return "?"


def _grouped(graph: rdflib.Graph, node: Any) -> str:
    text = path_text(graph, node)
    return f"({text})" if "/" in text or ("|" in text and not text.startswith("(")) else text


def _short(iri: str) -> str:
    for name, ns in _PATH_PREFIXES.items():
        if iri.startswith(ns) and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_-]*", iri[len(ns):]):
            return f"{name}:{iri[len(ns):]}"
    return f"<{iri}>"


# ---------------------------------------------------------------------------
# Results and reports


@dataclass(frozen=True, order=True)
class Result:
    """One validation result, in plain values (IRIs as text, literals in N-Triples form).

    ``record`` is the id of the record the result is about (from the focus node,
    or from the value when the focus is not part of a record); ``column`` the cell
    column for results about a cell.
    """

    rule: str
    focus: str
    path: str | None
    value: str | None
    component: str
    severity: str
    record: str | None = field(default=None, compare=False)
    column: str | None = field(default=None, compare=False)

    @property
    def key(self) -> tuple:
        return (self.rule, self.focus, self.path, self.value, self.component, self.severity)


def term_text(term: Any) -> str:
    """A term as text: an IRI as itself, a literal in N-Triples form, a blank node as _:id."""
    if isinstance(term, (URIRef, pyoxigraph.NamedNode)):
        return str(term) if isinstance(term, URIRef) else term.value
    if isinstance(term, RLiteral):
        return _literal_nt(str(term), term.language, str(term.datatype) if term.datatype else None)
    if isinstance(term, pyoxigraph.Literal):
        return _literal_nt(term.value, term.language, term.datatype.value)
    if isinstance(term, (BNode, pyoxigraph.BlankNode)):
        return "_:" + (str(term) if isinstance(term, BNode) else term.value)
    return str(term)


def _literal_nt(value: str, language: str | None, datatype: str | None) -> str:
    text = str(pyoxigraph.Literal(value))
    if language:
        return f"{text}@{language}"
    if datatype and datatype != _XSD_STRING and datatype != "http://www.w3.org/1999/02/22-rdf-syntax-ns#langString":
        return f"{text}^^<{datatype}>"
    return text


def display_text(text: str | None) -> str | None:
    """Text of a term as shown to people: an IRI as is, a literal's lexical form."""
    if text is None or not text.startswith('"'):
        return text
    try:
        term = next(iter(pyoxigraph.parse(f"<x:s> <x:p> {text} .".encode("utf-8"),
                                          format=pyoxigraph.RdfFormat.N_TRIPLES)))
        return term.object.value
    except (SyntaxError, ValueError, StopIteration):
        return text


class _Owner:
    """Finds the record (and the column) a node belongs to, from the IRI scheme of vocab.Iris."""

    def __init__(self, iris: Iris) -> None:
        self.systems = iris.base + "system/"
        self.relations = iris.base + "relation/"

    def record(self, text: str | None) -> str | None:
        if not text:
            return None
        for prefix in (self.systems, self.relations):
            if text.startswith(prefix):
                return unquote(text[len(prefix):].split("/", 1)[0]) or None
        return None

    def column(self, text: str | None) -> str | None:
        if text and text.startswith(self.systems):
            parts = text[len(self.systems):].split("/")
            if len(parts) == 3 and parts[1] == "cell":
                return unquote(parts[2])
        return None


def make_result(owner: _Owner, rule: str, focus: str, path: str | None, value: str | None,
                component: str, severity: str) -> Result:
    record = owner.record(focus) or owner.record(value)
    if record is None and path == "^dcterms:identifier" and focus.startswith('"'):
        record = display_text(focus)  # a repeated id (UniqueSystemIdentifier)
    column = owner.column(focus) or owner.column(value)
    return Result(rule=rule, focus=focus, path=path, value=value, component=component,
                  severity=severity, record=record, column=column)


@dataclass
class ValidationReport:
    """The results of one validation run, with what was checked and how long it took."""

    results: list[Result]
    rules: dict[str, Rule]
    records: int = 0
    relations: int = 0
    seconds: float = 0.0
    mode: str = "split"
    scope: list[str] | None = None  # the record ids checked, when not all
    timings: dict[str, float] = field(default_factory=dict)

    def count(self, severity: str) -> int:
        return sum(1 for r in self.results if r.severity == severity)

    @property
    def violations(self) -> int:
        return self.count("Violation")

    @property
    def warnings(self) -> int:
        return self.count("Warning")

    @property
    def conforms(self) -> bool:
        """SHACL conformance: no result at all."""
        return not self.results

    def fails(self, fail_on: str = "violation") -> bool:
        """True when a result is at least as severe as ``fail_on`` (violation, warning or info)."""
        if fail_on == "never":
            return False
        if fail_on not in FAIL_ON:
            raise UsageError(f"--fail-on must be one of never, {', '.join(FAIL_ON)}")
        worst = SEVERITIES[: FAIL_ON.index(fail_on) + 1]
        return any(r.severity in worst for r in self.results)

    def by_rule(self) -> dict[str, list[Result]]:
        grouped: dict[str, list[Result]] = defaultdict(list)
        for result in self.results:
            grouped[result.rule].append(result)
        return dict(grouped)

    def keys(self) -> set[tuple]:
        return {r.key for r in self.results}

    def to_json(self) -> dict[str, Any]:
        """Machine-readable: a summary and one entry per result."""
        return {
            "conforms": self.conforms,
            "violations": self.violations,
            "warnings": self.warnings,
            "infos": self.count("Info"),
            "records": self.records,
            "relations": self.relations,
            "mode": self.mode,
            "scope": self.scope,
            "seconds": round(self.seconds, 3),
            "counts": {name: n for name, n in sorted(Counter(r.rule for r in self.results).items())},
            "results": [
                {
                    "focus": display_text(r.focus),
                    "record": r.record,
                    "column": r.column,
                    "path": r.path,
                    "value": display_text(r.value),
                    "rule": r.rule,
                    "severity": r.severity,
                    "message": self.rules[r.rule].message if r.rule in self.rules else r.rule,
                    "component": r.component,
                }
                for r in self.results
            ],
        }

    def to_turtle(self, iris: Iris | None = None) -> bytes:
        """The W3C SHACL validation report graph (sh:ValidationReport), as Turtle."""
        return report_graph_turtle(self, iris or Iris())


def report_graph_turtle(report: ValidationReport, iris: Iris) -> bytes:
    shapes = shapes_graph(iris)
    sh = SH.iri
    triples: list[pyoxigraph.Triple] = []
    root = pyoxigraph.BlankNode("report")

    def nn(local: str) -> pyoxigraph.NamedNode:
        return pyoxigraph.NamedNode(sh + local)

    def term(text: str) -> Any:
        if text.startswith('"'):
            return next(iter(pyoxigraph.parse(f"<x:s> <x:p> {text} .".encode("utf-8"),
                                              format=pyoxigraph.RdfFormat.N_TRIPLES))).object
        if text.startswith("_:"):
            return pyoxigraph.BlankNode(text[2:])
        return pyoxigraph.NamedNode(text)

    rdf_type = pyoxigraph.NamedNode(RDF.type.value)
    triples.append(pyoxigraph.Triple(root, rdf_type, nn("ValidationReport")))
    triples.append(pyoxigraph.Triple(root, nn("conforms"), pyoxigraph.Literal(report.conforms)))
    path_nodes: dict[str, Any] = {}
    for i, r in enumerate(report.results):
        node = pyoxigraph.BlankNode(f"r{i}")
        rule = report.rules.get(r.rule)
        triples += [
            pyoxigraph.Triple(root, nn("result"), node),
            pyoxigraph.Triple(node, rdf_type, nn("ValidationResult")),
            pyoxigraph.Triple(node, nn("focusNode"), term(r.focus)),
            pyoxigraph.Triple(node, nn("resultSeverity"), nn(r.severity)),
            pyoxigraph.Triple(node, nn("sourceConstraintComponent"), nn(r.component)),
            pyoxigraph.Triple(node, nn("sourceShape"), pyoxigraph.NamedNode(SHAPES_NS + r.rule)),
        ]
        if rule is not None:
            triples.append(pyoxigraph.Triple(node, nn("resultMessage"), pyoxigraph.Literal(rule.message, language="en")))
        if r.value is not None:
            triples.append(pyoxigraph.Triple(node, nn("value"), term(r.value)))
        if r.path is not None:
            if r.path not in path_nodes:
                path_nodes[r.path] = _path_term(shapes, r.rule, r.path, triples)
            triples.append(pyoxigraph.Triple(node, nn("resultPath"), path_nodes[r.path]))
    prefixes = {"sh": sh, "kg": KG_NS, "kgsh": SHAPES_NS, "dcterms": PREFIXES["dcterms"],
                "schema": PREFIXES["schema"], "xsd": PREFIXES["xsd"]}
    return pyoxigraph.serialize(triples, format=pyoxigraph.RdfFormat.TURTLE, prefixes=prefixes)


def _path_term(shapes: rdflib.Graph, rule: str, text: str, triples: list) -> Any:
    """The path node of ``rule`` (copied from the shapes graph) whose text is ``text``."""
    candidates = [p for s in shapes.subjects(_SH.path, None) for p in shapes.objects(s, _SH.path)
                  if path_text(shapes, p) == text]
    if not candidates:
        return pyoxigraph.Literal(text)
    return _copy_node(shapes, candidates[0], triples, {})


def _copy_node(graph: rdflib.Graph, node: Any, triples: list, seen: dict) -> Any:
    if isinstance(node, URIRef):
        return pyoxigraph.NamedNode(str(node))
    if isinstance(node, RLiteral):
        return pyoxigraph.Literal(str(node))
    if node in seen:
        return seen[node]
    copy = pyoxigraph.BlankNode()
    seen[node] = copy
    for p, o in graph.predicate_objects(node):
        triples.append(pyoxigraph.Triple(copy, pyoxigraph.NamedNode(str(p)), _copy_node(graph, o, triples, seen)))
    return copy


# ---------------------------------------------------------------------------
# pySHACL on rdflib graphs


class _Converter:
    """pyoxigraph terms -> rdflib terms, with a cache for the many repeated IRIs and values."""

    def __init__(self) -> None:
        self.cache: dict[Any, Any] = {}

    def __call__(self, term: Any) -> Any:
        found = self.cache.get(term)
        if found is not None:
            return found
        if isinstance(term, pyoxigraph.NamedNode):
            found = URIRef(term.value)
        elif isinstance(term, pyoxigraph.Literal):
            if term.language:
                found = RLiteral(term.value, lang=term.language)
            elif term.datatype.value == _XSD_STRING:
                found = RLiteral(term.value)
            else:
                found = RLiteral(term.value, datatype=URIRef(term.datatype.value))
        else:
            found = BNode(term.value)
        if len(self.cache) < 200_000:
            self.cache[term] = found
        return found

    def fill(self, graph: rdflib.Graph, triples: Iterable[Any], plan: ReadPlan | None = None) -> None:
        """Add ``triples`` (pyoxigraph triples or quads) to ``graph``: those ``plan`` reads, or all."""
        add = graph.store.add  # Graph.add only re-checks the term types, then calls this
        predicates = plan.bulk if plan is not None else None
        classes = plan.classes if plan is not None else None
        rdf_type = RDF.type.value
        for t in triples:
            p = t.predicate
            if predicates is not None and p.value not in predicates:
                continue
            if classes is not None and p.value == rdf_type and t.object.value not in classes:
                continue
            add((self(t.subject), self(p), self(t.object)), graph, False)


def _raw_validator_class() -> type:
    from pyshacl import Validator

    class RawValidator(Validator):
        """pySHACL's validator without building the report graph and text (we read the raw results)."""

        @classmethod
        def create_validation_report(cls, sg, conforms, results):  # noqa: ANN001
            return results, ""

    return RawValidator


class _ParameterList(list):
    """pySHACL's list of constraint parameters, with set-speed membership tests."""

    def __init__(self, items: Iterable[Any]) -> None:
        super().__init__(items)
        self._members = frozenset(self)

    def __contains__(self, item: object) -> bool:
        return item in self._members


class _BuiltOnce:
    """Stands for a pySHACL constraint class: builds its instance for a shape once, then reuses it.

    pySHACL builds every constraint of a shape anew (reading its parameters from the
    shapes graph) each time the shape validates a node, also for every value node a
    nested shape checks. The instances keep only those parameters (no state of a
    validation), so one per shape serves every call.
    """

    def __init__(self, cls: type) -> None:
        self.cls = cls
        self.built: dict[int, Any] = {}

    def __call__(self, shape: Any) -> Any:
        found = self.built.get(id(shape))
        if found is None or found.shape is not shape:
            found = self.built[id(shape)] = self.cls(shape)
        return found


_SHORTCUT_MAP: dict[Any, Any] = {}


def _shortcut_map() -> dict[Any, Any]:
    """pySHACL's parameter -> constraint class map, each class wrapped in one ``_BuiltOnce``."""
    if not _SHORTCUT_MAP:
        from pyshacl.constraints import CONSTRAINT_PARAMETERS_MAP

        wrapped: dict[type, _BuiltOnce] = {}
        for parameter, cls in CONSTRAINT_PARAMETERS_MAP.items():
            _SHORTCUT_MAP[parameter] = wrapped.setdefault(cls, _BuiltOnce(cls))
    return _SHORTCUT_MAP


@contextmanager
def pyshacl_shortcuts() -> Iterator[None]:
    """Three pySHACL shortcuts that change no result, for the split run.

    pySHACL formats a human-readable text for every result, also for the many it
    computes and throws away inside sh:or and sh:qualifiedValueShape; we read
    the result triples, never the text, so formatting is skipped. It looks up each
    predicate of a shape in a 40-item list, and builds the shape's constraints
    again, each time a shape validates a node (for nested shapes: every value
    node); a set answers the same, and each constraint is built once per shape
    (``_BuiltOnce``). The monolithic reference run uses stock pySHACL, and tests
    compare the two.
    """
    import pyshacl.shape as shape_module
    from pyshacl.constraints import ALL_CONSTRAINT_PARAMETERS
    from pyshacl.constraints.constraint_component import ConstraintComponent

    saved_text = ConstraintComponent.__dict__.get("make_v_result_description")
    saved_params = getattr(shape_module, "CONSTRAINT_PARAMS", None)
    ConstraintComponent.make_v_result_description = lambda self, *args, **kwargs: ""
    shape_module.CONSTRAINT_PARAMS = (_ParameterList(ALL_CONSTRAINT_PARAMETERS), _shortcut_map())
    try:
        yield
    finally:
        if saved_text is not None:
            ConstraintComponent.make_v_result_description = saved_text
        if saved_params is None:
            del shape_module.CONSTRAINT_PARAMS
        else:
            shape_module.CONSTRAINT_PARAMS = saved_params


class _ShapesGraph(rdflib.Graph):
    """An rdflib graph that remembers the answers of its lookups (for a shapes graph, which
    does not change while it validates): pySHACL looks up the same shape parameters
    for every node a nested shape checks."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._answers: dict[tuple, tuple] = {}

    def add(self, triple: Any) -> "_ShapesGraph":
        self._answers.clear()
        return super().add(triple)

    def triples(self, triple: Any) -> Iterator[Any]:
        if isinstance(triple[1], rdflib.paths.Path):
            return super().triples(triple)
        found = self._answers.get(triple)
        if found is None:
            if len(self._answers) > 100_000:  # never grows without bound
                self._answers.clear()
            found = self._answers[triple] = tuple(super().triples(triple))
        return iter(found)


class ShaclEngine:
    """pySHACL with the shapes parsed and harvested once, run on many data graphs."""

    def __init__(self, shapes: rdflib.Graph, iris: Iris) -> None:
        from pyshacl.shapes_graph import ShapesGraph

        frozen = _ShapesGraph()
        for triple in shapes:
            frozen.add(triple)
        for prefix, namespace in shapes.namespaces():
            frozen.bind(prefix, namespace)
        shapes = frozen
        self.shapes = shapes
        self.iris = iris
        self.owner = _Owner(iris)
        self._validator = _raw_validator_class()
        self._shapes_graph = ShapesGraph(shapes)
        self._shapes_graph.shapes  # harvest now, once  # noqa: B018
        self._rule_names = {str(s): str(s)[len(SHAPES_NS):] for s in shapes.subjects(_SH.severity, None)
                            if str(s).startswith(SHAPES_NS)}
        self._path_texts: dict[Any, str] = {}

    def run(self, data: rdflib.Graph) -> list[Result]:
        from pyshacl.graph_abstraction import DataGraph

        validator = self._validator(DataGraph.from_rdflib(data), shacl_graph=self.shapes,
                                    options={"inference": "none", "advanced": False})
        validator.shacl_graph = self._shapes_graph  # reuse the harvested shapes
        _, raw, _ = validator.run()
        return [self._result(triples) for _, _, triples in raw]

    def _result(self, triples: list) -> Result:
        values: dict[str, Any] = {}
        for _, predicate, obj in triples:
            key = str(predicate)[len(SH.iri):]
            if key in values:
                continue
            values[key] = obj[1] if isinstance(obj, tuple) else obj
        shape = str(values["sourceShape"])
        path = values.get("resultPath")
        if path is not None:
            if path not in self._path_texts:
                self._path_texts[path] = path_text(self.shapes, path)
            path = self._path_texts[path]
        value = values.get("value")
        return make_result(
            self.owner, self._rule_names.get(shape, shape), term_text(values["focusNode"]), path,
            term_text(value) if value is not None else None,
            str(values["sourceConstraintComponent"]).rsplit("#", 1)[-1],
            str(values["resultSeverity"]).rsplit("#", 1)[-1],
        )


def results_from_report_graph(report: rdflib.Graph, shapes: rdflib.Graph, iris: Iris) -> list[Result]:
    """Results of a W3C validation report graph (what stock pySHACL returns)."""
    owner = _Owner(iris)
    results = []
    for node in report.objects(None, _SH.result):
        shape = str(report.value(node, _SH.sourceShape))
        path = report.value(node, _SH.resultPath)
        value = report.value(node, _SH.value)
        results.append(make_result(
            owner, shape[len(SHAPES_NS):] if shape.startswith(SHAPES_NS) else shape,
            term_text(report.value(node, _SH.focusNode)),
            path_text(report, path) if path is not None else None,
            term_text(value) if value is not None else None,
            str(report.value(node, _SH.sourceConstraintComponent)).rsplit("#", 1)[-1],
            str(report.value(node, _SH.resultSeverity)).rsplit("#", 1)[-1],
        ))
    return results


# ---------------------------------------------------------------------------
# Workers: each opens the store itself (read-only) and validates parts of it


_WORKER: dict[str, Any] = {}


_ENGINES: dict[str, tuple[ShaclEngine, ReadPlan]] = {}


def _engine(base: str) -> tuple[ShaclEngine, ReadPlan]:
    """The pySHACL engine of the record-local shapes for ``base``, and their read plan (once per process)."""
    if base not in _ENGINES:
        iris = Iris(base)
        shapes = shapes_graph(iris, cross=False)
        _ENGINES[base] = (ShaclEngine(shapes, iris), read_plan(shapes))
    return _ENGINES[base]


def _worker_init(store_path: str | None, base: str, plan: ReadPlan, schema: list[tuple[str, str]]) -> None:
    engine, _ = _engine(base)
    _WORKER.clear()
    _WORKER.update(
        iris=Iris(base),
        engine=engine,
        plan=plan,
        schema=schema,
        store=pyoxigraph.Store.read_only(store_path) if store_path else None,
        shared=None,
    )


def _graph_quads(store: pyoxigraph.Store, graph: pyoxigraph.NamedNode, plan: ReadPlan) -> Iterator[Any]:
    """The quads of one graph that ``plan`` reads (read by predicate and class: cheaper than filtering)."""
    if plan.bulk is None:
        yield from store.quads_for_pattern(None, None, None, graph)
        return
    rdf_type = RDF.type.value
    for predicate in plan.bulk:
        if predicate == rdf_type and plan.classes is not None:
            for cls in plan.classes:
                yield from store.quads_for_pattern(None, RDF.type, pyoxigraph.NamedNode(cls), graph)
        else:
            yield from store.quads_for_pattern(None, pyoxigraph.NamedNode(predicate), None, graph)


def _check_part(task: tuple[str, list[str], bytes | None, bytes]) -> tuple[list[Result], float]:
    """Validate one part: a list of record graphs (or the other graphs) with the shared graph.

    ``payload``: the part's triples as N-Triples when the worker cannot read the store;
    ``lazy``: the few triples of the plan's lazy predicates the part needs.
    """
    kind, graphs, payload, lazy = task
    started = time.process_time()
    engine: ShaclEngine = _WORKER["engine"]
    iris: Iris = _WORKER["iris"]
    plan: ReadPlan = _WORKER["plan"]
    convert = _WORKER.setdefault("convert", _Converter())  # one term cache per worker
    data = rdflib.Graph()
    for sub, sup in _WORKER["schema"]:  # the class hierarchy, wherever it is stated
        data.add((URIRef(sub), _RDFS_SUBCLASS, URIRef(sup)))
    # the lazy predicates' few triples: added like the rest, and they reach shared resources too
    lazy_triples = list(pyoxigraph.parse(lazy, format=pyoxigraph.RdfFormat.N_TRIPLES)) if lazy else []
    if payload is not None:
        convert.fill(data, pyoxigraph.parse(payload, format=pyoxigraph.RdfFormat.N_TRIPLES), plan)
        convert.fill(data, lazy_triples)
    else:
        store: pyoxigraph.Store = _WORKER["store"]
        if _WORKER["shared"] is None:
            _WORKER["shared"] = _by_subject(_graph_quads(store, iris.shared_graph, plan))
        shared: dict[Any, list[Any]] = _WORKER["shared"]
        own = [q for graph in graphs for q in _graph_quads(store, pyoxigraph.NamedNode(graph), plan)]
        own += lazy_triples
        if kind == "records":
            # only the shared resources these records reach: the shared graph grows with the
            # catalog, and loading all of it into every part made the cost per record grow with it
            convert.fill(data, _reached(own, shared))
        else:
            convert.fill(data, (q for quads in shared.values() for q in quads))  # every shared resource, once
        convert.fill(data, own)
    with pyshacl_shortcuts() if _WORKER.get("shortcuts", True) else nullcontext():
        results = engine.run(data)
    return results, time.process_time() - started


def _by_subject(quads: Iterable[Any]) -> dict[Any, list[Any]]:
    out: dict[Any, list[Any]] = defaultdict(list)
    for q in quads:
        out[q.subject].append(q)
    return dict(out)


def _reached(quads: list[Any], shared: dict[Any, list[Any]]) -> list[Any]:
    """The quads of the shared resources that ``quads`` reach, directly or through each other."""
    found: list[Any] = []
    seen: set[Any] = set()
    todo = [q.object for q in quads if q.object in shared]
    while todo:
        node = todo.pop()
        if node in seen:
            continue
        seen.add(node)
        for q in shared[node]:
            found.append(q)
            if q.object in shared and q.object not in seen:
                todo.append(q.object)
    return found


def _lazy_triples(store: GraphStore, plan: ReadPlan) -> dict[str, list[str]]:
    """graph IRI -> N-Triples lines of the triples of the plan's lazy predicates that matter."""
    found: dict[str, list[str]] = defaultdict(list)
    for predicate, query in plan.lazy:
        for row in store.select(query):
            found[row["g"].value].append(f"{row['s']} <{predicate}> {row['o']} .\n")
    return found


def _payload(store: GraphStore, graphs: Sequence[str], iris: Iris) -> bytes:
    """The N-Triples of ``graphs`` and the shared graph (for stores workers cannot open)."""
    lines = []
    for graph in [iris.shared_graph.value, *graphs]:
        for q in store.quads(pyoxigraph.NamedNode(graph)):
            lines.append(f"{q.subject} {q.predicate} {q.object} .")
    return ("\n".join(lines) + "\n").encode("utf-8")


# ---------------------------------------------------------------------------
# The split run


def record_ids(store: GraphStore, iris: Iris) -> list[str]:
    prefix = iris.record_graph_prefix()
    return [g.value[len(prefix):] for g in store.named_graphs() if g.value.startswith(prefix)]


def _parts(store: GraphStore, iris: Iris, ids: Sequence[str] | None, with_rest: bool,
           per_call: int) -> list[tuple[str, list[str]]]:
    prefix = iris.record_graph_prefix()
    names = [g.value for g in store.named_graphs()]
    wanted = set(ids) if ids is not None else None
    record_graphs = [g for g in names if g.startswith(prefix) and (wanted is None or g[len(prefix):] in wanted)]
    parts = [("records", record_graphs[i:i + per_call]) for i in range(0, len(record_graphs), per_call)]
    if with_rest:
        rest = [g for g in names if not g.startswith(prefix) and g != iris.shared_graph.value]
        parts.insert(0, ("rest", rest))  # the relations: start them first
    return parts


def _start_method() -> multiprocessing.context.BaseContext:
    methods = multiprocessing.get_all_start_methods()
    if "forkserver" in methods:
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload(["kg.validate", "pyshacl"])
        return ctx
    return multiprocessing.get_context("spawn")


@contextmanager
def _snapshot(store: GraphStore) -> Iterator[str | None]:
    """A point-in-time copy of an on-disk store for the workers to read: its folder, or None.

    Oxigraph calls reading a store that another handle writes to undefined
    behaviour (and RocksDB's background compaction does delete files under a
    read-only reader), so the workers open a checkpoint instead: hard links to the
    store's files, made in milliseconds next to the store and removed afterwards.
    None for an in-memory store, or when no copy can be made: the parts then travel
    to the workers as N-Triples.
    """
    inner = getattr(store, "_store", None)
    folder: Path | None = None
    if store.path is not None and inner is not None:
        for where in (Path(store.path).resolve().parent, None):  # next to the store: hard links
            try:
                folder = Path(tempfile.mkdtemp(prefix=".kg-validate-", dir=where)) / "snapshot"
                inner.backup(str(folder))
                break
            except (OSError, RuntimeError, ValueError):
                if folder is not None:
                    shutil.rmtree(folder.parent, ignore_errors=True)
                folder = None
    try:
        yield str(folder) if folder is not None else None
    finally:
        if folder is not None:
            shutil.rmtree(folder.parent, ignore_errors=True)


def check_record_parts(store: GraphStore, iris: Iris, *, ids: Sequence[str] | None = None,
                       with_rest: bool = True, jobs: int | None = None,
                       per_call: int = RECORDS_PER_CALL,
                       progress: Callable[[int, int], None] | None = None) -> tuple[list[Result], dict[str, float]]:
    """The record-local rules: pySHACL on each part, in ``jobs`` processes.

    ``progress(done, total)`` is called as parts finish."""
    parts = _parts(store, iris, ids, with_rest, per_call)
    if jobs is None:  # a pool pays off from a few parts on (starting one costs about half a second)
        jobs = min(os.cpu_count() or 1, len(parts) // 2 or 1)
    jobs = max(1, min(jobs, len(parts)))
    prepared = time.perf_counter()
    # the class hierarchy (the ontology's) goes to every part, and widens the classes read
    schema = [(row["sub"].value, row["sup"].value) for row in store.select(
        f"SELECT DISTINCT ?sub ?sup WHERE {{ ?sub <{RDFS.subClassOf.value}> ?sup "
        f"FILTER(isIRI(?sub) && isIRI(?sup)) }}")]
    plan = _engine(iris.base)[1].with_subclasses(schema)
    lazy = _lazy_triples(store, plan)
    shared_lazy = lazy.get(iris.shared_graph.value, [])
    results: list[Result] = []
    cpu = 0.0
    with _snapshot(store) as path:
        tasks = [(kind, graphs, None if path else _payload(store, graphs, iris),
                  "".join(shared_lazy + [t for g in graphs for t in lazy.get(g, [])]).encode("utf-8"))
                 for kind, graphs in parts]
        init = (path, iris.base, plan, schema)
        prepared = time.perf_counter() - prepared
        if jobs == 1:
            _worker_init(*init)
            try:
                for done, task in enumerate(tasks, start=1):
                    found, spent = _check_part(task)
                    results += found
                    cpu += spent
                    if progress:
                        progress(done, len(tasks))
            finally:
                _WORKER.clear()
        else:
            # a process pool that breaks (instead of respawning) when a worker cannot start
            with ProcessPoolExecutor(jobs, mp_context=_start_method(), initializer=_worker_init,
                                     initargs=init) as pool:
                futures = [pool.submit(_check_part, task) for task in tasks]
                for done, future in enumerate(as_completed(futures), start=1):
                    found, spent = future.result()
                    results += found
                    cpu += spent
                    if progress:
                        progress(done, len(tasks))
    return results, {"record_parts": len(parts), "jobs": jobs, "prepare_s": round(prepared, 3),
                     "worker_cpu_s": round(cpu, 3)}


def check_catalog_rules(store: GraphStore, iris: Iris, rules: Mapping[str, Rule]) -> list[Result]:
    """The catalog-wide rules: one SPARQL query each (queries/check-*.rq), over the whole store."""
    owner = _Owner(iris)
    results = []
    for rule in rules.values():
        if rule.scope != "catalog":
            continue
        text = (QUERIES_DIR / f"{rule.check}.rq").read_text(encoding="utf-8")
        for row in store.select(text):
            value = row.get("value")
            results.append(make_result(owner, rule.name, term_text(row["focus"]), rule.path,
                                       term_text(value) if value is not None else None,
                                       rule.component or "", rule.severity))
    return results


def _finish(results: Iterable[Result], rules: dict[str, Rule], **kwargs: Any) -> ValidationReport:
    unique = {r.key: r for r in results}
    ordered = sorted(unique.values(), key=lambda r: (SEVERITIES.index(r.severity) if r.severity in SEVERITIES else 9,
                                                     r.rule, r.record or "", r.key))
    return ValidationReport(results=ordered, rules=rules, **kwargs)


def _count_relations(store: GraphStore) -> int:
    return store.count(f"SELECT (COUNT(DISTINCT ?r) AS ?n) WHERE {{ ?r a <{KG_NS}Relation> }}")


def validate(store: GraphStore, iris: Iris | None = None, *, records: Sequence[str] | None = None,
             jobs: int | None = None, per_call: int = RECORDS_PER_CALL,
             progress: Callable[[int, int], None] | None = None) -> ValidationReport:
    """Validate the store: record-local rules per record graph in parallel, catalog-wide rules in SPARQL.

    ``progress(done, total)`` is called as record parts finish (the CLI draws it on a terminal).

    With ``records`` only those record graphs are checked (the relations too are
    left out), plus every catalog-wide rule.
    """
    iris = iris or Iris()
    started = time.perf_counter()
    rules = load_rules(iris)
    known = record_ids(store, iris)
    if records is not None:
        missing = sorted(set(records) - set(known))
        if missing:
            raise UsageError(f"no record {', '.join(missing[:5])} in the store")
    local, timings = check_record_parts(store, iris, ids=records, with_rest=records is None, jobs=jobs,
                                        per_call=per_call, progress=progress)
    timings["record_rules_s"] = round(time.perf_counter() - started, 3)
    mark = time.perf_counter()
    catalog = check_catalog_rules(store, iris, rules)
    timings["catalog_rules_s"] = round(time.perf_counter() - mark, 3)
    return _finish(local + catalog, rules, records=len(records) if records is not None else len(known),
                   relations=_count_relations(store), seconds=time.perf_counter() - started, mode="split",
                   scope=sorted(records) if records is not None else None, timings=timings)


def revalidate(report: ValidationReport, store: GraphStore, changed: Sequence[str],
               iris: Iris | None = None) -> ValidationReport:
    """``report`` brought up to date after the records ``changed`` were re-ingested or removed.

    Only the graphs of those records are validated again, and the catalog-wide
    rules rerun; every other record-local result is kept.
    """
    iris = iris or Iris()
    started = time.perf_counter()
    changed_set = set(changed)
    present = set(record_ids(store, iris))
    again = sorted(changed_set & present)
    rules = load_rules(iris)
    kept = [r for r in report.results
            if rules.get(r.rule, Rule("", "", "", "", "record")).scope == "record"
            and not (r.record in changed_set and not r.focus.startswith(iris.base + "relation/"))]
    local, timings = check_record_parts(store, iris, ids=again, with_rest=False, jobs=1) if again else ([], {})
    catalog = check_catalog_rules(store, iris, rules)
    return _finish(kept + local + catalog, rules, records=len(present), relations=_count_relations(store),
                   seconds=time.perf_counter() - started, mode="incremental", timings=timings)


# ---------------------------------------------------------------------------
# The monolithic reference run, and validation of RDF files


def store_to_rdflib(store: GraphStore) -> rdflib.Graph:
    """Every triple of every graph of the store (their union) in one rdflib graph."""
    graph = rdflib.Graph()
    _Converter().fill(graph, store.quads(), None)
    return graph


def validate_monolithic(data: GraphStore | rdflib.Graph, iris: Iris | None = None) -> ValidationReport:
    """One stock pySHACL run over the whole graph with every shape (record-local and catalog-wide).

    Slow (about a minute for a full-shape catalog of 900 records); the reference
    the split run is tested against.
    """
    import pyshacl

    iris = iris or Iris()
    started = time.perf_counter()
    rules = load_rules(iris)
    graph = store_to_rdflib(data) if isinstance(data, GraphStore) else data
    loaded = time.perf_counter() - started
    shapes = shapes_graph(iris)
    _, report_graph, _ = pyshacl.validate(graph, shacl_graph=shapes, inference="none", advanced=False,
                                          allow_warnings=False)
    results = results_from_report_graph(report_graph, shapes, iris)
    systems = len(set(graph.subjects(_RDF_TYPE, URIRef(KG_NS + "System"))))
    relations = len(set(graph.subjects(_RDF_TYPE, URIRef(KG_NS + "Relation"))))
    return _finish(results, rules, records=systems, relations=relations,
                   seconds=time.perf_counter() - started, mode="monolithic",
                   timings={"load_s": round(loaded, 3)})


RDF_FORMATS = {".ttl": "turtle", ".nt": "ntriples", ".nq": "nquads", ".trig": "trig", ".jsonld": "jsonld",
               ".rdf": "rdfxml"}


def load_rdf_files(paths: Sequence[str], iris: Iris) -> GraphStore:
    """RDF files read into an in-memory store laid out like an ingested one.

    Triples of a quad format keep their graph. Triples without one go to the graph
    of the record that owns their subject (``<base>system/<id>...``), relations to
    the edges graph, everything else to the shared graph.
    """
    store = GraphStore()
    owner = _Owner(iris)
    quads: list[pyoxigraph.Quad] = []
    for path in paths:
        fmt = RDF_FORMATS.get(Path(path).suffix.lower())
        if fmt is None:
            raise SourceError(path, f"unknown RDF format (use one of {', '.join(sorted(RDF_FORMATS))})")
        from .store import FORMATS

        try:
            with open(path, "rb") as handle:
                parsed = list(pyoxigraph.parse(handle, format=FORMATS[fmt], base_iri=iris.base))
        except OSError as err:
            raise SourceError(path, f"cannot read: {err.strerror or err}") from None
        except (SyntaxError, ValueError) as err:
            raise SourceError(path, f"not valid {fmt}: {err}") from None
        for item in parsed:
            if isinstance(item, pyoxigraph.Quad) and not isinstance(item.graph_name, pyoxigraph.DefaultGraph):
                quads.append(item)
                continue
            quads.append(pyoxigraph.Quad(item.subject, item.predicate, item.object,
                                         _graph_for(item.subject, owner, iris)))
    store._bulk_extend(quads)
    return store


def _graph_for(subject: Any, owner: _Owner, iris: Iris) -> pyoxigraph.NamedNode:
    text = subject.value if isinstance(subject, pyoxigraph.NamedNode) else ""
    if text.startswith(owner.relations):
        return iris.edges_graph
    record = owner.record(text)
    if record is not None:
        return iris.record_graph(record)
    return iris.shared_graph


# ---------------------------------------------------------------------------
# The text report


def text_report(report: ValidationReport, *, width: int = 100, examples: int = 3) -> str:
    """A report that fits a screen: one block per rule (by column for cell rules), then one summary line."""
    lines: list[str] = []
    what = (f"{report.records} records" if report.scope is None
            else f"{len(report.scope)} record(s) ({', '.join(report.scope[:3])}{', ...' if len(report.scope) > 3 else ''})")
    lines.append(_clip(f"kg validate: {what}, {report.relations} edges, {len(report.rules)} rules; "
                       f"{report.mode} run in {report.seconds:.1f} s", width))
    grouped = report.by_rule()
    order = sorted(grouped, key=lambda n: (SEVERITIES.index(grouped[n][0].severity), -len(grouped[n]), n))
    for name in order:
        found = grouped[name]
        rule = report.rules.get(name)
        message = rule.message if rule else ""
        lines.append("")
        lines.append(_clip(f"{found[0].severity.upper():9} {len(found):6}  {name}: {message}", width))
        components = Counter(r.component.replace("ConstraintComponent", "") for r in found)
        if len(components) > 1:
            lines.append(_clip("                  by check: " + _counts(components), width))
        columns = Counter(r.column for r in found if r.column)
        values = Counter(display_text(r.value) for r in found if r.value is not None)
        if columns:
            lines += _wrapped("                  by column: ", _counts(columns), width, 5)
        elif values and len(values) < len(found):  # a few values repeat: say which
            lines += _wrapped("                  by value: ", _counts(values), width, 2)
        records = sorted({r.record for r in found if r.record})
        shown = ", ".join(records[:examples]) + (f" (+{len(records) - examples} more records)"
                                                 if len(records) > examples else "")
        if records:
            lines.append(_clip(f"                  e.g. {shown}", width))
    quiet = [n for n in report.rules if n not in grouped]
    lines.append("")
    lines.append(f"{len(report.rules) - len(quiet)} of {len(report.rules)} rules reported results, "
                 f"the other {len(quiet)} found nothing (every result: --format json).")
    affected = len({r.record for r in report.results if r.record})
    verdict = "OK" if report.conforms else ("FAIL" if report.violations else "WARN")
    lines.append(f"{verdict}: {report.violations} violation(s), {report.warnings} warning(s), "
                 f"{report.count('Info')} info(s) in {affected} record(s)")
    return "\n".join(lines) + "\n"


def _counts(counter: Counter) -> str:
    return ", ".join(f"{k} {n}" for k, n in sorted(counter.items(), key=lambda kv: (-kv[1], kv[0])))


def _clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 3] + "..."


def _wrapped(lead: str, text: str, width: int, max_lines: int) -> list[str]:
    items = text.split(", ")
    lines, current = [], lead
    for i, item in enumerate(items):
        piece = item if current.endswith(": ") or current.strip() == "" else ", " + item
        if len(current) + len(piece) > width:
            if len(lines) + 1 == max_lines:
                lines.append(current + f", +{len(items) - i} more")
                return lines
            lines.append(current + ",")
            current = " " * len(lead) + item
        else:
            current += piece
    lines.append(current)
    return lines
