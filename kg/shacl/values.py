"""The constraint components that judge each value node alone: value type, range, string, sh:in, sh:class.

sh:class (a SHACL instance: rdf:type/rdfs:subClassOf* in the data), sh:datatype
(of that datatype and well-formed for it), sh:nodeKind, sh:minExclusive /
sh:minInclusive / sh:maxExclusive / sh:maxInclusive (a value that does not compare
with the limit is a result), sh:minLength / sh:maxLength and sh:pattern (an XPath
regular expression with sh:flags, ``kg.shacl.xsdregex``; a blank node is a result; one value's
match bounded by ``MATCH_SECONDS``), sh:languageIn (langMatches) and sh:in.
"""

from __future__ import annotations

import time
from typing import Callable

from pyoxigraph import BlankNode, Literal, NamedNode

from .component import Component, Found, OutOfTime, Run, ShapeRefused, per_value
from .graph import SH, XSD, Facts, Term
from .literals import LANG_STRING, RANGE_TESTS, compare, well_formed
from .xsdregex import BadPattern, compile_pattern

Builder = Callable[[Facts, Term, Term], Component]

_KINDS: dict[str, tuple[type, ...]] = {
    "IRI": (NamedNode,), "BlankNode": (BlankNode,), "Literal": (Literal,),
    "BlankNodeOrIRI": (BlankNode, NamedNode), "BlankNodeOrLiteral": (BlankNode, Literal),
    "IRIOrLiteral": (NamedNode, Literal),
}
FLAGS = NamedNode(SH + "flags")


def _class(shapes: Facts, node: Term, cls: Term) -> Component:
    def check(run: Run, focus: Term, values: list[Term]) -> Found:
        return [(v, None) for v in values if isinstance(v, Literal) or not run.hierarchy.is_instance(run.facts, v, cls)]
    return Component("ClassConstraintComponent", check, f"Value is not an instance of {_name(cls)}")


def has_datatype(value: Term, datatype: str) -> bool:
    """sh:datatype: a literal of that datatype (rdf:langString for a language-tagged one), well-formed."""
    if not isinstance(value, Literal):
        return False
    if value.language:
        return datatype == LANG_STRING
    return value.datatype.value == datatype and (datatype == XSD + "string" or well_formed(value))


def _datatype(shapes: Facts, node: Term, datatype: Term) -> Component:
    wanted = datatype.value
    return per_value("DatatypeConstraintComponent", lambda v: has_datatype(v, wanted),
                     f"Value is not a well-formed literal of datatype {_name(datatype)}")


def _node_kind(shapes: Facts, node: Term, kind: Term) -> Component:
    kinds = _KINDS.get(kind.value.rsplit("#", 1)[-1], ())
    return per_value("NodeKindConstraintComponent", lambda v: isinstance(v, kinds),
                     f"Value is not of node kind {_name(kind)}")


def _range(name: str) -> Builder:
    accepts = RANGE_TESTS[name]

    def build(shapes: Facts, node: Term, limit: Term) -> Component:
        def test(value: Term) -> bool:
            order = compare(value, limit)
            return order is not None and accepts(order)
        return per_value(name[0].upper() + name[1:] + "ConstraintComponent", test,
                         f"Value is not {_RANGE_WORDS[name]} {_text(limit)}")
    return build


_RANGE_WORDS = {"minInclusive": ">=", "minExclusive": ">", "maxInclusive": "<=", "maxExclusive": "<"}


def _length(longest: bool) -> Builder:
    def build(shapes: Facts, node: Term, bound: Term) -> Component:
        limit = int(bound.value)

        def test(value: Term) -> bool:
            if isinstance(value, BlankNode):
                return False
            size = len(value.value)
            return size <= limit if longest else size >= limit
        name = "MaxLengthConstraintComponent" if longest else "MinLengthConstraintComponent"
        return per_value(name, test, f"Value has {'more' if longest else 'fewer'} than {limit} characters")
    return build


MATCH_SECONDS = 2.0  # one value's match: past this a pattern has run away (matches take microseconds)


def _pattern(shapes: Facts, node: Term, pattern: Term) -> Component:
    flags = shapes.value(node, FLAGS)
    try:
        regex = compile_pattern(pattern.value, flags.value if flags is not None else "")
    except BadPattern as error:
        raise ShapeRefused(node, f'sh:pattern "{pattern.value}" is not an XPath regular expression: '
                                 f'{error}') from None

    def matches(run: Run, focus: Term, value: Term) -> bool:
        if run.bounded_patterns:  # kg's own patterns: microseconds, whatever the value
            if run.deadline is not None and time.monotonic() > run.deadline:
                raise OutOfTime("the validation did not finish before its deadline")
            return regex.search(value.value) is not None
        limit = MATCH_SECONDS if run.deadline is None else min(MATCH_SECONDS, run.deadline - time.monotonic())
        try:
            return regex.search(value.value, timeout=max(limit, 0.001)) is not None
        except TimeoutError:
            if limit < MATCH_SECONDS:
                raise OutOfTime("the validation did not finish before its deadline") from None
            raise ShapeRefused(node, f'sh:pattern "{pattern.value}" ran longer than {MATCH_SECONDS:g} s on one '
                                     f'value of {focus} (a pattern that backtracks without end)') from None

    def check(run: Run, focus: Term, values: list[Term]) -> Found:
        return [(v, None) for v in values if isinstance(v, BlankNode) or not matches(run, focus, v)]
    return Component("PatternConstraintComponent", check, f'Value does not match pattern "{pattern.value}"')


def lang_matches(tag: str, wanted: str) -> bool:
    """SPARQL's langMatches: a basic language range against a tag."""
    tag, wanted = tag.lower(), wanted.lower()
    if wanted == "*":
        return bool(tag)
    return tag == wanted or tag.startswith(wanted + "-")


def _language_in(shapes: Facts, node: Term, head: Term) -> Component:
    ranges = [item.value for item in shapes.items(head) if isinstance(item, Literal)]
    return per_value("LanguageInConstraintComponent",
                     lambda v: isinstance(v, Literal) and bool(v.language)
                     and any(lang_matches(v.language or "", r) for r in ranges),
                     f"Language does not match any of {', '.join(ranges)}")


def _in(shapes: Facts, node: Term, head: Term) -> Component:
    allowed = frozenset(shapes.items(head))
    return per_value("InConstraintComponent", lambda v: v in allowed,
                     f"Value is not in {', '.join(sorted(_text(a) for a in allowed))[:200]}")


def _name(term: Term) -> str:
    return term.value if isinstance(term, NamedNode) else str(term)


def _text(term: Term) -> str:
    return term.value if isinstance(term, (NamedNode, Literal)) else str(term)


BUILDERS: dict[str, Builder] = {
    "class": _class, "datatype": _datatype, "nodeKind": _node_kind,
    **{name: _range(name) for name in RANGE_TESTS},
    "minLength": _length(False), "maxLength": _length(True), "pattern": _pattern,
    "languageIn": _language_in, "in": _in,
}
