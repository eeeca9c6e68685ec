"""A SHACL Core engine over pyoxigraph terms: every target, path and constraint component of SHACL Core.

Compile a shapes graph once (``Engine``), index a data graph for it
(``Engine.facts``), and ``Engine.validate`` gives its results (``Finding``). The
engine reads only what it is given: it never dereferences an IRI nor follows
owl:imports. SHACL-SPARQL (sh:sparql, sh:target) and custom constraint components
raise ``Unsupported``: kg checks those with pySHACL (``kg.validation``). What no
engine should run is refused with ``ShapeRefused`` (a pattern that is no XPath regular
expression, or runs away on a value; shapes nested more than ``MAX_NESTING`` deep), and a
validation given a deadline stops at it with ``OutOfTime``.

>>> import pyoxigraph
>>> ttl = b'''@prefix sh: <http://www.w3.org/ns/shacl#> . @prefix ex: <http://example.org/> .
... ex:S sh:targetClass ex:T ; sh:property [ sh:path ex:p ; sh:minCount 1 ] .
... ex:a a ex:T . ex:b a ex:T ; ex:p 1 .'''
>>> triples = list(pyoxigraph.parse(ttl, format=pyoxigraph.RdfFormat.TURTLE))
>>> engine = Engine(triples)
>>> [(f.focus.value, f.component) for f in engine.validate(engine.facts(triples))]
[('http://example.org/a', 'MinCountConstraintComponent')]
"""

from __future__ import annotations

from .component import OutOfTime, ShapeRefused, Unsupported
from .engine import Engine
from .graph import Facts, terms
from .paths import path_text
from .report import Finding, report_triples

__all__ = ["Engine", "Facts", "Finding", "OutOfTime", "ShapeRefused", "Unsupported", "path_text", "report_triples",
           "terms"]
