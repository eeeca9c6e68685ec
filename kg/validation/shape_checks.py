"""What kg refuses in the user's shapes before any engine reads them, each refusal one line naming the shape.

* a sh:pattern (with its sh:flags) that is no XPath regular expression, or past the
  bounds of ``kg.shacl.xsdregex`` (both engines would stumble on it: ``re`` in pySHACL
  reads another dialect);
* shapes nested inside one another more than ``MAX_NESTING`` deep, and property paths
  nested more than ``MAX_PATH_DEPTH`` deep (the engines, and kg's own readers of a shapes
  graph, recurse on them);
* SHACL-SPARQL whose query would reach past the data: ``SERVICE`` (another endpoint) or
  ``FROM`` / ``FROM NAMED`` (rdflib loads such graphs from the web). No shape ever makes
  kg open a connection.

The graph is walked without recursion, so a shapes file nested 100,000 deep is refused,
not a crash.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Mapping

import rdflib
from rdflib import BNode, URIRef

from ..errors import SourceError
from ..shacl.shapes import MAX_NESTING
from ..shacl.xsdregex import BadPattern, compile_pattern
from ..sparql.lexer import has_keyword
from .locality import NESTING, NESTING_LISTS
from .paths import RDF_FIRST
from .paths import SH_NS as SH

MAX_PATH_DEPTH = 50  # as kg.shacl.paths.compile_path
_RDF_REST = URIRef("http://www.w3.org/1999/02/22-rdf-syntax-ns#rest")
_PATH_KEYS = (SH.inversePath, SH.alternativePath, SH.zeroOrMorePath, SH.oneOrMorePath, SH.zeroOrOnePath)
_QUERY_KEYS = ("select", "ask", "construct", "update")


def check_nesting(graph: rdflib.Graph, shapes: Iterable[Any], files: str) -> None:
    """Raise ``SourceError`` (naming ``files`` and the outermost shape) for shapes or paths nested past the
    bounds; before anything else reads the shapes, some of it by recursion."""
    shapes = set(shapes)
    inner = {child for shape in shapes for child in _nested_shapes(graph, shape)}
    roots = sorted(shapes, key=lambda s: (s in inner, isinstance(s, BNode), str(s)))  # the outermost first
    deep = _deeper_than(roots, lambda node: _nested_shapes(graph, node), MAX_NESTING)
    if deep is not None:
        raise SourceError(files, f"shape {_name(graph, deep, {})}: shapes nest more than {MAX_NESTING} deep "
                                 f"(sh:property, sh:node, sh:not, sh:and, sh:or, sh:xone, sh:qualifiedValueShape "
                                 f"inside one another)")
    for shape, path in sorted(graph.subject_objects(SH.path), key=str):
        if _deeper_than([path], lambda node: _path_parts(graph, node), MAX_PATH_DEPTH) is not None:
            raise SourceError(files, f"shape {_name(graph, shape, {})}: its sh:path nests more than "
                                     f"{MAX_PATH_DEPTH} deep")


def check_contents(graph: rdflib.Graph, names: Mapping[Any, str], files: str) -> None:
    """Raise ``SourceError`` (naming ``files`` and the shape by its rule name) for a pattern that is no
    XPath regular expression, or SHACL-SPARQL that would reach past the data."""
    def refuse(node: Any, reason: str) -> SourceError:
        return SourceError(files, f"shape {_name(graph, node, names)}: {reason}")

    for shape, pattern in sorted(graph.subject_objects(SH.pattern), key=str):
        flags = graph.value(shape, SH.flags)
        try:
            compile_pattern(str(pattern), str(flags) if flags is not None else "")
        except BadPattern as error:
            raise refuse(shape, f'sh:pattern "{pattern}" is not an XPath regular expression: {error}') from None
    for key in _QUERY_KEYS:
        for node, text in sorted(graph.subject_objects(SH[key]), key=str):
            for word, why in (("SERVICE", "queries another endpoint"), ("FROM", "loads a graph by FROM")):
                if has_keyword(str(text), word):
                    raise refuse(node, f"its SPARQL (sh:{key}) {why} ({word}): kg never lets a shape reach "
                                       f"past the data it validates")


def _name(graph: rdflib.Graph, node: Any, names: Mapping[Any, str]) -> str:
    """A shape's rule name; for a SPARQL constraint or target, the shape that holds it."""
    if node in names:
        return names[node]
    for key in ("sparql", "target"):
        for holder in graph.subjects(SH[key], node):
            if holder in names:
                return names[holder]
    if isinstance(node, URIRef):
        short = graph.namespace_manager.normalizeUri(node)
        return str(node) if short.startswith("<") else short
    return f"_:{node}"


def _nested_shapes(graph: rdflib.Graph, node: Any) -> list[Any]:
    found = [c for key in NESTING for c in graph.objects(node, SH[key])]
    for key in NESTING_LISTS:
        for items in graph.objects(node, SH[key]):
            found += _items(graph, items)
    return found


def _path_parts(graph: rdflib.Graph, node: Any) -> list[Any]:
    if isinstance(node, URIRef):
        return []
    found = _items(graph, node) if (node, RDF_FIRST, None) in graph else []
    for key in _PATH_KEYS:
        for inner in graph.objects(node, key):
            found += _items(graph, inner) if key == SH.alternativePath else [inner]
    return found


def _items(graph: rdflib.Graph, head: Any) -> list[Any]:
    """An RDF list's members (a list that loops ends where it meets itself)."""
    found, seen = [], set()
    while head is not None and head not in seen and (head, RDF_FIRST, None) in graph:
        seen.add(head)
        found.append(graph.value(head, RDF_FIRST))
        head = graph.value(head, _RDF_REST)
    return found


def _deeper_than(roots: Iterable[Any], children: Callable[[Any], list[Any]], most: int) -> Any:
    """The first root from which a walk (each node entered once, as a compiler does) goes more than ``most``
    levels deep; None when none does."""
    seen: set[Any] = set()
    for root in roots:
        if root in seen:
            continue
        seen.add(root)
        stack = [iter(children(root))]
        while stack:
            child = next(stack[-1], None)
            if child is None:
                stack.pop()
            elif child not in seen:
                seen.add(child)
                if len(stack) >= most:
                    return root
                stack.append(iter(children(child)))
    return None

