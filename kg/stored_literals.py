"""Literals the store keeps in another form than they were written: which, how many, and why.

kg's store is pyoxigraph's ``Store`` (on disk, or in memory), and it keeps numbers,
booleans, dates, times and durations by their value. So ``"3"^^xsd:byte`` comes back as
``"3"^^xsd:integer`` (the twelve integer types derived from xsd:integer all become
xsd:integer), ``xsd:dateTimeStamp`` as ``xsd:dateTime``, and a value's text in its
canonical form (``"03"`` as ``"3"``, ``"1.50"`` as ``"1.5"``, ``"1e0"^^xsd:double`` as
``"1"``); two triples that differ only so become one. pyoxigraph has no setting that
keeps them (its ``Literal`` and ``Dataset`` do keep them: only the store changes them;
oxigraph's issue 1413 tracks it). Ill-formed literals (``"300"^^xsd:byte``) are kept as
written, all but the integer ones out of range, which lose their type the same way.

``changed_literals`` finds every such literal of some quads by asking a scratch
in-memory store (each distinct typed literal once): the ingest of an RDF file warns
with their count per datatype (docs/guide/validation.md, "Datatypes").

>>> import pyoxigraph
>>> xsd = "http://www.w3.org/2001/XMLSchema#"
>>> quads = [pyoxigraph.Quad(pyoxigraph.NamedNode("http://e.org/a"), pyoxigraph.NamedNode("http://e.org/p"),
...          pyoxigraph.Literal(text, datatype=pyoxigraph.NamedNode(xsd + name)))
...          for text, name in (("3", "byte"), ("03", "byte"), ("7", "integer"), ("x", "string"))]
>>> found = changed_literals(quads)
>>> [(c.written, c.stored, c.literals, c.example) for c in found.changes], found.merged
([('byte', 'integer', 2, '"03"^^xsd:byte as "3"^^xsd:integer')], 1)
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Iterable

import pyoxigraph
from pyoxigraph import DefaultGraph, Literal, NamedNode, Quad

XSD = "http://www.w3.org/2001/XMLSchema#"
_KEPT = frozenset({XSD + "string", "http://www.w3.org/1999/02/22-rdf-syntax-ns#langString"})


@dataclass(frozen=True)
class Change:
    """Literals of one datatype that the store keeps otherwise: ``written`` and ``stored`` datatypes (local
    names of XSD, else the IRI), how many literals, and one of them as written and as kept."""

    written: str
    stored: str
    literals: int
    example: str

    @property
    def retyped(self) -> bool:
        return self.written != self.stored


@dataclass(frozen=True)
class ChangedLiterals:
    """What the store changes in some quads: the changes by datatype, and how many quads become one with
    another (they differed only in a literal's form)."""

    changes: list[Change] = field(default_factory=list)
    merged: int = 0


def _name(datatype: str) -> str:
    return datatype[len(XSD):] if datatype.startswith(XSD) else datatype


def _text(literal: Literal) -> str:
    return f'"{literal.value}"^^xsd:{_name(literal.datatype.value)}' if literal.datatype.value.startswith(XSD) \
        else str(literal)


def stored_forms(literals: Iterable[Literal]) -> dict[Literal, Literal]:
    """Each literal that the store keeps otherwise, with the form it keeps (each asked once)."""
    asked = list(dict.fromkeys(literals))
    store = pyoxigraph.Store()
    predicate = NamedNode("urn:kg:value")
    store.extend(Quad(NamedNode(f"urn:kg:{i}"), predicate, literal, DefaultGraph()) for i, literal in enumerate(asked))
    found: dict[Literal, Literal] = {}
    for quad in store.quads_for_pattern(None, predicate, None, DefaultGraph()):
        subject, kept = quad.subject, quad.object
        if isinstance(subject, NamedNode) and isinstance(kept, Literal):
            written = asked[int(subject.value[len("urn:kg:"):])]
            if kept != written:
                found[written] = kept
    return found


def changed_literals(quads: Iterable[Any]) -> ChangedLiterals:
    """The literals of ``quads`` (pyoxigraph quads or triples) that the store keeps in another form."""
    quads = list(quads)
    typed = [q.object for q in quads if isinstance(q.object, Literal) and q.object.datatype.value not in _KEPT]
    if not typed:
        return ChangedLiterals()
    forms = stored_forms(typed)
    if not forms:
        return ChangedLiterals()
    counts: Counter[tuple[str, str]] = Counter()
    examples: dict[tuple[str, str], tuple[bool, str]] = {}  # (its text changed too, the example)
    for literal in typed:
        kept = forms.get(literal)
        if kept is not None:
            key = (literal.datatype.value, kept.datatype.value)
            counts[key] += 1
            if key not in examples or (literal.value != kept.value and not examples[key][0]):
                examples[key] = (literal.value != kept.value, f"{_text(literal)} as {_text(kept)}")
    changes = [Change(_name(w), _name(s), n, examples[(w, s)][1]) for (w, s), n in sorted(counts.items())]
    written = {(q.subject, q.predicate, q.object, getattr(q, "graph_name", None)) for q in quads}
    stored = {(s, p, forms.get(o, o), g) for s, p, o, g in written}
    return ChangedLiterals(changes, len(written) - len(stored))


def warning_lines(found: ChangedLiterals) -> list[str]:
    """One line per datatype the store changes, and one for the triples that become one."""
    lines = []
    for change in found.changes:
        if change.retyped:
            lines.append(f"{change.literals} literal(s) of xsd:{change.written} are stored as xsd:{change.stored}, "
                         f"e.g. {change.example} (the store keeps numbers and dates by value; kg export gives "
                         f"them so)")
        else:
            lines.append(f"{change.literals} literal(s) of xsd:{change.written} are stored in their canonical "
                         f"form, e.g. {change.example} (the same value, written otherwise)")
    if found.merged:
        lines.append(f"{found.merged} triple(s) differ from another only in such a literal: stored once")
    return lines
