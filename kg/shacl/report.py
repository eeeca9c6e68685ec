"""Validation results as SHACL defines them, and the W3C validation report graph they make.

A ``Finding`` is one sh:ValidationResult: the focus node, the result path, the value,
the source shape, the source constraint component, the severity and the messages
(the shape's sh:message values with their language tags, else the component's
default message).
"""

from __future__ import annotations

from typing import Any, Iterable, NamedTuple

from pyoxigraph import BlankNode, Literal, NamedNode, Triple

from .graph import RDF_FIRST, RDF_REST, RDF_TYPE, SH, Facts, Term


class Finding(NamedTuple):
    """One validation result (``component``: the local name of an sh: constraint component)."""

    focus: Term
    path: Term | None
    value: Term | None
    shape: Term
    component: str
    severity: Term
    messages: tuple[Literal, ...]

    @property
    def key(self) -> tuple[Any, ...]:
        return (self.focus, self.path, self.value, self.shape, self.component, self.severity)


def _sh(local: str) -> NamedNode:
    return NamedNode(SH + local)


def report_triples(findings: Iterable[Finding], shapes: Facts | None = None) -> list[Triple]:
    """The W3C report graph: an sh:ValidationReport with sh:conforms and one sh:result per finding (its
    blank result paths copied from ``shapes``, when given)."""
    report = BlankNode()
    found = list(findings)
    triples = [Triple(report, RDF_TYPE, _sh("ValidationReport")),
               Triple(report, _sh("conforms"), Literal(not found))]
    copied: dict[Term, Term] = {}
    for finding in found:
        node = BlankNode()
        triples += [Triple(report, _sh("result"), node), Triple(node, RDF_TYPE, _sh("ValidationResult")),
                    Triple(node, _sh("focusNode"), finding.focus), Triple(node, _sh("resultSeverity"), finding.severity),
                    Triple(node, _sh("sourceConstraintComponent"), _sh(finding.component)),
                    Triple(node, _sh("sourceShape"), finding.shape)]
        triples += [Triple(node, _sh("resultMessage"), m) for m in finding.messages]
        if finding.value is not None:
            triples.append(Triple(node, _sh("value"), finding.value))
        if finding.path is not None:
            path = finding.path
            if isinstance(path, BlankNode) and shapes is not None:
                path = copied.get(path) or copied.setdefault(path, _copy(shapes, path, triples, {}))
            triples.append(Triple(node, _sh("resultPath"), path))
    return triples


_LIST = frozenset({RDF_FIRST.value, RDF_REST.value})
_PATH_KEYS = frozenset(SH + key for key in ("inversePath", "alternativePath", "zeroOrMorePath", "oneOrMorePath",
                                            "zeroOrOnePath"))


def _copy(shapes: Facts, node: Term, triples: list[Triple], seen: dict[Term, Term]) -> Term:
    """A copy of the blank path node ``node`` of the shapes graph, into ``triples``: a list's members,
    or the path's one key (a node that is both is read as a list, as the engine reads it)."""
    if not isinstance(node, BlankNode):
        return node
    if node in seen:
        return seen[node]
    copy = seen[node] = BlankNode()
    keys = _LIST if shapes.objects(node, RDF_FIRST) else _PATH_KEYS
    for p, o in shapes.pairs(node):
        if p.value in keys:
            triples.append(Triple(copy, p, _copy(shapes, o, triples, seen)))
    return copy
