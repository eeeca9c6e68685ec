"""Shapes compiled: each node or property shape of a shapes graph as a ``Shape`` with its constraints.

``Compiler(shapes)`` reads the shapes graph (a ``Facts``), finds the shapes that
select focus nodes (a target, or a shape that is also a class: an implicit class
target) and compiles them with every shape they reach (sh:property, sh:node, sh:not,
sh:and / sh:or / sh:xone, sh:qualifiedValueShape), each once, so a shape shared by
many others and a shape that nests itself are one ``Shape``. Anything outside
SHACL Core (sh:sparql, sh:target, a custom constraint component) raises ``Unsupported``;
shapes nested more than ``MAX_NESTING`` deep raise ``ShapeRefused``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pyoxigraph import Literal, NamedNode

from . import focus, logic, values
from .component import Component, ShapeRefused, Unsupported, is_true
from .graph import RDF_TYPE, RDFS, SH, Facts, Term
from .paths import BadPath, Path, compile_path, inverse_predicates, path_predicates
from .targets import KINDS, TARGET_KEYS

VIOLATION = NamedNode(SH + "Violation")
_SHAPE_TYPES = (NamedNode(SH + "NodeShape"), NamedNode(SH + "PropertyShape"))
_CLASSES = (NamedNode(RDFS + "Class"), NamedNode("http://www.w3.org/2002/07/owl#Class"))
_INERT = frozenset({"path", "severity", "message", "name", "description", "order", "group", "deactivated",
                    "defaultValue", "flags", "ignoredProperties", "qualifiedMinCount", "qualifiedMaxCount",
                    "qualifiedValueShapesDisjoint", "declare", "prefixes", *KINDS})
_NOT_CORE = frozenset({"sparql", "target", "targetShape", "rule", "condition", "expression"})
_CONSTRAINING = frozenset({*values.BUILDERS, *focus.BUILDERS, *logic.LIST_BUILDERS, "qualifiedValueShape",
                           "property", "path"})
PARAMETER, PATH = NamedNode(SH + "parameter"), NamedNode(SH + "path")
MAX_NESTING = 64  # shapes inside shapes (sh:property, sh:node, sh:not, ...): each level a few Python frames


@dataclass(eq=False)
class Shape:
    """One compiled shape: its node, path (None: a node shape), severity, messages and constraints."""

    node: Term
    path: Path | None = None
    path_node: Term | None = None
    severity: Term = VIOLATION
    messages: tuple[Literal, ...] = ()
    deactivated: bool = False
    components: list[Component] = field(default_factory=list)
    properties: list["Shape"] = field(default_factory=list)
    targets: list[tuple[str, Term]] = field(default_factory=list)
    simple: bool = False  # no nested shape: no property shapes, no component that asks other shapes


class Compiler:
    """The shapes of one shapes graph, compiled; ``roots``: those that select focus nodes."""

    def __init__(self, shapes: Facts, *, skip: frozenset[Term] = frozenset()) -> None:
        self.shapes = shapes
        self.compiled: dict[Term, Shape] = {}
        self.custom = {p.value for parameter in _all_objects(shapes, PARAMETER)
                       for p in shapes.objects(parameter, PATH) if isinstance(p, NamedNode)}
        self.reads: set[str] = {RDF_TYPE.value, RDFS + "subClassOf"}  # the predicates the shapes look at
        self.backwards: set[str] = set()  # those walked from object to subject
        self.closed = False  # some shape is closed: every triple of a node is read
        self.depth = 0  # shapes being compiled inside one another
        self.roots = [self.shape(node) for node in sorted(self._root_nodes(skip), key=str)]
        self.roots = [root for root in self.roots if not root.deactivated]

    def _root_nodes(self, skip: frozenset[Term]) -> set[Term]:
        s = self.shapes
        found: set[Term] = set()
        for kind, key in TARGET_KEYS.items():
            found |= {subject for (subject, p) in s.forward if p == key}
        target = NamedNode(SH + "target")
        if any(p == target and subject not in skip for (subject, p) in s.forward):
            raise Unsupported("a shape has a SPARQL-based or custom target (sh:target): not SHACL Core")
        for cls in _CLASSES:  # implicit class targets: a shape that is a class
            for node in s.instances.get(cls, []):
                if isinstance(node, NamedNode) and self._is_shape(node):
                    found.add(node)
        return found - skip

    def _is_shape(self, node: Term) -> bool:
        s = self.shapes
        return any(t in _SHAPE_TYPES for t in s.objects(node, RDF_TYPE)) or any(
            p.value.startswith(SH) and p.value[len(SH):] in _CONSTRAINING for p, _ in s.pairs(node))

    def shape(self, node: Term) -> Shape:
        """The compiled shape at ``node`` (compiled once)."""
        found = self.compiled.get(node)
        if found is not None:
            return found
        if self.depth >= MAX_NESTING:
            raise ShapeRefused(node, f"shapes nest more than {MAX_NESTING} deep (sh:property, sh:node, sh:not, "
                                     f"sh:and, sh:or, sh:xone, sh:qualifiedValueShape inside one another)")
        self.depth += 1
        try:
            return self._compile(node)
        finally:
            self.depth -= 1

    def _compile(self, node: Term) -> Shape:
        s = self.shapes
        shape = self.compiled[node] = Shape(node)  # before its parameters: a shape may reach itself
        shape.deactivated = any(is_true(v) for v in s.objects(node, NamedNode(SH + "deactivated")))
        shape.severity = s.value(node, NamedNode(SH + "severity")) or VIOLATION
        shape.messages = tuple(m for m in s.objects(node, NamedNode(SH + "message")) if isinstance(m, Literal))
        shape.targets = [(kind, value) for kind, key in TARGET_KEYS.items() for value in s.objects(node, key)]
        if isinstance(node, NamedNode) and any(t in _CLASSES for t in s.objects(node, RDF_TYPE)):
            shape.targets.append(("targetClass", node))
        path = s.value(node, PATH)
        if path is not None:
            try:
                shape.path, shape.path_node = compile_path(s, path), path
            except BadPath as error:
                raise Unsupported(f"shape {node}: {error}") from None
            self.reads |= path_predicates(s, path)
            self.backwards |= inverse_predicates(s, path)
        for predicate, value in sorted(s.pairs(node), key=lambda pv: (pv[0].value, str(pv[1]))):
            self._parameter(shape, predicate, value)
        shape.simple = not shape.properties and not any(c.nested for c in shape.components)
        return shape

    def _parameter(self, shape: Shape, predicate: Term, value: Any) -> None:
        name = predicate.value[len(SH):] if predicate.value.startswith(SH) else None
        if name is None:
            if predicate.value in self.custom:
                raise Unsupported(f"shape {shape.node} uses the custom constraint component parameter "
                                  f"{predicate.value}: not SHACL Core")
            return
        if name in _NOT_CORE:
            raise Unsupported(f"shape {shape.node} uses sh:{name}: SHACL-SPARQL or SHACL-AF, not SHACL Core")
        if name in _INERT:
            if name in KINDS and name in ("targetSubjectsOf", "targetObjectsOf"):
                self.reads.add(value.value)
                if name == "targetSubjectsOf":
                    self.backwards.add(value.value)
            return
        if name == "property":
            shape.properties.append(self.shape(value))
            return
        if name == "qualifiedValueShape":
            shape.components += logic.QUALIFIED_BUILDER(self, shape.node, value)
            return
        built: Component | None
        if name in values.BUILDERS:
            built = values.BUILDERS[name](self.shapes, shape.node, value)
        elif name in focus.BUILDERS:
            built = focus.BUILDERS[name](self.shapes, shape.node, value)
            if name in ("equals", "disjoint", "lessThan", "lessThanOrEquals"):
                self.reads.add(value.value)
            self.closed |= name == "closed" and built is not None
        elif name in logic.LIST_BUILDERS:
            built = logic.LIST_BUILDERS[name](self, shape.node, value)
        else:
            return  # not a parameter of SHACL Core (sh:name and kin are inert): nothing to check
        if built is not None:
            shape.components.append(built)


def _all_objects(facts: Facts, predicate: Term) -> list[Term]:
    return [o for (_, p), objects in facts.forward.items() if p == predicate for o in objects]
