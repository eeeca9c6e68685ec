"""The constraint components that judge a focus node's value nodes together: counts, pairs, closed shapes.

sh:minCount / sh:maxCount, sh:hasValue, sh:uniqueLang, the property pair components
(sh:equals, sh:disjoint, sh:lessThan, sh:lessThanOrEquals: the value nodes against the
focus node's values of another predicate) and sh:closed (with sh:ignoredProperties). Results are
counted as the specification counts them: sh:lessThan gives one per pair of values that fails,
sh:uniqueLang one per language tag used more than once.
"""

from __future__ import annotations

from collections import Counter
from typing import Callable

from pyoxigraph import Literal, NamedNode

from .component import Component, Found, Run, is_true
from .graph import SH, Facts, Term, distinct
from .literals import compare

Builder = Callable[[Facts, Term, Term], Component | None]
PROPERTY, PATH = NamedNode(SH + "property"), NamedNode(SH + "path")
IGNORED = NamedNode(SH + "ignoredProperties")


def _count(most: bool) -> Builder:
    def build(shapes: Facts, node: Term, bound: Term) -> Component:
        limit = int(bound.value)

        def check(run: Run, focus: Term, values: list[Term]) -> Found:
            return [(None, None)] if (len(values) > limit if most else len(values) < limit) else []
        name = "MaxCountConstraintComponent" if most else "MinCountConstraintComponent"
        return Component(name, check, f"{'More' if most else 'Less'} than {limit} values")
    return build


def _has_value(shapes: Facts, node: Term, wanted: Term) -> Component:
    def check(run: Run, focus: Term, values: list[Term]) -> Found:
        return [] if wanted in values else [(None, None)]
    return Component("HasValueConstraintComponent", check, f"Missing expected value {wanted}")


def _unique_lang(shapes: Facts, node: Term, flag: Term) -> Component | None:
    if not is_true(flag):
        return None

    def check(run: Run, focus: Term, values: list[Term]) -> Found:
        tags = Counter(v.language.lower() for v in values if isinstance(v, Literal) and v.language)
        return [(None, None) for tag, n in sorted(tags.items()) if n > 1]
    return Component("UniqueLangConstraintComponent", check, "Language tags are not unique")


def _equals(shapes: Facts, node: Term, other: Term) -> Component:
    def check(run: Run, focus: Term, values: list[Term]) -> Found:
        theirs = run.facts.objects(focus, other)
        ours, their_set = set(values), set(theirs)
        return [(v, None) for v in distinct([*values, *theirs]) if (v in ours) != (v in their_set)]
    return Component("EqualsConstraintComponent", check, f"Values are not equal to those of {other.value}")


def _disjoint(shapes: Facts, node: Term, other: Term) -> Component:
    def check(run: Run, focus: Term, values: list[Term]) -> Found:
        theirs = set(run.facts.objects(focus, other))
        return [(v, None) for v in values if v in theirs]
    return Component("DisjointConstraintComponent", check, f"Value is also a value of {other.value}")


def _less(or_equal: bool) -> Builder:
    def build(shapes: Facts, node: Term, other: Term) -> Component:
        def check(run: Run, focus: Term, values: list[Term]) -> Found:
            theirs = run.facts.objects(focus, other)
            found = []
            for v in values:  # a result per pair that fails, each with the value node as sh:value
                for o in theirs:
                    order = compare(v, o)
                    if order is None or order > 0 or (order == 0 and not or_equal):
                        found.append((v, None))
            return found
        name = "LessThanOrEqualsConstraintComponent" if or_equal else "LessThanConstraintComponent"
        return Component(name, check, f"Value is not {'<=' if or_equal else '<'} the values of {other.value}")
    return build


def _closed(shapes: Facts, node: Term, flag: Term) -> Component | None:
    if not is_true(flag):
        return None
    allowed = {path for prop in shapes.objects(node, PROPERTY) for path in shapes.objects(prop, PATH)
               if isinstance(path, NamedNode)}
    for head in shapes.objects(node, IGNORED):
        allowed.update(shapes.items(head))

    def check(run: Run, focus: Term, values: list[Term]) -> Found:
        return [(o, p) for v in values for p, o in run.facts.pairs(v) if p not in allowed]
    return Component("ClosedConstraintComponent", check, "Predicate is not allowed (closed shape)")


BUILDERS: dict[str, Builder] = {
    "minCount": _count(False), "maxCount": _count(True), "hasValue": _has_value, "uniqueLang": _unique_lang,
    "equals": _equals, "disjoint": _disjoint, "lessThan": _less(False), "lessThanOrEquals": _less(True),
    "closed": _closed,
}
