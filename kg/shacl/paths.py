"""SHACL property paths: compiled into functions from a node to its value nodes, and written as SPARQL text.

Every path of SHACL Core: a predicate, sh:inversePath, a sequence (an RDF list),
sh:alternativePath, sh:zeroOrMorePath, sh:oneOrMorePath and sh:zeroOrOnePath,
nested in any way. The one walk of a path in kg: ``kg.validation.paths`` writes the paths of
an rdflib shapes graph with it too.
"""

from __future__ import annotations

from typing import Callable

from pyoxigraph import NamedNode

from .graph import RDF_FIRST, SH, Facts, Term, distinct

Path = Callable[[Facts, Term], list[Term]]

INVERSE, ALTERNATIVE = NamedNode(SH + "inversePath"), NamedNode(SH + "alternativePath")
REPEATS = ((NamedNode(SH + "zeroOrMorePath"), "*"), (NamedNode(SH + "oneOrMorePath"), "+"),
           (NamedNode(SH + "zeroOrOnePath"), "?"))


class BadPath(ValueError):
    """A node that is no SHACL property path."""


def _once(nodes: list[Term]) -> list[Term]:
    return nodes if len(nodes) < 2 else distinct(nodes)


def compile_path(shapes: Facts, node: Term, depth: int = 0) -> Path:
    """The value nodes function of the path at ``node`` of the shapes graph."""
    if depth > 50:
        raise BadPath(f"path {node} nests too deep (a cycle?)")
    if isinstance(node, NamedNode):
        def predicate(facts: Facts, focus: Term) -> list[Term]:
            found = facts.objects(focus, node)
            return found if len(found) < 2 else distinct(found)
        return predicate
    if shapes.objects(node, RDF_FIRST):
        return _sequence([compile_path(shapes, item, depth + 1) for item in shapes.items(node)])
    inverse = shapes.value(node, INVERSE)
    if isinstance(inverse, NamedNode):
        return lambda facts, focus: _once(facts.subjects(inverse, focus))
    if inverse is not None:
        inner = compile_path(shapes, inverse, depth + 1)
        return lambda facts, focus: _inverse(facts, inner, focus)
    alternatives = shapes.value(node, ALTERNATIVE)
    if alternatives is not None:
        return _alternative([compile_path(shapes, item, depth + 1) for item in shapes.items(alternatives)])
    for key, mark in REPEATS:
        inner_node = shapes.value(node, key)
        if inner_node is not None:
            return _repeat(compile_path(shapes, inner_node, depth + 1), mark)
    raise BadPath(f"{node} is not a SHACL property path")


def _sequence(parts: list[Path]) -> Path:
    def sequence(facts: Facts, focus: Term) -> list[Term]:
        nodes = [focus]
        for part in parts:
            nodes = part(facts, nodes[0]) if len(nodes) == 1 else distinct(v for n in nodes for v in part(facts, n))
        return nodes
    return sequence


def _alternative(options: list[Path]) -> Path:
    def alternative(facts: Facts, focus: Term) -> list[Term]:
        found: list[Term] = []
        for option in options:
            found += option(facts, focus)
        return _once(found)
    return alternative


def _inverse(facts: Facts, inner: Path, focus: Term) -> list[Term]:
    """The nodes from which ``inner`` reaches ``focus`` (an inverse of a complex path: every candidate
    subject is tried, so this is slow on big graphs, and rare)."""
    candidates = distinct(s for (s, _) in facts.forward) + (distinct(s for (s, _) in facts.base.forward)
                                                            if facts.base is not None else [])
    return [s for s in distinct(candidates) if focus in inner(facts, s)]


def _repeat(inner: Path, mark: str) -> Path:
    def repeat(facts: Facts, focus: Term) -> list[Term]:
        if mark == "?":
            return distinct([focus, *inner(facts, focus)])
        found: dict[Term, None] = {focus: None} if mark == "*" else {}
        todo = [focus]
        seen = {focus}
        while todo:
            for value in inner(facts, todo.pop(0)):
                found.setdefault(value, None)
                if value not in seen:
                    seen.add(value)
                    todo.append(value)
        return list(found)
    return repeat


def path_text(shapes: Facts, node: Term, short: Callable[[str], str] = lambda iri: f"<{iri}>") -> str:
    """The path as SPARQL property path text; ``short`` writes an IRI (a prefixed name, or ``<iri>``)."""
    if isinstance(node, NamedNode):
        return short(node.value)
    if shapes.objects(node, RDF_FIRST):
        return "/".join(_grouped(shapes, item, short) for item in shapes.items(node))
    inverse = shapes.value(node, INVERSE)
    if inverse is not None:
        return "^" + _grouped(shapes, inverse, short)
    alternatives = shapes.value(node, ALTERNATIVE)
    if alternatives is not None:
        return "(" + "|".join(path_text(shapes, item, short) for item in shapes.items(alternatives)) + ")"
    for key, mark in REPEATS:
        inner = shapes.value(node, key)
        if inner is not None:
            return _grouped(shapes, inner, short) + mark
    return "?"


def _grouped(shapes: Facts, node: Term, short: Callable[[str], str]) -> str:
    text = path_text(shapes, node, short)
    return f"({text})" if "/" in text or ("|" in text and not text.startswith("(")) else text


def path_predicates(shapes: Facts, node: Term, depth: int = 0) -> set[str]:
    """Every predicate IRI the path walks, either way."""
    if isinstance(node, NamedNode) or depth > 50:
        return {node.value} if isinstance(node, NamedNode) else set()
    found: set[str] = set()
    for item in shapes.items(node):
        found |= path_predicates(shapes, item, depth + 1)
    for key in (INVERSE, ALTERNATIVE, *(k for k, _ in REPEATS)):
        for inner in shapes.objects(node, key):
            found |= path_predicates(shapes, inner, depth + 1)
    return found


def inverse_predicates(shapes: Facts, node: Term, backwards: bool = False, depth: int = 0) -> set[str]:
    """The predicates the path walks from object to subject (the data's backward index serves them)."""
    if isinstance(node, NamedNode):
        return {node.value} if backwards else set()
    if depth > 50:
        return set()
    found: set[str] = set()
    for item in shapes.items(node):
        found |= inverse_predicates(shapes, item, backwards, depth + 1)
    for inner in shapes.objects(node, INVERSE):
        found |= inverse_predicates(shapes, inner, not backwards, depth + 1)
    for key in (ALTERNATIVE, *(k for k, _ in REPEATS)):
        for inner in shapes.objects(node, key):
            found |= inverse_predicates(shapes, inner, backwards, depth + 1)
    return found
