"""The conformance suite's manifests read: each sht:Validate case with its data, shapes and expected report.

Used by tests/test_shacl_suite.py. A case's
expected report is compared as the W3C suite defines it: sh:conforms and the results,
each by focus node, result path, value, source shape, source constraint component and
severity (messages only where the expected report states them), as a multiset: each
sh:result is a node of its own, so two alike results are two (``Results``, sorted). Blank
nodes are compared by what the graph holding them says about them (a path by its
SPARQL text), so a report from another parse of the same files compares equal.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

import pyoxigraph
from pyoxigraph import BlankNode, Literal, NamedNode

HERE = Path(__file__).resolve().parent
MF = "http://www.w3.org/2001/sw/DataAccess/tests/test-manifest#"
SHT = "http://www.w3.org/ns/shacl-test#"
SH = "http://www.w3.org/ns/shacl#"
Results = tuple[tuple[tuple[str, ...], int], ...]  # a multiset of result keys: (key, how many), sorted
RDF_TYPE = NamedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#type")
FIRST = NamedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#first")
REST = NamedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#rest")


class Graph:
    """The triples of one file, parsed once (blank nodes keep their identity within it)."""

    _cache: dict[Path, "Graph"] = {}

    def __init__(self, path: Path) -> None:
        self.path = path
        self.triples = list(pyoxigraph.parse(path=str(path), format=pyoxigraph.RdfFormat.TURTLE,
                                             base_iri=path.as_uri()))
        self.out: dict[Any, list[tuple[Any, Any]]] = {}
        for t in self.triples:
            self.out.setdefault(t.subject, []).append((t.predicate, t.object))

    @classmethod
    def from_triples(cls, triples: Iterable[Any]) -> "Graph":
        """A graph of pyoxigraph triples made elsewhere (another engine's report, say)."""
        graph = cls.__new__(cls)
        graph.path, graph.triples, graph.out = Path("-"), list(triples), {}
        for t in graph.triples:
            graph.out.setdefault(t.subject, []).append((t.predicate, t.object))
        return graph

    @classmethod
    def of(cls, path: Path) -> "Graph":
        if path not in cls._cache:
            cls._cache[path] = cls(path)
        return cls._cache[path]

    def objects(self, s: Any, p: Any) -> list[Any]:
        return [o for q, o in self.out.get(s, []) if q == p]

    def value(self, s: Any, p: Any) -> Any:
        found = self.objects(s, p)
        return found[0] if found else None

    def items(self, head: Any) -> list[Any]:
        found = []
        while head is not None and head != NamedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#nil"):
            first = self.value(head, FIRST)
            if first is None:
                break
            found.append(first)
            head = self.value(head, REST)
        return found

    def signature(self, node: Any, depth: int = 0) -> str:
        """A node as text: an IRI or literal itself, a blank node by what this graph says about it."""
        if not isinstance(node, BlankNode):
            return str(node)
        if depth > 6:
            return "[...]"
        return "[" + "; ".join(sorted(f"{p} {self.signature(o, depth + 1)}" for p, o in self.out.get(node, []))) + "]"


@dataclass
class Case:
    """One sht:Validate case: its name, the data and shapes files, and the expected report."""

    name: str
    data: Path
    shapes: Path
    conforms: bool
    results: Results
    messages: frozenset[tuple[str, str]]  # (focus, message) pairs the expected report states

    @property
    def data_graph(self) -> Graph:
        return Graph.of(self.data)

    @property
    def shapes_graph(self) -> Graph:
        return Graph.of(self.shapes)


def result_key(graph: Graph, shapes: Graph, data: Graph, result: dict[str, Any]) -> tuple[str, ...]:
    """A result as comparable text: ``result`` maps focusNode, resultPath, value, sourceShape,
    sourceConstraintComponent and resultSeverity to terms of ``graph`` (the report's; blank
    nodes described by ``data`` for focus and value, ``shapes`` for the shape and path)."""
    def text(name: str, where: Graph) -> str:
        term = result.get(name)
        if term is None:
            return "-"
        if isinstance(term, BlankNode) and not where.out.get(term):
            where = graph  # described by the report itself (a path copied into it)
        return where.signature(term)
    return (text("focusNode", data), text("resultPath", shapes), text("value", data),
            text("sourceShape", shapes), text("sourceConstraintComponent", shapes),
            text("resultSeverity", shapes))


def _manifest_files(top: Path) -> Iterable[Path]:
    graph = Graph.of(top)
    yield top
    for include in graph.objects(NamedNode(top.as_uri()), NamedNode(MF + "include")):
        yield from _manifest_files(Path(include.value[len("file://"):]))


def _path(term: Any, here: Path) -> Path:
    return Path(term.value[len("file://"):]) if isinstance(term, NamedNode) else here


def cases(top: Path = HERE / "core" / "manifest.ttl") -> list[Case]:
    """Every sht:Validate case reachable from the manifest ``top``."""
    found = []
    for file in _manifest_files(top):
        graph = Graph.of(file)
        for entries in graph.objects(NamedNode(file.as_uri()), NamedNode(MF + "entries")):
            for entry in graph.items(entries):
                if NamedNode(SHT + "Validate") not in graph.objects(entry, RDF_TYPE):
                    continue
                action = graph.value(entry, NamedNode(MF + "action"))
                data = _path(graph.value(action, NamedNode(SHT + "dataGraph")), file)
                shapes = _path(graph.value(action, NamedNode(SHT + "shapesGraph")), file)
                found.append(_case(entry, graph, data, shapes))
    return sorted(found, key=lambda c: c.name)


def _case(entry: Any, graph: Graph, data: Path, shapes: Path) -> Case:
    report = graph.value(entry, NamedNode(MF + "result"))
    conforms = graph.value(report, NamedNode(SH + "conforms"))
    results: Counter[tuple[str, ...]] = Counter()
    messages = set()
    data_graph, shapes_graph = Graph.of(data), Graph.of(shapes)
    for node in graph.objects(report, NamedNode(SH + "result")):
        fields = {p.value[len(SH):]: o for p, o in graph.out.get(node, []) if p.value.startswith(SH)}
        results[result_key(graph, shapes_graph, data_graph, fields)] += 1
        for message in graph.objects(node, NamedNode(SH + "resultMessage")):
            messages.add((str(fields.get("focusNode")), str(message)))
    name = f"{graph.path.parent.name}/{entry.value.rsplit('/', 1)[-1]}"
    return Case(name, data, shapes, isinstance(conforms, Literal) and conforms.value == "true",
                multiset(results), frozenset(messages))


def multiset(counts: Counter[tuple[str, ...]]) -> Results:
    """A multiset of result keys as a comparable value: each key with its count, sorted."""
    return tuple(sorted(counts.items()))


def report_keys(report: list[Any], shapes: Graph, data: Graph, graph: Graph | None = None) -> tuple[bool, Results]:
    """(conforms, the multiset of result keys) of a report graph's triples (``report``: pyoxigraph triples)."""
    out: dict[Any, list[tuple[Any, Any]]] = {}
    for t in report:
        out.setdefault(t.subject, []).append((t.predicate, t.object))
    holder = graph or Graph.__new__(Graph)
    holder.out = out
    conforms = next(o for s, pairs in out.items() for p, o in pairs if p == NamedNode(SH + "conforms"))
    keys: Counter[tuple[str, ...]] = Counter()
    results = {o for pairs in out.values() for p, o in pairs if p == NamedNode(SH + "result")}
    for s, pairs in out.items():
        if s in results:  # the report's results (not the nested ones an engine gives as sh:detail)
            fields = {p.value[len(SH):]: o for p, o in pairs if p.value.startswith(SH)}
            keys[result_key(holder, shapes, data, fields)] += 1
    return conforms.value == "true", multiset(keys)
