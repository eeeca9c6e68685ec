"""The user's own SHACL shapes: read from files, named as rules, and sorted by how each is checked.

``validate(store, shapes=[...])`` checks the graph against these instead of our
shapes. SHACL Core shapes (all of it: every target, path and constraint component)
are checked by the SHACL engine (``kg.shacl``) over the whole graph; shapes that use
SHACL-SPARQL (sh:sparql, sh:target) or custom constraint components, with what
they nest, in one stock pySHACL run over the whole graph (the report says why);
our own catalog-wide rules, when the user's files hold them unchanged, by their
SPARQL queries, as in our own run (``kg.validation.locality``). Each targeted shape
runs in one place: the others' targets are left out of each run. What no engine should run
(a pattern that is no XPath regular expression, shapes nested past the bound, SHACL-SPARQL that
reaches past the data) is refused before either reads the shapes (``kg.validation.shape_checks``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

import pyoxigraph
import rdflib
from rdflib import BNode, Literal, URIRef
from rdflib.collection import Collection

from ..errors import SourceError
from ..vocab import DEFAULT_BASE, RDF, SHAPES_NS
from .pyshacl_run import Converter
from .files import read_rdf_file
from .locality import NESTING, NESTING_LISTS, TARGETS, locality, nested, without_targets
from .paths import path_text
from .paths import SH_NS as SH
from .rules import Rule
from .shape_checks import check_contents, check_nesting

_RDF_TYPE = URIRef(RDF.type.value)
_PARAMETERS = tuple(SH[name] for name in (  # SHACL Core's constraint parameters, sh:property left out
    "and class closed datatype disjoint equals hasValue in languageIn lessThan lessThanOrEquals maxCount "
    "maxExclusive maxInclusive maxLength minCount minExclusive minInclusive minLength node nodeKind not or "
    "pattern qualifiedValueShape sparql uniqueLang xone").split())


@dataclass(frozen=True)
class UserShapes:
    """Shapes read from the user's files: the graph, a rule name per shape, and how they are checked.

    ``triples``: the shapes as pyoxigraph triples (the engine's; blank nodes share their ids
    with ``graph``); ``skip``: the shapes whose targets the engine leaves to the others;
    ``core``: whether any shape is the engine's; ``sparql_graph``: the shapes graph of the
    pySHACL run (None: not needed), ``reason`` why it is; ``checks``: our catalog-wide
    rules among them, answered by SPARQL.
    """

    files: tuple[str, ...]
    graph: rdflib.Graph
    triples: tuple[Any, ...]
    names: dict[Any, str]
    rules: dict[str, Rule]
    skip: frozenset[Any] = frozenset()
    core: bool = False
    sparql_graph: rdflib.Graph | None = None
    checks: dict[str, Rule] = field(default_factory=dict)
    reason: str | None = None


def load_shapes(paths: Sequence[str], base: str = DEFAULT_BASE) -> UserShapes:
    """The shapes of ``paths``, one graph (a SourceError names the file, line and column of bad RDF).

    >>> import tempfile, os
    >>> folder = tempfile.mkdtemp()
    >>> path = os.path.join(folder, "mine.ttl")
    >>> _ = open(path, "w").write('''@prefix sh: <http://www.w3.org/ns/shacl#> .
    ... @prefix ex: <http://example.org/> .
    ... ex:Named a sh:NodeShape ; sh:targetClass ex:Thing ;
    ...   sh:property [ sh:path ex:name ; sh:minCount 1 ; sh:message "needs a name" ] .''')
    >>> shapes = load_shapes([path])
    >>> sorted(shapes.rules), shapes.rules["ex:Named/<http://example.org/name>"].message
    (['ex:Named/<http://example.org/name>'], 'needs a name')
    >>> shapes.core, shapes.sparql_graph is None
    (True, True)
    """
    graph = rdflib.Graph(bind_namespaces="none")
    convert = Converter()
    triples: list[Any] = []
    for path in paths:
        items, prefixes = read_rdf_file(path, base, rename_blank_nodes=len(paths) > 1)
        triples += [pyoxigraph.Triple(q.subject, q.predicate, q.object) for q in items]
        convert.fill(graph, items)  # ill-formed literals quietly: they are findings of sh:datatype
        for prefix, namespace in prefixes.items():
            graph.bind(prefix, namespace, override=False)
    shapes = shape_nodes(graph)
    if not shapes:
        raise SourceError(", ".join(paths), "holds no SHACL shapes (no sh:NodeShape, sh:PropertyShape or target)")
    check_nesting(graph, shapes, ", ".join(paths))
    names = shape_names(graph, shapes)
    check_contents(graph, names, ", ".join(paths))
    where = locality(graph, shapes, base)
    scopes = {shape: "catalog" for shape in where.ours}
    elsewhere = set(where.sparql) | set(where.ours)
    return UserShapes(
        files=tuple(str(p) for p in paths), graph=graph, triples=tuple(triples), names=names,
        rules={**_rules(graph, names, scopes), **{names[s]: rule for s, rule in where.ours.items()}},
        skip=frozenset(_pyoxigraph_term(s) for s in elsewhere), core=bool(where.core),
        sparql_graph=without_targets(graph, set(where.core) | set(where.ours)) if where.sparql else None,
        checks={names[s]: rule for s, rule in where.ours.items()},
        reason="; ".join(sorted({r for reasons in where.sparql.values() for r in reasons})) or None)


def _pyoxigraph_term(node: Any) -> Any:
    return pyoxigraph.BlankNode(str(node)) if isinstance(node, BNode) else pyoxigraph.NamedNode(str(node))


def shape_nodes(graph: rdflib.Graph) -> set[Any]:
    """The shapes of a shapes graph, as SHACL defines them (typed, targeted, nested or constraining)."""
    found: set[Any] = set()
    for cls in (SH.NodeShape, SH.PropertyShape):
        found |= set(graph.subjects(_RDF_TYPE, cls))
    for key in (*TARGETS, "path"):
        found |= set(graph.subjects(SH[key], None))
    for parameter in _PARAMETERS:
        found |= set(graph.subjects(parameter, None))
    for key in NESTING:
        found |= set(graph.objects(None, SH[key]))
    for key in NESTING_LISTS:
        for items in graph.objects(None, SH[key]):
            found |= set(Collection(graph, items))
    return {s for s in found if isinstance(s, (URIRef, BNode))}


def _children(graph: rdflib.Graph, shape: Any) -> list[Any]:
    """The shapes nested in ``shape``, in an order that does not depend on blank node ids."""
    found = [c for key in NESTING for c in graph.objects(shape, SH[key])]
    for key in NESTING_LISTS:
        for items in graph.objects(shape, SH[key]):
            found += list(Collection(graph, items))
    return sorted(found, key=lambda node: _signature(graph, node))


def _label(graph: rdflib.Graph, shape: Any) -> str:
    path = graph.value(shape, SH.path)
    return path_text(graph, path) if path is not None else "node"


def _signature(graph: rdflib.Graph, node: Any) -> tuple:
    own = sorted(f"{p.n3()} {o.n3()}" for p, o in graph.predicate_objects(node) if not isinstance(o, BNode))
    return (_label(graph, node), tuple(own))


def shape_names(graph: rdflib.Graph, shapes: set[Any]) -> dict[Any, str]:
    """A rule name for every shape: a named one by its prefixed name (ours by their local
    name), a blank one by the shape that nests it and its path; the same for every parse."""
    names: dict[Any, str] = {}
    taken: set[str] = set()

    def claim(node: Any, name: str) -> None:
        unique, n = name, 2
        while unique in taken:
            unique, n = f"{name}#{n}", n + 1
        taken.add(unique)
        names[node] = unique

    named = sorted((s for s in shapes if isinstance(s, URIRef)), key=str)
    for shape in named:
        claim(shape, _iri_name(graph, shape))
    frontier = list(named)
    while frontier:
        found = []
        for parent in frontier:
            for child in _children(graph, parent):
                if child in shapes and child not in names:
                    claim(child, f"{names[parent]}/{_label(graph, child)}")
                    found.append(child)
        frontier = found
    for shape in sorted((s for s in shapes if s not in names), key=lambda s: _signature(graph, s)):
        claim(shape, f"shape/{_label(graph, shape)}")
    return names


def _iri_name(graph: rdflib.Graph, iri: URIRef) -> str:
    if str(iri).startswith(SHAPES_NS):
        return str(iri)[len(SHAPES_NS):]
    text = graph.namespace_manager.normalizeUri(iri)
    return str(iri) if text.startswith("<") else text


def _rules(graph: rdflib.Graph, names: dict[Any, str], scopes: dict[Any, str]) -> dict[str, Rule]:
    rules = {}
    for shape, name in names.items():
        if not any((shape, parameter, None) in graph for parameter in _PARAMETERS):
            continue  # only hands its value nodes to other shapes: reports nothing itself
        severity = graph.value(shape, SH.severity)
        path = graph.value(shape, SH.path)
        rules[name] = Rule(
            name=name, iri=str(shape) if isinstance(shape, URIRef) else f"_:{shape}",
            severity=str(severity).rsplit("#", 1)[-1] if severity is not None else "Violation",
            message=_message(graph, shape) or name, scope=scopes.get(shape, "graph"),
            path=path_text(graph, path) if path is not None else None)
    return dict(sorted(rules.items()))


def _message(graph: rdflib.Graph, shape: Any) -> str | None:
    messages = [m for m in graph.objects(shape, SH.message) if isinstance(m, Literal)]
    messages.sort(key=lambda m: (m.language not in (None, "en"), m.language or "", str(m)))
    return str(messages[0]) if messages else None
