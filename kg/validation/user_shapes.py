"""The user's own SHACL shapes: read from files, named as rules, and proven record-local (or not).

``validate(store, shapes=[...])`` checks the graph against these instead of our
shapes. The split run (record parts on the worker pool) gives the results of one
stock pySHACL run over the whole graph when every focus node is checked, in some
part, on exactly the triples the whole graph holds about every node its check
reaches. A part is built for that (``kg.validation.parts.closure_quads``): its
focus candidates (the targets found in its own graphs), then everything about the
nodes reached from them along the predicates the shapes walk forward, whichever
graph holds it. That is provably enough when the shapes

* select focus nodes by sh:targetClass (or implicit class targets; the instances
  of its subclasses too, the hierarchy read from every graph),
  sh:targetSubjectsOf and sh:targetObjectsOf only: found from triples, so each
  focus node is found in the part of the graph holding its target triple (the
  subject of that triple starts the walk, so the triple itself is in the part),
  and a part never finds one the whole graph lacks (a part is a subset of it);
* walk paths forward only (no sh:inversePath anywhere): what a check reads about a
  node are triples with that node as subject, all in the part.

A node a part reaches that is a focus node too is checked there with complete
data as well; the same result from two parts is one result (the report keeps each
once).

Each targeted shape is judged with the shapes it nests (``kg.validation.locality``).
One that is not provably local is checked in one whole-graph pySHACL run instead
(the report says why): sh:targetNode (a constant focus node would be checked in
every part, also in parts that know nothing of it), inverse paths (they read
triples of other records), SPARQL-based constraints or targets, and custom
constraint components. Each run uses the whole shapes graph, with the targets of
the shapes checked elsewhere taken out, so each targeted shape runs in one place.
Our own catalog-wide rules, when the user's files hold them unchanged, are
answered by their SPARQL queries, as in our split run.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

import rdflib
from rdflib import BNode, Literal, URIRef
from rdflib.collection import Collection

from ..errors import SourceError
from ..vocab import DEFAULT_BASE, RDF, SHAPES_NS
from .pyshacl_run import Converter
from .files import read_rdf_file
from .locality import NESTING, NESTING_LISTS, TARGETS, SplitPlan, locality, nested, without_targets
from .paths import path_text
from .paths import SH_NS as SH
from .rules import Rule

_RDF_TYPE = URIRef(RDF.type.value)
_PARAMETERS = tuple(SH[name] for name in (  # SHACL Core's constraint parameters, sh:property left out
    "and class closed datatype disjoint equals hasValue in languageIn lessThan lessThanOrEquals maxCount "
    "maxExclusive maxInclusive maxLength minCount minExclusive minInclusive minLength node nodeKind not or "
    "pattern qualifiedValueShape sparql uniqueLang xone").split())


@dataclass(frozen=True)
class UserShapes:
    """Shapes read from the user's files: the graph, a rule name per shape, and how they are checked.

    ``split`` and ``local_graph``: the plan and the shapes graph of the record parts
    (None: no record-local shape); ``whole_graph``: the shapes graph of the
    whole-graph run (None: not needed), ``reason`` why it is; ``checks``: our
    catalog-wide rules among them, answered by SPARQL.
    """

    files: tuple[str, ...]
    graph: rdflib.Graph
    names: dict[Any, str]
    rules: dict[str, Rule]
    split: SplitPlan | None
    local_graph: rdflib.Graph | None = None
    whole_graph: rdflib.Graph | None = None
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
    >>> shapes.split is not None
    True
    """
    graph = rdflib.Graph(bind_namespaces="none")
    convert = Converter()
    for path in paths:
        items, prefixes = read_rdf_file(path, base)
        convert.fill(graph, items)  # ill-formed literals quietly: pySHACL reads them as they are
        for prefix, namespace in prefixes.items():
            graph.bind(prefix, namespace, override=False)
    shapes = shape_nodes(graph)
    if not shapes:
        raise SourceError(", ".join(paths), "holds no SHACL shapes (no sh:NodeShape, sh:PropertyShape or target)")
    names = shape_names(graph, shapes)
    where = locality(graph, shapes, base)
    checked_elsewhere = set(where.whole) | set(where.ours)
    scopes = {node: "graph" for shape in where.whole for node in nested(graph, shape)}
    scopes.update({shape: "catalog" for shape in where.ours})
    return UserShapes(
        files=tuple(str(p) for p in paths), graph=graph, names=names,
        rules={**_rules(graph, names, scopes), **{names[s]: rule for s, rule in where.ours.items()}},
        split=where.split,
        local_graph=without_targets(graph, checked_elsewhere) if where.local else None,
        whole_graph=without_targets(graph, set(where.local) | set(where.ours)) if where.whole else None,
        checks={names[s]: rule for s, rule in where.ours.items()},
        reason="; ".join(sorted({r for reasons in where.whole.values() for r in reasons})) or None)


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
            message=_message(graph, shape) or name, scope=scopes.get(shape, "record"),
            path=path_text(graph, path) if path is not None else None)
    return dict(sorted(rules.items()))


def _message(graph: rdflib.Graph, shape: Any) -> str | None:
    messages = [m for m in graph.objects(shape, SH.message) if isinstance(m, Literal)]
    messages.sort(key=lambda m: (m.language not in (None, "en"), m.language or "", str(m)))
    return str(messages[0]) if messages else None
