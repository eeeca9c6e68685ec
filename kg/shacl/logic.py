"""The constraint components that ask whether value nodes conform to other shapes.

sh:not, sh:and, sh:or, sh:xone (each member of the list counted, repeats too),
sh:node, and sh:qualifiedValueShape with sh:qualifiedMinCount / sh:qualifiedMaxCount
and sh:qualifiedValueShapesDisjoint (a value counts only when it conforms to none of
the sibling shapes: the qualified value shapes of the other property shapes of the
shapes that hold this one).
"""

from __future__ import annotations

from typing import Callable

from pyoxigraph import NamedNode

from .component import Compiles, Component, Found, Nested, Run, is_true
from .graph import SH, Term

Builder = Callable[[Compiles, Term, Term], Component | None]
PROPERTY = NamedNode(SH + "property")
QUALIFIED = NamedNode(SH + "qualifiedValueShape")
QUALIFIED_MIN, QUALIFIED_MAX = NamedNode(SH + "qualifiedMinCount"), NamedNode(SH + "qualifiedMaxCount")
DISJOINT = NamedNode(SH + "qualifiedValueShapesDisjoint")


def _not(compiler: Compiles, node: Term, value: Term) -> Component:
    inner = compiler.shape(value)

    def check(run: Run, focus: Term, values: list[Term]) -> Found:
        return [(v, None) for v in values if run.conforms(inner, v)]
    return Component("NotConstraintComponent", check, f"Value conforms to shape {value}", True)


def _list(name: str, passes: Callable[[int, int], bool], words: str) -> Builder:
    def build(compiler: Compiles, node: Term, head: Term) -> Component:
        members = [compiler.shape(item) for item in compiler.shapes.items(head)]

        def check(run: Run, focus: Term, values: list[Term]) -> Found:
            found = []
            for v in values:
                if name == "Or":  # stops at the first shape it conforms to
                    ok = any(run.conforms(m, v) for m in members)
                elif name == "And":
                    ok = all(run.conforms(m, v) for m in members)
                else:
                    ok = passes(sum(1 for m in members if run.conforms(m, v)), len(members))
                if not ok:
                    found.append((v, None))
            return found
        return Component(f"{name}ConstraintComponent", check, f"Value does not conform to {words} shapes", True)
    return build


def _node(compiler: Compiles, node: Term, value: Term) -> Component:
    inner = compiler.shape(value)

    def check(run: Run, focus: Term, values: list[Term]) -> Found:
        return [(v, None) for v in values if not run.conforms(inner, v)]
    return Component("NodeConstraintComponent", check, f"Value does not conform to shape {value}", True)


def _siblings(compiler: Compiles, node: Term, own: Term) -> list[Term]:
    """The qualified value shapes of the sibling property shapes of ``node`` (``own`` left out)."""
    shapes = compiler.shapes
    found = []
    for parent in shapes.subjects(PROPERTY, node):
        for sibling in shapes.objects(parent, PROPERTY):
            found += [q for q in shapes.objects(sibling, QUALIFIED) if q != own]
    return list(dict.fromkeys(found))


def _qualified(compiler: Compiles, node: Term, value: Term) -> list[Component]:
    shapes = compiler.shapes
    inner = compiler.shape(value)
    least, most = shapes.value(node, QUALIFIED_MIN), shapes.value(node, QUALIFIED_MAX)
    disjoint = any(is_true(flag) for flag in shapes.objects(node, DISJOINT))
    others: list[Nested] = [compiler.shape(s) for s in _siblings(compiler, node, value)] if disjoint else []

    def count(run: Run, focus: Term, values: list[Term]) -> int:
        key = (node, focus)  # one count for the min and the max
        found = run.memo.get(key)
        if found is None:
            found = run.memo[key] = sum(1 for v in values if run.conforms(inner, v)
                                        and not any(run.conforms(o, v) for o in others))
        return int(found)

    built = []
    if least is not None:
        low = int(least.value)
        built.append(Component("QualifiedMinCountConstraintComponent",
                               lambda run, focus, values: [(None, None)] if count(run, focus, values) < low else [],
                               f"Fewer than {low} values conform to shape {value}", True))
    if most is not None:
        high = int(most.value)
        built.append(Component("QualifiedMaxCountConstraintComponent",
                               lambda run, focus, values: [(None, None)] if count(run, focus, values) > high else [],
                               f"More than {high} values conform to shape {value}", True))
    return built


LIST_BUILDERS: dict[str, Builder] = {
    "not": _not, "node": _node,
    "and": _list("And", lambda n, total: n == total, "all of the"),
    "or": _list("Or", lambda n, total: n > 0, "any of the"),
    "xone": _list("Xone", lambda n, total: n == 1, "exactly one of the"),
}
QUALIFIED_BUILDER = _qualified
